"""Hostile or odd captures found by adversarial testing: each is a located finding or a usage error, never a
traceback, a silent pass, or a finding lost because a neighbouring part of the capture was bad."""

from __future__ import annotations

import base64
import io
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from wirecheck.capture import CaptureFile
from wirecheck.check.engine import Engine, check_captures

DEMO_CONTRACTS = str(Path(__file__).resolve().parents[1] / "data" / "contracts")
DISCOVERY = {"api": "http://h/api"}
HELLO = {"type": "hello", "version": "1.0.0"}


def _har(*entries):
    return {"log": {"version": "1.2", "entries": list(entries)}}


def _discovery(content=None, request=None):
    return {
        "request": request or {"method": "GET", "url": "http://h/.well-known/demo", "headers": []},
        "response": {"status": 200, "headers": [],
                     "content": content if content is not None else {"text": orjson.dumps(DISCOVERY).decode()}},
    }


def _check_har(demo, tmp_path, document):
    path = tmp_path / "capture.har"
    path.write_text(json.dumps(document))  # json, not orjson: a status may be beyond 64 bits
    result = check_captures(demo, [str(path)])
    return [(f.code, f.where) for f in result.findings], result


GOOD_B64 = base64.b64encode(orjson.dumps(DISCOVERY)).decode()


@pytest.mark.parametrize(
    ("content", "where"),
    [
        ({"text": "!!!!", "encoding": "base64"}, "/log/entries/0/response/content/text"),  # decoded to nothing
        ({"text": GOOD_B64 + "@@", "encoding": "base64"}, "/log/entries/0/response/content/text"),  # junk dropped
        ({"text": GOOD_B64[:-1], "encoding": "base64"}, "/log/entries/0/response/content/text"),  # bad padding
        ({"text": GOOD_B64, "encoding": "gzip"}, "/log/entries/0/response/content/encoding"),
        ({"text": GOOD_B64, "encoding": ["base64"]}, "/log/entries/0/response/content/encoding"),
    ],
)
def test_a_har_body_in_an_unreadable_encoding_is_a_located_finding(demo, tmp_path, content, where):
    findings, _ = _check_har(demo, tmp_path, _har(_discovery(content)))
    assert findings == [("CAPTURE_FORMAT", where)]


def test_a_base64_har_body_is_read(demo, tmp_path):
    findings, result = _check_har(demo, tmp_path, _har(_discovery({"text": GOOD_B64, "encoding": "base64"})))
    assert findings == [] and result.coverage["discovery.response"].seen == 1


def test_har_headers_must_be_a_list_of_name_value_pairs(demo, tmp_path):
    request = {"method": "GET", "url": "http://h/.well-known/demo", "headers": {"accept": "*/*"}}
    findings, _ = _check_har(demo, tmp_path, _har(_discovery(request=request)))
    assert findings == [("CAPTURE_FORMAT", "/log/entries/0/request/headers")]


@pytest.mark.parametrize(
    ("request_part", "where"),
    [
        ({"method": "GET", "url": "http://h/.well-known/demo", "headers": [{"name": "a", "value": 1}]},
         "/log/entries/0/request/headers/0"),
        ({"method": "GET", "url": "http://h/.well-known/demo", "postData": "x"}, "/log/entries/0/request/postData"),
        ({"method": "GET", "url": "http://h/.well-known/demo", "postData": {"text": 5}},
         "/log/entries/0/request/postData/text"),
    ],
)
def test_a_bad_request_side_does_not_hide_the_response(demo, tmp_path, request_part, where):
    """The response of an entry whose request is malformed is still checked: its own violations are not lost."""
    entry = _discovery({"text": orjson.dumps({"api": 5}).decode()}, request=request_part)
    findings, result = _check_har(demo, tmp_path, _har(entry))
    assert ("CAPTURE_FORMAT", where) in findings
    assert ("SCHEMA_VIOLATION", "/log/entries/0/response") in findings
    assert result.coverage["discovery.response"].seen == 1


