"""Set reasoning over schemas with jsonschema-rs `canonical`: does one side accept everything the other does?

`old.covers(new)` is YES only when proven; NO and UNKNOWN both mean "not proven". We keep them apart: NO is
reported as breaking, UNKNOWN as unknown — never as safe. Recursive `$ref`s, changed regexes and some closed
models come back UNKNOWN; the structural rules and witness search then carry the explanation.
"""

from __future__ import annotations

from typing import Any

import jsonschema_rs

from wirecheck.contracts.views import SCHEMA_MAPS
from wirecheck.diff.model import BACKWARD, BREAKING, FORWARD, SAFE, STRICT, TOLERANT, UNKNOWN
from wirecheck.diff.rules import declare
from wirecheck.diff.side import Side, child, join

declare("SCHEMA_NARROWED", "SCHEMA_WIDENED", "SCHEMA_CHANGE_UNDECIDED", module=__name__)

_CONTAINMENT = {"yes": SAFE, "no": BREAKING, "unknown": UNKNOWN}


# `covers` is asked only about schemas small enough for it to decide. Measured on the bundled contracts: every
# decisive answer came from schemas written in under 4 KB (refs followed) whose canonical forms were under 4 KB
# too; above that every answer was UNKNOWN and cost 5-100 ms, half the whole diff time before this budget.
# Beyond it the answer is UNKNOWN, never safe; the part-by-part prover and the witnesses still decide.
COVERS_BUDGET_BYTES = 4096
# Schemas written in more than this are not even canonicalised (that alone costs milliseconds for large ones).
SOURCE_BUDGET_BYTES = 4 * COVERS_BUDGET_BYTES


def covers(wide: Any, narrow: Any) -> str:
    """SAFE when `wide` provably admits every value `narrow` does, BREAKING when provably not, else UNKNOWN."""
    try:
        return _CONTAINMENT[wide.covers(narrow).value]
    except jsonschema_rs.canonical.CanonicalizationError:
        return UNKNOWN


def contained(narrow: Side, narrow_location: str, wide: Side, wide_location: str, wide_view: str) -> str:
    """Does `wide` (read in `wide_view`) accept everything `narrow` writes (its strict view)?

    SAFE when proven part by part (prove.py) or by canonical `covers`, BREAKING when `covers` proves not, else
    UNKNOWN (including schemas over the budgets below, and schemas canonical forms cannot express).
    """
    from wirecheck.diff.prove import prove_subset

    if prove_subset(narrow, narrow_location, STRICT, wide, wide_location, wide_view):
        return SAFE
    if max(wide.source_size(wide_location), narrow.source_size(narrow_location)) > SOURCE_BUDGET_BYTES:
        return UNKNOWN
    try:
        if max(wide.canonical_size(wide_location, wide_view),
               narrow.canonical_size(narrow_location, STRICT)) > COVERS_BUDGET_BYTES:
            return UNKNOWN
        return covers(wide.canonical(wide_location, wide_view), narrow.canonical(narrow_location, STRICT))
    except (jsonschema_rs.canonical.CanonicalizationError, ValueError, jsonschema_rs.ValidationError):
        return UNKNOWN


def compare(old: Side, old_location: str, new: Side, new_location: str,
            known: set[tuple[str, str]] | frozenset[tuple[str, str]] = frozenset()) -> dict[tuple[str, str], str]:
    """(direction, consumer model) → breaking | safe | unknown for one kind surface.

    Producers write what their contract declares (the authored, strict view); consumers read with the strict or
    the tolerant view. So FORWARD for consumer model V asks `new_strict ⊆ old_V`, BACKWARD asks `old_strict ⊆ new_V`.
    (Comparing tolerant with tolerant would call every optional field added to a closed type a backward break,
    because a tolerant reading of the old type admits that field with any value, which no old producer wrote.)
    `known`: (direction, view) pairs a verified witness already shows breaking; they are not recomputed.
    """
    verdicts: dict[tuple[str, str], str] = {}
    for direction, reader, reader_location, writer, writer_location in (
        (FORWARD, old, old_location, new, new_location),
        (BACKWARD, new, new_location, old, old_location),
    ):
        if (direction, TOLERANT) in known:  # a tolerant reader's refusal is a strict reader's refusal too
            verdicts[(direction, TOLERANT)] = verdicts[(direction, STRICT)] = BREAKING
            continue
        strict = BREAKING if (direction, STRICT) in known else contained(
            writer, writer_location, reader, reader_location, STRICT)
        verdicts[(direction, STRICT)] = strict
        if strict == SAFE:  # the tolerant view of the reader admits a superset of its strict view
            verdicts[(direction, TOLERANT)] = SAFE
            continue
        tolerant = contained(writer, writer_location, reader, reader_location, TOLERANT)
        verdicts[(direction, TOLERANT)] = tolerant
        if tolerant == BREAKING:  # ... so what the tolerant reader refuses, the strict one refuses too
            verdicts[(direction, STRICT)] = BREAKING
    return verdicts


def difference(producer: Side, producer_location: str, consumer: Side, consumer_location: str,
               view: str) -> Any | None:
    """What `producer` may write (strict view) and `consumer` rejects (in `view`), as a JSON Schema, or None."""
    try:
        written = producer.canonical(producer_location, STRICT)
        rest = written.subtract(consumer.canonical(consumer_location, view))
        if rest.satisfiability().value == "no":
            return None
        return rest.to_json_schema()
    except (jsonschema_rs.canonical.CanonicalizationError, ValueError):
        return None


