"""The live tiers gate (harness/live.py, harness/closing.py): a CLI whose run fails, or whose capture is not
certified, makes `python -m wirecheck.harness.live` exit non-zero with one closing verdict per release, printed last
and written to reports/live/<cli>.md, and no row, report or expected.yaml says certified for it. The CLI is a fake
started through the tier's own options (`--executable`): it prints the line real Claude Code 2.1.332 printed in
claude-print-plain (fixtures/live/), then exits 0, exits 1, or hangs; or it prints nothing."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
import yaml

from wirecheck.harness import live
from wirecheck.harness.closing import closing, worst

ROOT = Path(__file__).resolve().parents[2]
RECORDED = ROOT / "fixtures" / "live" / "claude-code@2.1.332"
PREFIX = b'{"from": "claude-code", "message": '
# what the real CLI printed: its one result line, byte for byte as the framed capture holds it
RESULT = next(line[len(PREFIX):-1] for line in (RECORDED / "claude-print-plain.framed.ndjson").read_bytes()
              .splitlines() if line.startswith(PREFIX))
ENDINGS = {"exits 0": "sys.exit(0)", "exits 1": "sys.exit(1)", "hangs": "time.sleep(600)"}


def fake_cli(tmp_path: Path, ending: str, prints: bytes = RESULT) -> Path:
    script = tmp_path / "claude"
    line = prints + b"\n" if prints else b""
    script.write_text(f"#!{sys.executable}\nimport sys, time\nsys.stdout.buffer.write({line!r})\n"
                      f"sys.stdout.flush()\n{ENDINGS[ending]}\n")
    script.chmod(0o755)
    return script


def run_tier(tmp_path: Path, executable: Path, *options: str, record: bool = False) -> tuple[int, str, Path]:
    out = tmp_path / "out"
    argv = ["claude-code", "--executable", str(executable), "--scenario", "claude-print-plain", "--out", str(out),
            "--step-timeout", "wait_exit=3", "--step-timeout", "expect=3", *options]
    if record:
        argv += ["--record", str(tmp_path / "recorded")]
    code = live.main(argv)
    return code, (out / "claude-code.md").read_text(), out


def rows_of(report: str) -> list[list[str]]:
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in report.splitlines()
            if line.startswith("| claude-code@")]


def test_a_cli_that_does_what_the_scenario_says_is_certified(tmp_path, capsys):
    """The control: the same fake, exiting 0, passes, so the failures below are the behaviour's."""
    code, report, _ = run_tier(tmp_path, fake_cli(tmp_path, "exits 0"))
    assert code == 0
    assert {row[3] for row in rows_of(report)} == {"certified"} and len(rows_of(report)) == 3
    assert report.splitlines()[-1] == "closing verdict claude-code@2.1.332: CERTIFIED (exit 0)"
    assert capsys.readouterr().out.rstrip().splitlines()[-1] == report.splitlines()[-1]  # printed last


@pytest.mark.parametrize(("ending", "run", "said"), [
    # the exit status is the contract's to judge (EXIT-ZERO-ON-SUCCESS): the run completed, the requirement fails
    ("exits 1", "ok", r"completed \(exit status 1\)"),
    # the harness had to stop it: the run failed, and the process's ending fails the same requirement
    # (3 s is the step's limit; a loaded machine notices it a little later: "still running 3.1 s")
    ("hangs", "FAILED", r"still running 3(\.\d)? s after end of input"),
])
def test_a_cli_that_exits_1_or_hangs_after_a_valid_transcript_fails_the_tier(tmp_path, capsys, ending, run, said):
    code, report, out = run_tier(tmp_path, fake_cli(tmp_path, ending), record=True)
    assert code == 1
    rows = rows_of(report)
    assert {(row[3], row[4]) for row in rows} == {("not certified", run)} and len(rows) == 3
    assert all(row[6] == "1" for row in rows)  # one MUST failed in each: the one the ending breaks
    last = report.splitlines()[-1]
    assert last.startswith("closing verdict claude-code@2.1.332: NOT CERTIFIED (exit 1) — claude-print-plain "
                           "against claude-code-print@2.1.218: not certified")
    assert capsys.readouterr().out.rstrip().splitlines()[-1] == last
    expected = yaml.safe_load((tmp_path / "recorded" / "claude-code@2.1.332" / "expected.yaml").read_text())
    for contract, verdict in expected["claude-print-plain"].items():
        assert (verdict["verdict"], verdict["exit_code"]) == ("not certified", 1)
        assert re.search(said, verdict["run"]), verdict["run"]
        assert [r.rsplit("-", 4)[-4:] for r in verdict["must_by_status"]["fail"]] == [
            ["EXIT", "ZERO", "ON", "SUCCESS"]], contract
    provenance = yaml.safe_load((tmp_path / "recorded" / "claude-code@2.1.332" / "provenance.yaml").read_text())
    # the scenario's own step failed either way (it ends with exit 0); the row says whose failure it is
    assert provenance["scenarios"]["claude-print-plain"]["run"]["ok"] is False
    # the reports of each row say so too
    badge = (out / "claude-code@2.1.332" / "claude-print-plain" / "claude-code-print-2.1.332" / "badge.svg")
    assert ("incompatible" if run == "ok" else "run failed") in badge.read_text()


