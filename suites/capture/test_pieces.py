"""Whole-document captures are cut into pieces without being held whole (capture/document.py), and the pieces are
exactly the values a JSON parser finds there, wherever the reads happen to split the bytes."""

from __future__ import annotations

import io
import json
import os
import threading
import time
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from wirecheck.capture import pieces as document
from wirecheck.capture.pieces import Broken, Piece, split_document
from wirecheck.check.engine import CheckOptions, check_captures
from wirecheck.contracts import load_registry
from wirecheck.report.text import write as write_text

# strings that put quotes, backslashes, brackets and commas where a careless scanner would count them
TRICKY = st.text(alphabet='"\\[]{},:ab \n\u00e9\U0001f600', max_size=12)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | TRICKY,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TRICKY, inner, max_size=4),
    max_leaves=20,
)


class Trickle(io.RawIOBase):
    """A stream that hands over at most `step` bytes per read, as a pipe may."""

    def __init__(self, data: bytes, step: int):
        self._data, self._at, self._step = data, 0, step

    def readable(self) -> bool:
        return True

    def read1(self, size: int = -1) -> bytes:
        chunk = self._data[self._at:self._at + min(self._step, size if size >= 0 else self._step)]
        self._at += len(chunk)
        return chunk

    read = read1  # type: ignore[assignment]


class SeekableTrickle(io.BytesIO):
    """A file that hands over at most `step` bytes per read (a file can be read again: the splitter plans)."""

    def __init__(self, data: bytes, step: int):
        super().__init__(data)
        self._step = step

    def read1(self, size: int = -1) -> bytes:  # type: ignore[override]
        return super().read1(min(self._step, size) if size >= 0 else self._step)

    def read(self, size: int | None = -1) -> bytes:  # type: ignore[override]
        return super().read(size)


def pieces(data: bytes, step: int = 1 << 20, max_bytes: int = 1 << 20, rewind: bool = False) -> list[Piece | Broken]:
    return list(split_document((SeekableTrickle if rewind else Trickle)(data, step), max_bytes))


@given(entries=st.lists(VALUES, max_size=5), step=st.integers(1, 9), indent=st.booleans(), rewind=st.booleans())
def test_har_entries_are_the_values_a_parser_finds(entries, step, indent, rewind):
    har = {"log": {"version": "1.2", "creator": {"name": "x]}"}, "entries": entries, "pages": [{"id": "}"}]}}
    data = json.dumps(har, indent=2 if indent else None, ensure_ascii=False).encode()
    found = pieces(data, step, rewind=rewind)
    assert all(isinstance(p, Piece) for p in found)
    assert [orjson.loads(p.data) for p in found] == entries  # type: ignore[union-attr]
    assert [p.pointer for p in found] == [f"/log/entries/{i}" for i in range(len(entries))]


@given(items=st.lists(VALUES, max_size=5), step=st.integers(1, 9))
def test_top_level_array_items_and_concatenated_values(items, step):
    data = (json.dumps(items, indent=1) + "\n" + json.dumps({"k": "]"}) + " 7\n").encode()
    found = pieces(data, step)
    assert [orjson.loads(p.data) for p in found] == [*items, {"k": "]"}, 7]  # type: ignore[union-attr]
    assert [(p.document, p.pointer) for p in found] == [(0, f"/{i}") for i in range(len(items))] + [(1, ""), (2, "")]


def test_each_piece_knows_its_line():
    data = b'{\n "log": {\n  "entries": [\n   {"a": 1},\n\n   {"b": "x\\ny"}\n  ]\n }\n}\n[1,\n2]'
    found = pieces(data, step=3)
    assert [(p.document, p.pointer, p.line) for p in found] == [
        (0, "/log/entries/0", 4), (0, "/log/entries/1", 6), (1, "/0", 10), (1, "/1", 11)]


