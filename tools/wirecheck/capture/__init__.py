"""Capture readers: bytes in, located `Message`s (or `Finding`s for what cannot be read) out.

`read_capture` sniffs the form from the content (documented in capture/README.md), so users never pass a flag
for it. Nothing here classifies or validates.
"""

from __future__ import annotations

import io
import itertools
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from wirecheck.capture import documents
from wirecheck.capture.artifacts import artifact_message, read_artifacts
from wirecheck.capture.http import read_exchanges, read_har
from wirecheck.capture.ndjson import (
    DEFAULT_MAX_LINE_BYTES,
    LineSink,
    capture_finding,
    iter_lines,
    read_framed,
    read_stream,
)
from wirecheck.check.message import ArtifactInfo, Message
from wirecheck.contracts.errors import ContractError
from wirecheck.findings import Finding, Severity
from wirecheck.json_text import parse_json
from wirecheck.json_types import json_type

if TYPE_CHECKING:
    from wirecheck.contracts.model import MessageKind

__all__ = ["DEFAULT_MAX_LINE_BYTES", "FORM_LOOKAHEAD", "CaptureFile", "CaptureUnreadable", "read_capture",
           "read_lines"]


class CaptureUnreadable(ContractError):
    """A capture that cannot be opened or read (a socket, no permission, an I/O error, closed stdin): like a missing
    capture, a usage error naming it (a ContractError without a file is what the CLI reports as one), never an
    internal error, nor taken for a failure to write the report."""

    def __init__(self, path: str, reason: str):
        super().__init__(f"cannot read capture {path}: {reason}")
        self.path, self.reason = path, reason

    def __reduce__(self) -> tuple[Any, ...]:  # crosses process boundaries (check/parallel.py)
        return (CaptureUnreadable, (self.path, self.reason))


class CaptureFile:
    """A capture path (or "-" for stdin); `form` is known once reading has started."""

    def __init__(self, path: str, as_kind: MessageKind | None = None):
        self.path = path
        # stream | framed | exchanges | har | artifacts | document | array | sequence | concatenated | corpus |
        # file | argv | env (see capture/README.md)
        self.form: str | None = None
        self.handle: IO[bytes] | None = None  # while open: lets a progress display poll tell()
        # `--as KIND`: every message is of this kind; a file, argv or env kind takes the whole capture as one
        self.as_kind = as_kind
        # a capture that is one JSON document is one file of a `channel: file` kind (its path matches the kind's
        # pattern); lines of JSON are read as lines all the same (`*.jsonl` kinds: each line is a message)
        self.bare_file = False

    @property
    def bare(self) -> str | None:
        """The channel whose one artifact the whole capture is (file, argv, env), or None."""
        if self.as_kind is not None and self.as_kind.channel in ("file", "argv", "env"):
            return self.as_kind.channel
        return "file" if self.bare_file else None

    @property
    def label(self) -> str:
        return self.path

    @contextmanager
    def open(self) -> Iterator[IO[bytes]]:
        if self.path == "-":
            if sys.stdin is None:  # started with standard input closed (`<&-`)
                raise CaptureUnreadable(self.path, "standard input is closed")
            yield sys.stdin.buffer
            return
        try:
            handle = open(self.path, "rb")  # noqa: SIM115 (closed below; the open itself is what may fail)
        except OSError as exc:
            raise CaptureUnreadable(self.path, exc.strerror or str(exc)) from None
        with handle:
            self.handle = handle
            try:
                yield handle
            finally:
                self.handle = None


_WHOLE_DOCUMENT_SUFFIXES = (".har", ".json")


_COMPRESSED = {b"\x1f\x8b": "gzip-compressed", b"(\xb5/\xfd": "zstd-compressed", b"BZh": "bzip2-compressed",
               b"\xfd7zXZ\x00": "xz-compressed", b"PK\x03\x04": "a zip archive"}


