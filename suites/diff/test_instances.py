"""Probe payloads built by construction (diff/instances.py): valid where the schema allows it, planted where asked."""

from __future__ import annotations

from wirecheck.diff.instances import example
from wirecheck.diff.model import ABSENT
from wirecheck.diff.side import Side

D = "https://json-schema.org/draft/2020-12/schema"
URI = "https://contracts.wirecheck.invalid/pkg/1.0.0/wire.json"


def member(name: str, extra: dict | None = None) -> dict:
    return {"type": "object", "additionalProperties": False, "required": ["kind"],
            "properties": {"kind": {"const": name}, **(extra or {})}}


UNION = {"$schema": D, "$id": URI, "$defs": {
    "Req": {"oneOf": [member("a"), member("b", {"x": {"type": "string"}}),
                      {"$ref": "#/$defs/C"}, {"type": "object", "properties": {"kind": {"const": "open"}}}]},
    "C": {**member("c", {"y": {"type": "integer"}}), "anyOf": [{"required": ["kind"]}, {"required": ["y"]}]},
}}


def side() -> Side:
    return Side("new", {URI: UNION})


def test_a_planted_property_picks_the_member_that_declares_it() -> None:
    s, at = side(), URI + "#/$defs/Req"
    assert example(s, at, {("x",): "hello"}) == {"kind": "b", "x": "hello"}
    assert example(s, at, {("y",): 3}) == {"kind": "c", "y": 3}  # through a $ref, beside a refining anyOf
    for payload in (example(s, at, {("x",): "hello"}), example(s, at, {("y",): 3})):
        assert s.accepts(at, "strict", payload)


def test_a_property_no_closed_member_declares_falls_to_the_open_one_then_to_the_first() -> None:
    s, at = side(), URI + "#/$defs/Req"
    assert example(s, at, {("z",): 1}) == {"z": 1}  # the open member requires nothing
    assert s.accepts(at, "strict", {"z": 1})
    closed_only = {**UNION, "$defs": {**UNION["$defs"], "Req": {"oneOf": UNION["$defs"]["Req"]["oneOf"][:3]}}}
    s = Side("new", {URI: closed_only})
    payload = example(s, at, {("z",): 1})
    assert payload == {"kind": "a", "z": 1} and not s.accepts(at, "strict", payload)  # the first, as built


def test_a_removed_property_is_not_planted() -> None:
    s, at = side(), URI + "#/$defs/Req"
    assert example(s, at, {("x",): ABSENT}) == {"kind": "a"}
