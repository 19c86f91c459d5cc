"""Real JSON-RPC implementations, replayed: the captures the live tier (`nox -s certify-jsonrpc`, module
wirecheck.harness.jsonrpc_live) recorded from the SDK 1.9.0 example agent and example client
(@agentclientprotocol/sdk from npm) and from @modelcontextprotocol/server-everything, each beside the scope file it
was certified with and outcome.json (package, version, command, date, the program's and script's sha256, steps).

The example agent holds a whole session (the sessionId it returns carried into two prompts, its permission request
answered by its own id, a turn cancelled) and is CERTIFIED with its scope file; so is the example client. A scope
file that leaves out what the run cannot reach makes the run INCOMPLETE, and one that declares out of scope what the
run did exercise is stale: NOT CERTIFIED."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from wirecheck.certify.pipeline import certify_captures
from wirecheck.contracts import load_registry

DATA = Path(__file__).parent / "data" / "live-jsonrpc"
ACP = [("acp-example-agent", "agent"), ("acp-example-client", "client")]


def outcome(name: str) -> dict:
    return json.loads((DATA / name / "outcome.json").read_text())


@pytest.fixture(scope="module")
def acp():
    return load_registry().load("acp@1.9.0")


@pytest.mark.parametrize(("name", "role"), ACP)
def test_the_recorded_example_is_certified_with_its_scope(acp, name, role):
    recorded = outcome(name)
    assert (recorded["package"], recorded["version"], recorded["role"]) == ("@agentclientprotocol/sdk", "1.9.0", role)
    assert recorded["command"][0].endswith("node") and recorded["date"] and recorded["script_sha256"]
    assert all(step["status"] == "ok" for step in recorded["steps"])  # the whole scenario ran
    cert = certify_captures(acp, [DATA / name / "capture.framed.ndjson"], role=role,
                            baseline=DATA / name / "scope.yaml")
    assert cert.verdict == "certified" and cert.exit_code == 0, cert.gate_line
    now = {r.requirement.id: r.status for r in cert.results}
    assert now == recorded["statuses"]  # what the live run said, the replay says


def test_the_agent_session_carried_the_returned_session_id():
    frames = [frame for line in (DATA / "acp-example-agent" / "capture.framed.ndjson").read_text().splitlines()[1:]
              if "message" in (frame := json.loads(line))]  # not the process record, the last line
    session = next(f["message"]["result"]["sessionId"] for f in frames
                   if f["from"] == "agent" and f["message"].get("id") == 2)
    sent = [f["message"] for f in frames if f["from"] == "client"]
    assert [m["params"]["sessionId"] for m in sent if m.get("method") in ("session/prompt", "session/cancel")] == \
        [session] * 3
    asked = next(f["message"] for f in frames if f["message"].get("method") == "session/request_permission")
    assert any(m.get("id") == asked["id"] and "result" in m for m in sent)  # answered by its own id
    stops = [f["message"]["result"]["stopReason"] for f in frames
             if f["from"] == "agent" and "stopReason" in f["message"].get("result", {})]
    assert stops == ["end_turn", "cancelled"]


def test_the_unknown_methods_the_harness_asked_are_named_and_only_the_non_extension_fails(acp):
    capture = DATA / "acp-example-agent" / "capture.framed.ndjson"
    cert = certify_captures(acp, [capture])
    known = next(r for r in cert.results if r.requirement.id == "ACP-1.9.0-KNOWN-METHODS")
    assert {f.found: f.severity.value for f in known.failures} == {"wirecheck/nothing": "error"}
    assert {f.found: f.severity.value for f in known.notes} == {"_wirecheck/nothing": "info"}
    assert "RESPONSE_WITHOUT_REQUEST" not in {f.code for r in cert.results for f in r.failures}
    as_agent = certify_captures(acp, [capture], role="agent")  # asking was the harness's doing, not the agent's
    assert not [r.requirement.id for r in as_agent.results if r.status == "fail"]


def _scope(tmp_path: Path, name: str, edit) -> Path:
    data = yaml.safe_load((DATA / name / "scope.yaml").read_text())
    edit(data["out_of_scope"])
    path = tmp_path / "scope.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_without_its_scope_file_the_agent_run_is_incomplete_not_failed(acp):
    cert = certify_captures(acp, [DATA / "acp-example-agent" / "capture.framed.ndjson"], role="agent")
    assert cert.verdict == "incomplete" and cert.exit_code == 4 and not cert.blocking()
    assert len(cert.unexercised()) == 11


def test_one_entry_fewer_leaves_that_requirement_unexercised(acp, tmp_path):
    scope = _scope(tmp_path, "acp-example-agent", lambda entries: entries.pop(0))
    cert = certify_captures(acp, [DATA / "acp-example-agent" / "capture.framed.ndjson"], role="agent",
                            baseline=scope)
    assert cert.verdict == "incomplete"
    assert [r.requirement.id for r in cert.unexercised()] == ["ACP-1.9.0-CLIENT-FS-READ-TEXT-FILE-SCHEMA"]


def test_declaring_out_of_scope_what_the_run_exercised_is_stale(acp, tmp_path):
    scope = _scope(tmp_path, "acp-example-agent", lambda entries: entries.append(
        {"id": "ACP-1.9.0-CLIENT-SESSION-REQUEST-PERMISSION-SCHEMA", "reason": "wrong", "evidence": "none"}))
    cert = certify_captures(acp, [DATA / "acp-example-agent" / "capture.framed.ndjson"], role="agent",
                            baseline=scope)
    assert cert.verdict == "not certified" and cert.exit_code == 1
    assert [(r.requirement.id, r.status) for r in cert.blocking()] == [
        ("ACP-1.9.0-CLIENT-SESSION-REQUEST-PERMISSION-SCHEMA", "stale_scope")]


def test_the_mcp_server_run_is_recorded_with_its_provenance():
    recorded = outcome("mcp-server-everything")
    assert recorded["package"] == "@modelcontextprotocol/server-everything" and recorded["contract"] == \
        "mcp@2025-06-18"
    assert all(step["status"] == "ok" for step in recorded["steps"])
    assert recorded["counts"]["fail"] == 0


@pytest.fixture(scope="module")
def mcp(tmp_path_factory):
    """mcp@2025-06-18 imported from the committed schema with its mapping, as the live tier imports it."""
    from typer.testing import CliRunner

    from wirecheck.cli.app import app

    schema = Path(__file__).parents[1] / "importer" / "data" / "mcp-2025-06-18"
    out = tmp_path_factory.mktemp("contracts")
    result = CliRunner().invoke(app, ["import", "schema", str(schema / "schema.json"), "--profile", "json-rpc",
                                      "--package", "mcp", "--version", "2025-06-18", "-o", str(out),
                                      "--mapping", str(schema / "mapping.yaml"), "--license", str(schema / "LICENSE")])
    assert result.exit_code == 0, result.output
    return load_registry(out).load("mcp@2025-06-18")


def test_the_recorded_mcp_server_is_certified_with_its_scope(mcp):
    """The server's capture, certified again as the live run certified it (role server, its scope file): the same
    verdict and every requirement's status; without the scope file the run is incomplete, not failed."""
    recorded = outcome("mcp-server-everything")
    capture = DATA / "mcp-server-everything" / "capture.framed.ndjson"
    cert = certify_captures(mcp, [capture], role="server", baseline=DATA / "mcp-server-everything" / "scope.yaml")
    assert cert.verdict == recorded["verdict"] == "certified" and cert.exit_code == 0, cert.gate_line
    assert {r.requirement.id: r.status for r in cert.results} == recorded["statuses"]
    bare = certify_captures(mcp, [capture], role="server")
    assert bare.verdict == "incomplete" and not bare.blocking()


