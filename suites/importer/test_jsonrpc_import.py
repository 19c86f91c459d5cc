"""`wirecheck import schema FILE --profile json-rpc`: MCP 2025-06-18 from its published schema (committed in
data/mcp-2025-06-18 with its provenance) in one command, a folder `--contracts DIR` loads, and what the schema's
structure does not say listed with the mapping key that supplies it. A real server's capture (recorded by the live
tier) conforms to the import; planted mutations fail."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from wirecheck.cli.app import app
from wirecheck.contracts import load_registry
from wirecheck.importer.jsonrpc import derive
from wirecheck.importer.shipped import ImportRefused

HERE = Path(__file__).parent
MCP = HERE / "data" / "mcp-2025-06-18"
SERVER = HERE.parent / "harness" / "data" / "live-jsonrpc" / "mcp-server-everything" / "capture.framed.ndjson"
MCP_REVISIONS = HERE.parents[1] / "fixtures" / "mcp-schema"
A2A = HERE.parents[1] / "fixtures" / "a2a-schema"
ACP_AGENT = HERE.parent / "harness" / "data" / "live-jsonrpc" / "acp-example-agent" / "capture.framed.ndjson"


def run(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    out = tmp_path_factory.mktemp("contracts")
    result = run("import", "schema", str(MCP / "schema.json"), "--profile", "json-rpc", "--package", "mcp",
                 "--version", "2025-06-18", "-o", str(out), "--mapping", str(MCP / "mapping.yaml"),
                 "--license", str(MCP / "LICENSE"))
    assert result.exit_code == 0, result.output
    return out


def test_one_command_imports_mcp_and_checks_every_result(tmp_path):
    result = run("import", "schema", str(MCP / "schema.json"), "--profile", "json-rpc", "--package", "mcp",
                 "--version", "2025-06-18", "-o", str(tmp_path))
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert "25 methods, 28 message kinds and a response kind per role (client, server)" in said
    assert "not derived" not in said and not (tmp_path / "mcp@2025-06-18.mapping.yaml").exists()
    assert f"then: wirecheck validate mcp@2025-06-18 CAPTURE --contracts {tmp_path}" in said
    record = yaml.safe_load((tmp_path / "mcp" / "2025-06-18" / "import.yaml").read_text())
    assert record["not_derived"] == []
    release = load_registry(tmp_path).load("mcp@2025-06-18")  # --contracts DIR loads it
    assert release.roles == ("client", "server")
    # the four requests with no <Name>Result: the one member of ServerResult / ClientResult no request is paired
    # with, Result (the TypeScript source's EmptyResult = Result)
    for kind in ("server.ping", "client.ping", "server.logging.setlevel", "server.resources.subscribe",
                 "server.resources.unsubscribe"):
        assert release.kind(kind).reply.schema.ref == "schema.json#/$defs/Result", kind
    ping = next(m for m in record["methods"] if m["method"] == "ping")
    assert "answered by definitions/Result: the schema pairs no result with definitions/PingRequest, and " \
           "definitions/Result is the one member of ClientResult and ServerResult that no request is paired with" \
        in ping["how"]


def test_directions_and_replies_come_from_the_schemas_unions_and_names(imported):
    release = load_registry(imported).load("mcp@2025-06-18")
    by_id = {k.id: k for k in release.kinds}
    assert (by_id["server.initialize"].producer, by_id["server.initialize"].consumer) == ("client", "server")
    assert by_id["server.initialize"].reply.schema.ref == "schema.json#/$defs/InitializeResult"
    assert by_id["client.sampling.createmessage"].producer == "server"  # ServerRequest: the server asks it
    assert by_id["client.sampling.createmessage"].reply.schema.ref == "schema.json#/$defs/CreateMessageResult"
    # a method both sides send (ClientRequest and ServerRequest list it) is a kind per sender
    assert {by_id["server.ping"].producer, by_id["client.ping"].producer} == {"client", "server"}
    assert by_id["server.ping"].reply.schema.ref == "schema.json#/$defs/EmptyResult"  # from the mapping
    assert {by_id[k].producer for k in ("server.notifications.cancelled", "client.notifications.cancelled")} == \
        {"client", "server"}
    assert by_id["client.notifications.tools.list_changed"].producer == "server"
    assert by_id["server.response"].answers == "server.*"
    record = yaml.safe_load((imported / "mcp" / "2025-06-18" / "import.yaml").read_text())
    assert record["not_derived"] == [] and record["mapping"]["replies"]["ping"] == "EmptyResult"
    ping = next(m for m in record["methods"] if m["method"] == "ping")
    assert ping["senders"] == ["client", "server"] and "sent by the client: a member of ClientRequest" in ping["how"]
    assert (imported / "mcp" / "2025-06-18" / "LICENSE").read_text().startswith("The MCP project")
    assert yaml.safe_load((imported / "registry.yaml").read_text())["packages"]["mcp"]["releases"] == ["2025-06-18"]


def test_the_drafted_requirement_set_and_readers_load_and_name_the_release(imported):
    from wirecheck.certify.pipeline import load_set

    release = load_registry(imported).load("mcp@2025-06-18")
    requirements = load_set(release)
    ids = {r.id for r in requirements}
    assert {"MCP-2025-06-18-SERVER-INITIALIZE-SCHEMA", "MCP-2025-06-18-KNOWN-METHODS",
            "MCP-2025-06-18-RESPONSES-CORRELATED"} <= ids
    assert all(r.subject in ("client", "server", "any") for r in requirements)
    reading = next(u for u in release.unknown_kinds if u.consumer == "server" and u.present)
    assert reading.reject and "-32601" in reading.cited


def test_a_real_server_capture_conforms_to_the_import(imported):
    result = run("validate", "mcp@2025-06-18", str(SERVER), "--contracts", str(imported))
    assert result.exit_code == 0 and "CONFORMS" in result.output, result.output


def _lines():
    return [json.loads(line) for line in SERVER.read_text().splitlines()]


def _mutated(tmp_path, edit) -> Path:
    lines = _lines()
    edit(lines)
    path = tmp_path / "mutant.framed.ndjson"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _find(lines, who, test):
    return next(line["message"] for line in lines[1:] if line["from"] == who and test(line["message"]))


MUTATIONS = {
    # the server's initialize result without its required serverInfo
    "initialize result without serverInfo": (
        lambda ls: _find(ls, "server", lambda m: "serverInfo" in m.get("result", {}))["result"].pop("serverInfo"),
        "REPLY_VIOLATION"),
    # a tool result whose content is not an array
    "tools/call content not an array": (
        lambda ls: _find(ls, "server", lambda m: "content" in m.get("result", {}))["result"].update(content="hi"),
        "REPLY_VIOLATION"),
    # the answer to ping carries the wrong id: it answers nothing, and ping goes unanswered
    "a response to no request": (
        lambda ls: _find(ls, "server", lambda m: m.get("id") == 6).update(id=66), "RESPONSE_WITHOUT_REQUEST"),
    # a request of a method MCP does not define (its reader answers -32601: an error)
    "an unknown server request": (
        lambda ls: ls.append({"from": "server", "message": {"jsonrpc": "2.0", "id": 0, "method": "wirecheck/ask"}}),
        "UNKNOWN_METHOD"),
    # a request without its id
    "tools/list without id": (
        lambda ls: _find(ls, "client", lambda m: m.get("method") == "tools/list").pop("id"), "SCHEMA_VIOLATION"),
}


@pytest.mark.parametrize("name", list(MUTATIONS))
def test_planted_mutations_fail(imported, tmp_path, name):
    edit, code = MUTATIONS[name]
    result = run("validate", "mcp@2025-06-18", str(_mutated(tmp_path, edit)), "--contracts", str(imported),
                 "--format", "json")
    assert result.exit_code == 1, result.output
    report = json.loads(result.output)
    assert code in {f["code"] for f in report["findings"]}, report["findings"]


def test_an_unknown_notification_is_a_warning_its_reader_drops(imported, tmp_path):
    nothing = {"from": "server", "message": {"jsonrpc": "2.0", "method": "notifications/nothing"}}
    # before the process line, which must be the last
    capture = _mutated(tmp_path, lambda ls: ls.insert(len(ls) - ("process" in ls[-1]), nothing))
    result = run("validate", "mcp@2025-06-18", str(capture), "--contracts", str(imported), "--format", "json")
    assert result.exit_code == 0, result.output
    found = [(f["code"], f["severity"]) for f in json.loads(result.output)["findings"]]
    assert found == [("UNKNOWN_METHOD", "warning")]


# -- the derivation, alone --------------------------------------------------------------------------------------------

def _schema(**defs):
    return {"$defs": {
        "ClientRequest": {"anyOf": [{"$ref": "#/$defs/HelloRequest"}]},
        "HelloRequest": {"properties": {"method": {"const": "hello"}}},
        "HelloResult": {"type": "object"},
        **defs}}


def test_a_method_no_union_names_is_listed_with_its_mapping_key():
    derivation = derive(_schema(ServerNotification={"anyOf": [{"$ref": "#/$defs/TickNotification"}]},
                                TickNotification={"properties": {"method": {"const": "tick"}}},
                                LostNotification={"properties": {"method": {"const": "lost"}}}))
    assert derivation.roles == ["client", "server"]
    missing = {item.get("method"): item["supply"] for item in derivation.not_derived}
    assert missing == {"lost": "senders: {lost: client}"}
    hello = next(m for m in derivation.methods if m.name == "hello")
    assert (hello.type, hello.senders, hello.reply) == ("request", ["client"], "/$defs/HelloResult")
    supplied = derive(_schema(ServerNotification={"anyOf": [{"$ref": "#/$defs/TickNotification"}]},
                              TickNotification={"properties": {"method": {"const": "tick"}}},
                              LostNotification={"properties": {"method": {"const": "lost"}}}),
                      {"senders": {"lost": "server"}})
    assert supplied.not_derived == []


def test_a_result_outside_the_receivers_union_is_not_taken_silently():
    derivation = derive(_schema(ServerResult={"anyOf": [{"$ref": "#/$defs/OtherResult"}]},
                                OtherResult={"type": "object"},
                                ServerNotification={"anyOf": [{"$ref": "#/$defs/TickNotification"}]},
                                TickNotification={"properties": {"method": {"const": "tick"}}}))
    hello = next(m for m in derivation.methods if m.name == "hello")
    assert hello.reply is None
    assert any("HelloResult: it is not in ServerResult" in item["what"] for item in derivation.not_derived)


def test_one_union_of_requests_names_jsonrpcs_client_and_server():
    # JSON-RPC 2.0 section 1: the Client sends requests, the Server answers them (A2A's A2ARequest is such a union)
    for union in ("ClientRequest", "A2ARequest"):
        schema = _schema()
        schema["$defs"][union] = schema["$defs"].pop("ClientRequest")
        derivation = derive(schema)
        hello = next(m for m in derivation.methods if m.name == "hello")
        assert derivation.roles == ["client", "server"] and hello.senders == ["client"], union
        assert derivation.not_derived == []


def test_no_union_of_messages_cannot_give_directions():
    derivation = derive({"$defs": {"HelloRequest": {"properties": {"method": {"const": "hello"}}}}})
    assert derivation.roles == []
    assert derivation.not_derived[0]["supply"] == "roles: [client, server]"


@pytest.mark.parametrize(("mapping", "message"), [
    ({"replies": {"nothing": "HelloResult"}}, "#/replies/nothing: the schema defines no message 'nothing'"),
    ({"replies": {"hello": "NoSuchResult"}}, "#/replies/hello: the schema defines no 'NoSuchResult'"),
    ({"replies": {"hello": "#/$defs/HelloResult/properties/nothing"}}, "#/replies/hello: '#/$defs/HelloResult/"
     "properties/nothing' points at nothing in the schema"),
    ({"senders": {"hello": "agent"}, "roles": ["client", "server"]}, "#/senders/hello: agent is not a role"),
])
def test_a_mapping_that_names_what_the_schema_lacks_is_refused(mapping, message):
    with pytest.raises(ImportRefused, match=re.escape(message)):
        derive(_schema(ServerNotification={"anyOf": [{"$ref": "#/$defs/TickNotification"}]},
                       TickNotification={"properties": {"method": {"const": "tick"}}}), mapping, "m.yaml")


@pytest.mark.parametrize(("text", "message"), [
    ("replys: {}\n", "m.yaml#/replys: unknown key 'replys'"),
    ("types: {hello: call}\n", "m.yaml#/types/hello: expected request or notification"),
    ("roles: [client]\n", "m.yaml#/roles: expected the two roles"),
    ("- a\n", "m.yaml: expected a mapping"),
    ("documents: {Card: {path: /c, schema: A}}\n", "m.yaml#/documents/Card: a document's name is lower-case"),
    ("documents: {card: {path: c, schema: A}}\n", "m.yaml#/documents/card: expected {path: /..., schema"),
])
def test_broken_mapping_files_are_refused_with_their_place(tmp_path, text, message):
    from wirecheck.importer.jsonrpc import load_mapping

    path = tmp_path / "m.yaml"
    path.write_text(text)
    with pytest.raises(ImportRefused) as info:
        load_mapping(path)
    assert str(info.value).replace(str(tmp_path) + "/", "").startswith(message), str(info.value)


def test_a_schema_without_methods_is_refused_with_the_reason(tmp_path):
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({"$defs": {"Thing": {"type": "object"}}}))
    result = run("import", "schema", str(schema), "--profile", "json-rpc", "--package", "x", "--version", "1.0.0",
                 "-o", str(tmp_path / "out"))
    assert result.exit_code == 2 and "no definition fixes `method` as a constant" in result.output
    assert not (tmp_path / "out").exists()


def test_an_unknown_profile_and_a_hand_written_registry_are_usage_errors(tmp_path):
    args = ["import", "schema", str(MCP / "schema.json"), "--package", "mcp", "--version", "2025-06-18", "-o",
            str(tmp_path)]
    assert run(*args, "--profile", "openrpc").exit_code == 2
    (tmp_path / "registry.yaml").write_text("packages:\n  other: {title: o, releases: [\"1.0.0\"]}\n")
    refused = run(*args, "--profile", "json-rpc")
    assert refused.exit_code == 2 and 'add "2025-06-18" to the releases of mcp there' in " ".join(
        refused.output.split())
    assert not (tmp_path / "mcp").exists()


# -- every MCP revision, A2A, ACP's tables: one command each, every result checked ------------------------------------

# revision → (methods, message kinds, parts of messages): MCP 2026-07-28's server-initiated requests travel inside
# InputRequiredResult (InputRequests), so they are parts, not messages
REVISIONS = {"2024-11-05": (24, 27, 0), "2025-03-26": (24, 27, 0), "2025-06-18": (25, 28, 0),
             "2025-11-25": (31, 39, 0), "2026-07-28": (18, 19, 3)}


@pytest.mark.parametrize("revision", list(REVISIONS))
def test_every_mcp_revision_imports_with_no_mapping_and_checks_all_its_results(tmp_path, revision):
    result = run("import", "schema", str(MCP_REVISIONS / revision / "schema.json"), "--profile", "json-rpc",
                 "--package", "mcp", "--version", revision, "-o", str(tmp_path))
    assert result.exit_code == 0, result.output
    methods, kinds, parts = REVISIONS[revision]
    assert f"{methods} methods, {kinds} message kinds" in " ".join(result.output.split())
    record = yaml.safe_load((tmp_path / "mcp" / revision / "import.yaml").read_text())
    assert record["not_derived"] == [] and len(record["parts"] or {}) == parts
    release = load_registry(tmp_path).load(f"mcp@{revision}")
    requests = [k for k in release.kinds if "(request from" in k.title]
    assert requests and all(k.reply is not None for k in requests), [k.id for k in requests if k.reply is None]


def test_mcp_2026_07_28_replies_are_the_results_its_responses_write(tmp_path):
    result = run("import", "schema", str(MCP_REVISIONS / "2026-07-28" / "schema.json"), "--profile", "json-rpc",
                 "--package", "mcp", "--version", "2026-07-28", "-o", str(tmp_path))
    assert result.exit_code == 0, result.output
    release = load_registry(tmp_path).load("mcp@2026-07-28")
    # tools/call may be answered by an InputRequiredResult: the reply is CallToolResultResponse's result, a union
    assert release.kind("server.tools.call").reply.schema.ref == \
        "schema.json#/$defs/CallToolResultResponse/properties/result"
    # ClientNotification is CancelledNotification written in the union's place: the client sends it too
    assert {k.producer for k in release.kinds if k.id.endswith("notifications.cancelled")} == {"client", "server"}
    assert "initialize" not in {k.id.split(".", 1)[1] for k in release.kinds}
    record = yaml.safe_load((tmp_path / "mcp" / "2026-07-28" / "import.yaml").read_text())
    assert record["parts"]["elicitation/create"].startswith("$defs/ElicitRequest is a part of messages: a member "
                                                            "of InputRequest")


def _mcp_2026_exchange(result: dict) -> list[dict]:
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    return [{"from": "client", "message": {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                           "params": {"name": "echo", "arguments": {}, "_meta": meta}}},
            {"from": "server", "message": {"jsonrpc": "2.0", "id": 1, "result": result}}]


def test_a_mapping_that_names_only_the_roles_imports_mcp_2026_07_28(tmp_path):
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text("roles: [client, server]\n")
    result = run("import", "schema", str(MCP_REVISIONS / "2026-07-28" / "schema.json"), "--profile", "json-rpc",
                 "--package", "mcp", "--version", "2026-07-28", "-o", str(tmp_path / "out"), "--mapping", str(mapping))
    assert result.exit_code == 0, result.output
    # roles the unions contradict: said at #/roles, the key the file has (not #/senders/..., a key it lacks)
    mapping.write_text("roles: [client, agent]\n")
    refused = run("import", "schema", str(MCP_REVISIONS / "2026-07-28" / "schema.json"), "--profile", "json-rpc",
                  "--package", "mcp", "--version", "2026-07-28", "-o", str(tmp_path / "out2"), "--mapping",
                  str(mapping))
    said = " ".join(refused.output.split())
    assert refused.exit_code == 2 and f"{mapping}#/roles: " in said and "#/senders" not in said, said


def test_a2a_imports_in_one_command_and_says_the_one_reply_it_cannot_pair_in_its_own_terms(tmp_path):
    schema = A2A / "0.3.0" / "a2a.json"
    result = run("import", "schema", str(schema), "--profile", "json-rpc", "--package", "a2a", "--version", "0.3.0",
                 "-o", str(tmp_path))
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert "10 methods, 10 message kinds and a response kind per role (client, server)" in said
    record = yaml.safe_load((tmp_path / "a2a" / "0.3.0" / "import.yaml").read_text())
    assert [item["method"] for item in record["not_derived"]] == ["tasks/resubscribe"]
    send = next(m for m in record["methods"] if m["method"] == "message/send")
    assert send["reply"] == "#/definitions/SendMessageSuccessResponse/properties/result"
    # every definition named in what was not derived, and in the skeleton written to fill, is one a2a.json has
    skeleton = tmp_path / "a2a@0.3.0.mapping.yaml"
    assert f"a mapping to fill (then --mapping {skeleton})" in said
    definitions = json.loads(schema.read_text())["definitions"]
    named = re.findall(r"definitions/([A-Za-z0-9]+)", skeleton.read_text() + json.dumps(record["not_derived"]))
    assert named and all(name in definitions or name == "Name" for name in named), named
    assert "EmptyResult" not in said + skeleton.read_text()
    assert yaml.safe_load(skeleton.read_text()) == {"replies": {"tasks/resubscribe": None}}
    release = load_registry(tmp_path).load("a2a@0.3.0")
    assert release.kind("server.message.send").reply.schema.ref == \
        "schema.json#/$defs/SendMessageSuccessResponse/properties/result"
    assert release.kind("server.tasks.resubscribe").reply is None


def test_the_skeleton_filled_in_the_schemas_own_terms_is_read(tmp_path):
    result = run("import", "schema", str(A2A / "0.3.0" / "a2a.json"), "--profile", "json-rpc", "--package", "a2a",
                 "--version", "0.3.0", "-o", str(tmp_path), "--mapping", str(A2A / "0.3.0" / "mapping.yaml"))
    assert result.exit_code == 0, result.output
    release = load_registry(tmp_path).load("a2a@0.3.0")
    assert release.kind("server.tasks.resubscribe").reply.schema.ref == \
        "schema.json#/$defs/SendStreamingMessageSuccessResponse/properties/result"  # #/definitions/… translated
    assert not (tmp_path / "a2a@0.3.0.mapping.yaml").exists()


def _a2a_send(state: str) -> str:
    lines = [{"wirecheck_capture": 1, "framing": "directed"},
             {"from": "client", "message": {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {
                 "message": {"kind": "message", "messageId": "m1", "role": "user",
                             "parts": [{"kind": "text", "text": "hi"}]}}}},
             {"from": "server", "message": {"jsonrpc": "2.0", "id": 1, "result": {
                 "kind": "task", "id": "t1", "contextId": "c1", "status": {"state": state}}}}]
    return "".join(json.dumps(line) + "\n" for line in lines)


def test_a_message_send_reply_is_checked_against_its_inline_union(tmp_path):
    out = tmp_path / "contracts"
    assert run("import", "schema", str(A2A / "0.3.0" / "a2a.json"), "--profile", "json-rpc", "--package", "a2a",
               "--version", "0.3.0", "-o", str(out)).exit_code == 0
    for state, code in (("completed", 0), ("finished", 1)):
        capture = tmp_path / f"{state}.framed.ndjson"
        capture.write_text(_a2a_send(state))
        result = run("validate", "a2a@0.3.0", str(capture), "--contracts", str(out), "--format", "json")
        assert result.exit_code == code, result.output
        findings = json.loads(result.output)["findings"]
        if code:  # the Task branch of the union Task | Message, at the state
            assert [(f["code"], f["pointer"]) for f in findings] == [("REPLY_VIOLATION", "/result/status/state")]


def test_acps_method_tables_import_as_the_bundled_release_reads_a_real_agent(tmp_path):
    from wirecheck.contracts import load_registry as bundled

    result = run("import", "schema", "contracts/acp/1.9.0/schema.json", "--profile", "json-rpc", "--package", "acp",
                 "--version", "1.9.0", "-o", str(tmp_path))
    assert result.exit_code == 0, result.output
    imported = load_registry(tmp_path).load("acp@1.9.0")
    shipped = bundled().load("acp@1.9.0")
    assert imported.roles == ("agent", "client")
    # every method kind of the bundled release (importer/acp.py) is one of the import, answered by the same type
    for kind in shipped.kinds:
        if kind.id.endswith(".response") or kind.producer == "any":
            continue
        twin = imported.kind(kind.id)
        assert (twin.producer, twin.consumer) == (kind.producer, kind.consumer), kind.id
        assert (twin.reply.schema.ref if twin.reply else None) == (kind.reply.schema.ref if kind.reply else None)
    # the real example agent's capture: the same findings but for how the two unknown requests are read (the
    # bundled readers.yaml cites the SDK; the import drafts JSON-RPC 2.0's -32601)
    report = json.loads(run("validate", "acp@1.9.0", str(ACP_AGENT), "--contracts", str(tmp_path), "--format",
                            "json").output)
    assert {(f["code"], f["line"]) for f in report["findings"]} == {("UNKNOWN_METHOD", 21), ("UNKNOWN_METHOD", 23)}


def test_a_document_the_schema_lacks_is_refused_at_its_place(tmp_path):
    mapping = tmp_path / "m.yaml"
    mapping.write_text("documents: {agent-card: {path: /.well-known/agent-card.json, schema: NoCard}}\n")
    result = run("import", "schema", str(A2A / "0.3.0" / "a2a.json"), "--profile", "json-rpc", "--package", "a2a",
                 "--version", "0.3.0", "-o", str(tmp_path / "out"), "--mapping", str(mapping))
    said = " ".join(result.output.split())
    assert result.exit_code == 2 and f"{mapping}#/documents/agent-card/schema: the schema defines no 'NoCard'" in said
    assert not (tmp_path / "out" / "a2a").exists()


@pytest.mark.parametrize(("option", "value"), [
    ("--version", "/any/dir"), ("--version", "../../X"), ("--version", "1.0.0/../../X"), ("--version", "1.0.0\0"),
    ("--version", ""), ("--version", "v1.0.0"), ("--package", "../evil"), ("--package", "/abs"),
    ("--package", "Evil"), ("--package", "a/b"),
])
def test_a_name_that_is_no_release_folder_is_refused_before_anything_is_written(tmp_path, option, value):
    """`--version /any/dir` wrote five files into that folder (the trial copy: `trial / package / version` is the
    version when it is absolute), overwriting what was there, and only then refused the release (issue 41, 6)."""
    victim = tmp_path / "any" / "dir"
    victim.mkdir(parents=True)
    (victim / "schema.json").write_text("the user's own")
    names = {"--package": "mcp", "--version": "2025-06-18", option: value.replace("/any/dir", str(victim))}
    result = run("import", "schema", str(MCP / "schema.json"), "--profile", "json-rpc", "--package",
                 names["--package"], "--version", names["--version"], "-o", str(tmp_path / "out"))
    assert result.exit_code == 2 and f"{option} " in result.output, result.output
    assert not (tmp_path / "out").exists() and [p.name for p in victim.iterdir()] == ["schema.json"]
    assert (victim / "schema.json").read_text() == "the user's own"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["any"]


def test_the_import_replaces_a_symbolic_link_it_writes_over(tmp_path):
    """registry.yaml and the release's files are written by output_files: a link there is replaced, not written
    through to its target (issue 41, 7)."""
    victim = tmp_path / "victim.txt"
    victim.write_text("kept")
    out = tmp_path / "out"
    (out / "mcp" / "2025-06-18").mkdir(parents=True)
    (out / "mcp" / "2025-06-18" / "catalog.yaml").symlink_to(victim)
    result = run("import", "schema", str(MCP / "schema.json"), "--profile", "json-rpc", "--package", "mcp",
                 "--version", "2025-06-18", "-o", str(out), "--mapping", str(MCP / "mapping.yaml"))
    assert result.exit_code == 0, result.output
    assert victim.read_text() == "kept" and not (out / "mcp" / "2025-06-18" / "catalog.yaml").is_symlink()


def _methods_schema(tmp_path, *methods: str) -> Path:
    """A schema whose client sends each method as a request (`M<n>Request`, answered by `M<n>Result`)."""
    defs: dict = {"ClientRequest": {"anyOf": [{"$ref": f"#/$defs/M{n}Request"} for n in range(len(methods))]},
                  "ServerRequest": {"anyOf": [{"$ref": "#/$defs/M0Request"}]}}
    for n, method in enumerate(methods):
        defs[f"M{n}Request"] = {"type": "object", "required": ["method"],
                                "properties": {"method": {"const": method}, "params": {"type": "object"}}}
        defs[f"M{n}Result"] = {"type": "object"}
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"$defs": defs}))
    return path


def test_methods_json_rpc_tells_apart_get_kinds_of_their_own(tmp_path):
    """Issue 41, 10: `ping` and `PING` (JSON-RPC method names are case-sensitive) both became kind `server.ping`,
    refused as a duplicate kind id at a catalog.yaml that was never written. Each is a kind; the lower-case one keeps
    the plain id; a method named `response` does not take a response kind's id; a capture of each is told apart."""
    schema = _methods_schema(tmp_path, "ping", "PING", "a/b", "a.b", "response")
    out = tmp_path / "out"
    result = run("import", "schema", str(schema), "--profile", "json-rpc", "--package", "p", "--version", "1.0.0",
                 "-o", str(out))
    assert result.exit_code == 0, result.output
    release = load_registry(out).load("p@1.0.0")
    servers = {k.id for k in release.kinds if k.consumer == "server"}
    assert {"server.ping", "server.a.b", "client.response"} <= servers
    assert len(servers) == 6, servers  # five methods and the client's responses: no two share an id
    assert len({kid for kid in servers if kid.startswith("server.ping")}) == 2
    assert "server.response" not in servers  # a method named `response` does not take the response kind's id
    capture = tmp_path / "c.framed.ndjson"
    capture.write_text('{"wirecheck_capture": 1, "framing": "directed"}\n'
                       '{"from": "client", "message": {"jsonrpc": "2.0", "id": 1, "method": "PING", "params": {}}}\n'
                       '{"from": "client", "message": {"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {}}}\n'
                       '{"from": "client", "message": {"jsonrpc": "2.0", "id": 3, "method": "response"}}\n')
    checked = run("validate", "p@1.0.0", str(capture), "--contracts", str(out), "--format", "json")
    report = json.loads(checked.output)
    exercised = {cov["kind"] for cov in report["coverage"] if cov["seen"]}
    assert {k for k in exercised if k.startswith("server.ping")} == {k for k in servers if k.startswith("server.ping")}