def test_a_bad_request_side_in_an_exchange_does_not_hide_the_response(demo, write_lines):
    exchange = {"request": {"method": "GET", "url": "http://h/.well-known/demo", "text": 5},
                "response": {"status": 200, "body": {"api": 5}}}
    result = check_captures(demo, [write_lines([exchange])])
    assert [(f.code, f.line) for f in result.findings] == [("CAPTURE_FORMAT", 1), ("SCHEMA_VIOLATION", 1)]
    assert result.coverage["discovery.response"].seen == 1


@pytest.mark.parametrize("status", [-5, 2**70, 1000, 99])
def test_a_status_outside_http_range_is_a_located_finding(demo, tmp_path, status):
    entry = _discovery()
    entry["response"]["status"] = status
    findings, _ = _check_har(demo, tmp_path, _har(entry))
    assert ("CAPTURE_FORMAT", "/log/entries/0/response/status") in findings


def test_status_zero_means_no_response_only_in_har(demo, write_lines):
    exchange = {"request": {"method": "GET", "url": "http://h/.well-known/demo"}, "response": {"status": 0}}
    result = check_captures(demo, [write_lines([exchange])])
    assert [f.code for f in result.findings] == ["CAPTURE_FORMAT"]
    assert "(at /response/status)" in result.findings[0].message


@pytest.mark.parametrize(("request_part", "where"), [
    ({"method": "", "url": "http://h/.well-known/demo"}, "/log/entries/0/request/method"),
    ({"method": "GET", "url": ""}, "/log/entries/0/request/url"),
    ({"method": "GE T", "url": "http://h/.well-known/demo"}, "/log/entries/0/request/method"),
])
def test_an_empty_method_or_url_is_a_located_finding(demo, tmp_path, request_part, where):
    findings, _ = _check_har(demo, tmp_path, _har(_discovery(request=request_part)))
    assert ("CAPTURE_FORMAT", where) in findings


def test_a_framing_header_version_true_is_not_1(demo, write_lines):
    path = write_lines([{"wirecheck_capture": True, "framing": "directed"}, {"from": "server", "message": HELLO}])
    result = check_captures(demo, [path])
    assert [(f.code, f.line) for f in result.findings] == [("CAPTURE_FORMAT", 1)]


def test_a_boolean_request_id_does_not_answer_a_numeric_one(demo, write_lines):
    """Python's True == 1 must not pair a response whose id is `true` with the request whose id is 1."""
    request = {"type": "request", "request_id": 1, "request": {"subtype": "ping"}}
    path = write_lines([
        {"wirecheck_capture": 1, "framing": "directed"},
        {"from": "server", "message": HELLO},
        {"from": "client", "message": request},
        {"from": "server", "message": {"type": "response", "response": {"request_id": 1, "subtype": "success"}}},
        {"from": "server", "message": {"type": "response", "response": {"request_id": True, "subtype": "success"}}},
    ])
    result = check_captures(demo, [path])
    correlation = [(f.code, f.line) for f in result.findings
                   if f.code in {"DUPLICATE_RESPONSE", "RESPONSE_WITHOUT_REQUEST", "REQUEST_WITHOUT_RESPONSE"}]
    assert correlation == [("RESPONSE_WITHOUT_REQUEST", 5)]


def test_an_env_artifact_program_must_be_a_string(demo, write_lines):
    path = write_lines([{"wirecheck_artifact": 1, "channel": "env", "program": 5, "env": {"A": "1"}}])
    result = check_captures(demo, [path])
    assert [(f.code, f.line) for f in result.findings] == [("CAPTURE_FORMAT", 1)]


def test_a_file_artifact_with_both_content_and_text_is_a_finding(demo, write_lines):
    path = write_lines([{"wirecheck_artifact": 1, "channel": "file", "path": "a.demo.json", "content": {},
                         "text": "{}"}])
    [finding] = check_captures(demo, [path]).findings
    assert finding.code == "CAPTURE_FORMAT" and "not both" in finding.message


