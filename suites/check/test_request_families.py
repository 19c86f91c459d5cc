"""Requests of a family a release defines, naming a member it lacks (Qoder's control_request of an unknown subtype):
one UNKNOWN_METHOD finding at the receiver's severity (readers.yaml), and the receiver's answer correlates with the
request. Real case: qodercli 1.1.23 answers set_plan_mode, set_goal and clear_goal (SDK 1.0.39 requests that
SDK 1.0.23 lacks) with an error response, as its reader does for any subtype it has no handler for
(fixtures/live/qodercli@1.1.23/qoder-session-control.framed.ndjson); wirecheck called each answer a
RESPONSE_WITHOUT_REQUEST, failing the CLI's CTRL-CORRELATED MUST for a correct answer."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from wirecheck.certify.pipeline import certify_captures
from wirecheck.check.engine import Engine, check_captures, request_families
from wirecheck.contracts import load_registry
from wirecheck.findings import Severity

ROOT = Path(__file__).resolve().parents[2]


def framed(tmp_path: Path, frames: list[tuple[str, dict]]) -> Path:
    path = tmp_path / "run.framed.ndjson"
    lines = [b'{"wirecheck_capture": 1, "framing": "directed"}']
    lines += [b'{"from": "' + who.encode() + b'", "message": ' + orjson.dumps(m) + b"}" for who, m in frames]
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


@pytest.fixture(scope="module")
def qoder():
    return load_registry().load("qoder-agent-sdk@1.0.23")


ASKED = ("sdk", {"type": "control_request", "request_id": "req_3_plan",
                 "request": {"subtype": "set_plan_mode", "active": True}})
REFUSED = ("cli", {"type": "control_response", "response": {
    "subtype": "error", "request_id": "req_3_plan", "error": "Unsupported control request subtype: set_plan_mode"}})


def test_the_family_is_read_from_the_catalog(qoder):
    (family,) = request_families(qoder)
    assert family.title == "control_request"
    assert family.envelope == ((("type",), frozenset({"control_request"})),)
    assert family.names == (("request", "type"), ("request", "subtype"))
    assert "initialize" in family.known and "set_plan_mode" not in family.known
    assert {k.id for k in family.answers} == {"control_response.success", "control_response.error",
                                              "sdk.control_response.success", "sdk.control_response.error"}
    # a JSON-RPC release keeps its own reading of unknown methods
    assert Engine(load_registry().load("acp@2.4.0")).sequences.families == ()


def test_an_unknown_subtype_answered_with_an_error_correlates(qoder, tmp_path):
    result = check_captures(qoder, [str(framed(tmp_path, [ASKED, REFUSED]))])
    codes = [f.code for f in result.findings]
    assert "RESPONSE_WITHOUT_REQUEST" not in codes and "UNKNOWN_MESSAGE_KIND" not in codes, codes
    (unknown,) = [f for f in result.findings if f.code == "UNKNOWN_METHOD"]
    assert unknown.found == "set_plan_mode" and unknown.pointer == "/request/subtype" and unknown.sender == "sdk"
    # the CLI rejects it (it answers with an error): an error, against the sender
    assert unknown.severity is Severity.ERROR and "cli rejects it" in unknown.message


def test_an_unanswered_unknown_subtype_is_owed_an_answer_by_its_receiver(qoder, tmp_path):
    result = check_captures(qoder, [str(framed(tmp_path, [ASKED]))])
    (owed,) = [f for f in result.findings if f.code == "REQUEST_WITHOUT_RESPONSE"]
    assert owed.kind == "control_response.success" and "set_plan_mode" in owed.message
    cert = certify_captures(qoder, [framed(tmp_path, [ASKED])], role="cli")
    answered = next(r for r in cert.results if r.requirement.id == "QODER-1.0.23-CLI-ANSWERS-REQUESTS")
    assert answered.status == "fail" and cert.verdict == "not certified"  # the CLI owed the answer; the SDK waits


def test_an_answer_to_no_request_is_still_reported(qoder, tmp_path):
    result = check_captures(qoder, [str(framed(tmp_path, [REFUSED]))])
    assert [f.code for f in result.findings if f.code != "FIRST_MESSAGE_IS"] == ["RESPONSE_WITHOUT_REQUEST"]


def test_the_recorded_qodercli_1_1_23_session_answers_every_request(qoder):
    capture = ROOT / "fixtures/live/qodercli@1.1.23/qoder-session-control.framed.ndjson"
    cert = certify_captures(qoder, [capture], role="cli")
    correlated = next(r for r in cert.results if r.requirement.id == "QODER-1.0.23-CTRL-CORRELATED")
    assert correlated.status == "pass", correlated.failing
