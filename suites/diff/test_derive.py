"""diff-schemas --kinds auto: message kinds derived from a raw schema (diff/derive.py), reported per message."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from wirecheck.diff import diff_schemas
from wirecheck.diff.derive import derive
from wirecheck.diff.inputs import read_input

D = "https://json-schema.org/draft/2020-12/schema"
MCP = Path(__file__).resolve().parents[2] / "fixtures" / "mcp-schema"


def _params(title: str, definition: str) -> dict[str, Any]:
    return {"title": title, "allOf": [{"$ref": f"#/$defs/{definition}"}]}


def acp_like() -> dict[str, Any]:
    """The shape of ACP's schema (schemars output, as @agentclientprotocol/sdk ships it): a root union of senders,
    each a union of JSON-RPC envelopes beside `jsonrpc`, whose `params`/`result` unions name the message types;
    the method is only in the types' `x-method` annotations."""
    envelope = {"type": "object", "properties": {"jsonrpc": {"enum": ["2.0"]}}, "required": ["jsonrpc"]}
    return {
        "$schema": D,
        "title": "Agent Client Protocol",
        "anyOf": [{"title": "Client", **envelope, "anyOf": [
            {"title": "Request", "allOf": [{"$ref": "#/$defs/ClientRequest"}]},
            {"title": "Response", "allOf": [{"$ref": "#/$defs/ClientResponse"}]}]}],
        "$defs": {
            "ClientRequest": {"type": "object", "required": ["id", "method"], "properties": {
                "id": {"type": ["integer", "string", "null"]}, "method": {"type": "string"},
                "params": {"anyOf": [{"anyOf": [
                    _params("NewSessionRequest", "NewSessionRequest"),
                    _params("StopSessionRequest", "StopSessionRequest"),
                    {"title": "ExtMethodRequest"}]}, {"type": "null"}]}}},
            "ClientResponse": {"anyOf": [
                {"title": "Result", "type": "object", "required": ["id", "result"], "properties": {
                    "id": {"type": ["integer", "string", "null"]},
                    "result": {"anyOf": [_params("NewSessionResponse", "NewSessionResponse")]}}},
                {"title": "Error", "type": "object", "required": ["id", "error"], "properties": {
                    "id": {"type": ["integer", "string", "null"]}, "error": {"type": "object"}}}]},
            "NewSessionRequest": {"type": "object", "x-method": "session/new", "x-side": "agent",
                                  "required": ["cwd", "mcpServers"], "properties": {
                                      "cwd": {"type": "string"},
                                      "mcpServers": {"type": "array", "items": {"$ref": "#/$defs/McpServer"}}}},
            "StopSessionRequest": {"type": "object", "x-method": "session/stop", "x-side": "agent",
                                   "required": ["sessionId"], "properties": {"sessionId": {"type": "string"}}},
            "NewSessionResponse": {"type": "object", "x-method": "session/new", "x-side": "agent",
                                   "required": ["sessionId"], "properties": {"sessionId": {"type": "string"}}},
            "McpServer": {"anyOf": [
                {"type": "object", "properties": {"type": {"type": "string", "const": "http"}}, "required": ["type"],
                 "allOf": [{"$ref": "#/$defs/McpServerHttp"}]},
                {"type": "object", "properties": {"type": {"type": "string", "const": "acp"}}, "required": ["type"],
                 "allOf": [{"$ref": "#/$defs/McpServerAcp"}]},
                {"title": "stdio", "allOf": [{"$ref": "#/$defs/McpServerStdio"}]}]},
            "McpServerHttp": {"type": "object", "required": ["name", "url"],
                              "properties": {"name": {"type": "string"}, "url": {"type": "string"}}},
            "McpServerAcp": {"type": "object", "required": ["name", "id"],
                             "properties": {"name": {"type": "string"}, "id": {"type": "string"}}},
            "McpServerStdio": {"type": "object", "required": ["name", "command", "args"], "properties": {
                "name": {"type": "string"}, "command": {"type": "string"}, "args": {"type": "array"}}},
        },
    }


def _kinds(schema: dict[str, Any]) -> list[str]:
    uri = "https://schemas.wirecheck.invalid/diff-schemas/old/"
    derived = derive({uri: schema}, uri + "#", "old")
    assert derived is not None
    return [k.id for k in derived.kinds]


