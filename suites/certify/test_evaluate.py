"""Statuses, scores, verdicts, badges and baselines: each case fails when the evaluation is wrong."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from wirecheck.certify.evaluate import EXPECTED_FAIL, FAIL, NOT_EXERCISED, PASS, UNEXPECTED_PASS
from wirecheck.certify.pipeline import certify_captures
from wirecheck.contracts import ContractError

from .conftest import ASSISTANT, GOOD_RUN, INIT, INITIALIZE, RESULT, USER, answer


def status(cert, requirement_id):
    return next(r for r in cert.results if r.requirement.id == requirement_id)


P = "FAKEQODER-1.0.0-"
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def test_a_complete_good_run_is_certified(fake, framed):
    cert = certify_captures(fake, [framed(GOOD_RUN)], role="cli")
    assert cert.passed and cert.verdict == "certified"
    assert {r.status for r in cert.results if r.requirement.level != "MAY"} == {PASS}
    assert status(cert, P + "KEEP-ALIVE-SCHEMA").status == NOT_EXERCISED  # MAY: does not block
    must = next(s for s in cert.scores if s.level == "MUST")
    assert (must.total, must.passed, must.failed, must.not_exercised) == (7, 7, 0, 0)
    assert cert.badge.message == "compatible" and cert.badge.color == "#4c1"  # a MAY gap does not matter
    # role cli: the SDK's own requirements are not in the certification
    assert not any(r.requirement.subject == "sdk" for r in cert.results)


def test_a_may_requirement_passes_when_exercised(fake, framed):
    keep_alive = ("cli", {"type": "keep_alive"})
    cert = certify_captures(fake, [framed([*GOOD_RUN, keep_alive])], role="cli")
    assert status(cert, P + "KEEP-ALIVE-SCHEMA").status == PASS
    assert next(s for s in cert.scores if s.level == "MAY").score == 1.0


def test_a_schema_violation_fails_its_kind_and_lists_the_finding(fake, framed):
    bad = {**RESULT, "is_error": "no"}
    cert = certify_captures(fake, [framed([*GOOD_RUN[:-1], ("cli", bad)])], role="cli")
    result = status(cert, P + "RESULT-SCHEMA")
    assert result.status == FAIL
    assert [(f.code, f.line, f.pointer) for f in result.failures] == [("SCHEMA_VIOLATION", 9, "/is_error")]
    assert not cert.passed and cert.badge.message.startswith("incompatible")
    assert [r.requirement.id for r in cert.blocking()] == [P + "RESULT-SCHEMA"]


def test_not_exercised_counts_as_not_passed_at_must(fake, framed):
    cert = certify_captures(fake, [framed([("cli", INIT)])], role="cli")
    assert status(cert, P + "RESULT-SCHEMA").status == NOT_EXERCISED
    assert not cert.passed
    assert cert.badge.message == "incomplete (3/7 MUST)"  # init schema, INIT-FIRST, WELL-FORMED


def test_a_protocol_rule_failure_fails_its_requirement(fake, framed):
    cert = certify_captures(fake, [framed([("cli", ASSISTANT), *GOOD_RUN])], role="cli")
    result = status(cert, P + "SYSTEM-INIT-FIRST")
    assert result.status == FAIL and result.failures[0].code == "FIRST_MESSAGE_IS"


def test_unknown_fields_fail_the_should_requirement_not_the_kind(fake, framed):
    extra = {**INIT, "betas": ["x"]}
    cert = certify_captures(fake, [framed([(r, extra if m is INIT else m) for r, m in GOOD_RUN])], role="cli")
    kind = status(cert, P + "SYSTEM-INIT-SCHEMA")
    assert kind.status == PASS and [f.code for f in kind.notes] == []
    closed = status(cert, P + "CLOSED-FIELDS")
    assert closed.status == FAIL and closed.failures[0].pointer == "/betas"
    assert cert.passed  # SHOULD does not fail the run by default ...
    assert cert.badge.message == "compatible (MUST 7/7)"
    stricter = certify_captures(fake, [framed([(r, extra if m is INIT else m) for r, m in GOOD_RUN])], role="cli",
                                fail_on="SHOULD")
    assert not stricter.passed  # ... but does with --fail-on SHOULD


def test_broken_lines_fail_well_formed_and_are_attributed_to_their_sender(fake, framed):
    cert = certify_captures(fake, [framed([*GOOD_RUN, ("cli", b'{"type": "assistant", ')])], role="cli")
    result = status(cert, P + "WELL-FORMED")
    assert result.status == FAIL and result.failures[0].code == "PARSE_ERROR" and result.failures[0].line == 10
    # the same broken line sent by the SDK is not the CLI's fault
    cert = certify_captures(fake, [framed([*GOOD_RUN, ("sdk", b'{"type": "user", ')])], role="cli")
    assert status(cert, P + "WELL-FORMED").status == PASS


def test_an_unanswered_request_counts_against_the_receiver(fake, framed):
    run = [("sdk", INITIALIZE), ("cli", INIT), ("sdk", USER), ("cli", ASSISTANT), ("cli", RESULT)]
    cert = certify_captures(fake, [framed(run)], role="cli")
    answered = status(cert, P + "REQUESTS-ANSWERED")
    assert answered.status == FAIL and answered.failures[0].kind == "control_request.initialize"
    as_sdk = certify_captures(fake, [framed(run)], role="sdk")
    assert P + "REQUESTS-ANSWERED" not in {r.requirement.id for r in as_sdk.results if r.status == FAIL}


def test_a_response_to_nothing_fails_correlation(fake, framed):
    cert = certify_captures(fake, [framed([*GOOD_RUN, ("cli", answer("r9"))])], role="cli")
    result = status(cert, P + "RESPONSES-CORRELATED")
    assert result.status == FAIL and result.failures[0].code == "RESPONSE_WITHOUT_REQUEST"


def _baseline(tmp_path, entries):
    path = tmp_path / "baseline.yaml"
    path.write_text(yaml.safe_dump({"expected_failures": entries}))
    return path


def test_baseline_turns_a_known_failure_into_an_expected_one(fake, framed, tmp_path):
    bad = {**RESULT, "is_error": "no"}
    capture = framed([*GOOD_RUN[:-1], ("cli", bad)])
    baseline = _baseline(tmp_path, [{"id": P + "RESULT-SCHEMA", "reason": "vendor bug #12"}])
    cert = certify_captures(fake, [capture], role="cli", baseline=baseline)
    result = status(cert, P + "RESULT-SCHEMA")
    assert result.status == EXPECTED_FAIL and result.baseline_reason == "vendor bug #12"
    assert cert.passed  # known, so the run passes ...
    assert cert.badge.message.startswith("incompatible")  # ... but the badge never hides it


def test_a_baselined_requirement_that_passes_fails_the_run(fake, framed, tmp_path):
    baseline = _baseline(tmp_path, [{"id": P + "RESULT-SCHEMA", "reason": "fixed since"}])
    cert = certify_captures(fake, [framed(GOOD_RUN)], role="cli", baseline=baseline)
    assert status(cert, P + "RESULT-SCHEMA").status == UNEXPECTED_PASS
    assert not cert.passed and [r.requirement.id for r in cert.blocking()] == [P + "RESULT-SCHEMA"]


@pytest.mark.parametrize(
    ("entries", "text"),
    [
        ([{"id": "NOPE-1-X", "reason": "r"}],
         r"/expected_failures/0/id: no requirement 'NOPE-1-X' in this set \(line 2\)"),
        ([{"id": P + "RESULT-SCHEMA"}],
         r"/expected_failures/0: each entry needs `id` and a non-empty `reason` \(line 2\)"),
        ([{"id": P + "RESULT-SCHEMA", "reason": "a"}, {"id": P + "RESULT-SCHEMA", "reason": "b"}],
         r"/expected_failures/1/id: .*RESULT-SCHEMA is listed twice \(first at line 2\) \(line 4\)"),
    ],
)
def test_broken_baselines_are_located(fake, framed, tmp_path, entries, text):
    with pytest.raises(ContractError, match=text):
        certify_captures(fake, [framed(GOOD_RUN)], baseline=_baseline(tmp_path, entries))


def test_unknown_role_and_level_are_usage_errors(fake, framed):
    with pytest.raises(ContractError, match="no role 'server'"):
        certify_captures(fake, [framed(GOOD_RUN)], role="server")
    with pytest.raises(ContractError, match="--fail-on 'SHALL'"):
        certify_captures(fake, [framed(GOOD_RUN)], fail_on="SHALL")


def test_findings_no_requirement_covers_are_listed(fake, framed, tmp_path):
    path = tmp_path / "only-init.yaml"
    path.write_text(yaml.safe_dump({"requirements_format": 1, "contract": "fakeqoder@1.0.0", "requirements": [
        {"id": "F-1-INIT", "level": "MUST", "subject": "cli", "text": "init is valid",
         "checks": {"kind": "system.init"}}]}))
    bad = {**RESULT, "is_error": "no"}
    cert = certify_captures(fake, [framed([*GOOD_RUN[:-1], ("cli", bad)])], requirements=path)
    assert [f.code for f in cert.unmapped] == ["SCHEMA_VIOLATION"]


def test_a_failed_live_run_fails_the_certification(fake, framed):
    cert = certify_captures(fake, [framed(GOOD_RUN)], role="cli",
                            run={"identity": {"argv": ["x"]}, "outcome": {"ok": False, "problem": "hung"}})
    assert not cert.passed and cert.badge.message == "run failed"
    assert cert.identity["run"] == {"argv": ["x"]}


def _broken_sdk_line_run():
    return [*GOOD_RUN, ("sdk", b'{"type": "user", ')]


def test_a_framed_capture_on_stdin_keeps_its_senders(fake, framed, tmp_path, monkeypatch):
    import sys

    capture = framed(_broken_sdk_line_run())
    # a file named `-` where the command runs, saying the CLI sent that line: it must not be read for stdin
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-").write_bytes(framed([*GOOD_RUN, ("cli", b'{"type": "user", ')], name="decoy").read_bytes())
    with capture.open() as stdin:
        monkeypatch.setattr(sys, "stdin", stdin)
        cert = certify_captures(fake, ["-"], role="cli")
    assert status(cert, P + "WELL-FORMED").status == PASS  # the SDK's broken line is not the CLI's fault
    (tmp_path / "-").unlink()
    with capture.open() as stdin:
        monkeypatch.setattr(sys, "stdin", stdin)
        cert = certify_captures(fake, ["-"], role="sdk")
    result = status(cert, P + "WELL-FORMED")
    assert result.status == FAIL and result.failures[0].line == 10


def test_a_framed_capture_from_a_pipe_keeps_its_senders(fake, framed):
    import os
    import threading

    data = framed(_broken_sdk_line_run()).read_bytes()
    read_end, write_end = os.pipe()

    def feed():
        with os.fdopen(write_end, "wb") as out:
            for start in range(0, len(data), 7):  # small pieces: lines split across reads
                out.write(data[start:start + 7])
                out.flush()

    feeder = threading.Thread(target=feed)
    feeder.start()
    try:
        cert = certify_captures(fake, [f"/dev/fd/{read_end}"], role="cli")
    finally:
        feeder.join()
        os.close(read_end)
    assert status(cert, P + "WELL-FORMED").status == PASS


@pytest.mark.parametrize("chunk", [1, 5, 1 << 20])
def test_findings_on_broken_frames_name_their_sender_however_the_bytes_arrive(fake, framed, chunk, monkeypatch):
    from wirecheck.capture import ndjson
    from wirecheck.check.engine import CheckOptions, check_captures

    path = framed([*_broken_sdk_line_run(), ("cli", b'{"type": "x", "pad": "' + b"y" * 900 + b'"}'),
                   ("cli", b"[1]"), ("sdk", b'{"type": "nonesuch"}')])
    path.write_bytes(path.read_bytes() + b'{"message": {}}\n{"from": "cli", "message": {}, "from": "sdk"}')
    monkeypatch.setattr(ndjson, "CHUNK_BYTES", chunk)
    result = check_captures(fake, [str(path)], CheckOptions(max_line_bytes=600))
    found = [(f.line, f.code, f.sender) for f in result.findings if f.kind is None]
    assert found == [
        (10, "PARSE_ERROR", "sdk"),
        (11, "LINE_TOO_LONG", "cli"),  # only its start is kept: that is where `from` is
        (12, "NOT_AN_OBJECT", "cli"),
        (13, "UNKNOWN_MESSAGE_KIND", "sdk"),
        (14, "CAPTURE_FORMAT", None),  # no `from`
        (15, "DUPLICATE_KEY", None),  # `from` twice: nobody can tell, so it counts against every role
        (15, "UNKNOWN_MESSAGE_KIND", "sdk"),  # its message is read with the last `from`, as a JSON parser does
    ]


def test_a_capture_read_once_is_hashed_as_it_is_read(framed, monkeypatch):
    import hashlib
    import sys

    from wirecheck.certify.pipeline import _HashingCapture

    path = framed(GOOD_RUN)
    with path.open() as stdin:  # text, as sys.stdin is: the capture reads its buffer
        monkeypatch.setattr(sys, "stdin", stdin)
        capture = _HashingCapture("-")
        with capture.open() as stream:
            stream.read1(10)  # a reader that stops early: the rest is hashed when the capture is closed
    assert capture.size == path.stat().st_size
    assert capture.digest.hexdigest() == hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_kind_seen_only_without_its_recorded_body_exercises_nothing(tmp_path):
    """A HAR may leave bodies out (HAR 1.2 content.text, 047aedb): such a message is classified and counted, but its
    body and the rules reading it are not checked, so it cannot pass a requirement on its kind. A correct worker run
    is certified; the same run with every body left out certified all the same before (a false green)."""
    import orjson

    from wirecheck.certify.pipeline import certify_captures as certify
    from wirecheck.contracts import load_registry

    xopc = load_registry().load("xopc@0.0.253")
    har = orjson.loads((FIXTURES / "xopc/0.0.253/valid/worker-run.har").read_bytes())
    whole = tmp_path / "whole.har"
    whole.write_bytes(orjson.dumps(har))
    assert certify(xopc, [whole], role="runtime").verdict == "certified"
    for entry in har["log"]["entries"]:
        if "postData" in entry["request"]:
            entry["request"]["bodySize"] = len(entry["request"].pop("postData").get("text", "")) or 1
        content = entry["response"]["content"]
        content["size"] = len(content.pop("text", "")) or 1
    bare = tmp_path / "bare.har"
    bare.write_bytes(orjson.dumps(har))
    cert = certify(xopc, [bare], role="runtime")
    assert cert.verdict != "certified"
    bodiless = {r.requirement.link.kind: r.status for r in cert.results
                if r.requirement.link.kind is not None and cert.coverage[r.requirement.link.kind].unjudged}
    assert len(bodiless) >= 4 and set(bodiless.values()) == {NOT_EXERCISED}, bodiless
    assert cert.coverage["lease.request"].seen == cert.coverage["lease.request"].unjudged > 0


def test_a_must_fails_on_what_its_reader_rejects_not_on_what_it_drops(tmp_path):
    """A warning is what the receiving reader tolerates (readers.yaml: ignore), an error what it rejects. ACP's
    KNOWN-METHODS is a MUST: a notification the release lacks, which the SDK's reader drops (dist/core/jsonrpc.js:654),
    is shown as a note of the requirement and does not fail it (it failed the MUST: a working client NOT CERTIFIED);
    a request the release lacks, answered -32601, fails it. A SHOULD still fails on a warning."""
    from wirecheck.certify.pipeline import certify_captures as certify
    from wirecheck.contracts import load_registry

    acp = load_registry().load("acp@2.4.0")
    head = ['{"wirecheck_capture": 1, "framing": "directed"}',
            '{"from": "client", "message": {"jsonrpc":"2.0","id":0,"method":"initialize",'
            '"params":{"protocolVersion":1}}}',
            '{"from": "agent", "message": {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}}']
    notice = '{"from": "client", "message": {"jsonrpc":"2.0","method":"wirecheck/notice","params":{}}}'
    request = ('{"from": "client", "message": {"jsonrpc":"2.0","id":8,"method":"wirecheck/nothing","params":{}}}\n'
               '{"from": "agent", "message": {"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},'
               '"id":8}}')
    dropped, refused = tmp_path / "dropped.ndjson", tmp_path / "refused.ndjson"
    dropped.write_text("\n".join([*head, notice]) + "\n")
    refused.write_text("\n".join([*head, request]) + "\n")
    known = "ACP-2.4.0-KNOWN-METHODS"
    kept = status(certify(acp, [dropped], role="client"), known)
    assert kept.status == PASS and [f.code for f in kept.notes] == ["UNKNOWN_METHOD"]
    assert [f.severity.value for f in kept.notes] == ["warning"]
    failed = status(certify(acp, [refused], role="client"), known)
    assert failed.status == FAIL and [f.code for f in failed.failures] == ["UNKNOWN_METHOD"]


def _dropped_notice(tmp_path):
    """An ACP client's capture with a notification of no method the release knows (its agent's SDK drops it)."""
    capture = tmp_path / "dropped.ndjson"
    capture.write_text("\n".join([
        '{"wirecheck_capture": 1, "framing": "directed"}',
        '{"from": "client", "message": {"jsonrpc":"2.0","id":0,"method":"initialize",'
        '"params":{"protocolVersion":1}}}',
        '{"from": "agent", "message": {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}}',
        '{"from": "client", "message": {"jsonrpc":"2.0","method":"wirecheck/notice","params":{}}}']) + "\n")
    return capture


def test_the_text_report_shows_the_warning_a_must_passed_over(tmp_path):
    """The MUST passes over an unknown notification its reader drops; the terminal report (certification.txt) says so
    with the finding, instead of a bare pass."""
    import io

    from wirecheck.certify.pipeline import certify_captures as certify
    from wirecheck.certify.report.text import write
    from wirecheck.contracts import load_registry

    capture = _dropped_notice(tmp_path)
    out = io.StringIO()
    write(certify(load_registry().load("acp@2.4.0"), [capture], role="client"), out)
    text = out.getvalue()
    section = text.split("Passed with warnings (what the reading side tolerates):\n", 1)[1]
    assert section.startswith("PASS            MUST   ACP-2.4.0-KNOWN-METHODS")
    assert "UNKNOWN_METHOD" in section.split("\n", 2)[1] and "wirecheck/notice" in section.split("\n", 2)[1]


def test_every_report_format_shows_the_warning_a_must_passed_over(tmp_path):
    """One list in the model (Certification.passed_with_warnings), rendered by every format: the pass and the finding
    it passed over, in Markdown, HTML, JSONL and JUnit as in the text report."""
    import io
    import json
    import xml.etree.ElementTree as ET

    from wirecheck.certify.pipeline import certify_captures as certify
    from wirecheck.certify.report import html, jsonl, junit, markdown
    from wirecheck.contracts import load_registry

    capture = _dropped_notice(tmp_path)
    cert = certify(load_registry().load("acp@2.4.0"), [capture], role="client")
    known = "ACP-2.4.0-KNOWN-METHODS"
    assert [r.requirement.id for r in cert.passed_with_warnings()] == [known]

    def rendered(module) -> str:
        out = io.StringIO()
        module.write(cert, out)
        return out.getvalue()

    md = rendered(markdown).split("## Passed with warnings", 1)[1]
    assert f"### `{known}`" in md and "wirecheck/notice" in md.split("\n## ", 1)[0]
    page = rendered(html)
    row = page.split(f'<tr id="{known}">', 1)[1].split("</tr>", 1)[0]
    assert "passed with 1 warning(s) the reading side tolerates" in row and "wirecheck/notice" in row
    record = next(json.loads(line) for line in rendered(jsonl).splitlines() if json.loads(line).get("id") == known)
    assert record["status"] == "pass" and record["warnings_total"] == 1
    assert record["warnings"][0]["code"] == "UNKNOWN_METHOD" and "wirecheck/notice" in record["warnings"][0]["message"]
    case = next(c for c in ET.fromstring(rendered(junit)).iter("testcase") if c.get("name") == known)
    assert case.find("failure") is None and "wirecheck/notice" in case.findtext("system-out", "")
