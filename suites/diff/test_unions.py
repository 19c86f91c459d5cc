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


def _inputs(new: bool) -> dict[str, Any]:
    """xopc's side-chat input (0.0.251 → 0.0.253): `content` required, then `content` or `attachments`, an anyOf
    of untagged alternatives beside the object's own properties."""
    if not new:
        return {"$schema": D, "type": "object", "required": ["content"],
                "properties": {"content": {"type": "string", "pattern": "\\S"}}}
    return {"$schema": D, "type": "object",
            "properties": {"content": {"type": "string"},
                           "attachments": {"type": "array", "maxItems": 10, "items": {"type": "string"}}},
            "anyOf": [{"required": ["content"], "properties": {"content": {"pattern": "\\S"}}},
                      {"required": ["attachments"], "properties": {"attachments": {"minItems": 1}}}]}


def test_untagged_alternatives_beside_properties_say_one_thing_per_property() -> None:
    """A property one alternative requires and the other does not is optional to the union: `attachments` is an
    added optional property, never also a required one (issue 22: contradictory findings); `content` became
    optional, with the message that shows it (built from the alternative merged with the object)."""
    result = diff_schemas(_inputs(False), _inputs(True), kinds="none")
    rules = {(f.rule, f.path) for f in result.findings}
    assert ("REQUIRED_PROPERTY_ADDED", "/attachments") not in rules
    assert ("PROPERTY_ADDED", "/attachments") in rules
    optional = next(f for f in result.findings if f.rule == "PROPERTY_BECAME_OPTIONAL")
    assert optional.path == "/content" and ("forward", "strict", "breaking") in optional.verdicts
    [witness, *_] = optional.witnesses
    assert "content" not in witness.payload and witness.payload["attachments"]  # valid new, refused by old


def test_a_requirement_of_a_tagged_alternative_stands() -> None:
    """Members told apart by a tag are separate messages: `y` required by the `b` member alone is a required
    property added for `b` messages, with a `b` message lacking it as witness."""
    old = {"$schema": D, "type": "object", "required": ["kind"],
           "properties": {"kind": {"enum": ["a", "b"]}, "y": {"type": "string"}}}
    new = {**old, "oneOf": [{"properties": {"kind": {"const": "a"}}},
                            {"required": ["y"], "properties": {"kind": {"const": "b"}}}]}
    result = diff_schemas(old, new, kinds="none")
    became = next(f for f in result.findings if f.rule == "PROPERTY_BECAME_REQUIRED")
    assert became.path == "/y" and any(w.payload == {"kind": "b"} for w in became.witnesses)


def test_a_lost_member_is_never_blamed_for_what_the_union_now_accepts() -> None:
    """`stopReason: StopReason | null` → `string` (ACP 1.7.0 → 1.8.0): new producers may write any string, which
    old readers refuse; that break is not the lost member's (a lost member only narrows), so it is witnessed
    elsewhere, never by UNION_BRANCH_REMOVED."""
    reasons = {"type": "string", "enum": ["end_turn", "refusal"]}
    old = {"$schema": D, "type": "object", "properties": {"stopReason": {"anyOf": [
        {"$ref": "#/$defs/StopReason"}, {"type": "null"}]}}, "$defs": {"StopReason": reasons}}
    new = {"$schema": D, "type": "object", "properties": {"stopReason": {"type": "string"}}}
    result = diff_schemas(old, new, kinds="none")
    for finding in result.findings:
        if finding.rule == "UNION_BRANCH_REMOVED":
            assert all(d == "backward" for d, _, _ in finding.verdicts), finding
            assert all(w.direction == "backward" for w in finding.witnesses), finding
    assert any(d == "forward" and v == "breaking" for f in result.findings for d, _, v in f.verdicts)


def test_a_member_gained_beside_the_objects_properties_is_witnessed_with_them() -> None:
    """ACP 0.15.0 → 0.16.0: SessionConfigOption = {id, name} + oneOf [select, boolean]; the gained `boolean`
    member's witness is a whole option (`id`, `name` and all), not the member built alone, which no side accepts."""
    def option(*kinds: str) -> dict[str, Any]:
        members = [{"type": "object", "required": ["type"], "properties": {"type": {"const": kind}}}
                   for kind in kinds]
        return {"$schema": D, "type": "object", "properties": {"configOptions": {"type": "array", "items": {
            "type": "object", "required": ["id", "name"],
            "properties": {"id": {"type": "string"}, "name": {"type": "string"}}, "oneOf": members}}}}

    old, new = option("select", "text"), option("select", "text", "boolean")
    new["properties"]["configOptions"]["maxItems"] = 8  # another change in the message: the net has two to explain
    result = diff_schemas(old, new, kinds="none")
    [gained] = [f for f in result.findings if f.rule == "UNION_BRANCH_ADDED"]
    assert gained.message.endswith("gained member boolean")
    assert ("forward", "strict", "breaking") in gained.verdicts
    assert {"id", "name", "type"} <= set(gained.witnesses[0].payload["configOptions"][0])
