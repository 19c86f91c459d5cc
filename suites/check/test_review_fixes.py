"""Defects found in review, each with the input that showed it."""

from __future__ import annotations

import sys
from pathlib import Path

import jsonschema_rs
import orjson
import pytest

from wirecheck.check.engine import check_captures
from wirecheck.check.validate import SchemaPair
from wirecheck.contracts.model import SchemaLink
from wirecheck.contracts.views import tolerant_view
from wirecheck.json_text import parse_json

DEMO = Path(__file__).resolve().parents[1] / "data" / "contracts"
ITEM = {"id": "abc", "created": "2026-01-01T00:00:00Z"}


def _har(entries):
    return {"log": {"version": "1.2", "entries": entries}}


def _entry(request=None, response=None):
    entry = {"request": request or {"method": "GET", "url": "http://h/.well-known/demo", "headers": []}}
    if response is not None:
        entry["response"] = response
    return entry


@pytest.mark.parametrize(
    ("document", "where"),
    [
        ({"log": 5}, "/log"),
        (_har([_entry({"method": "POST", "url": "http://h/x", "postData": "abc"}, {"status": 0})]),
         "/log/entries/0/request/postData"),
        (_har([_entry(response={"status": 200, "content": "x"})]), "/log/entries/0/response/content"),
        (_har([_entry(response={"status": 200, "content": {"text": 5}})]), "/log/entries/0/response/content/text"),
        (_har([_entry(response={"status": 200, "content": {"text": 5, "encoding": "base64"}})]),
         "/log/entries/0/response/content/text"),
        (_har([_entry({"method": "GET", "url": "http://[::1/a"})]), "/log/entries/0/request/url"),
        (_har([_entry(response=5)]), "/log/entries/0/response"),
        (_har([_entry({"method": "GET", "url": "http://h/x", "headers": [{"name": "a", "value": {"b": 1}}]},
                      {"status": 0})]), "/log/entries/0/request/headers/0"),
        (_har([_entry(response={"status": 200, "headers": [{"name": "a", "value": 1}]})]),
         "/log/entries/0/response/headers/0"),
        (_har([_entry(response={"status": 200, "headers": [{"name": "a"}]})]), "/log/entries/0/response/headers/0"),
    ],
)
def test_malformed_har_is_a_located_finding(demo, tmp_path, document, where):
    path = tmp_path / "bad.har"
    path.write_bytes(orjson.dumps(document))
    result = check_captures(demo, [str(path)])
    assert [(f.code, f.where) for f in result.findings if f.code == "CAPTURE_FORMAT"] == [("CAPTURE_FORMAT", where)]


@pytest.mark.parametrize(
    ("exchange", "where"),
    [({"request": {"method": "GET", "url": "http://x/a", "text": 5}}, "/request/text"),
     ({"request": {"method": "GET", "url": "http://[::1/a"}}, "/request/url"),
     ({"request": {"method": "GET", "url": "http://x/a", "headers": {"x/y": None}}}, "/request/headers/x~1y"),
     ({"request": {"method": "GET", "url": "http://x/.well-known/demo"},
       "response": {"status": 200, "headers": {"a": True}}},
      "/response/headers/a")],
)
def test_malformed_exchange_is_a_located_finding(demo, write_lines, exchange, where):
    result = check_captures(demo, [write_lines([exchange])])
    assert [(f.code, f.line) for f in result.findings] == [("CAPTURE_FORMAT", 1)]
    assert result.findings[0].message.endswith(f"(at {where})")


def test_a_numeric_header_value_in_an_exchange_is_read_as_its_digits(demo, write_lines):
    exchange = {"request": {"method": "GET", "url": "http://x/.well-known/demo", "headers": {"Content-Length": 0}}}
    result = check_captures(demo, [write_lines([exchange])])
    assert not [f for f in result.findings if f.code == "CAPTURE_FORMAT"]


def test_a_har_entry_without_a_response_is_a_located_finding_and_its_request_is_still_checked(demo, tmp_path):
    path = tmp_path / "pending.har"
    path.write_bytes(orjson.dumps(_har([_entry(), {**_entry(), "response": None}])))
    result = check_captures(demo, [str(path)])
    assert [(f.code, f.where) for f in result.findings if f.code == "CAPTURE_FORMAT"] == [
        ("CAPTURE_FORMAT", "/log/entries/0/response"), ("CAPTURE_FORMAT", "/log/entries/1/response")]
    assert result.messages == 2


@pytest.mark.parametrize(
    ("name", "data"),
    [("none.har", orjson.dumps(_har([]))), ("none.json", b"[]"),
     ("header.jsonl", b'{"wirecheck_capture": 1, "framing": "directed"}\n')],
)
def test_captures_without_messages_in_every_form_are_empty(demo, tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    result = check_captures(demo, [str(path)])
    assert [f.code for f in result.findings] == ["EMPTY_CAPTURE"]


@pytest.mark.parametrize("number", [b"1e400", b"1" + b"0" * 400, b"-1e400", b"1" + b"0" * 5000, b"2e308"])
def test_a_number_beyond_a_double_is_judged_alike_however_written_never_a_null(number):
    """JavaScript reads 1e400 and the same number in 401 digits alike (Infinity); a 401-digit integer conformed while
    1e400 was a PARSE_ERROR. Both are NUMBER_OUT_OF_RANGE at their pointer, the message checked with the nearest
    double in its place (jsonschema-rs would read an inf as null)."""
    value, problem = parse_json(b'{"duration_ms": ' + number + b', "a": [1]}')
    assert problem is not None and (problem.code, problem.pointer) == ("NUMBER_OUT_OF_RANGE", "/duration_ms")
    assert value == {"duration_ms": -sys.float_info.max if number.startswith(b"-") else sys.float_info.max, "a": [1]}
    assert parse_json(b"[1.7976931348623157e308, 17976931348623157" + b"0" * 292 + b"]")[1] is None  # the largest


def test_tolerant_errors_are_not_lost_when_the_strict_errors_are_all_closing():
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://x.invalid/s.json",
              "oneOf": [{"type": "object", "required": ["a"], "properties": {"a": {}}, "additionalProperties": False},
                        {"type": "object", "required": ["b"], "properties": {"b": {}}, "additionalProperties": False}]}
    root = {"$ref": "https://x.invalid/s.json"}
    strict = jsonschema_rs.validator_for(root, registry=jsonschema_rs.Registry([("https://x.invalid/s.json", schema)]))
    tolerant = jsonschema_rs.validator_for(
        root, registry=jsonschema_rs.Registry([("https://x.invalid/s.json", tolerant_view(schema))]))
    pair = SchemaPair(SchemaLink("s.json", "https://x.invalid/s.json"), strict, lambda: tolerant, {})
    problems = pair.problems({"a": 1, "b": 2})  # open objects match both branches: oneOf fails
    assert any(not p.unknown_field for p in problems), problems