def test_kinds_of_a_json_rpc_union_are_named_by_method_and_role() -> None:
    assert _kinds(acp_like()) == ["session/new request", "session/stop request", "Client / Request / ExtMethodRequest",
                                  "session/new response", "Client / Response / Error"]


def test_a_removed_method_is_a_removed_kind_with_a_message_of_it() -> None:
    old, new = acp_like(), acp_like()
    members = new["$defs"]["ClientRequest"]["properties"]["params"]["anyOf"][0]["anyOf"]
    members[1] = _params("CloseSessionRequest", "CloseSessionRequest")
    new["$defs"]["CloseSessionRequest"] = {**new["$defs"].pop("StopSessionRequest"), "x-method": "session/close"}
    result = diff_schemas(old, new)
    removed = [f for f in result.findings if f.rule == "MESSAGE_KIND_REMOVED"]
    added = [f for f in result.findings if f.rule == "MESSAGE_KIND_ADDED"]
    assert [f.kind for f in removed] == ["session/stop request"]
    assert [f.kind for f in added] == ["session/close request"]
    (witness, *_) = removed[0].witnesses
    assert witness.payload["method"] == "session/stop" and removed[0].breaks("backward", "tolerant")
    assert removed[0].old_location == "#/$defs/StopSessionRequest"  # where the user wrote it, not a made-up place
    assert all(f.kind != "schema" for f in result.findings)


def test_a_required_property_renamed_in_a_tagged_member_under_array_items_is_a_witnessed_break() -> None:
    """ACP 1.1.0 → 1.2.0: `mcpServers[].id` → `serverId` in the `acp` member of McpServer (issue 19)."""
    old, new = acp_like(), acp_like()
    acp = new["$defs"]["McpServerAcp"]
    acp["required"], acp["properties"] = ["name", "serverId"], {"name": {"type": "string"},
                                                                "serverId": {"type": "string"}}
    result = diff_schemas(old, new)
    added = next(f for f in result.findings if f.rule == "REQUIRED_PROPERTY_ADDED")
    assert added.kind == "session/new request" and added.path == "/params/mcpServers/*/serverId"
    assert added.breaks("backward", "tolerant")
    (witness,) = [w for w in added.witnesses if w.direction == "backward" and w.view == "strict"]
    assert witness.payload["params"]["mcpServers"] == [{"id": "", "name": "", "type": "acp"}]
    removed = next(f for f in result.findings if f.rule == "REQUIRED_PROPERTY_REMOVED")
    assert removed.breaks("forward") and not removed.breaks("backward")  # the missing serverId is not the id's fault


def test_a_change_inside_one_method_is_reported_for_that_method_only() -> None:
    old, new = acp_like(), acp_like()
    new["$defs"]["NewSessionResponse"]["properties"]["sessionId"] = {"type": "integer"}
    result = diff_schemas(old, new)
    assert {(f.rule, f.kind, f.path) for f in result.findings} == {
        ("TYPE_CHANGED", "session/new response", "/result/sessionId")}
    none = diff_schemas(old, new, kinds="none")
    assert {f.kind for f in none.findings} == {"schema"}


def test_kinds_auto_on_a_schema_of_one_message_is_the_whole_schema() -> None:
    old = {"$schema": D, "type": "object", "properties": {"a": {"type": "string"}}}
    new = {"$schema": D, "type": "object", "properties": {"a": {"type": "integer"}}}
    assert {f.kind for f in diff_schemas(old, new).findings} == {"schema"}