def test_a_cli_that_prints_nothing_is_a_run_failure(tmp_path):
    code, report, _ = run_tier(tmp_path, fake_cli(tmp_path, "exits 0", prints=b""))
    assert code == 5
    assert {row[3] for row in rows_of(report)} == {"run failed"}
    assert report.splitlines()[-1].startswith("closing verdict claude-code@2.1.332: RUN FAILED (exit 5)")


def test_a_recorded_failed_run_replays_as_not_certified():
    """The replay judges a capture with its recorded outcome: the committed, certified capture of a run that had
    failed would be NOT CERTIFIED, and a group row carries the first failed run of its members."""
    target = live.load_plan()["claude-code"][0].certify[1]
    capture = RECORDED / "claude-print-plain.framed.ndjson"
    ok = {"ok": True, "heard": True, "problem": None, "exit_code": 0}
    hung = {"ok": False, "heard": True, "problem": "scenario step 4 (wait_exit) failed: still running 3 s after end "
                                                   "of input", "exit_code": None}
    assert live.summary(live.certify_capture(target, capture, {"outcome": ok}))["verdict"] == "certified"
    said = live.summary(live.certify_capture(target, capture, {"outcome": hung}))
    assert (said["verdict"], said["exit_code"], said["run"]) == ("not certified", 1, "failed: " + hung["problem"])
    group = live.together({"opencode-run-plain": ok, "opencode-run-tool": hung, "opencode-run-429": hung})
    assert group == {"ok": False, "heard": True, "exit_code": None,
                     "problem": "opencode-run-tool: " + hung["problem"]}
    assert live.together({"a": ok, "b": ok})["ok"] is True
    assert live.together({"a": {**hung, "heard": False}})["heard"] is False


def test_a_program_the_harness_had_to_stop_never_ended_its_run_well():
    """Whatever its steps said (a scenario without wait_exit): the run failed, and says how it was ended."""
    stopped = {"ok": True, "heard": True, "problem": None, "exit_code": -15, "stopped_by_harness": True,
               "ending": "ended with SIGTERM (it exited with status 1)"}
    assert live.run_outcome({"outcome": stopped}) == {
        "ok": False, "heard": True, "exit_code": -15,
        "problem": "the harness had to stop it: ended with SIGTERM (it exited with status 1)"}
    assert live.run_outcome({"outcome": {**stopped, "stopped_by_harness": False}})["ok"] is True


