"""The keywords the diff reasons about, and JSON equality as JSON Schema defines it.

Shared by the modules that read schemas (flat, shape, prove, semantic, instances) so each needs only this one,
not one another.
"""

from __future__ import annotations

from typing import Any

ANNOTATIONS = {"$id", "$schema", "$comment", "title", "description", "examples", "x-provenance", "$defs",
                "definitions", "deprecated", "default", "readOnly", "writeOnly"}


def required_alternatives(node: dict[str, Any]) -> list[set[str]]:
    """`anyOf: [{required: [a]}, {required: [b]}]` (at least one of these present) as [{a}, {b}]; else []. Beside
    an object's own properties such a union only refines the object (Qoder's type/subtype alternatives): the
    prover matches it as a constraint, and probe payloads are that object with one set required."""
    members = node.get("anyOf")
    if not isinstance(members, list) or not members:
        return []
    if not all(isinstance(m, dict) and set(m) - ANNOTATIONS == {"required"} for m in members):
        return []
    return [set(m["required"]) for m in members]


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality: `1` and `1.0` are the same number, `true` and `1` are not."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    return type(a) is type(b) and a == b
