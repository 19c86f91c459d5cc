"""Minimal example instances of a contract's schemas, and a one-field mutation that breaks each (pure).

The fixture writer (`fixtures.py`) uses them so every kind of every release has a valid and an invalid fixture
whose expected findings are known by construction: the valid example carries only required fields, and the
invalid one changes exactly one field to a value of the wrong type, so the expected finding is a
SCHEMA_VIOLATION at that field's pointer. Every example is re-validated before it is written.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any
from urllib.parse import urldefrag, urljoin

from wirecheck.pointer import parse_pointer, resolve

_STRING_FORMATS = {
    "date-time": "2026-01-01T00:00:00Z",
    "uri": "https://example.invalid/",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "email": "someone@example.invalid",
}


class Resolver:
    """`$ref` resolution over a release's resources (`$id` → schema), with the base URI carried along."""

    def __init__(self, resources: Mapping[str, Any]):
        self.resources = resources

    def lookup(self, base: str, ref: str) -> tuple[str, Any]:
        uri, fragment = urldefrag(urljoin(base, ref))
        document = self.resources[uri]
        return uri, resolve(document, parse_pointer(fragment)) if fragment else document


def example(schema: Any, resolver: Resolver, base: str, depth: int = 0) -> Any:
    """The smallest plain instance: required properties only, first alternatives, lower bounds."""
    if depth > 40 or schema is True or not isinstance(schema, dict):
        return None
    if "$ref" in schema:
        uri, target = resolver.lookup(base, schema["$ref"])
        return example(target, resolver, uri, depth + 1)
    if "const" in schema:
        return copy.deepcopy(schema["const"])
    if "enum" in schema:
        return copy.deepcopy(schema["enum"][0])
    branches = schema.get("anyOf")
    if isinstance(branches, list) and branches and all(
            isinstance(b, dict) and set(b) == {"required"} for b in branches):
        # "one of these fields must be there": an object whose first alternative's fields are required
        rest = {k: v for k, v in schema.items() if k != "anyOf"}
        rest["required"] = list(dict.fromkeys([*schema.get("required", []), *branches[0]["required"]]))
        return example(rest, resolver, base, depth + 1)
    if "anyOf" in schema or "oneOf" in schema:
        branches = schema.get("anyOf") or schema.get("oneOf") or []
        ranked = sorted(branches, key=lambda b: 1 if isinstance(b, dict) and b.get("type") == "null" else 0)
        return example(ranked[0], resolver, base, depth + 1)
    if "allOf" in schema:
        merged: Any = None
        for part in schema["allOf"]:
            value = example(part, resolver, base, depth + 1)
            merged = {**merged, **value} if isinstance(merged, dict) and isinstance(value, dict) else value
        own = {k: v for k, v in schema.items() if k != "allOf"}
        if own.get("properties") or own.get("required"):
            value = example(own, resolver, base, depth + 1)
            merged = {**(merged or {}), **(value or {})}
        return merged
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((t for t in kind if t != "null"), kind[0] if kind else None)
    if kind == "object" or (kind is None and ("properties" in schema or "required" in schema)):
        props = schema.get("properties", {})
        return {name: example(props.get(name, {}), resolver, base, depth + 1) for name in schema.get("required", [])}
    if kind == "array":
        count = schema.get("minItems", 0)
        prefix = schema.get("prefixItems", [])
        items = [example(s, resolver, base, depth + 1) for s in prefix]
        while len(items) < count:
            items.append(example(schema.get("items", {}), resolver, base, depth + 1))
        return items
    if kind == "string":
        if schema.get("format") in _STRING_FORMATS:
            return _STRING_FORMATS[schema["format"]]
        if schema.get("pattern") == r"\{target\}":
            return "https://example.invalid/{target}.tgz"
        return "x" * max(1, schema.get("minLength", 1))
    if kind in ("number", "integer"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    return {}


def wrong_value(schema: Any, resolver: Resolver, base: str) -> Any:
    """A value of a type the (dereferenced) schema clearly rejects, or None when no such value is obvious."""
    while isinstance(schema, dict) and "$ref" in schema:
        base, schema = resolver.lookup(base, schema["$ref"])
    if not isinstance(schema, dict):
        return None
    kind = schema.get("type")
    types = set(kind) if isinstance(kind, list) else {kind} if kind else set()
    if "const" in schema:
        types |= {type(schema["const"]).__name__}
    if "anyOf" in schema:
        for branch in schema["anyOf"]:
            while isinstance(branch, dict) and "$ref" in branch:
                _, branch = resolver.lookup(base, branch["$ref"])
            if not isinstance(branch, dict) or ("type" not in branch and "const" not in branch):
                return None  # an unconstrained branch accepts anything
            t = branch.get("type")
            types |= set(t) if isinstance(t, list) else {t} if t else {type(branch.get("const")).__name__}
    if not types or None in types:
        return None
    for candidate, accepted_by in ((12345, {"number", "integer", "int"}), ("not-valid", {"string", "str"}),
                                   ([], {"array", "list"}), (True, {"boolean", "bool"})):
        if not types & accepted_by:
            return candidate
    return None