def test_the_closing_verdict_is_the_worst_row_and_a_gap_a_group_fills_is_left_to_it():
    assert worst([0, 4, 1]) == 1 and worst([1, 5, 4]) == 5 and worst([]) == 0
    said = closing("cli@1", [("a", "certified", 0), ("b", "incomplete", 4), ("c", "not certified", 1),
                             ("d", "not certified", 1)])
    assert (said.verdict, said.exit_code, said.made_by) == ("not certified", 1, "c: not certified")
    release = next(r for r in live.load_plan()["opencode"])
    rows = [{"scenario": "opencode-run-plain", "contract": "opencode-run@1.0.0", "verdict": "incomplete",
             "exit_code": 4},
            {"scenario": "all scenarios", "contract": "opencode-run@1.0.0", "verdict": "certified", "exit_code": 0}]
    assert live.release_closing(release, rows).exit_code == 0
    assert live.release_closing(release, rows[:1]).exit_code == 4  # no group row in the table: the gap stands
    rows[0].update(verdict="not certified", exit_code=1)  # a failure in one scenario is never the group's to hide
    assert live.release_closing(release, rows).made_by == "opencode-run-plain against opencode-run@1.0.0: not certified"


@pytest.mark.parametrize(("options", "message"), [
    (["--executable", "/nonexistent/claude"], "no executable file there"),
    (["--scenario", "opencode-run-plain"], "not a scenario of claude-code@2.1.332"),
    (["--step-timeout", "wait_exit=soon"], "expected STEP=SECONDS"),
    (["--step-timeout", "9=3"], "--step-timeout"),
])
def test_usage_errors_exit_2_before_anything_runs(tmp_path, capsys, options, message):
    with pytest.raises(SystemExit) as stopped:
        live.main(["claude-code", "--out", str(tmp_path), "--executable", str(fake_cli(tmp_path, "exits 0")),
                   *options])
    assert stopped.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "claude-code.md").exists()


def test_a_release_that_cannot_be_installed_is_a_run_failure(tmp_path, monkeypatch, capsys):
    def refuse(release, cache):
        raise live.InstallFailed(f"installing {release.package} failed: npm said no")

    monkeypatch.setattr(live, "install", refuse)
    assert live.main(["claude-code", "--out", str(tmp_path)]) == 5
    assert capsys.readouterr().out.rstrip().splitlines()[-1] == (
        "closing verdict claude-code@2.1.332: RUN FAILED (exit 5) — not installed: installing "
        "@anthropic-ai/claude-code@2.1.332 (npm) failed: npm said no")


def test_the_jsonrpc_tier_exits_with_its_worst_required_subject_and_closes_with_each(tmp_path, monkeypatch, capsys):
    """certify-jsonrpc's subjects (harness/jsonrpc_live.py), each certified from its recorded capture with a run
    outcome the test chooses: an optional agent's failure is said and not required; a required subject's hang fails
    the tier (exit 1) where it once exited 0 for the nox session's `success_codes=[0, 1, 4]`."""
    from wirecheck.certify.pipeline import certify_captures
    from wirecheck.contracts import load_registry
    from wirecheck.harness import jsonrpc_live

    data = ROOT / "suites" / "harness" / "data" / "live-jsonrpc"
    hung = {"ok": False, "heard": True, "problem": "scenario step 9 (wait_exit) failed: still running", "exit_code": 0}
    fails = {"acp-example-client"}

    def recorded(subject, out, contracts, folder):
        name = "acp-example-agent" if subject.optional else subject.name
        outcome = hung if subject.name in fails or subject.optional else {**hung, "ok": True, "problem": None}
        cert = certify_captures(load_registry().load("acp@1.9.0"), [data / name / "capture.framed.ndjson"],
                                role="agent" if name == "acp-example-agent" else "client",
                                baseline=data / name / "scope.yaml", run={"outcome": outcome})
        out.mkdir(parents=True, exist_ok=True)
        return {"version": "1.9.0", "steps": [], "_cert": cert}

    monkeypatch.setattr(jsonrpc_live, "run_one", recorded)
    only = ["--only", "acp-example-agent", "--only", "acp-example-client", "--only", jsonrpc_live.AGENTS[0].name]
    assert jsonrpc_live.main(["--out", str(tmp_path), "--agents", *only]) == 1
    last = capsys.readouterr().out.rstrip().splitlines()[-3:]
    assert last[0] == "closing verdict acp-example-agent (@agentclientprotocol/sdk@1.9.0): CERTIFIED (exit 0)"
    assert last[1].startswith("closing verdict acp-example-client (@agentclientprotocol/sdk@1.9.0): NOT CERTIFIED "
                              "(exit 1) — acp@1.9.0 role client: gate --fail-on MUST: not certified")
    assert last[2].endswith("[optional: not required]") and "NOT CERTIFIED (exit 1)" in last[2]
    fails.clear()
    assert jsonrpc_live.main(["--out", str(tmp_path), "--agents", *only]) == 0  # the optional agent still fails