def test_ndjson_saved_as_json_is_read_line_by_line(demo, tmp_path):
    """`cmd > out.json` is a common way to save a stream: its lines are still read, not one PARSE_ERROR."""
    path = tmp_path / "out.json"
    path.write_bytes(orjson.dumps(HELLO) + b"\n" + b'{"type":"hello","version":1}\n' + orjson.dumps(HELLO) + b"\n")
    result = check_captures(demo, [str(path)])
    assert [(f.code, f.line) for f in result.findings] == [("SCHEMA_VIOLATION", 2)]
    assert result.coverage["hello"].seen == 3


def test_a_broken_json_document_is_still_one_parse_error(demo, tmp_path):
    path = tmp_path / "broken.json"
    path.write_bytes(b'{\n "log": {"entries": [}\n}\n')
    result = check_captures(demo, [str(path)])
    assert [f.code for f in result.findings] == ["PARSE_ERROR"]


# -- captures that cannot be read -------------------------------------------------------------------------------


def test_a_capture_that_cannot_be_opened_is_a_usage_error_naming_it(demo, tmp_path):
    path = tmp_path / "sock.jsonl"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
        [summary] = Engine(demo).run([CaptureFile(str(path))]).captures
        assert summary.unreadable and summary.messages == 0
        proc = _wirecheck("validate", "demo@1.0.0", str(path))
    finally:
        server.close()
    assert proc.returncode == 2, proc.stderr
    assert "cannot read capture" in proc.stderr and "sock.jsonl" in proc.stderr and "internal error" not in proc.stderr


def test_a_read_error_is_a_usage_error_not_a_stdout_failure(tmp_path):
    sink = tmp_path / "write-only"
    with sink.open("wb") as write_only:  # reading a descriptor opened for writing fails with EBADF
        proc = _wirecheck("validate", "demo@1.0.0", "-", stdin=write_only)
    assert proc.returncode == 2, proc.stderr
    assert "cannot read capture -" in proc.stderr and "standard output" not in proc.stderr


def test_closed_stdin_is_a_usage_error():
    proc = _wirecheck("validate", "demo@1.0.0", "-", close_stdin=True)
    assert proc.returncode == 2, proc.stderr
    assert "standard input" in proc.stderr and "internal error" not in proc.stderr


def _wirecheck(*args, stdin=None, close_stdin=False):
    env = {**os.environ, "WIRECHECK_CONTRACTS": DEMO_CONTRACTS}
    return subprocess.run([sys.executable, "-m", "wirecheck", *args], stdin=stdin, capture_output=True, text=True,
                          env=env, timeout=60, preexec_fn=(lambda: os.close(0)) if close_stdin else None)


# -- memory ---------------------------------------------------------------------------------------------------------