def test_a_piece_over_the_limit_streams_past_with_its_size(monkeypatch):
    monkeypatch.setattr(document, "CHUNK_BYTES", 1000)
    big = {"text": "x" * 50_000}
    data = orjson.dumps({"log": {"entries": [{"a": 1}, big, {"b": 2}]}})
    found = pieces(data, max_bytes=10_000)
    assert [(p.pointer, p.data is None, p.size) for p in found] == [  # type: ignore[union-attr]
        ("/log/entries/0", False, 7), ("/log/entries/1", True, len(orjson.dumps(big))), ("/log/entries/2", False, 7)]


def test_a_document_cut_short_gives_every_piece_before_the_cut():
    data = orjson.dumps({"log": {"entries": [{"a": 1}, {"b": 2}, {"c": "unfinished"}]}})[:-12]
    found = pieces(data, step=5)
    assert [orjson.loads(p.data) for p in found[:2]] == [{"a": 1}, {"b": 2}]  # type: ignore[union-attr]
    assert isinstance(found[2], Piece) and not found[2].complete and len(found) == 3


@pytest.mark.parametrize(("data", "pointer"), [
    (b'{"log": {"entries": [{"a": 1} {"b": 2}]}}', "/log/entries"),  # a missing comma
    (b'{"log": {"entries": [}]}}', "/log/entries/0"),
    (b'{"log" {"entries": []}}', ""),
    (b'{"log": {"entries": [1, 2]', "/log"),  # cut short after the entries
    (b"]", ""),
])
def test_structure_that_is_not_json_is_broken_where_the_walk_lost_its_place(data, pointer):
    found = pieces(data)
    assert isinstance(found[-1], Broken) and found[-1].pointer == pointer, found


# -- read as captures -------------------------------------------------------------------------------------------

DISCOVERY = {"request": {"method": "GET", "url": "http://h/.well-known/demo"},
             "response": {"status": 200, "content": {"text": '{"api": "http://h/api"}'}}}
BAD = {"request": {"method": "GET", "url": "http://h/.well-known/demo"},
       "response": {"status": 200, "content": {"text": '{"api": 5}'}}}


def _validate(demo, tmp_path, data: bytes, **options):
    path = tmp_path / "c.har"
    path.write_bytes(data)
    result = check_captures(demo, [str(path)], CheckOptions(**options))
    return [(f.code, f.where, f.line) for f in result.findings], result


def test_a_har_entry_over_the_limit_is_reported_and_the_others_are_checked(demo, tmp_path):
    huge = {**DISCOVERY, "comment": "x" * 5000}
    data = orjson.dumps({"log": {"version": "1.2", "entries": [DISCOVERY, huge, BAD]}}, option=orjson.OPT_INDENT_2)
    findings, result = _validate(demo, tmp_path, data, max_line_bytes=2048)
    assert findings == [("LINE_TOO_LONG", "/log/entries/1", None),
                        ("SCHEMA_VIOLATION", "/log/entries/2/response", None)]
    assert result.coverage["discovery.response"].seen == 2


def test_a_truncated_har_checks_every_entry_before_the_cut(demo, tmp_path):
    data = orjson.dumps({"log": {"entries": [BAD, DISCOVERY, DISCOVERY]}}, option=orjson.OPT_INDENT_2)[:-40]
    findings, result = _validate(demo, tmp_path, data)
    assert findings[0] == ("SCHEMA_VIOLATION", "/log/entries/0/response", None)
    assert findings[1][:2] == ("PARSE_ERROR", "/log/entries/2") and len(findings) == 2
    assert result.coverage["discovery.response"].seen == 2


def test_a_broken_entry_does_not_hide_the_next(demo, tmp_path):
    data = (b'{"log": {"entries": [\n' + orjson.dumps(DISCOVERY) + b',\n{"request": NaN},\n' + orjson.dumps(BAD)
            + b"\n]}}\n")
    findings, _ = _validate(demo, tmp_path, data)
    assert findings == [("PARSE_ERROR", "/log/entries/1", None), ("SCHEMA_VIOLATION", "/log/entries/2/response", None)]


def test_a_duplicate_key_in_an_entry_is_located_inside_it(demo, tmp_path):
    data = b'{"log": {"entries": [{"request": {"method": "GET", "method": "GET", "url": "http://h/x"}}]}}'
    findings, _ = _validate(demo, tmp_path, data)
    assert findings[0] == ("DUPLICATE_KEY", "/log/entries/0/request/method", None)


