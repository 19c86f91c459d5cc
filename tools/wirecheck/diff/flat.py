"""A schema node made walkable: `$ref`s followed and `allOf` merged, every subschema keeping its location.

The structural rules compare two `Flat` nodes; the semantic layer (canonical covers) has the last word on
whether a difference matters, so this only needs to be a faithful *explanation* of common shapes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from wirecheck.contracts.stamps import STAMP_VALUE
from wirecheck.diff.shape import unwrapped
from wirecheck.diff.side import Side, child, join
from wirecheck.diff.vocabulary import assertions, required_alternatives
from wirecheck.json_types import json_bytes, json_type
from wirecheck.pointer import parse_pointer


@dataclass
class Flat:
    location: str  # where the node (or the first of its merged parts) is written
    origin: str = ""  # the location it was flattened from (a bare $ref: where the $ref is written)
    keywords: dict[str, Any] = field(default_factory=dict)  # scalar keywords, merged
    types: tuple[str, ...] | None = None  # None: unconstrained
    # the types are implied, not written: `properties`, `required` or a closed model only speak of objects, an
    # `enum` of its values' types, `items` of arrays — the node still accepts other types
    implied: bool = False
    properties: dict[str, str] = field(default_factory=dict)  # name → location
    patterns: dict[str, str] = field(default_factory=dict)  # patternProperties: regular expression → location
    required: set[str] = field(default_factory=set)
    closed: bool = False  # additionalProperties:false or unevaluatedProperties:false
    additional: str | None = None  # location of a non-boolean additionalProperties schema
    items: str | None = None  # the schema of items past `prefixItems` (`items`, else `unevaluatedItems`)
    prefix_items: list[str] = field(default_factory=list)
    items_closed: bool = False  # no items past `prefixItems` (`items: false` or `unevaluatedItems: false`)
    contains: str | None = None  # location of `contains`
    names: str | None = None  # location of `propertyNames`
    union: str | None = None  # "oneOf" | "anyOf"
    branches: list[str] = field(default_factory=list)
    enum: list[Any] | None = None  # enum or [const]
    is_const: bool = False
    refs: tuple[str, ...] = ()  # the $ref chain followed, for cycle detection
    stamp: list[Any] | None = None  # [value] of a version stamp (contracts/stamps.py), compared by its type
    false: bool = False
    # a union member merged with its object (`within`): name → the object's own declaration of a property the
    # member declares again (both apply: `attachments: {minItems: 1}` in a member, `{type: array}` beside it)
    also: dict[str, str] = field(default_factory=dict)


def flatten(side: Side, location: str) -> Flat:
    """The walkable form of the node at `location` (memoised per side; treat the result as read-only)."""
    found = side.flats.get(location)
    if found is None:
        found = side.flats[location] = flatten_uncached(side, location)
    return found


def flatten_uncached(side: Side, location: str, depth: int = 0) -> Flat:
    node = side.node(location)
    flat = Flat(location, origin=location)
    _merge(side, flat, node, location, depth)
    if flat.types is None and flat.enum is not None:
        flat.types = tuple(sorted({_type_of(v) for v in flat.enum}))
    if flat.types is None and (flat.properties or flat.required or flat.closed):
        flat.types, flat.implied = ("object",), True
    if flat.types is None and (flat.items or flat.prefix_items):
        flat.types, flat.implied = ("array",), True
    return flat


def written_types(flat: Flat) -> tuple[str, ...] | None:
    """The types a node's `type` (or `enum`) admits; None where it admits every type (`{properties: …}` alone
    accepts strings too)."""
    return None if flat.implied else flat.types


def takes_objects(flat: Flat) -> bool:
    """Whether a node may accept an object: no written type, or one that includes `object`."""
    return written_types(flat) is None or "object" in (flat.types or ())


def _type_of(value: Any) -> str:
    """The narrowest JSON Schema type accepting an enum value (2.0 is an integer to a validator)."""
    kind = json_type(value)
    return "integer" if kind == "number" and float(value).is_integer() else kind


def _merge(side: Side, flat: Flat, node: Any, location: str, depth: int) -> None:
    if depth > 32:
        return
    if node is False:
        flat.false = True
        return
    if not isinstance(node, dict):
        return
    if "$ref" in node:
        target = join(location, node["$ref"])
        if target not in flat.refs and side.has(target):
            flat.refs = (*flat.refs, target)
            if flat.location == location and assertions(node) == {"$ref"}:
                flat.location = target  # a bare $ref is its target: compare (and de-duplicate) it there
            _merge(side, flat, side.node(target), target, depth + 1)
    for index, part in enumerate(node.get("allOf", [])):
        _merge(side, flat, part, child(location, "allOf", index), depth + 1)
    if "type" in node:
        types = tuple(node["type"]) if isinstance(node["type"], list) else (node["type"],)
        flat.types = types if flat.types is None else tuple(t for t in flat.types if t in types)
    if STAMP_VALUE in node:
        flat.stamp = [node[STAMP_VALUE]]
    if "const" in node:
        flat.enum, flat.is_const = [node["const"]], True
    elif "enum" in node:
        flat.enum = list(node["enum"]) if flat.enum is None else [v for v in flat.enum if v in node["enum"]]
    for name in node.get("properties", {}):
        # merged parts ($ref, allOf) come first, so the node's own, more specific, declaration wins
        flat.properties[name] = child(location, "properties", name)
    for pattern in node.get("patternProperties", {}):
        flat.patterns[pattern] = child(location, "patternProperties", pattern)
    flat.required |= set(node.get("required", []))
    if node.get("additionalProperties") is False or node.get("unevaluatedProperties") is False:
        flat.closed = True
    elif isinstance(node.get("additionalProperties"), dict):
        flat.additional = child(location, "additionalProperties")
    if "items" in node and node["items"] is not False:
        flat.items = child(location, "items")
    elif isinstance(node.get("unevaluatedItems"), dict) and flat.items is None and "items" not in node:
        flat.items = child(location, "unevaluatedItems")  # (prefixItems and `contains` aside, it reads the rest)
    if node.get("items") is False or node.get("unevaluatedItems") is False:
        flat.items_closed = True
    if isinstance(node.get("unevaluatedProperties"), dict) and flat.additional is None and (
            "additionalProperties" not in node):
        flat.additional = child(location, "unevaluatedProperties")  # the names no other keyword read
    if "contains" in node:
        flat.contains = child(location, "contains")
    if "propertyNames" in node:
        flat.names = child(location, "propertyNames")
    if "prefixItems" in node:
        flat.prefix_items = [child(location, "prefixItems", i) for i in range(len(node["prefixItems"]))]
    for word in ("oneOf", "anyOf"):
        if word in node:
            branches = node[word]
            simple = [only_types(side, b, child(location, word, i)) for i, b in enumerate(branches)]
            types = tuple(t for found in simple if found is not None for t in found)
            disjoint = len(set(types)) == len(types) and not {"integer", "number"} <= set(types)
            values = [_only_values(side, b, child(location, word, i)) for i, b in enumerate(branches)]
            if simple and all(found is not None for found in simple) and (word == "anyOf" or disjoint):
                # `anyOf: [{type: a}, {$ref: B}]`, B a type alone, is `type: [a, b]`: an equivalent refactor, not a
                # union (a oneOf too, when no value has two of its types: integer is a number)
                flat.types = types if flat.types is None else tuple(t for t in flat.types if t in types)
            elif len(values) > 1 and all(found is not None for found in values) and (
                    word == "anyOf" or _distinct([v for found in values if found for v in found])):
                # `oneOf: [{const: a}, {const: b}]` is `enum: [a, b]` (ACP's Role became one in 0.28.0)
                listed = [v for found in values if found for v in found]
                flat.enum = listed if flat.enum is None else [v for v in flat.enum if v in listed]
            elif flat.union is None:
                flat.union = word
                flat.branches = [child(location, word, i) for i in range(len(branches))]
    for word in (
        "minLength", "maxLength", "pattern", "format", "minimum", "maximum", "exclusiveMinimum",
        "exclusiveMaximum", "multipleOf", "minItems", "maxItems", "uniqueItems", "minProperties",
        "maxProperties", "contentEncoding", "contentMediaType", "dependentRequired", "minContains", "maxContains",
    ):
        if word in node:
            flat.keywords[word] = node[word]


def within(parent: Flat, member: Flat) -> Flat:
    """A union's member as it applies: merged with the object its union stands beside (its properties, required
    names and bounds; the member's own declarations win), located where the member is written."""
    types: tuple[str, ...] | None
    if parent.implied and member.types is not None:  # `properties` beside a union say nothing of a null member
        types, implied = member.types, member.implied
    else:
        types = member.types if parent.types is None else parent.types if member.types is None else tuple(
            t for t in parent.types if t in member.types)
        implied = (member.implied if parent.types is None else parent.implied if member.types is None
                   else member.implied and parent.implied)
    return Flat(
        location=member.location, origin=member.origin, keywords={**parent.keywords, **member.keywords},
        types=types, properties={**parent.properties, **member.properties},
        required=parent.required | member.required, closed=parent.closed or member.closed,
        additional=member.additional or parent.additional, items=member.items or parent.items,
        prefix_items=member.prefix_items or parent.prefix_items, union=member.union, branches=member.branches,
        items_closed=member.items_closed or parent.items_closed, contains=member.contains or parent.contains,
        names=member.names or parent.names,
        enum=member.enum if member.enum is not None else parent.enum, is_const=member.is_const or parent.is_const,
        refs=member.refs, false=member.false or parent.false, implied=implied,
        also={name: at for name, at in parent.properties.items()
              if name in member.properties and member.properties[name] != at},
    )


