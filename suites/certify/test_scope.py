"""Certification scope: passed, failed, not exercised or declared out of scope (the scope file: id + reason +
evidence), the verdicts CERTIFIED / NOT CERTIFIED / INCOMPLETE they give, stale entries, and every report format
listing what was not exercised apart from what failed. Each case fails when the evaluation is wrong."""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest
import yaml

from wirecheck import exitcodes
from wirecheck.certify.evaluate import FAIL, NOT_EXERCISED, OUT_OF_SCOPE, STALE_SCOPE
from wirecheck.certify.pipeline import certify_captures
from wirecheck.certify.report import FORMATS
from wirecheck.contracts import ContractError
from wirecheck.contracts.loader import own_schema

from .conftest import GOOD_RUN, RESULT

P = "FAKEQODER-1.0.0-"
NO_RESULT = GOOD_RUN[:-1]  # every MUST of the CLI exercised and passed but RESULT-SCHEMA
UNREACHED = {"id": P + "RESULT-SCHEMA", "reason": "this scenario never ends a turn",
             "evidence": "scenarios/no-turn.yaml sends no user message"}
VALIDATOR = jsonschema.Draft202012Validator(own_schema("certification.schema.json"))


def scope_file(tmp_path, **lists):
    path = tmp_path / "scope.yaml"
    path.write_text(yaml.safe_dump(lists, sort_keys=False))
    return path


def status(cert, requirement_id):
    return next(r for r in cert.results if r.requirement.id == requirement_id)


def render(cert, name):
    out = io.StringIO()
    FORMATS[name](cert, out)
    return out.getvalue()


@pytest.fixture
def incomplete(fake, framed):
    return certify_captures(fake, [framed(NO_RESULT)], role="cli")


@pytest.fixture
def scoped(fake, framed, tmp_path):
    return certify_captures(fake, [framed(NO_RESULT)], role="cli", baseline=scope_file(tmp_path, out_of_scope=[
        UNREACHED]))


def test_a_must_neither_exercised_nor_declared_makes_the_run_incomplete_not_failed(incomplete):
    cert = incomplete
    assert status(cert, P + "RESULT-SCHEMA").status == NOT_EXERCISED
    assert cert.verdict == "incomplete" and cert.exit_code == exitcodes.INCONCLUSIVE == 4 and not cert.passed
    assert cert.blocking() == []  # nothing failed ...
    assert [r.requirement.id for r in cert.unexercised()] == [P + "RESULT-SCHEMA"]  # ... one is missing
    assert cert.gate_line == ("gate --fail-on MUST: incomplete (1 requirement(s) neither exercised nor declared out "
                              "of scope)")
    assert cert.badge.message == "incomplete (6/7 MUST)"


def test_a_may_gap_does_not_make_the_run_incomplete(fake, framed):
    cert = certify_captures(fake, [framed(GOOD_RUN)], role="cli")
    assert status(cert, P + "KEEP-ALIVE-SCHEMA").status == NOT_EXERCISED and cert.verdict == "certified"
    stricter = certify_captures(fake, [framed(GOOD_RUN)], role="cli", fail_on="MAY")
    assert stricter.verdict == "incomplete" and stricter.exit_code == 4


def test_a_failure_beside_a_gap_is_not_certified(fake, framed):
    bad_init = {"type": "system", "subtype": "init", "session_id": 3, "protocol_version": "1.2.0"}
    frames = [(r, bad_init if m.get("subtype") == "init" else m) for r, m in NO_RESULT]
    cert = certify_captures(fake, [framed(frames)], role="cli")
    assert cert.verdict == "not certified" and cert.exit_code == 1
    assert cert.gate_line == ("gate --fail-on MUST: not certified (1 failed requirement(s); 1 requirement(s) "
                              "neither exercised nor declared out of scope)")


def test_a_requirement_declared_out_of_scope_and_not_exercised_certifies(scoped):
    cert = scoped
    result = status(cert, P + "RESULT-SCHEMA")
    assert result.status == OUT_OF_SCOPE and result.scope is not None
    assert (result.scope.reason, result.scope.evidence) == (UNREACHED["reason"], UNREACHED["evidence"])
    assert cert.verdict == "certified" and cert.exit_code == 0 and cert.passed
    must = next(s for s in cert.scores if s.level == "MUST")
    assert (must.total, must.passed, must.out_of_scope, must.in_scope, must.score) == (7, 6, 1, 6, 1.0)
    assert cert.badge.message == "compatible (MUST 6/6, 1 out of scope)"
    assert cert.gate_line == "gate --fail-on MUST: certified (1 out of scope)"