@pytest.fixture(scope="module")
def mcp_2026(tmp_path_factory):
    """mcp@2026-07-28 imported from MCP's published schema with no mapping, as the live tier imports it."""
    from typer.testing import CliRunner

    from wirecheck.cli.app import app

    schema = Path(__file__).parents[2] / "fixtures" / "mcp-schema" / "2026-07-28" / "schema.json"
    out = tmp_path_factory.mktemp("contracts")
    result = CliRunner().invoke(app, ["import", "schema", str(schema), "--profile", "json-rpc", "--package", "mcp",
                                      "--version", "2026-07-28", "-o", str(out)])
    assert result.exit_code == 0, result.output
    return load_registry(out).load("mcp@2026-07-28")


V2 = DATA / "mcp-server-v2" / "capture.framed.ndjson"


def test_a_real_mcp_2026_07_28_server_is_judged_and_certified(mcp_2026):
    """The MCP TypeScript SDK v2 server (@modelcontextprotocol/server 2.4.0) speaking revision 2026-07-28: no
    initialize, results with resultType, ttlMs, cacheScope; certified as the live run certified it."""
    recorded = outcome("mcp-server-v2")
    assert (recorded["package"], recorded["version"], recorded["contract"]) == \
        ("@modelcontextprotocol/server", "2.4.0", "mcp@2026-07-28")
    assert all(step["status"] == "ok" for step in recorded["steps"]) and recorded["script_sha256"]
    cert = certify_captures(mcp_2026, [V2], role="server", baseline=DATA / "mcp-server-v2" / "scope.yaml")
    assert cert.verdict == recorded["verdict"] == "certified" and cert.exit_code == 0, cert.gate_line
    assert {r.requirement.id: r.status for r in cert.results} == recorded["statuses"]
    frames = [json.loads(line) for line in V2.read_text().splitlines()[1:]]
    messages = [frame["message"] for frame in frames if "message" in frame]  # the last line: the process record
    results = [m["result"] for m in messages if "result" in m]
    assert len(results) == 7 and all(r["resultType"] == "complete" for r in results)


