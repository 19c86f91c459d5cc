"""JSON values as the engine, the diff and the fuzzer share them: type names, exact text, size limits."""

from __future__ import annotations

import json
from typing import Any

import orjson

from wirecheck.encoding import encode

# The most characters or items a payload wirecheck makes up (a diff witness or probe, a fuzz mutant) may hold: a
# schema may demand minLength 2^31; such a payload is not built (the diff judges without it, the fuzzer skips it).
PAYLOAD_LIMIT = 10_000


def json_type(value: Any) -> str:
    """`null`, `boolean`, `integer`, `number`, `string`, `array` or `object`. A float with no fraction is a
    `number` here (it was written with a decimal point); JSON Schema's `integer` also accepts it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def json_bytes(value: Any, *, sort_keys: bool = False, indent: bool = False) -> bytes:
    """`value` as JSON text (UTF-8): orjson, or the standard library for what orjson refuses to write (integers
    beyond 64 bits, lone surrogates, nesting deeper than 254 levels), so a schema bound or a payload holding one
    is written, not a crash. A lone surrogate is written as its JSON escape (`\\ud800`, see encoding.py): always
    valid UTF-8, and distinct values stay distinct texts."""
    option = (orjson.OPT_SORT_KEYS if sort_keys else 0) | (orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS if indent
                                                             else 0)
    try:
        return orjson.dumps(value, option=option)
    except TypeError:
        try:
            text = json.dumps(value, sort_keys=sort_keys, ensure_ascii=False, indent=2 if indent else None,
                              separators=None if indent else (",", ":"))
        except RecursionError:
            text = json.dumps("(nested too deep to write)")
        return encode(text)


def json_text(value: Any, *, sort_keys: bool = False, indent: bool = False) -> str:
    """`json_bytes` as a string, for a report or a message text (never raises for a value JSON can hold)."""
    return json_bytes(value, sort_keys=sort_keys, indent=indent).decode()


def shown(value: Any) -> str:
    """A value for people, in JSON syntax (`null`, `true`, `["a"]`); a string as it is; `none` for a value that is
    not there (None: absent). Never a Python repr."""
    if value is None:
        return "none"
    if isinstance(value, str):
        return value
    try:
        return json_bytes(value).decode()
    except TypeError:
        return str(value)
