"""diff-schemas --kinds auto: message kinds derived from a raw schema (diff/derive.py), reported per message."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from wirecheck.diff import diff_schemas
from wirecheck.diff.derive import derive

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


def test_a_schema_of_definitions_only_is_compared_definition_by_definition() -> None:
    """MCP's schema.json has no root: every definition is a kind of its own."""
    old = json.loads((MCP / "2025-03-26" / "schema.json").read_text(encoding="utf-8"))
    new = copy.deepcopy(old)
    del new["definitions"]["PingRequest"]
    for union in new["definitions"].values():  # and where a union named it
        if isinstance(union.get("anyOf"), list):
            union["anyOf"] = [m for m in union["anyOf"] if m != {"$ref": "#/definitions/PingRequest"}]
    new["definitions"]["Implementation"]["required"] = [*new["definitions"]["Implementation"]["required"], "title"]
    new["definitions"]["Implementation"]["properties"]["title"] = {"type": "string"}
    result = diff_schemas(old, new)
    assert result.nothing_compared is None
    removed = [f for f in result.findings if f.rule == "MESSAGE_KIND_REMOVED"]
    assert [f.kind for f in removed] == ["PingRequest"] and removed[0].witnesses
    required = {f.kind: f for f in result.findings if f.rule == "REQUIRED_PROPERTY_ADDED"}
    assert required["Implementation"].path == "/title"
    assert required["InitializeRequest"].path == "/params/clientInfo/title"  # where it is used, too
    assert required["Implementation"].breaks("backward") and required["InitializeRequest"].breaks("backward")


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