@pytest.mark.parametrize(("data", "expected"), [
    (b'{"log": {"entries": 5}}', [("CAPTURE_FORMAT", "/log", None)]),
    (b'{"log": 5}', [("CAPTURE_FORMAT", "/log", None)]),
    (b'{"log": {"entries": []}}', [("EMPTY_CAPTURE", None, None)]),
    (b"  \n", [("EMPTY_CAPTURE", None, None)]),
    (b'{"log": {"entries": []}} {"x": 1}', [("PARSE_ERROR", None, 1)]),
    (b"[1, 2]", [("CAPTURE_FORMAT", None, None)]),  # a .har holds a HAR
    (b'{"log": {"entries": []}} [1, 2]', [("PARSE_ERROR", None, 1)]),
    (b'{\n "x": 1\n}\n{\n "x": [}\n', [("UNKNOWN_MESSAGE_KIND", None, 1), ("PARSE_ERROR", None, 4),
                                          ("NOTHING_RECOGNISED", None, None)]),  # pretty-printed, one after another
])
def test_document_shapes(demo, tmp_path, data, expected):
    assert _validate(demo, tmp_path, data)[0] == expected


# -- however the reads come ------------------------------------------------------------------------------------

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
# escapes, brackets and quotes inside strings at every offset a read may end on; nesting deeper than one regular
# expression step reads (6 levels); numbers, literals and white space of every kind between items
TRICKY_DOCUMENT = (
    b'{"log": {"version": "1.2", "creator": {"name": "a\\\\\\"]}[{\\\\", "v": "\\u005d"},\r\n\t"entries": [\n'
    b'  {"a": [[[[[[[["deep ] \\"}"]]]]]]]], "b": "\\\\"},\n'
    b'  -1.5e+10 ,\t"x\\"\\\\\\"y" , true,null,false,[],{},\n'
    b'  {"request": {"url": "http://h/\\"q\\"", "headers": [{"name": "n", "value": "{[\\"]}"}]}, "t": "\\ud83d\\ude00"}'
    b'\n], "pages": [{"id": "}]"}]},\n "comment": "\\\\"}\n')


def _shape(found: list) -> list:
    return [(type(p).__name__, getattr(p, "pointer", None), getattr(p, "line", None), getattr(p, "data", None))
            for p in found]


@pytest.mark.parametrize("rewind", [False, True], ids=["pipe", "file"])
@pytest.mark.parametrize("name", ["tricky", "tricky, matched 5 bytes at a time", "worker-run.har"])
def test_every_read_size_gives_the_same_pieces(name, rewind, monkeypatch):
    """CPython before 3.11.5 (Debian 12 has 3.11.2) matched possessive quantifiers wrongly when a read ended inside
    a string, and cut valid HARs as broken: every size of read, from one byte up, must give the pieces a whole read
    gives, which are the entries a JSON parser finds (so must every size of regular expression step)."""
    if "5 bytes" in name:
        monkeypatch.setattr(document, "STEP_BYTES", 5)
    data = TRICKY_DOCUMENT if name.startswith("tricky") else (FIXTURES / "xopc/0.0.253/valid" / name).read_bytes()
    whole = _shape(pieces(data, len(data) + 1, rewind=rewind))
    assert [orjson.loads(data) for *_, data in whole] == json.loads(data)["log"]["entries"]
    steps = range(1, len(data) + 2) if len(data) < 2000 else [*range(1, 600), *range(600, len(data) + 2, 97)]
    for step in steps:
        assert _shape(pieces(data, step, rewind=rewind)) == whole, step


