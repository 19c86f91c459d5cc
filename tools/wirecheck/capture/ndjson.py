"""Line-oriented captures: NDJSON streams, framed (both-direction) NDJSON, exchange JSONL, artifact JSONL.

Reading is streaming: one line in memory at a time (bounded by `max_line_bytes`), so memory does not grow with the
capture's length. Every bad line becomes a located finding and reading goes on.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, Any

from wirecheck.capture.json_text import parse_json
from wirecheck.check.message import Message
from wirecheck.findings import Finding
from wirecheck.rules.catalogue import level_of

BOM = b"\xef\xbb\xbf"
DEFAULT_MAX_LINE_BYTES = 32 * 1024 * 1024


def capture_finding(code: str, message: str, file: str, line: int | None = None, where: str | None = None) -> Finding:
    return Finding(code=code, severity=level_of(code), message=message, file=file, line=line, where=where)


def iter_lines(
    stream: IO[bytes], file: str, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
) -> Iterator[tuple[int, Any] | Finding]:
    """(line number, parsed value) for every non-blank line that parses; a Finding for every line that does not."""
    line_no = 0
    readline = stream.readline
    while True:
        raw = readline(max_line_bytes + 1)
        if not raw:
            return
        line_no += 1
        if len(raw) > max_line_bytes and not raw.endswith(b"\n"):
            skipped = len(raw)
            while raw and not raw.endswith(b"\n"):
                raw = readline(1 << 20)
                skipped += len(raw)
            yield capture_finding(
                "LINE_TOO_LONG", f"line of {skipped} bytes exceeds --max-line-bytes {max_line_bytes}", file, line_no
            )
            continue
        if line_no == 1 and raw.startswith(BOM):
            yield capture_finding("BYTE_ORDER_MARK", "capture starts with a UTF-8 byte order mark", file, 1)
            raw = raw[3:]
        data = raw.rstrip(b"\r\n")
        if not data or data.isspace():
            continue
        value, problem = parse_json(data)
        if problem is not None:
            yield capture_finding(problem.code, problem.message, file, line_no)
            if value is None:
                continue
        yield line_no, value


def read_stream(first: tuple[int, Any] | None, rest: Iterator[tuple[int, Any] | Finding], file: str):
    """A plain stream: every line is a message."""
    items: Iterator[tuple[int, Any] | Finding] = rest if first is None else _chain(first, rest)
    for item in items:
        if isinstance(item, Finding):
            yield item
            continue
        line_no, value = item
        if not isinstance(value, dict):
            yield capture_finding("NOT_AN_OBJECT", f"a message must be a JSON object, found {_json_type(value)}",
                                  file, line_no)
            continue
        yield Message(value=value, file=file, line=line_no)


def read_framed(rest: Iterator[tuple[int, Any] | Finding], file: str):
    """Both directions: after the header line, each line is {"from": <role>, "message": {...}}."""
    for item in rest:
        if isinstance(item, Finding):
            yield item
            continue
        line_no, frame = item
        if not (isinstance(frame, dict) and isinstance(frame.get("from"), str) and "message" in frame):
            yield capture_finding("CAPTURE_FORMAT", 'a framed line must be {"from": "<role>", "message": {...}}',
                                  file, line_no)
            continue
        value = frame["message"]
        if not isinstance(value, dict):
            yield capture_finding("NOT_AN_OBJECT", f"a message must be a JSON object, found {_json_type(value)}",
                                  file, line_no)
            continue
        yield Message(value=value, file=file, line=line_no, sender=frame["from"])


def _chain(first: tuple[int, Any], rest: Iterator[tuple[int, Any] | Finding]):
    yield first
    yield from rest


def _json_type(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    return "a number"