def _v2_mutant(tmp_path: Path, edit) -> Path:
    lines = V2.read_text().splitlines()
    frames = [json.loads(line) for line in lines[1:]]
    edit(frames)
    path = tmp_path / "mutant.framed.ndjson"
    path.write_text(lines[0] + "\n" + "".join(json.dumps(f) + "\n" for f in frames))
    return path


def _answer(frames, request_id):
    return next(f["message"]["result"] for f in frames if f["message"].get("id") == request_id and
                "result" in f["message"])


@pytest.mark.parametrize(("edit", "pointer"), [
    (lambda fs: _answer(fs, 2).pop("resultType"), "/result"),  # tools/list: every result carries resultType
    (lambda fs: _answer(fs, 2).update(cacheScope="shared"), "/result/cacheScope"),  # private | public
    # tools/call is answered by InputRequiredResult | CallToolResult: both need resultType a string. (Its content
    # not an array passes: the schema's InputRequiredResult is open and its resultType any string, so the union
    # cannot tell the two apart; the SDK reads resultType, "complete" or "input_required", which no schema says.)
    (lambda fs: _answer(fs, 3).update(resultType=5), "/result"),
])
def test_broken_twins_of_the_mcp_2026_07_28_server_fail(mcp_2026, tmp_path, edit, pointer):
    cert = certify_captures(mcp_2026, [_v2_mutant(tmp_path, edit)], role="server",
                            baseline=DATA / "mcp-server-v2" / "scope.yaml")
    assert cert.verdict == "not certified"
    found = [(f.code, f.pointer) for r in cert.results for f in r.failures]
    assert found and all(code == "REPLY_VIOLATION" for code, _ in found)
    assert any(p.startswith(pointer) for _, p in found), found


def _gemini_frames() -> list[dict]:
    return [frame for line in (DATA / "gemini-cli" / "capture.framed.ndjson").read_text().splitlines()[1:]
            if "message" in (frame := json.loads(line))]


def test_gemini_cli_runs_a_whole_acp_turn_against_the_scripted_gemini_api_and_is_certified():
    """`nox -s certify-jsonrpc -- --agents`: gemini-cli 0.61.0 `--acp`, no login, against the scripted Gemini API
    (scenario acp-gemini-turn): initialize, session/new in the scratch, a prompt whose model answer is a text and a
    write_file call; the agent asks permission, writes the file, answers end_turn. CERTIFIED with its scope file (what
    a one-turn session with a client offering no fs or terminal cannot reach), as the live run said."""
    recorded = outcome("gemini-cli")
    assert (recorded["version"], recorded["scenario"], recorded["verdict"]) == ("0.61.0", "acp-gemini-turn",
                                                                               "certified")
    assert all(step["status"] == "ok" for step in recorded["steps"]) and not recorded["run_problem"]
    cert = _replayed("gemini-cli")
    assert cert.verdict == "certified", cert.gate_line
    assert {r.requirement.id: r.status for r in cert.results} == recorded["statuses"]
    messages = [f["message"] for f in _gemini_frames()]
    session = next(m["result"]["sessionId"] for m in messages if m.get("id") == 2 and "result" in m)
    asked = next(m for m in messages if m.get("method") == "session/request_permission")
    assert asked["params"]["sessionId"] == session
    tool = next(m["params"]["update"] for m in messages if m.get("method") == "session/update"
                and m["params"]["update"]["sessionUpdate"] == "tool_call_update")
    assert tool["status"] == "completed" and tool["toolCallId"].startswith("write_file")
    assert next(m for m in messages if m.get("id") == 3 and "result" in m)["result"]["stopReason"] == "end_turn"