def test_a_har_through_a_named_pipe_in_small_writes_is_read_whole(demo, tmp_path):
    """A valid HAR written to a named pipe 1,000 bytes at a time (the reads come back short) conforms."""
    fifo = tmp_path / "c.har"
    os.mkfifo(fifo)
    entries = [{**DISCOVERY, "comment": "a string long enough for reads to end inside it " * 4}] * 40
    data = orjson.dumps({"log": {"version": "1.2", "entries": entries}}, option=orjson.OPT_INDENT_2)

    def write() -> None:
        with fifo.open("wb", buffering=0) as out:
            for at in range(0, len(data), 1000):
                out.write(data[at:at + 1000])
                time.sleep(0.01)  # read before the next write comes

    writer = threading.Thread(target=write)
    writer.start()
    try:
        result = check_captures(demo, [str(fifo)], CheckOptions())
    finally:
        writer.join(30)
    assert [(f.code, f.where) for f in result.findings] == []
    assert result.coverage["discovery.response"].seen == 40


# -- the envelope: what readers keep -------------------------------------------------------------------------

def test_a_key_given_twice_in_the_envelope_walks_the_last_copy_of_a_file():
    data = b'{"log": {"entries": [1, 2]},\n "log": {"version": "1.2", "entries": [3], "version": "x", "entries": [4]}}'
    for step in (1, 3, 1000):
        found = pieces(data, step, rewind=True)
        assert [(type(p).__name__, p.pointer, p.line) for p in found] == [
            ("Duplicate", "/log", 1), ("Duplicate", "/log/version", 2), ("Duplicate", "/log/entries", 2),
            ("Piece", "/log/entries/0", 2)]
        assert found[-1].data == b"4" and not found[0].checked and found[0].other_line == 2  # type: ignore[union-attr]


def test_from_a_pipe_a_later_copy_is_said_to_be_there_and_walked():
    data = b'{"log": {"entries": [1, 2]},\n "log": {"entries": []}}'
    found = pieces(data, 4)
    assert [(type(p).__name__, p.pointer, p.line) for p in found] == [
        ("Piece", "/log/entries/0", 1), ("Piece", "/log/entries/1", 1), ("Duplicate", "/log", 2)]
    assert found[-1].checked and found[-1].other_line == 1  # type: ignore[union-attr]


def test_a_document_broken_after_a_duplicate_is_read_as_it_comes():
    data = b'{"log": {"entries": [1]}, "log": {"entries": [2]} "x"}'
    found = pieces(data, rewind=True)
    assert [type(p).__name__ for p in found] == ["Piece", "Duplicate", "Piece", "Broken"]


def _entry(second: int, n: int | None = None) -> dict:
    entry = {"startedDateTime": f"2026-01-01T00:00:{second:02d}.000Z", **DISCOVERY}
    return entry if n is None else {**entry, "comment": str(n)}


def test_entries_come_out_in_time_order_stably_from_a_file():
    times = [5, 3, 3, 9, 1]
    entries = [_entry(t, n) for n, t in enumerate(times)] + [{"comment": "no time: right after the item before it"}]
    data = orjson.dumps({"log": {"entries": entries}}, option=orjson.OPT_INDENT_2)
    found = pieces(data, 7, rewind=True)
    assert [p.pointer for p in found] == [f"/log/entries/{i}" for i in (4, 5, 1, 2, 0, 3)]  # type: ignore[union-attr]
    assert [orjson.loads(p.data) for p in found] == [entries[i] for i in (4, 5, 1, 2, 0, 3)]  # type: ignore[union-attr]
    lines = {p.pointer: p.line for p in pieces(data, 7) if isinstance(p, Piece)}
    assert all(p.line == lines[p.pointer] for p in found)  # type: ignore[union-attr]


def test_entries_out_of_order_from_a_pipe_are_said_to_be(monkeypatch):
    data = orjson.dumps({"log": {"entries": [_entry(2), _entry(1), _entry(0)]}})
    found = pieces(data, 5)
    assert [type(p).__name__ for p in found] == ["Piece", "OutOfOrder", "Piece", "Piece"]
    assert found[1].index == 1  # type: ignore[union-attr]
    monkeypatch.setattr(document, "ORDER_LIMIT", 2)  # more than it: array order, said
    found = pieces(data, 5, rewind=True)
    assert [type(p).__name__ for p in found] == ["Piece", "OutOfOrder", "Piece", "Piece"]
    assert "more than 2" in found[1].reason  # type: ignore[union-attr]


