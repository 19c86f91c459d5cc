"""Parsing one JSON text strictly, with located, human problems instead of exceptions.

orjson is the fast path. When it refuses a text (or when the text is not its own canonical serialisation, the
only case in which duplicate keys or integers beyond 64 bits can hide), the standard library decides what
exactly is wrong, and its value is the one kept. A number beyond the range of a double is judged alike however it
is written (`1e400`, or its 401 digits), as JavaScript reads both: see `_replace_out_of_range`.
"""

from __future__ import annotations

import json
import math
import re
import sys
from dataclasses import dataclass
from typing import Any

import orjson

from wirecheck.pointer import format_pointer


@dataclass(frozen=True, slots=True)
class JsonProblem:
    code: str  # PARSE_ERROR | INVALID_UTF8 | DUPLICATE_KEY | NUMBER_OUT_OF_RANGE (the last two keep the value)
    message: str
    pointer: str | None = None  # where in the value (DUPLICATE_KEY, NUMBER_OUT_OF_RANGE, INVALID_UTF8)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON (RFC 8259 has no NaN or Infinity)")


class _OutOfRange:
    """A number literal beyond the range of a double, as read (replaced once the value is whole)."""

    __slots__ = ("negative", "text")

    def __init__(self, text: str):
        self.text, self.negative = text, text.startswith("-")


# An integer of more digits than this is beyond a double whatever they are (DBL_MAX has 309); one of up to this many
# is converted to find out, never more (Python refuses to convert more than 4,300 digits at all)
_DOUBLE_DIGITS = 309


def _integer(text: str) -> int | _OutOfRange:
    if len(text.lstrip("-")) > _DOUBLE_DIGITS:
        return _OutOfRange(text)
    number = int(text)
    if len(text) >= _DOUBLE_DIGITS - 1:
        try:
            float(number)
        except OverflowError:  # rounds to infinity (correctly rounded, as JavaScript's Number does)
            return _OutOfRange(text)
    return number


def _float(text: str) -> float | _OutOfRange:
    number = float(text)
    return _OutOfRange(text) if math.isinf(number) else number


def _slow_parse(text: str) -> tuple[Any, JsonProblem | None]:
    """The standard library's strict reading, with the first problem a reader would trip on: a key given twice (the
    first object with one, in the order objects close, by its JSON pointer; the last value is kept, as JSON.parse,
    json.loads and orjson keep it), else a number beyond the range of a double (see _replace_out_of_range)."""
    duplicates: list[tuple[int, str]] = []  # (id of the object, key): objects are found again once parsed
    out_of_range: list[_OutOfRange] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, value in items:
            if key in result and not duplicates:
                duplicates.append((id(result), key))
            result[key] = value  # the last value wins, as in orjson
        return result

    def integer(text: str) -> int | _OutOfRange:
        number = _integer(text)
        if type(number) is _OutOfRange:
            out_of_range.append(number)
        return number

    def real(text: str) -> float | _OutOfRange:
        number = _float(text)
        if type(number) is _OutOfRange:
            out_of_range.append(number)
        return number

    value = json.loads(text, parse_constant=_reject_constant, parse_float=real, parse_int=integer,
                       object_pairs_hook=pairs)
    problem = None
    if out_of_range:
        value, problem = _replace_out_of_range(value)
    if duplicates:
        target, key = duplicates[0]
        pointer = _pointer_of(value, target) + format_pointer([key])
        problem = JsonProblem("DUPLICATE_KEY", f"duplicate key {key!r} in an object", pointer)
    return value, problem


# What a number beyond a double is checked as: the nearest double, with its sign (JavaScript reads ±Infinity, which
# no JSON value is; the finding says so)
_NEAREST = sys.float_info.max


