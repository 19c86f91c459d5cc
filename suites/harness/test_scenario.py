"""Scenario files: the shipped ones load; broken ones are located; `expect` matching is a subset match."""

from __future__ import annotations

import pytest

from wirecheck.contracts import ContractError
from wirecheck.harness.runner import SHIPPED_SCENARIOS, find_scenario, shipped_scenarios
from wirecheck.harness.scenario import DEFAULT_STEP_TIMEOUTS, load_scenario, matches, with_step_timeouts


@pytest.mark.parametrize("name", shipped_scenarios())
def test_shipped_scenarios_load(name):
    scenario = load_scenario(find_scenario(name))
    assert scenario.contract is not None and scenario.steps[-1].action == "wait_exit"
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
        ("scenario: 1\nroles: {harness: a, implementation: b}\nargv: [\"${modelurl}\"]\nsteps: [{close_stdin: true}]",
         "/argv/0", "unknown placeholder ${modelurl}; known: ${model_url}"),
        ("scenario: 1\nroles: {harness: a, implementation: b}\nenv: {A: 1}\nsteps: [{close_stdin: true}]",
         "/env", "expected {NAME: text}"),
        ("scenario: 1\nroles: {harness: a, implementation: b}\nfiles: {../x: a}\nsteps: [{close_stdin: true}]",
         "/files/..~1x", "a path inside the scratch folders"),
        ("scenario: 1\nroles: {harness: a, implementation: b}\nfiles: {work/../../x: a}\nsteps: [{close_stdin: true}]",
         "/files/work~1..~1..~1x", "no empty, . or .. part"),
        # a ValueError (embedded null byte) while the run wrote its files, its scratch folder left (issue 41, 8)
        ('scenario: 1\nroles: {harness: a, implementation: b}\nfiles: {"work/a\\0b": a}\nsteps: [{close_stdin: true}]',
         "/files/work~1a\0b", "and no NUL"),
        ("scenario: 1\nroles: {harness: a, implementation: b}\nfiles: {work/a.json: {u: \"${nope}\"}}\n"
         "steps: [{close_stdin: true}]", "/files/work~1a.json", "unknown placeholder ${nope}"),
        ("scenario: 1\nroles: {harness: a, implementation: b}\nmodel: {api: openai-chat, turns: [{text: 1}]}\n"
         "steps: [{close_stdin: true}]", "/model/turns/0/text", "expected a string"),
        ("scenario: 1\nroles: {harness: a, implementation: b}\nstep_timeouts: 5\nsteps: [{close_stdin: true}]",
         "/step_timeouts", "expected {expect: seconds, wait_exit: seconds}"),
        ("scenario: 1\nroles: {harness: a, implementation: b}\nstep_timeouts: {sleep: 5}\nsteps: [{sleep: 1}]",
         "/step_timeouts/sleep", "unknown action 'sleep'"),
        ("scenario: 1\nroles: {harness: a, implementation: b}\nstep_timeouts: {wait_exit: 0}\n"
         "steps: [{wait_exit: true}]", "/step_timeouts/wait_exit", "positive"),
    ],
)
def test_broken_scenarios_are_located(tmp_path, text, pointer, message):
    assert_located(tmp_path / "s.yaml", text, pointer, message)


def assert_located(path, text, pointer, message):
    """Loading `text` from `path` raises a ContractError with a problem at `pointer` whose message holds `message`."""
    path.write_text(text)
    with pytest.raises(ContractError) as info:
        load_scenario(path)
    found = [(p.pointer, p.message) for p in info.value.problems]
    assert any(p.pointer == pointer and message in p.message and p.file == str(path) for p in info.value.problems), \
        found


def test_matches_is_a_recursive_subset_match():
    value = {"type": "control_response", "response": {"request_id": "r1", "subtype": "success"}, "n": 1}
    assert matches({"type": "control_response"}, value)
    assert matches({"response": {"request_id": "r1"}}, value)
    assert not matches({"response": {"request_id": "r2"}}, value)
    assert not matches({"missing": None}, value)
    assert matches({"n": 1.0}, value) and not matches({"n": True}, value)
    assert not matches({"type": "control_response"}, [value])
    assert matches({}, value)


HEAD = "scenario: 1\nroles: {harness: sdk, implementation: cli}\n"