def beside(flat: Flat) -> bool:
    """Whether a union stands beside the object's own properties (and so only refines that object)."""
    return bool(flat.union and (flat.properties or flat.required or flat.closed))


def member_of(side: Side, union: Flat, branch: str) -> Flat:
    """A member of `union` (written at `branch`) as it applies: merged with the object beside the union, if any."""
    member = flatten(side, branch)
    return within(union, member) if beside(union) else member


def refining_alternatives(side: Side, flat: Flat, words: tuple[str, ...] = ("anyOf", "oneOf")) -> list[set[str]]:
    """The property sets the node's own union of `required` lists asks for (`anyOf`: one or more of them;
    `oneOf`: exactly one), where it stands beside the object's properties and only refines that object
    (`vocabulary.required_alternatives`); [] for none, or for a union of alternative shapes."""
    if flat.union not in words or not (flat.properties or flat.required or flat.closed):
        return []
    node = side.node(flat.location)
    sets = required_alternatives(node, flat.union) if isinstance(node, dict) else []
    if not sets or flat.branches != [child(flat.location, flat.union, i) for i in range(len(sets))]:
        return []  # the union is not this node's own (it came with a $ref or allOf part)
    return sets


def _only_values(side: Side, node: Any, location: str) -> list[Any] | None:
    """The values a schema allows when a constant or an enum is all it says (a `type` beside it only keeps the
    values of that type; wrappers followed as in `only_types`), else None."""
    node, location = unwrapped(side, node, location, limit=8)
    if not isinstance(node, dict):
        return None
    said = assertions(node) - {"type"}
    if said == {"const"}:
        values = [node["const"]]
    elif said == {"enum"} and isinstance(node["enum"], list):
        values = list(node["enum"])
    else:
        return None
    kinds = node.get("type")
    if kinds is None:
        return values
    allowed = {kinds} if isinstance(kinds, str) else set(kinds) if isinstance(kinds, list) else set()
    allowed |= {"integer"} if "number" in allowed else set()
    return [v for v in values if _type_of(v) in allowed or (_type_of(v) == "integer" and "number" in allowed)]


