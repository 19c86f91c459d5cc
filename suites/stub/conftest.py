"""The scripted model endpoints' tests share these: a model script parsed (its problems, or none), a POST as a CLI
sends it, a server-sent event stream cut as an SSE client cuts it, and `served`, a script served on 127.0.0.1 for
the test and stopped after it."""

from __future__ import annotations

import urllib.error
import urllib.request

import orjson
import pytest

from wirecheck.stub.model import ModelApp, parse_model_script
from wirecheck.stub.server import StubServer
from wirecheck.yaml_lines import load_with_lines


def script(text):
    problems = []
    parsed = parse_model_script(load_with_lines(text), lambda pointer, message, line: problems.append(
        (pointer, message, line)))
    return parsed, problems


def ok(text):
    parsed, problems = script(text)
    assert problems == [] and parsed is not None
    return parsed


def post(url, body, headers=None):
    request = urllib.request.Request(url, orjson.dumps(body), {"content-type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def sse_events(data):
    """(event name, data) pairs of a server-sent event stream, as an SSE client reads them."""
    events = []
    for block in data.decode().split("\n\n"):
        if not block.strip():
            continue
        fields = dict(line.split(": ", 1) for line in block.split("\n"))
        events.append((fields.get("event"), fields["data"]))
    return events


@pytest.fixture
def served():
    servers = []

    def serve(text):
        app = ModelApp(ok(text))
        server = StubServer(app).start()
        servers.append(server)
        return app, server

    yield serve
    for server in servers:
        server.stop()