def test_findings_of_one_kind_are_listed_up_to_a_limit_and_counted_exactly(demo, tmp_path):
    """A capture checked against the wrong release has one finding per line: listing them all would hold memory in
    proportion to the capture. The first MAX_LISTED of each (check, kind, severity) in the run are listed, one note
    says how many more there are, and every count (summary, coverage, verdict) stays exact."""
    from wirecheck.check.engine import MAX_LISTED
    from wirecheck.findings import Severity

    n = MAX_LISTED + 250
    path = tmp_path / "wrong.jsonl"
    path.write_bytes(b'{"type":"mystery"}\n' * n + b'{"type":"hello","version":1}\n' * n + b"nope\n")
    seen = []
    result = Engine(demo).run([CaptureFile(str(path))], on_finding=seen.append)
    assert result.count(Severity.WARNING) == n and result.count(Severity.ERROR) == n + 1
    assert result.coverage["hello"].errors == n and result.unclassified == n and result.messages == 2 * n
    assert len(seen) == 2 * n + 1  # a streaming consumer still gets every finding
    listed = [(f.code, f.line) for f in result.findings]
    assert listed[:MAX_LISTED] == [("UNKNOWN_MESSAGE_KIND", line) for line in range(1, MAX_LISTED + 1)]
    assert ("PARSE_ERROR", 2 * n + 1) in listed  # a different check is never crowded out
    notes = [f for f in result.findings if f.code == "FINDINGS_OMITTED"]
    assert [(f.severity, f.kind, f.line, f.file) for f in notes] == [(Severity.INFO, "hello", None, str(path)),
                                                                     (Severity.INFO, None, None, str(path))]
    assert notes[0].message.startswith("250 more SCHEMA_VIOLATION errors on hello in this capture")
    assert notes[1].message.startswith("250 more UNKNOWN_MESSAGE_KIND warnings in this capture")
    assert result.count(Severity.INFO) == 2 and len(result.findings) == 2 * MAX_LISTED + 1 + 2
    # the limit is the run's, not each capture's: a fleet of captures lists the first examples, counts the rest
    twice = Engine(demo).run([CaptureFile(str(path)), CaptureFile(str(path))])
    assert twice.count(Severity.WARNING) == 2 * n and twice.count(Severity.ERROR) == 2 * (n + 1)
    assert [len(c.findings) for c in twice.captures] == [2 * MAX_LISTED + 1, 1]  # the second: its PARSE_ERROR
    assert [f.message.split(" are ")[0] for f in twice.findings if f.code == "FINDINGS_OMITTED"] == [
        f"{n + 250} more SCHEMA_VIOLATION errors on hello in this run",
        f"{n + 250} more UNKNOWN_MESSAGE_KIND warnings in this run"]


@pytest.mark.parametrize(("name", "compress"), [
    ("c.jsonl.gz", lambda data: __import__("gzip").compress(data)),
    ("c.jsonl.bz2", lambda data: __import__("bz2").compress(data)),
    ("c.jsonl.xz", lambda data: __import__("lzma").compress(data)),
])
def test_a_compressed_capture_is_one_finding_not_a_line_of_noise_each(demo, tmp_path, name, compress):
    path = tmp_path / name
    path.write_bytes(compress(b'{"type": "hello", "version": "1.0.0"}\n' * 2000))
    result = check_captures(demo, [str(path)])
    [finding] = result.findings
    assert finding.code == "CAPTURE_FORMAT" and "compressed: unpack it first" in finding.message


@pytest.mark.parametrize(("url", "seen"), [
    ("http://h/.well-known/d%65mo", 1),  # an unreserved character percent-encoded: the same path (RFC 3986 6.2.2)
    ("http://h/.well-known/d%65m%6F", 1),
    ("http://h/.well-known%2Fdemo", 0),  # an encoded separator is not a separator
])
def test_percent_encoded_unreserved_characters_match_the_route(demo, write_lines, url, seen):
    exchange = {"request": {"method": "GET", "url": url}, "response": {"status": 200, "body": DISCOVERY}}
    result = check_captures(demo, [write_lines([exchange])])
    assert result.coverage["discovery.response"].seen == seen, result.findings


# -- what would never end, or never start --------------------------------------------------------------------------


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_device_is_refused_not_read_for_ever(device):
    proc = _wirecheck("validate", "demo@1.0.0", device)
    assert proc.returncode == 2, proc.stderr
    assert f"{device} is a device" in proc.stderr


def test_a_device_on_standard_input_is_refused():
    with open("/dev/zero", "rb") as zero:
        proc = _wirecheck("validate", "demo@1.0.0", "-", stdin=zero)
    assert proc.returncode == 2 and "standard input is a device" in proc.stderr, proc.stderr


def test_dev_null_is_an_empty_capture():
    from wirecheck.exitcodes import INCONCLUSIVE

    proc = _wirecheck("validate", "demo@1.0.0", "/dev/null")
    assert proc.returncode == INCONCLUSIVE and "EMPTY_CAPTURE" in proc.stdout, proc.stderr


