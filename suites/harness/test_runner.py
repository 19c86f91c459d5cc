"""The live harness against a fake qodercli (suites/harness/fake_qoder.py) that behaves, hangs, floods, crashes,
prints broken or huge lines, or dies of a signal. Every run is bounded; nothing is left running."""

from __future__ import annotations

import dataclasses
import re
import sys
import time
from pathlib import Path

import orjson
import pytest

from wirecheck.certify.pipeline import certify_captures
from wirecheck.contracts import load_registry
from wirecheck.harness.process import Limits
from wirecheck.harness.runner import find_scenario, run_scenario
from wirecheck.harness.scenario import load_scenario, with_step_timeouts
from wirecheck.programs.program import Scratch

HERE = Path(__file__).parent
FAKE = str(HERE / "fake_qoder.py")
CONTRACTS = HERE / "data" / "contracts"


@pytest.fixture(scope="module")
def fake_release():
    return load_registry(CONTRACTS).load("fakeqoder@1.0.0")


def scenario(timeout=20.0, expect_timeout=None, name="qoder-handshake"):
    loaded = load_scenario(find_scenario(name))
    steps = loaded.steps
    if expect_timeout is not None:
        steps = tuple(dataclasses.replace(s, timeout=expect_timeout) if s.action == "expect" else s for s in steps)
    return dataclasses.replace(loaded, timeout=timeout, steps=steps)


def run(tmp_path, mode, **kwargs):
    limits = kwargs.pop("limits", Limits(max_line_bytes=100_000, max_output_bytes=2_000_000))
    sc = kwargs.pop("scenario", None) or scenario(**kwargs)
    capture = tmp_path / f"{mode}.framed.ndjson"
    started = time.monotonic()
    record = run_scenario([sys.executable, FAKE, "--mode", mode], sc, capture, limits=limits)
    return record, capture, time.monotonic() - started


def frames(capture):
    lines = capture.read_bytes().splitlines()
    assert orjson.loads(lines[0]) == {"wirecheck_capture": 1, "framing": "directed"}
    return lines[1:]


def test_a_good_cli_completes_the_scenario_and_is_certified(tmp_path, fake_release):
    record, capture, _ = run(tmp_path, "ok")
    assert record.ok, record.as_run()
    assert [s.status for s in record.steps] == ["ok"] * len(record.steps)
    assert record.exit_code == 0
    framed = [orjson.loads(line) for line in frames(capture)]
    assert "process" in framed.pop()  # the last line: how the program ended (capture/README.md)
    # both directions, in order; the CLI writes system/init as it starts, so on a loaded machine it may be
    # recorded before the first request the harness sent
    cli = [f["message"] for f in framed if f["from"] == "cli"]
    assert (cli[0]["type"], cli[0]["subtype"]) == ("system", "init")
    senders = [f["from"] for f in framed if f["message"] is not cli[0]]
    assert senders == ["sdk", "cli", "sdk", "cli", "sdk", "cli", "cli"]
    cert = certify_captures(fake_release, [capture], role="cli", run=record.as_run())
    assert cert.passed, [(r.requirement.id, r.status) for r in cert.results]
    assert cert.identity["run"]["argv"][-2:] == ["--mode", "ok"]
    assert cert.identity["run"]["scenario"]["path"].endswith("qoder-handshake.yaml")
    assert cert.run["ok"] is True and cert.run["exit_code"] == 0


