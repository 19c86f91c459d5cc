"""Capture readers: bytes in, located `Message`s (or `Finding`s for what cannot be read) out.

`read_capture` sniffs the form from the content (documented in capture/README.md), so users never pass a flag
for it. Nothing here classifies or validates. Every form is read in bounded pieces (source.py opens, ndjson.py cuts
lines, pieces.py cuts documents and record sequences): memory is one chunk plus one line or piece, never the
capture.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, cast

from wirecheck.capture import documents
from wirecheck.capture.artifacts import artifact_message, read_artifacts
from wirecheck.capture.http import read_exchanges, read_har, read_har_entries
from wirecheck.capture.ndjson import (
    BOM,
    DEFAULT_MAX_LINE_BYTES,
    LineSink,
    capture_finding,
    iter_lines,
    read_framed,
    read_stream,
)
from wirecheck.capture.pieces import HAR_ENTRIES, Broken, Duplicate, OutOfOrder, Piece, records, split_document
from wirecheck.capture.source import CaptureFile, CaptureUnreadable, Head, capture_problem
from wirecheck.check.message import ArtifactInfo, Message
from wirecheck.findings import Finding, Severity
from wirecheck.json_text import parse_json
from wirecheck.json_types import json_type

__all__ = ["DEFAULT_MAX_LINE_BYTES", "FORM_LOOKAHEAD", "CaptureFile", "CaptureUnreadable", "capture_problem",
           "read_capture", "read_lines"]


_WHOLE_DOCUMENT_SUFFIXES = (".har", ".json")
_YAML_SUFFIXES = (".yaml", ".yml")
# how to turn YAML into what wirecheck reads: one JSON line per YAML document (PyYAML comes with wirecheck)
YAML_REMEDY = ("wirecheck reads JSON (JSON lines, a JSON document, HAR): convert it first, one JSON line per YAML "
               "document: python3 -c 'import json, sys, yaml; [print(json.dumps(d)) for d in "
               "yaml.safe_load_all(sys.stdin)]' < FILE.yaml > FILE.jsonl")


_MAGIC_BYTES = 6
_COMPRESSED = {b"\x1f\x8b": "gzip-compressed", b"(\xb5/\xfd": "zstd-compressed", b"BZh": "bzip2-compressed",
               b"\xfd7zXZ\x00": "xz-compressed", b"PK\x03\x04": "a zip archive"}


def read_capture(
    capture: CaptureFile, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES, raw_stream: bool = False,
    fast: Callable[[Any, int], bool] | None = None, fast_frame: Callable[[Any, int], bool] | None = None,
) -> Iterator[Message | Finding]:
    """Messages and findings in capture order. With `raw_stream`, a plain NDJSON stream yields (line, value) pairs
    instead of Messages, for a consumer that builds Messages only when it needs them and reports values that are
    not objects itself (`ndjson.not_an_object`); `fast` may then take objects straight from the line loop (it
    returns True for those it has dealt with, which are not yielded), and `fast_frame` a framed capture's frames.

    A capture that cannot be opened or read raises CaptureUnreadable."""
    try:
        with capture.open() as raw:
            stream = Head(raw)
            readable = cast(IO[bytes], stream)  # a Head reads like the stream it wraps
            head = stream.peek(_MAGIC_BYTES)  # a pipe may hand over one byte at a time: peek waits for them all
            packed = next((name for magic, name in _COMPRESSED.items() if head.startswith(magic)), None)
            if packed is not None:  # else one INVALID_UTF8 per line of noise
                yield capture_finding("CAPTURE_FORMAT", f"the capture is {packed}: unpack it first (e.g. "
                                      f"`zcat FILE | wirecheck validate ... -`)", capture.label)
                return
            if capture.as_kind is None and capture.path != "-" and Path(capture.path).suffix.lower() in _YAML_SUFFIXES:
                yield capture_finding("CAPTURE_FORMAT", f"the capture is a YAML file: {YAML_REMEDY}", capture.label)
                return  # one finding, not one PARSE_ERROR per line
            bare = capture.bare
            if bare in ("argv", "env"):
                capture.form = bare
                data = readable.read(max_line_bytes + 1)
                if len(data) > max_line_bytes:
                    yield capture_finding("LINE_TOO_LONG", f"a {bare} capture of more than {max_line_bytes} bytes "
                                          "exceeds --max-line-bytes", capture.label)
                elif bare == "argv":
                    yield documents.bare_argv(data, capture.label)
                else:
                    program = capture.as_kind.program if capture.as_kind is not None else None
                    yield from documents.bare_env(data, capture.label, program)
                return
            if head.startswith(documents.RS):
                capture.form = "sequence"
                yield from documents.read_sequence(records(readable, max_line_bytes), capture.label)
                return
            forced_file = capture.as_kind is not None and capture.as_kind.channel == "file"
            if forced_file or (capture.path != "-" and Path(capture.path).suffix.lower()
                               in _WHOLE_DOCUMENT_SUFFIXES) or _starts_a_document(stream, max_line_bytes):
                yield from _read_document(stream, capture, max_line_bytes,
                                          lambda: read_lines(readable, capture, max_line_bytes, raw_stream, fast,
                                                             fast_frame))
                return
            yield from read_lines(readable, capture, max_line_bytes, raw_stream, fast, fast_frame)
    except OSError as exc:  # a read failed (EIO, EBADF, ...): not the report's output
        raise CaptureUnreadable(capture.path, exc.strerror or str(exc)) from None


def read_lines(
    stream: IO[bytes], capture: CaptureFile, max_line_bytes: int, raw_stream: bool,
    fast: Callable[[Any, int], bool] | None, fast_frame: Callable[[Any, int], bool] | None = None,
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
        if any(isinstance(item, Finding) and "looks like YAML" in item.message for item in ahead):
            yield capture_finding("CAPTURE_FORMAT", f"no line is JSON and the capture looks like YAML: {YAML_REMEDY}",
                                  file)  # said once, after the lines
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
        if raw_stream and fast_frame is not None:
            sink.accept = fast_frame
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


def _starts_a_document(stream: Head, max_bytes: int) -> bool:
    """Whether a capture without a .json suffix is one JSON document or several pretty-printed ones, not JSON lines:
    its first line is a lone `[` (an array of messages) or `{` (a pretty-printed object)."""
    head = stream.peek_until(_first_line_and_more, min(max_bytes, 1 << 16) + 1).lstrip()
    if head.startswith(BOM):
        head = head[len(BOM):].lstrip()
    return head.partition(b"\n")[0].strip() in (b"[", b"{")


def _read_document(
    stream: Head, capture: CaptureFile, max_bytes: int, as_lines: Callable[[], Iterator[Any]]
) -> Iterator[Any]:
    """A capture that is JSON but not lines of it, read in pieces (pieces.py), each bounded by `max_bytes` like a
    line: a HAR's entries, an array's items, one document, or documents one after another (each at the line it
    starts on); or, when it is JSON lines after all (`cmd > out.json`), line by line."""
    file = capture.label
    if stream.peek(len(BOM)) == BOM:
        yield capture_finding("BYTE_ORDER_MARK", "capture starts with a UTF-8 byte order mark", file)
        stream.read(len(BOM))
    if _line_oriented(stream.peek_until(_first_line_and_more, max_bytes + 1)):
        yield from as_lines()  # each line is read, and reported where it is
        return
    bare_file = capture.bare == "file"
    splitter = split_document(cast(IO[bytes], stream), max_bytes, whole=bare_file)
    # the first top-level value: one document, or the first of several (the next piece tells)
    first: tuple[Piece, Any, list[Finding]] | None = None
    for piece in splitter:
        if isinstance(piece, Duplicate | OutOfOrder):
            yield _envelope_finding(piece, file)
            continue
        if isinstance(piece, Broken):
            if first is not None:
                yield from _one_document(capture, *first)
            yield capture_finding("PARSE_ERROR", f"not valid JSON: {piece.message}", file, piece.line,
                                  where=piece.pointer or None)
            return
        if piece.document > 0 and (capture.form not in (None, "concatenated") or splitter.envelope
                                   or () in splitter.entered):
            yield capture_finding("PARSE_ERROR", "not valid JSON: a second JSON value follows the document "
                                  f"(a {capture.form} capture is one document)", file, piece.line)
            return
        value, findings = _piece_value(piece, file)
        if piece.pointer == "" and piece.document == 0:
            first = (piece, value, findings)
            continue
        if piece.document > 0 and piece.pointer == "":  # JSON texts one after another (pretty-printed objects)
            capture.form = "concatenated"
            if first is not None:
                yield from _concatenated(*first, file)
                first = None
            yield from _concatenated(piece, value, findings, file)
            continue
        yield from findings
        if value is None and findings:
            continue
        if piece.pointer.startswith("/log/entries/"):
            capture.form = "har"
            yield from read_har_entries([(int(piece.pointer.rsplit("/", 1)[1]), value)], file)
        else:
            yield from _array_item(capture, piece, value, file)
            if capture.form is None:  # the array is not one this form reads: said once, for the file
                return
    if first is not None:
        yield from _one_document(capture, *first)
    elif splitter.envelope and HAR_ENTRIES not in splitter.entered:
        capture.form = "har"
        yield capture_finding("CAPTURE_FORMAT", "a HAR file needs log.entries (an array)", file, where="/log")
    elif HAR_ENTRIES in splitter.entered:
        capture.form = "har"
    elif () in splitter.entered and capture.form is None:  # `[]`: a list of no artifacts
        capture.form = "artifacts"
    elif capture.form is None and not splitter.envelope and not splitter.pieces:
        yield capture_finding("EMPTY_CAPTURE", "the capture holds no messages", file)


def _envelope_finding(said: Duplicate | OutOfOrder, file: str) -> Finding:
    """A key given twice in a document's envelope (`log` twice; `entries` twice in it), or entries that were not put
    in time order."""
    if isinstance(said, OutOfOrder):
        return capture_finding(
            "ENTRY_ORDER", f"item {said.index} is earlier than the one before it (by `{said.member}`), and the items "
            f"were checked in the order they are written, not in time order: {said.reason}", file,
            where=f"{said.pointer}/{said.index}")
    if said.checked:
        return capture_finding(
            "DUPLICATE_KEY", f"the key `{said.key}` is given again here (first at line {said.other_line}): JSON "
            "readers (JavaScript's JSON.parse, Python's json) keep this later copy; the earlier one was checked too, "
            "because the capture is read once (a pipe): save it to a file to have only this copy checked", file,
            said.line, where=said.pointer)
    return capture_finding(
        "DUPLICATE_KEY", f"the key `{said.key}` is given again at line {said.other_line}: JSON readers (JavaScript's "
        "JSON.parse, Python's json) keep the last copy, so that one is checked and this one is not", file, said.line,
        where=said.pointer)


def _piece_value(piece: Piece, file: str) -> tuple[Any, list[Finding]]:
    """A piece parsed strictly, with what is wrong with it located at its pointer (or its line, for a top-level
    value); (None, [...]) when unreadable."""
    line = piece.line if piece.pointer == "" else None
    if piece.data is None:
        return None, [capture_finding("LINE_TOO_LONG", f"a value of {piece.size} bytes exceeds --max-line-bytes "
                                      "(skipped without being held in memory)", file, line,
                                      where=piece.pointer or None)]
    value, problem = parse_json(piece.data.strip(), piece.line)
    if problem is None:
        return value, []
    where = piece.pointer + (problem.pointer or "")
    message = problem.message if piece.complete else f"{problem.message} (the document ends inside this value)"
    if line is not None:
        return value, [capture_finding(problem.code, message, file, line, pointer=problem.pointer)]
    return value, [capture_finding(problem.code, message, file, where=where or None)]


def _concatenated(piece: Piece, value: Any, findings: list[Finding], file: str) -> Iterator[Message | Finding]:
    """One of several JSON texts one after another: a message at the line it starts on."""
    yield from findings
    if value is not None or not findings:
        yield documents.message_at_line(value, file, piece.line)


def _array_item(capture: CaptureFile, piece: Piece, value: Any, file: str) -> Iterator[Message | Finding]:
    """An item of a top-level array: a list of artifacts, or of messages, as its first item says (a `.har` holds
    neither)."""
    if capture.form is None:
        if isinstance(value, dict) and "wirecheck_artifact" in value:
            capture.form = "artifacts"
        elif capture.path != "-" and Path(capture.path).suffix.lower() == ".har":
            yield capture_finding("CAPTURE_FORMAT", "a .har capture must be a HAR 1.2 document (an object with "
                                  f"`log`), found an array: name it .json to read it as plain JSON; {documents.HELP}",
                                  file)
            return
        else:
            capture.form = "array"
    if capture.form == "artifacts":
        yield artifact_message(value, file, None, piece.pointer)
    else:
        yield from documents.read_array_item(value, file, piece.pointer)


def _one_document(capture: CaptureFile, piece: Piece, document: Any,
                  findings: list[Finding]) -> Iterator[Message | Finding]:
    """The capture is one JSON document (its only top-level value)."""
    file = capture.label
    yield from findings
    if document is None and findings:
        return
    suffix = "-" if capture.path == "-" else Path(capture.path).suffix.lower()
    if capture.bare == "file" and not (isinstance(document, dict) and "wirecheck_artifact" in document):
        capture.form = "file"  # a file a program wrote, of a `channel: file` kind (the artifact envelope stays)
        yield Message(value=document, file=file, line=1, artifact=ArtifactInfo("file", path=capture.path))
    elif isinstance(document, dict) and "log" in document:  # a HAR whose `log` is not its first key
        capture.form = "har"
        yield from read_har(document, file)
    elif isinstance(document, dict) and "wirecheck_artifact" in document:
        capture.form = "artifacts"
        yield artifact_message(document, file, None, None)
    elif isinstance(document, list) and (
            not document or any(isinstance(d, dict) and "wirecheck_artifact" in d for d in document)):
        capture.form = "artifacts"  # a bare file that is a list of artifacts
        for index, item in enumerate(document):
            yield artifact_message(item, file, None, f"/{index}")
    elif suffix == ".har":
        yield capture_finding(
            "CAPTURE_FORMAT", f"a .har capture must be a HAR 1.2 document (an object with `log`), found "
            f"{_described(document)}: name it .json to read it as plain JSON; {documents.HELP}", file)
    elif isinstance(document, list):
        capture.form = "array"
        for index, item in enumerate(document):
            yield from documents.read_array_item(item, file, f"/{index}")
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


def _first_line_and_more(head: bytes) -> bool:
    """Enough of a capture is read to tell whether it is JSON lines: its first non-blank line, and a byte of what
    follows it."""
    text = head.lstrip()
    end = text.find(b"\n")
    return end >= 0 and bool(text[end:].strip())


def _line_oriented(head: bytes) -> bool:
    """Whether a .json/.har file that is not one JSON document is JSON lines: its first non-blank line is a JSON
    object by itself, and more follows (a pretty-printed document's first line, `{`, is not); or its first line is
    no JSON at all (a warning a program printed before its JSON, YAML), which is then reported as the line it is."""
    text = head.lstrip()
    first, _, rest = text.partition(b"\n")
    if not rest.strip():
        return False
    if not first.startswith((b"{", b"[")):
        return True
    value, problem = parse_json(first.rstrip(b"\r"))
    return isinstance(value, dict) and (problem is None or problem.code == "DUPLICATE_KEY")
