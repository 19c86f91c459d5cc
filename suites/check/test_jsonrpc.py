"""JSON-RPC classified as the specification says (jsonrpc.org/specification §4, §5): a response has `id` and
`result` or `error` and no `method`, so a request or notification for a method the release lacks is never taken
for a response; it is one UNKNOWN_METHOD finding naming the method, at the severity its receiver's reader gives
(readers.yaml: reject → error, ignore → warning, extension → info), and the peer's answer correlates with it. Each
side's request ids are its own. Issue 27's capture is the first case; a small JSON-RPC protocol that is not ACP shows
the same holds for any package."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from wirecheck.certify.pipeline import certify_captures
from wirecheck.check.classify import ASK, Classifier
from wirecheck.check.engine import Engine, check_captures, jsonrpc_methods
from wirecheck.check.message import Message
from wirecheck.check.sequences import unknown_method
from wirecheck.contracts import ContractError, load_registry
from wirecheck.findings import Severity

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "acp" / "2.4.0"


def framed(tmp_path: Path, frames: list[tuple[str, dict]], name: str = "run.ndjson") -> Path:
    path = tmp_path / name
    lines = [b'{"wirecheck_capture": 1, "framing": "directed"}']
    lines += [b'{"from": "' + who.encode() + b'", "message": ' + orjson.dumps(m) + b"}" for who, m in frames]
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


@pytest.fixture(scope="module")
def acp():
    return load_registry().load("acp@2.4.0")


ISSUE = [  # issue 27: a correct agent answering an extension request the way the SDK does
    ("client", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}}),
    ("agent", {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1}}),
    ("client", {"jsonrpc": "2.0", "id": 7, "method": "_wirecheck/nothing", "params": {}}),
    ("agent", {"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": 7}),
    ("client", {"jsonrpc": "2.0", "id": 8, "method": "wirecheck/nothing", "params": {}}),
    ("agent", {"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": 8}),
]


def test_issue_27_capture_is_judged_as_the_specification_reads_it(acp, tmp_path):
    result = check_captures(acp, [str(framed(tmp_path, ISSUE))])
    codes = [f.code for f in result.findings]
    assert "RESPONSE_WITHOUT_REQUEST" not in codes
    assert not any('"result" is a required property' in f.message for f in result.findings)
    named = {f.found: f for f in result.findings if f.code == "UNKNOWN_METHOD"}
    assert set(named) == {"_wirecheck/nothing", "wirecheck/nothing"} and len(codes) == 2, codes
    extension, unknown = named["_wirecheck/nothing"], named["wirecheck/nothing"]
    assert extension.severity is Severity.INFO and "reserves such methods for extensions" in extension.message
    assert "docs/protocol/v1/extensibility.mdx:43" in extension.message  # the spec line, cited
    assert unknown.severity is Severity.ERROR and "agent rejects it" in unknown.message
    assert "dist/core/jsonrpc.js:655" in unknown.message  # the SDK line that answers -32601
    assert (extension.line, extension.pointer, extension.sender) == (4, "/method", "client")
    assert result.coverage["agent.response"].seen == 3  # the two error answers are responses, correlated


@pytest.mark.parametrize("version", load_registry().package("acp").releases)
def test_every_acp_release_tells_requests_from_responses(version, tmp_path):
    release = load_registry().load(f"acp@{version}")
    result = check_captures(release, [str(framed(tmp_path, ISSUE))])
    assert sorted((f.code, f.severity.value, f.found) for f in result.findings) == [
        ("UNKNOWN_METHOD", "error", "wirecheck/nothing"), ("UNKNOWN_METHOD", "info", "_wirecheck/nothing")]


def test_an_unanswered_unknown_request_is_owed_by_its_receiver(acp, tmp_path):
    frames = [*ISSUE[:2], ("client", {"jsonrpc": "2.0", "id": 9, "method": "session/fly", "params": {}})]
    capture = framed(tmp_path, frames)
    result = check_captures(acp, [str(capture)])
    owed = next(f for f in result.findings if f.code == "REQUEST_WITHOUT_RESPONSE")
    assert owed.kind == "agent.response" and "session/fly" in owed.message and "-32601" in owed.message
    as_agent = certify_captures(acp, [capture], role="agent")
    answered = next(r for r in as_agent.results if r.requirement.id == "ACP-2.4.0-AGENT-ANSWERS-REQUESTS")
    assert answered.status == "fail" and as_agent.verdict == "not certified"  # the agent's fault (a MUST) ...
    as_client = certify_captures(acp, [capture], role="client")
    known = next(r for r in as_client.results if r.requirement.id == "ACP-2.4.0-KNOWN-METHODS")
    assert known.status == "fail"  # ... and asking for it the client's
    assert "ACP-2.4.0-AGENT-ANSWERS-REQUESTS" not in {r.requirement.id for r in as_client.results}


def test_the_extension_request_does_not_fail_the_client_and_its_answer_counts_for_the_agent(acp, tmp_path):
    capture = framed(tmp_path, ISSUE[:4])
    for role in ("client", "agent"):
        cert = certify_captures(acp, [capture], role=role)
        assert not [r.requirement.id for r in cert.results if r.status == "fail"], role


def test_each_side_numbers_its_own_requests(acp):
    result = check_captures(acp, [str(FIXTURES / "valid" / "ids-per-side.ndjson")])
    assert result.findings == [] and result.coverage["client.response"].seen == 3


# -- any JSON-RPC protocol: a small one that is not ACP ------------------------------------------------------

CATALOG = """\
package: rpcdemo
version: 1.0.0
title: a JSON-RPC protocol for the engine's tests
sources:
  test: {type: inferred, ref: "suites/check/test_jsonrpc.py"}
