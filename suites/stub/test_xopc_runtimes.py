"""The stub certifies real runtime behaviour, not speed: our own small runtime (xopc_runtime.py, the 0.0.253 worker's
logic in Python) in its three variants under the shipped scenarios, through `wirecheck stub -- COMMAND`.

- a fast correct runtime is CERTIFIED (a run that ends within its lease needs no renewal);
- under the race scenario (the terminal event answered 2.5 s late, 3 s leases) the late-stopping runtime (the
  worker at d5c0989) is NOT CERTIFIED for XOPC_NO_RENEW_AFTER_TERMINAL, and one that stops renewing first is
  CERTIFIED with the same delays;
- a runtime given a base URL with a path completes its run;
- a slow runtime that never renews is NOT CERTIFIED for XOPC_LEASE_KEPT; a slow one that renews is CERTIFIED;
- the broken twins of fixtures/xopc/0.0.253/runtimes/ (issue 37: crash on 503, wrong-id renewal, cancel ignored) and
  their correct counterparts say, run again and replayed, what its expected.yaml says; the stub's own answers (an
  injected 503, its 404 for an id it never leased) are held against neither side.
"""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
import pytest
import yaml
from typer.testing import CliRunner

from wirecheck.cli.app import app

RUNTIME = str(Path(__file__).with_name("xopc_runtime.py"))
P = "XOPC-0.0.253-"
TWINS = Path(__file__).resolve().parents[2] / "fixtures" / "xopc" / "0.0.253" / "runtimes"
EXPECTED = yaml.safe_load((TWINS / "expected.yaml").read_text())["runtimes"]


def run_stub(tmp_path: Path, *stub_options: str, base: str = "{url}", runtime_argv: tuple[str, ...] = (),
             **runtime: object):
    out = tmp_path / "out"
    argv = ["stub", "xopc@0.0.253", "--max-seconds", "60", "--out-dir", str(out), *stub_options, "--",
            sys.executable, RUNTIME, base, *runtime_argv]
    for name, value in runtime.items():
        flag = f"--{name.replace('_', '-')}"
        argv += [flag] if value is True else [flag, str(value)]
    result = CliRunner().invoke(app, argv)
    records = [orjson.loads(line) for line in (out / "certification.jsonl").read_text().splitlines()]
    statuses = {r["id"]: r for r in records if r["record"] == "requirement"}
    har = orjson.loads((out / "stub.har").read_bytes())
    return result, statuses, records[-1], har


def codes(record):
    return {f["code"] for f in record["findings"]}


def test_a_fast_correct_runtime_is_certified(tmp_path):
    result, statuses, footer, _ = run_stub(tmp_path, stop_renewing="first")
    assert result.exit_code == 0, result.output
    assert footer["verdict"] == "certified"
    # it never renewed: the run ended within its lease, which is no gap
    renew = statuses[P + "RENEW-REQUEST-SCHEMA"]
    assert renew["status"] == "not_exercised" and renew["exercise"] == "optional"
    assert statuses[P + "LEASE-KEPT"]["status"] == "pass"
    assert P + "RENEW-REQUEST-SCHEMA" not in footer["blocking"]


def test_the_race_scenario_fails_the_late_stopping_runtime(tmp_path):
    result, statuses, footer, har = run_stub(tmp_path, "--scenario", "race", stop_renewing="late")
    assert result.exit_code == 1, result.output
    assert footer["verdict"] == "not certified"
    record = statuses[P + "NO-RENEW-AFTER-TERMINAL"]
    assert record["status"] == "fail" and codes(record) == {"XOPC_NO_RENEW_AFTER_TERMINAL"}
    assert footer["blocking"] == [P + "NO-RENEW-AFTER-TERMINAL"]
    # the HAR has the conversation's order: the renewals sent while the terminal event waited come after it
    paths = [e["request"]["url"].rsplit("/agent", 1)[-1] for e in har["log"]["entries"]]
    terminal = next(i for i, e in enumerate(har["log"]["entries"]) if "xopc.run.succeeded" in
                    e["request"].get("postData", {}).get("text", ""))
    assert any(p.endswith("/renew") for p in paths[terminal + 1:])


def test_the_race_scenario_certifies_a_runtime_that_stops_renewing_first(tmp_path):
    result, statuses, _footer, har = run_stub(tmp_path, "--scenario", "race", stop_renewing="first")
    assert result.exit_code == 0, result.output
    assert statuses[P + "NO-RENEW-AFTER-TERMINAL"]["status"] == "pass"
    # the same delays were in force: the terminal event's answer took the scenario's 2.5 s
    terminal = next(e for e in har["log"]["entries"]
                    if "xopc.run.succeeded" in e["request"].get("postData", {}).get("text", ""))
    assert terminal["time"] >= 2400


def test_a_runtime_with_a_base_path_completes_its_run(tmp_path):
    result, statuses, _footer, har = run_stub(tmp_path, base="{url}/tenant/a/", stop_renewing="first", heartbeat=True)
    assert result.exit_code == 0, result.output
    urls = [e["request"]["url"] for e in har["log"]["entries"]]
    assert urls[0].endswith("/tenant/a/.well-known/xopc-platform")
    assert all("/tenant/a/agent/" in u for u in urls[1:]) and len(urls) >= 5
    assert statuses[P + "RUN-LIFECYCLE"]["status"] == "pass"
    assert statuses[P + "HEARTBEAT-REQUEST-SCHEMA"]["status"] == "pass"


