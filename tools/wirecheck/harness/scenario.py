"""Scenario files: what the harness sends to a live implementation and what it waits for.

```yaml
scenario: 1
title: Qoder stream-json handshake
roles: {harness: sdk, implementation: cli}   # `from` roles in the recorded capture; the implementation is certified
timeout: 60                                  # seconds for the whole run
step_timeouts: {expect: 30, wait_exit: 30}   # optional: the default limit of each step of that action
steps:
  - send: {type: control_request, request_id: req_1, request: {subtype: initialize}}
  - expect: {match: {type: control_response, response: {request_id: req_1}}, timeout: 20}
  - close_stdin: true
  - wait_exit: {timeout: 10}
```

Steps: `send` (one JSON message, written as one line), `send_raw` (a text line written as is, for negative
scenarios), `expect` (wait until a line from the implementation contains `match`: every key given must be present
with an equal value, recursively; lists compare whole), `sleep` (seconds), `close_stdin: true`, `wait_exit: true` or
`{timeout: seconds, status: N}` (`status`: the exit status a correct implementation ends this scenario with, e.g. 0
after a print-mode success and 1 after an API error; another fails the step). A step's `timeout` is its own limit;
without one it gets the scenario's `step_timeouts` for its action, else DEFAULT_STEP_TIMEOUTS (`certify --run
--step-timeout` and the live tiers' `--step-timeout` override either, for a step number or an action).
Every timeout is a finite number of seconds above 0 and at most a day (`sleep` may be 0).
A failed `expect` ends the scenario (the run is recorded and certified anyway, and marked failed). Any problem in
the file (an unknown key or step, a wrong type, a value YAML builds that JSON cannot hold) is a located error.

**Values carried from one message to a later one.** An `expect` may `bind` names to JSON pointers into the line it
matched; a later `send` or `expect` uses a bound value where a string is exactly `${name}` (the value replaces the
string whole, whatever its JSON type; `$${name}` is the literal text `${name}`). This is how a session is held: the
`sessionId` that `session/new` returns goes into `session/prompt`, and a request the implementation sends is answered
with its own `id`:

```yaml
  - expect: {match: {id: 2}, bind: {session: /result/sessionId}}
  - send: {jsonrpc: "2.0", id: 3, method: session/prompt, params: {sessionId: "${session}", prompt: []}}
  - expect: {match: {method: session/request_permission}, bind: {permission: /id}}
  - send: {jsonrpc: "2.0", id: "${permission}", result: {outcome: {outcome: cancelled}}}
```

A name used before any step binds it is a located error when the file loads; a matched line without the member a
`bind` points at fails that step ("the matching line has no /result/sessionId"). `${work}`, `${home}` and
`${config}` are bound from the start to the run's scratch folders (STEP_PLACES), so a session is opened where the
run's files are and no agent works in a folder outside the scratch (`session/new` with `cwd: "${work}"`).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from wirecheck.contracts.errors import ContractError, ContractProblem
from wirecheck.limits import MAX_SECONDS
from wirecheck.pointer import MISSING, format_pointer, parse_pointer, resolve
from wirecheck.stub.model import ModelScript, parse_model_script
from wirecheck.yaml_lines import LINE_KEY, YamlFileError, parse_yaml, read_text, strip_lines

ACTIONS = ("send", "send_raw", "expect", "sleep", "close_stdin", "wait_exit")
TOP_KEYS = ("scenario", "title", "description", "contract", "roles", "timeout", "step_timeouts", "steps", "argv",
            "env", "files", "model")
# what `${name}` in argv, env and files stands for (runner.py fills them in for the run)
PLACEHOLDERS = ("model_url", "model_file", "home", "config", "work")
# the run's scratch folders, which a `send` or `expect` may also name whole (`${work}`): an ACP session's `cwd`
STEP_PLACES = ("home", "config", "work")
DEFAULT_EXPECT_TIMEOUT = 30.0
# an agent CLI may spend a while after its input ends (flushing transcripts, telemetry it cannot send offline):
# offline qodercli 1.1.76 exited 22 s after end of input (qoder-prompt.yaml)
DEFAULT_WAIT_EXIT_TIMEOUT = 60.0
DEFAULT_STEP_TIMEOUTS = {"expect": DEFAULT_EXPECT_TIMEOUT, "wait_exit": DEFAULT_WAIT_EXIT_TIMEOUT}
TIMED_ACTIONS = tuple(DEFAULT_STEP_TIMEOUTS)
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
PLACEHOLDER = re.compile(r"\$(\$?)\{([A-Za-z_][A-Za-z0-9_]*)\}")  # a whole string: ${name}, or $${name} (literal)


@dataclass(frozen=True)
class Step:
    action: str
    value: Any = None  # the message (send), text (send_raw), pattern (expect), seconds (sleep), exit status (wait_exit)
    timeout: float | None = None
    line: int | None = None
    binds: tuple[tuple[str, str], ...] = ()  # expect: (name, JSON pointer into the matched line)

    def describe(self, value: Any = MISSING) -> str:
        """The step in a few words; `value`: its message or pattern with the bound values filled in."""
        shown = self.value if value is MISSING else value
        if self.action == "send":
            return f"send {brief(shown)}"
        if self.action == "expect":
            return f"expect {brief(shown)}"
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
    argv: tuple[str, ...] = field(default=())  # arguments the scenario adds after the command it is given
    env: Mapping[str, str] = field(default_factory=dict)  # variables for the command (placeholders filled in)
    files: Mapping[str, Any] = field(default_factory=dict)  # scratch path → text, JSON value, or list (JSONL)
    model: ModelScript | None = None  # the scripted model the command is pointed at (stub/model.py)
    sha256: str | None = None  # of the bytes loaded from `path` (the identity block's: a pipe is not read twice)


def parse_step_timeouts(values: Sequence[str]) -> dict[str, float]:
    """`--step-timeout STEP=SECONDS` values as {STEP: seconds}; ValueError naming the one that is wrong."""
    out = {}
    for value in values:
        key, sep, text = value.partition("=")
        try:
            seconds = float(text)
        except ValueError:
            seconds = float("nan")
        if not sep or not key.strip() or not valid_seconds(seconds):
            raise ValueError(f"{value!r}: expected STEP=SECONDS with a positive number of seconds, at most "
                             f"{MAX_SECONDS:g}")
        out[key.strip()] = seconds
    return out


def with_step_timeouts(scenario: Scenario, overrides: dict[str, float]) -> Scenario:
    """The scenario with step limits overridden: a key is a step number (1-based, a step with a limit: expect or
    wait_exit) or an action name (every step of that action). ValueError naming what does not apply."""
    steps = list(scenario.steps)
    for key, seconds in overrides.items():
        if key in TIMED_ACTIONS:
            steps = [replace(s, timeout=seconds) if s.action == key else s for s in steps]
            continue
        if not key.isdigit() or not 1 <= int(key) <= len(steps):
            raise ValueError(f"{key!r}: expected a step number from 1 to {len(steps)} or one of "
                             f"{', '.join(TIMED_ACTIONS)}")
        step = steps[int(key) - 1]
        if step.action not in TIMED_ACTIONS:
            raise ValueError(f"step {key} is {step.action}, which has no time limit (only {', '.join(TIMED_ACTIONS)})")
        steps[int(key) - 1] = replace(step, timeout=seconds)
    return replace(scenario, steps=tuple(steps))


def encode_message(value: Any) -> bytes:
    """A scenario message as one JSON line (no line end): compact, UTF-8. ValueError for what JSON cannot hold (NaN,
    infinities) and TypeError for what it has no type for (bytes, sets, dates: YAML builds them from `!!binary`,
    `!!set` or an unquoted date)."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")


