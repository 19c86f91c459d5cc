"""Replays what `nox -s live-xopc` recorded: the real xopc worker (xopcai/xopc d5c0989, Node 22.19.0 and 24 from
npm, tsx, zod 4.4.3) under `wirecheck stub` in the normal and the race scenario (fixtures/xopc/0.0.253/live/). Each
HAR is certified again and must give the verdict recorded beside it: the worker is CERTIFIED when answered at once
and NOT CERTIFIED under the race, where it renews a command after reporting its run's end (worker.ts:70 awaits the
terminal report; :79 clears the renewal timer only in `finally`)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
import yaml

from wirecheck.certify.pipeline import certify_captures
from wirecheck.contracts import load_registry

LIVE = Path(__file__).resolve().parents[2] / "fixtures" / "xopc" / "0.0.253" / "live"
RUNS = sorted(p for p in LIVE.iterdir() if p.is_dir())
P = "XOPC-0.0.253-"


@pytest.fixture(scope="module")
def release():
    return load_registry().load("xopc@0.0.253")


def test_the_live_tier_recorded_both_nodes_and_both_scenarios():
    assert [p.name for p in RUNS] == ["node22-normal", "node22-race", "node24-normal", "node24-race"]


@pytest.mark.parametrize("run", RUNS, ids=lambda p: p.name)
def test_a_recorded_run_certifies_as_it_did_live(release, run):
    provenance = yaml.safe_load((run / "provenance.yaml").read_text())
    recorded = [orjson.loads(line) for line in (run / "certification.jsonl").read_text().splitlines()]
    cert = certify_captures(release, [run / "stub.har"], role="runtime")
    assert cert.verdict == recorded[-1]["verdict"] == provenance["verdict"]
    assert sorted(r.requirement.id for r in cert.blocking()) == sorted(recorded[-1]["blocking"])
    assert provenance["source"]["commit"].startswith("d5c0989") and provenance["npm"]["zod"] == "4.4.3"
    assert provenance["node"]["ada"] == {"node22": "2.9.2", "node24": "4.0.0"}[run.name.split("-")[0]]
    entries = orjson.loads((run / "stub.har").read_bytes())["log"]["entries"]
    assert all("/tenant/a/" in e["request"]["url"] for e in entries)  # the worker ran under a base path
    if provenance["scenario"] == "normal":
        assert cert.verdict == "certified"
    else:
        assert cert.verdict == "not certified"
        assert [r.requirement.id for r in cert.blocking()] == [P + "NO-RENEW-AFTER-TERMINAL"]
        failing = next(r for r in cert.results if r.requirement.id == P + "NO-RENEW-AFTER-TERMINAL")
        assert {f.code for f in failing.failures} == {"XOPC_NO_RENEW_AFTER_TERMINAL"} and len(failing.failures) >= 1
