"""How the SDK reads the CLI's exit (EXIT-ZERO-ON-SUCCESS), on broken twins of real qodercli runs. The SDK accepts
exit 0, and from 1.0.34 exit 1 without a signal where the last result since the last user or assistant message had
`is_error: true` (@qoder-ai/qoder-agent-sdk@1.0.39 dist/index.js:8, QueryRunner.readMessages and
isStructuredResultExit); any other exit, or a signal, reaches its caller as an error (dist/index.js:4). The exit is
judged whatever the CLI sent after its result: the real CLI's streams mostly end in command_lifecycle or
control_response, not in the result (attack-cert finding 1)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from wirecheck.check.engine import check_captures
from wirecheck.contracts import load_registry

ROOT = Path(__file__).resolve().parents[3]
PROMPT_RUN = ROOT / "suites/harness/data/qodercli-1.1.23/qoder-prompt.framed.ndjson"  # result is_error true, exit 1
LIMITS_RUN = ROOT / "fixtures/live/qodercli@1.1.23/qoder-session-limits.framed.ndjson"


def _frames(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _process(exit_status: int | None = 0, signal: str | None = None, input_closed_at: float | None = 0.5) -> dict:
    return {"process": {"role": "cli", "exit_status": exit_status, "signal": signal, "stopped_by_harness": False,
                        "ended_by": None, "stopped_at": None, "input_closed_at": input_closed_at,
                        "last_output_at": 1.0, "exited_at": 1.1, "final_newline": True}}


def _prompt_run(result_change: dict | None, *, drop_result: bool = False, after: list[dict] = ()) -> list[dict]:
    head, user, init, assistant, result = _frames(PROMPT_RUN)[:5]
    result = copy.deepcopy(result)
    result["message"].update(result_change or {})
    return [head, user, init, assistant, *([] if drop_result else [result]), *after]


def _limits_turn() -> list[dict]:
    """The real session-limits run up to its first turn's success result and what the CLI wrote after it (the SDK's
    generate_session_title request, the CLI's command_lifecycle and control_response)."""
    frames = _frames(LIMITS_RUN)[:20]
    assert any(f.get("message", {}).get("type") == "result" and f["message"].get("is_error") is False
               for f in frames)
    assert frames[-1]["from"] == "cli" and frames[-1]["message"]["type"] != "result"
    return frames


def _exit_findings(spec: str, frames: list[dict], process: dict, tmp_path) -> list[tuple[str, str]]:
    path = tmp_path / "run.framed.ndjson"
    path.write_text("".join(json.dumps(f) + "\n" for f in [*frames, process]))
    release = load_registry(ROOT / "contracts").load(spec)
    return [(f.code, f.severity.value) for f in check_captures(release, [str(path)]).findings
            if f.obligation == "EXIT-ZERO-ON-SUCCESS"]


BROKEN = {  # what every release's SDK throws on
    "exit 1 after a success result the CLI followed with other messages": (_limits_turn, _process(1)),
    "exit 1 after an error result that says is_error false": (
        lambda: _prompt_run({"subtype": "error_during_execution", "is_error": False, "errors": ["boom"]}),
        _process(1)),
    "exit 2 after an error result": (
        lambda: _prompt_run({"subtype": "error_during_execution", "is_error": True, "errors": ["boom"]}),
        _process(2)),
    "exit 1 in the middle of a turn (no result)": (lambda: _prompt_run(None, drop_result=True), _process(1)),
    "killed by SIGSEGV while its input is open": (lambda: _prompt_run(None, drop_result=True),
                                                   _process(None, "SIGSEGV", None)),
    "exit 1 after an error result and then an assistant message": (
        lambda: _prompt_run(None, after=[_prompt_run(None)[3]]), _process(1)),
}


@pytest.mark.parametrize("spec", ["qoder-agent-sdk@1.0.13", "qoder-agent-sdk@1.0.23", "qoder-agent-sdk@1.0.39"])
@pytest.mark.parametrize("case", sorted(BROKEN))
def test_an_exit_the_sdk_throws_on_fails(spec, case, tmp_path):
    frames, process = BROKEN[case]
    assert _exit_findings(spec, frames(), process, tmp_path) == [("EXIT_STATUS", "error")]


@pytest.mark.parametrize("spec", ["qoder-agent-sdk@1.0.13", "qoder-agent-sdk@1.0.23", "qoder-agent-sdk@1.0.39"])
def test_exit_0_after_a_success_followed_by_other_messages_holds(spec, tmp_path):
    assert _exit_findings(spec, _limits_turn(), _process(0), tmp_path) == []


def test_the_real_cli_exiting_1_after_an_error_result_holds_from_1_0_34(tmp_path):
    """The real qodercli 1.1.23 run: a result with is_error true ("Not logged in"), then exit 1, as recorded
    (qoder-prompt.outcome.json). 1.0.34's SDK accepts it; 1.0.13's throws (dist/index.js:3 and :7)."""
    frames = _frames(PROMPT_RUN)
    assert frames[-1]["message"]["is_error"] is True
    outcome = json.loads((PROMPT_RUN.parent / "qoder-prompt.outcome.json").read_text())
    assert outcome["run"]["exit_code"] == 1
    for spec in ("qoder-agent-sdk@1.0.34", "qoder-agent-sdk@1.0.39", "qoder-agent-sdk@1.0.23"):
        assert _exit_findings(spec, frames, _process(1), tmp_path) == [], spec
    assert _exit_findings("qoder-agent-sdk@1.0.13", frames, _process(1), tmp_path) == [("EXIT_STATUS", "error")]
    # a prompt the SDK sends after the error result clears what it allows: exit 1 then throws
    prompt = frames[1]
    assert _exit_findings("qoder-agent-sdk@1.0.39", [*frames, prompt], _process(1), tmp_path) == [
        ("EXIT_STATUS", "error")]