def test_an_out_of_scope_requirement_that_was_exercised_and_passed_is_a_stale_entry(fake, framed, tmp_path):
    cert = certify_captures(fake, [framed(GOOD_RUN)], role="cli",
                            baseline=scope_file(tmp_path, out_of_scope=[UNREACHED]))
    assert status(cert, P + "RESULT-SCHEMA").status == STALE_SCOPE
    assert cert.verdict == "not certified" and cert.exit_code == 1
    assert [r.requirement.id for r in cert.blocking()] == [P + "RESULT-SCHEMA"]
    assert cert.gate_line == "gate --fail-on MUST: not certified (1 stale scope-file entry)"


def test_a_stale_entry_fails_at_any_level(fake, framed, tmp_path):
    keep_alive = {"id": P + "KEEP-ALIVE-SCHEMA", "reason": "never idle", "evidence": "the scenario is short"}
    cert = certify_captures(fake, [framed([*GOOD_RUN, ("cli", {"type": "keep_alive"})])], role="cli",
                            baseline=scope_file(tmp_path, out_of_scope=[keep_alive]))
    assert status(cert, P + "KEEP-ALIVE-SCHEMA").status == STALE_SCOPE and cert.exit_code == 1


def test_an_out_of_scope_requirement_that_was_exercised_and_failed_fails(fake, framed, tmp_path):
    bad = {**RESULT, "is_error": "no"}
    cert = certify_captures(fake, [framed([*NO_RESULT, ("cli", bad)])], role="cli",
                            baseline=scope_file(tmp_path, out_of_scope=[UNREACHED]))
    result = status(cert, P + "RESULT-SCHEMA")
    assert result.status == FAIL and result.scope is not None and cert.exit_code == 1
    assert "declared out of scope (this scenario never ends a turn), but it was exercised" in render(cert, "text")


def test_expected_failures_and_out_of_scope_live_in_one_file(fake, framed, tmp_path):
    closed = {"id": P + "CLOSED-FIELDS", "reason": "vendor extension"}
    extra = {"type": "system", "subtype": "init", "session_id": "s", "protocol_version": "1.2.0", "betas": []}
    frames = [(r, extra if m.get("subtype") == "init" else m) for r, m in NO_RESULT]
    cert = certify_captures(fake, [framed(frames)], role="cli", fail_on="SHOULD",
                            baseline=scope_file(tmp_path, expected_failures=[closed], out_of_scope=[UNREACHED]))
    assert {status(cert, i).status for i in (P + "CLOSED-FIELDS", P + "RESULT-SCHEMA")} == {"expected_fail",
                                                                                         OUT_OF_SCOPE}
    assert cert.verdict == "certified"
    assert cert.identity["baseline"]["path"].endswith("scope.yaml")  # the one file is in the identity block


@pytest.mark.parametrize(("lists", "text"), [
    ({"out_of_scope": [{**UNREACHED, "id": "NOPE-1-X"}]},
     r"scope.yaml#/out_of_scope/0/id: no requirement 'NOPE-1-X' in this set \(line 2\)"),
    ({"out_of_scope": [{"id": UNREACHED["id"], "reason": "r"}]},
     r"scope.yaml#/out_of_scope/0: each entry needs `id`, a non-empty `reason` and a non-empty `evidence`"),
    ({"out_of_scope": [{**UNREACHED, "evidence": "  "}]}, r"/out_of_scope/0: each entry needs"),
    ({"out_of_scope": [{**UNREACHED, "until": "2027"}]},
     r"/out_of_scope/0/until: unknown key 'until' \(an entry holds `id`, `reason` and `evidence`\)"),
    ({"expected_failures": [{"id": UNREACHED["id"], "reason": "r"}], "out_of_scope": [UNREACHED]},
     r"/out_of_scope/0/id: FAKEQODER-1.0.0-RESULT-SCHEMA is listed twice \(first under `expected_failures` at "
     r"line 2\)"),
    ({"out_of_scope": {"id": "x"}}, r"expected a mapping with a list `expected_failures`, `out_of_scope` or both"),
    ({"expected_failures": [], "out_of_scope": "all"}, r"/out_of_scope: expected a list of entries"),
    ({"out_of_scope": [], "in_scope": []}, r"/in_scope: unknown key 'in_scope'"),
])
def test_broken_scope_files_are_located_usage_errors(fake, framed, tmp_path, lists, text):
    with pytest.raises(ContractError, match=text):
        certify_captures(fake, [framed(GOOD_RUN)], role="cli", baseline=scope_file(tmp_path, **lists))


