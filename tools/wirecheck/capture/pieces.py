"""Whole-document captures (`.har`, `.json`) read in bounded pieces, never whole.

A HAR file keeps its messages in the array `log.entries`; a JSON array keeps them as its items; a file may also
hold several JSON values one after another. `split_document` walks the bytes once, tracking nothing but strings and
brackets (regular expressions jump from one to the next, in C), and hands out each entry, item or top-level value
as its raw bytes, which the caller parses strictly on its own (`json_text.parse_json`: duplicate keys, NaN and
integers beyond 64 bits still show). Memory is one chunk plus one piece, whatever the document's size: a piece
longer than the byte limit streams past without being kept and comes out with its size only. A document that is
not JSON where the walk needs it to be (a missing `,`, a document cut short) comes out as a `Broken` at its line,
after every piece before it.

Which arrays hold pieces is data (`envelopes`: key paths such as ("log", "entries")). A top-level object is such
an envelope when its first key starts one of them (every HAR writer puts `log` first: HAR 1.2 gives the top level
no other member); any other top-level value, or array item, is a piece. `records` cuts an RFC 7464 JSON text
sequence at its record separators, with the same bound.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

import orjson

from wirecheck.pointer import format_pointer

CHUNK_BYTES = 1 << 20
HAR_ENTRIES = ("log", "entries")

_SPACE = re.compile(rb"[ \t\r\n]*+")


def _skipper(levels: int) -> re.Pattern[bytes]:
    """Inside a value only its depth matters. One match skips everything up to the next bracket that does not close
    within `levels` levels: whole strings (which hide brackets) and whole containers nested up to `levels` deep, so
    a HAR entry is one step, not one per bracket. Possessive throughout: it never backtracks."""
    string = rb'"(?:[^"\\]++|\\.)*+"'
    body = rb"(?:[^\"\[\]{}]++|" + string + rb")*+"
    for _ in range(levels):
        body = rb"(?:[^\"\[\]{}]++|" + string + rb"|[\[{]" + body + rb"[\]}])*+"
    return re.compile(body, re.DOTALL)


_SKIP = _skipper(6)
_STRING_BODY = re.compile(rb'(?:[^"\\]++|\\.)*+', re.DOTALL)  # a string's contents, up to its closing quote
_SCALAR = re.compile(rb'[^ \t\r\n,:\[\]{}"]*+')  # a number, true, false, null (or junk) up to what ends it
_NOT_A_VALUE = frozenset(b",:]}")  # what no value starts with
_KEY_LIMIT = 4096  # bytes of an envelope key worth reading: no envelope path has a longer one


@dataclass(frozen=True, slots=True)
class Piece:
    """One value cut out of a document: an envelope's array item, a top-level array's item, or a top-level value."""

    document: int  # which top-level value of the file it is in (0 for the first; more for concatenated values)
    pointer: str  # its JSON pointer within that top-level value ("" for the value itself)
    line: int  # the 1-based line it starts on
    data: bytes | None  # its bytes; None when it is longer than the limit and was not kept
    size: int  # its length in bytes
    complete: bool = True  # False when the input ended inside it


@dataclass(frozen=True, slots=True)
class Broken:
    """The document stops being JSON where the walk needs structure (it stops there, after every piece before)."""

    line: int
    pointer: str
    message: str


class _Bytes:
    """The input seen through a window: `buf[pos:]` is unread; the piece being kept starts at `buf[mark]`."""

    def __init__(self, stream: IO[bytes], max_bytes: int):
        self._read = getattr(stream, "read1", stream.read)
        self.buf = b""
        self.pos = 0
        self.ended = False
        self._line = 1  # the line of buf[self._counted]
        self._counted = 0
        self.mark = -1
        self._parts: list[bytes] = []
        self._size = 0
        self._max = max_bytes

    def more(self) -> bool:
        """Read on, dropping what is consumed (the piece being kept moves to its parts); False at the end."""
        if self.ended:
            return False
        chunk = self._read(CHUNK_BYTES)
        if not chunk:
            self.ended = True
            return False
        self._line += self.buf.count(b"\n", self._counted, self.pos)
        if self.mark >= 0:
            self._keep(self.buf[self.mark:self.pos])
            self.mark = 0
        self.buf = self.buf[self.pos:] + chunk
        self.pos = self._counted = 0
        return True

    def line_at(self, pos: int) -> int:
        self._line += self.buf.count(b"\n", self._counted, pos)
        self._counted = pos
        return self._line

    def _keep(self, data: bytes) -> None:
        self._size += len(data)
        if self._size > self._max:
            self._parts = []
        else:
            self._parts.append(data)

    def begin(self) -> None:
        self.mark, self._parts, self._size = self.pos, [], 0

    def end(self) -> tuple[bytes | None, int]:
        """The kept piece (None when it grew past the limit) and its size."""
        self._keep(self.buf[self.mark:self.pos])
        self.mark = -1
        data = b"".join(self._parts) if self._size <= self._max else None
        self._parts = []
        return data, self._size

    def space(self) -> bool:
        """Skip white space; True when a byte follows."""
        while True:
            self.pos = _SPACE.match(self.buf, self.pos).end()  # type: ignore[union-attr]  # always matches
            if self.pos < len(self.buf) or not self.more():
                return self.pos < len(self.buf)

    def string(self) -> bool:
        """Consume the string starting at pos (at its quote); False when the input ends inside it."""
        self.pos += 1
        while True:
            self.pos = _STRING_BODY.match(self.buf, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.buf) and self.buf[self.pos] == 0x22:
                self.pos += 1
                return True
            if not self.more():  # at the end, or at a backslash whose escaped byte is still to come
                self.pos = len(self.buf)
                return False

    def rest_of_container(self, depth: int) -> bool:
        """Consume until `depth` open brackets are closed; False when the input ends first."""
        buf, pos, skip = self.buf, self.pos, _SKIP.match
        while True:
            pos = skip(buf, pos).end()  # type: ignore[union-attr]  # always matches
            if pos == len(buf):
                self.pos = pos
                if not self.more():
                    return False
                buf, pos = self.buf, self.pos
                continue
            byte = buf[pos]
            if byte == 0x22:  # a string that goes on past this window
                self.pos = pos
                if not self.string():
                    return False
                buf, pos = self.buf, self.pos
                continue
            pos += 1
            depth += 1 if byte == 0x7B or byte == 0x5B else -1
            if depth == 0:
                self.pos = pos
                return True

    def value(self) -> bool:
        """Consume one value starting at pos (not white space); False when the input ends inside it."""
        byte = self.buf[self.pos]
        if byte in b"[{":
            self.pos += 1
            return self.rest_of_container(1)
        if byte == 0x22:
            return self.string()
        while True:
            self.pos = _SCALAR.match(self.buf, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.buf) or not self.more():
                return True

    def kept_size(self) -> int:
        """Bytes of the piece being kept, so far."""
        return self._size + self.pos - self.mark

    def kept_tail(self, offset: int) -> bytes | None:
        """The piece being kept from byte `offset` on, when that is short enough to be an envelope's key."""
        if self.kept_size() - offset > _KEY_LIMIT or self._size > self._max:
            return None
        return (b"".join(self._parts) + self.buf[self.mark:self.pos])[offset:]

    def key(self) -> str | None:
        """The object key starting at pos (at its quote), decoded; None when it is not one (or too long to matter)."""
        self.begin()
        complete = self.string()
        data = self.kept_tail(0)
        self.end()
        return _decoded_key(data) if complete else None