_ANNOTATIONS = {"$id", "$schema", "$comment", "title", "description", "examples", "x-provenance", "$defs",
                "definitions", "deprecated", "default", "readOnly", "writeOnly"}
# SCHEMA_MAPS (contracts.views): keywords whose value maps a name to a subschema (names are data: compared exactly)
# keywords whose value is a subschema, or a list of subschemas
_SCHEMA_VALUES = {"items", "additionalProperties", "unevaluatedProperties", "unevaluatedItems", "not", "if", "then",
                  "else", "contains", "propertyNames", "additionalItems"}
_SCHEMA_LISTS = {"allOf", "anyOf", "oneOf", "prefixItems"}


def required_alternatives(node: dict[str, Any]) -> list[set[str]]:
    """`anyOf: [{required: [a]}, {required: [b]}]` (at least one of these present) as [{a}, {b}]; else []. Beside
    an object's own properties such a union only refines the object (Qoder's type/subtype alternatives): the
    prover matches it as a constraint, and probe payloads are that object with one set required."""
    members = node.get("anyOf")
    if not isinstance(members, list) or not members:
        return []
    if not all(isinstance(m, dict) and set(m) - _ANNOTATIONS == {"required"} for m in members):
        return []
    return [set(m["required"]) for m in members]


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
    keys = {k for k in node if k not in _ANNOTATIONS and not k.startswith("x-")}
    if not keys <= {"$ref", "allOf"}:
        return False
    if "$ref" in node and not (isinstance(node["$ref"], str)
                               and constrains_nothing(side, join(location, node["$ref"]), depth + 1)):
        return False
    parts = node.get("allOf", [])
    return isinstance(parts, list) and all(
        constrains_nothing(side, child(location, "allOf", i), depth + 1) for i in range(len(parts)))


def shape_key(side: Side, location: str, depth: int = 0) -> Any:
    """What two schemas `same_shape` calls alike must share (their keywords, property names and types; a bare
    `$ref`'s target's), cheap to compare: a union's branches are compared only when their keys agree."""
    try:
        node = side.node(location)
    except KeyError:
        return None
    if not isinstance(node, dict):
        return ("boolean", node)
    keys = frozenset(set(node) - _ANNOTATIONS - {"$ref"})
    if "$ref" in node and not keys and isinstance(node["$ref"], str) and depth < 8:
        return ("$ref", shape_key(side, join(location, node["$ref"]), depth + 1))
    names = node.get("properties")
    kind = node.get("type")
    return ("$ref" in node, keys, frozenset(names) if isinstance(names, dict) else None,
            kind if isinstance(kind, str) else tuple(kind) if isinstance(kind, list) and all(
                isinstance(t, str) for t in kind) else None)


def same_shape(old: Side, old_location: str, new: Side, new_location: str) -> bool:
    """Whether two schemas are written the same, following `$ref`s pairwise (annotations ignored).

    Set containment over recursive schemas is often UNKNOWN even when nothing changed; a schema copied from
    one release to the next unchanged is equivalent by construction, and needs no canonical form to say so.
    Only annotation keywords of schema objects are ignored; names (properties) and values (const, enum) are data.
    """
    seen: set[tuple[str, str]] = set()

    def schema_equal(a: Any, b: Any, a_loc: str, b_loc: str) -> bool:
        if not (isinstance(a, dict) and isinstance(b, dict)):
            return type(a) is type(b) and a == b  # boolean schemas
        if "$ref" in a or "$ref" in b:
            if "$ref" not in a or "$ref" not in b:
                return False
            ta, tb = join(a_loc, a["$ref"]), join(b_loc, b["$ref"])
            if (ta, tb) not in seen:
                seen.add((ta, tb))
                if not (old.has(ta) and new.has(tb)) or not schema_equal(old.node(ta), new.node(tb), ta, tb):
                    return False
        keys = set(a) - _ANNOTATIONS - {"$ref"}
        if keys != set(b) - _ANNOTATIONS - {"$ref"}:
            return False
        for key in keys:
            x, y = a[key], b[key]
            if key in SCHEMA_MAPS:
                if not (isinstance(x, dict) and isinstance(y, dict)) or set(x) != set(y):
                    return False
                if not all(schema_equal(x[n], y[n], child(a_loc, key, n), child(b_loc, key, n)) for n in x):
                    return False
            elif key in _SCHEMA_VALUES:
                if not schema_equal(x, y, child(a_loc, key), child(b_loc, key)):
                    return False
            elif key in _SCHEMA_LISTS:
                if not (isinstance(x, list) and isinstance(y, list)) or len(x) != len(y):
                    return False
                if not all(schema_equal(p, q, child(a_loc, key, i), child(b_loc, key, i))
                           for i, (p, q) in enumerate(zip(x, y, strict=True))):
                    return False
            elif not _json_equal(x, y):
                return False
        return True

    try:
        return schema_equal(old.node(old_location), new.node(new_location), old_location, new_location)
    except (KeyError, RecursionError):
        return False


def _json_equal(a: Any, b: Any) -> bool:
    """JSON equality: `1` and `1.0` are the same number, `true` and `1` are not."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    return type(a) is type(b) and a == b
