"""The keywords the diff reasons about, and JSON equality as JSON Schema defines it.

Shared by the modules that read schemas (flat, shape, prove, semantic, instances) so each needs only this one,
not one another.
"""

from __future__ import annotations

from typing import Any

import orjson

# Keywords no validator asserts: the 2020-12 meta-data and core words that say nothing about an instance, the
# places definitions live, and OpenAPI's `discriminator` (a hint for code generators; validators ignore it, as they
# ignore every `x-...` extension). A change to these never changes what a reader accepts (`is_annotation`).
ANNOTATIONS = frozenset({"$id", "$schema", "$comment", "title", "description", "examples", "$defs", "definitions",
                         "deprecated", "default", "readOnly", "writeOnly", "discriminator"})


def is_annotation(keyword: str) -> bool:
    """Whether `keyword` says nothing about which instances a schema accepts."""
    return keyword in ANNOTATIONS or keyword.startswith("x-")


def assertions(node: dict[str, Any]) -> set[str]:
    """The keywords of a schema object that constrain instances (`$ref` included)."""
    return {k for k in node if not is_annotation(k)}


def tag(name: str, value: Any) -> str:
    """A member's tag as text: `type=acp` (a plain word as it is, any other value as JSON: `n=1`, `k="a b"`)."""
    plain = isinstance(value, str) and value and all(c.isalnum() or c in "-_./:$" for c in value)
    return f"{name}={value}" if plain else f"{name}={orjson.dumps(value).decode()}"


def required_alternatives(node: dict[str, Any], word: str = "anyOf") -> list[set[str]]:
    """`anyOf: [{required: [a]}, {required: [b]}]` (at least one of these present) as [{a}, {b}]; else []. Beside
    an object's own properties such a union only refines the object (Qoder's type/subtype alternatives): the
    prover matches it as a constraint, and probe payloads are that object with one set required. `word`: "oneOf"
    reads `oneOf` (exactly one of these present: SchemaStore's step, `uses` or `run`) the same way."""
    members = node.get(word)
    if not isinstance(members, list) or not members:
        return []
    if not all(isinstance(m, dict) and assertions(m) == {"required"} for m in members):
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