def _decoded_key(data: bytes | None) -> str | None:
    if data is None:
        return None
    try:
        key = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    return key if isinstance(key, str) else None


class DocumentSplitter:
    """Iterate it for `Piece`s and `Broken`s; afterwards `entered` holds the envelope paths the document had
    (("log",), ("log", "entries")), so a reader can tell "no entries array" from "no entries"."""

    def __init__(self, stream: IO[bytes], max_bytes: int, envelopes: tuple[tuple[str, ...], ...] = (HAR_ENTRIES,),
                 whole: bool = False):
        self._in = _Bytes(stream, max_bytes)
        self._whole = whole  # every top-level value is one piece: no envelope, no array items
        self._arrays = frozenset(() if whole else envelopes)
        self._prefixes = frozenset(path[:n] for path in envelopes for n in range(1, len(path)))
        self.entered: set[tuple[str, ...]] = set()  # envelope paths met (() for a top-level array)
        self.envelope = False  # whether a top-level object was walked as an envelope
        self.pieces = 0  # how many were handed out
        self.stopped = False  # a Broken was handed out: nothing more is
        self._document = 0

    def __iter__(self) -> Iterator[Piece | Broken]:
        data = self._in
        while data.space():
            start = data.pos
            line = data.line_at(start)
            if data.buf[start] in _NOT_A_VALUE:
                yield self._broken((), f"expected a value, found {chr(data.buf[start])!r}")
                return
            if data.buf[start] == 0x5B and not self._whole:  # a top-level array: its items are the pieces
                yield from self._array((), line)
                if self.stopped:
                    return
            elif data.buf[start] == 0x7B:
                yield from self._object_or_envelope(line)
                if self.stopped:
                    return
            else:
                data.begin()
                complete = data.value()
                yield self._piece("", line, complete)
            self._document += 1

    def _piece(self, pointer: str, line: int, complete: bool) -> Piece:
        self.pieces += 1
        data, size = self._in.end()
        return Piece(self._document, pointer, line, data, size, complete)

    def _broken(self, path: tuple[str, ...], message: str) -> Broken:
        """Where the walk lost its place: nothing after it is read (what follows is no longer known to be
        structure)."""
        data = self._in
        self.stopped = True
        broken = Broken(data.line_at(min(data.pos, len(data.buf))), format_pointer(path), message)
        data.ended, data.buf, data.pos, data.mark = True, b"", 0, -1
        data.line_at(0)
        return broken

    def _object_or_envelope(self, line: int) -> Iterator[Piece | Broken]:
        data = self._in
        data.begin()
        data.pos += 1
        if data.space() and data.buf[data.pos] == 0x22:
            offset = data.kept_size()
            complete = data.string()
            key = _decoded_key(data.kept_tail(offset)) if complete else None
            if key is not None and (key,) in self._prefixes | self._arrays:
                data.mark = -1  # not a piece: an envelope, walked for the arrays it holds
                self.envelope = True
                yield from self._members((), key)
                return
            if not complete:
                yield self._piece("", line, False)
                return
        yield self._piece("", line, data.rest_of_container(1))

    def _members(self, path: tuple[str, ...], key: str | None) -> Iterator[Piece | Broken]:
        """An envelope object's members, from its first key on (pos after that key)."""
        data = self._in
        while True:
            if key is None:
                yield self._broken(path, "expected an object key (a string) here")
                return
            if not data.space() or data.buf[data.pos] != 0x3A:
                yield self._broken(path, f"expected `:` after the key {key!r}")
                return
            data.pos += 1
            if not data.space():
                yield self._broken((*path, key), "the document ends before this value")
                return
            child = (*path, key)
            byte = data.buf[data.pos]
            if byte in _NOT_A_VALUE:
                yield self._broken(child, f"expected a value, found {chr(byte)!r}")
                return
            if child in self._arrays and byte == 0x5B:
                yield from self._array(child, data.line_at(data.pos))
            elif child in self._prefixes and byte == 0x7B:
                yield from self._envelope(child)
            elif not data.value():
                yield self._broken(child, "the document ends inside this value")
                return
            if self.stopped:
                return
            if not data.space():
                yield self._broken(path, "the document ends before this object's closing `}`")
                return
            byte = data.buf[data.pos]
            data.pos += 1
            if byte == 0x7D:
                return
            if byte != 0x2C or not data.space() or data.buf[data.pos] != 0x22:
                yield self._broken(path, "expected `,` and the next key, or `}`")
                return
            key = data.key()

    def _envelope(self, path: tuple[str, ...]) -> Iterator[Piece | Broken]:
        data = self._in
        self.entered.add(path)
        data.pos += 1
        if not data.space():
            yield self._broken(path, "the document ends inside this object")
            return
        if data.buf[data.pos] == 0x7D:
            data.pos += 1
            return
        if data.buf[data.pos] != 0x22:
            yield self._broken(path, "expected an object key (a string) here")
            return
        yield from self._members(path, data.key())

    def _array(self, path: tuple[str, ...], line: int) -> Iterator[Piece | Broken]:
        data = self._in
        self.entered.add(path)
        data.pos += 1
        base = format_pointer(path)
        index = 0
        while True:
            if not data.space():
                yield self._broken(path, "the document ends before this array's closing `]`")
                return
            if data.buf[data.pos] == 0x5D and index == 0:
                data.pos += 1
                return
            if data.buf[data.pos] in _NOT_A_VALUE:
                yield self._broken((*path, str(index)), f"expected a value, found {chr(data.buf[data.pos])!r}")
                return
            line = data.line_at(data.pos)
            data.begin()
            complete = data.value()
            yield self._piece(f"{base}/{index}", line, complete)
            if not complete:  # the input ended inside it: said with the piece, nothing more to say
                self.stopped = True
                return
            if not data.space():
                yield self._broken(path, "the document ends before this array's closing `]`")
                return
            byte = data.buf[data.pos]
            data.pos += 1
            if byte == 0x5D:
                return
            if byte != 0x2C:
                yield self._broken(path, f"expected `,` or `]` after item {index}, found {chr(byte)!r}")
                return
            index += 1


