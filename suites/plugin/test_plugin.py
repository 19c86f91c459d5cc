"""The pytest plugin gates a sample adapter's own test run on conformance."""

from __future__ import annotations

import json

import yaml

from .conftest import run_pytest

GATE = ["--wirecheck-contract", "xopc@0.0.253", "--wirecheck-capture", "out/run.jsonl", "--wirecheck-role", "runtime"]
P = "XOPC-0.0.253-"


def test_a_conforming_adapter_passes_with_one_item_per_requirement(adapter_repo):
    result = run_pytest(adapter_repo, *GATE)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PASSED check_adapter.py::check_worker_run_is_recorded" in result.stdout
    assert f"PASSED wirecheck[xopc@0.0.253]::{P}RUN-EVENT-HAS-SEQUENCE" in result.stdout
    assert f"PASSED wirecheck[xopc@0.0.253]::{P}LEASE-REQUEST-SCHEMA" in result.stdout
    assert f"{P}LEASE-RESPONSE-SCHEMA" not in result.stdout  # the platform's requirements are not the adapter's


def test_a_broken_adapter_fails_the_run_with_the_finding(adapter_repo):
    result = run_pytest(adapter_repo, *GATE, broken=True)
    assert result.returncode == 1
    assert f"FAILED wirecheck[xopc@0.0.253]::{P}RUN-EVENT-HAS-SEQUENCE" in result.stdout
    assert "out/run.jsonl:6  error  XOPC_RUN_EVENT_HAS_SEQUENCE  [events.request]  /event/sequence" in result.stdout


def test_a_baselined_failure_is_an_xfail_and_a_stale_entry_fails(adapter_repo):
    (adapter_repo / "baseline.yaml").write_text(yaml.safe_dump({"expected_failures": [
        {"id": f"{P}RUN-EVENT-HAS-SEQUENCE", "reason": "fixed in the next release"}]}))
    known = run_pytest(adapter_repo, *GATE, "--wirecheck-baseline", "baseline.yaml", broken=True)
    assert known.returncode == 0, known.stdout
    assert f"XFAIL wirecheck[xopc@0.0.253]::{P}RUN-EVENT-HAS-SEQUENCE - baseline: fixed in the next release" \
        in known.stdout
    stale = run_pytest(adapter_repo, *GATE, "--wirecheck-baseline", "baseline.yaml")
    assert stale.returncode == 1
    assert "listed in the baseline as an expected failure; remove the entry" in stale.stdout


def test_not_exercised_must_fails_and_lower_levels_skip(adapter_repo):
    # deselect the test that writes the capture, and certify a capture with only discovery in it
    (adapter_repo / "out").mkdir()
    (adapter_repo / "out" / "run.jsonl").write_text(json.dumps({
        "request": {"method": "GET", "url": "https://p.test/.well-known/xopc-platform",
                    "headers": {"accept": "application/json"}}}) + "\n")
    result = run_pytest(adapter_repo, *GATE, "-k", "not worker_run")
    assert result.returncode == 1
    assert f"FAILED wirecheck[xopc@0.0.253]::{P}LEASE-REQUEST-SCHEMA" in result.stdout
    assert ("not exercised by the captures (the run is incomplete; a scope file can declare what it cannot reach)"
            in result.stdout)
    assert "SKIPPED" in result.stdout  # SHOULD requirements that were not exercised (RUN-TERMINATES)


