"""A real A2A exchange, replayed: the HAR the live tier (`nox -s certify-a2a`, wirecheck.harness.a2a_live) recorded
from the A2A JavaScript SDK's streaming sample (@a2a-js/sdk 0.3.14 over HTTP on 127.0.0.1), judged against a2a@0.3.0
imported from A2A's published schema (fixtures/a2a-schema) with its mapping: the Agent Card a document kind of its
own, each JSON-RPC POST body a message from the client, each answer and each Server-Sent Event of a streamed answer a
message from the server (capture/http.py). Certified as recorded; broken twins of the server's answers fail."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wirecheck.certify.pipeline import certify_captures
from wirecheck.contracts import load_registry
from wirecheck.harness.a2a_live import DATA as RELATIVE
from wirecheck.harness.a2a_live import a2a_contracts

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / RELATIVE
HAR = DATA / "capture.har"


@pytest.fixture(scope="module")
def a2a(tmp_path_factory):
    import os

    here = Path.cwd()
    os.chdir(ROOT)  # the live tier names its inputs from the checkout
    try:
        return load_registry(a2a_contracts(tmp_path_factory.mktemp("contracts"))).load("a2a@0.3.0")
    finally:
        os.chdir(here)


def test_the_recorded_a2a_exchange_is_certified_as_the_live_run_was(a2a):
    recorded = json.loads((DATA / "outcome.json").read_text())
    assert (recorded["package"], recorded["version"], recorded["contract"]) == ("@a2a-js/sdk", "0.3.14", "a2a@0.3.0")
    assert recorded["run_problem"] is None and recorded["script_sha256"] and recorded["node"]
    assert [c["call"] for c in recorded["calls"]] == [
        "GET /.well-known/agent-card.json", "POST / message/send", "POST / tasks/get", "POST / message/stream",
        "POST / tasks/cancel", "POST / wirecheck/nothing"]
    cert = certify_captures(a2a, [HAR], role="server")
    assert cert.verdict == recorded["verdict"] == "certified" and cert.exit_code == 0, cert.gate_line
    assert {r.requirement.id: r.status for r in cert.results} == recorded["statuses"]


def test_every_answer_and_every_streamed_event_is_checked(a2a):
    from wirecheck.capture import CaptureFile
    from wirecheck.check.engine import Engine

    result = Engine(a2a).run([CaptureFile(str(HAR))])
    codes = [f.code for f in result.findings]
    # the harness asked a method A2A lacks (its own doing, not the server's); nothing else is found
    assert codes == ["UNKNOWN_METHOD"], result.findings
    har = json.loads(HAR.read_text())
    stream = next(e for e in har["log"]["entries"] if e["response"]["content"].get("mimeType") == "text/event-stream")
    events = [line for line in stream["response"]["content"]["text"].splitlines() if line.startswith("data:")]
    assert len(events) == 4  # Task, working, artifact, completed: four responses to one id, none a duplicate
    assert result.coverage["server.response"].seen == 8 and result.coverage["agent-card.response"].seen == 1


def _mutant(tmp_path: Path, entry: int, edit, event: int | None = None) -> Path:
    har = json.loads(HAR.read_text())
    content = har["log"]["entries"][entry]["response"]["content"]
    if event is None:
        value = json.loads(content["text"])
        edit(value)
        content["text"] = json.dumps(value)
    else:
        blocks = content["text"].split("\n\n")
        value = json.loads(blocks[event].removeprefix("data: "))
        edit(value)
        blocks[event] = "data: " + json.dumps(value)
        content["text"] = "\n\n".join(blocks)
    path = tmp_path / "mutant.har"
    path.write_text(json.dumps(har))
    return path


@pytest.mark.parametrize(("entry", "event", "edit", "code", "pointer"), [
    # message/send answered by a Task whose state A2A does not have: the inline union Task | Message fails
    (1, None, lambda v: v["result"]["status"].update(state="finished"), "REPLY_VIOLATION", "/result/status/state"),
    # the same in the third event of the streamed answer (a TaskArtifactUpdateEvent without its artifact)
    (3, 2, lambda v: v["result"].pop("artifact"), "REPLY_VIOLATION", "/result"),
    # the Agent Card without its name
    (0, None, lambda v: v.pop("name"), "SCHEMA_VIOLATION", ""),
    # tasks/cancel answered by an error that is no JSON-RPC error object
    (4, None, lambda v: v["error"].pop("message"), "SCHEMA_VIOLATION", "/error"),
])
def test_broken_twins_of_the_real_server_fail(a2a, tmp_path, entry, event, edit, code, pointer):
    cert = certify_captures(a2a, [_mutant(tmp_path, entry, edit, event)], role="server")
    assert cert.verdict == "not certified", cert.gate_line
    found = [(f.code, f.pointer or "") for r in cert.results for f in r.failures]
    assert any(c == code and p.startswith(pointer) for c, p in found), found
