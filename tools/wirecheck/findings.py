"""Findings: the one value every check produces and every reporter consumes."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any


class Severity(StrEnum):
    ERROR = "error"  # the message breaks the contract (tolerant view) or a protocol rule
    WARNING = "warning"  # breaks only the strict view (unknown fields), or cannot be judged
    INFO = "info"  # worth knowing, never fails a run

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


def short_repr(value: Any, limit: int = 120) -> str:
    """A JSON rendering of `value`, cut to `limit` characters: what a finding shows as "found"."""
    import json

    import orjson

    try:
        text = orjson.dumps(value).decode()
    except TypeError:  # a lone surrogate, or deeper than orjson writes: the standard library's JSON
        try:
            text = json.dumps(value, separators=(",", ":"))
        except (TypeError, ValueError, RecursionError):
            text = "(nested too deep to show)"
    return text if len(text) <= limit else text[: limit - 1] + "…"
