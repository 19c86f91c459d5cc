"""The pytest plugin on odd settings: usage errors stop the run before it starts (exit 4, one line, no
traceback), and paths mean what pytest users expect (command line: where pytest started; ini: the ini's folder)."""

from __future__ import annotations

from .conftest import run_pytest

GATE = ["--wirecheck-contract", "xopc@0.0.253", "--wirecheck-capture", "out/run.jsonl", "--wirecheck-role", "runtime"]


def test_a_bad_fail_on_level_is_a_usage_error(adapter_repo):
    result = run_pytest(adapter_repo, *GATE, "--wirecheck-fail-on", "SHALL")
    assert result.returncode == 4, result.stdout
    assert "--wirecheck-fail-on SHALL: expected one of MUST, SHOULD, MAY" in result.stderr


def test_a_broken_baseline_is_a_usage_error_not_a_failure_per_item(adapter_repo):
    (adapter_repo / "baseline.yaml").write_text("expected_failures:\n  - id: NOPE\n    reason: x\n")
    result = run_pytest(adapter_repo, *GATE, "--wirecheck-baseline", "baseline.yaml")
    assert result.returncode == 4, result.stdout
    assert "baseline.yaml#/expected_failures/0/id: no requirement 'NOPE'" in result.stderr
    missing = run_pytest(adapter_repo, *GATE, "--wirecheck-baseline", "nope.yaml")
    assert missing.returncode == 4 and "scope file not found" in missing.stderr


def test_a_report_folder_that_cannot_be_made_is_a_usage_error(adapter_repo):
    (adapter_repo / "rep").write_text("a file")
    result = run_pytest(adapter_repo, *GATE, "--wirecheck-report", "rep")
    assert result.returncode == 4, result.stdout
    assert "--wirecheck-report" in result.stderr and "Traceback" not in result.stdout + result.stderr


def test_an_unknown_release_is_named_without_an_empty_location(adapter_repo):
    result = run_pytest(adapter_repo, "--wirecheck-contract", "nosuch@1.0.0", "--wirecheck-capture", "x")
    assert result.returncode == 4
    assert "wirecheck: unknown package 'nosuch'" in result.stderr, result.stderr


def test_command_line_paths_are_relative_to_where_pytest_started(adapter_repo):
    # started from a subfolder: the rootdir (where pytest.ini is) is above; the adapter's test writes out/run.jsonl
    # where it runs, and the paths given are relative to that folder too, not to the rootdir
    (adapter_repo / "sub").mkdir()
    (adapter_repo / "sub" / "known.yaml").write_text(
        "expected_failures:\n  - id: XOPC-0.0.253-RUN-EVENT-HAS-SEQUENCE\n    reason: fixed next release\n")
    result = run_pytest(adapter_repo / "sub", "..", *GATE, "--wirecheck-baseline", "known.yaml",
                        "--wirecheck-report", "rep", broken=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "XFAIL" in result.stdout and "fixed next release" in result.stdout
    assert (adapter_repo / "sub" / "rep" / "certification.html").is_file()


def test_a_capture_that_is_a_folder_is_named_as_such(adapter_repo):
    (adapter_repo / "caps").mkdir()
    result = run_pytest(adapter_repo, *GATE[:2], "--wirecheck-capture", "caps", *GATE[4:], "-k", "not worker_run")
    assert result.returncode == 1
    assert "a capture is a folder, not a file" in result.stdout and "Traceback" not in result.stdout
