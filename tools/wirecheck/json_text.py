"""Parsing one JSON text strictly, with located, human problems instead of exceptions.

orjson is the fast path. When it refuses a text (or when the text is not its own canonical serialisation, the
only case in which duplicate keys or integers beyond 64 bits can hide), the standard library decides what
exactly is wrong, and its value is the one kept.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

import orjson

from wirecheck.pointer import format_pointer


@dataclass(frozen=True, slots=True)
class JsonProblem:
    code: str  # PARSE_ERROR | INVALID_UTF8 | DUPLICATE_KEY
    message: str
    pointer: str | None = None  # where in the value (DUPLICATE_KEY)


class _DuplicateKey(Exception):
    def __init__(self, key: str, pointer: str):
        self.key, self.pointer = key, pointer


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON (RFC 8259 has no NaN or Infinity)")


def _finite_float(text: str) -> float:
    number = float(text)
    if math.isinf(number):
        raise ValueError(f"number {text} is out of the range of a double")
    return number


def _slow_parse(text: str) -> Any:
    """The standard library's strict reading; _DuplicateKey names the first object (in the order objects close)
    with a key given twice, by its JSON pointer."""
    duplicates: list[tuple[int, str]] = []  # (id of the object, key): objects are found again once parsed

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, value in items:
            if key in result and not duplicates:
                duplicates.append((id(result), key))
            result[key] = value  # the last value wins, as in orjson
        return result

    value = json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float, object_pairs_hook=pairs)
    if duplicates:
        target, key = duplicates[0]
        raise _DuplicateKey(key, _pointer_of(value, target) + format_pointer([key]))
    return value


def _pointer_of(root: Any, target: int) -> str:
    """The JSON pointer of the object whose id is `target` inside `root` (iterative: values nest 1024 deep)."""
    stack: list[tuple[Any, tuple[Any, ...]]] = [(root, ())]
    while stack:
        node, path = stack.pop()
        if id(node) == target:
            return format_pointer(path)
        children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        stack.extend((child, (*path, name)) for name, child in children if isinstance(child, dict | list))
    return ""


def canonical(value: Any, data: bytes) -> bool:
    """Whether `data` is orjson's own serialisation of `value` (then no duplicate key can hide in it). orjson reads
    1024 levels of nesting but writes only 254: a deeper value is not known to be canonical."""
    try:
        return orjson.dumps(value) == data
    except TypeError:
        return False


def parse_json(data: bytes) -> tuple[Any, JsonProblem | None]:
    """(value, None) or (None, problem). Never raises; `data` has no line terminator."""
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        return _diagnose(data, exc)
    if isinstance(value, dict | list) and not canonical(value, data):
        # Not byte-identical to its canonical form: whitespace, escapes, key order... or a duplicate key,
        # which orjson silently resolves (last wins), or an integer beyond 64 bits, which orjson reads as the
        # nearest float. Only here is the slow parse needed, and its value is exact.
        try:
            value = _slow_parse(data.decode("utf-8"))
        except _DuplicateKey as dup:
            return value, JsonProblem("DUPLICATE_KEY", f"duplicate key {dup.key!r} in an object", dup.pointer)
        except (ValueError, RecursionError):
            pass
    return value, None


def _diagnose(data: bytes, exc: orjson.JSONDecodeError) -> tuple[Any, JsonProblem | None]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as bad:
        return None, JsonProblem("INVALID_UTF8", f"invalid UTF-8 at byte {bad.start}: {bad.reason}")
    try:
        # Whatever orjson refuses that RFC 8259 allows, the standard library reads.
        return _slow_parse(text), None
    except _DuplicateKey as dup:
        return None, JsonProblem("DUPLICATE_KEY", f"duplicate key {dup.key!r} in an object", dup.pointer)
    except RecursionError:
        return None, JsonProblem("PARSE_ERROR", "nesting too deep to parse")
    except ValueError as slow:
        message = str(slow) if any(w in str(slow) for w in ("NaN", "Infinity", "out of the range")) else str(exc)
        if "recursion limit" in message:
            message = "nesting too deep: more than 1024 levels"
        if b"\r" in data.rstrip(b"\r"):
            message += " (a carriage return not followed by a line feed ends no line: lines end with \\n or \\r\\n)"
        return None, JsonProblem("PARSE_ERROR", f"not valid JSON: {message}")
