"""Witnesses where one is easy to build (issue 19, item 4): a fresh property name, a number a `not` now refuses,
tuple positions against the other side's `items`, a property name a pattern matches. Each was
SCHEMA_CHANGE_UNDECIDED (or a net finding without a witness) before."""

from __future__ import annotations

from typing import Any

import pytest

from wirecheck.diff import diff_schemas

D = "https://json-schema.org/draft/2020-12/schema"


def _found(old: Any, new: Any) -> dict[tuple[str, str], Any]:
    result = diff_schemas({"$schema": D, **old}, {"$schema": D, **new}, kinds="none")
    return {(f.rule, f.path): f for f in result.findings}


def _witness(finding: Any, direction: str) -> Any:
    [payload] = {repr(w.payload): w.payload for w in finding.witnesses if w.direction == direction}.values()
    return payload


def test_additional_properties_true_to_a_type_is_witnessed_by_a_fresh_name() -> None:
    old = {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": True}
    new = {**old, "additionalProperties": {"type": "number"}}
    found = _found(old, new)
    assert list(found) == [("TYPE_NARROWED", "/{name}")]
    payload = _witness(found[("TYPE_NARROWED", "/{name}")], "backward")
    [(name, value)] = payload.items()
    assert name != "a" and not isinstance(value, int | float)
    # and the reverse widens, witnessed forward with a fresh name holding a value of another type
    found = _found(new, {"type": "object", "properties": {"a": {"type": "string"}}})
    assert list(found) == [("TYPE_WIDENED", "/{name}")]
    assert _witness(found[("TYPE_WIDENED", "/{name}")], "forward")


def test_a_not_that_refuses_more_is_witnessed_by_what_it_now_refuses() -> None:
    found = _found({"not": {"type": "integer"}}, {"not": {"type": "number"}})
    assert list(found) == [("TYPE_NARROWED", "")]
    assert _witness(found[("TYPE_NARROWED", "")], "backward") == 1.5
    found = _found({"not": {"type": "number"}}, {"not": {"type": "integer"}})
    assert _witness(found[("TYPE_WIDENED", "")], "forward") == 1.5


@pytest.mark.parametrize("tuple_first", [True, False])
def test_prefix_items_are_compared_position_by_position_with_items(tuple_first: bool) -> None:
    tuple_ = {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]}
    items = {"type": "array", "items": {"type": "string"}}
    old, new = (tuple_, items) if tuple_first else (items, tuple_)
    found = _found(old, new)
    change = found[("TYPE_CHANGED", "/1")]
    assert _witness(change, "backward")[1] == (1 if tuple_first else "x")
    assert _witness(change, "forward")[1] == ("x" if tuple_first else 1)


def test_a_pattern_property_is_judged_on_a_name_it_matches() -> None:
    old = {"type": "object", "patternProperties": {"^x-": {"type": "string"}}}
    new = {"type": "object", "patternProperties": {"^x-": {"type": "integer"}}}
    found = _found(old, new)
    [(rule, path)] = found
    assert rule == "TYPE_CHANGED" and path.startswith("/x-")
    [(name, value)] = _witness(found[(rule, path)], "backward").items()
    assert name.startswith("x-") and value == "x"


def test_a_pattern_that_gives_no_name_leaves_the_change_to_the_set_reasoning() -> None:
    old = {"type": "object", "patternProperties": {"^(?!)": {"type": "string"}}}
    new = {"type": "object", "patternProperties": {"^(?!)": {"type": "integer"}}}
    found = _found(old, new)
    assert not [key for key in found if key[0].startswith("TYPE_")]


def test_a_value_that_admitted_anything_given_a_type_is_witnessed_by_another_type() -> None:
    """ACP 0.5.1 → 0.7.0: `_meta: {description: …}` (any value) became `{type: [object, null]}`, documented as
    breaking; `{"_meta": 1}` is the witness (SCHEMA_CHANGE_UNDECIDED on 25 message kinds before)."""
    old = {"type": "object", "properties": {"_meta": {"description": "extension point"}}}
    new = {"type": "object", "properties": {"_meta": {"type": ["object", "null"], "additionalProperties": True}}}
    found = _found(old, new)
    assert list(found) == [("TYPE_NARROWED", "/_meta")]
    assert found[("TYPE_NARROWED", "/_meta")].message == 'type at /_meta narrowed from any type to ["object","null"]'
    assert _witness(found[("TYPE_NARROWED", "/_meta")], "backward")["_meta"] not in ({}, None)
    found = _found(new, old)
    assert list(found) == [("TYPE_WIDENED", "/_meta")]
    # a node that constrains something beside its (absent) type still admits every other type: `minLength` says
    # nothing of a number, so `{"a": 1}` is the witness (issue 30, 5: the real reason, not a generic narrowing)
    found = _found({"type": "object", "properties": {"a": {"minLength": 2}}},
                   {"type": "object", "properties": {"a": {"type": "string", "minLength": 2}}})
    assert list(found) == [("TYPE_NARROWED", "/a")]
    assert found[("TYPE_NARROWED", "/a")].message == 'type at /a narrowed from any type to ["string"]'
    assert not isinstance(_witness(found[("TYPE_NARROWED", "/a")], "backward")["a"], str)


def test_an_optional_property_that_admits_anything_in_an_open_object_changes_nothing() -> None:
    """ACP 0.4.9 → 0.5.1 dropped `_meta: {description: …}` from open objects: every message reads the same, so
    nothing is reported (it was PROPERTY_REMOVED, undecided, on 31 message kinds); closing the object is still a
    change."""
    # a recursive schema: set containment cannot decide it, so the rule alone must know there is nothing to say
    old = {"type": "object", "properties": {"a": {"type": "array", "items": {"$ref": "#"}},
                                            "_meta": {"description": "anything"}}}
    new = {"type": "object", "properties": {"a": {"type": "array", "items": {"$ref": "#"}}}}
    assert _found(old, new) == {} and _found(new, old) == {}
    closed = {**new, "additionalProperties": False}
    assert ("PROPERTY_REMOVED_FROM_CLOSED_MODEL", "/_meta") in _found(old, closed)