def read_capture(
    capture: CaptureFile, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES, raw_stream: bool = False,
    fast: Callable[[Any, int], bool] | None = None,
) -> Iterator[Message | Finding]:
    """Messages and findings in capture order. With `raw_stream`, a plain NDJSON stream yields (line, value) pairs
    instead of Messages, for a consumer that builds Messages only when it needs them and reports values that are
    not objects itself (`ndjson.not_an_object`); `fast` may then take objects straight from the line loop (it
    returns True for those it has dealt with, which are not yielded).

    A capture that cannot be opened or read raises CaptureUnreadable."""
    try:
        with capture.open() as stream:
            head = stream.peek(6)[:6] if hasattr(stream, "peek") else b""
            packed = next((name for magic, name in _COMPRESSED.items() if head.startswith(magic)), None)
            if packed is not None:  # else one INVALID_UTF8 per line of noise
                yield capture_finding("CAPTURE_FORMAT", f"the capture is {packed}: unpack it first (e.g. "
                                      f"`zcat FILE | wirecheck validate ... -`)", capture.label)
                return
            bare = capture.bare
            if bare in ("argv", "env"):
                capture.form = bare
                data = stream.read()
                if bare == "argv":
                    yield documents.bare_argv(data, capture.label)
                else:
                    program = capture.as_kind.program if capture.as_kind is not None else None
                    yield from documents.bare_env(data, capture.label, program)
                return
            if head.startswith(documents.RS):
                capture.form = "sequence"
                yield from documents.read_sequence(stream.read(), capture.label)
                return
            forced_file = capture.as_kind is not None and capture.as_kind.channel == "file"
            if forced_file or (capture.path != "-" and Path(capture.path).suffix.lower()
                               in _WHOLE_DOCUMENT_SUFFIXES) or _starts_a_document(stream):
                data = stream.read()

                def as_lines(text: bytes) -> Iterator[Any]:
                    return read_lines(io.BytesIO(text), capture, max_line_bytes, raw_stream, fast)

                yield from _read_document(data, capture, capture.label, as_lines)
                return
            yield from read_lines(stream, capture, max_line_bytes, raw_stream, fast)
    except OSError as exc:  # a read failed (EIO, EBADF, ...): not the report's output
        raise CaptureUnreadable(capture.path, exc.strerror or str(exc)) from None


def read_lines(
    stream: IO[bytes], capture: CaptureFile, max_line_bytes: int, raw_stream: bool,
    fast: Callable[[Any, int], bool] | None,
) -> Iterator[Any]:
    """A line-oriented capture, in the form its first lines announce (see read_capture)."""
    file = capture.label
    sink = LineSink()
    lines = iter_lines(stream, file, max_line_bytes, sink)
    # The form is what the first line of a known form says, looked for in the first FORM_LOOKAHEAD values: one
    # stray line at the top (a note, a broken exchange) must not turn a capture of exchanges into a "stream" of
    # unknown messages. Lines before it are read in that form too, so each is reported where it is.
    ahead: list[tuple[int, Any] | Finding] = []
    form, values = "stream", 0
    for item in lines:
        ahead.append(item)
        if isinstance(item, Finding):
            continue
        values += 1
        form = _form_of(item[1])
        if form != "stream" or values >= FORM_LOOKAHEAD:
            break
    capture.form = form
    if values == 0:  # nothing parsed: lines that failed say why themselves; else the capture is empty
        yield from (item for item in ahead if isinstance(item, Finding))
        if not any(item.severity is Severity.ERROR for item in ahead if isinstance(item, Finding)):
            yield capture_finding("EMPTY_CAPTURE", "the capture holds no messages", file)
        return
    if form == "framed":
        header_line, head = ahead.pop()  # type: ignore[misc]  # the last item read is the header
        version = head.get("wirecheck_capture")
        if type(version) is not int or version != 1 or head.get("framing") != "directed":  # true == 1 in Python
            yield capture_finding("CAPTURE_FORMAT", 'header must be {"wirecheck_capture": 1, '
                                  '"framing": "directed"}', file, header_line)
        if values > 1:
            yield capture_finding("CAPTURE_FORMAT", "the framing header must be the first line", file, header_line)
        sink.framed()  # the lines after the header (read ahead: only the header itself)
        yield from read_framed(itertools.chain(ahead, lines), file)
    elif form == "artifacts":
        yield from read_artifacts(itertools.chain(ahead, lines), file)
    elif form == "corpus":
        yield from documents.read_corpus(itertools.chain(ahead, lines), file)
    elif form == "exchanges":
        yield from read_exchanges(itertools.chain(ahead, lines), file)
    elif raw_stream:  # no generator between the line reader and the engine: this is the hot path
        if fast is not None:
            sink.accept = fast
        yield from itertools.chain(ahead, lines)
    else:
        yield from read_stream(itertools.chain(ahead, lines), file)


FORM_LOOKAHEAD = 8


