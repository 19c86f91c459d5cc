"""Bad input: each case is a located finding (or a clear usage error), and the rest of the capture is still read.

Every capture ends with a good `hello` line; the tests assert it was still classified, so no run stops early.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from wirecheck.capture import ndjson
from wirecheck.check.engine import CheckOptions, check_captures
from wirecheck.contracts import load_registry
from wirecheck.json_text import parse_json

GOOD = b'{"type":"hello","version":"1.0.0"}\n'


def run(demo, tmp_path, data: bytes, **options):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(data)
    result = check_captures(demo, [str(path)], CheckOptions(**options))
    return [(f.line, f.code, f.severity.value) for f in result.findings], result


@pytest.mark.parametrize(
    ("name", "data", "expected"),
    [
        ("truncated JSON", b'{"type":"hello","vers\n', [(1, "PARSE_ERROR", "error")]),
        ("not JSON at all", b"hello world\n", [(1, "PARSE_ERROR", "error")]),
        ("invalid UTF-8", b'{"type":"hello","version":"\xff"}\n', [(1, "INVALID_UTF8", "error")]),
        ("NaN", b'{"type":"hello","version":NaN}\n', [(1, "PARSE_ERROR", "error")]),
        ("Infinity", b'{"type":"hello","n":-Infinity}\n', [(1, "PARSE_ERROR", "error")]),
        ("duplicate keys", b'{"type":"hello","version":"x","version":"1.0.0"}\n', [(1, "DUPLICATE_KEY", "error")]),
        ("top-level array", b"[1,2]\n", [(1, "NOT_AN_OBJECT", "error")]),
        ("top-level scalar", b'"hello"\n', [(1, "NOT_AN_OBJECT", "error")]),
        ("nesting 100,000 deep", b"[" * 100_000 + b"]" * 100_000 + b"\n", [(1, "PARSE_ERROR", "error")]),
        ("deep object", b'{"a":' * 100_000 + b"1" + b"}" * 100_000 + b"\n", [(1, "PARSE_ERROR", "error")]),
        # orjson reads 1024 levels but writes only 254: deeper messages leave the fast path, never the run
        ("object 255 deep", b'{"a":' * 255 + b"1" + b"}" * 255 + b"\n", [(1, "UNKNOWN_MESSAGE_KIND", "warning")]),
        ("object 1024 deep", b'{"a":' * 1024 + b"1" + b"}" * 1024 + b"\n", [(1, "UNKNOWN_MESSAGE_KIND", "warning")]),
        ("duplicate key 300 deep", b'{"a":' * 300 + b'{"k":1,"k":2}' + b"}" * 300 + b"\n",
         [(1, "DUPLICATE_KEY", "error"), (1, "UNKNOWN_MESSAGE_KIND", "warning")]),
    ],
)
def test_bad_line_is_located_and_reading_continues(demo, tmp_path, name, data, expected):
    findings, result = run(demo, tmp_path, data + GOOD)
    assert findings == expected, name
    assert result.coverage["hello"].seen == (2 if name == "duplicate keys" else 1)


def test_duplicate_key_message_names_the_key_and_the_last_value_is_checked(demo, tmp_path):
    _, result = run(demo, tmp_path, b'{"type":"hello","version":"1.0.0","version":"bad"}\n')
    assert [f.message for f in result.findings if f.code == "DUPLICATE_KEY"] == ["duplicate key 'version' in an object"]
    assert ("SCHEMA_VIOLATION" in {f.code for f in result.findings})  # orjson keeps the last value, "bad"


def test_a_duplicate_key_is_located_by_json_pointer(demo, tmp_path):
    data = b'{"type":"hello","version":"1.0.0","a":{"b":[{"k":1,"k":2}]}}\n' + b'{"x":1,"x":2}\n'
    _, result = run(demo, tmp_path, data)
    assert [(f.line, f.pointer) for f in result.findings if f.code == "DUPLICATE_KEY"] == [(1, "/a/b/0/k"), (2, "/x")]
    value, problem = parse_json(b'{"a~b/c": {"z": 1, "z": 2}}')
    assert value == {"a~b/c": {"z": 2}} and problem is not None and problem.pointer == "/a~0b~1c/z"


def test_nan_message_says_why():
    _, problem = parse_json(b'{"x": NaN}')
    assert problem is not None and "NaN" in problem.message


def test_deep_nesting_message_says_why():
    _, problem = parse_json(b"[" * 100_000 + b"]" * 100_000)
    assert problem is not None and "nesting too deep" in problem.message


def test_a_message_too_deep_to_locate_its_errors_is_still_an_error_shown_as_json(demo, tmp_path):
    """Past about 255 levels jsonschema-rs can say whether a message is valid but not where it fails, and orjson
    cannot render it: the finding says so, and the standard library renders what was found."""
    _, result = run(demo, tmp_path, b'{"type":"hello","version":' + b"[" * 300 + b"]" * 300 + b"}\n" + GOOD)
    [finding] = [f for f in result.findings if f.code == "SCHEMA_VIOLATION"]
    assert finding.severity.value == "error" and "nests too deep" in finding.message
    assert finding.found is not None and finding.found.startswith('{"type":"hello","version":[[[')
    assert result.coverage["hello"].seen == 2


def test_a_lone_surrogate_is_shown_as_json_not_python():
    from wirecheck.findings import short_repr

    assert short_repr({"type": "\ud800"}) == '{"type":"\\ud800"}'


@pytest.mark.parametrize("text", [b'{"n": 123456789012345678901234567890}', b'{"n":123456789012345678901234567890}',
                                  b'{"n":[-18446744073709551617]}'])
def test_integers_beyond_64_bits_are_read_exactly(text):
    # orjson reads them as the nearest float; a schema's maximum, const or multipleOf must see the real number
    exact = json.loads(text)
    value, problem = parse_json(text)
    assert problem is None and value == exact and type(value["n"]) is type(exact["n"])
    assert [item for item in ndjson.iter_lines(io.BytesIO(text + b"\n"), "f")] == [(1, exact)]


def test_bom_is_a_warning_and_the_line_is_read(demo, tmp_path):
    findings, result = run(demo, tmp_path, b"\xef\xbb\xbf" + GOOD + GOOD)
    assert findings == [(1, "BYTE_ORDER_MARK", "warning")]
    assert result.coverage["hello"].seen == 2


def test_a_bom_in_the_middle_of_a_capture_is_a_warning_and_the_line_is_read(demo, tmp_path):
    findings, result = run(demo, tmp_path, GOOD + b"\xef\xbb\xbf" + GOOD + GOOD)
    assert findings == [(2, "BYTE_ORDER_MARK", "warning")]
    assert result.coverage["hello"].seen == 3


def test_carriage_return_only_line_ends_are_named_in_the_parse_error(demo, tmp_path):
    path = tmp_path / "cr.jsonl"
    path.write_bytes(GOOD.replace(b"\n", b"\r") * 2 + b"\n" + GOOD)
    result = check_captures(demo, [str(path)])
    [problem] = result.findings
    assert (problem.line, problem.code) == (1, "PARSE_ERROR")
    assert "carriage return not followed by a line feed" in problem.message
    assert result.coverage["hello"].seen == 1
    assert "carriage return" not in parse_json(b'{"a":1} x')[1].message


def test_crlf_and_blank_lines_are_accepted_and_line_numbers_stay_true(demo, tmp_path):
    data = GOOD.replace(b"\n", b"\r\n") + b"\r\n\n   \n" + b'{"type":"hello","version":"x"}\r\n'
    findings, result = run(demo, tmp_path, data)
    assert findings == [(5, "SCHEMA_VIOLATION", "error")]
    assert result.messages == 2


def test_twenty_megabyte_line_is_checked(demo, tmp_path):
    big = b'{"type":"hello","version":"1.0.0","features":["' + b"x" * (20 * 1024 * 1024) + b'"]}\n'
    findings, result = run(demo, tmp_path, big + GOOD)
    assert findings == [] and result.coverage["hello"].seen == 2


def test_line_over_the_limit_is_skipped_without_loading_it(demo, tmp_path):
    big = b'{"type":"hello","version":"1.0.0","features":["' + b"x" * 5000 + b'"]}\n'
    findings, result = run(demo, tmp_path, big + GOOD, max_line_bytes=1024)
    assert findings == [(1, "LINE_TOO_LONG", "error")]
    assert result.coverage["hello"].seen == 1


@pytest.mark.parametrize(("data", "before"), [(b"", []), (b"\n\n  \n", []),
                                            (b"\xef\xbb\xbf\n", [(1, "BYTE_ORDER_MARK", "warning")])])
def test_empty_capture(demo, tmp_path, data, before):
    findings, result = run(demo, tmp_path, data)
    assert findings == [*before, (None, "EMPTY_CAPTURE", "error")]
    assert result.messages == 0


@pytest.mark.parametrize("data", [b"hello\n", b"{\n[1,\n"])
def test_a_capture_of_broken_lines_is_not_also_called_empty(demo, tmp_path, data):
    findings, result = run(demo, tmp_path, data)
    assert {code for _, code, _ in findings} == {"PARSE_ERROR"}
    assert result.messages == 0


def test_summary_counts_are_exact_across_good_and_bad_lines(demo, tmp_path):
    data = GOOD + b"nope\n" + b"[1]\n" + b'{"type":"mystery"}\n' + b'{"type":"hello","version":1}\n' + GOOD
    findings, result = run(demo, tmp_path, data)
    assert findings == [(2, "PARSE_ERROR", "error"), (3, "NOT_AN_OBJECT", "error"),
                        (4, "UNKNOWN_MESSAGE_KIND", "warning"), (5, "SCHEMA_VIOLATION", "error")]
    assert (result.messages, result.unclassified, result.coverage["hello"].seen) == (4, 1, 3)


RESULT = (Path(__file__).resolve().parents[2] / "fixtures/claude-code-print/2.1.218/valid/results-1.ndjson"
          ).read_bytes()


@pytest.mark.parametrize("number", [b"1e400", b"1" + b"0" * 400])
def test_a_number_beyond_a_double_is_one_finding_however_written_and_the_rest_is_checked(tmp_path, number):
    """`"num_turns": 1000…0` (401 digits) conformed while `1e400` was a PARSE_ERROR that hid the rest of the
    message; JavaScript reads both as Infinity."""
    first = RESULT.splitlines()[0]
    line = first.replace(b'"num_turns": 9', b'"num_turns": ' + number).replace(b'"is_error": false', b'"is_error": 1')
    path = tmp_path / "result.ndjson"
    path.write_bytes(line + b"\n")
    result = check_captures(load_registry().load("claude-code-print@2.1.218"), [str(path)])
    assert sorted((f.code, f.pointer) for f in result.findings) == [
        ("NUMBER_OUT_OF_RANGE", "/num_turns"), ("SCHEMA_VIOLATION", "/is_error")]


# What the line reader's fast path (a value that is byte for byte orjson's serialisation of itself: one loads and
# one dumps, in C) must never take (issue 43 weighed cheaper tests than that round trip, none exact and cheaper):
# keys given twice however they are written or nested, and integers orjson reads as floats.
NEVER_TAKEN = [
    (b'{"a":1,"a":2}', "DUPLICATE_KEY", "/a"),
    (b'{"a":1,"\\u0061":2}', "DUPLICATE_KEY", "/a"),  # the same key, one escaped
    (b'{"\\u0061":1,"a":2}', "DUPLICATE_KEY", "/a"),
    (b'{"a\\"":1,"a\\u0022":2}', "DUPLICATE_KEY", '/a"'),  # an escaped quote, escaped two ways
    (b'{"from":"client","message":{"x":{"y":[1,{"k":1,"k":2}]}}}', "DUPLICATE_KEY", "/message/x/y/1/k"),
    (b'{"from":"client","message":{"id":1},"message":{"id":2}}', "DUPLICATE_KEY", "/message"),
    (b'{"id":18446744073709551616}', None, None),  # 2**64: orjson reads a float, the slow path the integer
    (b'{"id":-9223372036854775809}', None, None),
]


@pytest.mark.parametrize(("data", "code", "pointer"), NEVER_TAKEN)
def test_the_fast_path_never_takes_a_line_whose_value_it_would_misread(data, code, pointer):
    """Such a line goes to the exact reading: its finding made, its value as JSON readers read it (the last copy of a
    key; the integer itself, not the nearest float)."""
    taken = []
    sink = ndjson.LineSink()
    sink.accept = lambda value, line: taken.append(value) or True
    items = list(ndjson.iter_lines(io.BytesIO(data + b"\n"), "x.jsonl", sink=sink))
    found = [(item.code, item.pointer) for item in items if not isinstance(item, tuple)]
    values = taken + [value for item in items if isinstance(item, tuple) for value in item[1:]]
    assert found == ([(code, pointer)] if code else [])
    exact = json.loads(data)
    assert values == [exact] and repr(values[0]) == repr(exact)
    if code is None:
        assert type(values[0]["id"]) is int