def test_the_xopc_tier_exits_with_the_worst_scenario_and_closes_per_node(tmp_path, monkeypatch, capsys):
    """`nox -s live-xopc` (stub/live_xopc.py) with the worker's runs replaced by the certifications the real worker's
    recordings give (fixtures/xopc/0.0.253/live/): NOT CERTIFIED under race, so the tier exits 1, where it exited 0."""
    import shutil as sh

    from wirecheck.stub import live_xopc

    recorded = ROOT / "fixtures" / "xopc" / "0.0.253" / "live"
    monkeypatch.setattr(live_xopc, "_source_files", lambda source, commit: {"src/platform/worker.ts": b"//"})
    monkeypatch.setattr(sh, "which", lambda name: "/usr/bin/npm")

    def npm(work):
        for name in ("tsx", "zod"):
            (work / "node_modules" / name).mkdir(parents=True)
            (work / "node_modules" / name / "package.json").write_text('{"version": "1"}')

    def stub(node, work, driver, scenario, out):
        out.mkdir(parents=True)
        for name in live_xopc.KEPT:
            sh.copyfile(recorded / f"node22-{scenario}" / name, out / name)
        return (0 if scenario == "normal" else 1), ["python", "-m", "wirecheck", "stub", "--out-dir", "x"]

    monkeypatch.setattr(live_xopc, "_npm", npm)
    monkeypatch.setattr(live_xopc, "_node_facts", lambda node, work: {"version": "v22.19.0", "ada": "2.9.2"})
    monkeypatch.setattr(live_xopc, "_run_stub", stub)
    code = live_xopc.main(["--source", str(tmp_path), "--commit", "d5c0989", "--out", str(tmp_path / "out"),
                           "--driver", str(ROOT / "suites" / "stub" / "live" / "xopc_worker_driver.mjs")])
    assert code == 1
    lines = capsys.readouterr().out.rstrip().splitlines()
    assert lines[-2:] == ["closing verdict xopc worker d5c0989 on Node v22.19.0: NOT CERTIFIED (exit 1) — race: "
                          "not certified"] * 2


def test_pass_env_hands_a_variable_to_the_cli_and_nothing_else_passes(tmp_path, monkeypatch):
    """A wrapper in front of a real CLI finds it through a variable (suites/harness/wrappers/): `--pass-env NAME`
    passes it; without it the CLI's environment is the scratch one, as for every program wirecheck runs."""
    script, line = tmp_path / "claude", RESULT + b"\n"
    script.write_text(f"#!{sys.executable}\nimport os, sys\nif os.environ.get('WIRECHECK_FAKE_SPEAKS') == 'yes':\n"
                      f"    sys.stdout.buffer.write({line!r})\n")
    script.chmod(0o755)
    monkeypatch.setenv("WIRECHECK_FAKE_SPEAKS", "yes")
    assert run_tier(tmp_path, script)[0] == 5
    assert run_tier(tmp_path, script, "--pass-env", "WIRECHECK_FAKE_SPEAKS")[0] == 0


def test_a_release_live_yaml_does_not_list_runs_with_the_nearest_recorded_ones_scenarios_under_its_own_name():
    # issue 38: `--version 2.1.259` was refused; a hand-written entry was the only way to certify it
    plan = live.load_plan()
    older = live.release_of(plan["claude-code"], "2.1.259")
    recorded = plan["claude-code"][0]
    assert (older.name, older.based_on, older.npm, older.executable) == (
        "claude-code@2.1.259", "2.1.332", "@anthropic-ai/claude-code", "")
    assert (older.scenarios, older.certify) == (recorded.scenarios, recorded.certify)
    # the latest recorded release at or before it, else the first after it; npm where the nearest came from PyPI
    qoder = plan["qodercli"]
    assert live.release_of(qoder, "1.1.60").based_on == "1.1.52"
    assert live.release_of(qoder, "1.1.80").based_on == "1.1.76"
    early = live.release_of(qoder, "1.0.12")
    assert (early.based_on, early.npm, early.pypi, early.sessions) == ("1.1.23", "@qoder-ai/qodercli", None,
                                                                      qoder[0].sessions)
    assert live.release_of(qoder, "1.1.52") is qoder[1]  # a recorded release is itself
    with pytest.raises(ValueError, match="not a release number"):
        live.release_of(plan["claude-code"], "latest")


