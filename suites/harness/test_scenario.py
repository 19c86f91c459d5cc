"""Scenario files: the shipped ones load; broken ones are located; `expect` matching is a subset match."""

from __future__ import annotations

import pytest

from wirecheck.contracts import ContractError
from wirecheck.harness.runner import SHIPPED_SCENARIOS, find_scenario, shipped_scenarios
from wirecheck.harness.scenario import load_scenario, matches


@pytest.mark.parametrize("name", shipped_scenarios())
def test_shipped_scenarios_load(name):
    scenario = load_scenario(find_scenario(name))
    assert scenario.harness_role == "sdk" and scenario.implementation_role == "cli"
    assert scenario.steps[-1].action == "wait_exit"
    assert any(step.action == "expect" for step in scenario.steps)


def test_shipped_scenarios_name_releases_that_exist():
    from wirecheck.contracts import load_registry

    registry = load_registry()
    for name in shipped_scenarios():
        scenario = load_scenario(SHIPPED_SCENARIOS / f"{name}.yaml")
        if scenario.contract:
            release = registry.load(scenario.contract)
            assert {scenario.harness_role, scenario.implementation_role} <= set(release.roles)


@pytest.mark.parametrize(
    ("text", "pointer", "message"),
    [
        ("steps: []", "/scenario", "expected `scenario: 1`"),
        ("scenario: 1\nroles: {harness: sdk}\nsteps: [{close_stdin: true}]", "/roles", "implementation"),
        ("scenario: 1\nroles: {harness: a, implementation: b}\nsteps: []", "/steps", "non-empty"),
        ("scenario: 1\nroles: {harness: a, implementation: b}\nsteps: [{shout: 1}]", "/steps/0", "one of send"),
        ("scenario: 1\nroles: {harness: a, implementation: b}\nsteps: [{send: hi}]", "/steps/0/send", "JSON object"),
        ("scenario: 1\nroles: {harness: a, implementation: b}\nsteps: [{expect: {type: x}}]", "/steps/0/expect",
         "match"),
        ("scenario: 1\nroles: {harness: a, implementation: b}\ntimeout: -1\nsteps: [{close_stdin: true}]",
         "/timeout", "positive"),
        ("scenario: 1\nroles: {harness: a, implementation: b}\nsteps: [{sleep: -2}]", "/steps/0/sleep", "seconds"),
    ],
)
def test_broken_scenarios_are_located(tmp_path, text, pointer, message):
    path = tmp_path / "s.yaml"
    path.write_text(text)
    with pytest.raises(ContractError) as info:
        load_scenario(path)
    assert any(p.pointer == pointer and message in p.message and p.file == str(path) for p in info.value.problems)


def test_matches_is_a_recursive_subset_match():
    value = {"type": "control_response", "response": {"request_id": "r1", "subtype": "success"}, "n": 1}
    assert matches({"type": "control_response"}, value)
    assert matches({"response": {"request_id": "r1"}}, value)
    assert not matches({"response": {"request_id": "r2"}}, value)
    assert not matches({"missing": None}, value)
    assert matches({"n": 1.0}, value) and not matches({"n": True}, value)
    assert not matches({"type": "control_response"}, [value])
    assert matches({}, value)
