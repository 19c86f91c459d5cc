"""contracts/reference.py ReferenceValidators: python-jsonschema validators over one set of resources sharing one
registry and the `$ref`s they have resolved. They must answer exactly as a fresh `reference_validator` does (the
diff's second judge is python-jsonschema, unchanged), remembered resolutions included; where a resolution reads the
dynamic scope (`$dynamicRef`), a remembered one would answer wrongly, so none is remembered there."""

from __future__ import annotations

from typing import Any

import pytest
import referencing._core

from wirecheck.contracts import load_registry
from wirecheck.contracts.reference import ReferenceValidators, reference_validator
from wirecheck.diff.instances import NoExample, example
from wirecheck.diff.side import Side

META = "https://json-schema.org/draft/2020-12/schema"


def _said(validator: Any, payload: Any) -> tuple[bool, list[tuple[Any, ...]]]:
    """Everything the validator says about `payload`: its verdict and each error's paths and message."""
    errors = sorted((tuple(map(str, e.absolute_path)), tuple(map(str, e.absolute_schema_path)), e.message)
                    for e in validator.iter_errors(payload))
    return validator.is_valid(payload), errors


def _payloads(side: Side, location: str) -> list[Any]:
    """A built payload of `location` and some it refuses or accepts otherwise: each member dropped, each member
    made a number, the payload inside a list."""
    try:
        built = example(side, location)
    except NoExample:
        return [None, {}, 0]
    out = [built, [built], None]
    if isinstance(built, dict):
        out += [{k: v for k, v in built.items() if k != name} for name in built]
        out += [{**built, name: 7} for name in built]
        out += [{**built, name: [value]} for name, value in built.items()]
    return out


@pytest.mark.parametrize("release", ["acp@1.9.0", "acp@0.5.1", "xopc@0.0.253"])
def test_shared_validators_say_what_fresh_ones_say_on_real_contracts(release):
    """Every kind of a release, built payloads and broken ones: verdicts, error paths, schema paths and messages
    equal to a fresh validator's, asked twice over (the second time from remembered resolutions)."""
    loaded = load_registry().load(release)
    resources = dict(loaded.resources)
    locations = [kind.schema.uri for kind in loaded.kinds if kind.schema is not None]
    side = Side("release", resources)
    shared = ReferenceValidators(resources)
    assert shared.memo is not None  # no dynamic keyword in these contracts: resolutions are remembered
    asked = 0
    for _ in range(2):
        for location in locations:
            fresh, kept = reference_validator({"$ref": location}, resources), shared.validator({"$ref": location})
            for payload in _payloads(side, location):
                assert _said(kept, payload) == _said(fresh, payload), (location, payload)
                asked += 1
    assert asked > 100 and len(shared.memo) > 10


def test_remembered_resolutions_are_used(monkeypatch):
    """Asked again, a validator resolves no `$ref` through referencing: every one is remembered (the mechanism
    is in place: this test fails if the memo is bypassed)."""
    resources = {"https://x/s.json": {"$id": "https://x/s.json", "$defs": {
        "a": {"type": "object", "properties": {"b": {"$ref": "#/$defs/b"}, "c": {"$ref": "c.json#/$defs/c"}}},
        "b": {"type": "array", "items": {"$ref": "#/$defs/b"}}}},
        "https://x/c.json": {"$id": "https://x/c.json", "$defs": {"c": {"type": "string"}}}}
    shared = ReferenceValidators(resources)
    validator = shared.validator({"$ref": "https://x/s.json#/$defs/a"})
    payload = {"b": [[[]], []], "c": "x"}
    assert validator.is_valid(payload) and not validator.is_valid({"b": [[1]]})
    lookups: list[str] = []
    real = referencing._core.Resolver.lookup

    def counted(self: Any, ref: str) -> Any:
        lookups.append(ref)
        return real(self, ref)

    monkeypatch.setattr(referencing._core.Resolver, "lookup", counted)
    assert validator.is_valid(payload) and not validator.is_valid({"b": [[1]]}) and not validator.is_valid({"c": 1})
    assert shared.validator({"$ref": "https://x/s.json#/$defs/a"}).is_valid(payload)
    assert lookups == []
    assert not reference_validator({"$ref": "https://x/s.json#/$defs/a"}, resources).is_valid({"c": 1})
    assert lookups  # the counter counts


# A list whose items are what the schema extending it says ($dynamicRef): the same `$ref` ("#items" from the list)
# resolves to strings under one root and to numbers under the other.
DYNAMIC = {
    "https://x/list": {"$id": "https://x/list", "type": "array", "items": {"$dynamicRef": "#items"},
                       "$defs": {"items": {"$dynamicAnchor": "items"}}},
    "https://x/strings": {"$id": "https://x/strings", "$ref": "list",
                          "$defs": {"items": {"$dynamicAnchor": "items", "type": "string"}}},
    "https://x/numbers": {"$id": "https://x/numbers", "$ref": "list",
                          "$defs": {"items": {"$dynamicAnchor": "items", "type": "number"}}},
}

# No dynamic keyword of its own, but refers to the meta-schema, which resolves `$dynamicRef: "#meta"` by the scope:
# entered at the applicator vocabulary alone, `{"type": 5}` is a schema; entered at the whole meta-schema, it is not.
INTO_META = {
    "https://x/s.json": {"$id": "https://x/s.json", "$defs": {
        "whole": {"$ref": META},
        "applicator": {"$ref": "https://json-schema.org/draft/2020-12/meta/applicator"}}},
}