def test_a_named_pipe_nobody_writes_to_is_refused_after_a_bounded_wait(demo, tmp_path, monkeypatch):
    from wirecheck import input_files

    monkeypatch.setattr(input_files, "FIFO_WAIT_SECONDS", 0.2)
    fifo = tmp_path / "capture.jsonl"
    os.mkfifo(fifo)
    [summary] = Engine(demo).run([CaptureFile(str(fifo))]).captures  # open() alone would block for ever
    assert "named pipe (FIFO) and no process wrote to it within 0.2 s" in (summary.unreadable or "")


def test_an_anonymous_pipe_is_read_like_standard_input(tmp_path):
    """`<(cmd)`: a pipe some process already writes to."""
    read_end, write_end = os.pipe()
    os.write(write_end, orjson.dumps(HELLO) + b"\n")
    os.close(write_end)
    try:
        proc = subprocess.run([sys.executable, "-m", "wirecheck", "validate", "demo@1.0.0", f"/dev/fd/{read_end}"],
                              capture_output=True, text=True, timeout=60, pass_fds=(read_end,),
                              env={**os.environ, "WIRECHECK_CONTRACTS": DEMO_CONTRACTS})
    finally:
        os.close(read_end)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_symlink_loop_is_named_as_one(tmp_path):
    (tmp_path / "a.jsonl").symlink_to(tmp_path / "b.jsonl")
    (tmp_path / "b.jsonl").symlink_to(tmp_path / "a.jsonl")
    proc = _wirecheck("validate", "demo@1.0.0", str(tmp_path / "a.jsonl"))
    assert proc.returncode == 2 and "loop of symbolic links" in proc.stderr and "not found" not in proc.stderr


def test_a_gzip_stream_whose_first_byte_arrives_alone_is_still_recognised(demo, monkeypatch):
    """The magic number is two bytes; a pipe may hand over the first one by itself."""
    import gzip
    import types

    class OneByteAtATime(io.RawIOBase):
        def __init__(self, data: bytes):
            self._data = data

        def readable(self) -> bool:
            return True

        def read1(self, size: int = -1) -> bytes:
            byte, self._data = self._data[:1], self._data[1:]
            return byte

        read = read1  # type: ignore[assignment]

    data = gzip.compress(orjson.dumps(HELLO) + b"\n")
    monkeypatch.setattr(sys, "stdin", types.SimpleNamespace(buffer=OneByteAtATime(data)))
    [finding] = Engine(demo).run([CaptureFile("-")]).findings
    assert finding.code == "CAPTURE_FORMAT" and "gzip-compressed: unpack it first" in finding.message


def test_a_finding_quotes_a_huge_value_cut_and_says_how_big_it_was(demo, write_lines):
    """A 1 MiB string or key in a message is quoted by its findings cut to TEXT_LIMIT characters, its size said:
    a thousand such findings were a gigabyte of memory and of report."""
    from wirecheck.findings import TEXT_LIMIT

    value, key = "x" * 100_000, "k" * 100_000
    result = check_captures(demo, [write_lines([{"type": "hello", "version": value, key: 1}])])
    by_code = {f.code: f for f in result.findings}
    violation, unknown = by_code["SCHEMA_VIOLATION"], by_code["UNKNOWN_FIELD"]
    for finding in (violation, unknown):
        for text in (finding.message, finding.found, finding.expected, finding.pointer):
            assert text is None or len(text) <= TEXT_LIMIT + 40, (finding.code, len(text))
    # what was expected first, what was found after it, cut to a few words (the whole value is in `found`)
    assert violation.message.startswith(r'expected a string matching the pattern "^\\d+\\.\\d+\\.\\d+$", found "xxx')
    assert len(violation.message) < 200 and violation.found.endswith("… (100,000 characters)")
    assert unknown.pointer is not None and "characters cut" in unknown.pointer
