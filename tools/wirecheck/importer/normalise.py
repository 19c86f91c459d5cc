"""Normalise ts-json-schema-generator output (draft-07, `definitions`) into the contract dialect.

Pure: a dict in, a dict out, no I/O. The result is a single 2020-12 resource with every named type under `$defs`,
an `$id`, stable definition names (the generator names anonymous interfaces after a hash of their source position,
`interface-725072808-…`), `const` for every single-valued `enum`, boolean
`deprecated` (the JSDoc reason moves to `x-deprecated`) (so a discriminated union is recognisable by its
`const` fields), tuples as `prefixItems`, and only the types reachable from the given roots. Key order is sorted
when serialised (`dump`), so the same input always gives the same bytes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import unquote

DIALECT = "https://json-schema.org/draft/2020-12/schema"
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_DRAFT07_REF = "#/definitions/"


def _decode_ref(ref: str) -> str | None:
    """The definition name a local `$ref` points at (generator refs are URI-encoded), or None for other refs."""
    prefix = next((p for p in (_DRAFT07_REF, "#/$defs/") if ref.startswith(p)), None)
    if prefix is None or "/" in ref[len(prefix):]:
        return None
    name = ref[len(prefix):]
    return unquote(name).replace("~1", "/").replace("~0", "~")


def _pointer_token(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def _references(schema: Any, path: tuple[str, ...] = ()) -> Iterable[tuple[str, tuple[str, ...]]]:
    """(referenced definition name, where) for every `$ref` in `schema`, in a deterministic order."""
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        if isinstance(ref, str) and (name := _decode_ref(ref)) is not None:
            yield name, path
        for key in sorted(schema):
            yield from _references(schema[key], (*path, key))
    elif isinstance(schema, list):
        for index, item in enumerate(schema):
            yield from _references(item, (*path, str(index)))


def _camel(text: str) -> str:
    parts = re.split(r"[^A-Za-z0-9]+", text)
    return "".join(p[:1].upper() + p[1:] for p in parts if p)


def stable_names(definitions: Mapping[str, Any]) -> dict[str, str]:
    """Old name → stable name. Identifiers keep their name; anything else (hash-named anonymous interfaces,
    generic instantiations such as `Partial<Record<…>>`) is named after the first place that refers to it:
    `<Definition><Property…>`, or a sanitised form of its own name when nothing refers to it."""
    renames: dict[str, str] = {}
    taken = {name for name in definitions if _IDENTIFIER.match(name)}
    for name in sorted(definitions):
        if _IDENTIFIER.match(name):
            continue
        candidate = None
        for owner in sorted(definitions):
            if owner == name or not _IDENTIFIER.match(owner):
                continue
            for target, path in _references(definitions[owner]):
                if target == name:
                    props = [p for i, p in enumerate(path) if i > 0 and path[i - 1] == "properties"]
                    candidate = owner + "".join(_camel(p) for p in props) or owner
                    break
            if candidate:
                break
        base = candidate or _camel(name) or "Anonymous"
        stable, counter = base, 2
        while stable in taken:
            stable, counter = f"{base}{counter}", counter + 1
        taken.add(stable)
        renames[name] = stable
    return renames


def _convert(schema: Any, renames: Mapping[str, str]) -> Any:
    if isinstance(schema, list):
        return [_convert(item, renames) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "$ref" and isinstance(value, str) and value.startswith(_DRAFT07_REF) \
                and (name := _decode_ref(value)) is not None:
            out["$ref"] = "#/$defs/" + _pointer_token(renames.get(name, name))
        elif key == "items" and isinstance(value, list):
            out["prefixItems"] = _convert(value, renames)
        elif key == "additionalItems":
            if isinstance(schema.get("items"), list):  # draft-07 ignores it beside a single `items` schema
                out["items"] = _convert(value, renames)
        elif key == "enum" and isinstance(value, list) and len(value) == 1:
            out["const"] = value[0]
        elif key == "deprecated" and isinstance(value, str):
            out["deprecated"] = True  # JSDoc `@deprecated reason`: 2020-12 wants a boolean; the reason is kept
            out["x-deprecated"] = value
        elif key in ("properties", "patternProperties", "definitions", "$defs"):
            out[key] = {k: _convert(v, renames) for k, v in value.items()}
        else:
            out[key] = _convert(value, renames)
    if "prefixItems" in out and "items" not in out and "minItems" in out and out.get("maxItems") == out["minItems"]:
        out["items"] = False  # a fixed-length tuple: draft-07 said so with maxItems; 2020-12 says it directly
    return out


def reachable(definitions: Mapping[str, Any], roots: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    stack = [r for r in roots if r in definitions]
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        for target, _ in _references(definitions[name]):
            if target in definitions and target not in seen:
                stack.append(target)
    return sorted(seen)


def select_roots(names: Iterable[str], patterns: Iterable[str]) -> list[str]:
    """Definition names matching any of the regular expressions (full match)."""
    compiled = [re.compile(p) for p in patterns]
    return sorted(n for n in names if any(c.fullmatch(n) for c in compiled))


def normalise(
    generated: Mapping[str, Any],
    *,
    schema_id: str,
    title: str,
    root_patterns: Iterable[str] | None = None,
    description: str | None = None,
) -> dict[str, Any]:
    """The generator's draft-07 document → one 2020-12 resource with `$defs` (see the module docstring)."""
    # keys are plain names, `$ref`s URI-encode them; read both decoded so either spelling is found
    definitions = {unquote(name): schema for name, schema in generated.get("definitions", {}).items()}
    if root_patterns is not None:
        keep = reachable(definitions, select_roots(definitions, root_patterns))
        definitions = {name: definitions[name] for name in keep}
    renames = stable_names(definitions)
    defs = {renames.get(name, name): _convert(schema, renames) for name, schema in definitions.items()}
    resource: dict[str, Any] = {"$schema": DIALECT, "$id": schema_id, "title": title}
    if description:
        resource["description"] = description
    resource["$defs"] = dict(sorted(defs.items()))
    return resource


def dump(resource: Any) -> str:
    """The canonical serialisation: sorted keys, two-space indent, UTF-8 kept, newline at the end."""
    return json.dumps(resource, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