@pytest.mark.parametrize(
    ("text", "pointer", "message"),
    [
        # wrong types where a number of seconds belongs: located, never a ValueError from float()
        ("steps: [{expect: {match: {a: 1}, timeout: abc}}]", "/steps/0/expect/timeout", "found 'abc'"),
        ("steps: [{wait_exit: {timeout: x}}]", "/steps/0/wait_exit/timeout", "positive number of seconds"),
        ("steps: [{expect: {match: {a: 1}, timeout: -5}}]", "/steps/0/expect/timeout", "positive"),
        ("steps: [{expect: {match: {a: 1}, timeout: 0}}]", "/steps/0/expect/timeout", "positive"),
        ("steps: [{wait_exit: {timeout: -1}}]", "/steps/0/wait_exit/timeout", "positive"),
        # infinite, NaN, boolean or absurd timeouts would hang the run or crash time.sleep (NaN and infinities are
        # refused where the YAML is read, as in every file: yaml_lines)
        ("steps: [{expect: {match: {a: 1}, timeout: 1e400}}]", "/steps/0/expect/timeout", "at most 86400"),
        ("steps: [{sleep: .inf}]", "", "(/steps/0/sleep): .inf is not a JSON number"),
        ("steps: [{sleep: .nan}]", "", "(/steps/0/sleep): .nan is not a JSON number"),
        ("steps: [{sleep: 1e300}]", "/steps/0/sleep", "at most"),
        ("timeout: .nan\nsteps: [{close_stdin: true}]", "", "(/timeout): .nan is not a JSON number"),
        ("timeout: .inf\nsteps: [{close_stdin: true}]", "", "(/timeout): .inf is not a JSON number"),
        ("timeout: true\nsteps: [{close_stdin: true}]", "/timeout", "found True"),
        ("timeout: 1e12\nsteps: [{close_stdin: true}]", "/timeout", "at most"),
        # other wrong shapes
        ("argv: 5\nsteps: [{close_stdin: true}]", "/argv", "list of strings"),
        ("title: [1]\nsteps: [{close_stdin: true}]", "/title", "string"),
        ("timout: 5\nsteps: [{close_stdin: true}]", "/timout", "unknown key 'timout'"),
        ("steps: [{expect: {match: {a: 1}, timout: 5}}]", "/steps/0/expect/timout", "unknown key"),
        ("steps: [{wait_exit: 5}]", "/steps/0/wait_exit", "expected true or {timeout: seconds, status: N}"),
        ("steps: [{wait_exit: {status: 256}}]", "/steps/0/wait_exit/status", "exit status 0-255, found 256"),
        ("steps: [{wait_exit: {status: true}}]", "/steps/0/wait_exit/status", "exit status 0-255, found True"),
        ("steps: [{wait_exit: {status: '0'}}]", "/steps/0/wait_exit/status", "exit status 0-255"),
        ("steps: [{close_stdin: false}]", "/steps/0/close_stdin", "expected true"),
        ("steps: [null]", "/steps/0", "found None"),
        # values YAML builds that JSON cannot hold: located, not a TypeError while sending
        ("steps: [{send: {a: 123456789012345678901234567890}}]", None, None),
        # (a YAML set or binary data is refused where it is written, as in every YAML file: yaml_lines)
        ("steps: [{send: {a: !!binary aGk=}}]", "",
         "line 3, column 20 (/steps/0/send/a): YAML binary data (!!binary) is not a JSON"),
        ("steps: [{send: {a: !!set {x}}}]", "",
         "line 3, column 20 (/steps/0/send/a): a YAML set (!!set) is not a JSON value"),
        ("steps: [{send: {a: .nan}}]", "", "(/steps/0/send/a): .nan is not a JSON number"),
        ("steps: [{send: {a: 2024-01-01}}]", "/steps/0/send", "quote dates"),
        ("steps: [{expect: {match: {a: !!binary aGk=}}}]", "", "(!!binary) is not a JSON value"),
        # one step writes one line
        ('steps: [{send_raw: "a\\nb"}]', "/steps/0/send_raw", "line break"),
        ('steps: [{send_raw: "a\\rb"}]', "/steps/0/send_raw", "line break"),
        # text that has no UTF-8 bytes: located, not a UnicodeEncodeError (exit 3) while sending
        ('steps: [{send_raw: "a\\ud800b"}]', "/steps/0/send_raw", "not UTF-8 text"),
    ],
)
def test_hostile_scenarios_are_located_not_raised(tmp_path, text, pointer, message):
    path = tmp_path / "s.yaml"
    if pointer is None:  # valid: a big integer is JSON, and is sent as written
        from wirecheck.harness.scenario import encode_message

        path.write_text(HEAD + text + "\n")
        step = load_scenario(path).steps[0]
        assert encode_message(step.value) == b'{"a":123456789012345678901234567890}'
        return
    assert_located(path, HEAD + text + "\n", pointer, message)


