"""Line-oriented captures: NDJSON streams, framed (both-direction) NDJSON, exchange JSONL, artifact JSONL.

Reading is streaming: one line in memory at a time (bounded by `max_line_bytes`), so memory does not grow with the
capture's length. Every bad line becomes a located finding and reading goes on.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator
from typing import IO, Any

import orjson

from wirecheck.capture.process import is_process_frame, read_process
from wirecheck.check.message import Message
from wirecheck.findings import Finding
from wirecheck.json_text import JsonProblem, parse_json
from wirecheck.json_types import json_type
from wirecheck.limits import DEFAULT_MAX_LINE_BYTES
from wirecheck.rules.catalogue import level_of

BOM = b"\xef\xbb\xbf"


def capture_finding(code: str, message: str, file: str, line: int | None = None, where: str | None = None,
                    pointer: str | None = None, sender: str | None = None) -> Finding:
    return Finding(code=code, severity=level_of(code), message=message, file=file, line=line, where=where,
                   pointer=pointer, sender=sender)


CHUNK_BYTES = 1 << 20
LONG_LINE_START = 4096  # of a line too long to keep: enough for its `from`
# In a framed capture --max-line-bytes bounds the message, as it does the same line in a plain stream: the frame
# around it (`{"from": "<role>", "message": ` ... `}`) may add up to this many bytes.
FRAME_ALLOWANCE = 1024


class LineSink:
    """Lets a consumer take well-formed values straight from the line loop (`accept(value, line)` returns True when
    it has dealt with the value; it is shown every value that parsed without a problem, objects or not), so the
    common case costs no generator round trip. Set `accept` once the form is known."""

    __slots__ = ("accept", "allowance", "frame_bytes", "located", "sender_of")

    def __init__(self) -> None:
        self.accept: Callable[[Any, int], bool] = _refuse
        # who sent a line that is reported (framed captures: its `from`, read from the bytes, which may not parse)
        self.sender_of: Callable[[bytes], str | None] = _nobody
        # how many bytes of a line are frame, not message (framed captures), counted up to `allowance`
        self.frame_bytes: Callable[[bytes], int] = _no_frame
        self.allowance = 0
        # a line that does not parse, said where in the message it breaks (framed captures: the message's own
        # problem, as the program printed it)
        self.located: Callable[[bytes, JsonProblem], JsonProblem] = _as_found

    def framed(self) -> None:
        """The lines from here on are frames: who sent each, the message alone measured against the limit, and a
        message that is not JSON reported as its own problem."""
        self.sender_of, self.frame_bytes, self.allowance = frame_sender, frame_bytes, FRAME_ALLOWANCE
        self.located = message_problem


def _refuse(value: Any, line: int) -> bool:
    return False


def _as_found(raw: bytes, problem: JsonProblem) -> JsonProblem:
    return problem


def _nobody(raw: bytes) -> str | None:
    return None


def _no_frame(raw: bytes) -> int:
    return 0


def iter_lines(
    stream: IO[bytes], file: str, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES, sink: LineSink | None = None,
    capture_start: bool = True,
) -> Iterator[tuple[int, Any] | Finding]:
    """(line number, parsed value) for every non-blank line that parses; a Finding for every line that does not.
    Objects that `sink.accept` takes are not yielded. `capture_start` is False for a stream that begins in the
    middle of a capture (a part checked by another process: check/parallel.py); its line numbers count from 1.

    Reads 1 MiB chunks and cuts them into lines in C (BytesIO.readlines finds line ends with memchr; bytes.split
    walks byte by byte); a line longer than `max_line_bytes` is counted and dropped piece by piece, so memory stays
    within a chunk plus one line however long the capture or its lines are.
    """
    line_no = 0
    loads, dumps, JSONDecodeError = orjson.loads, orjson.dumps, orjson.JSONDecodeError
    newline = orjson.OPT_APPEND_NEWLINE
    pending: list[bytes] = []  # the start of a line that continues in the next chunk
    pending_size = 0
    skipped = -1  # >= 0 while dropping an over-long line: the bytes dropped so far
    start = b""  # the first bytes of the line being dropped
    read = getattr(stream, "read1", stream.read)  # read1: what a pipe has now, without waiting for a full chunk
    # No chunk is longer than the line limit, so only a line joined from several chunks can exceed it.
    chunk_bytes = min(CHUNK_BYTES, max_line_bytes)
    ended = False
    # The sink's acceptor. The consumer can only set it while this generator is suspended, so it is picked up
    # after each yield, never tested per line.
    sink = sink or LineSink()
    accept = sink.accept
    while not ended:
        chunk = read(chunk_bytes)
        if chunk:
            lines = io.BytesIO(chunk).readlines()  # each with its b"\n", but for a last piece without one
            tail = b"" if chunk[-1] == 10 else lines.pop()
        else:  # end of input: whatever is pending is the last line, without a newline
            ended, lines, tail = True, [b""] if (pending or skipped >= 0) else [], b""
        if lines and skipped >= 0:  # the over-long line ends in this chunk
            line_no += 1
            yield capture_finding("LINE_TOO_LONG", f"line of {skipped + _length(lines[0])} bytes exceeds "
                                  f"--max-line-bytes {max_line_bytes}", file, line_no, sender=sink.sender_of(start))
            skipped = -1
            lines = lines[1:]
        elif lines and pending:
            lines[0] = b"".join((*pending, lines[0]))
            pending, pending_size = [], 0
        # Only a line joined from several chunks can exceed the limit, and only the first line of the capture can
        # carry a byte order mark: both are settled here, not for every line.
        if lines and _length(lines[0]) > max_line_bytes and (
                size := _length(lines[0]) - sink.frame_bytes(lines[0])) > max_line_bytes:
            line_no += 1
            what = "message" if sink.allowance else "line"
            yield capture_finding("LINE_TOO_LONG", f"{what} of {size} bytes exceeds --max-line-bytes "
                                  f"{max_line_bytes}", file, line_no, sender=sink.sender_of(lines[0][:LONG_LINE_START]))
            lines = lines[1:]
        if line_no == 0 and capture_start and lines and lines[0].startswith(BOM):
            yield capture_finding("BYTE_ORDER_MARK", "capture starts with a UTF-8 byte order mark", file, 1)
            lines[0] = lines[0][3:]
        first = line_no + 1
        for line_no, data in enumerate(lines, first):
            try:  # the fast path of parse_json, inlined: this loop runs once per line
                value = loads(data)  # the line end is whitespace to JSON
                # byte for byte its canonical form and a \n: then no duplicate key can hide in it, nor an integer
                # orjson reads as a float. (Issue 43 weighed cheaper tests: this round trip costs 0.30-0.48 us a
                # line of the request/reply captures, a bare count of `":` in the line 0.27-0.41 us, and a key count
                # needs a walk of the value in Python besides: none exact and cheaper.)
                if dumps(value, None, newline) == data:
                    if accept(value, line_no):
                        continue
                    yield line_no, value
                    accept = sink.accept
                    continue
            except (JSONDecodeError, TypeError):  # TypeError: nested deeper than orjson writes (254 levels of 1024)
                if data.isspace() or not data:  # a blank line
                    continue
            if data[-1:] == b"\n":
                data = data[:-1]
            if data[-1:] == b"\r":
                data = data[:-1]
            if data.startswith(BOM):  # a file's start in the middle of the capture: captures concatenated
                yield capture_finding("BYTE_ORDER_MARK", "line starts with a UTF-8 byte order mark (were two "
                                      "captures joined?)", file, line_no, sender=sink.sender_of(data[3:]))
                data = data[3:]
            value, problem = parse_json(data)  # e.g. a \r\n line end, spaces, escapes, a duplicate key, bad JSON
            if problem is not None and value is None:
                problem = sink.located(data, problem)
            if problem is not None:
                yield capture_finding(problem.code, problem.message, file, line_no, pointer=problem.pointer,
                                      sender=sink.sender_of(data))
                if value is None:
                    continue
            elif accept(value, line_no):
                continue
            yield line_no, value
            accept = sink.accept
        if tail:
            if skipped >= 0:
                skipped += len(tail)
            else:
                pending.append(tail)
                pending_size += len(tail)
                if pending_size > max_line_bytes + sink.allowance:  # only its start is kept, to say who sent it
                    start = b"".join(pending)[:LONG_LINE_START]
                    skipped, pending, pending_size = pending_size, [], 0


def _length(line: bytes) -> int:
    """A line's length without its line feed (a carriage return before it counts, as it always has)."""
    return len(line) - 1 if line[-1:] == b"\n" else len(line)