# Every report format: the verdict, and what was not exercised listed apart from what failed.

def test_jsonl_lists_not_exercised_and_out_of_scope_apart_and_validates(incomplete, scoped):
    footer = json.loads(render(incomplete, "jsonl").splitlines()[-1])
    VALIDATOR.validate(footer)
    assert (footer["verdict"], footer["exit_code"], footer["passed"]) == ("incomplete", 4, False)
    assert footer["blocking"] == [] and footer["not_exercised"] == [P + "RESULT-SCHEMA"]
    lines = [json.loads(line) for line in render(scoped, "jsonl").splitlines()]
    for line in lines:
        VALIDATOR.validate(line)
    record = next(r for r in lines if r.get("id") == P + "RESULT-SCHEMA")
    assert record["status"] == "out_of_scope" and record["scope"] == {"reason": UNREACHED["reason"],
                                                                      "evidence": UNREACHED["evidence"]}
    assert lines[0]["format_version"] == 3
    assert lines[-1]["out_of_scope"] == [P + "RESULT-SCHEMA"] and lines[-1]["not_exercised"] == []
    must = next(s for s in lines[-1]["scores"] if s["level"] == "MUST")
    assert (must["out_of_scope"], must["score"]) == (1, 1.0)


@pytest.mark.parametrize("edit", [
    lambda f: f.update(exit_code=1),  # incomplete is 4
    lambda f: f.update(not_exercised=[]),  # incomplete names what is missing
    lambda f: f.update(passed=True),
    lambda f: f.update(blocking=["X"]),  # a failure is not certified, never incomplete
    lambda f: f.pop("not_exercised"),
])
def test_the_schema_rejects_an_incomplete_footer_that_contradicts_itself(incomplete, edit):
    footer = json.loads(render(incomplete, "jsonl").splitlines()[-1])
    VALIDATOR.validate(footer)
    edit(footer)
    assert list(VALIDATOR.iter_errors(footer))


def test_the_schema_rejects_an_out_of_scope_record_without_its_entry(scoped):
    record = next(json.loads(line) for line in render(scoped, "jsonl").splitlines()
                  if f'"{P}RESULT-SCHEMA"' in line)
    VALIDATOR.validate(record)
    for broken in ({k: v for k, v in record.items() if k != "scope"}, {**record, "exercised": 3},
                   {**record, "scope": {"reason": "r"}}):
        assert list(VALIDATOR.iter_errors(broken))


def test_junit_reports_a_gap_as_an_error_apart_from_failures(incomplete, scoped):
    suite = ET.fromstring(render(incomplete, "junit").split("\n", 1)[1]).find("testsuite")
    case = next(c for c in suite.findall("testcase") if c.get("name") == P + "RESULT-SCHEMA")
    assert case.find("failure") is None and case.find("error").get("type") == "NOT_EXERCISED"
    assert (suite.get("failures"), suite.get("errors")) == ("0", "1")
    assert "incomplete" in suite.get("gate")
    suite = ET.fromstring(render(scoped, "junit").split("\n", 1)[1]).find("testsuite")
    case = next(c for c in suite.findall("testcase") if c.get("name") == P + "RESULT-SCHEMA")
    assert case.find("skipped").get("message") == (f"out of scope: {UNREACHED['reason']} (evidence: "
                                                   f"{UNREACHED['evidence']})")
    assert (suite.get("failures"), suite.get("errors")) == ("0", "0")