# -- a real HAR, as its readers read it ------------------------------------------------------------------------

WORKER_RUN = FIXTURES / "xopc/0.0.253/valid/worker-run.har"
BROKEN_RUN = FIXTURES / "xopc/0.0.253/invalid/broken-run.har"


@pytest.fixture(scope="module")
def xopc():
    return load_registry().load("xopc@0.0.253")


def _xopc(release, tmp_path, data: bytes, name: str = "c.har"):
    path = tmp_path / name
    path.write_bytes(data)
    result = check_captures(release, [str(path)], CheckOptions())
    return [(f.code, f.where, f.line) for f in result.findings], result


def test_the_copy_of_log_readers_keep_is_the_one_checked(xopc, tmp_path):
    good, bad = (orjson.loads(path.read_bytes())["log"] for path in (WORKER_RUN, BROKEN_RUN))
    # a conforming run, then a `log` with no entries: readers see no entries
    data = b'{"log": ' + orjson.dumps(good) + b',\n"log": {"entries": []}}'
    findings, result = _xopc(xopc, tmp_path, data)
    assert findings == [("DUPLICATE_KEY", "/log", 1)] and result.messages == 0
    # a broken run, then a good one: only the good one is checked
    data = b'{"log": ' + orjson.dumps(bad) + b',\n"log": ' + orjson.dumps(good) + b"}"
    findings, result = _xopc(xopc, tmp_path, data)
    assert findings == [("DUPLICATE_KEY", "/log", 1)] and result.messages == 16
    # `entries` twice in log
    data = b'{"log": {"entries": ' + orjson.dumps(good["entries"]) + b', "entries": ' + orjson.dumps(bad["entries"])
    findings, _ = _xopc(xopc, tmp_path, data + b"}}")
    reference, _ = _xopc(xopc, tmp_path, BROKEN_RUN.read_bytes(), "broken.har")
    assert findings[0] == ("DUPLICATE_KEY", "/log/entries", 1)
    assert [f[:2] for f in findings[1:]] == [f[:2] for f in reference]


def test_entries_are_checked_in_time_order(xopc, tmp_path):
    """HAR 1.2 prefers entries oldest first but does not require it: written newest first, with their times, a
    conforming run still conforms (it gave two XOPC_RUN_LIFECYCLE errors in written order)."""
    har = orjson.loads(WORKER_RUN.read_bytes())
    har["log"]["entries"].reverse()
    findings, result = _xopc(xopc, tmp_path, orjson.dumps(har, option=orjson.OPT_INDENT_2))
    assert findings == [] and result.messages == 16


def test_a_body_left_out_of_the_har_is_unknown_not_missing(demo, tmp_path):
    """HAR writers leave bodies out ("Leave out this field if the information is not available", HAR 1.2
    content.text): one run gave 368 UNEXPECTED_BODY "found no body". A body the record says was there but does not
    hold is not checked, and one note says how many; a record of no body (size 0) is still a missing body."""
    left_out = {"request": DISCOVERY["request"], "response": {"status": 200, "content": {"size": 23, "mimeType": ""}}}
    no_size = {"request": DISCOVERY["request"], "response": {"status": 200, "content": {"mimeType": ""}}}
    empty = {"request": DISCOVERY["request"], "response": {"status": 200, "content": {"size": 0, "mimeType": ""},
                                                           "bodySize": 0}}
    data = orjson.dumps({"log": {"entries": [left_out, no_size, empty]}})
    findings, result = _validate(demo, tmp_path, data)
    assert findings == [("UNEXPECTED_BODY", "/log/entries/2/response", None), ("BODY_NOT_RECORDED", None, None)]
    [note] = [f for f in result.findings if f.code == "BODY_NOT_RECORDED"]
    assert note.message.startswith("2 message(s)") and note.severity.value == "info"
    assert result.coverage["discovery.response"].seen == 3
    assert result.coverage["discovery.response"].judged == 1  # what a requirement on the kind may count
    text = io.StringIO()
    write_text(result, text)
    assert "3 seen, 2 without a recorded body" in text.getvalue()