def test_a_broken_twin_of_the_gemini_turn_fails(tmp_path):
    """The same capture with the turn's answer naming an unknown stopReason: the certification notices."""
    lines = (DATA / "gemini-cli" / "capture.framed.ndjson").read_text().splitlines()
    out = []
    for line in lines:
        frame = json.loads(line)
        if frame.get("message", {}).get("result", {}).get("stopReason") == "end_turn":
            frame["message"]["result"]["stopReason"] = "finished"
        out.append(json.dumps(frame))
    twin = tmp_path / "twin.framed.ndjson"
    twin.write_text("\n".join(out) + "\n")
    cert = certify_captures(load_registry().load("acp@2.4.0"), [twin], role="agent",
                            baseline=DATA / "gemini-cli" / "scope.yaml")
    assert cert.verdict == "not certified"


def test_codex_acp_runs_a_whole_turn_with_a_permitted_command_against_the_scripted_responses_endpoint():
    """codex-acp 0.16.0 under acp-codex-session (issue 38): Codex's model is the scripted OpenAI Responses endpoint,
    so no login stops it. The session is bound, the agent asks before the scripted command and runs it once
    allowed, reports the tool call, streams the scripted text and ends the turn; a second turn is cancelled at its
    permission request. CERTIFIED with its scope file (the client's fs, terminal and elicitation methods and
    $/cancel_request, which the binary holds no name of: scope.yaml); the one finding is the SHOULD
    AGENT-EXITS-AFTER-INPUT: it does not exit when its input ends (it did not within 120 s of an initialize alone)."""
    recorded = outcome("codex-acp")
    assert (recorded["version"], recorded["scenario"], recorded["verdict"]) == ("0.16.0", "acp-codex-session",
                                                                              "certified")
    assert [s["status"] for s in recorded["steps"]] == ["ok"] * 14 + ["failed"]  # only the wait for its exit
    assert recorded["counts"]["fail"] == 0 and recorded["counts"]["not_exercised"] == 0
    cert = _replayed("codex-acp")
    assert cert.verdict == "certified", cert.gate_line
    assert {r.requirement.id: r.status for r in cert.results} == recorded["statuses"]
    assert not [r.requirement.id for r in cert.results if r.status == "fail"]
    judged = {r.requirement.id: r.requirement.level for r in cert.results if r.status == "expected_fail"}
    assert judged == {"ACP-2.4.0-AGENT-EXITS-AFTER-INPUT": "SHOULD"}  # judged in the scope file: the program's
    assert not cert.unmapped
    frames = [json.loads(line) for line in (DATA / "codex-acp" / "capture.framed.ndjson").read_text().splitlines()[1:]]
    messages = [f["message"] for f in frames if "message" in f]
    session = next(m["result"]["sessionId"] for m in messages if m.get("id") == 2 and "result" in m)
    updates = [m["params"]["update"] for m in messages if m.get("method") == "session/update"]
    assert all(m["params"]["sessionId"] == session for m in messages if m.get("method") == "session/update")
    asked = next(m for m in messages if m.get("method") == "session/request_permission")
    assert asked["params"]["toolCall"]["toolCallId"] == "call_wirecheck_1_1"
    calls = [u for u in updates if u["sessionUpdate"] in ("tool_call", "tool_call_update")]
    assert [(u["sessionUpdate"], u["status"]) for u in calls] == [("tool_call", "in_progress"),
                                                                 ("tool_call_update", "completed")]
    texts = [u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk"]
    assert texts == ["I will run it.", "Done.", "I will run another."]
    assert next(m for m in messages if m.get("id") == 3 and "result" in m)["result"] == {"stopReason": "end_turn"}
    assert frames[-1]["process"]["stopped_by_harness"] is True  # still running 15 s after its input ended


def _replayed(name: str, capture: Path | None = None, role: str | None = "agent"):
    """A recorded agent run certified again as the live tier certified it: its scope file, and the run's outcome
    it recorded (jsonrpc_live's `run`), so the run's part of the verdict is judged by the same code too."""
    return certify_captures(load_registry().load("acp@2.4.0"), [capture or DATA / name / "capture.framed.ndjson"],
                            role=role, baseline=DATA / name / "scope.yaml" if role == "agent" else None,
                            run={"outcome": outcome(name)["run"]})


AGENT_RUNS = ["claude-agent-acp", "codex-acp", "gemini-cli"]


def _frames(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name / "capture.framed.ndjson").read_text().splitlines()]