def test_the_kinds_of_a_schema_of_definitions_are_the_members_of_its_message_unions() -> None:
    """MCP's schema.json has no root: the unions nothing uses (`ClientRequest`, `JSONRPCMessage`, …) list the
    messages; helpers outside them (`Request`, `PaginatedRequest`, `EmptyResult`) and the definitions a message
    uses (`Implementation`, `Result`) are no kinds of their own."""
    uri = "https://schemas.wirecheck.invalid/diff-schemas/old/"
    old = read_input(json.loads((MCP / "2025-03-26" / "schema.json").read_text(encoding="utf-8"))).schema
    kinds = {k.id: k for k in derive({uri: old}, uri + "#", "old").kinds}
    assert {"ping request", "initialize request", "notifications/initialized notification", "InitializeResult",
            "JSONRPCRequest", "JSONRPCError"} <= set(kinds)
    assert not {"Request", "PaginatedRequest", "EmptyResult", "Implementation", "Result", "ClientRequest"} & set(kinds)
    assert kinds["ping request"].uses == ("ClientRequest", "ServerRequest") and kinds["ping request"].dispatch
    assert not kinds["InitializeResult"].dispatch  # results are told apart by validation, not by a name


def test_a_removed_method_of_a_schema_of_definitions_is_a_removed_kind_and_a_changed_part_shows_where_used() -> None:
    old = json.loads((MCP / "2025-03-26" / "schema.json").read_text(encoding="utf-8"))
    new = copy.deepcopy(old)
    del new["definitions"]["PingRequest"]
    for union in new["definitions"].values():  # and where a union named it
        if isinstance(union.get("anyOf"), list):
            union["anyOf"] = [m for m in union["anyOf"] if m != {"$ref": "#/definitions/PingRequest"}]
    new["definitions"]["Implementation"]["required"] = [*new["definitions"]["Implementation"]["required"], "title"]
    new["definitions"]["Implementation"]["properties"]["title"] = {"type": "string"}
    result = diff_schemas(read_input(old).schema, read_input(new).schema)
    assert result.nothing_compared is None
    removed = [f for f in result.findings if f.rule == "MESSAGE_KIND_REMOVED"]
    assert [f.kind for f in removed] == ["ping request"] and removed[0].witnesses
    assert removed[0].witnesses[0].payload["method"] == "ping"
    required = {f.kind: f for f in result.findings if f.rule == "REQUIRED_PROPERTY_ADDED"}
    assert set(required) == {"initialize request", "InitializeResult"}  # Implementation is a part, not a kind
    assert required["initialize request"].path == "/params/clientInfo/title"
    assert required["InitializeResult"].path == "/serverInfo/title"
    assert all(f.breaks("backward") for f in required.values())


DRAFT7 = "http://json-schema.org/draft-07/schema#"


def _message_referring_to(name: str) -> dict[str, Any]:
    return {"type": "object", "properties": {"ref": {"$ref": f"#/definitions/{name}"}}, "required": ["ref"]}


A_SHAPE = {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}


def _cli_exit(tmp_path: Path, old: Any, new: Any) -> tuple[int, str]:
    from typer.testing import CliRunner

    from wirecheck.cli.app import app

    (tmp_path / "old.json").write_text(json.dumps(old), encoding="utf-8")
    (tmp_path / "new.json").write_text(json.dumps(new), encoding="utf-8")
    run = CliRunner().invoke(app, ["diff-schemas", str(tmp_path / "old.json"), str(tmp_path / "new.json"),
                                   "--format", "json"])
    return run.exit_code, run.stdout


def test_a_definition_renamed_with_the_same_shape_removes_no_kind(tmp_path: Path) -> None:
    """Issue 30, 1: `A` → `B` (the same shape), used by `Msg`: no kind was removed; exit 0."""
    old = {"$schema": DRAFT7, "definitions": {"Msg": _message_referring_to("A"), "A": A_SHAPE}}
    new = {"$schema": DRAFT7, "definitions": {"Msg": _message_referring_to("B"), "B": A_SHAPE}}
    code, out = _cli_exit(tmp_path, old, new)
    assert code == 0, out
    assert json.loads(out)["pairs"][0]["findings"] == []


def test_a_helper_beside_a_union_of_messages_is_no_kind(tmp_path: Path) -> None:
    """Issue 30, 1: `Base`, outside the root union that lists the messages, dropped: nothing was removed."""
    defs = {"Message": {"oneOf": [{"$ref": "#/definitions/Msg"}]}, "Msg": A_SHAPE,
            "Base": {"type": "object", "properties": {"y": {"type": "integer"}}, "required": ["y"]}}
    old = {"$schema": DRAFT7, "definitions": defs}
    new = {"$schema": DRAFT7, "definitions": {k: v for k, v in defs.items() if k != "Base"}}
    code, out = _cli_exit(tmp_path, old, new)
    assert code == 0, out
    assert json.loads(out)["pairs"][0]["findings"] == []