def not_an_object(value: Any, file: str, line: int, sender: str | None = None) -> Finding:
    return capture_finding("NOT_AN_OBJECT", f"a message must be a JSON object, found {json_type(value)}", file, line,
                           sender=sender)


def read_stream(items: Iterator[tuple[int, Any] | Finding], file: str):
    """A plain stream: every line is a message."""
    for item in items:
        if type(item) is tuple:
            line_no, value = item
            yield Message(value=value, file=file, line=line_no) if type(value) is dict else not_an_object(
                value, file, line_no)
        else:
            yield item


def read_framed(rest: Iterator[tuple[int, Any] | Finding], file: str):
    """Both directions: after the header line, each line is {"from": <role>, "message": {...}}, and the last may
    say how the program ended ({"process": {...}}: capture/process.py, yielded as a ProcessRecord). Findings on lines
    that do not parse name their sender too (the line reader asks `frame_sender`). A frame with `from` twice is
    a DUPLICATE_KEY nobody can be blamed for; its message is read with the last `from`, as a JSON parser does."""
    for item in rest:
        if isinstance(item, Finding):
            yield item
            continue
        line_no, frame = item
        if is_process_frame(frame):  # how the program ended (capture/process.py): evidence, not a message
            record = read_process(frame, file, line_no)
            yield record if not isinstance(record, str) else capture_finding("CAPTURE_FORMAT", record, file, line_no)
            continue
        sender = frame.get("from") if isinstance(frame, dict) and isinstance(frame.get("from"), str) else None
        if sender is None or "message" not in frame:
            yield capture_finding("CAPTURE_FORMAT", 'a framed line must be {"from": "<role>", "message": {...}}',
                                  file, line_no, sender=sender)
            continue
        value = frame["message"]
        if not isinstance(value, dict):
            yield not_an_object(value, file, line_no, sender)
            continue
        yield Message(value=value, file=file, line=line_no, sender=sender)


