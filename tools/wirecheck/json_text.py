"""Parsing one JSON text strictly, with located, human problems instead of exceptions.

orjson is the fast path. When it refuses a text (or when the text is not its own canonical serialisation, the
only case in which duplicate keys or integers beyond 64 bits can hide), the standard library decides what
exactly is wrong, and its value is the one kept.
"""

from __future__ import annotations

import json
import math
import re
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
        value = _slow_parse(text)
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
    if _SURROGATE_ESCAPE.search(text):  # orjson refuses a lone surrogate; nothing else it refuses parses
        return _without_lone_surrogates(value)
    return value, None


# `\ud800`-`\udfff` escapes: each is a lone surrogate unless a high one is followed by a low one
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_LONE = re.compile("[\ud800-\udfff]")


def _without_lone_surrogates(value: Any) -> tuple[Any, JsonProblem | None]:
    """A value the standard library read with lone surrogates in its strings (`"\\ud800"`: the JSON grammar allows
    the escape, but it names no Unicode character) has each replaced by U+FFFD, as a UTF-8 decoder does, so that
    the rest of the message can still be checked; the first one is reported where it is (INVALID_UTF8)."""
    first: list[tuple[str, str]] = []  # (the escape, its pointer)

    def clean(text: str, path: tuple[Any, ...]) -> str:
        found = _LONE.search(text)
        if found is None:
            return text
        if not first:
            first.append((f"\\u{ord(found[0]):04x}", format_pointer(path)))
        return _LONE.sub("\ufffd", text)

    root: list[Any] = [value]
    stack: list[tuple[Any, Any, tuple[Any, ...]]] = [(root, 0, ())]  # (container, key, path) of every value
    while stack:
        container, key, path = stack.pop()
        item = container[key]
        if isinstance(item, str):
            container[key] = clean(item, path)
        elif isinstance(item, list):
            stack.extend((item, index, (*path, index)) for index in range(len(item)))
        elif isinstance(item, dict):
            if any(_LONE.search(name) for name in item):
                renamed = {clean(name, (*path, name)): child for name, child in item.items()}
                item.clear()
                item.update(renamed)
            stack.extend((item, name, (*path, name)) for name in item)
    if not first:
        return value, None
    escape, pointer = first[0]
    return root[0], JsonProblem(
        "INVALID_UTF8", f"a lone surrogate {escape} at {pointer or 'the top level'}: the escape names no Unicode "
        "character, so no UTF-8 consumer can read it (RFC 8259 §8.2: behaviour unpredictable; I-JSON forbids it); "
        "checked with U+FFFD in its place", pointer or None)