def test_a_kind_removed_for_real_is_still_a_removed_kind_with_a_witness(tmp_path: Path) -> None:
    """The other side of the same rule: a message of the union that nothing in the new schema accepts."""
    other = {"type": "object", "properties": {"z": {"type": "boolean"}}, "required": ["z"],
             "additionalProperties": False}
    old = {"$schema": DRAFT7, "definitions": {
        "Message": {"oneOf": [{"$ref": "#/definitions/Msg"}, {"$ref": "#/definitions/Other"}]},
        "Msg": {**A_SHAPE, "additionalProperties": False}, "Other": other}}
    new = {"$schema": DRAFT7, "definitions": {"Message": {"oneOf": [{"$ref": "#/definitions/Msg"}]},
                                              "Msg": {**A_SHAPE, "additionalProperties": False}}}
    result = diff_schemas(read_input(old).schema, read_input(new).schema)
    (removed,) = [f for f in result.findings if f.rule == "MESSAGE_KIND_REMOVED"]
    assert removed.kind == "Other" and removed.breaks("backward", "tolerant")
    assert [w.payload for w in removed.witnesses if w.view == "tolerant"] == [{"z": False}]


def test_a_union_member_renamed_and_changed_is_matched_by_use() -> None:
    """MCP 2025-06-18 → 2025-11-25: `JSONRPCError` → `JSONRPCErrorResponse` (its `id` became optional): the same
    member of `JSONRPCMessage`, compared as one kind under its new name, not a removed and an added kind."""
    error = {"type": "object", "required": ["jsonrpc", "id", "error"], "properties": {
        "jsonrpc": {"const": "2.0"}, "id": {"type": ["string", "integer"]}, "error": {"type": "object"}}}
    request = {"type": "object", "required": ["jsonrpc", "id", "method"], "properties": {
        "jsonrpc": {"const": "2.0"}, "id": {"type": ["string", "integer"]}, "method": {"type": "string"}}}
    renamed = {**error, "required": ["jsonrpc", "error"]}
    old = {"$schema": D, "$defs": {"JSONRPCMessage": {"anyOf": [{"$ref": "#/$defs/JSONRPCRequest"},
                                                                {"$ref": "#/$defs/JSONRPCError"}]},
                                   "JSONRPCRequest": request, "JSONRPCError": error}}
    new = {"$schema": D, "$defs": {"JSONRPCMessage": {"anyOf": [{"$ref": "#/$defs/JSONRPCRequest"},
                                                                {"$ref": "#/$defs/JSONRPCErrorResponse"}]},
                                   "JSONRPCRequest": request, "JSONRPCErrorResponse": renamed}}
    result = diff_schemas(old, new)
    rules = {(f.rule, f.kind, f.path) for f in result.findings}
    assert ("MESSAGE_KIND_RENAMED", "JSONRPCErrorResponse", "") in rules
    assert ("PROPERTY_BECAME_OPTIONAL", "JSONRPCErrorResponse", "/id") in rules
    assert not any(f.rule in ("MESSAGE_KIND_REMOVED", "MESSAGE_KIND_ADDED") for f in result.findings)


