"""The JSON Schema type name of a parsed JSON value: one definition for the engine, the diff and the fuzzer."""

from __future__ import annotations

from typing import Any


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
