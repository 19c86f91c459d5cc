"""Chunked line reading: the result must not depend on where chunk boundaries fall."""

from __future__ import annotations

import io

from hypothesis import given
from hypothesis import strategies as st

from wirecheck.capture import ndjson
from wirecheck.findings import Finding

LINES = st.lists(
    st.one_of(
        st.sampled_from([b'{"type":"hello"}', b'{"a":1,"a":2}', b"", b"  ", b"[1]", b"nope", b'{"x":"\xff"}',
                         b'{"type":"x"}\r', b"\xef\xbb\xbf{}", b'{"s":"' + b"y" * 90 + b'"}']),
        st.binary(max_size=30),
    ),
    max_size=12,
)


def outcome(data: bytes, chunk: int, limit: int):
    ndjson.CHUNK_BYTES, saved = chunk, ndjson.CHUNK_BYTES
    try:
        items = list(ndjson.iter_lines(io.BytesIO(data), "f", limit))
    finally:
        ndjson.CHUNK_BYTES = saved
    return [(i.line, i.code) if isinstance(i, Finding) else i for i in items]


@given(LINES, st.booleans(), st.integers(min_value=1, max_value=40))
def test_chunk_size_does_not_change_the_result(lines, final_newline, chunk):
    data = b"\n".join(lines) + (b"\n" if final_newline and lines else b"")
    assert outcome(data, chunk, 64) == outcome(data, 1 << 20, 64)


def test_long_line_across_chunks_is_dropped_and_counted():
    data = b'{"a":"' + b"z" * 100 + b'"}\n{"b":1}\n' + b"q" * 70
    assert outcome(data, 8, 64) == [(1, "LINE_TOO_LONG"), (2, {"b": 1}), (3, "LINE_TOO_LONG")]


def test_last_line_without_newline_is_read():
    assert outcome(b'{"a":1}\n{"b":2}', 3, 64) == [(1, {"a": 1}), (2, {"b": 2})]


def test_the_limit_counts_a_line_without_its_line_feed():
    line, longer = b'{"s":"' + b"y" * 56 + b'"}', b'{"s":"' + b"y" * 57 + b'"}'
    assert len(line) == 64
    for chunk in (1 << 20, 64, 8):
        ndjson.CHUNK_BYTES, saved = chunk, ndjson.CHUNK_BYTES
        try:
            items = list(ndjson.iter_lines(io.BytesIO(line + b"\n" + longer + b"\r\n" + line), "f", 64))
        finally:
            ndjson.CHUNK_BYTES = saved
        assert items[0] == (1, {"s": "y" * 56})
        assert isinstance(items[1], Finding) and items[1].code == "LINE_TOO_LONG"
        assert items[1].message.startswith("line of 66 bytes exceeds")  # the \r counts, the \n does not
        assert items[2] == (3, {"s": "y" * 56})


def test_in_a_framed_capture_the_limit_bounds_the_message_not_its_frame(tmp_path):
    from wirecheck.capture import CaptureFile, read_capture

    def message(size: int) -> bytes:
        return b'{"s":"' + b"y" * (size - 8) + b'"}'

    header = b'{"wirecheck_capture": 1, "framing": "directed"}\n'
    frames = [b'{"from": "cli", "message": ' + message(64) + b"}\n",  # the frame makes the line 92 bytes
              b'{"from": "cli", "message": ' + message(65) + b"}\n",
              b'{"from": "cli", "message": ' + message(63) + b"\r}\r\n",  # a \r in the message counts, as in a stream
              b'{"from": "cli", "message": ' + message(64) + b"\r}\n",
              b'{"message": ' + message(64) + b', "from": "cli"}\n']  # laid out otherwise: the whole line counts
    path = tmp_path / "c.framed.ndjson"
    path.write_bytes(header + b"".join(frames))
    for chunk in (1 << 20, 64, 8):
        ndjson.CHUNK_BYTES, saved = chunk, ndjson.CHUNK_BYTES
        try:
            items = list(read_capture(CaptureFile(str(path)), 64))
        finally:
            ndjson.CHUNK_BYTES = saved
        assert [(i.line, i.code if isinstance(i, Finding) else "message") for i in items] == [
            (2, "message"), (3, "LINE_TOO_LONG"), (4, "message"), (5, "LINE_TOO_LONG"), (6, "LINE_TOO_LONG")]
        assert items[1].message == "message of 65 bytes exceeds --max-line-bytes 64" and items[1].sender == "cli"
