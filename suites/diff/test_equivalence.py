"""Equivalent refactors produce no finding (users' top complaint about diff tools)."""

from __future__ import annotations

import pytest

from wirecheck.diff import diff_schemas

D = "https://json-schema.org/draft/2020-12/schema"
OBJ = {"type": "object", "properties": {"id": {"type": "string", "minLength": 1}}, "required": ["id"],
       "additionalProperties": False}

CASES = {
    "inline to $ref": (
        {"$schema": D, **OBJ},
        {"$schema": D, "$defs": {"Id": {"type": "string", "minLength": 1}}, "type": "object",
         "properties": {"id": {"$ref": "#/$defs/Id"}}, "required": ["id"], "additionalProperties": False},
    ),
    "whole schema behind a $ref": ({"$schema": D, **OBJ}, {"$schema": D, "$defs": {"M": OBJ}, "$ref": "#/$defs/M"}),
    "anyOf of types to a type list": (
        {"$schema": D, "anyOf": [{"type": "string"}, {"type": "integer"}]},
        {"$schema": D, "type": ["integer", "string"]},
    ),
    "reordered oneOf": (
        {"$schema": D, "oneOf": [{"type": "object", "properties": {"k": {"const": "a"}}, "required": ["k"]},
                                 {"type": "object", "properties": {"k": {"const": "b"}}, "required": ["k"]}]},
        {"$schema": D, "oneOf": [{"type": "object", "properties": {"k": {"const": "b"}}, "required": ["k"]},
                                 {"type": "object", "properties": {"k": {"const": "a"}}, "required": ["k"]}]},
    ),
    "reordered enum and required": (
        {"$schema": D, "type": "object", "properties": {"a": {"enum": ["x", "y"]}, "b": {}}, "required": ["a", "b"]},
        {"$schema": D, "type": "object", "properties": {"b": {}, "a": {"enum": ["y", "x"]}}, "required": ["b", "a"]},
    ),
    "allOf composition of the same object": (
        {"$schema": D, "type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
         "required": ["a", "b"]},
        {"$schema": D, "allOf": [{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                                 {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]}]},
    ),
    "description and title edits": (
        {"$schema": D, "type": "string", "description": "old words"},
        {"$schema": D, "type": "string", "description": "new words", "title": "T"},
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_equivalent_refactor_has_no_finding(name: str) -> None:
    old, new = CASES[name]
    result = diff_schemas(old, new)
    assert result.findings == (), [f"{f.rule} {f.path}" for f in result.findings]
    assert result.kinds[0].verdicts and all(v == "safe" for _, _, v in result.kinds[0].verdicts)


def test_recursive_change_is_never_safe() -> None:
    old = {"$schema": D, "$defs": {"T": {"type": "object", "properties": {
        "kids": {"type": "array", "items": {"$ref": "#/$defs/T"}}, "n": {"type": "integer"}}}}, "$ref": "#/$defs/T"}
    new = {"$schema": D, "$defs": {"T": {"type": "object", "properties": {
        "kids": {"type": "array", "items": {"$ref": "#/$defs/T"}}, "n": {"type": "string"}}}}, "$ref": "#/$defs/T"}
    result = diff_schemas(old, new)
    assert result.findings
    changed = [f for f in result.findings if f.rule == "TYPE_CHANGED" and f.path == "/n"]
    assert changed and changed[0].breaks("forward") and changed[0].breaks("backward")
    assert all(f.verdicts for f in result.findings)


@pytest.mark.parametrize(("old", "new"), [
    # a property *named* like an annotation keyword is data, not an annotation
    ({"type": "object", "properties": {"description": {"type": "string"}}},
     {"type": "object", "properties": {"description": {"type": "integer"}}}),
    ({"type": "object", "properties": {"title": {"type": "string"}}}, {"type": "object", "properties": {}}),
    # const values are data, whatever their keys
    ({"const": {"description": "a"}}, {"const": {"description": "b"}}),
    ({"enum": [1, True]}, {"enum": [1, 1]}),
])
def test_changes_hidden_in_annotation_names_are_found(old, new) -> None:  # type: ignore[no-untyped-def]
    result = diff_schemas({"$schema": D, **old}, {"$schema": D, **new})
    assert result.findings, "a real change was taken for an annotation"


def test_shape_key_is_shared_by_every_pair_same_shape_calls_alike() -> None:
    """The union matcher compares two branches only when their shape keys agree, so a key must never tell apart
    two schemas same_shape calls alike (or a renamed-but-identical branch would be reported removed and added)."""
    from wirecheck.contracts import load_registry
    from wirecheck.diff.flat import flatten
    from wirecheck.diff.shape import same_shape, shape_key
    from wirecheck.diff.side import Sides

    registry = load_registry()
    sides = Sides()
    old = sides.of(registry.load("qoder-agent-sdk@1.0.21"))
    new = sides.of(registry.load("qoder-agent-sdk@1.0.34"))
    inner = "protocol.json#/$defs/SDKControlRequestInner"
    old_branches = flatten(old, f"https://contracts.wirecheck.invalid/qoder-agent-sdk/1.0.21/{inner}").branches
    new_branches = flatten(new, f"https://contracts.wirecheck.invalid/qoder-agent-sdk/1.0.34/{inner}").branches
    alike = [(a, b) for a in old_branches for b in new_branches if same_shape(old, a, new, b)]
    assert len(alike) >= 5  # not vacuous: many requests did not change between these releases
    assert all(shape_key(old, a) == shape_key(new, b) for a, b in alike)
    differing = sum(shape_key(old, a) != shape_key(new, b) for a in old_branches for b in new_branches)
    assert differing > len(old_branches) * len(new_branches) // 2  # and it does tell most pairs apart