roles: [client, server]
kinds:
  - id: server.ping
    title: ping (request)
    channel: stdio-ndjson
    producer: client
    consumer: server
    selector: {fields: {/jsonrpc: "2.0", /method: ping}}
    schema: wire.json#/$defs/Ping
    reply: {at: /result, schema: wire.json#/$defs/Pong}
    provenance: {source: test}
  - id: client.log
    title: log (notification)
    channel: stdio-ndjson
    producer: server
    consumer: client
    selector: {fields: {/jsonrpc: "2.0", /method: log}, absent: [/id]}
    schema: wire.json#/$defs/Log
    provenance: {source: test}
  - id: server.response
    title: a response from the server
    channel: stdio-ndjson
    producer: server
    consumer: client
    selector:
      absent: [/method]
      any:
        - {fields: {/jsonrpc: "2.0"}, present: [/id, /result]}
        - {fields: {/jsonrpc: "2.0"}, present: [/id, /error]}
    schema: wire.json#/$defs/Response
    answers: "server.*"
    correlate: {request: /id, response: /id}
    provenance: {source: test}
"""
WIRE = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://contracts.wirecheck.invalid/rpcdemo/1.0.0/wire.json",
    "$defs": {
        "Ping": {"type": "object", "required": ["jsonrpc", "id", "method"]},
        "Pong": {"type": "object", "required": ["ok"], "properties": {"ok": {"const": True}}},
        "Log": {"type": "object", "required": ["jsonrpc", "method", "params"]},
        "Response": {"type": "object", "required": ["jsonrpc", "id"]},
    },
}
READERS = """\
sources:
  server-code: {type: inferred, ref: "a server that answers -32601"}
readers:
  - kinds: ["*"]
    members: open
    provenance: {source: server-code, note: as written for the test}
unknown_kinds:
  - channel: stdio-ndjson
    consumer: server
    when: {present: [/id, /method]}
    reads: reject
    provenance: {source: server-code, note: answers -32601}
  - channel: stdio-ndjson
    consumer: server
    reads: ignore
    provenance: {source: server-code, note: as written for the test}
  - channel: stdio-ndjson
    consumer: client
    when: {fields: {/jsonrpc: "2.0"}, prefix: {/method: "x-"}, absent: [/id]}
    reads: extension
    provenance: {source: server-code, note: x- notifications are extensions here}
  - channel: stdio-ndjson
    consumer: client
    reads: ignore
    provenance: {source: server-code, note: as written for the test}
"""


def rpcdemo(tmp_path: Path, catalog: str = CATALOG, readers: str = READERS):
    root = tmp_path / "contracts"
    folder = root / "rpcdemo" / "1.0.0"
    folder.mkdir(parents=True)
    (root / "registry.yaml").write_text('packages:\n  rpcdemo: {title: rpc demo, releases: ["1.0.0"]}\n')
    (folder / "catalog.yaml").write_text(catalog)
    (folder / "wire.json").write_text(orjson.dumps(WIRE).decode())
    (folder / "readers.yaml").write_text(readers)
    return load_registry(root).load("rpcdemo@1.0.0")


def test_any_json_rpc_release_gets_the_same_reading(tmp_path):
    release = rpcdemo(tmp_path)
    assert jsonrpc_methods(release) == {"ping", "log"}
    frames = [
        ("client", {"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        ("server", {"jsonrpc": "2.0", "id": 1, "result": {"ok": True}}),
        ("client", {"jsonrpc": "2.0", "id": 2, "method": "shutdown"}),  # unknown request: rejected → error
        ("server", {"jsonrpc": "2.0", "id": 2, "error": {"code": -32601, "message": "Method not found"}}),
        ("client", {"jsonrpc": "2.0", "method": "exit"}),  # unknown notification: ignored → warning
        ("server", {"jsonrpc": "2.0", "method": "x-progress", "params": {}}),  # an extension here → info
        ("server", {"jsonrpc": "2.0", "method": "log", "params": {}}),
        ("server", {"jsonrpc": "2.0", "id": 3, "method": "log", "params": {}}),  # log with an id: no kind
    ]
    result = check_captures(release, [str(framed(tmp_path, frames))])
    got = [(f.line, f.code, f.severity.value, f.found) for f in result.findings]
    assert got == [(4, "UNKNOWN_METHOD", "error", "shutdown"), (6, "UNKNOWN_METHOD", "warning", "exit"),
                   (7, "UNKNOWN_METHOD", "info", "x-progress"),
                   (9, "UNKNOWN_MESSAGE_KIND", "warning", '{"method":"log"}')], got
    assert result.coverage["server.response"].seen == 2 and result.coverage["client.log"].seen == 1


def test_a_release_without_method_selectors_is_not_json_rpc(tmp_path):
    demo = load_registry(ROOT / "suites" / "data" / "contracts").load("demo@1.0.0")
    assert jsonrpc_methods(demo) is None
    value = {"jsonrpc": "2.0", "id": 1, "method": "nothing"}
    engine = Engine(demo)
    assert unknown_method(engine.sequences, Message(value=value, file="x", sender="client")) is None


# -- the selector: present and absent -------------------------------------------------------------------------

@pytest.mark.parametrize(("value", "kind"), [
    ({"jsonrpc": "2.0", "id": 1, "result": {}}, "server.response"),
    ({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}, "server.response"),
    ({"jsonrpc": "2.0", "id": 1, "result": None}, "server.response"),  # present, even as null
    ({"jsonrpc": "2.0", "id": 1}, None),  # neither result nor error
    ({"jsonrpc": "2.0", "result": {}}, None),  # no id
    ({"jsonrpc": "2.0", "id": 1, "method": "nothing", "result": {}}, None),  # a method: never a response
    ({"jsonrpc": "2.0", "method": "log"}, "client.log"),
    ({"jsonrpc": "2.0", "method": "log", "id": 5}, None),  # the notification's selector wants no id
    ({"jsonrpc": "1.0", "id": 1, "result": {}}, None),
])
def test_present_and_absent_select_as_the_specification_says(tmp_path, value, kind):
    classifier = Classifier(rpcdemo(tmp_path))
    for sender in (None, "server"):
        found = classifier.classify(Message(value=value, file="x", sender=sender))
        assert (found.id if found else None) == kind, (value, sender)
    fast = classifier.stream_kind(value)  # the engine's fast path gives the same answer
    assert (fast.id if fast else None) == kind


def test_a_selector_asking_for_absence_is_not_walked_inline(tmp_path):
    routes = Classifier(rpcdemo(tmp_path)).stream_routes
    assert routes is ASK or all(node is ASK or isinstance(node, str) for node in _leaves(routes))


def _leaves(route):
    if isinstance(route, tuple):
        for node in route[1].values():
            yield from _leaves(node)
    else:
        yield route


@pytest.mark.parametrize(("selector", "message"), [
    ('{fields: {/jsonrpc: "2.0", /method: log}, absent: [/method]}', "/method tested twice in one alternative"),
    ('{absent: [/id], any: [{present: [/id]}]}', "/id tested twice in one alternative"),
    ("{present: [/id], absent: [/id]}", "/id tested twice in one alternative"),
])
def test_a_pointer_tested_twice_is_a_located_contract_error(tmp_path, selector, message):
    catalog = CATALOG.replace('selector: {fields: {/jsonrpc: "2.0", /method: log}, absent: [/id]}',
                              f"selector: {selector}")
    with pytest.raises(ContractError) as info:
        rpcdemo(tmp_path, catalog)
    problem = next(p for p in info.value.problems if message in p.message)
    assert problem.pointer.startswith("/kinds/1/selector") and problem.file.endswith("catalog.yaml")


def test_the_catalog_schema_refuses_a_present_that_is_not_a_pointer_list(tmp_path):
    catalog = CATALOG.replace("absent: [/id]}", "absent: /id}")
    with pytest.raises(ContractError) as info:
        rpcdemo(tmp_path, catalog)
    assert any("/kinds/1/selector" in p.pointer for p in info.value.problems), info.value.problems


def test_an_extension_reading_makes_an_unknown_kind_info(tmp_path):
    readers = READERS.replace("when: {fields: {/jsonrpc: \"2.0\"}, prefix: {/method: \"x-\"}, absent: [/id]}",
                              "when: {prefix: {/kind: \"x-\"}}")
    release = rpcdemo(tmp_path, readers=readers)
    frames = [("server", {"jsonrpc": "2.0", "method": "log", "params": {}}), ("server", {"kind": "x-thing"}),
              ("server", {"kind": "y-thing"})]
    result = check_captures(release, [str(framed(tmp_path, frames))])
    assert [(f.code, f.severity.value) for f in result.findings] == [
        ("UNKNOWN_MESSAGE_KIND", "info"), ("UNKNOWN_MESSAGE_KIND", "warning")]


def test_readers_refuse_a_when_they_cannot_read(tmp_path):
    with pytest.raises(ContractError) as info:
        rpcdemo(tmp_path, readers=READERS.replace('prefix: {/method: "x-"}', 'prefix: {/method: ""}'))
    assert any("/unknown_kinds/2/when/prefix" in p.pointer for p in info.value.problems), info.value.problems


def test_requirements_and_listings_name_every_alternative_of_a_response(acp):
    from wirecheck.certify.generate import _selector_text
    from wirecheck.cli.contracts_cmd import _kind_summary

    kind = acp.kind("agent.response")
    assert _selector_text(kind) == "/jsonrpc=2.0, /id present, /method absent, /result present or /error present"
    assert _kind_summary(kind) == ("/jsonrpc=2.0, /id present, /result present, /method absent | "
                                   "/jsonrpc=2.0, /error present, /id present, /method absent")