def test_an_unlisted_release_is_installed_from_npm_at_its_version_and_its_package_names_the_executable(
        fake_programs, tmp_path):
    fake_programs.add("npm", """
prefix = sys.argv[sys.argv.index("--prefix") + 1]
name, _, version = sys.argv[-1].rpartition("@")
folder = os.path.join(prefix, "node_modules", name)
os.makedirs(os.path.join(folder, "bin"))
open(os.path.join(folder, "cli.js"), "w").write("#!/usr/bin/env node\\n")
open(os.path.join(folder, "package.json"), "w").write(json.dumps(
    {"version": os.environ.get("FAKE_VERSION", version), "bin": {"claude": "cli.js"}}))
""")
    release = live.release_of(live.load_plan()["claude-code"], "2.0.77")
    executable = live.install(release, tmp_path / "cache")
    assert executable == (tmp_path / "cache" / "claude-code@2.0.77" / "node_modules" / "@anthropic-ai" / "claude-code"
                          / "cli.js").resolve()
    [facts] = fake_programs.runs("npm")
    assert facts["argv"][-1] == "@anthropic-ai/claude-code@2.0.77"
    assert live.install(release, tmp_path / "cache") == executable and len(fake_programs.runs("npm")) == 1  # kept
    # a package of another version where this one should be is never run under this one's name
    other = live.release_of(live.load_plan()["claude-code"], "2.0.76")
    folder = tmp_path / "cache" / "claude-code@2.0.76" / "node_modules" / "@anthropic-ai" / "claude-code"
    folder.mkdir(parents=True)
    (folder / "package.json").write_text('{"version": "2.0.75", "bin": "cli.js"}')
    with pytest.raises(live.InstallFailed, match=r"holds @anthropic-ai/claude-code '2\.0\.75', not 2\.0\.76"):
        live.install(other, tmp_path / "cache")


def test_an_unlisted_release_is_labelled_by_its_own_version_in_the_table_and_the_provenance(tmp_path, capsys):
    code, report, out = run_tier(tmp_path, fake_cli(tmp_path, "exits 0"), "--version", "2.1.259", record=True)
    assert code == 0 and [row[0] for row in rows_of(report)] == ["claude-code@2.1.259"] * 3
    assert "not in live.yaml; run with the scenarios and targets of claude-code@2.1.332" in capsys.readouterr().out
    provenance = yaml.safe_load((tmp_path / "recorded" / "claude-code@2.1.259" / "provenance.yaml").read_text())
    assert provenance["version"] == "2.1.259" and provenance["package"] == "@anthropic-ai/claude-code@2.1.259 (npm)"
    assert provenance["scenarios_of"].startswith("claude-code@2.1.332")
    # every report of the run names what was certified by its own version (and whose scenarios it ran)
    said = "claude-code@2.1.259 (@anthropic-ai/claude-code@2.1.259 (npm), with the scenarios of claude-code@2.1.332)"
    folder = out / "claude-code@2.1.259" / "claude-print-plain" / "navarch-runtime-0.1.53"
    for name in ("certification.txt", "certification.md", "certification.jsonl"):
        assert said in (folder / name).read_text(), name
    assert said in (folder / "certification.html").read_text()


def test_a_package_json_that_is_no_manifest_names_no_executable(tmp_path):
    release = live.release_of(live.load_plan()["claude-code"], "2.0.75")
    folder = tmp_path / "node_modules" / "@anthropic-ai" / "claude-code"
    folder.mkdir(parents=True)
    for text in ("[]", '"2.0.75"', "{not json"):
        (folder / "package.json").write_text(text)
        assert live._npm_executable(tmp_path, release) is None
