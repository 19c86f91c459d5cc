"""`wirecheck import schema FILE --profile json-rpc`: MCP 2025-06-18 from its published schema (committed in
data/mcp-2025-06-18 with its provenance) in one command, a folder `--contracts DIR` loads, and what the schema's
structure does not say listed with the mapping key that supplies it. A real server's capture (recorded by the live
tier) conforms to the import; planted mutations fail."""

from __future__ import annotations

import json
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
NOT_DERIVED = {"ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"}


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


def test_one_command_imports_mcp_and_says_what_it_could_not_derive(tmp_path):
    result = run("import", "schema", str(MCP / "schema.json"), "--profile", "json-rpc", "--package", "mcp",
                 "--version", "2025-06-18", "-o", str(tmp_path))
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert "25 methods, 28 message kinds and a response kind per role (client, server)" in said
    for method in NOT_DERIVED:
        assert f"not derived: the result type of {method}" in said
        assert f"supply it with --mapping: replies: {{{method}: EmptyResult}}" in said
    assert f"then: wirecheck validate mcp@2025-06-18 CAPTURE --contracts {tmp_path}" in said
    record = yaml.safe_load((tmp_path / "mcp" / "2025-06-18" / "import.yaml").read_text())
    assert {item["method"] for item in record["not_derived"]} == NOT_DERIVED
    release = load_registry(tmp_path).load("mcp@2025-06-18")  # --contracts DIR loads it
    assert release.roles == ("client", "server")
    assert release.kind("server.ping").reply is None and release.kind("client.ping").reply is None


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
    capture = _mutated(tmp_path, lambda ls: ls.append(
        {"from": "server", "message": {"jsonrpc": "2.0", "method": "notifications/nothing"}}))
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
    assert (hello.type, hello.senders, hello.reply) == ("request", ["client"], "HelloResult")
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
    assert any("HelloResult is not in ServerResult" in item["what"] for item in derivation.not_derived)


def test_one_role_cannot_give_directions():
    derivation = derive(_schema())
    assert derivation.roles == ["client"]
    assert derivation.not_derived[0]["supply"] == "roles: [client, server]"


@pytest.mark.parametrize(("mapping", "message"), [
    ({"replies": {"nothing": "HelloResult"}}, "#/replies/nothing: the schema defines no method 'nothing'"),
    ({"replies": {"hello": "NoSuchResult"}}, "#/replies/hello: the schema defines no 'NoSuchResult'"),
    ({"senders": {"hello": "agent"}, "roles": ["client", "server"]}, "#/senders/hello: agent is not a role"),
])
def test_a_mapping_that_names_what_the_schema_lacks_is_refused(mapping, message):
    with pytest.raises(ImportRefused, match=message.replace("[", r"\[").replace("{", r"\{")):
        derive(_schema(ServerNotification={"anyOf": [{"$ref": "#/$defs/TickNotification"}]},
                       TickNotification={"properties": {"method": {"const": "tick"}}}), mapping, "m.yaml")


@pytest.mark.parametrize(("text", "message"), [
    ("replys: {}\n", "m.yaml#/replys: unknown key 'replys'"),
    ("types: {hello: call}\n", "m.yaml#/types/hello: expected request or notification"),
    ("roles: [client]\n", "m.yaml#/roles: expected the two roles"),
    ("- a\n", "m.yaml: expected a mapping"),
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
    assert result.exit_code == 2 and "no $defs entry fixes `method` as a constant" in result.output
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