@pytest.mark.parametrize(("variant", "verdict"), [("never", "not certified"), ("first", "certified")])
def test_a_slow_run_must_renew_its_lease(tmp_path, variant, verdict):
    result, statuses, footer, _ = run_stub(tmp_path, "--lease-seconds", "2", stop_renewing=variant, work_seconds=2.5)
    assert footer["verdict"] == verdict, result.output
    kept = statuses[P + "LEASE-KEPT"]
    if variant == "never":
        assert kept["status"] == "fail" and codes(kept) == {"XOPC_LEASE_KEPT"}
    else:
        assert kept["status"] == "pass"
        assert statuses[P + "RENEW-REQUEST-SCHEMA"]["status"] == "pass"  # exercised: it renewed


def test_heartbeat_is_no_longer_a_gap_but_still_judged_when_sent(tmp_path):
    """`exercise: optional` holds no verdict back when the kind is not sent, and fails when what is sent is wrong."""
    from wirecheck.certify.pipeline import certify_captures
    from wirecheck.contracts import load_registry

    release = load_registry().load("xopc@0.0.253")
    _, _, _, har = run_stub(tmp_path, stop_renewing="first", heartbeat=True)
    for entry in har["log"]["entries"]:
        if entry["request"]["url"].endswith("/heartbeat"):
            entry["request"]["postData"]["text"] = '{"leaseSeconds": "thirty"}'
    broken = tmp_path / "broken.har"
    broken.write_bytes(orjson.dumps(har))
    cert = certify_captures(release, [broken], role="runtime")
    result = next(r for r in cert.results if r.requirement.id == P + "HEARTBEAT-REQUEST-SCHEMA")
    assert result.status == "fail" and not cert.passed


def _said(statuses: dict) -> list[str]:
    return sorted(rid for rid, record in statuses.items() if record["status"] == "fail")


def test_every_recorded_runtime_has_its_har():
    assert sorted(p.name for p in TWINS.iterdir() if p.is_dir()) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_runtime_under_the_stub_certifies_as_recorded(tmp_path, name):
    expected = EXPECTED[name]
    result, statuses, footer, har = run_stub(tmp_path, *expected["stub"], runtime_argv=tuple(expected["runtime"]))
    assert (footer["verdict"], _said(statuses)) == (expected["verdict"], expected["failed"]), result.output
    assert result.exit_code == (0 if expected["verdict"] == "certified" else 1)
    # nothing the stub answered of its own is held against anyone: no finding on a response of the stub's
    marked = {f"/log/entries/{i}/response" for i, e in enumerate(har["log"]["entries"]) if "_wirecheck" in e}
    assert marked == {f"/log/entries/{i}/response" for i, e in enumerate(har["log"]["entries"])
                      if e["response"]["status"] >= 400 or e["response"]["status"] == 0}
    assert not [f for r in statuses.values() for f in r["findings"]
                if any(str(f.get("where", "")).endswith(at) for at in marked)]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_recorded_runtime_replays_as_recorded(name):
    from wirecheck.certify.pipeline import certify_captures
    from wirecheck.check.engine import CheckOptions
    from wirecheck.contracts import load_registry

    # the stub's HAR holds everything the runtime sent (`wirecheck certify --whole`, as the stub certifies it)
    cert = certify_captures(load_registry().load("xopc@0.0.253"), [TWINS / name / "stub.har"], role="runtime",
                            options=CheckOptions(whole=True))
    failed = sorted(r.requirement.id for r in cert.results if r.status == "fail")
    assert (cert.verdict, failed) == (EXPECTED[name]["verdict"], EXPECTED[name]["failed"])


def _events(name: str) -> list[tuple[str, int, object]]:
    """(route, status, event type or cancelRequested) of each recorded exchange after discovery."""
    entries = orjson.loads((TWINS / name / "stub.har").read_bytes())["log"]["entries"]
    said = []
    for e in entries[1:]:
        route = e["request"]["url"].rsplit("/agent/", 1)[-1]
        body = orjson.loads(e["request"].get("postData", {}).get("text") or "null") or {}
        answer = orjson.loads(e["response"]["content"].get("text") or "null") or {}
        what = body.get("event", {}).get("type") or answer.get("cancelRequested")
        said.append((route, e["response"]["status"], what))
    return said


def test_the_recordings_show_the_behaviour_each_runtime_is_named_for():
    started, succeeded = "xopc.run.started", "xopc.run.succeeded"
    assert _events("retry-503")[:4] == [("lease", 200, None), ("events", 503, started), ("events", 200, started),
                                        ("events", 200, succeeded)]
    assert _events("exit-on-503") == [("lease", 200, None), ("events", 503, started)]
    assert _events("renew-run-id")[2:4] == [("commands/wirecheck-run-1/renew", 404, None),
                                            ("events", 200, "xopc.run.failed")]
    assert _events("ignore-cancel")[2:] == [("commands/wirecheck-command-1/renew", 200, True)] * 4 + [
        ("events", 200, succeeded), ("lease", 204, None)]
    assert _events("honour-cancel")[2:] == [("commands/wirecheck-command-1/renew", 200, True),
                                            ("events", 200, "xopc.run.cancelled"), ("lease", 204, None)]
