"""Certification of behaviour (issue 37): obligations become requirements at their reader's level, a wait_exit
that gave up is judged by the release's `exits` obligation, and a capture mostly of another format certifies
nothing."""

from __future__ import annotations

from pathlib import Path

import orjson

from wirecheck.certify.evaluate import FAIL, NOT_CERTIFIED, NOT_EXERCISED, PASS
from wirecheck.certify.generate import draft, obligation_requirement
from wirecheck.certify.pipeline import certify_captures
from wirecheck.check.engine import check_captures
from wirecheck.contracts import load_registry

ROOT = Path(__file__).resolve().parents[2]
LIVE = ROOT / "fixtures" / "live"


def test_each_obligation_is_a_requirement_at_its_level_with_its_reader():
    release = load_registry().load("claude-code-print@2.1.332")
    drafts = {d["id"]: d for d in draft(release)}
    one = drafts["CLAUDE-PRINT-2.1.332-ONE-RESULT"]
    assert (one["level"], one["subject"], one["checks"]) == ("MUST", "claude-code", {"obligation": "ONE-RESULT"})
    assert "Navarch 0.1.53 misreads a breach" in one["text"] and "adapter-capacity.cjs:15-16" in one["text"]
    # conditional on a success result: a 429 run cannot show it, and is not incomplete for it
    assert drafts["CLAUDE-PRINT-2.1.332-EXIT-ZERO-ON-SUCCESS"]["exercise"] == "optional"
    assert "exercise" not in drafts["CLAUDE-PRINT-2.1.332-EXITS-AFTER-RESULT"]
    assert drafts["CLAUDE-PRINT-2.1.332-FINAL-NEWLINE"]["level"] == "SHOULD"
    # the file on disk says what the generator says
    answered = load_registry().load("qoder-agent-sdk@1.0.39")
    requirement = obligation_requirement(answered, next(o for o in answered.obligations
                                                        if o.id == "CLI-ANSWERS-REQUESTS"))
    assert requirement["level"] == "MUST" and requirement["exercise"] == "optional"


def test_a_release_with_an_answered_obligation_has_no_default_requests_answered_group():
    ids = {d["id"] for d in draft(load_registry().load("acp@2.4.0"))}
    assert "ACP-2.4.0-AGENT-ANSWERS-REQUESTS" in ids and "ACP-2.4.0-REQUESTS-ANSWERED" not in ids


def _hung_run() -> dict:
    """A live run whose scenario waited in vain for the exit (the only failure), as RunRecord.as_run() says it."""
    steps = [{"index": 0, "action": "close_stdin", "status": "ok", "detail": "", "at": 0.0},
             {"index": 1, "action": "expect", "status": "ok", "detail": "", "at": 0.1},
             {"index": 2, "action": "wait_exit", "status": "failed", "detail": "still running 60 s after end of input",
              "at": 3.0}]
    return {"identity": {}, "outcome": {"ok": False, "problem": "scenario step 3 (wait_exit) failed: still running",
                                        "exit_code": None, "heard": True, "problems": [], "steps": steps}}


def test_a_run_that_only_failed_to_exit_is_judged_by_the_exits_obligation(tmp_path):
    capture = tmp_path / "c.framed.ndjson"
    lines = (LIVE / "claude-code@2.1.332" / "claude-print-plain.framed.ndjson").read_bytes().splitlines()
    record = orjson.loads(lines[-1])["process"]
    record.update(exit_status=None, stopped_by_harness=True, ended_by="SIGTERM", exited_at=None,
                  stopped_at=record["last_output_at"] + 60)
    capture.write_bytes(b"\n".join([*lines[:-1], orjson.dumps({"process": record})]) + b"\n")
    release = load_registry().load("claude-code-print@2.1.332")
    cert = certify_captures(release, [capture], role="claude-code", run=_hung_run())
    statuses = {r.requirement.id: r.status for r in cert.results}
    assert statuses["CLAUDE-PRINT-2.1.332-EXITS-AFTER-RESULT"] == FAIL
    assert cert.run_ok and cert.run["judged_by"] == ["CLAUDE-PRINT-2.1.332-EXITS-AFTER-RESULT"]
    # also EXIT-ZERO-ON-SUCCESS: a program the harness ended after a success did not exit 0
    assert statuses["CLAUDE-PRINT-2.1.332-EXIT-ZERO-ON-SUCCESS"] == FAIL
    assert cert.verdict == NOT_CERTIFIED and "2 failed requirement" in cert.gate_line
    assert "the live run failed" not in cert.gate_line


def test_without_a_process_record_the_failed_wait_stays_a_run_failure(tmp_path):
    capture = tmp_path / "c.framed.ndjson"
    lines = (LIVE / "claude-code@2.1.332" / "claude-print-plain.framed.ndjson").read_bytes().splitlines()
    capture.write_bytes(b"\n".join(lines[:-1]) + b"\n")  # the capture of an older harness: no process record
    release = load_registry().load("claude-code-print@2.1.332")
    cert = certify_captures(release, [capture], role="claude-code", run=_hung_run())
    assert not cert.run_ok and cert.verdict == NOT_CERTIFIED and "the live run failed" in cert.gate_line
    statuses = {r.requirement.id: r.status for r in cert.results}
    assert statuses["CLAUDE-PRINT-2.1.332-EXITS-AFTER-RESULT"] == NOT_EXERCISED


def test_a_capture_mostly_of_another_format_fails_recognised(tmp_path):
    release = load_registry().load("claude-code-print@2.1.332")
    result_line = (LIVE / "claude-code@2.1.332" / "claude-print-plain.framed.ndjson").read_bytes().splitlines()[1]
    result = orjson.loads(result_line)["message"]
    stream = [{"type": "system", "subtype": "init", "session_id": "s"},
              {"type": "assistant", "message": {"role": "assistant", "content": []}, "session_id": "s"}, result]
    capture = tmp_path / "stream.jsonl"
    capture.write_bytes(b"".join(orjson.dumps(m) + b"\n" for m in stream))
    (finding,) = [f for f in check_captures(release, [str(capture)]).findings if f.code == "MOSTLY_UNRECOGNISED"]
    assert "2 of the 3 messages" in finding.message and "only 1 recognised" in finding.message
    cert = certify_captures(release, [capture], role="claude-code")
    assert {r.requirement.id: r.status for r in cert.results}["CLAUDE-PRINT-2.1.332-RECOGNISED"] == FAIL
    # half and half is not most: one unknown line beside one result passes (with its warning)
    capture.write_bytes(b"".join(orjson.dumps(m) + b"\n" for m in stream[1:]))
    cert = certify_captures(release, [capture], role="claude-code")
    assert {r.requirement.id: r.status for r in cert.results}["CLAUDE-PRINT-2.1.332-RECOGNISED"] == PASS
