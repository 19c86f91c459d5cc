"""`inline_refs`: the self-contained schema `wirecheck show` prints must mean what the release's schema means."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from wirecheck.contracts import load_registry
from wirecheck.contracts.inline import inline_refs
from wirecheck.contracts.views import subschemas

A = "https://example.test/a.json"
B = "https://example.test/b.json"
RESOURCES = {
    A: {
        "$schema": "https://json-schema.org/draft/2020-12/schema", "$id": A,
        "$defs": {
            "Message": {
                "type": "object",
                "required": ["id", "meta"],
                "properties": {
                    "id": {"$ref": "b.json#/$defs/Id", "description": "the message id"},  # annotation beside a ref
                    "meta": {"$ref": "b.json#/$defs/Meta", "properties": {"extra": {"type": "boolean"}},
                             "additionalProperties": False},  # assertions beside a ref: adjacency must not change
                    "tree": {"$ref": "#/$defs/Tree"},
                    "spaced": {"$ref": "#/$defs/with%20space"},
                    "anchored": {"$ref": "#thing"},
                },
                "additionalProperties": False,
            },
            "Tree": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}},
                                                       "value": {"type": "integer"}}},
            "with space": {"enum": ["a", "b"]},
            "Anchored": {"$anchor": "thing", "type": "string"},
            "Self": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Self"}, "n": {"type": "number"}}},
        },
    },
    B: {
        "$schema": "https://json-schema.org/draft/2020-12/schema", "$id": B,
        "$defs": {"Id": {"type": "string", "minLength": 1},
                  "Meta": {"type": "object", "properties": {"size": {"$ref": "#/$defs/Size"}}},
                  "Size": {"type": "integer", "minimum": 0}},
    },
}

INSTANCES = [
    {"id": "x", "meta": {}},
    {"id": "", "meta": {}},
    {"id": "x"},
    {"id": "x", "meta": {"size": 3, "extra": True}},
    {"id": "x", "meta": {"size": -1}},
    {"id": "x", "meta": {"size": 1, "other": 1}},  # refused only by the sibling additionalProperties
    {"id": "x", "meta": {}, "tree": {"value": 1, "children": [{"value": 2, "children": [{"value": "deep"}]}]}},
    {"id": "x", "meta": {}, "tree": {"value": 1, "children": [{"value": 2, "children": [{"value": 3}]}]}},
    {"id": "x", "meta": {}, "spaced": "a"},
    {"id": "x", "meta": {}, "spaced": "c"},
    {"id": "x", "meta": {}, "anchored": "s"},
    {"id": "x", "meta": {}, "anchored": 1},
    {"id": "x", "meta": {}, "unknown": 1},
]


def _original(uri: str) -> Draft202012Validator:
    registry = Registry().with_resources((k, Resource(v, specification=DRAFT202012)) for k, v in RESOURCES.items())
    return Draft202012Validator({"$ref": uri}, registry=registry)


def test_the_inlined_schema_accepts_exactly_what_the_release_accepts() -> None:
    uri = f"{A}#/$defs/Message"
    inlined = inline_refs(RESOURCES, uri)
    original, alone = _original(uri), Draft202012Validator(inlined)  # alone: no registry, nothing to reach
    verdicts = [(original.is_valid(i), alone.is_valid(i)) for i in INSTANCES]
    assert all(a == b for a, b in verdicts), verdicts
    assert sorted({a for a, _ in verdicts}) == [False, True]


def test_refs_are_inlined_and_only_recursion_and_anchors_remain() -> None:
    inlined = inline_refs(RESOURCES, f"{A}#/$defs/Message")
    props = inlined["properties"]
    assert props["id"] == {"type": "string", "minLength": 1, "description": "the message id"}  # merged annotation
    assert props["meta"]["allOf"] == [{"type": "object", "properties": {"size": {"type": "integer", "minimum": 0}}}]
    assert props["meta"]["additionalProperties"] is False and "size" not in props["meta"]["properties"]
    assert props["spaced"] == {"enum": ["a", "b"]}  # a percent-encoded pointer
    assert props["anchored"] == {"$anchor": "thing", "type": "string"}  # a plain-name fragment: the $anchor
    # the recursive type is written once, in the result's own $defs, and referred to there
    assert props["tree"]["properties"]["children"]["items"] == {"$ref": "#/$defs/Tree"}
    assert inlined["$defs"]["Tree"]["properties"]["children"]["items"] == {"$ref": "#/$defs/Tree"}
    refs = [node["$ref"] for node, _ in subschemas(inlined) if "$ref" in node]
    assert sorted(set(refs)) == ["#/$defs/Tree"]


def test_a_schema_that_refers_to_itself_points_at_the_root() -> None:
    uri = f"{A}#/$defs/Self"
    inlined = inline_refs(RESOURCES, uri)
    assert inlined == {"type": "object", "properties": {"next": {"$ref": "#"}, "n": {"type": "number"}}}
    for instance in ({"next": {"next": {"n": 1}}}, {"next": {"next": {"n": "x"}}}):
        assert Draft202012Validator(inlined).is_valid(instance) == _original(uri).is_valid(instance)


def test_an_unknown_location_is_a_key_error_and_a_ref_leading_nowhere_stays() -> None:
    with pytest.raises(KeyError):
        inline_refs(RESOURCES, f"{A}#/$defs/Nope")
    resources = {A: {"$id": A, "$defs": {"M": {"properties": {"x": {"$ref": "other.json#/X"}}}}}}
    assert inline_refs(resources, f"{A}#/$defs/M") == {"properties": {"x": {"$ref": "https://example.test/other.json#/X"}}}


def test_a_chain_of_thousands_of_refs_is_inlined_to_a_depth_and_then_referenced() -> None:
    """3,000 $refs one after another ran Python out of recursion (`show` exited 3)."""
    from wirecheck.contracts.inline import MAX_INLINED

    defs = {f"S{i}": {"$ref": f"#/$defs/S{i + 1}"} for i in range(3000)} | {"S3000": {"type": "string"}}
    inlined = inline_refs({A: {"$id": A, "$defs": defs}}, f"{A}#/$defs/S0")
    assert inlined == {"$ref": f"{A}#/$defs/S{MAX_INLINED + 1}"}  # S0 is shown; then MAX_INLINED $refs inlined


def test_every_bundled_kind_is_shown_self_contained() -> None:
    """No bundled schema keeps a `$ref` into its files once inlined, and each is a valid 2020-12 schema."""
    registry = load_registry()
    releases, failed = registry.load_all()
    assert not failed
    shown = 0
    for release in releases:
        for kind in release.kinds:
            for link in (kind.schema, kind.headers, kind.reply.schema if kind.reply else None):
                if link is None:
                    continue
                inlined = inline_refs(release.resources, link.uri)
                Draft202012Validator.check_schema(inlined)
                outside = [n["$ref"] for n, _ in subschemas(inlined) if not str(n.get("$ref", "#")).startswith("#")]
                assert not outside, (release.name, kind.id, outside)
                json.dumps(inlined)
                shown += 1
    assert shown > 300