def _distinct(values: list[Any]) -> bool:
    """No two of `values` are equal as JSON (1 and 1.0 are; true and 1 are not)."""
    keys = [("number", float(v)) if json_type(v) in ("number", "integer") else
            (json_type(v), json_bytes(v, sort_keys=True)) for v in values]
    return len(set(keys)) == len(keys)


def only_types(side: Side, node: Any, location: str, depth: int = 0) -> tuple[str, ...] | None:
    """The types a schema allows when a type is all it says (`{type: string}`, annotations aside, or a `$ref` or a
    one-part `allOf` to such a schema), else None."""
    if not isinstance(node, dict) or depth > 8:
        return None
    said = assertions(node)
    if said == {"type"}:
        kinds = node["type"]
        if isinstance(kinds, str):
            return (kinds,)
        return tuple(kinds) if isinstance(kinds, list) and all(isinstance(k, str) for k in kinds) else None
    if said == {"$ref"} and isinstance(node["$ref"], str):
        target = join(location, node["$ref"])
        return only_types(side, side.node(target), target, depth + 1) if side.has(target) else None
    if said == {"allOf"} and isinstance(node["allOf"], list) and len(node["allOf"]) == 1:
        return only_types(side, node["allOf"][0], child(location, "allOf", 0), depth + 1)
    return None


def location_pointer(location: str) -> tuple[str, ...]:
    return parse_pointer(location.partition("#")[2])


def short_location(location: str | None) -> str | None:
    """`https://contracts.wirecheck.invalid/xopc/0.0.253/events.json#/$defs/X` → `events.json#/$defs/X`."""
    if location is None:
        return None
    base, _, fragment = location.partition("#")
    return f"{base.rsplit('/', 1)[-1]}#{fragment}"
