"""The live tiers' evidence, replayed: every capture a live tier recorded (fixtures/live/<cli>@<version>/, written by
`python -m wirecheck.harness.live CLI --record fixtures/live`, run by `nox -s live-claude-code`, `live-opencode` and
`certify-qodercli`) is certified again against each contract the tier certified it against, with the run's outcome
the tier recorded (provenance.yaml; a group row's runs together), and must say what the tier recorded
(expected.yaml); each says where it came from (provenance.yaml). No Node, no network."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
import yaml

from wirecheck.harness.live import (
    captures_of,
    certify_capture,
    load_plan,
    recorded_outcome,
    release_of,
    summary,
    targets_of,
)

LIVE = Path(__file__).parents[2] / "fixtures" / "live"
PLAN = {r.name: r for releases in load_plan().values() for r in releases}
RECORDED = sorted(p.parent.name for p in LIVE.glob("*@*/expected.yaml"))  # corruptions/: test_corruptions
# releases live.yaml does not list, recorded by `--version X` with the scenarios of the nearest one it does
RELEASES = {**{name: release_of(load_plan()[name.partition("@")[0]], name.partition("@")[2]) for name in RECORDED},
            **PLAN}
CASES = [(name, scenario, contract)
         for name in RECORDED
         for scenario, contracts in yaml.safe_load((LIVE / name / "expected.yaml").read_text()).items()
         for contract in contracts]


def test_every_release_of_the_plan_was_recorded_through_every_scenario():
    assert set(PLAN) <= set(RECORDED)
    for name, release in RELEASES.items():
        expected = yaml.safe_load((LIVE / name / "expected.yaml").read_text())
        assert sorted(expected) == sorted(release.rows), name
        for scenario in release.rows:
            assert sorted(expected[scenario]) == sorted(t.contract for t in targets_of(release, scenario)), \
                (name, scenario)


@pytest.mark.parametrize("name", RECORDED)
def test_each_recording_says_where_it_came_from(name):
    provenance = yaml.safe_load((LIVE / name / "provenance.yaml").read_text())
    release = RELEASES[name]
    assert (provenance["cli"], provenance["version"], provenance["package"]) == (
        release.cli, release.version, release.package)
    # a release live.yaml does not list says whose scenarios it ran, and is labelled by its own version throughout
    assert provenance.get("scenarios_of", "").startswith(f"{release.cli}@{release.based_on} ") == (
        release.based_on is not None)
    assert len(provenance["executable_sha256"]) == 64 and provenance["recorded"]
    for scenario in (*release.scenarios, *release.sessions):
        entry = provenance["scenarios"][scenario]
        assert entry["command"][0] == Path(release.executable or provenance["executable"]).name, entry
        if release.based_on is None:  # a recorded release runs its scenarios well; another may fail them
            assert (entry["run"]["ok"], entry["run"]["heard"], entry["run"]["problem"]) == (True, True, None), entry
        capture = LIVE / name / f"{scenario}.framed.ndjson"
        assert orjson.loads(capture.read_bytes().splitlines()[0]) == {"wirecheck_capture": 1,
                                                                       "framing": "directed"}


@pytest.mark.parametrize(("name", "scenario", "contract"), CASES)
def test_a_recorded_capture_certifies_as_the_live_tier_said(name, scenario, contract):
    release = RELEASES[name]
    target = next(t for t in targets_of(release, scenario) if t.contract == contract)
    expected = yaml.safe_load((LIVE / name / "expected.yaml").read_text())[scenario][contract]
    outcome = recorded_outcome(yaml.safe_load((LIVE / name / "provenance.yaml").read_text()), release, scenario)
    assert summary(certify_capture(target, captures_of(LIVE / name, release, scenario), {"outcome": outcome})) \
        == expected


def test_the_live_plan_is_read_by_the_one_yaml_loader(tmp_path):
    """live.yaml was read with yaml.safe_load: a NaN (or an alias bomb) went through unnoticed (issue 41, 1)."""
    from wirecheck.yaml_lines import YamlFileError

    plan = tmp_path / "live.yaml"
    plan.write_text("clis:\n  x:\n    - {version: .nan, executable: x, scenarios: [], certify: []}\n")
    with pytest.raises(YamlFileError, match=r"line 3, column 17 \(/clis/x/0/version\): \.nan is not a JSON number"):
        load_plan(plan)


def test_a_target_naming_its_scenarios_certifies_only_theirs():
    """Claude Code's stream-json runs are no single-JSON results, nor what Navarch reads (issue 38 item 1): the
    targets of live.yaml that name scenarios certify those alone, one by one, and no group row."""
    from wirecheck.harness.live import Release, Target

    claude = PLAN["claude-code@2.1.332"]
    assert [t.contract for t in targets_of(claude, "claude-stream-tool")] == ["claude-code-stream@2.1.332"]
    assert "claude-code-stream@2.1.332" not in [t.contract for t in targets_of(claude, "claude-print-tool")]
    assert len(targets_of(claude, "claude-print-tool")) == 3
    everyone, only_a = Target("x@1", "cli"), Target("y@1", "cli", scenarios=("a",))
    grouped = Release("x", "1", "x", ("a", "b"), (everyone, only_a), together=True)
    assert targets_of(grouped, "b") == (everyone,)
    assert targets_of(grouped, "all scenarios") == (everyone,)


def test_a_target_naming_a_scenario_its_release_lacks_is_refused(tmp_path):
    plan = tmp_path / "live.yaml"
    plan.write_text("clis:\n  x:\n    - {version: '1', executable: x, scenarios: [a],\n"
                    "       certify: [{contract: y@1, role: cli, scenarios: [a, b]}]}\n")
    with pytest.raises(ValueError, match=r"x@1: the target y@1 names b, not among its scenarios"):
        load_plan(plan)


@pytest.mark.parametrize("name", ["codex@0.169.0", "codex@0.171.0"])
def test_codex_fails_on_its_duplicate_id_alone(name, tmp_path):
    """live-codex is NOT CERTIFIED on one real defect: every web_search item carries the key `id` twice (the item's
    and the search's; JSON.parse keeps the last, so SDK users never see the item id). The same recorded runs with
    only that second `id` removed certify, every other MUST passed, out of scope or need not be sent: no other
    reason holds the certificate back, and the finding is that defect's."""
    import re

    release = RELEASES[name]
    outcome = recorded_outcome(yaml.safe_load((LIVE / name / "provenance.yaml").read_text()), release,
                               "all scenarios")
    twice = re.compile(rb'("id\\?":\\?"item_\d+\\?",\\?"type\\?":\\?"web_search\\?"),\\?"id\\?":\\?"ws_[^"\\]*\\?"')
    removed = 0
    for capture in (LIVE / name).glob("*.framed.ndjson"):
        text, n = twice.subn(rb"\1", capture.read_bytes())
        removed += n
        (tmp_path / capture.name).write_bytes(text)
    assert removed >= 2  # started and completed
    target = targets_of(release, "all scenarios")[0]
    real = summary(certify_capture(target, captures_of(LIVE / name, release, "all scenarios"), {"outcome": outcome}))
    mended = summary(certify_capture(target, captures_of(tmp_path, release, "all scenarios"), {"outcome": outcome}))
    assert (real["verdict"], real["must_by_status"]["fail"]) == ("not certified", ["CODEX-EXEC-0.169.0-WELL-FORMED"])
    assert mended["verdict"] == "certified", mended["must_by_status"]
    assert mended["must"]["passed"] == real["must"]["passed"] + 1