def _write(tmp_path: Path, frames: list[dict]) -> Path:
    twin = tmp_path / "twin.framed.ndjson"
    twin.write_text("".join(json.dumps(frame) + "\n" for frame in frames))
    return twin


@pytest.mark.parametrize("name", AGENT_RUNS)
def test_each_real_agent_ends_a_turn_cancelled_at_its_permission_request_cancelled(name):
    """Issue 38: each real agent's second turn is cancelled while its tool call awaits the client's permission: the
    harness sends session/cancel, then answers the waiting request `cancelled`, and the agent answers the prompt
    stopReason cancelled (AGENT-HONOURS-CANCEL passes); the harness kept its own side
    (CLIENT-CANCELS-PENDING-PERMISSIONS passes on the same capture). The replay, given the recorded run, says what
    the live run said, verdict included."""
    recorded = outcome(name)
    cert = _replayed(name)
    assert (cert.verdict, cert.exit_code) == (recorded["verdict"], recorded["exit_code"]) == ("certified", 0)
    assert recorded["statuses"]["ACP-2.4.0-AGENT-HONOURS-CANCEL"] == "pass"
    messages = [f["message"] for f in _frames(name)[1:] if "message" in f]
    cancel = next(i for i, m in enumerate(messages) if m.get("method") == "session/cancel")
    prompt = next(m for m in messages if m.get("method") == "session/prompt" and m["id"] == 4)
    assert messages[cancel]["params"]["sessionId"] == prompt["params"]["sessionId"]
    pending = [m for m in messages[:cancel] if m.get("method") == "session/request_permission"][-1]
    answer = next(m for m in messages[cancel:] if m.get("id") == pending["id"] and "result" in m)
    assert answer["result"] == {"outcome": {"outcome": "cancelled"}}
    assert next(m for m in messages[cancel:] if m.get("id") == 4 and "result" in m)["result"]["stopReason"] == \
        "cancelled"
    as_client = _replayed(name, role="client")
    kept = {r.requirement.id: r.status for r in as_client.results}
    assert kept["ACP-2.4.0-CLIENT-CANCELS-PENDING-PERMISSIONS"] == "pass"


@pytest.mark.parametrize("name", AGENT_RUNS)
def test_a_twin_whose_cancelled_turn_ends_end_turn_is_not_certified(name, tmp_path):
    """The recorded capture with the cancelled prompt's answer turned into end_turn: AGENT-HONOURS-CANCEL fails."""
    frames = _frames(name)
    for frame in frames:
        message = frame.get("message", {})
        if frame.get("from") == "agent" and message.get("id") == 4 and "result" in message:
            message["result"]["stopReason"] = "end_turn"
    cert = _replayed(name, _write(tmp_path, frames))
    assert cert.verdict == "not certified"
    assert [r.requirement.id for r in cert.results if r.status == "fail" and r.requirement.level == "MUST"] == [
        "ACP-2.4.0-AGENT-HONOURS-CANCEL"]


@pytest.mark.parametrize("name", AGENT_RUNS)
def test_a_twin_whose_client_never_answers_the_cancelled_permission_fails_the_client(name, tmp_path):
    """The recorded capture without the harness's `cancelled` answer: the client broke both its duties (the request
    waits for ever, and the cancel was not passed on to it); the agent's own certification is not charged with it."""
    frames = _frames(name)
    dropped = [f for f in frames if f.get("from") == "client"
               and f.get("message", {}).get("result") == {"outcome": {"outcome": "cancelled"}}]
    assert len(dropped) == 1
    twin = _write(tmp_path, [f for f in frames if f not in dropped])
    failed = {r.requirement.id for r in _replayed(name, twin, role="client").results if r.status == "fail"}
    assert {"ACP-2.4.0-CLIENT-CANCELS-PENDING-PERMISSIONS", "ACP-2.4.0-CLIENT-ANSWERS-REQUESTS"} <= failed
    assert _replayed(name, twin).verdict == "certified"


@pytest.mark.parametrize("name", ["claude-agent-acp", "codex-acp"])
def test_an_agent_that_exits_after_its_input_makes_its_judged_failure_stale(name, tmp_path):
    """The scope files record AGENT-EXITS-AFTER-INPUT as the program's own defect (expected_failures); a release that
    exits by itself once its input ends (the process record of the twin) passes it, and the entry is then stale:
    NOT CERTIFIED until it is removed, so the judgement never outlives the defect."""
    frames = _frames(name)
    process = frames[-1]["process"]
    process.update(exit_status=0, stopped_by_harness=False, ended_by=None, stopped_at=None,
                   exited_at=process["input_closed_at"] + 1)
    cert = certify_captures(load_registry().load("acp@2.4.0"), [_write(tmp_path, frames)], role="agent",
                            baseline=DATA / name / "scope.yaml")
    assert cert.verdict == "not certified"
    assert {r.requirement.id: r.status for r in cert.results}["ACP-2.4.0-AGENT-EXITS-AFTER-INPUT"] == \
        "unexpected_pass"


