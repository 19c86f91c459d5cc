"""What `diff-schemas` accepts: a self-contained draft 2020-12 schema whose `$ref`s are JSON pointers into it.

The diff reasons about keywords as 2020-12 defines them and finds schemas by JSON pointer. A schema outside that
(another dialect, anchors, dynamic references, embedded resources) would be compared under the wrong meaning, and
a breaking change could pass as safe; it is refused with the reason and where it is, never guessed at.
"""

from __future__ import annotations

import math
from typing import Any
from urllib.parse import unquote

from wirecheck.contracts.loader import DIALECT
from wirecheck.contracts.views import ref_loops, subschemas
from wirecheck.pointer import format_pointer, parse_pointer, resolve

MAX_DEPTH = 128  # JSON levels; python-jsonschema, the witnesses' second judge, recurses past ~200
_UNSUPPORTED = {
    "$anchor": "a named anchor: refer to the schema by JSON pointer (#/$defs/...) instead",
    "$dynamicAnchor": "dynamic references are not compared",
    "$dynamicRef": "dynamic references are not compared",
    "$recursiveAnchor": "a draft 2019-09 keyword",
    "$recursiveRef": "a draft 2019-09 keyword",
}


def not_json(value: Any) -> str | None:
    """Why a value read from YAML cannot be a JSON document, as "<JSON pointer>: <why>" (a date, an integer key,
    NaN, bytes); None when it can. (An alias that contains itself never gets here: the YAML loader refuses it.)"""
    stack: list[tuple[Any, tuple[Any, ...]]] = [(value, ())]
    while stack:  # YAML has dates, bytes, integer keys, NaN and infinities: JSON has none of them
        item, path = stack.pop()
        if isinstance(item, dict):
            for key, child in item.items():
                if not isinstance(key, str):
                    return f"{format_pointer(path)}: the key {key!r} is a YAML {type(key).__name__}, not a string " \
                           "(quote it)"
                stack.append((child, (*path, key)))
        elif isinstance(item, list):
            stack.extend((child, (*path, index)) for index, child in enumerate(item))
        elif isinstance(item, float) and not math.isfinite(item):
            return f"{format_pointer(path)}: {item} is not a JSON number"
        elif item is not None and not isinstance(item, str | int | float):
            return f"{format_pointer(path)}: {item!r} is a YAML {type(item).__name__}, not a JSON value (quote it)"
    return None


def unsupported(schema: Any) -> str | None:
    """The first thing in `schema` the diff cannot compare soundly, as "<JSON pointer>: <why>", or None."""
    if isinstance(schema, dict) and "$schema" in schema and schema["$schema"] != DIALECT:
        return (f"/$schema: declares {schema['$schema']!r}; diff-schemas compares draft 2020-12 schemas "
                f"({DIALECT}), and older drafts give keywords other meanings (a $ref's siblings, an items array)")
    for node, path in subschemas(schema):
        if len(path) > MAX_DEPTH:
            return f"{format_pointer(path)}: the schema nests more than {MAX_DEPTH} levels deep"
        for key, value in node.items():
            where = format_pointer((*path, key))
            if key in _UNSUPPORTED:
                return f"{where}: {key} is not supported ({_UNSUPPORTED[key]})"
            if key == "$id" and path:
                return f"{where}: an embedded resource ($id below the root) is not supported"
            if key == "$schema" and path:
                return f"{where}: a $schema below the root is not supported"
            if key == "$ref" and isinstance(value, str) and not (value == "#" or value.startswith("#/")):
                return f"{where}: {value!r} is not a JSON pointer into this file (#/...)"
            if key == "$ref" and isinstance(value, str):
                try:
                    resolve(schema, parse_pointer(unquote(value[1:])))
                except (KeyError, IndexError, ValueError):
                    return f"{where}: {value!r} points at nothing in this file"
    for _, path, loop in ref_loops({"": schema}):
        return f"{format_pointer((*path, '$ref'))}: a $ref loop that reads no part of the message: {loop}"
    return None
