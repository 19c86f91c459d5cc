"""Live runs with a scripted model (harness/endpoint.py): the endpoint is served for the run, the command is pointed
at it through the scenario's files, env and argv placeholders, and what it asked is kept beside the capture."""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
import pytest

from wirecheck.harness.runner import run_scenario
from wirecheck.harness.scenario import load_scenario

FAKE = str(Path(__file__).parent / "fake_agent.py")

HEAD = """scenario: 1
roles: {harness: reader, implementation: claude-code}
timeout: 60
files:
  work/config.json: {url: "${model_url}"}
"""


def run(tmp_path, text, *extra):
    path = tmp_path / "s.yaml"
    path.write_text(HEAD + text)
    capture = tmp_path / "run.framed.ndjson"
    record = run_scenario([sys.executable, FAKE, *extra], load_scenario(path), capture)
    frames = [orjson.loads(line) for line in capture.read_bytes().splitlines()[1:]]
    assert "process" in frames.pop()  # the last line: how the program ended
    results = [frame["message"] for frame in frames]
    return record, results


def har_entries(record):
    return orjson.loads(record.model_evidence.read_bytes())["log"]["entries"]


def test_a_tool_round_trip_against_the_scripted_endpoint(tmp_path):
    record, results = run(tmp_path, """argv: [Create it.]
model:
  api: anthropic-messages
  turns:
    - tool_call: {name: Bash, input: {command: touch x}}
    - {request_contains: tool_result, text: Created.}
steps:
  - expect: {match: {type: result, num_turns: 2, result: Created.}}
  - wait_exit: true
""")
    assert record.ok, record.as_run()
    assert record.argv[-1] == "Create it."  # the scenario's argv follows the command given
    assert results == [{"type": "result", "is_error": False, "num_turns": 2, "result": "Created."}]
    assert record.model_evidence == tmp_path / "run.model.har" and record.model_requests == 2
    entries = har_entries(record)
    assert [e["response"]["status"] for e in entries] == [200, 200]
    assert "tool_result" in entries[1]["request"]["postData"]["text"]
    assert record.as_run()["outcome"]["model"] == {"api": "anthropic-messages", "refused": False, "requests": 2,
                                                   "asides": 0, "evidence": str(tmp_path / "run.model.har")}


def test_a_request_of_another_conversation_is_counted_as_an_aside_in_the_outcome(tmp_path):
    """A CLI's warm-up call (Claude Code 2.0.77's "Warmup") is answered aside and takes no turn; the run's outcome
    says how many there were, so a certificate shows what the model endpoint answered besides the script."""
    record, results = run(tmp_path, """argv: [Say hi.]
model:
  api: anthropic-messages
  conversation: Say hi.
  turns:
    - text: Hi.
steps:
  - expect: {match: {type: result, result: Hi.}}
  - wait_exit: true
""", "--warmup")
    assert record.ok, record.as_run()
    assert results == [{"type": "result", "is_error": False, "num_turns": 1, "result": "Hi."}]  # the turn, not "OK."
    assert record.as_run()["outcome"]["model"]["requests"] == 2
    assert record.as_run()["outcome"]["model"]["asides"] == 1


def test_a_request_the_script_did_not_expect_is_a_problem_of_the_run(tmp_path):
    record, results = run(tmp_path, """argv: [Create it.]
model:
  api: anthropic-messages
  turns:
    - tool_call: {name: Bash, input: {command: touch x}}
steps:
  - expect: {match: {type: result}}
  - wait_exit: true
""")
    assert results == [{"type": "result", "is_error": True, "api_error_status": 500}]
    assert not record.ok
    assert record.problems == ["model request 2 holds 1 answer(s) of the model: the script has no turn for it (1 "
                               "turn(s)): answered 500"]


def test_a_429_reaches_the_command_with_its_headers(tmp_path):
    record, results = run(tmp_path, """model:
  api: anthropic-messages
  turns:
    - error: {status: 429, headers: {retry-after: "30"}}
steps:
  - expect: {match: {type: result, api_error_status: 429}}
  - wait_exit: true
""")
    assert record.ok and results[0]["api_error_status"] == 429
    [entry] = har_entries(record)
    assert {"name": "retry-after", "value": "30"} in entry["response"]["headers"]


def test_a_refused_endpoint_refuses_the_connection(tmp_path):
    record, results = run(tmp_path, """model: {api: anthropic-messages, refused: true}
steps:
  - expect: {match: {type: result, is_error: true}}
  - wait_exit: true
""")
    assert record.ok and "refused" in results[0]["result"].lower()
    assert record.model_evidence is None and record.model_requests == 0