def test_claude_agent_acp_holds_a_prompt_turn_with_a_refused_tool_call():
    """Issue 38: claude-agent-acp 0.23.1 (the Agent SDK driving Claude Code's stream-json), offline against the scripted
    Anthropic endpoint (scenario acp-claude-agent-turn): the returned sessionId carried into the prompt, the Bash call
    the model asks for put to the client as session/request_permission, refused with the agent's own reject option,
    and the turn ended (end_turn) with its usage. CERTIFIED with its scope file; the one finding is the SHOULD
    AGENT-EXITS-AFTER-INPUT: the agent does not exit when its input ends (the harness stopped it)."""
    recorded = outcome("claude-agent-acp")
    assert (recorded["version"], recorded["scenario"], recorded["verdict"]) == ("0.23.1", "acp-claude-agent-turn",
                                                                              "certified")
    cert = _replayed("claude-agent-acp")
    assert cert.verdict == "certified" and cert.exit_code == 0, cert.gate_line
    assert {r.requirement.id: r.status for r in cert.results} == recorded["statuses"]
    assert [r.requirement.id for r in cert.results if r.status in ("fail", "expected_fail")] == [
        "ACP-2.4.0-AGENT-EXITS-AFTER-INPUT"]  # an expected failure: judged in the scope file, the program's defect
    frames = [frame for line in (DATA / "claude-agent-acp" / "capture.framed.ndjson").read_text().splitlines()[1:]
              if "message" in (frame := json.loads(line))]
    session = next(f["message"]["result"]["sessionId"] for f in frames
                   if f["from"] == "agent" and f["message"].get("id") == 2)
    asked = next(f["message"] for f in frames if f["message"].get("method") == "session/request_permission")
    assert asked["params"]["sessionId"] == session and asked["params"]["toolCall"]["rawInput"]["command"] == \
        "touch wirecheck.txt"
    answer = next(f["message"] for f in frames if f["from"] == "client" and f["message"].get("id") == asked["id"]
                  and "result" in f["message"])
    assert answer["result"]["outcome"] == {"outcome": "selected", "optionId": "reject"}
    ended = next(f["message"]["result"] for f in frames if f["from"] == "agent" and f["message"].get("id") == 3)
    assert ended["stopReason"] == "end_turn" and ended["usage"]["totalTokens"] > 0


def test_a_subject_whose_scenario_or_scope_does_not_load_is_said_not_run(monkeypatch, tmp_path, capsys):
    """A scope file that is not YAML ended the tier with a traceback (found writing claude-agent-acp's): now the
    subject is not run, with the file and the reason, and the tier goes on to its closing verdicts (exit 2)."""
    from wirecheck.contracts.errors import ContractError, ContractProblem
    from wirecheck.harness import jsonrpc_live

    def broken(*_args):
        raise ContractError(ContractProblem(Path("scope.yaml"), "", "not valid YAML: line 12, column 60"))

    monkeypatch.setattr(jsonrpc_live, "run_one", broken)
    assert jsonrpc_live.main(["--only", "acp-example-agent", "--out", str(tmp_path)]) == 2
    out = capsys.readouterr().out
    assert "== acp-example-agent: not run: scope.yaml: not valid YAML: line 12, column 60" in out
    assert "Traceback" not in out


@pytest.mark.parametrize("role", ["agent", "client", None])
def test_the_run_of_an_agent_that_lingers_is_judged_alike_whatever_role_is_reported(role):
    """codex-acp's run failed one step, the wait for its exit, which AGENT-EXITS-AFTER-INPUT judges on the process
    record: the run's part of the verdict is that obligation's, whichever role's requirements the report keeps (a
    certification of the client's side said the run failed, and was NOT CERTIFIED for the agent's linger)."""
    cert = _replayed("codex-acp", role=role)
    assert cert.run_ok and cert.run["judged_by"] == ["ACP-2.4.0-AGENT-EXITS-AFTER-INPUT"]
    assert "the live run failed" not in cert.gate_line
