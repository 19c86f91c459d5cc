"""Plain files in: captures that are not lines of JSON but one document, or a file a program wrote.

- one JSON object (`claude -p --output-format json > result.json`): one message;
- a JSON array of messages: each element one message, located by its index (`/3`);
- a JSON text sequence (RFC 7464: each record starts with the record separator 0x1E): each record one message;
- JSON objects one after another, pretty-printed (`jq . a.json b.json > both.json`): each one message, located by
  the line it starts on;
- a bare file of a `channel: file` kind (`opencode.json`), matched by the kind's path pattern or named with `--as`;
- with `--as` an argv kind: a shell-quoted command line (or a JSON array of strings); an env kind: `env` output,
  NAME=VALUE a line (or a JSON object of strings).

Everything is parsed strictly (duplicate keys, NaN, bad UTF-8 are located findings, as for lines), one bounded
piece at a time (capture/pieces.py cuts documents and sequences; capture/__init__.py decides the form).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Iterator
from typing import Any

from wirecheck.capture.ndjson import capture_finding, not_an_object
from wirecheck.capture.pieces import Piece
from wirecheck.capture.shell_words import shell_words
from wirecheck.check.message import ArtifactInfo, CorpusEntry, HttpInfo, Message
from wirecheck.findings import Finding
from wirecheck.json_text import parse_json
from wirecheck.json_types import json_type

RS = b"\x1e"  # RFC 7464 record separator
HELP = "see `wirecheck help captures`"


def read_array_item(value: Any, file: str, where: str) -> Iterator[Message | Finding]:
    """One element of a JSON array of messages, located by its pointer (`/3`)."""
    if isinstance(value, dict):
        yield Message(value=value, file=file, where=where)
    else:
        yield capture_finding("NOT_AN_OBJECT", f"a message must be a JSON object, found {json_type(value)} (the "
                              "capture is a JSON array: each element is one message)", file, where=where)


def read_sequence(sequence: Iterable[Piece], file: str) -> Iterator[Message | Finding]:
    """An RFC 7464 JSON text sequence: records `RS JSON-text LF` (cut by pieces.records, each bounded like a
    line); each record one message, at the line it starts."""
    for record in sequence:
        start, data = record.line, record.data
        if record.document == 0:
            if data is None or data.strip():
                yield capture_finding("PARSE_ERROR", "text before the first record separator (0x1E) of a JSON text "
                                      f"sequence; {HELP}", file, start)
            continue
        if data is None:
            yield capture_finding("LINE_TOO_LONG", f"a record of {record.size} bytes exceeds --max-line-bytes "
                                  "(skipped without being held in memory)", file, start)
            continue
        if not data.strip():
            continue  # RFC 7464 §2.1: empty records are skipped
        value, problem = parse_json(data.strip())
        if problem is not None:
            yield capture_finding(problem.code, problem.message, file, start, pointer=problem.pointer)
            if value is None:
                continue
        yield message_at_line(value, file, start)


def message_at_line(value: Any, file: str, line: int) -> Message | Finding:
    """A value read from the text starting at `line`: a message when it is an object."""
    return Message(value=value, file=file, line=line) if isinstance(value, dict) else not_an_object(value, file, line)


def is_corpus_entry(value: dict[str, Any]) -> bool:
    """A line of `wirecheck fuzz`: {"kind", "expect": "accept"|"reject", "message", "http"?, "breaks"?}."""
    return value.get("expect") in ("accept", "reject") and isinstance(value.get("kind"), str) and "message" in value


def read_corpus(items: Iterator[tuple[int, Any] | Finding], file: str) -> Iterator[Message | Finding]:
    """A `wirecheck fuzz` corpus: each entry's message, carrying what the entry says of it (the engine checks the
    message as that kind, alone, and reports only entries not judged as they expect)."""
    for item in items:
        if isinstance(item, Finding):
            yield item
            continue
        line, entry = item
        if not (isinstance(entry, dict) and is_corpus_entry(entry)):
            yield capture_finding("CAPTURE_FORMAT", 'a corpus line must be {"kind", "expect": "accept"|"reject", '
                                  f'"message"}} as `wirecheck fuzz` writes; {HELP}', file, line)
            continue
        yield Message(value=entry["message"], file=file, line=line, http=_corpus_envelope(entry.get("http")),
                      corpus=CorpusEntry(entry["kind"], entry["expect"], entry.get("breaks")))


def _corpus_envelope(http: Any) -> HttpInfo | None:
    """An HTTP entry's envelope as `wirecheck fuzz` writes it ({"method", "path", "status"?, "headers"}): the
    status and headers its rules read. Anything else is no envelope (the body is then judged alone)."""
    if not (isinstance(http, dict) and isinstance(http.get("method"), str) and isinstance(http.get("path"), str)):
        return None
    status, headers = http.get("status"), http.get("headers")
    if not (status is None or type(status) is int) or not isinstance(headers, dict):
        return None
    return HttpInfo(method=http["method"], url=http["path"], path=http["path"], status=status,
                    headers={str(k).lower(): v for k, v in headers.items() if isinstance(v, str)})


def bare_file(data: bytes, file: str, path: str) -> Message | Finding:
    """The whole capture is one file a program wrote (a `channel: file` kind)."""
    value, problem = parse_json(data.strip())
    if problem is not None:
        finding = capture_finding(problem.code, f"{path}: {problem.message}", file, pointer=problem.pointer)
        if value is None:
            return finding
    return Message(value=value, file=file, line=1, artifact=ArtifactInfo("file", path=path))


def bare_argv(data: bytes, file: str) -> Message | Finding:
    """A command line: shell-quoted text (`opencode run 'fix it' --format json`), or a JSON array of strings."""
    text, problem = _text(data, file)
    if problem is not None:
        return problem
    if text.lstrip().startswith("["):
        argv, parse_problem = parse_json(data.strip())
        if parse_problem is not None or not (isinstance(argv, list) and all(isinstance(a, str) for a in argv)):
            return capture_finding("CAPTURE_FORMAT", "a command line in JSON must be an array of strings; "
                                   f"{HELP}", file, 1)
    else:
        try:
            argv = shell_words(text)
        except ValueError as exc:  # an unclosed quote
            return capture_finding("CAPTURE_FORMAT", f"not a shell-quoted command line: {exc}; {HELP}", file, 1)
    if not argv:
        return capture_finding("EMPTY_CAPTURE", "the capture holds no command line", file)
    program = posixpath.basename(argv[0].replace("\\", "/"))
    return Message(value=argv, file=file, line=1, artifact=ArtifactInfo("argv", program=program))


def bare_env(data: bytes, file: str, program: str | None) -> Iterator[Message | Finding]:
    """An environment: `env` output (NAME=VALUE a line; a line without `=` continues the value before it, as a
    value with a newline prints), or a JSON object of strings."""
    text, problem = _text(data, file)
    if problem is not None:
        yield problem
        return
    if text.lstrip().startswith("{"):
        env, parse_problem = parse_json(data.strip())
        if parse_problem is not None or not (isinstance(env, dict) and all(isinstance(v, str) for v in env.values())):
            yield capture_finding("CAPTURE_FORMAT", f"an environment in JSON must be an object of strings; {HELP}",
                                  file, 1)
            return
    else:
        lines: dict[str, list[str]] = {}  # a value's lines, joined once: `+=` on a string is quadratic
        last: list[str] | None = None
        for number, line in enumerate(text.splitlines(), 1):
            name, sep, value = line.partition("=")
            if sep and name and " " not in name:
                if name in lines:  # glibc's getenv reads the first; a later one is never seen
                    yield capture_finding("DUPLICATE_KEY", f"{name} is set again on line {number}: getenv (glibc "
                                          "stdlib/getenv.c) reads the first, this one is ignored", file, number)
                    last = []
                else:
                    last = lines[name] = [value]
            elif last is not None:
                last.append(line)
            elif line.strip():
                yield capture_finding("CAPTURE_FORMAT", f"not NAME=VALUE (`env` output): {line[:80]!r}; {HELP}",
                                      file, number)
        env = {name: "\n".join(parts) for name, parts in lines.items()}
    yield Message(value=env, file=file, line=1, artifact=ArtifactInfo("env", program=program))


def _text(data: bytes, file: str) -> tuple[str, Finding | None]:
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return "", capture_finding("INVALID_UTF8", f"not UTF-8 at byte {exc.start}", file, 1)