def _form_of(value: object) -> str:
    """The capture form a line announces: framed (its header), artifacts, exchanges, or stream (anything else)."""
    if isinstance(value, dict):
        if "wirecheck_capture" in value:
            return "framed"
        if "wirecheck_artifact" in value:
            return "artifacts"
        if documents.is_corpus_entry(value):
            return "corpus"
    return "exchanges" if _is_exchange(value) else "stream"


def _is_exchange(value: object) -> bool:
    """An exchange line: {"request": {"method", "url", ...}, ...} (a stream message may have a `request` too)."""
    request = value.get("request") if isinstance(value, dict) else None
    return isinstance(request, dict) and isinstance(request.get("method"), str) and isinstance(request.get("url"), str)


def _starts_a_document(stream: IO[bytes]) -> bool:
    """Whether a capture without a .json suffix is one JSON document or several pretty-printed ones, not JSON lines:
    its first line is a lone `[` (an array of messages) or `{` (a pretty-printed object)."""
    head = stream.peek(4096)[:4096].lstrip() if hasattr(stream, "peek") else b""
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:].lstrip()
    return head.partition(b"\n")[0].strip() in (b"[", b"{")


def _read_document(
    data: bytes, capture: CaptureFile, file: str, as_lines: Callable[[bytes], Iterator[Any]]
) -> Iterator[Any]:
    if data.startswith(b"\xef\xbb\xbf"):
        yield capture_finding("BYTE_ORDER_MARK", "capture starts with a UTF-8 byte order mark", file)
        data = data[3:]
    if not data.strip():
        yield capture_finding("EMPTY_CAPTURE", "the capture holds no messages", file)
        return
    document, problem = parse_json(data.strip())
    if problem is not None and document is None:
        if _line_oriented(data):
            # not one document but lines of JSON (`cmd > out.json`): each line is read, and reported where it is
            yield from as_lines(data)
            return
        several = documents.read_concatenated(data, file)
        if several is not None:  # JSON texts one after another (pretty-printed objects)
            capture.form = "concatenated"
            yield from several
            return
    if problem is not None:
        yield capture_finding(problem.code, problem.message, file, where=problem.pointer)
        if document is None:
            return
    suffix = "-" if capture.path == "-" else Path(capture.path).suffix.lower()
    if capture.bare == "file" and not (isinstance(document, dict) and "wirecheck_artifact" in document):
        capture.form = "file"  # a file a program wrote, of a `channel: file` kind (the artifact envelope stays)
        yield Message(value=document, file=file, line=1, artifact=ArtifactInfo("file", path=capture.path))
    elif isinstance(document, dict) and "log" in document:
        capture.form = "har"
        yield from read_har(document, file)
    elif isinstance(document, dict) and "wirecheck_artifact" in document:
        capture.form = "artifacts"
        yield artifact_message(document, file, None, None)
    elif isinstance(document, list) and (
            not document or any(isinstance(d, dict) and "wirecheck_artifact" in d for d in document)):
        capture.form = "artifacts"  # a list of artifacts: one that is not is reported where it is, not the file
        for index, item in enumerate(document):
            yield artifact_message(item, file, None, f"/{index}")
    elif suffix == ".har":
        yield capture_finding(
            "CAPTURE_FORMAT", f"a .har capture must be a HAR 1.2 document (an object with `log`), found "
            f"{_described(document)}: name it .json to read it as plain JSON; {documents.HELP}", file)
    elif isinstance(document, list):
        capture.form = "array"
        yield from documents.read_array(document, file)
    elif isinstance(document, dict):
        capture.form = "document"  # one message (`claude -p --output-format json > result.json`)
        yield Message(value=document, file=file, line=1)
    else:
        yield capture_finding("NOT_AN_OBJECT", f"a message must be a JSON object, found {_described(document)} "
                              f"(the capture is one JSON document); {documents.HELP}", file)


def _described(document: Any) -> str:
    if isinstance(document, dict):
        keys = ", ".join(list(document)[:5]) + (", ..." if len(document) > 5 else "")
        return f"an object with keys {keys}" if document else "an empty object"
    return json_type(document)


def _line_oriented(data: bytes) -> bool:
    """Whether a .json/.har file that is not one JSON document is JSON lines: its first non-blank line is a JSON
    object by itself, and more follows (a pretty-printed document's first line, `{`, is not)."""
    text = data.lstrip()
    first, _, rest = text.partition(b"\n")
    if not rest.strip():
        return False
    value, problem = parse_json(first.rstrip(b"\r"))
    return isinstance(value, dict) and (problem is None or problem.code == "DUPLICATE_KEY")