def test_text_markdown_and_html_list_gaps_and_scope_apart_from_failures(incomplete, scoped):
    text = render(incomplete, "text")
    assert text.startswith("fakeqoder@1.0.0 (role cli): INCOMPLETE")
    assert "Failed or stale:" not in text
    gaps = text[text.index("Not exercised"):]
    assert "NOT_EXERCISED   MUST   FAKEQODER-1.0.0-RESULT-SCHEMA" in gaps
    assert "not exercised   MAY    FAKEQODER-1.0.0-KEEP-ALIVE-SCHEMA" in gaps  # listed, not blocking
    md = render(incomplete, "markdown")
    assert "**incomplete**" in md and "## Not exercised" in md and "## Findings behind failures" not in md
    assert f"- `{P}RESULT-SCHEMA` MUST — **blocks certification**" in md
    assert "<h2>Not exercised</h2>" in render(incomplete, "html")
    text = render(scoped, "text")
    assert "OUT_OF_SCOPE    MUST   FAKEQODER-1.0.0-RESULT-SCHEMA" in text
    assert f"reason: {UNREACHED['reason']}" in text and f"evidence: {UNREACHED['evidence']}" in text
    md = render(scoped, "markdown")
    assert (f"| `{P}RESULT-SCHEMA` | MUST | {UNREACHED['reason']} | {UNREACHED['evidence']} |" in md
            and "| MUST | 6/6 | 0 | 0 | 1 |" in md)
    page = render(scoped, "html")
    assert "<h2>Out of scope for this run</h2>" in page and UNREACHED["evidence"] in page


@pytest.mark.parametrize("fixture", ["incomplete", "scoped"])
def test_every_format_states_the_verdict_the_exit_code_gives(request, fixture):
    cert = request.getfixturevalue(fixture)
    expected = {0: "certified", 4: "incomplete"}[cert.exit_code]
    for name in FORMATS:
        out = render(cert, name)
        if name == "json":
            assert json.loads(out.splitlines()[-1])["verdict"] == expected
            continue
        stated = set(re.findall(r"gate --fail-on \w+: (certified|not certified|incomplete|run failed)", out))
        assert stated == {expected}, (name, stated)


def test_the_cli_exits_4_for_incomplete_and_0_once_the_gap_is_declared(framed, tmp_path):
    from typer.testing import CliRunner

    from wirecheck.cli.app import app

    from .conftest import CONTRACTS

    capture = str(framed(NO_RESULT))
    base = ["certify", "fakeqoder@1.0.0", capture, "--role", "cli", "--contracts", str(CONTRACTS)]
    result = CliRunner().invoke(app, base)
    assert result.exit_code == 4 and "INCOMPLETE" in result.output, result.output
    scope = scope_file(tmp_path, out_of_scope=[UNREACHED])
    for option in ("--scope", "--baseline"):  # one file, two names
        result = CliRunner().invoke(app, [*base, option, str(scope)])
        assert result.exit_code == 0 and "CERTIFIED" in result.output, result.output


def test_a_role_with_no_requirement_exercised_is_never_certified(tmp_path):
    """Issue 42, 3: `certify … --role reader` of a capture its reader wrote nothing in, the one MUST declared out of
    scope, was CERTIFIED with nothing about the reader tested. Now INCOMPLETE (exit 4), saying so and where a
    reader is certified (fuzz-consumer)."""
    from typer.testing import CliRunner

    from wirecheck.cli.app import app

    root = Path(__file__).resolve().parents[2]
    scope = tmp_path / "scope.yaml"
    scope.write_text("out_of_scope:\n  - {id: CLAUDE-PRINT-2.1.218-WELL-FORMED, reason: the reader writes nothing, "
                     "evidence: it only reads claude's stdout}\n")
    capture = str(root / "fixtures/live/claude-code@2.1.332/claude-print-plain.framed.ndjson")
    result = CliRunner().invoke(app, ["certify", "claude-code-print@2.1.218", capture, "--role", "reader",
                                      "--scope", str(scope)])
    assert result.exit_code == 4, result.output
    assert "no requirement on role reader was exercised: nothing about it was tested (a reader is certified with " \
           "wirecheck fuzz-consumer))" in result.output
    # the writer's role, exercised by the same capture, is still certified
    writer = CliRunner().invoke(app, ["certify", "claude-code-print@2.1.218", capture, "--role", "claude-code"])
    assert writer.exit_code == 0, writer.output
