"""The engine on the demo contract: every finding is asserted with its location, code and severity."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from wirecheck.capture import CaptureFile
from wirecheck.check.engine import CheckOptions, Engine, check_captures
from wirecheck.findings import Severity

HELLO = {"type": "hello", "version": "1.0.0"}
PING = {"type": "request", "request_id": "r1", "request": {"subtype": "ping"}}


def reply(request_id="r1", payload=None, subtype="success"):
    response = {"request_id": request_id, "subtype": subtype}
    if payload is not None:
        response["payload"] = payload
    return {"type": "response", "response": response}


def framed(*pairs):
    return [{"wirecheck_capture": 1, "framing": "directed"}] + [{"from": s, "message": m} for s, m in pairs]


def brief(result):
    return [(f.line, f.severity.value, f.code, f.kind, f.pointer) for f in result.findings]


def test_valid_stream_has_no_findings_and_exact_coverage(demo, write_lines):
    result = check_captures(demo, [write_lines([HELLO, {"type": "event", "payload": {"kind": "count", "count": 2}}])])
    assert result.findings == []
    assert result.messages == 2 and result.unclassified == 0
    assert result.coverage["hello"].seen == 1 and result.coverage["event"].seen == 1
    assert set(result.not_exercised) == {k.id for k in demo.kinds} - {"hello", "event"}


def test_unknown_field_is_a_warning_located_at_the_field(demo, write_lines):
    result = check_captures(demo, [write_lines([{**HELLO, "betas": ["x"]}])])
    assert brief(result) == [(1, "warning", "UNKNOWN_FIELD", "hello", "/betas")]
    assert result.findings[0].message == "unknown field `betas` at /betas"
    assert not result.fails()
    assert result.fails(Severity.WARNING)


def test_unknown_field_inside_the_matching_union_branch(demo, write_lines):
    event = {"type": "event", "payload": {"kind": "text", "text": "hi", "extra": 1}}
    result = check_captures(demo, [write_lines([HELLO, event])])
    assert brief(result) == [(2, "warning", "UNKNOWN_FIELD", "event", "/payload/extra")]


def test_tolerant_violation_is_an_error_with_expected_and_found(demo, write_lines):
    result = check_captures(demo, [write_lines([{"type": "hello", "version": "1.0"}])])
    (finding,) = result.findings
    assert (finding.code, finding.severity, finding.pointer) == ("SCHEMA_VIOLATION", Severity.ERROR, "/version")
    assert finding.expected == 'pattern: "^\\\\d+\\\\.\\\\d+\\\\.\\\\d+$"'
    assert finding.found == '"1.0"'
    assert finding.schema_location.endswith("/demo/1.0.0/stream.json#/$defs/Hello/properties/version/pattern")
    # the file a user can open, not the schema's $id (https://contracts.wirecheck.invalid/..., issue 42, 6)
    file, _, _ = finding.schema_location.partition("#")
    assert file == (demo.root / "stream.json").as_posix() and Path(file).is_file()


def test_error_and_unknown_field_in_one_message_are_both_reported(demo, write_lines):
    result = check_captures(demo, [write_lines([{"type": "hello", "version": 1, "zz": 0}])])
    assert sorted(brief(result)) == [
        (1, "error", "SCHEMA_VIOLATION", "hello", "/version"),
        (1, "warning", "UNKNOWN_FIELD", "hello", "/zz"),
    ]


def test_failed_union_is_reported_through_the_branch_the_discriminator_chose(demo, write_lines):
    result = check_captures(demo, [write_lines([HELLO, {"type": "event", "payload": {"kind": "count", "count": -1}}])])
    (finding,) = result.findings
    assert finding.pointer == "/payload/count"
    assert finding.message.startswith("(as kind \"count\") expected at least 0, found -1")


def test_pattern_digits_are_ascii_and_dollar_is_end_of_string(demo, write_lines):
    result = check_captures(
        demo, [write_lines([{"type": "hello", "version": "١.٢.٣"}, {"type": "hello", "version": "1.2.3\n"}])]
    )
    assert [(f.line, f.code, f.pointer) for f in result.findings] == [
        (1, "SCHEMA_VIOLATION", "/version"),
        (2, "SCHEMA_VIOLATION", "/version"),
    ]


def test_unknown_kind_is_a_warning_and_counted(demo, write_lines):
    result = check_captures(demo, [write_lines([HELLO, {"type": "bridge_state", "state": "x"}])])
    assert brief(result) == [(2, "warning", "UNKNOWN_MESSAGE_KIND", None, None)]
    assert result.unclassified == 1 and result.messages == 2


def test_alternative_discriminator_field_selects_the_same_kind(demo, write_lines):
    old_style = {"type": "request", "request_id": "r2", "request": {"kind": "ping"}}
    result = check_captures(demo, [write_lines([HELLO, old_style])])
    assert result.findings == [] and result.coverage["request.ping"].seen == 1


def test_reply_is_checked_against_the_schema_of_the_request_it_answers(demo, write_lines):
    result = check_captures(demo, [write_lines([HELLO, PING, reply(payload={"pong": "no"})])])
    assert brief(result) == [(3, "error", "REPLY_VIOLATION", "response.server", "/response/payload/pong")]
    assert result.findings[0].message.startswith("reply to request.ping: ")


def test_reply_unknown_field_is_a_warning(demo, write_lines):
    result = check_captures(demo, [write_lines([HELLO, PING, reply(payload={"pong": 1, "ms": 3})])])
    assert brief(result) == [(3, "warning", "UNKNOWN_FIELD", "response.server", "/response/payload/ms")]


def test_one_stream_capture_does_not_require_the_other_direction(demo, write_lines):
    # a CLI's stdout holds responses to requests that went the other way
    result = check_captures(demo, [write_lines([HELLO, reply("from-stdin", payload={"pong": 1})])])
    assert result.findings == []


def test_duplicate_response_is_an_error(demo, write_lines):
    result = check_captures(demo, [write_lines([HELLO, PING, reply(payload={"pong": 1}), reply(payload={"pong": 1})])])
    assert brief(result) == [(4, "error", "DUPLICATE_RESPONSE", "response.server", "/response/request_id")]


def test_a_request_reusing_a_waiting_id_is_an_error_in_a_framed_capture(demo, write_lines):
    lines = framed(("server", HELLO), ("client", PING), ("client", PING), ("server", reply(payload={"pong": 1})),
                   ("client", PING), ("server", reply(payload={"pong": 1})))  # reuse after the answer: fine
    result = check_captures(demo, [write_lines(lines)])
    assert brief(result) == [(4, "error", "DUPLICATE_REQUEST_ID", "request.ping", "/request_id")]
    assert "waiting for the response to the request at " in result.findings[0].message
    # one stream: the responses went the other way, so a repeated id says nothing
    assert check_captures(demo, [write_lines([HELLO, PING, PING])]).findings == []


def test_framed_capture_checks_both_directions(demo, write_lines):
    lines = framed(
        ("server", HELLO),
        ("client", PING),
        ("server", reply(payload={"pong": 1})),
        ("client", reply("nobody-asked")),
        ("client", {**PING, "request_id": "r9"}),
    )
    result = check_captures(demo, [write_lines(lines)])
    assert brief(result) == [
        (5, "error", "RESPONSE_WITHOUT_REQUEST", "response.client", "/response/request_id"),
        (6, "warning", "REQUEST_WITHOUT_RESPONSE", "request.ping", None),
    ]
    # same selector, two producers: the frame's sender decides the kind
    assert result.coverage["response.server"].seen == 1 and result.coverage["response.client"].seen == 1


def test_frame_sender_must_be_a_role_of_the_release(demo, write_lines):
    result = check_captures(demo, [write_lines(framed(("server", HELLO), ("nobody", HELLO)))])
    assert [(f.line, f.code, f.found) for f in result.findings] == [(3, "CAPTURE_FORMAT", "nobody")]


def test_framed_lines_must_be_frames(demo, write_lines):
    result = check_captures(demo, [write_lines([*framed(("server", HELLO)), HELLO])])
    assert brief(result) == [(3, "error", "CAPTURE_FORMAT", None, None)]


def test_first_message_rule(demo, write_lines):
    result = check_captures(demo, [write_lines([{"type": "event", "payload": {"kind": "count", "count": 1}}, HELLO])])
    assert brief(result) == [(1, "error", "FIRST_MESSAGE_IS", "event", None)]
    assert (result.findings[0].expected, result.findings[0].found) == ("hello", "event")


def test_first_message_rule_counts_the_frame_sender_not_the_kinds_producer(demo, write_lines):
    # a kind both sides send (like Qoder's keep_alive) sent by the client first does not count as the server's
    event = {"type": "event", "payload": {"kind": "count", "count": 1}}
    result = check_captures(demo, [write_lines(framed(("client", event), ("server", HELLO)))])
    assert result.findings == []
    result = check_captures(demo, [write_lines(framed(("server", event), ("server", HELLO)))])
    assert [f.code for f in result.findings] == ["FIRST_MESSAGE_IS"]


def test_fields_equal_rule(demo, write_lines):
    result = check_captures(demo, [write_lines([HELLO, {"type": "job", "id": "a", "payload": {"id": "b"}}])])
    assert brief(result) == [(2, "error", "FIELDS_EQUAL", "job", "/payload/id")]


def test_rules_start_fresh_for_each_capture(demo, write_lines):
    first = write_lines([HELLO], "a.jsonl")
    second = write_lines([{"type": "event", "payload": {"kind": "count", "count": 1}}], "b.jsonl")
    result = check_captures(demo, [first, second])
    assert [(f.file.rsplit("/", 1)[-1], f.code) for f in result.findings] == [("b.jsonl", "FIRST_MESSAGE_IS")]


# -- HTTP ---------------------------------------------------------------------------------------------


def har(*entries):
    def entry(method, url, status, body=None, headers=(), response_body=None):
        request = {"method": method, "url": url, "headers": [{"name": k, "value": v} for k, v in headers]}
        if body is not None:
            request["postData"] = {"mimeType": "application/json", "text": orjson.dumps(body).decode()}
        content = {"mimeType": "application/json", "size": 0}
        if response_body is not None:
            content["text"] = response_body if isinstance(response_body, str) else orjson.dumps(response_body).decode()
        return {"request": request, "response": {"status": status, "headers": [], "content": content}}

    return {
        "log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": [entry(*e) for e in entries]}
    }


AUTH = (("Authorization", "Bearer demo_1"),)
ITEM = {"id": "abc", "created": "2026-01-01T00:00:00Z"}


def write_har(tmp_path, document, name="c.har"):
    path = tmp_path / name
    path.write_bytes(orjson.dumps(document))
    return str(path)


def test_har_with_discovery_sets_the_base_without_flags(demo, tmp_path):
    document = har(
        ("GET", "http://127.0.0.1:9/.well-known/demo", 200, None, (), {"api": "http://127.0.0.1:9/v2/api/"}),
        ("GET", "http://127.0.0.1:9/v2/api/items/abc", 200, None, AUTH, ITEM),
        ("GET", "http://127.0.0.1:9/v2/api/items/zzz", 204, None, AUTH, None),
    )
    result = check_captures(demo, [write_har(tmp_path, document)])
    assert result.findings == []
    assert {k: c.seen for k, c in result.coverage.items() if c.seen} == {
        "discovery.request": 1,
        "discovery.response": 1,
        "item.request": 2,
        "item.response": 1,
        "item.none": 1,
    }


def test_http_findings_are_located_in_the_har(demo, tmp_path):
    document = har(
        ("GET", "http://h/.well-known/demo", 200, None, (), {"api": "http://h/api"}),
        (
            "GET",
            "http://h/api/items/abc",
            200,
            None,
            (("authorization", "Basic x"),),
            {**ITEM, "created": "2026-01-01T00:00:00+01:00"},
        ),
        ("GET", "http://h/api/items/zzz", 204, None, AUTH, {"unexpected": True}),
        ("GET", "http://h/other/items/abc", 200, None, AUTH, ITEM),
    )
    result = check_captures(demo, [write_har(tmp_path, document)])
    assert [(f.where, f.code, f.kind, f.pointer) for f in result.findings] == [
        ("/log/entries/1/request", "HEADER_VIOLATION", "item.request", "/authorization"),
        ("/log/entries/1/response", "SCHEMA_VIOLATION", "item.response", "/created"),
        ("/log/entries/2/response", "UNEXPECTED_BODY", "item.none", None),
        ("/log/entries/3/request", "UNKNOWN_MESSAGE_KIND", None, None),
        ("/log/entries/3/response", "UNKNOWN_MESSAGE_KIND", None, None),
    ]


def test_a_stray_first_line_does_not_change_the_capture_form(demo, write_lines):
    """The form is the first known form among the first lines: a note, or a broken exchange, at the top is
    reported where it is, and the rest is still read as exchanges (it was read as a stream of unknown kinds)."""
    good = {"request": {"method": "GET", "url": "http://h/items/abc", "headers": {"authorization": "Bearer demo_1"}},
            "response": {"status": 200, "headers": {}, "body": ITEM}}
    bad = {**good, "response": {"status": 200, "body": {**ITEM, "created": 5}}}
    for first in ({"note": "x"}, {"request": {"method": 5, "url": "http://h/"}}):
        capture = CaptureFile(write_lines([first, good, bad]))
        result = Engine(demo).run([capture])
        assert capture.form == "exchanges"
        assert [(f.line, f.code) for f in result.findings] == [(1, "CAPTURE_FORMAT"), (3, "SCHEMA_VIOLATION")]
        assert result.coverage["item.response"].seen == 2


def test_a_framing_header_below_the_first_line_is_reported_and_the_frames_are_read(demo, write_lines):
    lines = framed(("server", HELLO), ("client", PING), ("server", reply(payload={"pong": 1})))
    lines = [lines[1], lines[0], *lines[2:]]  # the header second
    result = check_captures(demo, [write_lines(lines)])
    assert [(f.line, f.code, f.message) for f in result.findings] == [
        (2, "CAPTURE_FORMAT", "the framing header must be the first line")]
    assert result.coverage["response.server"].seen == 1


def test_exchange_jsonl_with_base_url_option(demo, write_lines):
    exchange = {
        "request": {"method": "GET", "url": "http://h/x/y/items/abc", "headers": {"authorization": "Bearer demo_1"}},
        "response": {"status": 200, "headers": {}, "body": ITEM},
    }
    path = write_lines([exchange, {**exchange, "request": {**exchange["request"], "url": "http://h/items/abc"}}])
    with_base = check_captures(demo, [path], CheckOptions(base_urls={"api": "http://h/x/y"}))
    assert [(f.line, f.code) for f in with_base.findings] == [(2, "UNKNOWN_MESSAGE_KIND"), (2, "UNKNOWN_MESSAGE_KIND")]
    # without discovery or --base-url, a template matches under any prefix
    without = check_captures(demo, [path])
    assert without.findings == [] and without.coverage["item.response"].seen == 2


def test_a_discovery_announcing_an_unparseable_base_announces_none(demo, write_lines):
    discovery = {"request": {"method": "GET", "url": "http://h/.well-known/demo"},
                 "response": {"status": 200, "body": {"api": "http://[::1"}}}
    item = {"request": {"method": "GET", "url": "http://h/x/items/abc", "headers": {"authorization": "Bearer demo_1"}},
            "response": {"status": 200, "headers": {}, "body": ITEM}}
    result = check_captures(demo, [write_lines([discovery, item])])  # used to raise ValueError (exit 3)
    assert result.coverage["item.response"].seen == 1  # matched under any prefix, as with no base at all
    assert all(f.line == 1 for f in result.findings)


def test_json_route_without_body(demo, write_lines):
    exchange = {"request": {"method": "GET", "url": "http://h/.well-known/demo"}, "response": {"status": 200}}
    result = check_captures(demo, [write_lines([exchange])])
    assert [(f.code, f.kind) for f in result.findings] == [("UNEXPECTED_BODY", "discovery.response")]


def test_a_body_that_is_not_json_is_one_parse_error_not_also_a_missing_body(demo, write_lines):
    exchange = {"request": {"method": "GET", "url": "http://h/.well-known/demo"},
                "response": {"status": 200, "text": "<html>oops</html>"}}
    result = check_captures(demo, [write_lines([exchange])])
    assert [(f.code, f.line, f.where) for f in result.findings] == [("PARSE_ERROR", 1, "/response/text")]
    assert "body: not valid JSON" in result.findings[0].message


def test_har_structure_problems_are_located_and_the_rest_is_checked(demo, tmp_path):
    document = har(("GET", "http://h/.well-known/demo", 200, None, (), {"api": "http://h/api"}))
    document["log"]["entries"].insert(0, {"request": {"url": "http://h/"}})
    document["log"]["entries"].append(
        {
            "request": {"method": "GET", "url": "http://h/.well-known/demo"},
            "response": {"status": 200, "content": {"text": "{not json"}},
        }
    )
    result = check_captures(demo, [write_har(tmp_path, document)])
    assert [(f.where, f.code) for f in result.findings] == [
        ("/log/entries/0/request", "CAPTURE_FORMAT"),
        ("/log/entries/2/response/content/text", "PARSE_ERROR"),  # once: the body was there, it is not JSON
    ]
    assert result.coverage["discovery.response"].seen == 2


# -- artifacts ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("artifact", "expected"),
    [
        ({"wirecheck_artifact": 1, "channel": "file", "path": "/tmp/s.demo.json", "content": {"name": "n"}}, []),
        (
            {"wirecheck_artifact": 1, "channel": "file", "path": "s.demo.json", "text": '{"name": 3}'},
            [("SCHEMA_VIOLATION", "/name")],
        ),
        (
            {"wirecheck_artifact": 1, "channel": "file", "path": "other.json", "content": {}},
            [("UNKNOWN_MESSAGE_KIND", None), ("NOTHING_RECOGNISED", None)],  # the capture's only artifact
        ),
        ({"wirecheck_artifact": 1, "channel": "tape"}, [("CAPTURE_FORMAT", None)]),
        ({"wirecheck_artifact": True, "channel": "file", "path": "s.demo.json", "content": {"name": "n"}},
         [("CAPTURE_FORMAT", None)]),  # true is not 1, though Python's == says so
    ],
)
def test_file_artifacts(demo, write_lines, artifact, expected):
    result = check_captures(demo, [write_lines([artifact])])
    assert [(f.code, f.pointer) for f in result.findings] == expected


def test_an_artifact_list_with_a_bad_element_is_read_element_by_element(demo, tmp_path):
    """One element that is not an artifact is reported at its index; the others are still checked."""
    path = tmp_path / "artifacts.json"
    path.write_bytes(orjson.dumps([
        {"wirecheck_artifact": 1, "channel": "file", "path": "s.demo.json", "content": {"name": 3}}, None,
        {"wirecheck_artifact": 1, "channel": "file", "path": "s.demo.json", "content": {"name": "n"}},
    ]))
    result = check_captures(demo, [str(path)])
    assert [(f.where, f.code) for f in result.findings] == [("/0", "SCHEMA_VIOLATION"), ("/1", "CAPTURE_FORMAT")]
    assert result.captures[0].form == "artifacts" and result.messages == 2


def test_route_declared_under_any_prefix(demo, tmp_path):
    import dataclasses

    from wirecheck.check.classify import Classifier
    from wirecheck.check.message import HttpInfo, Message

    kind = demo.kind("discovery.request")
    anywhere = dataclasses.replace(kind, http=dataclasses.replace(kind.http, base="*"))
    release = dataclasses.replace(demo, kinds=(anywhere,))
    message = Message(value=None, file="f", http=HttpInfo("GET", "http://h/tenants/a/.well-known/demo",
                                                          "/tenants/a/.well-known/demo", None))
    assert Classifier(release).classify(message) is anywhere
    assert Classifier(demo).classify(message) is None  # without base "*", the path must match whole


def test_an_unknown_message_shows_its_discriminators_or_its_keys(demo, write_lines):
    result = check_captures(demo, [write_lines([{"type": "nope", "x": 1}, {"zz": 1, "aa": 2}, {}])])
    assert [f.found for f in result.findings if f.code == "UNKNOWN_MESSAGE_KIND"] == [
        '{"type":"nope"}', 'an object with keys ["aa","zz"]', "{}"]


def test_stream_message_with_a_request_member_is_not_taken_for_an_http_exchange(demo, write_lines):
    result = check_captures(demo, [write_lines([PING, HELLO])])
    assert result.captures[0].form == "stream"
    assert result.findings == [] and result.coverage["request.ping"].seen == 1


def test_a_boolean_selector_value_is_not_matched_by_a_number(demo, write_lines):
    import dataclasses

    from wirecheck.check.classify import Classifier
    from wirecheck.check.message import Message
    from wirecheck.contracts.model import MessageKind

    def kind(kind_id, flag):
        return MessageKind(id=kind_id, title=kind_id, channel="stdio-ndjson", producer="server", consumer="client",
                           provenance=demo.kind("hello").provenance,
                           fields=(((("type",), frozenset({"m"})), (("flag",), frozenset({flag}))),))

    release = dataclasses.replace(demo, kinds=(kind("m.true", True), kind("m.one", 1), kind("m.false", False)))
    classifier = Classifier(release)
    for value, expected in ((True, "m.true"), (1, "m.one"), (1.0, "m.one"), (False, "m.false"), (0, None)):
        found = classifier.classify(Message(value={"type": "m", "flag": value}, file="f"))
        assert (found.id if found else None) == expected, value
