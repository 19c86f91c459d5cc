"""The structural containment prover answers "proven" only when containment holds: checked against jsonschema-rs
set reasoning and against the witnesses of every before/after pair, plus cases where proof must be refused."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from wirecheck.diff import diff_schemas
from wirecheck.diff.prove import prove_subset
from wirecheck.diff.semantic import covers
from wirecheck.diff.side import Side

D = "https://json-schema.org/draft/2020-12/schema"
PAIRS = Path(__file__).parent / "pairs"


def sides(old, new):  # type: ignore[no-untyped-def]
    a, b = "https://t.invalid/old.json", "https://t.invalid/new.json"
    old_side = Side("old", {a: {"$schema": D, "$id": a, **old}})
    new_side = Side("new", {b: {"$schema": D, "$id": b, **new}})
    return (old_side, a + "#"), (new_side, b + "#")


@pytest.mark.parametrize("name", sorted(p.stem for p in PAIRS.glob("*.yaml")))
def test_never_proves_what_a_witness_refutes(name: str) -> None:
    case = yaml.safe_load((PAIRS / f"{name}.yaml").read_text(encoding="utf-8"))
    (old, old_loc), (new, new_loc) = sides(case["before"], case["after"])
    result = diff_schemas({"$schema": D, **case["before"]}, {"$schema": D, **case["after"]})
    for direction, (writer, w_loc, reader, r_loc) in {"forward": (new, new_loc, old, old_loc),
                                                      "backward": (old, old_loc, new, new_loc)}.items():
        for view in ("strict", "tolerant"):
            if prove_subset(writer, w_loc, "strict", reader, r_loc, view):
                assert covers(reader.canonical(r_loc, view), writer.canonical(w_loc, "strict")) != "breaking"
                assert not any(f.breaks(direction, view) for f in result.findings), (name, direction, view)


OBJ = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": False}


@pytest.mark.parametrize(("narrow", "wide", "proven"), [
    (OBJ, OBJ, True),
    (OBJ, {**OBJ, "additionalProperties": True}, True),  # a closed model inside an open one
    ({**OBJ, "additionalProperties": True}, OBJ, False),  # extras refused by the wide side
    ({"enum": ["x", "y"]}, {"type": "string", "pattern": "^[xy]$"}, True),  # finite sides checked value by value
    ({"enum": ["x", "z"]}, {"type": "string", "pattern": "^[xy]$"}, False),
    ({"type": "integer"}, {"type": "number"}, True),
    ({"type": "number"}, {"type": "integer"}, False),
    # a oneOf: inside one member and sharing no value with the others (jsonschema-rs: the intersection is empty)
    ({"type": "string"}, {"oneOf": [{"type": "string"}, {"type": "integer"}]}, True),
    ({"type": "string"}, {"oneOf": [{"type": "string"}, {"type": "string", "minLength": 1}]}, False),  # "a": both
    ({"type": "string"}, {"anyOf": [{"type": "string"}, {"type": "integer"}]}, True),
    ({"type": "string", "minLength": 2}, {"type": "string", "minLength": 1}, True),
    ({"type": "string", "minLength": 1}, {"type": "string", "minLength": 2}, False),
    ({"type": "string", "pattern": "^a+$"}, {"type": "string", "pattern": "^a*$"}, False),  # regexes: not tried
    ({"type": "array", "items": {"type": "integer"}}, {"type": "array", "items": {"type": "number"}}, True),
    ({"type": "array"}, {"type": "array", "items": {"type": "number"}}, False),
    ({"$defs": {"T": {"type": "object", "properties": {"k": {"type": "array", "items": {"$ref": "#/$defs/T"}}}}},
      "$ref": "#/$defs/T"},
     {"$defs": {"T": {"type": "object", "properties": {"k": {"type": "array", "items": {"$ref": "#/$defs/T"}}}}},
      "$ref": "#/$defs/T"}, True),  # recursion, coinductively
    ({"type": "object", "properties": {"description": {"type": "integer"}}},
     {"type": "object", "properties": {"description": {"type": "string"}}}, False),
])
def test_cases(narrow, wide, proven) -> None:  # type: ignore[no-untyped-def]
    (n, n_loc), (w, w_loc) = sides(narrow, wide)
    assert prove_subset(n, n_loc, "strict", w, w_loc, "strict") is proven


# Qoder's control requests: a closed object where at least one of `type`/`subtype` must be present
ALT = {"type": "object", "additionalProperties": False,
       "properties": {"type": {"const": "x"}, "subtype": {"const": "x"}, "a": {"type": "string"}},
       "anyOf": [{"required": ["type"]}, {"required": ["subtype"]}]}
ALT_OPEN = {k: v for k, v in ALT.items() if k != "anyOf"}
OTHER = {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"], "additionalProperties": False}


@pytest.mark.parametrize(("narrow", "wide", "proven"), [
    (ALT, {**ALT, "anyOf": [{"required": ["subtype"]}, {"required": ["type"]}]}, True),  # alternatives reordered
    (ALT, {**ALT, "anyOf": [{"required": ["type"]}]}, False),  # narrow may send `subtype` alone
    ({**ALT, "required": ["type"]}, {**ALT, "anyOf": [{"required": ["type"]}]}, True),  # ... unless it requires it
    (ALT, ALT_OPEN, True),  # the alternatives only narrow the narrow side
    (ALT_OPEN, ALT, False),  # {} is accepted by the open side only
    ({"anyOf": [ALT, OTHER]}, {"anyOf": [OTHER, ALT]}, True),  # a union of such objects, members reordered
    ({"anyOf": [ALT, OTHER]}, {"anyOf": [ALT]}, False),
])
def test_required_alternatives(narrow, wide, proven) -> None:  # type: ignore[no-untyped-def]
    (n, n_loc), (w, w_loc) = sides(narrow, wide)
    assert prove_subset(n, n_loc, "strict", w, w_loc, "strict") is proven
    if not proven:  # and the refusal is real: jsonschema-rs finds the narrow side accepting more
        assert covers(w.canonical(w_loc, "strict"), n.canonical(n_loc, "strict")) == "breaking"


# SchemaStore's github-workflow.json (issue 39): the shapes the prover had to learn to decide its pairs
STEP = {"type": "object", "additionalProperties": False, "dependentRequired": {"shell": ["run"], "dir": ["run"]},
        "properties": {n: {"type": "string"} for n in ("id", "uses", "run", "shell", "dir")},
        "oneOf": [{"required": ["uses"]}, {"required": ["run"]}]}
PARALLEL = {**STEP, "properties": {**STEP["properties"], **{n: {"type": "string"} for n in ("wait", "cancel", "x")}},
            "oneOf": [*STEP["oneOf"], {"required": ["wait"]}, {"required": ["cancel"]}, {"required": ["x"]}]}
JOB = {"type": "object", "required": ["runs-on"], "additionalProperties": False,
       "properties": {"runs-on": {"type": "string"}, "steps": {"type": "array"}}}
CALL = {"type": "object", "required": ["uses"], "additionalProperties": False,
        "properties": {"uses": {"type": "string"}, "with": {"type": "object"}}}
EVENT = {"properties": {"a": {"type": "string"}, "b": {"type": "string"}},
         "oneOf": [{"type": "object", "allOf": [{"not": {"required": ["a", "b"]}}]}, {"type": "null"}]}
INLINED = {"oneOf": [{"type": "null"}, {"allOf": [
    {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "additionalProperties": False},
    {"not": {"required": ["a", "b"]}}]}]}


@pytest.mark.parametrize(("narrow", "wide", "proven"), [
    # a `oneOf` of `required` lists: each way of being present names exactly one wide list, the others absent
    (STEP, PARALLEL, True),  # (jsonschema-rs says unknown: six lists beside dependentRequired)
    (PARALLEL, STEP, False),  # {"wait": "x"}
    ({**{k: v for k, v in STEP.items() if k != "oneOf"}, "anyOf": STEP["oneOf"]}, STEP, False),  # uses and run
    (STEP, {**STEP, "oneOf": [*STEP["oneOf"], {"required": ["id"]}]}, False),  # {"uses": "x", "id": "x"}: two
    # patterns compared pattern by pattern
    ({"type": "object", "patternProperties": {"^j": JOB}}, {"type": "object", "patternProperties": {
        "^j": {"oneOf": [JOB, CALL]}}}, True),
    ({"type": "object", "patternProperties": {"^j": {"oneOf": [JOB, CALL]}}},
     {"type": "object", "patternProperties": {"^j": JOB}}, False),
    ({"type": "object", "patternProperties": {"^j": JOB}}, {"type": "object", "patternProperties": {"^k": JOB}},
     False),  # other patterns: other names
    # a member of a wide `oneOf`, disjoint from the others; a narrow member gaining a property is in neither
    ({"oneOf": [JOB, CALL]}, {"oneOf": [{**JOB, "properties": {**JOB["properties"], "x": {}}}, CALL]}, True),
    ({"oneOf": [{**JOB, "properties": {**JOB["properties"], "x": {}}}, CALL]}, {"oneOf": [JOB, CALL]}, False),
    # an intersection written in other places: every wide conjunct inside one narrow conjunct
    (INLINED, EVENT, True),
    (EVENT, INLINED, False),  # {"c": 1}: the old event object was open
])
def test_real_shapes(narrow, wide, proven) -> None:  # type: ignore[no-untyped-def]
    (n, n_loc), (w, w_loc) = sides(narrow, wide)
    assert prove_subset(n, n_loc, "strict", w, w_loc, "strict") is proven
    if not proven:  # and the refusal is real: python-jsonschema accepts a payload the wide side refuses
        import jsonschema

        examples = [{"wait": "x"}, {"uses": "x", "run": "x"}, {"uses": "x", "id": "x"}, {"j": {"uses": "x"}}, {"k": 1},
                    {"runs-on": "x", "x": 1}, {"c": 1}]
        assert any(jsonschema.Draft202012Validator(narrow).is_valid(e)
                   and not jsonschema.Draft202012Validator(wide).is_valid(e) for e in examples)


def test_covers_budget_answers_unknown_never_safe(monkeypatch: pytest.MonkeyPatch) -> None:
    from wirecheck.diff import semantic

    # too large for the budget, and beyond the prover (the wide side's regex): covers could say "breaking"
    props = {f"p{i}": {"type": "integer", "minimum": i} for i in range(200)}
    wide = {"type": "object", "properties": {**props, "s": {"type": "string", "pattern": "^a"}}}
    narrow = {"type": "object", "properties": {**props, "s": {"type": "string"}}}
    (n, n_loc), (w, w_loc) = sides(narrow, wide)
    assert w.canonical_size(w_loc, "strict") > semantic.COVERS_BUDGET_BYTES
    assert semantic.contained(n, n_loc, w, w_loc, "strict") == "unknown"
    monkeypatch.setattr(semantic, "COVERS_BUDGET_BYTES", 10**9)
    (n, n_loc), (w, w_loc) = sides(narrow, wide)  # fresh sides: an answer is remembered for the life of a side
    assert semantic.contained(n, n_loc, w, w_loc, "strict") == "breaking"
    # and a containment the prover shows is safe whatever the size
    assert semantic.contained(w, w_loc, n, n_loc, "strict") == "safe"


def test_source_budget_skips_canonical_forms(monkeypatch: pytest.MonkeyPatch) -> None:
    from wirecheck.diff import semantic

    props = {f"p{i}": {"type": "integer", "minimum": i} for i in range(600)}
    wide = {"type": "object", "properties": {**props, "s": {"type": "string", "pattern": "^a"}}}
    narrow = {"type": "object", "properties": {**props, "s": {"type": "string"}}}
    (n, n_loc), (w, w_loc) = sides(narrow, wide)
    assert w.source_size(w_loc) > semantic.SOURCE_BUDGET_BYTES

    def no_canonical(*args: object) -> None:
        raise AssertionError("canonicalised a schema over the source budget")

    monkeypatch.setattr(Side, "canonical", no_canonical)
    assert semantic.contained(n, n_loc, w, w_loc, "strict") == "unknown"
    assert semantic.contained(w, w_loc, n, n_loc, "strict") == "safe"  # the prover needs no canonical form
