"""Whole-document captures (`.har`, `.json`) read in bounded pieces, never whole.

A HAR file keeps its messages in the array `log.entries`; a JSON array keeps them as its items; a file may also
hold several JSON values one after another. `split_document` walks the bytes, tracking nothing but strings and
brackets (regular expressions jump from one to the next, in C), and hands out each entry, item or top-level value
as its raw bytes, which the caller parses strictly on its own (`json_text.parse_json`: duplicate keys, NaN and
integers beyond 64 bits still show). Memory is one chunk plus one piece, whatever the document's size: a piece
longer than the byte limit streams past without being kept and comes out with its size only. A document that is
not JSON where the walk needs it to be (a missing `,`, a document cut short) comes out as a `Broken` at its line,
after every piece before it.

The walk gives the same pieces however the input is handed over (one byte per read, or the whole file): a regular
expression that meets the end of what has been read stops before the value it could not finish, and the walk reads
on and goes into that value bracket by bracket. The expressions are ordinary greedy ones, written so that each byte
can be read only one way (no possessive quantifier or atomic group: before Python 3.11.5 those could match past a
failed alternative, CPython gh-106052 and gh-100061, which cut a HAR wrongly wherever a read ended inside a string).

Which arrays hold pieces is data (`envelopes`: key paths such as ("log", "entries")). A top-level object is such
an envelope when its first key starts one of them (every HAR writer puts `log` first: HAR 1.2 gives the top level
no other member); any other top-level value, or array item, is a piece. In an envelope object a key given twice
(`{"log": {...}, "log": {...}}`) comes out as a `Duplicate`: JSON readers (JavaScript's JSON.parse, Python's json)
keep the last copy, so that is the one walked. When the input can be read again (a file, standard input from a
file) a first pass finds the last copies and the entries' order; from a pipe, which is read once, a copy is walked
as it comes and a later one is said to be there. The items of `ordered` arrays (a HAR's entries) come out in the
order of a member (`startedDateTime`, HAR 1.2 §4.2.16), stably, when they are not in it already and the input can be
read again. `records` cuts an RFC 7464 JSON text sequence at its record separators, with the same bound.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import IO

import orjson

from wirecheck.pointer import format_pointer

CHUNK_BYTES = 1 << 20
# bytes one regular expression match looks at: a match keeps what it would need to go back, about 90 times the bytes
# of tiny strings it passes (94 MiB for 1 MiB of `"a",`), so it is given at most this many at a time
STEP_BYTES = 1 << 16
HAR_ENTRIES = ("log", "entries")
# arrays whose items are handed out in the order of a member's time
HAR_ORDER: dict[tuple[str, ...], str] = {HAR_ENTRIES: "startedDateTime"}
KEYS_TRACKED = 1000  # distinct keys remembered per envelope object, for duplicates (envelope keys always are)
ORDER_LIMIT = 1_000_000  # items of an array put in time order (32 bytes each); past it, array order, and said

_WS = rb"[ \t\r\n]*"
_STRING = rb'"[^"\\]*(?:\\.[^"\\]*)*"'  # a whole string: runs of plain bytes, each escape one backslash and a byte
_PLAIN = rb'[^"\[\]{}]*'  # what is neither a string nor a bracket


def _nested(levels: int) -> bytes:
    """Inside a value only its depth matters: plain bytes, whole strings (which hide brackets) and whole containers
    nested up to `levels` deep, so a HAR entry is one step, not one per bracket. Every repetition starts with a byte
    the one before cannot hold (a quote, a bracket), so there is one way to read the bytes and a failed match gives
    back what it took in steps that each fail at once: no backtracking blow-up."""
    body = _PLAIN + rb"(?:" + _STRING + _PLAIN + rb")*"
    for _ in range(levels):
        body = _PLAIN + rb"(?:(?:" + _STRING + rb"|[\[{]" + body + rb"[\]}])" + _PLAIN + rb")*"
    return body


_SPACE = re.compile(_WS)
_SKIP = re.compile(_nested(6), re.DOTALL)  # up to the next bracket that does not close within 6 levels
_STRING_BODY = re.compile(rb'[^"\\]*(?:\\.[^"\\]*)*', re.DOTALL)  # a string's contents, up to its closing quote
_SCALAR_BYTE = rb'[^ \t\r\n,:\[\]{}"]'
_SCALAR = re.compile(_SCALAR_BYTE + rb"*")  # a number, true, false, null (or junk) up to what ends it
# An array item whole, and the `,` or `]` after it: found only when all of it has been read, so a match is a whole
# item (a number cut by the end of a read is not followed by its `,` yet)
_ITEM = re.compile(_WS + rb"([\[{]" + _nested(5) + rb"[\]}]|" + _STRING + rb"|" + _SCALAR_BYTE + rb"+)" + _WS
                   + rb"([,\]])", re.DOTALL)
_FIRST_MEMBER = re.compile(_WS + rb'\{' + _WS + rb'"([^"\\]*)"' + _WS + rb":" + _WS + rb'"([^"\\]*)"' + _WS + rb"[,}]")
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


@dataclass(frozen=True, slots=True)
class Duplicate:
    """A key given twice in an envelope object. Readers keep the last copy: `checked` says whether this copy was
    walked all the same (read from a pipe, an earlier copy is walked before the later one is known)."""

    line: int  # the line of this copy's key
    pointer: str  # the member's JSON pointer ("/log")
    key: str
    other_line: int  # the copy readers keep (when this one is not checked), else the earlier copy
    checked: bool


@dataclass(frozen=True, slots=True)
class OutOfOrder:
    """The items of an `ordered` array are not in the order of their time member, and are handed out as they are
    (read from a pipe, or more than ORDER_LIMIT of them); `index` is the first item earlier than the one before."""

    pointer: str
    index: int
    member: str
    reason: str


@dataclass(slots=True)
class _Member:
    offset: int  # where the key starts (absolute)
    line: int
    child: int = -1  # the offset of its value when that is an envelope object walked by the plan


@dataclass(slots=True)
class _Order:
    """An ordered array's items as the plan found them: in order already, or their times and places."""

    sorted: bool = True
    last: float = float("-inf")
    count: int = 0
    times: array = field(default_factory=lambda: array("d"))
    starts: array = field(default_factory=lambda: array("q"))
    sizes: array = field(default_factory=lambda: array("q"))
    lines: array = field(default_factory=lambda: array("q"))