def test_the_cli_runs_in_a_scratch_home(tmp_path, monkeypatch):
    seen = []
    original = Scratch.create

    def spy(keep=False):
        scratch = original(keep)
        seen.append(scratch)
        return scratch

    monkeypatch.setattr(Scratch, "create", staticmethod(spy))
    record = run_scenario([sys.executable, FAKE], scenario(), tmp_path / "c.ndjson", keep_scratch=True)
    assert record.ok
    root = seen[0].root
    try:
        assert (root / "home" / ".qoder" / "fake.log").read_text() == "started\n"  # it wrote into the scratch HOME
        env = seen[0].env()
        for name in ("HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "TMPDIR"):
            assert env[name].startswith(str(root))
        assert "PYTEST_CURRENT_TEST" not in env  # nothing of the caller's environment leaks in unless passed
    finally:
        seen[0].keep = False
        seen[0].remove()
    run_scenario([sys.executable, FAKE], scenario(), tmp_path / "d.ndjson")
    assert not seen[1].root.exists()  # removed after a normal run


def test_a_hanging_cli_is_stopped_at_the_timeout(tmp_path):
    record, _, elapsed = run(tmp_path, "hang", timeout=2.0)
    assert not record.ok
    failed = next(s for s in record.steps if s.status == "failed")
    assert failed.action == "expect" and "within" in failed.detail
    assert elapsed < 10  # 2 s scenario + bounded shutdown
    assert record.exit_code is not None and record.exit_code < 0  # killed


def test_a_crashing_cli_fails_the_step_it_broke_and_keeps_stderr(tmp_path, fake_release):
    record, capture, _ = run(tmp_path, "crash")
    assert not record.ok and record.exit_code == 3
    failed = next(s for s in record.steps if s.status == "failed")
    assert "stdout closed" in failed.detail
    assert "simulated crash" in record.stderr_tail
    assert [s.status for s in record.steps].count("not_run") > 0
    cert = certify_captures(fake_release, [capture], role="cli", run=record.as_run())
    assert not cert.passed and cert.badge.message == "run failed"
    assert "scenario step 3 (expect) failed" in cert.run["problem"]
    import io

    from wirecheck.certify.report import FORMATS

    for name in ("text", "markdown", "html"):  # the program's own words are quoted beside the failure
        out = io.StringIO()
        FORMATS[name](cert, out)
        assert "simulated crash" in out.getvalue().split("Requirements")[0], name


def test_a_flooding_cli_is_cut_off_at_the_output_limit(tmp_path):
    record, _, elapsed = run(tmp_path, "flood", timeout=30.0)
    assert not record.ok
    assert any("exceeded 2000000 bytes" in p for p in record.problems)
    assert record.output_bytes < 3_000_000 and elapsed < 15


def test_an_over_long_line_is_cut_and_reported_as_broken_json(tmp_path, fake_release):
    record, capture, _ = run(tmp_path, "longline")
    assert any("exceeded 100000 bytes" in p for p in record.problems)
    cert = certify_captures(fake_release, [capture], role="cli")
    well_formed = next(r for r in cert.results if r.requirement.id.endswith("WELL-FORMED"))
    assert well_formed.status == "fail" and well_formed.failures[0].code == "PARSE_ERROR"


def test_a_broken_line_is_kept_verbatim_and_located(tmp_path, fake_release):
    record, capture, _ = run(tmp_path, "badline")
    assert record.ok  # the scenario itself completes
    cert = certify_captures(fake_release, [capture], role="cli")
    well_formed = next(r for r in cert.results if r.requirement.id.endswith("WELL-FORMED"))
    broken = b'{"from": "cli", "message": {"type": "assistant", "message": }'
    lines = frames(capture)  # the header is line 1; where the broken line lands depends on timing (see above)
    assert broken in lines
    assert [(f.code, f.line) for f in well_formed.failures] == [("PARSE_ERROR", lines.index(broken) + 2)]


def test_a_cli_killed_by_a_signal(tmp_path):
    record, _, _ = run(tmp_path, "signal")
    assert not record.ok and record.exit_code == -9


def test_a_cli_without_init_fails_the_expectation(tmp_path, fake_release):
    record, capture, elapsed = run(tmp_path, "noinit", expect_timeout=1.0)
    assert not record.ok and elapsed < 10
    cert = certify_captures(fake_release, [capture], role="cli", run=record.as_run())
    first = next(r for r in cert.results if r.requirement.id.endswith("SYSTEM-INIT-FIRST"))
    assert first.status == "fail"  # the first CLI line was a control_response


def test_a_wrong_request_id_is_uncorrelated(tmp_path, fake_release):
    record, capture, _ = run(tmp_path, "wrongid", expect_timeout=1.0)
    assert not record.ok
    cert = certify_captures(fake_release, [capture], role="cli")
    correlated = next(r for r in cert.results if r.requirement.id.endswith("RESPONSES-CORRELATED"))
    assert correlated.status == "fail" and correlated.failures[0].code == "RESPONSE_WITHOUT_REQUEST"


def test_a_missing_program_is_a_run_problem(tmp_path):
    record = run_scenario(["/nonexistent/qodercli"], scenario(), tmp_path / "c.ndjson")
    assert not record.ok and "cannot start" in record.problems[0]


def test_certify_run_from_the_command_line(tmp_path):
    from typer.testing import CliRunner

    from wirecheck.cli.app import app

    out = tmp_path / "out"
    result = CliRunner().invoke(app, [
        "certify", "fakeqoder@1.0.0", "--contracts", str(CONTRACTS), "--run", "--scenario", "qoder-handshake",
        "--out-dir", str(out), "--timeout", "30", "--", sys.executable, FAKE, "--mode", "ok"])
    assert result.exit_code == 0, result.output
    assert (out / "capture.framed.ndjson").is_file() and (out / "certification.jsonl").is_file()
    lines = [orjson.loads(line) for line in (out / "certification.jsonl").read_text().splitlines()]
    footer = lines[-1]
    assert footer["verdict"] == "certified" and footer["run"]["ok"] is True
    import jsonschema

    from wirecheck.contracts.loader import own_schema

    validator = jsonschema.Draft202012Validator(own_schema("certification.schema.json"))
    for line in lines:
        validator.validate(line)
    assert lines[0]["identity"]["run"]["scenario"]["path"].endswith("qoder-handshake.yaml")
    failing = CliRunner().invoke(app, [
        "certify", "fakeqoder@1.0.0", "--contracts", str(CONTRACTS), "--run", "--scenario", "qoder-handshake",
        "--capture-out", str(tmp_path / "crash.ndjson"), "--", sys.executable, FAKE, "--mode", "crash"])
    assert failing.exit_code == 1
    assert "run: scenario step 3 (expect) failed" in failing.output


def test_certify_run_of_a_program_that_exits_before_speaking_is_a_run_failure_quoting_its_words(tmp_path):
    """Issue 22: qodercli printed "Not logged in · Please run /login" and exited; the summary said "stdout closed
    (exit status 1)" and exit 1, as if the CLI were non-conforming. Nothing was heard: exit 5, its words quoted."""
    from typer.testing import CliRunner

    from wirecheck.cli.app import app

    words = "Not logged in · Please run /login"
    out = tmp_path / "out"
    result = CliRunner().invoke(app, [
        "certify", "fakeqoder@1.0.0", "--contracts", str(CONTRACTS), "--run", "--scenario", "qoder-handshake",
        "--out-dir", str(out), "--format", "jsonl", "--timeout", "30", "--", sys.executable, "-c",
        f"import sys; print({words!r}, file=sys.stderr); sys.exit(1)"])
    assert result.exit_code == 5, result.output
    assert f'the program said: "{words}"' in result.output  # the result line on the terminal
    footer = orjson.loads((out / "certification.jsonl").read_text().splitlines()[-1])
    assert footer["verdict"] == "run failed" and footer["program_said"] == words and footer["run"]["heard"] is False
    assert words in (out / "certification.md").read_text() and "RUN FAILED" in (out / "certification.txt").read_text()


def test_certify_run_quotes_the_end_of_a_huge_stderr_cut_cleanly(tmp_path):
    """stderr is read through programs.tail: 48 MiB of it leave the last 4 KiB, a character the cut fell inside
    dropped (no U+FFFD), the last words quoted."""
    from typer.testing import CliRunner

    from wirecheck.cli.app import app
    from wirecheck.programs.tail import TAIL_BYTES

    words = "Not logged in · Please run /login"
    out = tmp_path / "out"
    result = CliRunner().invoke(app, [
        "certify", "fakeqoder@1.0.0", "--contracts", str(CONTRACTS), "--run", "--scenario", "qoder-handshake",
        "--out-dir", str(out), "--format", "jsonl", "--timeout", "60", "--", sys.executable, "-c",
        "import sys\nfor _ in range(1 << 14):\n    sys.stderr.write('€' * 1000 + '\\n')\n"
        f"print({words!r}, file=sys.stderr); sys.exit(1)"])
    assert result.exit_code == 5, result.output
    footer = orjson.loads((out / "certification.jsonl").read_text().splitlines()[-1])
    tail = footer["run"]["stderr_tail"]
    assert tail.endswith(f"€\n{words}\n") and set(tail[:-len(words) - 1]) <= {"€", "\n"}
    assert len(tail.encode()) > TAIL_BYTES - 3 and len(tail.encode()) <= TAIL_BYTES
    assert footer["program_said"].endswith(f"€ / {words}") and "\ufffd" not in footer["program_said"]


@pytest.mark.parametrize(("mode", "ending"), [
    ("linger", "ended with SIGTERM (it exited with status 1)"),
    ("stubborn", "SIGTERM did not end it within 2 s; killed with SIGKILL"),
])
def test_a_cli_still_running_after_end_of_input_is_said_so_and_how_it_was_ended(tmp_path, mode, ending):
    sc = with_step_timeouts(scenario(timeout=60.0), {"wait_exit": 1.5})
    record, _, _ = run(tmp_path, mode, scenario=sc)
    failed = next(s for s in record.steps if s.status == "failed")
    assert failed.action == "wait_exit"
    # not "did not exit within 1.5s (exit status 1)": it was running, and the exit status is the harness's doing
    assert re.fullmatch(r"still running 1\.[5-9] s after end of input; " + re.escape(ending), failed.detail), \
        failed.detail
    assert record.ending == ending and record.as_run()["outcome"]["ending"] == ending


def test_a_cli_that_exits_by_itself_has_no_ending(tmp_path):
    record, _, _ = run(tmp_path, "ok")
    assert record.ok and record.ending == "" and record.steps[-1].detail == "exit status 0"
