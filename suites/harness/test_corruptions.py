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


def _record_module():
    """suites/harness/wrappers/record.py, which wrote expected.yaml: its `today` is what the replay must say again."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("wirecheck_corruption_record", WRAPPERS / "record.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RECORD = _record_module()


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_corrupted_capture_certifies_as_recorded(name):
    case = EXPECTED[name]
    release = PLAN[case["cli"]]
    # per contract: verdict, exit code, what failed, and what fails beyond the healthy recording (fixtures/live/)
    said = RECORD.today(release, case["scenario"], CORPUS / case["capture"], case["run"])
    assert said == case["today"]
    closing = live.release_closing(release, [{"scenario": case["scenario"], "contract": contract, **verdict}
                                             for contract, verdict in said.items()])
    assert case["tier_exit"] == closing.exit_code == worst(v["exit_code"] for v in said.values())


OWN = {"claude-code": "claude-code-print@2.1.332", "opencode": "opencode-run@1.0.0", "qodercli": None}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_corruption_fails_the_requirement_its_behaviour_breaks(name):
    """Issue 37: against the CLI's own contract each wrapper's capture is NOT CERTIFIED naming a requirement the
    healthy run passes; a missing final line feed, which every reader of these streams tolerates, fails the SHOULD
    FINAL-NEWLINE and nothing else."""
    case = EXPECTED[name]
    cli = PLAN[case["cli"]].cli
    own = OWN[cli] or next(iter(case["today"]))  # qodercli: the one contract its row is certified against
    verdict = case["today"][own]
    if Path(case["wrapper"]).stem == "no_final_newline":
        assert verdict["verdict"] == "certified" and [r.rsplit("-", 2)[-2:] for r in verdict["beyond_healthy"]] == [
            ["FINAL", "NEWLINE"]]
    else:
        assert verdict["verdict"] == "not certified" and verdict["exit_code"] == 1 and verdict["beyond_healthy"], name
        assert case["tier_exit"] == 1