def test_a_schema_past_the_release_value_limit_is_refused_before_it_is_translated(tmp_path, monkeypatch):
    """Issue 41, 10: a 13 MB schema with a 1.2M-value enum was read and translated for 57 s (372 MB), then refused
    because its translation was 26 MiB. The values are counted first; nothing is translated, nothing written."""
    import wirecheck.contracts.drafts as drafts

    def never(*args, **kwargs):
        raise AssertionError("translated")

    monkeypatch.setattr(drafts, "translate", never)
    schema = json.loads(_methods_schema(tmp_path, "ping").read_text())
    schema["$defs"]["M0Request"]["properties"]["params"]["properties"] = {"v": {"enum": list(range(60_000))}}
    (tmp_path / "s.json").write_text(json.dumps(schema))
    result = run("import", "schema", str(tmp_path / "s.json"), "--profile", "json-rpc", "--package", "p",
                 "--version", "1.0.0", "-o", str(tmp_path / "out"))
    assert result.exit_code == 2
    assert "holds more than 50,000 JSON values, the most wirecheck loads of a contract release" in result.output
    assert not (tmp_path / "out").exists()


def test_a_method_name_with_control_characters_is_quoted_where_it_is_to_be_pasted():
    """The mapping line to supply a method no union names is pasteable YAML: a name with NUL or ESC is JSON-quoted
    (issue 41, 10: it was echoed raw)."""
    derivation = derive(_schema(LostNotification={"properties": {"method": {"const": "x\x00\x1b]0;t\x07y"}}}))
    (supply,) = [item["supply"] for item in derivation.not_derived if item.get("method", "").startswith("x")]
    assert supply == 'senders: {"x\\u0000\\u001b]0;t\\u0007y": client}'
    assert yaml.safe_load(supply) == {"senders": {"x\x00\x1b]0;t\x07y": "client"}}
