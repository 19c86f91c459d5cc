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


def test_a_member_of_a_plain_any_of_vouches_for_its_union(monkeypatch) -> None:
    """A payload built from a member is checked against the member, then the union; for a node that is only an
    `anyOf` (and annotations) the member accepting it is the union accepting it, so the union's validator is not
    compiled. A `oneOf` (another member accepts too) or an assertion beside the `anyOf` can still refuse it: there
    the union is asked, and the next member is built."""
    member_of = {"type": "object", "properties": {"p": {"type": "integer"}}}
    text = {"type": "string", "minLength": 2}
    defs = {"S": {"type": "object", "properties": {"q": {"type": "string"}}},
            "Optional": {"description": "an optional S", "anyOf": [{"$ref": "#/$defs/S"}, {"type": "null"}]},
            "Both": {"oneOf": [{"type": "object"}, {"type": "object", "properties": {"a": {}}}, text]},
            "NotObject": {"anyOf": [member_of, text], "not": {"type": "object"}},
            "NonEmpty": {"anyOf": [member_of, text], "minProperties": 1}}
    s = Side("new", {URI: {"$schema": D, "$id": URI, "$defs": defs}})
    compiled: list[str] = []
    validator = Side.validator

    def counted(self: Side, location: str, view: str = "strict") -> object:
        compiled.append(location.rsplit("#", 1)[1])
        return validator(self, location, view)

    monkeypatch.setattr(Side, "validator", counted)
    assert example(s, URI + "#/$defs/Optional") == {}
    assert compiled == ["/$defs/Optional/anyOf/0"]
    for name in ("Both", "NotObject", "NonEmpty"):  # the first member's payload is refused by the union
        payload = example(s, f"{URI}#/$defs/{name}")
        assert payload == "aa" and s.accepts(f"{URI}#/$defs/{name}", "strict", payload)