def test_members_that_share_only_what_every_member_has_are_no_rename() -> None:
    """MCP 2025-11-25 → 2026-07-28: `GetTaskPayloadResult` ({_meta}, open) left with tasks and
    `SubscriptionsListenResult` ({_meta, resultType}) arrived in the same `ServerResult` union. `_meta`, which every
    result has, made them "half their names in common": one kind renamed, and three errors against a kind that
    did not exist (`_meta` and `resultType` now required). A name most members of the union have identifies none."""
    meta = {"_meta": {"type": "object"}}

    def result(*names: str, **extra: Any) -> dict[str, Any]:
        return {"type": "object", "properties": {**meta, **{n: {"type": "string"} for n in names}}, **extra}

    def schema(members: dict[str, Any]) -> dict[str, Any]:
        return {"$schema": D, "$defs": {"ServerResult": {"anyOf": [{"$ref": f"#/$defs/{n}"} for n in members]},
                                        **members}}

    common = {"ListToolsResult": result("tools", required=["tools"]),
              "ListPromptsResult": result("prompts", required=["prompts"])}
    old = schema({**common, "GetTaskPayloadResult": result(additionalProperties={})})
    new = schema({**common, "SubscriptionsListenResult": result("resultType", required=["_meta", "resultType"])})
    findings = diff_schemas(old, new).findings
    assert not [f for f in findings if f.rule == "MESSAGE_KIND_RENAMED"]
    assert not [f for f in findings if f.kind == "SubscriptionsListenResult" and f.rule != "MESSAGE_KIND_ADDED"]
    # still a rename where a name that tells members apart is shared (JSONRPCError → JSONRPCErrorResponse, above)
    renamed = schema({**common, "GetTaskPayload": result(additionalProperties={})})
    assert [f.rule for f in diff_schemas(old, renamed).findings] == ["MESSAGE_KIND_RENAMED"]


def test_a_tagged_root_union_is_compared_member_by_member() -> None:
    member = lambda tag, **props: {"type": "object", "required": ["type"],  # noqa: E731
                                   "properties": {"type": {"const": tag}, **props}}
    old = {"$schema": D, "oneOf": [member("text", text={"type": "string"}), member("image")]}
    new = {"$schema": D, "oneOf": [member("image"), member("text", text={"type": "integer"}), member("audio")]}
    result = diff_schemas(old, new)
    rules = {(f.rule, f.kind, f.path) for f in result.findings}
    assert ("TYPE_CHANGED", "type=text", "/text") in rules
    added = next(f for f in result.findings if f.rule == "MESSAGE_KIND_ADDED")
    assert added.kind == "type=audio" and added.breaks("forward", "tolerant")
    assert any(w.payload == {"type": "audio"} for w in added.witnesses)  # checked against the old union


@pytest.mark.parametrize("kinds", ["auto", "none"])
def test_identical_schemas_report_nothing_either_way(kinds: str) -> None:
    assert diff_schemas(acp_like(), acp_like(), kinds=kinds).findings == ()


def _jsonrpc_schema(ping: dict[str, Any]) -> dict[str, Any]:
    """MCP's layout: an envelope union (`JSONRPCMessage`) beside the unions of payloads (`ClientRequest`)."""
    envelope = {"jsonrpc": {"const": "2.0"}, "id": {"type": ["string", "integer"]}, "method": {"type": "string"},
                "params": {"type": "object"}}
    return {"$schema": D, "$defs": {
        "JSONRPCMessage": {"anyOf": [{"$ref": "#/$defs/JSONRPCRequest"}, {"$ref": "#/$defs/JSONRPCNotification"}]},
        "JSONRPCRequest": {"type": "object", "required": ["jsonrpc", "id", "method"], "properties": envelope},
        "JSONRPCNotification": {"type": "object", "required": ["jsonrpc", "method"],
                                "properties": {k: v for k, v in envelope.items() if k != "id"}},
        "ClientRequest": {"anyOf": [{"$ref": "#/$defs/PingRequest"}]},
        "PingRequest": ping}}


def test_a_request_that_now_requires_what_its_envelope_required_breaks_nothing() -> None:
    """Issue 30, 2 (MCP 2025-06-18 → 2025-11-25, 50 false errors): `PingRequest` now also requires `id` and
    `jsonrpc`, which every request's envelope (`JSONRPCRequest`) required already: `{"method": "ping"}` was never
    a valid message. The kind is judged as the messages both its definition and its envelope accept."""
    ping = {"type": "object", "required": ["method"], "properties": {"method": {"const": "ping"}}}
    framed = {"type": "object", "required": ["jsonrpc", "id", "method"], "properties": {
        "jsonrpc": {"const": "2.0"}, "id": {"type": ["string", "integer"]}, "method": {"const": "ping"}}}
    result = diff_schemas(_jsonrpc_schema(ping), _jsonrpc_schema(framed))
    assert [f.rule for f in result.findings] == []
    # what the envelope did not require is still a change: `id` may no longer be an integer
    narrowed = {**framed, "properties": {**framed["properties"], "id": {"type": "string"}}}
    result = diff_schemas(_jsonrpc_schema(ping), _jsonrpc_schema(narrowed))
    (finding,) = result.findings
    assert finding.kind == "ping request" and finding.path == "/id" and finding.breaks("backward", "tolerant")
    assert finding.old_location == "#/$defs/JSONRPCRequest/properties/id"
    assert {**finding.witnesses[0].payload, "id": 0} == {"id": 0, "jsonrpc": "2.0", "method": "ping"}
    assert isinstance(finding.witnesses[0].payload["id"], int)


