"""Equivalent refactors produce no finding (users' top complaint about diff tools)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

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


# Sixteen reachable definitions, large enough (≈ 30 KB) that jsonschema-rs `covers` is never asked (semantic.py's
# budgets): what is decided here is decided by the prover and the structural walk alone, as at ACP's size.
BULK = {f"Bulk{i}": {"type": "object", "required": ["f0"], "properties": {
    f"f{j}": {"type": "string", "pattern": "^[a-z]+$", "description": "d" * 20} for j in range(30)}} for i in range(16)}


def at_size(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` (an object schema) with the bulk definitions reachable from an optional property."""
    bulk = {"type": "object", "properties": {name: {"$ref": f"#/$defs/{name}"} for name in BULK}}
    return {**schema, "$defs": {**schema.get("$defs", {}), **copy.deepcopy(BULK), "BulkHolder": bulk},
            "properties": {**schema.get("properties", {}), "bulk": {"$ref": "#/$defs/BulkHolder"}}}


CASES.update({
    "type list to anyOf of a type behind a $ref and null": (
        {"$schema": D, "type": "object", "properties": {"a": {"type": ["string", "null"]}}},
        {"$schema": D, "type": "object", "properties": {"a": {"anyOf": [{"$ref": "#/$defs/S"}, {"type": "null"}]}},
         "$defs": {"S": {"type": "string", "description": "a string"}}},
    ),
    "annotations, x- extensions and discriminator edits": (
        {"$schema": D, "type": "object", "properties": {"a": {"type": "string", "x-a": 1}}, "x-side": "agent"},
        {"$schema": D, "type": "object", "properties": {"a": {"type": "string", "x-a": 2, "deprecated": True,
                                                              "$comment": "c", "examples": ["e"]}},
         "x-side": "client", "discriminator": {"propertyName": "a"}},
    ),
    "a $ref wrapped in a one-part allOf, a type moved behind a named definition (ACP 0.27.1 → 0.28.0)": (
        {"$schema": D, "type": "object", "properties": {"id": {"$ref": "#/$defs/RequestId"}, "m": {"type": "string"}},
         "$defs": {"RequestId": {"type": ["string", "integer", "null"]}}},
        {"$schema": D, "type": "object", "properties": {"id": {"allOf": [{"$ref": "#/$defs/RequestId"}]},
                                                        "m": {"allOf": [{"$ref": "#/$defs/MethodId"}]}},
         "$defs": {"RequestId": {"type": ["string", "integer", "null"]}, "MethodId": {"type": "string"}}},
    ),
    "an integer range split into an anyOf of two (only covers proves it)": (
        {"$schema": D, "type": "object", "properties": {"a": {"type": "integer", "minimum": 0, "maximum": 10}}},
        {"$schema": D, "type": "object", "properties": {"a": {"anyOf": [
            {"type": "integer", "minimum": 0, "maximum": 5}, {"type": "integer", "minimum": 5, "maximum": 10}]}}},
    ),
})
SIZED = {f"{name}, at size": (at_size(old), at_size(new)) for name, (old, new) in CASES.items()
         if old.get("type") == "object" and new.get("type") == "object" and "covers" not in name}


@pytest.mark.parametrize("name", sorted(CASES) + sorted(SIZED))
def test_equivalent_refactor_has_no_finding(name: str) -> None:
    old, new = CASES[name] if name in CASES else SIZED[name]
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


# --- what never changes a verdict: definitions nothing refers to, annotations ---------------------------------
PAIRS = Path(__file__).parent / "pairs"


def _pair(name: str) -> tuple[Any, Any]:
    case = yaml.safe_load((PAIRS / f"{name}.yaml").read_text(encoding="utf-8"))
    return ({"$schema": D, **case["before"]}, {"$schema": D, **case["after"]})


def _summary(old: Any, new: Any) -> tuple[Any, ...]:
    result = diff_schemas(old, new)
    return (tuple(sorted((f.rule, f.path, f.verdicts, bool(f.witnesses)) for f in result.findings)),
            tuple(k.verdicts for k in result.kinds))


def _with_unused_definitions(schema: dict[str, Any]) -> dict[str, Any]:
    return {**schema, "$defs": {**schema.get("$defs", {}), **{f"Unused{n}": d for n, d in BULK.items()}}}


_SCHEMA_WORDS = {"type", "properties", "items", "$ref", "anyOf", "oneOf", "allOf", "enum", "const", "pattern"}


def _annotated(schema: Any, words: str) -> Any:
    """`schema` with annotations written into every schema object (never into data: const, enum, names)."""
    if isinstance(schema, list):
        return [_annotated(item, words) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: value if key in ("const", "enum", "examples", "default", "required") else
           {name: _annotated(sub, words) for name, sub in value.items()} if key in ("properties", "$defs")
           else _annotated(value, words) for key, value in schema.items()}
    if _SCHEMA_WORDS & set(schema):
        out.update({"description": words, "x-note": words, "$comment": words, "examples": [words],
                    "deprecated": words == "new", "discriminator": {"propertyName": words}})
    return out


@pytest.mark.parametrize("name", sorted(p.stem for p in PAIRS.glob("*.yaml")))
def test_unreferenced_definitions_and_annotations_change_no_verdict(name: str) -> None:
    old, new = _pair(name)
    plain = _summary(old, new)
    assert _summary(_with_unused_definitions(old), _with_unused_definitions(new)) == plain
    assert _summary(_annotated(old, "old"), _annotated(new, "new")) == plain