def _replace_out_of_range(value: Any) -> tuple[Any, JsonProblem]:
    """Numbers beyond the range of a double (`1e400`, or an integer of 401 digits: the same number) are read alike
    by JavaScript: ECMA-262's JSON.parse rounds each to a Number, ±Infinity, which JSON cannot carry on
    (JSON.stringify writes null) and which is neither an integer nor a finite number; Python's json reads `1e400` as
    inf and refuses an integer of more than 4,300 digits. RFC 8259 §6 warns of exactly this, I-JSON (RFC 7493 §2.2)
    forbids it. Every such number is checked as the nearest double, with its sign, and the first is reported."""
    first: list[tuple[str, str]] = []
    root: list[Any] = [value]
    stack: list[tuple[Any, Any, tuple[Any, ...]]] = [(root, 0, ())]
    while stack:
        container, key, path = stack.pop()
        item = container[key]
        if type(item) is _OutOfRange:
            if not first:
                first.append((item.text, format_pointer(path)))
            container[key] = -_NEAREST if item.negative else _NEAREST
        elif isinstance(item, list):
            stack.extend((item, index, (*path, index)) for index in range(len(item)))
        elif isinstance(item, dict):
            stack.extend((item, name, (*path, name)) for name in item)
    text, pointer = first[0]
    shown = text if len(text) <= 40 else f"{text[:20]}…{text[-8:]} ({len(text)} characters)"
    return root[0], JsonProblem(
        "NUMBER_OUT_OF_RANGE", f"the number {shown} at {pointer or 'the top level'} is beyond the range of a double: "
        "JavaScript's JSON.parse reads it as " + ("-Infinity" if text.startswith("-") else "Infinity")
        + ", which is no JSON number (JSON.stringify writes null), and Python's json "
        + ("reads its digits exactly, up to 4,300 of them, and refuses more" if text.lstrip("-").isdigit()
           else "reads it as " + ("-inf" if text.startswith("-") else "inf"))
        + " (RFC 8259 §6, RFC 7493 §2.2); checked as the largest double", pointer or None)


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


def parse_json(data: bytes, line: int = 1, *, quoted: bool = True) -> tuple[Any, JsonProblem | None]:
    """(value, None); (value, problem) for what readers read past (a duplicate key, a number beyond a double, a lone
    surrogate), the value as they read it; or (None, problem). Never raises; `data` has no line terminator. `line`:
    the line `data` starts on in its file, so that a problem on a later line of it is said where it is. `quoted`
    False: a syntax error says where, not what text is there (a file that is not the JSON it claims to be, such as
    a contract schema file, may be anything; its content is not for an error message)."""
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        return _diagnose(data, exc, line, quoted)
    if isinstance(value, dict | list) and not canonical(value, data):
        # Not byte-identical to its canonical form: whitespace, escapes, key order... or a duplicate key,
        # which orjson silently resolves (last wins), or an integer beyond 64 bits, which orjson reads as the
        # nearest float. Only here is the slow parse needed, and its value is exact.
        try:
            return _slow_parse(data.decode("utf-8"))
        except (ValueError, RecursionError):
            pass
    return value, None


def _diagnose(data: bytes, exc: orjson.JSONDecodeError, line: int, quoted: bool) -> tuple[Any, JsonProblem | None]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as bad:
        return None, JsonProblem("INVALID_UTF8", f"invalid UTF-8 at byte {bad.start}: {bad.reason}")
    try:
        # Whatever orjson refuses that RFC 8259 allows, the standard library reads.
        value, problem = _slow_parse(text)
    except RecursionError:
        return None, JsonProblem("PARSE_ERROR", "nesting too deep to parse")
    except json.JSONDecodeError as slow:
        message = said(slow, text, line, quoted)
        if b"\r" in data.rstrip(b"\r"):
            message += " (a carriage return not followed by a line feed ends no line: lines end with \\n or \\r\\n)"
        return None, JsonProblem("PARSE_ERROR", f"not valid JSON: {message}")
    except ValueError as slow:
        message = str(slow) if any(w in str(slow) for w in ("NaN", "Infinity")) else str(exc)
        if "recursion limit" in message:
            message = "nesting too deep: more than 1024 levels"
        return None, JsonProblem("PARSE_ERROR", f"not valid JSON: {message}")
    if _SURROGATE_ESCAPE.search(text):  # orjson refuses a lone surrogate
        value, lone = _without_lone_surrogates(value)
        problem = problem or lone
    return value, problem