class _Bytes:
    """The input seen through a window: `buf[pos:]` is unread; the piece being kept starts at `buf[mark]`;
    `base` is the offset of `buf[0]` in the input (from where reading started)."""

    def __init__(self, stream: IO[bytes], max_bytes: int):
        self._read = getattr(stream, "read1", stream.read)
        self.buf = b""
        self.pos = 0
        self.base = 0
        self.ended = False
        self._line = 1  # the line of buf[self._counted]
        self._counted = 0
        self.mark = -1
        self._parts: list[bytes] = []
        self._size = 0
        self._max = max_bytes

    def reset(self, base: int, line: int) -> None:
        """Read on from offset `base` (the stream was moved there), which is on `line`."""
        self.buf, self.pos, self.base, self.ended = b"", 0, base, False
        self._line, self._counted, self.mark, self._parts, self._size = line, 0, -1, [], 0

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
        self.base += self.pos
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
            end = min(len(self.buf), self.pos + STEP_BYTES)
            self.pos = _STRING_BODY.match(self.buf, self.pos, end).end()  # type: ignore[union-attr]
            if self.pos < len(self.buf) and self.buf[self.pos] == 0x22:
                self.pos += 1
                return True
            if self.pos < len(self.buf) - 1:  # the step ended (maybe at a backslash): the string goes on
                continue
            if not self.more():  # at the end, or at a backslash whose escaped byte is still to come
                self.pos = len(self.buf)
                return False

    def rest_of_container(self, depth: int) -> bool:
        """Consume until `depth` open brackets are closed; False when the input ends first."""
        buf, pos, skip = self.buf, self.pos, _SKIP.match
        while True:
            end = min(len(buf), pos + STEP_BYTES)
            pos = skip(buf, pos, end).end()  # type: ignore[union-attr]  # always matches
            if pos == end < len(buf):  # the step ended, not the window: on from there
                continue
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


def _time_of(data: bytes | None, member: str) -> float | None:
    """An item's time member (ISO 8601, as HAR writes startedDateTime) as seconds; None when it has none."""
    if data is None or member.encode() not in data:
        return None
    first = _FIRST_MEMBER.match(data)  # where HAR writers put it: the entry's first member, a plain string
    if first is not None and first[1] == member.encode():
        text = first[2].decode("utf-8", "replace")
    else:
        try:
            item = orjson.loads(data)
        except orjson.JSONDecodeError:
            return None
        text = item.get(member) if isinstance(item, dict) else None
        if not isinstance(text, str):
            return None
    try:
        moment = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


