"""The corruption corpus, replayed: each wrapper of suites/harness/wrappers/ ran in front of a real CLI through its
live tier (suites/harness/wrappers/record.py) and corrupted its stdout in one way a regression could; the capture it
made is in fixtures/live/corruptions/, and expected.yaml says what today's certification says of it, with the run's
outcome (a hang, an exit status the scenario does not end with). Each capture certified again, with that outcome,
must say the same: verdict, exit code and the requirements that failed, per contract; and the tier's exit code is the
worst of them. Where `today` is CERTIFIED, issue 37's behaviour obligations are still to come (README.md there)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from wirecheck.harness import live
from wirecheck.harness.closing import worst

HEALTHY = Path(__file__).resolve().parents[2] / "fixtures" / "live"
CORPUS = HEALTHY / "corruptions"
EXPECTED = yaml.safe_load((CORPUS / "expected.yaml").read_text())
WRAPPERS = Path(__file__).resolve().parent / "wrappers"
PLAN = {r.name: r for releases in live.load_plan().values() for r in releases}


def test_every_wrapper_is_recorded_and_every_recording_has_its_wrapper():
    recorded = {Path(case["wrapper"]).stem for case in EXPECTED.values()}
    assert recorded == {p.stem for p in WRAPPERS.glob("*.py")} - {"corrupt", "record"}
    assert sorted(p.relative_to(CORPUS).as_posix() for p in CORPUS.glob("*/*.framed.ndjson")) == \
        sorted(case["capture"] for case in EXPECTED.values())


def judged(release: live.Release, scenario: str, capture: Path, outcome: dict) -> dict:
    said = {}
    for target in live.targets_of(release, scenario):
        cert = live.certify_capture(target, capture, {"outcome": outcome})
        said[target.contract] = {"verdict": cert.verdict, "exit_code": cert.exit_code,
                                 "failed": sorted(r.requirement.id for r in cert.results if r.status == "fail")}
    return said


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_corrupted_capture_certifies_as_recorded(name):
    case = EXPECTED[name]
    release = PLAN[case["cli"]]
    said = judged(release, case["scenario"], CORPUS / case["capture"], case["run"])
    # what fails beyond what the healthy recording of the same scenario fails (fixtures/live/)
    provenance = yaml.safe_load((HEALTHY / release.name / "provenance.yaml").read_text())
    healthy = judged(release, case["scenario"], HEALTHY / release.name / f"{case['scenario']}.framed.ndjson",
                     live.recorded_outcome(provenance, release, case["scenario"]))
    for contract, verdict in said.items():
        verdict["beyond_healthy"] = sorted(set(verdict["failed"]) - set(healthy[contract]["failed"]))
    assert said == case["today"]
    closing = live.release_closing(release, [{"scenario": case["scenario"], "contract": contract, **verdict}
                                             for contract, verdict in said.items()])
    assert case["tier_exit"] == closing.exit_code == worst(v["exit_code"] for v in said.values())