_FROM_PREFIX = re.compile(rb'\s*\{\s*"from"\s*:\s*"([^"\\]+)"')


def frame_sender(raw: bytes) -> str | None:
    """The `from` of one framed line, read from its bytes (the line may not parse, or may be only the start of a
    line too long to keep); None when it has none or nobody can tell."""
    if raw.count(b'"from"') >= 2 and _from_twice(raw):
        # two `from` keys (a parser lets the last win): a message that speaks for the frame around it. Nobody can
        # tell the sender, so its findings count against every role.
        return None
    match = _FROM_PREFIX.match(raw)
    if match:  # `from` first (how captures are written): the value a parser reads, without parsing the message
        return match.group(1).decode("utf-8", "replace")
    try:
        frame = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    return frame["from"] if isinstance(frame, dict) and isinstance(frame.get("from"), str) else None


# The frame as the harness writes it; whitespace inside (before the `}`, past one space after the colon) is the
# message's own, as it would be in a stream.
_FRAME_HEAD = re.compile(rb'\s*\{\s*"from"\s*:\s*"[^"\\]*"\s*,\s*"message"\s*: ?')
_FRAME_TAIL = re.compile(rb'\}\s*\Z')  # searched up to the line's end


def frame_bytes(raw: bytes) -> int:
    """How many bytes of a framed line are its frame: the `{"from": "<role>", "message": ` before the message and
    the `}` after it, at most FRAME_ALLOWANCE (0 for a line laid out any other way: all of it counts)."""
    end = _length(raw)  # without its line feed, as the line is measured
    head = _FRAME_HEAD.match(raw, 0, FRAME_ALLOWANCE)
    tail = _FRAME_TAIL.search(raw, max(end - 64, 0), end)
    if head is None or tail is None:
        return 0
    return min(head.end() + end - tail.start(), FRAME_ALLOWANCE)


def message_problem(raw: bytes, problem: JsonProblem) -> JsonProblem:
    """Why a framed line does not parse, said of the message inside its frame where the frame is intact and the
    message alone does not parse either (a line the program printed that is not JSON: `⚠ claude.ai connectors are
    disabled …`, recorded verbatim as the message): its words then count from the message's first character, as
    for the same line in a plain capture, so that every command and tier reads it one way (check/readers.py
    judge_non_json_line). Anything else (a frame that breaks off, a message that parses) keeps the line's problem."""
    end = _length(raw)
    head = _FRAME_HEAD.match(raw, 0, FRAME_ALLOWANCE)
    tail = _FRAME_TAIL.search(raw, max(end - 64, 0), end)
    if head is None or tail is None or tail.start() < head.end():
        return problem
    value, inner = parse_json(raw[head.end():tail.start()].strip())
    return inner if inner is not None and value is None and inner.code == problem.code else problem


def _from_twice(raw: bytes) -> bool:
    """Does this framed line hold the key `from` twice at its top level?"""
    _, problem = parse_json(raw.rstrip(b"\r\n"))
    return problem is not None and problem.code == "DUPLICATE_KEY" and problem.pointer == "/from"
