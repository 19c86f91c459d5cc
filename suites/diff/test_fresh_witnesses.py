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
