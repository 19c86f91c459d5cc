"""Scenarios that hold a real session: values bound from one received message go into later ones. Run against a
fake ACP agent and client (suites/harness/fake_acp.py) that behave like the SDK 1.9.0 examples; the real examples
are run by the live tier (`nox -s certify-acp`) and replayed from their captures in test_acp_recorded.py."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import orjson
import pytest

from wirecheck.harness.runner import find_scenario, run_scenario
from wirecheck.harness.scenario import Step, load_scenario

FAKE = str(Path(__file__).parent / "fake_acp.py")


def run(tmp_path, role, scenario=None):
    scenario = scenario or load_scenario(find_scenario(f"acp-{role}-session"))
    capture = tmp_path / f"{role}.framed.ndjson"
    record = run_scenario([sys.executable, FAKE, "--role", role], dataclasses.replace(scenario, timeout=30),
                          capture)
    frames = [orjson.loads(line) for line in capture.read_bytes().splitlines()[1:]]
    return record, [(f["from"], f["message"]) for f in frames if "from" in f]  # the last: how it ended


def test_the_agent_session_carries_the_returned_session_id_and_answers_the_agents_own_request(tmp_path):
    record, frames = run(tmp_path, "agent")
    assert record.ok, record.as_run()["outcome"]
    session = next(m["result"]["sessionId"] for who, m in frames if who == "agent" and m.get("id") == 2)
    prompts = [m for who, m in frames if who == "client" and m.get("method") == "session/prompt"]
    assert [p["params"]["sessionId"] for p in prompts] == [session, session]  # the value the agent returned
    cancel = next(m for who, m in frames if who == "client" and m.get("method") == "session/cancel")
    assert cancel["params"]["sessionId"] == session
    asked = next(m for who, m in frames if who == "agent" and m.get("method") == "session/request_permission")
    answer = next(m for who, m in frames if who == "client" and "result" in m and "outcome" in m["result"])
    assert answer["id"] == asked["id"] and answer["result"]["outcome"]["optionId"] == "allow"
    ends = {m["id"]: m["result"]["stopReason"] for who, m in frames if who == "agent" and "stopReason" in
            m.get("result", {})}
    assert ends == {3: "end_turn", 4: "cancelled"}
    step = record.steps[3]
    assert step.detail.endswith(f'bound session = "{session}"'), step.detail


def test_without_the_binding_the_session_cannot_be_held(tmp_path):
    """The same scenario with the sessionId written in the file: the agent does not know it, the turn never ends."""
    scenario = load_scenario(find_scenario("acp-agent-session"))
    fixed = [dataclasses.replace(s, value=_fixed(s.value), timeout=3 if s.action == "expect" else None)
             if s.action in ("send", "expect") else s for s in scenario.steps]
    record, _ = run(tmp_path, "agent", dataclasses.replace(scenario, steps=tuple(fixed)))
    failed = next(s for s in record.steps if s.status == "failed")
    assert failed.index == 5 and "no line matching" in failed.detail  # no session/update for an unknown session


def _fixed(value):
    if value == "${session}":
        return "a-session-id-written-in-the-file"
    if isinstance(value, dict):
        return {k: _fixed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_fixed(v) for v in value]
    return value


def test_a_bind_that_finds_nothing_fails_its_step(tmp_path):
    scenario = load_scenario(find_scenario("acp-agent-session"))
    steps = list(scenario.steps)
    steps[3] = dataclasses.replace(steps[3], binds=(("session", "/result/session_id"),))
    record, _ = run(tmp_path, "agent", dataclasses.replace(scenario, steps=tuple(steps)))
    step = record.steps[3]
    assert step.status == "failed" and "the matching line has no /result/session_id to bind as session" in step.detail
    assert all(s.status == "not_run" for s in record.steps[4:])


def test_the_client_session_answers_each_request_with_its_own_id(tmp_path):
    record, frames = run(tmp_path, "client")
    assert record.ok, record.as_run()["outcome"]
    requests = {m["method"]: m["id"] for who, m in frames if who == "client" and "method" in m}
    answers = {m["id"] for who, m in frames if who == "agent" and "result" in m}
    assert {requests["initialize"], requests["session/new"], requests["session/prompt"]} <= answers
    prompt = next(m for who, m in frames if who == "client" and m.get("method") == "session/prompt")
    assert prompt["params"]["sessionId"] == "wirecheck-session-1"
    assert record.exit_code == 0


@pytest.mark.parametrize("role", ["agent", "client"])
def test_the_shipped_acp_scenarios_name_roles_of_the_release(role):
    from wirecheck.contracts import load_registry

    scenario = load_scenario(find_scenario(f"acp-{role}-session"))
    release = load_registry().load(scenario.contract)
    assert scenario.implementation_role == role and {scenario.harness_role, role} <= set(release.roles)
    assert any(isinstance(s, Step) and s.binds for s in scenario.steps)


ECHO_CWD = ("import json, os, sys\n"
            "for line in sys.stdin:\n"
            "    print(json.dumps({'echo': json.loads(line), 'cwd': os.getcwd()}), flush=True)\n")


def test_a_step_names_the_runs_work_folder_so_a_session_opens_inside_the_scratch(tmp_path):
    """`${work}` in a send is the run's scratch work folder (where the program runs), so an ACP session's cwd is never
    a folder outside the scratch (gemini --acp writes its tool's files where session/new says)."""
    path = tmp_path / "s.yaml"
    path.write_text("scenario: 1\ntitle: t\nroles: {harness: client, implementation: agent}\nsteps:\n"
                    '  - send: {method: session/new, params: {cwd: "${work}", note: "$${work}"}}\n'
                    "  - expect: {match: {echo: {method: session/new}}, bind: {cwd: /cwd}}\n"
                    "  - close_stdin: true\n  - wait_exit: {}\n")
    capture = tmp_path / "c.framed.ndjson"
    record = run_scenario([sys.executable, "-c", ECHO_CWD], load_scenario(path), capture)
    assert record.ok, record.as_run()["outcome"]
    frames = [orjson.loads(line) for line in capture.read_bytes().splitlines()[1:]]
    sent = next(f["message"] for f in frames if f.get("from") == "client")
    echoed = next(f["message"] for f in frames if f.get("from") == "agent")
    assert sent["params"]["cwd"] == echoed["cwd"] and Path(echoed["cwd"]).name == "work"
    assert sent["params"]["note"] == "${work}"  # $${work} stays the literal text


def test_a_step_cannot_name_the_model_url_which_is_no_folder(tmp_path):
    from wirecheck.contracts.errors import ContractError

    path = tmp_path / "s.yaml"
    path.write_text("scenario: 1\ntitle: t\nroles: {harness: client, implementation: agent}\n"
                    'steps: [{send: {url: "${model_url}"}}]\n')
    with pytest.raises(ContractError, match="uses \\$\\{model_url\\}, which no earlier step binds"):
        load_scenario(path)