def brief(value: Any) -> str:
    try:
        text = encode_message(value).decode()
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 100 else text[:99] + "…"


def matches(pattern: Any, value: Any) -> bool:
    """Subset match: every key of a pattern object must be in the value with a matching value."""
    if isinstance(pattern, dict):
        return isinstance(value, dict) and all(k in value and matches(v, value[k]) for k, v in pattern.items())
    return bool(pattern == value and type(pattern) is type(value)) or (
        isinstance(pattern, int | float) and not isinstance(pattern, bool)
        and isinstance(value, int | float) and not isinstance(value, bool) and pattern == value
    )


def _placeholders(value: Any, at: tuple[str, ...] = ()) -> Iterator[tuple[str, str]]:
    """(name, JSON pointer) of each `${name}` in a message or pattern (`$${name}` is literal text, not a use)."""
    if isinstance(value, str):
        found = PLACEHOLDER.fullmatch(value)
        if found and not found.group(1):
            yield found.group(2), format_pointer(at)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _placeholders(item, (*at, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _placeholders(item, (*at, str(index)))


def fill(value: Any, bound: Mapping[str, Any]) -> Any:
    """`value` with each string `${name}` replaced by the value bound to `name` (whole, any JSON type), and each
    `$${name}` by the text `${name}`. Names the file does not bind were refused when it loaded."""
    if isinstance(value, str):
        found = PLACEHOLDER.fullmatch(value)
        if found is None:
            return value
        return value[1:] if found.group(1) else bound[found.group(2)]
    if isinstance(value, dict):
        return {key: fill(item, bound) for key, item in value.items()}
    if isinstance(value, list):
        return [fill(item, bound) for item in value]
    return value


def bind_values(step: Step, line_value: Any) -> tuple[dict[str, Any], str | None]:
    """The values `step` binds from the line it matched, or the problem: a pointer that leads nowhere in it."""
    values = {}
    for name, pointer in step.binds:
        found = resolve(line_value, parse_pointer(pointer), MISSING)
        if found is MISSING:
            return {}, f"the matching line has no {pointer or '(whole line)'} to bind as {name}"
        values[name] = found
    return values, None


def valid_seconds(value: Any, *, zero: bool = False) -> bool:
    """A number of seconds a run can wait: finite, above 0 (or 0 itself with `zero`), at most MAX_SECONDS."""
    return (isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
            and (value >= 0 if zero else value > 0) and value <= MAX_SECONDS)


def _seconds_text(zero: bool = False) -> str:
    what = "a number of seconds >= 0" if zero else "a positive number of seconds"
    return f"expected {what}, at most {MAX_SECONDS:g}"


def _found(value: Any) -> str:
    if isinstance(value, dict):
        value = strip_lines(value)
    text = repr(value)
    return text if len(text) <= 80 else text[:79] + "…"


def load_scenario(path: Path) -> Scenario:
    file = str(path)
    try:
        text = read_text(path, "scenario file")
        raw = parse_yaml(text, file, lines=True)
    except YamlFileError as exc:
        raise ContractError(ContractProblem(file, "", exc.message), "scenario") from None
    problems: list[ContractProblem] = []

    def problem(pointer: str, message: str, line: int | None = None) -> None:
        problems.append(ContractProblem(file, pointer, message, line))

    def timeout_of(body: dict[str, Any], default: float, pointer: str, line: int | None) -> float | None:
        """A step's `timeout` (or the default), or None after reporting it."""
        seconds = body.get("timeout", default)
        if valid_seconds(seconds):
            return float(seconds)
        problem(pointer, f"{_seconds_text()}, found {_found(seconds)}", line)
        return None

    if not isinstance(raw, dict) or raw.get("scenario") != 1 or isinstance(raw.get("scenario"), bool):
        raise ContractError(ContractProblem(file, "/scenario", "expected `scenario: 1` at the top"), "scenario")
    for key in raw:
        if key not in (*TOP_KEYS, LINE_KEY):
            problem(f"/{key}", f"unknown key {key!r}; a scenario has {', '.join(TOP_KEYS)}")
    roles = raw.get("roles") or {}
    if not (isinstance(roles, dict) and isinstance(roles.get("harness"), str) and roles["harness"]
            and isinstance(roles.get("implementation"), str) and roles["implementation"]):
        problem("/roles", f"expected {{harness: <role>, implementation: <role>}}, found {_found(roles)}")
    elif roles["harness"] == roles["implementation"]:
        problem("/roles", f"the harness and the implementation need different roles, found {roles['harness']!r} "
                          "twice")
    timeout = raw.get("timeout", 60)
    if not valid_seconds(timeout):
        problem("/timeout", f"{_seconds_text()}, found {_found(timeout)}")
    defaults = dict(DEFAULT_STEP_TIMEOUTS)
    step_timeouts = raw.get("step_timeouts", {})
    if not isinstance(step_timeouts, dict):
        problem("/step_timeouts", f"expected {{{': seconds, '.join(TIMED_ACTIONS)}: seconds}}, found "
                                  f"{_found(step_timeouts)}")
        step_timeouts = {}
    for action, seconds in step_timeouts.items():
        if action == LINE_KEY:
            continue
        if action not in TIMED_ACTIONS:
            problem(f"/step_timeouts/{action}", f"unknown action {action!r}; steps with a time limit are "
                                               f"{', '.join(TIMED_ACTIONS)}")
        elif not valid_seconds(seconds):
            problem(f"/step_timeouts/{action}", f"{_seconds_text()}, found {_found(seconds)}")
        else:
            defaults[action] = float(seconds)
    for key in ("title", "contract"):
        if key in raw and not isinstance(raw[key], str):
            problem(f"/{key}", f"expected a string, found {_found(raw[key])}")
    argv = raw.get("argv") or []
    if not (isinstance(argv, list) and all(isinstance(a, str) for a in argv)):
        problem("/argv", f"expected a list of strings, found {_found(argv)}")
        argv = []
    for index, arg in enumerate(argv):
        _check_placeholders(arg, f"/argv/{index}", problem)
    env = raw.get("env") or {}
    if not (isinstance(env, dict) and all(isinstance(v, str) for k, v in env.items() if k != LINE_KEY)):
        problem("/env", f"expected {{NAME: text}}, found {_found(env)}")
        env = {}
    env = {k: v for k, v in env.items() if k != LINE_KEY}
    for name, value in env.items():
        if not name or "=" in name or "\0" in name or "\0" in value:
            problem(format_pointer(("env", name)),
                    "a variable name is not empty and holds no = or NUL, its value no NUL")
        _check_placeholders(value, format_pointer(("env", name)), problem)
    files = raw.get("files") or {}
    if not isinstance(files, dict):
        problem("/files", f"expected {{scratch path: text | JSON value}}, found {_found(files)}")
        files = {}
    files = {k: strip_lines(v) for k, v in files.items() if k != LINE_KEY}
    for name, content in files.items():
        _check_file(name, content, problem)
    model = None
    if "model" in raw:
        model = parse_model_script(raw["model"], lambda pointer, message, line: problem(pointer, message, line))
    steps = []
    bound: set[str] = set(STEP_PLACES)  # names the steps so far bind, and the run's folders

    def check_uses(value: Any, at: str, line: int | None) -> bool:
        unbound = [(n, p) for n, p in _placeholders(value) if n not in bound]
        for name, pointer in unbound:
            problem(f"{at}{pointer}", f"uses ${{{name}}}, which no earlier step binds (an expect's bind: "
                                      f"{{{name}: /json/pointer}})", line)
        return not unbound

    def binds_of(body: dict[str, Any], at: str, line: int | None) -> tuple[tuple[str, str], ...] | None:
        raw_binds = body.get("bind", {})
        if not isinstance(raw_binds, dict):
            problem(at, f"expected {{name: /json/pointer, ...}}, found {_found(raw_binds)}", line)
            return None
        pairs = []
        for name, pointer in raw_binds.items():
            if name == LINE_KEY:
                continue
            if not (isinstance(name, str) and NAME.fullmatch(name)):
                problem(f"{at}/{name}", f"a name is letters, digits and _ (not first a digit), found {_found(name)}",
                        line)
                return None
            if not (isinstance(pointer, str) and (pointer == "" or pointer.startswith("/"))):
                problem(f"{at}/{name}", f"expected a JSON pointer (\"\" or starting with /), found {_found(pointer)}",
                        line)
                return None
            pairs.append((name, pointer))
        return tuple(pairs)

    raw_steps = raw.get("steps")
    if not isinstance(raw_steps, list) or not raw_steps:
        problem("/steps", f"expected a non-empty list of steps, found {_found(raw_steps)}")
        raw_steps = []
    for index, entry in enumerate(raw_steps):
        where = f"/steps/{index}"
        keys = [k for k in entry if k != LINE_KEY] if isinstance(entry, dict) else []
        line = entry.get(LINE_KEY) if isinstance(entry, dict) else None
        if len(keys) != 1 or keys[0] not in ACTIONS:
            problem(where, f"a step is one of {', '.join(ACTIONS)}, found {_found(entry)}", line)
            continue
        action = keys[0]
        body = entry[action]
        if action in ("send", "expect"):
            pattern = body.get("match") if action == "expect" and isinstance(body, dict) else body
            at = f"{where}/expect/match" if action == "expect" else f"{where}/send"
            if action == "expect" and not (isinstance(body, dict) and isinstance(pattern, dict)):
                problem(f"{where}/expect", f"expected {{match: {{...}}, timeout?: seconds}}, found {_found(body)}",
                        line)
                continue
            if not isinstance(pattern, dict):
                problem(at, f"expected a JSON object (the message), found {_found(body)}", line)
                continue
            pattern = strip_lines(pattern)
            try:
                encode_message(pattern)
            except (TypeError, ValueError) as exc:
                problem(at, f"not JSON: {exc} (quote dates and other text YAML would build a value from)", line)
                continue
            if not check_uses(pattern, at, line):
                continue
            if action == "send":
                steps.append(Step("send", pattern, line=line))
                continue
            extra = [k for k in body if k not in ("match", "timeout", "bind", LINE_KEY)]
            if extra:
                problem(f"{where}/expect/{extra[0]}", f"unknown key {extra[0]!r}; expect has match, timeout and bind",
                        line)
                continue
            seconds = timeout_of(body, defaults["expect"], f"{where}/expect/timeout", line)
            binds = binds_of(body, f"{where}/expect/bind", line)
            if seconds is not None and binds is not None:
                steps.append(Step("expect", pattern, seconds, line, binds))
                bound.update(name for name, _ in binds)
        elif action == "send_raw":
            if not isinstance(body, str):
                problem(f"{where}/send_raw", f"expected a string, found {_found(body)}", line)
                continue
            if "\n" in body or "\r" in body:
                problem(f"{where}/send_raw", "a raw line cannot hold a line break (each step writes one line)", line)
                continue
            try:
                body.encode("utf-8")
            except UnicodeEncodeError as exc:  # a lone surrogate ("\ud800"): no bytes can be written for it
                problem(f"{where}/send_raw", f"not UTF-8 text: {exc.reason} at character {exc.start + 1} "
                        f"({body[exc.start]!a})", line)
                continue
            steps.append(Step("send_raw", body, line=line))
        elif action == "sleep":
            if not valid_seconds(body, zero=True):
                problem(f"{where}/sleep", f"{_seconds_text(zero=True)}, found {_found(body)}", line)
                continue
            steps.append(Step("sleep", float(body), line=line))
        elif action == "wait_exit":
            if body is None or body is True:
                body = {}
            if not isinstance(body, dict) or any(k not in ("timeout", "status", LINE_KEY) for k in body):
                problem(f"{where}/wait_exit", f"expected true or {{timeout: seconds, status: N}}, found "
                        f"{_found(body)}", line)
                continue
            status = body.get("status")
            if status is not None and (type(status) is not int or not 0 <= status <= 255):
                problem(f"{where}/wait_exit/status", f"expected an exit status 0-255, found {_found(status)}", line)
                continue
            seconds = timeout_of(body, defaults["wait_exit"], f"{where}/wait_exit/timeout", line)
            if seconds is not None:
                steps.append(Step("wait_exit", status, seconds, line))
        else:  # close_stdin
            if body is not None and body is not True:
                problem(f"{where}/close_stdin", f"expected true, found {_found(body)}", line)
                continue
            steps.append(Step(action, None, line=line))
    if problems:
        raise ContractError(problems, "scenario")
    return Scenario(
        title=str(raw.get("title", path.stem)), harness_role=roles["harness"],
        implementation_role=roles["implementation"], steps=tuple(steps), timeout=float(timeout), path=path,
        contract=raw.get("contract"), argv=tuple(argv), env=env, files=files, model=model,
        sha256=hashlib.sha256(text.encode()).hexdigest(),
    )


_RUN_PLACE = re.compile(r"\$\{([^}]*)\}")
SCRATCH_FOLDERS = ("home", "config", "work")


def _check_placeholders(text: str, pointer: str, problem: Any) -> None:
    for name in _RUN_PLACE.findall(text):
        if name not in PLACEHOLDERS:
            known = ", ".join("${" + p + "}" for p in PLACEHOLDERS)
            problem(pointer, f"unknown placeholder ${{{name}}}; known: {known}")


def _check_file(name: Any, content: Any, problem: Any) -> None:
    pointer = format_pointer(("files", str(name)))
    parts = str(name).split("/")
    if not isinstance(name, str) or parts[0] not in SCRATCH_FOLDERS or len(parts) < 2 or any(
            part in ("", ".", "..") for part in parts[1:]) or "\0" in name:  # no file name holds a NUL
        problem(pointer, f"expected a path inside the scratch folders ({', '.join(f + '/' for f in SCRATCH_FOLDERS)}"
                         f"...), with no empty, . or .. part and no NUL, found {_found(name)}")
        return
    try:
        encode_message(content)
    except (TypeError, ValueError) as exc:
        problem(pointer, f"not JSON: {exc}")
        return
    for text in _strings(content):
        _check_placeholders(text, pointer, problem)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (_strings(k) + _strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def fill_places(value: Any, places: Mapping[str, str]) -> Any:
    """`value` (argv, env, files) with every `${name}` in its strings (keys too) replaced by `places[name]`: the
    run's places (PLACEHOLDERS), written inside text (`${model_url}/v1`), unlike the names steps bind."""
    if isinstance(value, str):
        return _RUN_PLACE.sub(lambda m: places.get(m[1], m[0]), value)
    if isinstance(value, dict):
        return {fill_places(k, places): fill_places(v, places) for k, v in value.items()}
    if isinstance(value, list):
        return [fill_places(v, places) for v in value]
    return value


def file_bytes(content: Any) -> bytes:
    """What a scenario file holds on disk: text as is, a list as JSON lines, any other value as one JSON document."""
    if isinstance(content, str):
        return content.encode("utf-8")
    if isinstance(content, list):
        return b"".join(encode_message(item) + b"\n" for item in content)
    return encode_message(content) + b"\n"