@pytest.mark.parametrize(("variable", "expected"), [("FAKE_HOME_FILE", "{home}/x"), ("ANSWER", "42")])
def test_env_placeholders_are_filled_and_the_callers_env_wins(tmp_path, variable, expected):
    path = tmp_path / "s.yaml"
    path.write_text(HEAD + f"""argv: [--env, {variable}]
env: {{FAKE_HOME_FILE: "${{home}}/x", ANSWER: "41"}}
steps:
  - expect: {{match: {{type: result}}}}
  - wait_exit: true
""")
    capture = tmp_path / "run.framed.ndjson"
    seen = []
    record = run_scenario([sys.executable, FAKE], load_scenario(path), capture, env={"ANSWER": "42"})
    seen = orjson.loads(capture.read_bytes().splitlines()[1])["message"]["env"]
    assert record.ok
    if "{home}" in expected:  # the scratch home of that run (removed since)
        assert seen.endswith("/home/x") and "wirecheck-run-" in seen
    else:
        assert seen == expected


def test_fake_responses_are_written_for_the_command_and_kept(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("""scenario: 1
roles: {harness: sdk, implementation: cli}
argv: [-c, "import sys; print(open(sys.argv[1]).read().strip())", "${model_file}"]
model:
  api: qoder-fake-responses
  turns: [{text: hi}]
steps:
  - expect: {match: {method: generateContentStream}}
  - wait_exit: true
""")
    capture = tmp_path / "q.framed.ndjson"
    record = run_scenario([sys.executable], load_scenario(path), capture)
    assert record.ok, record.as_run()
    assert record.model_evidence == tmp_path / "q.model.jsonl"
    line = orjson.loads(record.model_evidence.read_bytes())
    assert line["response"][0]["candidates"][0]["content"]["parts"] == [{"text": "hi"}]


def test_the_runs_secrets_are_cut_from_the_capture_and_the_model_har(tmp_path):
    """A value handed to the command (`certify --run --env`, `--pass-env`) that it echoes, or sends its model, is cut
    from the capture (its copy too) and the model's HAR, and the credential header it sends is redacted (issue 41,
    2 and 4); the capture stays JSON, one frame a line."""
    from wirecheck.stub.redaction import Secrets

    secret = "ghs_S3cretOfTheRun0123456789"
    path = tmp_path / "s.yaml"
    path.write_text(HEAD + """argv: [--env, GITHUB_TOKEN]
steps:
  - expect: {match: {type: result}}
  - wait_exit: true
""")
    capture, copy = tmp_path / "run.framed.ndjson", tmp_path / "copy.framed.ndjson"
    record = run_scenario([sys.executable, FAKE], load_scenario(path), capture, env={"GITHUB_TOKEN": secret},
                          secrets=Secrets([secret]), copy=copy)
    assert record.ok, record.as_run()
    for written in (capture, copy):
        frames = [orjson.loads(line) for line in written.read_bytes().splitlines()]
        assert frames[1]["message"] == {"type": "result", "env": "ghs_<redacted 24 chars>"}
        assert secret.encode() not in written.read_bytes()
    path.write_text(HEAD + f"""argv: [Say {secret} back.]
model:
  api: anthropic-messages
  turns: [{{text: hi}}]
steps:
  - expect: {{match: {{type: result}}}}
  - wait_exit: true
""")
    record = run_scenario([sys.executable, FAKE], load_scenario(path), capture, secrets=Secrets([secret]))
    asked = har_entries(record)[0]["request"]["postData"]["text"]
    assert "Say ghs_<redacted 24 chars> back." in asked and secret not in record.model_evidence.read_text()


def test_a_stderr_tail_that_starts_inside_a_secret_quotes_none_of_it(tmp_path):
    """The run keeps the last 4 KiB of the program's stderr to quote: when they start inside a secret, its end
    would be quoted, which no cut can recognise; the partial first line is dropped instead."""
    from wirecheck.stub.redaction import Secrets

    secret = "ghs_S3cretOfTheRun0123456789"
    padding = 4096 - len("\nlast words\n") - len(secret) // 2
    program = (f"import sys; sys.stderr.write('a' * 5000 + {secret!r} + 'b' * {padding} + '\\nlast words\\n'); "
               "print('{\"type\": \"result\"}')")
    path = tmp_path / "s.yaml"
    path.write_text(HEAD + f"argv: [-c, {orjson.dumps(program).decode()}]\n"
                           "steps:\n  - expect: {match: {type: result}}\n  - wait_exit: true\n")
    record = run_scenario([sys.executable], load_scenario(path), tmp_path / "c.framed.ndjson",
                          secrets=Secrets([secret]))
    assert record.ok, record.as_run()
    assert record.stderr_tail == "last words\n"
    unprotected = run_scenario([sys.executable], load_scenario(path), tmp_path / "d.framed.ndjson")
    assert unprotected.stderr_tail.startswith(secret[len(secret) // 2:])  # the case it guards against
