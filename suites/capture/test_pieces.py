"""Whole-document captures are cut into pieces without being held whole (capture/document.py), and the pieces are
exactly the values a JSON parser finds there, wherever the reads happen to split the bytes."""

from __future__ import annotations

import io
import json

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from wirecheck.capture import pieces as document
from wirecheck.capture.pieces import Broken, Piece, split_document
from wirecheck.check.engine import CheckOptions, check_captures

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


def pieces(data: bytes, step: int = 1 << 20, max_bytes: int = 1 << 20) -> list[Piece | Broken]:
    return list(split_document(Trickle(data, step), max_bytes))


@given(entries=st.lists(VALUES, max_size=5), step=st.integers(1, 9), indent=st.booleans())
def test_har_entries_are_the_values_a_parser_finds(entries, step, indent):
    har = {"log": {"version": "1.2", "creator": {"name": "x]}"}, "entries": entries, "pages": [{"id": "}"}]}}
    data = json.dumps(har, indent=2 if indent else None, ensure_ascii=False).encode()
    found = pieces(data, step)
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
