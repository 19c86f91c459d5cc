"""`wirecheck certify`: exit codes 0 / 1 / 2, formats, --out-dir, baselines, located usage errors."""

from __future__ import annotations

import json

import pytest
import yaml
from typer.testing import CliRunner

from wirecheck.cli.app import app

from .conftest import CONTRACTS, GOOD_RUN, RESULT

runner = CliRunner()


def certify(*args):
    return runner.invoke(app, ["certify", "fakeqoder@1.0.0", "--contracts", str(CONTRACTS), *args])


def test_certified_capture_exits_0(framed):
    result = certify(str(framed(GOOD_RUN)), "--role", "cli")
    assert result.exit_code == 0, result.output
    assert "CERTIFIED — compatible" in result.output


def test_failing_capture_exits_1_and_names_the_requirement(framed):
    bad = {**RESULT, "is_error": "no"}
    result = certify(str(framed([*GOOD_RUN[:-1], ("cli", bad)])), "--role", "cli")
    assert result.exit_code == 1
    assert "FAKEQODER-1.0.0-RESULT-SCHEMA" in result.output and "/is_error" in result.output


def test_without_a_role_the_sdk_side_is_judged_too(framed):
    result = certify(str(framed(GOOD_RUN)), "--format", "jsonl")
    assert result.exit_code == 0
    records = [json.loads(line) for line in result.output.splitlines()]
    assert any(r.get("subject") == "sdk" for r in records)


def test_out_dir_writes_every_format_and_the_badge(framed, tmp_path):
    out = tmp_path / "report"
    result = certify(str(framed(GOOD_RUN)), "--role", "cli", "--out-dir", str(out))
    assert result.exit_code == 0
    names = sorted(p.name for p in out.iterdir())
    assert names == ["badge.svg", "certification.html", "certification.jsonl", "certification.junit.xml",
                     "certification.md", "certification.sarif", "certification.txt"]
    assert "<svg" in (out / "badge.svg").read_text()
    assert "gate --fail-on MUST: certified" in result.output  # the result, on the terminal
    target = tmp_path / "r.md"
    result = certify(str(framed(GOOD_RUN)), "--role", "cli", "--format", "markdown", "--output", str(target))
    assert f"CERTIFIED; gate --fail-on MUST: certified; reports: {target}" in result.output


def test_format_and_output(framed, tmp_path):
    target = tmp_path / "r.xml"
    result = certify(str(framed(GOOD_RUN)), "--role", "cli", "--format", "junit", "--output", str(target))
    assert result.exit_code == 0 and target.read_text().startswith("<?xml")


def test_stale_baseline_exits_1(framed, tmp_path):
    baseline = tmp_path / "b.yaml"
    baseline.write_text(yaml.safe_dump({"expected_failures": [
        {"id": "FAKEQODER-1.0.0-RESULT-SCHEMA", "reason": "was broken"}]}))
    result = certify(str(framed(GOOD_RUN)), "--role", "cli", "--baseline", str(baseline))
    assert result.exit_code == 1 and "UNEXPECTED_PASS" in result.output


@pytest.mark.parametrize(("content", "message"), [
    ({"expected_failures": [], "expected_failure": []}, "b.yaml#/expected_failure: unknown key 'expected_failure'"),
    ({"expected_failures": [{"id": "FAKEQODER-1.0.0-RESULT-SCHEMA", "reason": "x", "until": "2027"}]},
     "b.yaml#/expected_failures/0/until: unknown key 'until' (an entry holds `id` and `reason`) (line 2)"),
])
def test_a_baseline_key_it_does_not_know_is_a_usage_error(framed, tmp_path, content, message):
    """A misspelt key would otherwise be dropped in silence: the failure it meant to baseline fails the run."""
    baseline = tmp_path / "b.yaml"
    baseline.write_text(yaml.safe_dump(content))
    result = certify(str(framed(GOOD_RUN)), "--role", "cli", "--baseline", str(baseline))
    assert result.exit_code == 2 and message in result.output, result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.jsonl"], "capture not found: missing.jsonl"),
        ([], "give capture files, or --run"),
        (["--run", "--", "true"], "--run needs --scenario"),
        (["--run", "--scenario", "qoder-handshake"], "--run needs a command after --"),
        (["--scenario", "x.yaml", "c.jsonl"], "--scenario needs --run"),
        (["--format", "pdf", "c.jsonl"], "--format pdf: expected one of"),
        (["--role", "server", "CAPTURE"], "no role 'server'"),
        (["--baseline", "nope.yaml", "CAPTURE"], "scope file not found"),
        (["--fail-on", "SHALL", "CAPTURE"], "--fail-on 'SHALL'"),
        (["--run", "--scenario", "nope.yaml", "--", "true"], "scenario file not found"),
        (["--run", "--scenario", "qoder-handshake", "--step-timeout", "wait_exit", "--", "true"],
         "--step-timeout 'wait_exit': expected STEP=SECONDS"),
        (["--run", "--scenario", "qoder-handshake", "--step-timeout", "1=-4", "--", "true"],
         "--step-timeout '1=-4': expected STEP=SECONDS with a positive number"),
        (["--run", "--scenario", "qoder-handshake", "--step-timeout", "1=5", "--", "true"],
         "--step-timeout step 1 is send, which has no time limit"),
    ],
)
def test_usage_errors_exit_2(framed, args, message):
    capture = str(framed(GOOD_RUN))
    result = certify(*[capture if a == "CAPTURE" else a for a in args])
    assert result.exit_code == 2, result.output
    assert message in result.output


def test_unknown_release_exits_2():
    result = runner.invoke(app, ["certify", "fakeqoder@9.9.9", "--contracts", str(CONTRACTS), "x"])
    assert result.exit_code == 2


def test_requirements_command_lists_what_is_judged():
    result = runner.invoke(app, ["requirements", "fakeqoder@1.0.0", "--contracts", str(CONTRACTS), "--role", "cli",
                                 "--level", "must"])
    assert result.exit_code == 0, result.output
    assert "FAKEQODER-1.0.0-SYSTEM-INIT-FIRST  MUST  cli  rule FIRST_MESSAGE_IS" in result.output
    assert "FAKEQODER-1.0.0-USER-SCHEMA" not in result.output  # the SDK's
    assert "FAKEQODER-1.0.0-KEEP-ALIVE-SCHEMA" not in result.output  # MAY
    bad = runner.invoke(app, ["requirements", "fakeqoder@1.0.0", "--contracts", str(CONTRACTS), "--role", "x"])
    assert bad.exit_code == 2 and "no role 'x'" in bad.output
