"""Schemas written alike: `same_shape` (annotations aside, `$ref`s followed pairwise) and its cheap key."""

from __future__ import annotations

from typing import Any

from wirecheck.contracts.views import SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_VALUES
from wirecheck.diff.side import Side, child, join
from wirecheck.diff.vocabulary import assertions, json_equal


def constrains_nothing(side: Side, location: str, depth: int = 0) -> bool:
    """Whether the schema at `location` accepts every JSON value as written: `true`, `{}`, an object of nothing but
    annotations and definitions (`$defs`, `title`, `x-...`), or an `allOf` / `$ref` of such schemas. Structural,
    so it never says "nothing" about a schema that constrains something; a schema that constrains nothing in a
    roundabout way (`not: false`) is compared as usual."""
    try:
        node = side.node(location)
    except KeyError:
        return False
    if node is True:
        return True
    if not isinstance(node, dict) or depth > 32:
        return False
    keys = assertions(node)
    if not keys <= {"$ref", "allOf"}:
        return False
    if "$ref" in node and not (isinstance(node["$ref"], str)
                               and constrains_nothing(side, join(location, node["$ref"]), depth + 1)):
        return False
    parts = node.get("allOf", [])
    return isinstance(parts, list) and all(
        constrains_nothing(side, child(location, "allOf", i), depth + 1) for i in range(len(parts)))


def unwrapped(side: Side, node: Any, location: str, limit: int = 16) -> tuple[Any, str]:
    """A schema that only wraps another — a `$ref` or a one-part `allOf`, annotations aside — is that other schema:
    (its node, its location), following at most `limit` wrappers."""
    for _ in range(limit):
        if not isinstance(node, dict):
            break
        said = assertions(node)
        if said == {"$ref"} and isinstance(node["$ref"], str) and side.has(join(location, node["$ref"])):
            location = join(location, node["$ref"])
            node = side.node(location)
        elif said == {"allOf"} and isinstance(node["allOf"], list) and len(node["allOf"]) == 1:
            location, node = child(location, "allOf", 0), node["allOf"][0]
        else:
            break
    return node, location


def shape_key(side: Side, location: str) -> Any:
    """What two schemas `same_shape` calls alike must share (their keywords, property names and types, wrappers
    unwrapped), cheap to compare: a union's branches are compared only when their keys agree."""
    try:
        node, location = unwrapped(side, side.node(location), location)
    except KeyError:
        return None
    if not isinstance(node, dict):
        return ("boolean", node)
    keys = frozenset(assertions(node) - {"$ref"})
    names = node.get("properties")
    kind = node.get("type")
    return ("$ref" in node, keys, frozenset(names) if isinstance(names, dict) else None,
            kind if isinstance(kind, str) else tuple(kind) if isinstance(kind, list) and all(
                isinstance(t, str) for t in kind) else None)


_OTHER_NAMES = ("additionalProperties", "unevaluatedProperties", "patternProperties")


def _read_properties(side: Side, node: dict[str, Any], location: str) -> Any:
    """A node's `properties` less those that say nothing to a reader: an optional property that admits anything, in
    an object whose other names admit anything too (ACP 0.4.9's `_meta: {description: …}`), reads as if undeclared."""
    declared = node.get("properties")
    if not isinstance(declared, dict) or any(word in node for word in _OTHER_NAMES):
        return declared
    required: list[Any] = node["required"] if isinstance(node.get("required"), list) else []
    return {name: schema for name, schema in declared.items()
            if name in required or not constrains_nothing(side, child(location, "properties", name))}


def same_shape(old: Side, old_location: str, new: Side, new_location: str) -> bool:
    """Whether two schemas are written the same, following `$ref`s (annotations ignored; a schema that only wraps
    another, in a `$ref` or a one-part `allOf`, is that other: inline ↔ `$ref` ↔ `allOf: [{$ref}]`).

    Set containment over recursive schemas is often UNKNOWN even when nothing changed; a schema copied from
    one release to the next unchanged is equivalent by construction, and needs no canonical form to say so.
    Only annotation keywords of schema objects are ignored; names (properties) and values (const, enum) are data.
    """
    seen: set[tuple[str, str]] = set()

    def schema_equal(a: Any, b: Any, a_loc: str, b_loc: str) -> bool:
        a, a_loc = unwrapped(old, a, a_loc)
        b, b_loc = unwrapped(new, b, b_loc)
        if not (isinstance(a, dict) and isinstance(b, dict)):
            return type(a) is type(b) and a == b  # boolean schemas
        if (a_loc, b_loc) in seen:  # being compared further up: equal unless something else differs (coinduction)
            return True
        seen.add((a_loc, b_loc))
        if "$ref" in a or "$ref" in b:
            if "$ref" not in a or "$ref" not in b:
                return False
            ta, tb = join(a_loc, a["$ref"]), join(b_loc, b["$ref"])
            if not (old.has(ta) and new.has(tb)) or not schema_equal(old.node(ta), new.node(tb), ta, tb):
                return False
        read_a, read_b = _read_properties(old, a, a_loc), _read_properties(new, b, b_loc)
        keys = assertions(a) - {"$ref"} - ({"properties"} if read_a == {} else set())
        if keys != assertions(b) - {"$ref"} - ({"properties"} if read_b == {} else set()):
            return False
        for key in keys:
            x, y = (read_a, read_b) if key == "properties" else (a[key], b[key])
            if key in SCHEMA_MAPS:
                if not (isinstance(x, dict) and isinstance(y, dict)) or set(x) != set(y):
                    return False
                if not all(schema_equal(x[n], y[n], child(a_loc, key, n), child(b_loc, key, n)) for n in x):
                    return False
            elif key in SCHEMA_VALUES:
                if not schema_equal(x, y, child(a_loc, key), child(b_loc, key)):
                    return False
            elif key in SCHEMA_LISTS:
                if not (isinstance(x, list) and isinstance(y, list)) or len(x) != len(y):
                    return False
                if not all(schema_equal(p, q, child(a_loc, key, i), child(b_loc, key, i))
                           for i, (p, q) in enumerate(zip(x, y, strict=True))):
                    return False
            elif not json_equal(x, y):
                return False
        return True

    try:
        return schema_equal(old.node(old_location), new.node(new_location), old_location, new_location)
    except (KeyError, RecursionError):
        return False