# what the standard library's JSON reader says, in this report's words
_SAID = {
    "Expecting value": "expected a JSON value",
    "Expecting property name enclosed in double quotes": "expected a member name in double quotes",
    "Expecting ',' delimiter": "expected a comma or the closing bracket",
    "Expecting ':' delimiter": "expected a colon after the member name",
    "Unterminated string starting at": "a string that is never closed starts",
    "Invalid control character at": "a control character (it must be escaped) inside a string",
    "Invalid \\escape": "an escape JSON does not have",
    "Invalid \\uXXXX escape": "a \\u escape without four hex digits",
    "Extra data": "more text after the JSON value",
    # not Python's hint (decode using utf-8-sig): what the text has, in any reader's terms
    "Unexpected UTF-8 BOM (decode using utf-8-sig)": "a UTF-8 byte order mark (U+FEFF) before the JSON text, which "
                                                     "RFC 8259 §8.1 does not allow",
}
# Python 3.13 names a trailing comma at the comma ("Illegal trailing comma before end of object", gh-113149); 3.11
# and 3.12 say what they expected at the closing bracket. One wording on every Python: the older one.
_TRAILING_COMMA = {"Illegal trailing comma before end of object": "Expecting property name enclosed in double quotes",
                   "Illegal trailing comma before end of array": "Expecting value"}


def _as_before_3_13(error: json.JSONDecodeError) -> json.JSONDecodeError:
    older = _TRAILING_COMMA.get(error.msg)
    if older is None:
        return error
    after = error.pos + 1
    while after < len(error.doc) and error.doc[after] in " \t\r\n":
        after += 1
    return json.JSONDecodeError(older, error.doc, after)


# the first line of a YAML document: `key: value`, `- item`, `---`, `%YAML` (JSON's first character is none of these)
_YAML_START = re.compile(r"(---|\.\.\.|%YAML|[-?] |[-?]$|[^\s{}\[\]\"#,:][^:\n]*:( |$))")


def said(error: json.JSONDecodeError, text: str, line: int = 1, quoted: bool = True) -> str:
    """A JSON syntax error in plain words: what was expected, where (line and column when the text spans lines),
    what was found there (unless not `quoted`), and whether the text looks like YAML, which is not read where JSON
    is expected."""
    error = _as_before_3_13(error)
    what = _SAID.get(error.msg, error.msg[:1].lower() + error.msg[1:])
    where = f"column {error.colno}" if error.lineno == 1 and line == 1 and "\n" not in text else \
        f"line {line + error.lineno - 1}, column {error.colno}"
    rest = text[error.pos:].split("\n", 1)[0].rstrip("\r")
    found = "the end of the text" if error.pos >= len(text) else (
        f"`{rest[:40]}`" + ("…" if len(rest) > 40 else "")) if rest.strip() else "the end of the line"
    message = f"{what} at {where}" + (f", found {found}" if quoted else "")
    first = next((ln.strip() for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")), "")
    if _YAML_START.match(first):
        message += " (this looks like YAML; JSON is expected here)"
    return message


# what `said` writes for a text that does not start as JSON at all: its first character opens no JSON value
_TEXT_LINE = re.compile(r"expected a JSON value at column 1, found `[^\s{\[\"0-9-]")


def is_text_line(message: str) -> bool:
    """Whether a PARSE_ERROR's message (`said`'s words) is about a line that does not start as JSON at all (a
    warning a CLI prints before its JSON), as opposed to JSON that breaks off or goes wrong (`{"type":"res`)."""
    return _TEXT_LINE.search(message) is not None


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