def split_document(stream: IO[bytes], max_bytes: int, envelopes: tuple[tuple[str, ...], ...] = (HAR_ENTRIES,),
                   whole: bool = False) -> DocumentSplitter:
    """The pieces of the document in `stream` (see the module docstring); iterate the result. With `whole`, each
    top-level value is one piece (a bare file: the whole capture is one value)."""
    return DocumentSplitter(stream, max_bytes, envelopes, whole)


RS = 0x1E  # RFC 7464 record separator


def records(stream: IO[bytes], max_bytes: int) -> Iterator[Piece]:
    """An RFC 7464 JSON text sequence cut at its record separators (JSON text holds no raw 0x1E, escaped or not in
    a string, so a separator always ends a record, even one cut short): each record's bytes as a Piece at the line
    it starts on, `document` its index (0: what comes before the first separator). A record longer than
    `max_bytes` streams past with its size only."""
    read = getattr(stream, "read1", stream.read)
    parts: list[bytes] = []
    size, line, start, index = 0, 1, 1, 0

    def record() -> Piece:
        return Piece(index, "", start, b"".join(parts) if size <= max_bytes else None, size)

    while True:
        chunk = read(CHUNK_BYTES)
        if not chunk:
            yield record()
            return
        pieces = chunk.split(bytes([RS]))
        for number, part in enumerate(pieces):
            if number:  # a separator came before this part: the record so far is done
                yield record()
                parts, size, start, index = [], 0, line, index + 1
            size += len(part)
            if size <= max_bytes:
                parts.append(part)
            else:
                parts = []
            line += part.count(b"\n")
