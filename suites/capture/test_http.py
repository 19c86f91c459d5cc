"""HAR entries whose answer `wirecheck stub` marks as its own (capture/http.py, stub/har.py): the request is read and
judged, the answer is not (it is neither the platform's nor the runtime's)."""

from __future__ import annotations

from wirecheck.capture.http import read_har
from wirecheck.check.message import Message
from wirecheck.findings import Finding


def entry(status: int, mark: object = None) -> dict:
    value = {"request": {"method": "POST", "url": "http://127.0.0.1:1/agent/events", "headers": [],
                         "postData": {"mimeType": "application/json", "text": '{"event": {}}'}},
             "response": {"status": status, "headers": [], "content": {"size": 16, "text": '{"error": "x"}'}}}
    if mark is not None:
        value["_wirecheck"] = mark
    return value


def read(*entries: dict) -> list[Message | Finding]:
    return list(read_har({"log": {"entries": list(entries)}}, "stub.har"))


def test_an_answer_the_stub_injected_is_not_read_and_its_request_says_so():
    plain, injected, refused, dropped = (
        read(entry(503)), read(entry(503, {"fault": "events=503 once"})),
        read(entry(404, {"refused": "no leased command run-1"})), read(entry(0, {"fault": "events=drop once"})))
    assert [m.http.status for m in plain] == [None, 503] and plain[0].http.stub_answer is None
    for messages, said in ((injected, "fault events=503 once"), (refused, "refused no leased command run-1"),
                           (dropped, "fault events=drop once")):
        [request] = messages
        assert isinstance(request, Message) and request.value == {"event": {}}
        assert request.http.status is None and request.http.stub_answer == said


def test_a_mark_that_says_nothing_readable_is_located_and_the_entry_read_as_the_platforms():
    for mark in ("events=503", {}, {"fault": 503}):
        finding, request, response = read(entry(503, mark))
        assert isinstance(finding, Finding) and finding.code == "CAPTURE_FORMAT"
        assert finding.where == "/log/entries/0/_wirecheck" and '{"fault":' in finding.message
        assert request.http.stub_answer is None and response.http.status == 503
