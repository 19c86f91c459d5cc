"""Findings: the one value every check produces and every reporter consumes."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any, TextIO, cast


class Severity(StrEnum):
    ERROR = "error"  # the message breaks the contract (tolerant view) or a protocol rule
    WARNING = "warning"  # breaks only the strict view (unknown fields), or cannot be judged
    INFO = "info"  # worth knowing; fails a run only under --fail-on info

    @property
    def rank(self) -> int:
        return {"error": 2, "warning": 1, "info": 0}[self.value]


@dataclass(frozen=True, slots=True)
class Finding:
    code: str  # a built-in check id or a protocol rule id (see `wirecheck rules`)
    severity: Severity
    message: str
    file: str  # the capture file ("-" for stdin)
    line: int | None = None  # 1-based line in the capture, for line-oriented captures
    where: str | None = None  # JSON pointer into the capture file, for HAR and other whole-file captures
    pointer: str | None = None  # JSON pointer into the message
    kind: str | None = None  # message kind id
    schema_location: str | None = None  # absolute keyword location (schema $id + pointer)
    expected: str | None = None
    found: str | None = None
    sender: str | None = None  # the role that sent the line, where the capture says (framed captures)
    obligation: str | None = None  # the behaviour obligation it breaks (behaviour.yaml), by its id in the release

    def __post_init__(self) -> None:
        # A capture's value can be megabytes (a 1 MiB string in a message, a 1 MiB key): a finding quotes it cut,
        # saying how much was cut, so a thousand such findings are not a gigabyte of report
        for name in _CUT:
            text = getattr(self, name)
            if text is not None and len(text) > TEXT_LIMIT:
                object.__setattr__(self, name, cut(text))

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["severity"] = self.severity.value
        return {k: v for k, v in data.items() if v is not None}

    @property
    def location(self) -> str:
        """`file:line` or `file#/where`, for humans."""
        if self.line is not None:
            return f"{self.file}:{self.line}"
        if self.where:
            return f"{self.file}#{self.where}"
        return self.file


TEXT_LIMIT = 1000  # characters of a finding's message, expected, found or pointer; longer ones are cut
_CUT = ("message", "expected", "found", "pointer")


def cut(text: str, limit: int = TEXT_LIMIT) -> str:
    """`text` when it fits in `limit` characters; else its start and end around a note of how much was cut (the
    end of a message says what was wrong: `... is not of type "integer"`)."""
    if len(text) <= limit:
        return text
    head, tail = limit * 2 // 3, limit // 4
    return f"{text[:head]}…({len(text) - head - tail:,} characters cut)…{text[-tail:]}"


def short_repr(value: Any, limit: int = 120) -> str:
    """A JSON rendering of `value`, cut to `limit` characters with its full length said: what a finding shows as
    "found"."""
    from wirecheck.json_types import json_text

    if isinstance(value, str) and len(value) > 16 * limit:  # not rendered whole only to be cut
        text = json_text(value[: limit * 4])
        return f"{text[: limit - 1]}… ({len(value):,} characters)"
    text = json_text(value)
    return text if len(text) <= limit else f"{text[: limit - 1]}… ({len(text):,} characters)"


# C0 and C1 controls (but line feed and tab), DEL, the line and paragraph separators, and the bidirectional marks,
# embeddings, overrides and isolates that reorder what a reader sees ("Trojan Source")
_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
_UNPRINTABLE_IN_A_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def printable(text: str, *, line: bool = False) -> str:
    """`text` with every control character written as an escape (`\\x1b`, `\\u202e`): a capture's field name or
    value must not move the reader's cursor, retitle the terminal or reorder a line of a report. Line feeds and
    tabs are kept (a report's own lines), unless `line`: a value shown inside one line of a report (a file name, a
    pointer, a finding's line, a scope file's reason) has its line feeds and tabs escaped too (`\\x0a`), so that it
    cannot split the report or pass for a line of its own."""
    unprintable = _UNPRINTABLE_IN_A_LINE if line else _UNPRINTABLE
    return unprintable.sub(lambda m: f"\\x{ord(m[0]):02x}" if ord(m[0]) < 0x100 else f"\\u{ord(m[0]):04x}", text)


def printable_stream(out: TextIO) -> TextIO:
    """`out` for a human-readable report (text, Markdown): everything written goes through `printable`."""
    return out if isinstance(out, _PrintableText) else cast(TextIO, _PrintableText(out))


def unfiltered(out: TextIO) -> TextIO:
    """The stream under a `printable_stream` (for a writer that makes what it shows printable itself and writes
    terminal codes of its own: validate's progress bar on standard error)."""
    return out._out if isinstance(out, _PrintableText) else out


class _PrintableText:
    def __init__(self, out: TextIO):
        self._out = out

    def write(self, text: str) -> int:
        return self._out.write(printable(text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._out, name)


def blocking(findings: list[Finding]) -> list[Finding]:
    """What makes a message not valid: every finding above info (a note is not a verdict)."""
    return [f for f in findings if f.severity.rank > Severity.INFO.rank]