def test_step_problems_name_their_line(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(HEAD + "steps:\n  - close_stdin: true\n  - expect: {match: {a: 1}, timeout: soon}\n")
    with pytest.raises(ContractError) as info:
        load_scenario(path)
    assert info.value.problems[0].line == 5 and "(line 5)" in str(info.value.problems[0])


def test_a_lone_surrogate_in_send_raw_names_its_line(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(HEAD + 'steps:\n  - close_stdin: true\n  - send_raw: "\\ud800"\n')
    with pytest.raises(ContractError) as info:
        load_scenario(path)
    problem = info.value.problems[0]
    assert (problem.file, problem.pointer) == (str(path), "/steps/1/send_raw")
    assert problem.line == 5 and "surrogate" in problem.message


def test_the_same_role_on_both_sides_is_refused(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("scenario: 1\nroles: {harness: cli, implementation: cli}\nsteps: [{close_stdin: true}]\n")
    with pytest.raises(ContractError) as info:
        load_scenario(path)
    assert info.value.problems[0].pointer == "/roles" and "different roles" in info.value.problems[0].message


def test_a_step_limit_comes_from_the_step_else_the_scenario_else_the_default(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("scenario: 1\nroles: {harness: a, implementation: b}\nstep_timeouts: {wait_exit: 45}\nsteps:\n"
                    "  - expect: {match: {type: x}}\n  - expect: {match: {type: y}, timeout: 7}\n"
                    "  - close_stdin: true\n  - wait_exit: true\n  - wait_exit: {timeout: 3}\n")
    scenario = load_scenario(path)
    assert [s.timeout for s in scenario.steps] == [DEFAULT_STEP_TIMEOUTS["expect"], 7.0, None, 45.0, 3.0]
    # --step-timeout: an action overrides every step of it, a number one step
    changed = with_step_timeouts(scenario, {"wait_exit": 90.0, "1": 12.0})
    assert [s.timeout for s in changed.steps] == [12.0, 7.0, None, 90.0, 90.0]
    for key, message in (("3", "step 3 is close_stdin, which has no time limit"),
                         ("6", "expected a step number from 1 to 5"), ("sleep", "expected a step number")):
        with pytest.raises(ValueError, match=message):
            with_step_timeouts(scenario, {key: 1.0})

# Values carried from a received message into later steps (bind + ${name})

SESSION = HEAD.replace("sdk", "client").replace("cli", "agent")


def test_a_bound_value_is_used_whole_in_later_sends_and_expects(tmp_path):
    from wirecheck.harness.scenario import bind_values, fill

    path = tmp_path / "s.yaml"
    path.write_text(SESSION + """steps:
  - expect: {match: {id: 2}, bind: {session: /result/sessionId, first: /result/list/0, all: ""}}
  - send: {id: 3, params: {sessionId: "${session}", again: ["${first}"], literal: "$${session}", text: "a ${session}"}}
  - expect: {match: {params: {sessionId: "${session}"}}}
""")
    first, send, expect = load_scenario(path).steps
    assert first.binds == (("session", "/result/sessionId"), ("first", "/result/list/0"), ("all", ""))
    line = {"id": 2, "result": {"sessionId": "s-9", "list": [{"n": 1}]}}
    values, problem = bind_values(first, line)
    assert problem is None and values == {"session": "s-9", "first": {"n": 1}, "all": line}
    assert fill(send.value, values) == {"id": 3, "params": {"sessionId": "s-9", "again": [{"n": 1}],
                                                            "literal": "${session}", "text": "a ${session}"}}
    assert fill(expect.value, values) == {"params": {"sessionId": "s-9"}}
    assert bind_values(first, {"id": 2, "result": {}}) == ({}, "the matching line has no /result/sessionId to bind "
                                                                "as session")


@pytest.mark.parametrize(
    ("steps", "pointer", "message"),
    [
        ('[{send: {id: "${session}"}}]', "/steps/0/send/id", "uses ${session}, which no earlier step binds"),
        ('[{send: {a: ["${x}"]}}, {expect: {match: {id: 1}, bind: {x: /id}}}]', "/steps/0/send/a/0",
         "no earlier step binds"),
        ('[{expect: {match: {id: "${id}"}, bind: {id: /id}}}]', "/steps/0/expect/match/id",
         "no earlier step binds"),  # an expect binds from the line it matches, not before it
        ("[{expect: {match: {id: 1}, bind: [id]}}]", "/steps/0/expect/bind", "expected {name: /json/pointer"),
        ("[{expect: {match: {id: 1}, bind: {id: result}}}]", "/steps/0/expect/bind/id", "a JSON pointer"),
        ("[{expect: {match: {id: 1}, bind: {id: 3}}}]", "/steps/0/expect/bind/id", "a JSON pointer"),
        ('[{expect: {match: {id: 1}, bind: {"2x": /id}}}]', "/steps/0/expect/bind/2x", "a name is letters"),
        ("[{expect: {match: {id: 1}, bid: {x: /id}}}]", "/steps/0/expect/bid", "expect has match, timeout and bind"),
    ],
)
def test_broken_bindings_are_located(tmp_path, steps, pointer, message):
    assert_located(tmp_path / "s.yaml", SESSION + f"steps: {steps}\n", pointer, message)


def test_a_literal_placeholder_needs_no_binding(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(SESSION + 'steps: [{send: {text: "$${session}"}}]\n')
    assert load_scenario(path).steps[0].value == {"text": "$${session}"}