def test_an_out_of_scope_requirement_skips_with_its_reason_and_a_stale_one_fails(adapter_repo):
    entry = {"id": f"{P}RUN-EVENT-HAS-SEQUENCE", "reason": "this adapter sends no run events",
             "evidence": "adapter.py posts no event"}
    (adapter_repo / "scope.yaml").write_text(yaml.safe_dump({"out_of_scope": [entry]}))
    (adapter_repo / "out").mkdir()
    (adapter_repo / "out" / "run.jsonl").write_text(json.dumps({
        "request": {"method": "GET", "url": "https://p.test/.well-known/xopc-platform",
                    "headers": {"accept": "application/json"}}}) + "\n")
    gap = run_pytest(adapter_repo, *GATE, "--wirecheck-scope", "scope.yaml", "-k", "not worker_run", "-rs")
    assert gap.returncode == 1  # the other MUSTs this capture does not reach are not declared
    assert ": out of scope: this adapter sends no run events (evidence: adapter.py posts no event)" in gap.stdout
    assert f"FAILED wirecheck[xopc@0.0.253]::{P}RUN-EVENT-HAS-SEQUENCE" not in gap.stdout
    stale = run_pytest(adapter_repo, *GATE, "--wirecheck-scope", "scope.yaml")  # the real run sends events
    assert stale.returncode == 1
    assert f"FAILED wirecheck[xopc@0.0.253]::{P}RUN-EVENT-HAS-SEQUENCE" in stale.stdout
    assert "the scope file declares it out of scope; remove the entry" in stale.stdout


def test_a_missing_capture_fails_every_item_with_one_clear_message(adapter_repo):
    result = run_pytest(adapter_repo, *GATE, "-k", "not worker_run")
    assert result.returncode == 1
    assert "capture not found:" in result.stdout and "did the tests that write it run?" in result.stdout
    assert "Traceback" not in result.stdout


def test_without_a_contract_the_plugin_adds_nothing(adapter_repo):
    result = run_pytest(adapter_repo)
    assert result.returncode == 0 and "2 passed" in result.stdout and "wirecheck[" not in result.stdout


def test_ini_options_configure_the_gate(adapter_repo):
    ini = adapter_repo / "pytest.ini"
    ini.write_text(ini.read_text() + "wirecheck_contract = xopc@0.0.253\nwirecheck_role = runtime\n"
                   "wirecheck_captures =\n    out/run.jsonl\n")
    result = run_pytest(adapter_repo, broken=True)
    assert result.returncode == 1 and f"{P}RUN-EVENT-HAS-SEQUENCE" in result.stdout


def test_markers_select_levels_and_reports_are_written(adapter_repo):
    result = run_pytest(adapter_repo, *GATE, "-m", "wirecheck_should or not wirecheck", "--wirecheck-report", "rep")
    assert result.returncode == 0, result.stdout
    assert f"{P}LEASE-REQUEST-SCHEMA" not in result.stdout and f"{P}RUN-TERMINATES" in result.stdout
    assert (adapter_repo / "rep" / "certification.html").is_file()


def test_usage_errors_are_reported_not_raised(adapter_repo):
    unknown = run_pytest(adapter_repo, "--wirecheck-contract", "xopc@9.9.9", "--wirecheck-capture", "x")
    assert unknown.returncode == 4 and "wirecheck:" in unknown.stderr and "Traceback" not in unknown.stderr
    role = run_pytest(adapter_repo, *GATE[:4], "--wirecheck-role", "server")
    assert role.returncode == 4 and "no role 'server'" in role.stderr


def test_wirecheck_options_without_a_contract_are_a_usage_error(adapter_repo):
    """A gate whose contract went missing (a typo, `--wirecheck-contract=$UNSET`) would pass certifying nothing:
    its other options are then a usage error (attack-input F3), and no option at all leaves the run alone."""
    for args in (["--wirecheck-capture", "out/run.jsonl", "--wirecheck-fail-on", "BOGUS"],
                 ["--wirecheck-contract", "", "--wirecheck-capture", "out/run.jsonl"],
                 ["--wirecheck-role", "runtime"]):
        result = run_pytest(adapter_repo, *args)
        assert result.returncode == 4, (args, result.stdout, result.stderr)
        assert "without a contract to certify against" in result.stderr and "Traceback" not in result.stderr
    ini = adapter_repo / "pytest.ini"
    ini.write_text(ini.read_text() + "wirecheck_captures =\n    out/run.jsonl\n")
    result = run_pytest(adapter_repo)
    assert result.returncode == 4 and "wirecheck_captures (ini)" in result.stderr
