"""Scenario files: what the harness sends to a live implementation and what it waits for.

```yaml
scenario: 1
title: Qoder stream-json handshake
roles: {harness: sdk, implementation: cli}   # `from` roles in the recorded capture; the implementation is certified
timeout: 60                                  # seconds for the whole run
steps:
  - send: {type: control_request, request_id: req_1, request: {subtype: initialize}}
  - expect: {match: {type: control_response, response: {request_id: req_1}}, timeout: 20}
  - close_stdin: true
  - wait_exit: {timeout: 10}
```

Steps: `send` (one JSON message, written as one line), `send_raw` (a text line written as is, for negative
scenarios), `expect` (wait until a line from the implementation contains `match`: every key given must be present
with an equal value, recursively; lists compare whole), `sleep` (seconds), `close_stdin`, `wait_exit`.
A failed `expect` ends the scenario (the run is recorded and certified anyway, and marked failed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wirecheck.contracts.errors import ContractError, ContractProblem
from wirecheck.yaml_lines import YamlFileError, read_yaml_file, strip_lines

ACTIONS = ("send", "send_raw", "expect", "sleep", "close_stdin", "wait_exit")
DEFAULT_EXPECT_TIMEOUT = 30.0


@dataclass(frozen=True)
class Step:
    action: str
    value: Any = None  # the message (send), text (send_raw), pattern (expect), seconds (sleep)
    timeout: float | None = None
    line: int | None = None

    def describe(self) -> str:
        if self.action == "send":
            return f"send {_brief(self.value)}"
        if self.action == "expect":
            return f"expect {_brief(self.value)}"
        if self.action == "send_raw":
            return f"send_raw {self.value[:60]!r}"
        if self.action == "sleep":
            return f"sleep {self.value}s"
        return self.action


@dataclass(frozen=True)
class Scenario:
    title: str
    harness_role: str
    implementation_role: str
    steps: tuple[Step, ...]
    timeout: float = 60.0
    path: Path | None = None
    contract: str | None = None
    argv: tuple[str, ...] = field(default=())  # optional default command (arguments after the program)


def _brief(value: Any) -> str:
    import orjson

    text = orjson.dumps(value).decode()
    return text if len(text) <= 100 else text[:99] + "…"


def matches(pattern: Any, value: Any) -> bool:
    """Subset match: every key of a pattern object must be in the value with a matching value."""
    if isinstance(pattern, dict):
        return isinstance(value, dict) and all(k in value and matches(v, value[k]) for k, v in pattern.items())
    return bool(pattern == value and type(pattern) is type(value)) or (
        isinstance(pattern, int | float) and not isinstance(pattern, bool)
        and isinstance(value, int | float) and not isinstance(value, bool) and pattern == value
    )


def load_scenario(path: Path) -> Scenario:
    file = str(path)
    try:
        raw = read_yaml_file(path, lines=True, what="scenario file")
    except YamlFileError as exc:
        raise ContractError(ContractProblem(file, "", exc.message)) from None
    problems: list[ContractProblem] = []

    def problem(pointer: str, message: str) -> None:
        problems.append(ContractProblem(file, pointer, message))

    if not isinstance(raw, dict) or raw.get("scenario") != 1:
        raise ContractError(ContractProblem(file, "/scenario", "expected `scenario: 1` at the top"))
    roles = raw.get("roles") or {}
    if not (isinstance(roles, dict) and isinstance(roles.get("harness"), str)
            and isinstance(roles.get("implementation"), str)):
        problem("/roles", "expected {harness: <role>, implementation: <role>}")
    timeout = raw.get("timeout", 60)
    if not isinstance(timeout, int | float) or timeout <= 0:
        problem("/timeout", "expected a positive number of seconds")
    steps = []
    raw_steps = raw.get("steps")
    if not isinstance(raw_steps, list) or not raw_steps:
        problem("/steps", "expected a non-empty list of steps")
        raw_steps = []
    for index, entry in enumerate(raw_steps):
        where = f"/steps/{index}"
        keys = [k for k in entry if k != "__line__"] if isinstance(entry, dict) else []
        if len(keys) != 1 or keys[0] not in ACTIONS:
            problem(where, f"a step is one of {', '.join(ACTIONS)}")
            continue
        action = keys[0]
        body = entry[action]
        line = entry.get("__line__")
        if action == "send":
            if not isinstance(body, dict):
                problem(f"{where}/send", "expected a JSON object (the message)")
                continue
            steps.append(Step("send", strip_lines(body), line=line))
        elif action == "send_raw":
            if not isinstance(body, str):
                problem(f"{where}/send_raw", "expected a string")
                continue
            steps.append(Step("send_raw", body, line=line))
        elif action == "expect":
            if not isinstance(body, dict) or not isinstance(body.get("match"), dict):
                problem(f"{where}/expect", "expected {match: {...}, timeout?: seconds}")
                continue
            steps.append(Step("expect", strip_lines(body["match"]), float(body.get("timeout", DEFAULT_EXPECT_TIMEOUT)),
                              line))
        elif action == "sleep":
            if not isinstance(body, int | float) or body < 0:
                problem(f"{where}/sleep", "expected seconds")
                continue
            steps.append(Step("sleep", float(body), line=line))
        elif action == "wait_exit":
            seconds = body.get("timeout", 10) if isinstance(body, dict) else 10
            steps.append(Step("wait_exit", None, float(seconds), line))
        else:
            steps.append(Step(action, None, line=line))
    if problems:
        raise ContractError(problems)
    argv = raw.get("argv") or ()
    return Scenario(
        title=str(raw.get("title", path.stem)), harness_role=roles["harness"],
        implementation_role=roles["implementation"], steps=tuple(steps), timeout=float(timeout), path=path,
        contract=raw.get("contract"), argv=tuple(str(a) for a in argv),
    )
