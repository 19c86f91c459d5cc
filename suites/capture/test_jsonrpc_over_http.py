"""JSON-RPC over HTTP (A2A, MCP's Streamable HTTP) read as the JSON-RPC messages it carries: a POST whose body is a
JSON-RPC request is a message from the client, its JSON answer a message from the server, a text/event-stream answer
one message per Server-Sent Event (data lines joined; CRLF, CR and LF line ends); any other exchange stays HTTP."""

from __future__ import annotations

import json

from wirecheck.capture import CaptureFile, read_capture
from wirecheck.check.message import Message


def _read(tmp_path, *exchanges):
    path = tmp_path / "x.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in exchanges))
    return list(read_capture(CaptureFile(str(path))))


ASK = {"method": "POST", "url": "http://127.0.0.1:1/", "headers": {"content-type": "application/json"},
       "body": {"jsonrpc": "2.0", "id": 1, "method": "message/stream", "params": {}}}


def test_a_streamed_answer_is_one_response_per_event(tmp_path):
    events = 'data: {"jsonrpc":"2.0","id":1,\r\ndata: "result":{"n":0}}\r\n\r\n: a comment\n' \
             'event: x\ndata: {"jsonrpc":"2.0","id":1,"result":{"n":1}}\n\n'
    items = _read(tmp_path, {"request": ASK, "response": {"status": 200, "headers": {
        "content-type": "text/event-stream; charset=utf-8"}, "text": events}})
    assert all(isinstance(m, Message) and m.http is None for m in items), items
    assert [(m.sender, m.value.get("method") or m.value["result"]["n"], m.stream_event) for m in items] == [
        ("client", "message/stream", 0), ("server", 0, 0), ("server", 1, 1)]


def test_a_json_answer_is_a_message_from_the_server_and_other_exchanges_stay_http(tmp_path):
    items = _read(tmp_path,
                  {"request": ASK, "response": {"status": 200, "headers": {"content-type": "application/json"},
                                                "body": {"jsonrpc": "2.0", "id": 1, "result": {}}}},
                  {"request": {"method": "GET", "url": "http://127.0.0.1:1/.well-known/agent-card.json"},
                   "response": {"status": 200, "body": {"name": "a"}}})
    assert [(m.sender, m.http is None) for m in items] == [("client", True), ("server", True), (None, False),
                                                           (None, False)]


def test_a_broken_event_is_located_and_the_rest_are_read(tmp_path):
    items = _read(tmp_path, {"request": ASK, "response": {"status": 200, "headers": {
        "content-type": "text/event-stream"}, "text": 'data: {oops\n\ndata: {"jsonrpc":"2.0","id":1,"result":1}\n\n'}})
    problems = [i for i in items if not isinstance(i, Message)]
    assert [p.code for p in problems] == ["PARSE_ERROR"] and problems[0].line == 1
    assert [m.value for m in items if isinstance(m, Message) and m.sender == "server"] == [
        {"jsonrpc": "2.0", "id": 1, "result": 1}]