def test_a_member_a_listing_union_writes_inline_is_a_kind() -> None:
    """MCP 2025-03-26 added JSON-RPC batches to `JSONRPCMessage` as inline arrays and 2025-06-18 removed them: each
    direction is a kind added or removed, witnessed by a batch the other side's unions refuse."""
    request = {"type": "object", "required": ["jsonrpc", "method"], "properties": {
        "jsonrpc": {"const": "2.0"}, "method": {"type": "string"}}}
    old = {"$schema": D, "$defs": {"JSONRPCMessage": {"anyOf": [{"$ref": "#/$defs/JSONRPCRequest"}]},
                                   "JSONRPCRequest": request}}
    batch = {"type": "array", "items": {"$ref": "#/$defs/JSONRPCRequest"}, "minItems": 1}
    new = {"$schema": D, "$defs": {"JSONRPCMessage": {"anyOf": [{"$ref": "#/$defs/JSONRPCRequest"}, batch]},
                                   "JSONRPCRequest": request}}
    (added,) = diff_schemas(old, new).findings
    assert added.rule == "MESSAGE_KIND_ADDED" and added.kind == "JSONRPCMessage array"
    assert added.breaks("forward", "tolerant") and added.witnesses[0].payload == [{"jsonrpc": "2.0", "method": ""}]
    (removed,) = diff_schemas(new, old).findings
    assert removed.rule == "MESSAGE_KIND_REMOVED" and removed.breaks("backward", "tolerant")
    assert "a member of JSONRPCMessage" in removed.message
    assert [f.rule for f in diff_schemas(new, new).findings] == []


def test_a_document_no_message_refers_to_is_compared_as_a_kind_of_its_own(tmp_path: Path) -> None:
    """Issue 39, 2: A2A's AgentCard is referenced by no message through v0.2.6, yet every agent publishes it: a
    definition no message reaches and no union lists is compared as a kind of its own (and says so), so a member
    becoming required in it is a witnessed backward break; while a helper nobody refers to coming or going (`Base`
    above) stays quiet."""
    card = {"type": "object", "properties": {"name": {"type": "string"}, "protocolVersion": {"type": "string"}},
            "required": ["name"]}
    defs = {"Message": {"oneOf": [{"$ref": "#/definitions/Msg"}]}, "Msg": A_SHAPE, "AgentCard": card}
    old = {"$schema": DRAFT7, "definitions": defs}
    new = {"$schema": DRAFT7, "definitions": {**defs, "AgentCard": {**card, "required": ["name", "protocolVersion"]},
                                              "NewHelper": {"type": "object"}}}
    uri = "https://schemas.wirecheck.invalid/diff-schemas/old/"
    derived = derive({uri: read_input(old).schema}, uri + "#", "old")
    assert derived is not None
    card_kind = next(k for k in derived.kinds if k.id == "AgentCard")
    assert card_kind.document and "no message refers to" in card_kind.selector
    result = diff_schemas(read_input(old).schema, read_input(new).schema)
    (added,) = [f for f in result.findings if f.kind == "AgentCard"]
    assert added.rule == "PROPERTY_BECAME_REQUIRED" and added.breaks("backward", "tolerant")
    assert [w.payload for w in added.witnesses if w.view == "tolerant"] == [{"name": ""}]
    assert not [f for f in result.findings if f.kind == "NewHelper"]  # a helper appearing: nothing
    gone = {**defs}
    del gone["AgentCard"]
    code, out = _cli_exit(tmp_path, old, {"$schema": DRAFT7, "definitions": gone})
    assert code == 0 and json.loads(out)["pairs"][0]["findings"] == [], out