class DocumentSplitter:
    """Iterate it for `Piece`s, `Broken`s, `Duplicate`s and `OutOfOrder`s; afterwards `entered` holds the envelope
    paths the document had (("log",), ("log", "entries")), so a reader can tell "no entries array" from "no
    entries"."""

    def __init__(self, stream: IO[bytes], max_bytes: int, envelopes: tuple[tuple[str, ...], ...] = (HAR_ENTRIES,),
                 whole: bool = False, ordered: dict[tuple[str, ...], str] | None = None):
        self._stream = stream
        self._in = _Bytes(stream, max_bytes)
        self._max = max_bytes
        self._whole = whole  # every top-level value is one piece: no envelope, no array items
        self._arrays = frozenset(() if whole else envelopes)
        self._prefixes = frozenset(path[:n] for path in envelopes for n in range(1, len(path)))
        self._ordered = {} if whole else dict(HAR_ORDER if ordered is None else ordered)
        self.entered: set[tuple[str, ...]] = set()  # envelope paths met (() for a top-level array)
        self.envelope = False  # whether a top-level object was walked as an envelope
        self.pieces = 0  # how many were handed out
        self.stopped = False  # a Broken was handed out: nothing more is
        self._document = 0
        # the plan (a first pass over input that can be read again): envelope object (offset of its `{`) → its keys
        # → the copy readers keep; ordered arrays (offset of their `[`) → their items' order
        self._planning = False
        self._plan: dict[int, dict[str, _Member]] | None = None
        self._orders: dict[int, _Order] = {}
        self._start = 0

    # -- the plan ------------------------------------------------------------------------------------------------

    def _rewindable(self) -> bool:
        try:
            return bool(self._stream.seekable())
        except (AttributeError, OSError, ValueError):
            return False

    def _make_plan(self) -> None:
        """Walk the first top-level value once without handing anything out, when it is an envelope and the input
        can be read again: which copy of each envelope key readers keep, and the order of ordered arrays' items."""
        data = self._in
        self._start = self._stream.tell()
        self._planning, self._plan = True, {}
        try:
            if data.space() and data.buf[data.pos] == 0x7B:
                for _ in self._object_or_envelope(data.line_at(data.pos)):
                    pass
        finally:
            self._planning = False
            broken, self.stopped = self.stopped, False
            self.entered, self.envelope, self.pieces = set(), False, 0
            self._stream.seek(self._start)
            data.reset(0, 1)
        if not self._plan or broken:  # not an envelope, or not JSON to its end: read it as it comes
            self._plan, self._orders = None, {}

    def _forget(self, offset: int) -> None:
        """A copy readers do not keep: what the plan knew of the envelope objects inside it."""
        members = self._plan.pop(offset, None) if self._plan is not None else None
        for member in (members or {}).values():
            if member.child >= 0:
                self._forget(member.child)
                self._orders.pop(member.child, None)

    def _order_item(self, order: _Order, piece: Piece, start: int, member: str) -> None:
        """The plan meets an item of an ordered array."""
        moment = _time_of(piece.data, member)
        moment = order.last if moment is None else moment  # no time: it stays after the item before it
        if moment < order.last:
            order.sorted = False
        order.last = moment
        if order.count < ORDER_LIMIT:
            order.times.append(moment)
            order.starts.append(start)
            order.sizes.append(piece.size)
            order.lines.append(piece.line)
        order.count += 1

    # -- the walk ------------------------------------------------------------------------------------------------

    def __iter__(self) -> Iterator[Piece | Broken | Duplicate | OutOfOrder]:
        data = self._in
        if self._arrays and self._rewindable():
            self._make_plan()
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
            self._plan = None  # the plan is of the first value only

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

    def _object_or_envelope(self, line: int) -> Iterator[Piece | Broken | Duplicate | OutOfOrder]:
        data = self._in
        opened = data.base + data.pos
        data.begin()
        data.pos += 1
        if data.space() and data.buf[data.pos] == 0x22:
            offset = data.kept_size()
            key_at = data.base + data.pos
            key_line = data.line_at(data.pos)
            complete = data.string()
            key = _decoded_key(data.kept_tail(offset)) if complete else None
            if key is not None and (key,) in self._prefixes | self._arrays:
                data.mark = -1  # not a piece: an envelope, walked for the arrays it holds
                self.envelope = True
                yield from self._members((), opened, key, key_at, key_line)
                return
            if not complete:
                yield self._piece("", line, False)
                return
        yield self._piece("", line, data.rest_of_container(1))

    def _members(self, path: tuple[str, ...], opened: int, key: str | None, key_at: int,
                 key_line: int) -> Iterator[Piece | Broken | Duplicate | OutOfOrder]:
        """An envelope object's members (the object starts at offset `opened`), from its first key on (pos after
        that key, which started at `key_at`)."""
        data = self._in
        planned = self._plan.get(opened) if self._plan is not None and not self._planning else None
        seen: dict[str, _Member] = {}  # this walk's keys (the plan's, while planning)
        if self._planning and self._plan is not None:
            self._plan[opened] = seen
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
            kept = planned.get(key) if planned is not None else None
            earlier = seen.get(key)
            envelope_key = child in self._arrays or child in self._prefixes
            if self._planning:
                if earlier is not None:
                    self._forget(earlier.child)
                    self._orders.pop(earlier.child, None)
                if earlier is not None or envelope_key or len(seen) < KEYS_TRACKED:
                    seen[key] = _Member(key_at, key_line, data.base + data.pos)
            elif kept is not None and kept.offset != key_at:  # a copy readers do not keep: not walked
                yield Duplicate(key_line, format_pointer(child), key, kept.line, False)
                if not data.value():
                    yield self._broken(child, "the document ends inside this value")
                    return
                child = ()  # walked past
            elif planned is None:  # read once: a later copy is known only when it comes
                if earlier is not None:
                    yield Duplicate(key_line, format_pointer(child), key, earlier.line, True)
                elif envelope_key or len(seen) < KEYS_TRACKED:
                    seen[key] = _Member(key_at, key_line)
            if not child:
                pass
            elif child in self._arrays and byte == 0x5B:
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
            key_at, key_line = data.base + data.pos, data.line_at(data.pos)
            key = data.key()

    def _envelope(self, path: tuple[str, ...]) -> Iterator[Piece | Broken | Duplicate | OutOfOrder]:
        data = self._in
        self.entered.add(path)
        opened = data.base + data.pos
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
        key_at, key_line = data.base + data.pos, data.line_at(data.pos)
        yield from self._members(path, opened, data.key(), key_at, key_line)

    def _array(self, path: tuple[str, ...], line: int) -> Iterator[Piece | Broken | Duplicate | OutOfOrder]:
        data = self._in
        self.entered.add(path)
        opened = data.base + data.pos
        member = self._ordered.get(path)
        order: _Order | None = None
        if member is not None and self._planning:
            order = self._orders[opened] = _Order()
        elif member is not None and not self._planning:
            order = self._orders.get(opened)
            if order is not None and not order.sorted and order.count <= ORDER_LIMIT:
                yield from self._in_order(path, order)
                return
        data.pos += 1
        base = format_pointer(path)
        index = 0
        last = float("-inf")  # read once: the time of the item before, to say when they are not in order
        told = order is not None and order.sorted
        item = _ITEM.match
        while True:
            found = item(data.buf, data.pos, data.pos + STEP_BYTES)
            if found is not None:  # the whole item, and what follows it, are in the window
                start, end = found.span(1)
                self.pieces += 1
                size = end - start
                piece = Piece(self._document, f"{base}/{index}", data.line_at(start),
                              data.buf[start:end] if size <= self._max else None, size)
                data.pos = found.end()
                closed = found.group(2) == b"]"
                start += data.base
            else:
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
                start = data.base + data.pos
                data.begin()
                complete = data.value()
                piece = self._piece(f"{base}/{index}", line, complete)
                if not complete:  # the input ended inside it: said with the piece, nothing more to say
                    if not self._planning:
                        yield piece
                    self.stopped = True
                    return
                if not data.space():
                    if not self._planning:
                        yield piece
                    yield self._broken(path, "the document ends before this array's closing `]`")
                    return
                byte = data.buf[data.pos]
                data.pos += 1
                if byte != 0x5D and byte != 0x2C:
                    if not self._planning:
                        yield piece
                    yield self._broken(path, f"expected `,` or `]` after item {index}, found {chr(byte)!r}")
                    return
                closed = byte == 0x5D
            if self._planning:
                if order is not None:
                    self._order_item(order, piece, start, member)  # type: ignore[arg-type]
            else:
                if member is not None and not told:
                    moment = _time_of(piece.data, member)
                    if moment is not None and moment < last:
                        told = True
                        yield OutOfOrder(base, index, member, "the capture is read once (a pipe)" if order is None
                                         else f"more than {ORDER_LIMIT:,} of them")
                    last = last if moment is None else moment
                yield piece
            if closed:
                return
            index += 1

    def _in_order(self, path: tuple[str, ...], order: _Order) -> Iterator[Piece]:
        """The items of an ordered array in the order of their times (stable), read where the plan found them;
        then the walk goes on after the array."""
        data = self._in
        at, line = data.base + data.pos, data.line_at(data.pos)
        base = format_pointer(path)
        for index in sorted(range(order.count), key=order.times.__getitem__):
            size = order.sizes[index]
            self._stream.seek(self._start + order.starts[index])
            chunk = self._stream.read(size) if size <= self._max else None
            self.pieces += 1
            yield Piece(self._document, f"{base}/{index}", order.lines[index], chunk, size)
        self._stream.seek(self._start + at)
        data.reset(at, line)
        data.space()
        data.pos += 1
        data.rest_of_container(1)  # the plan walked it whole: it is there


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
