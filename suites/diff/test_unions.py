"""Union members matched by identity (issue 19): title, tag, the definition they refer to, then shape; changes
inside a matched member reported there; unmatched members named by their identity, never by their position."""

from __future__ import annotations

import re
from typing import Any

from wirecheck.diff import diff_schemas

D = "https://json-schema.org/draft/2020-12/schema"


def _update(name: str, **properties: Any) -> dict[str, Any]:
    return {"type": "object", "required": ["sessionUpdate"],
            "properties": {"sessionUpdate": {"type": "string"}, **properties}}


def _session_update(members: list[tuple[str, str]], defs: dict[str, Any]) -> dict[str, Any]:
    """ACP's SessionUpdate: an anyOf of titled members, each a one-part allOf around a definition, no tag."""
    return {"$schema": D, "type": "object", "required": ["update"], "properties": {"update": {"anyOf": [
        {"title": title, "allOf": [{"$ref": f"#/$defs/{name}"}]} for title, name in members]}}, "$defs": defs}


OLD_DEFS = {"ContentChunk": _update("ContentChunk", content={"type": "string"}),
            "ToolCall": _update("ToolCall", toolCallId={"type": "string"}),
            "Plan": _update("Plan", entries={"type": "array"})}


def _findings(old: Any, new: Any) -> list[tuple[str, str, str]]:
    return sorted((f.rule, f.path, f.message) for f in diff_schemas(old, new, kinds="none").findings)


def test_members_are_matched_by_title_whatever_their_order() -> None:
    old = _session_update([("AgentMessageChunk", "ContentChunk"), ("ToolCall", "ToolCall"), ("Plan", "Plan")],
                          OLD_DEFS)
    new_defs = {**OLD_DEFS, "ToolCall": _update("ToolCall", toolCallId={"type": "string"}, title={"type": "string"}),
                "SessionInfo": _update("SessionInfo", info={"type": "string"})}
    new = _session_update([("Plan", "Plan"), ("SessionInfoUpdate", "SessionInfo"), ("ToolCall", "ToolCall"),
                           ("AgentMessageChunk", "ContentChunk")], new_defs)
    found = _findings(old, new)
    assert ("UNION_BRANCH_ADDED", "/update", "union at /update gained member SessionInfoUpdate") in found
    assert ("PROPERTY_ADDED", "/update/title", "optional property title added at /update/title") in found
    assert not [f for f in found if f[0] == "UNION_BRANCH_REMOVED"]  # nothing moved is reported lost
    assert not [f for f in found if re.search(r"member \d", f[2])]


def test_a_retitled_member_is_matched_by_the_definition_it_refers_to() -> None:
    old = _session_update([("AgentMessageChunk", "ContentChunk"), ("ToolCall", "ToolCall")], OLD_DEFS)
    new = _session_update([("ToolCall", "ToolCall"), ("AgentChunk", "ContentChunk")],
                          {**OLD_DEFS, "ContentChunk": _update("ContentChunk", content={"type": "integer"})})
    found = _findings(old, new)
    assert [f[:2] for f in found] == [("TYPE_CHANGED", "/update/content")]


def test_unmatched_members_without_a_name_are_named_by_their_shape() -> None:
    old = {"$schema": D, "anyOf": [{"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}},
                                   {"type": "string"}]}
    new = {"$schema": D, "anyOf": [{"type": "object", "required": ["b", "c"], "properties": {
        "b": {"type": "string"}, "c": {"type": "string"}}}, {"type": "string"}, {"type": "array"}]}
    messages = {f[2] for f in _findings(old, new)}
    assert "union at / gained member array" in messages
    assert "union at / gained member object {b, c}" in messages
    assert "union at / lost member object {a}" in messages


def test_a_tagged_member_is_named_by_its_tag() -> None:
    member = lambda tag: {"type": "object", "required": ["type"],  # noqa: E731
                          "properties": {"type": {"const": tag}, "x": {"type": "string"}}}
    old = {"$schema": D, "type": "object", "properties": {"server": {"anyOf": [member("http"), member("sse")]}}}
    new = {"$schema": D, "type": "object", "properties": {"server": {"anyOf": [member("http"), member("acp")]}}}
    messages = {f[2] for f in _findings(old, new)}
    assert messages == {"union at /server gained member acp", "union at /server lost member sse"}