@pytest.mark.parametrize("resources, first, then", [
    (DYNAMIC, "https://x/strings", "https://x/numbers"),
    (DYNAMIC, "https://x/numbers", "https://x/strings"),
    (INTO_META, "https://x/s.json#/$defs/whole", "https://x/s.json#/$defs/applicator"),
    (INTO_META, "https://x/s.json#/$defs/applicator", "https://x/s.json#/$defs/whole"),
])
def test_resolutions_that_read_the_dynamic_scope_are_not_remembered(resources, first, then):
    """The same `$ref`, met from the same place, resolves to another schema under another root: a memo keyed by
    where it is met would answer the second root with the first root's schema."""
    payloads = [["a"], [1], [], {"properties": {"x": {"type": 5}}}, {"properties": {"x": {"type": "string"}}}]
    shared = ReferenceValidators(resources)
    for location in (first, then):
        fresh, kept = reference_validator({"$ref": location}, resources), shared.validator({"$ref": location})
        for payload in payloads:
            assert _said(kept, payload) == _said(fresh, payload), (location, payload)
    assert reference_validator({"$ref": "https://x/strings"}, DYNAMIC).is_valid(["a"])
    assert not reference_validator({"$ref": "https://x/numbers"}, DYNAMIC).is_valid(["a"])
    whole, applicator = ({"$ref": f"https://x/s.json#/$defs/{d}"} for d in ("whole", "applicator"))
    assert not reference_validator(whole, INTO_META).is_valid({"properties": {"x": {"type": 5}}})
    assert reference_validator(applicator, INTO_META).is_valid({"properties": {"x": {"type": 5}}})


def test_a_side_whose_resources_cannot_be_written_remembers_nothing():
    deep: Any = {"type": "object"}
    for _ in range(300):  # deeper than orjson writes: not known to be free of dynamic keywords
        deep = {"properties": {"a": deep}}
    assert ReferenceValidators({"https://x/d.json": {"$id": "https://x/d.json", **deep}}).memo is None
    assert ReferenceValidators(DYNAMIC).memo is None and ReferenceValidators(INTO_META).memo == {}


def test_the_validator_made_for_a_subschema_is_remembered_per_schema_and_resolver(monkeypatch):
    """The validators python-jsonschema makes for each subschema (`evolve`) are remembered: asked again, none is
    made. One schema object met under two base URIs (shared by two resources) is two validators: its `$ref`
    means each resource's own definition."""
    from wirecheck.contracts import reference

    common = {"$ref": "#/$defs/T"}
    resources = {"https://x/a.json": {"$id": "https://x/a.json", "$defs": {"T": {"type": "string"}, "U": common}},
                 "https://x/b.json": {"$id": "https://x/b.json", "$defs": {"T": {"type": "integer"}, "U": common}}}
    shared = ReferenceValidators(resources)
    cases = [("https://x/a.json#/$defs/U", "x", True), ("https://x/b.json#/$defs/U", "x", False),
             ("https://x/b.json#/$defs/U", 1, True), ("https://x/a.json#/$defs/U", 1, False)]
    for _ in range(2):
        for location, payload, valid in cases:
            assert shared.validator({"$ref": location}).is_valid(payload) is valid
            assert reference_validator({"$ref": location}, resources).is_valid(payload) is valid
    made: list[Any] = []
    stock = reference._stock_evolve

    def counted(self: Any, **changes: Any) -> Any:
        made.append(changes)
        return stock(self, **changes)

    monkeypatch.setattr(reference, "_stock_evolve", counted)
    validator = shared.validator({"$ref": "https://x/a.json#/$defs/U"})
    assert validator.is_valid("x") and not validator.is_valid(1)
    first = len(made)
    assert validator.is_valid("y") and not validator.is_valid(2) and len(made) == first


def test_a_python_jsonschema_or_referencing_without_the_private_parts_gets_plain_validators(monkeypatch):
    """The memo reads private parts (python-jsonschema's `_resolver` argument, referencing's Resolver `_base_uri`;
    this suite checks 4.23-4.26 and 0.35-0.37). A release that renamed them is not guessed at: the validators are
    made plainly, and say what fresh ones say."""
    import attrs

    from wirecheck.contracts import reference

    assert reference._internals_as_tested()  # the versions installed here have them
    resources = {"https://x/s.json": {"$id": "https://x/s.json", "$defs": {
        "a": {"type": "object", "properties": {"b": {"$ref": "#/$defs/b"}}}, "b": {"type": "string"}}}}
    real_fields = attrs.fields
    for cls, name in ((referencing._core.Resolver, "_base_uri"), (reference.ReferenceValidator, "_resolver")):
        def renamed(of: Any, cls: Any = cls, name: str = name) -> Any:
            found = real_fields(of)
            return [f for f in found if name not in (f.name, f.alias)] if of is cls else found

        monkeypatch.setattr(attrs, "fields", renamed)
        reference._internals_as_tested.cache_clear()
        shared = ReferenceValidators(resources)
        assert shared.memo is None
        validator = shared.validator({"$ref": "https://x/s.json#/$defs/a"})
        assert validator.is_valid({"b": "x"}) and not validator.is_valid({"b": 1})
        monkeypatch.undo()
    reference._internals_as_tested.cache_clear()
    assert ReferenceValidators(resources).memo == {}
