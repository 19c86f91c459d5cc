"""Drive a live implementation through a scenario and record both directions as a framed NDJSON capture.

The capture is the evidence: every line the harness wrote and every line the implementation printed, in the order
they happened, as `{"from": <role>, "message": <the line's bytes, verbatim>}`. Received lines are spliced in
byte for byte (not re-encoded), so a broken line stays broken in the capture and the checker reports it where it
is (PARSE_ERROR, INVALID_UTF8, DUPLICATE_KEY), exactly as for a capture recorded any other way.
"""

from __future__ import annotations

import queue
import shutil
import threading
import time
from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, cast

import orjson

from wirecheck.capture.process import ProcessRecord
from wirecheck.certify.identity import sha256_file
from wirecheck.harness.endpoint import ModelSide
from wirecheck.harness.process import Limits, Line, LiveProcess
from wirecheck.harness.scenario import (
    DEFAULT_EXPECT_TIMEOUT,
    DEFAULT_WAIT_EXIT_TIMEOUT,
    STEP_PLACES,
    Scenario,
    Step,
    bind_values,
    brief,
    encode_message,
    file_bytes,
    fill,
    fill_places,
    matches,
)
from wirecheck.json_text import parse_json
from wirecheck.output_files import writing
from wirecheck.programs.program import STOP_GRACE_SECONDS, CommandError, Scratch, resolve_program
from wirecheck.programs.signals import Terminated, shielded, terminated_by_signals
from wirecheck.stub.redaction import Secrets

FRAMED_HEADER = b'{"wirecheck_capture": 1, "framing": "directed"}\n'


class FramedRecorder:
    """Writes the framed capture as the run goes, flushed line by line (the capture goes in place when the run ends;
    a harness killed outright leaves what was recorded in the temporary file beside it: output_files)."""

    def __init__(self, stream: BinaryIO, harness_role: str, implementation_role: str):
        self._stream = stream
        self._lock = threading.Lock()
        self._sent_prefix = b'{"from": ' + orjson.dumps(harness_role) + b', "message": '
        self._received_prefix = b'{"from": ' + orjson.dumps(implementation_role) + b', "message": '
        stream.write(FRAMED_HEADER)
        self.lines = 1

    def _write(self, prefix: bytes, data: bytes) -> None:
        frame = prefix + data + b"}"
        if not _one_value(data) and _one_value(frame):
            # not one JSON value, yet the frame around it parses: the line closes the message and adds keys of its
            # own (`{...}, "from": "sdk"`), which would speak for the frame. Left unclosed, the frame stays broken
            # (a PARSE_ERROR on this line, from its real sender) instead.
            frame = prefix + data
        with self._lock:
            self._stream.write(frame + b"\n")
            self._stream.flush()
            self.lines += 1

    def sent(self, data: bytes) -> None:
        self._write(self._sent_prefix, data)

    def received(self, line: Line) -> None:
        self._write(self._received_prefix, line.data)  # as received: a line holds no b"\n", and a b"\r" is data

    def ended(self, record: ProcessRecord) -> None:
        """The capture's last line: how the program ended (capture/process.py), evidence like its messages."""
        with self._lock:
            self._stream.write(orjson.dumps(record.as_json()) + b"\n")
            self._stream.flush()
            self.lines += 1


class _Both:
    """Two streams written as one (a capture and its copy)."""

    def __init__(self, *streams: BinaryIO):
        self._streams = streams

    def write(self, data: bytes) -> int:
        for stream in self._streams:
            stream.write(data)
        return len(data)

    def flush(self) -> None:
        for stream in self._streams:
            stream.flush()


class _Cut:
    """A capture stream with the run's secrets cut from each frame (one write each), bytes that are not UTF-8 kept as
    they were."""

    def __init__(self, stream: BinaryIO, secrets: Secrets):
        self._stream, self._secrets = stream, secrets

    def write(self, data: bytes) -> int:
        self._stream.write(self._secrets.cut(data.decode("utf-8", "surrogateescape")).encode("utf-8",
                                                                                           "surrogateescape"))
        return len(data)

    def flush(self) -> None:
        self._stream.flush()


@dataclass
class StepResult:
    index: int
    action: str
    status: str  # ok | failed | not_run
    detail: str = ""
    at: float = 0.0  # seconds since start

    def as_json(self) -> dict[str, Any]:
        return {"index": self.index, "action": self.action, "status": self.status, "detail": self.detail,
                "at": round(self.at, 3)}


@dataclass
class RunRecord:
    capture: Path
    argv: list[str]
    scenario: Scenario
    steps: list[StepResult] = field(default_factory=list)
    exit_code: int | None = None
    problems: list[str] = field(default_factory=list)
    stderr_tail: str = ""
    duration: float = 0.0
    output_bytes: int = 0
    stopped: bool = False  # the harness stopped it (it had not exited by the end of the scenario)
    ending: str = ""  # how the harness ended it, when it did: "ended with SIGTERM (exit status 1)"
    model_evidence: Path | None = None  # the scripted model's side: its HAR, or the fake responses it was given
    model_requests: int = 0  # requests the scripted model endpoint answered
    model_asides: int = 0  # of those, requests of another conversation than the scripted one (answered "OK.")
    interrupted: Terminated | None = None  # wirecheck got SIGTERM or SIGHUP: the run was cut short
    program: str | None = None  # the absolute path of the program started (argv[0] resolved), once known

    @property
    def ok(self) -> bool:
        return not self.problems and all(s.status == "ok" for s in self.steps)

    def as_run(self) -> dict[str, Any]:
        """The `run` argument of certify_captures: identity (what ran) and outcome (what happened)."""
        program = self.program or (shutil.which(self.argv[0]) if self.argv and self.argv[0] else None)
        identity = {
            "argv": self.argv,
            "scenario": None if self.scenario.path is None else {
                "path": str(self.scenario.path),
                "sha256": self.scenario.sha256 or _sha256_or_none(self.scenario.path)},  # the bytes loaded
            "program_sha256": _sha256_or_none(Path(program)) if program else None,
        }
        failed = next((s for s in self.steps if s.status == "failed"), None)
        problem = None
        if failed is not None:
            problem = f"scenario step {failed.index + 1} ({failed.action}) failed: {failed.detail}"
        elif self.problems:
            problem = self.problems[0]
        outcome: dict[str, Any] = {
            "ok": self.ok, "problem": problem, "exit_code": self.exit_code, "stopped_by_harness": self.stopped,
            "ending": self.ending,
            "heard": self.output_bytes > 0,  # nothing on stdout: a failed run is a run failure, not a verdict
            "problems": self.problems,
            "steps": [s.as_json() for s in self.steps], "duration_seconds": round(self.duration, 3),
            "output_bytes": self.output_bytes, "stderr_tail": self.stderr_tail,
        }
        if self.scenario.model is not None:
            outcome["model"] = {"api": self.scenario.model.api, "refused": self.scenario.model.refused,
                                "requests": self.model_requests, "asides": self.model_asides,
                                "evidence": None if self.model_evidence is None else str(self.model_evidence)}
        return {"identity": identity, "outcome": outcome}


def _one_value(data: bytes) -> bool:
    """Does `data` parse as one JSON value (as the capture reader parses it)?"""
    try:
        orjson.loads(data)
        return True
    except orjson.JSONDecodeError:
        pass
    value, problem = parse_json(data)
    return problem is None or value is not None


def _sha256_or_none(path: Path) -> str | None:
    """A digest for the identity block; None when the file cannot be read (any more): it is evidence, not input."""
    try:
        return sha256_file(path)
    except OSError:
        return None


def _parse(line: Line) -> Any:
    """The line's value as the checker reads it (exact beyond 64-bit integers); None when it is not JSON."""
    return parse_json(line.data)[0]


def run_scenario(
    argv: Sequence[str],
    scenario: Scenario,
    capture: Path,
    *,
    limits: Limits | None = None,
    env: Mapping[str, str] | None = None,
    pass_env: Sequence[str] = (),
    keep_scratch: bool = False,
    program: str | None = None,
    copy: Path | None = None,
    secrets: Secrets | None = None,
) -> RunRecord:
    """Run `argv` against the scenario, recording both directions into `capture`. `program`: argv[0] as the caller
    already resolved it (resolve_program, where the user is and with the PATH the command gets), started as is;
    without it argv[0] is resolved here. `copy`: a file recording the same, to read back what a `capture` that is a
    named pipe or a device (output_files.written_in_place) cannot give back. `secrets` (the values handed to the
    command) are cut from the capture (and its copy) and the scripted model's HAR, in every spelling: what is
    certified is what is published, as the stub certifies the HAR it cut."""
    limits = limits or Limits()
    record = RunRecord(capture, list(argv), scenario)
    # written as it is recorded (output_files: in place once the run ends; a named pipe once its reader is there)
    with terminated_by_signals(), writing(capture, binary=True) as stream, \
            (writing(copy, binary=True) if copy is not None else nullcontext()) as copied:
        scratch = Scratch.create(keep_scratch)
        started = time.monotonic()
        deadline = started + scenario.timeout
        both = stream if copied is None else cast(BinaryIO, _Both(stream, copied))
        if secrets:
            both = cast(BinaryIO, _Cut(both, secrets))
        recorder = FramedRecorder(both, scenario.harness_role, scenario.implementation_role)
        try:
            model = ModelSide(scenario.model, scratch, capture, secrets)
        except OSError as exc:
            record.problems.append(f"cannot start the scripted model endpoint: {exc}")
            scratch.remove()
            return record
        places = {"home": str(scratch.root / "home"), "config": str(scratch.root / "config"),
                  "work": str(scratch.root / "work"), **model.places}
        try:
            for name, content in scenario.files.items():
                target = scratch.root / fill_places(name, places)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(file_bytes(fill_places(content, places)))
        except (OSError, ValueError) as exc:  # ValueError: a name the file system cannot hold (load refuses a NUL)
            record.problems.append(f"cannot write the scenario's files: {exc}")
            model.finish()
            scratch.remove()
            return record
        argv = record.argv = [*argv, *fill_places(list(scenario.argv), places)]
        child_env = scratch.env({**fill_places(dict(scenario.env), places), **(env or {})}, pass_env)
        try:
            record.program = program or resolve_program(argv[0] if argv else "", child_env.get("PATH"))
            proc = LiveProcess([record.program, *argv[1:]], scratch, env=child_env, limits=limits,
                               on_line=recorder.received)
        except CommandError as exc:
            record.problems.append(f"cannot start the command: {exc}")
            model.finish()
            scratch.remove()
            return record
        except (OSError, ValueError) as exc:
            record.problems.append(f"cannot start {argv[0]!r}: {getattr(exc, 'strerror', None) or exc}")
            model.finish()
            scratch.remove()
            return record
        try:
            try:
                _drive(proc, scenario, recorder, record, deadline, places)
                remaining = max(deadline - time.monotonic(), 0.0)
                proc.close_stdin()
                record.exit_code = None if proc.flooded.is_set() else proc.wait(min(remaining, 5.0))
                if record.exit_code is None:
                    # still running after the scenario: stopped by the harness, which is not the implementation's
                    # fault unless a step failed (reported there)
                    record.stopped = True
                elif record.exit_code < 0:
                    record.problems.append(f"the process died of signal {-record.exit_code}")
            finally:
                proc.close()  # shielded: a signal now ends the run once everything is ended
                _say_how_it_ended(proc, record)
                recorder.ended(proc.record(scenario.implementation_role, record.stopped))
        except Terminated as stop:  # the run ends here, and what was recorded is still certified
            record.interrupted, record.stopped = stop, True
            record.problems.append(f"wirecheck was stopped by {stop.name}")
        finally:
            with shielded():
                if record.exit_code is None:
                    record.exit_code = proc.program.returncode
                record.problems.extend(proc.problems.items)
                record.problems.extend(model.finish())
                record.model_evidence, record.model_requests = model.evidence, model.requests
                record.model_asides = model.asides
                record.stderr_tail = proc.stderr_tail()
                if secrets and proc.stderr.total > proc.stderr.limit:  # a secret the tail starts inside of: not quoted
                    record.stderr_tail = record.stderr_tail.partition("\n")[2]
                record.output_bytes = proc.output_bytes
                record.duration = time.monotonic() - started
                scratch.remove()
    return record


def _drive(proc: LiveProcess, scenario: Scenario, recorder: FramedRecorder, record: RunRecord,
           deadline: float, places: Mapping[str, str] | None = None) -> None:
    # values the expect steps so far bound, for the steps after them; from the start, the run's scratch folders
    bound: dict[str, Any] = {name: (places or {})[name] for name in STEP_PLACES if name in (places or {})}
    for index, step in enumerate(scenario.steps):
        result = StepResult(index, step.action, "ok", at=proc.elapsed())
        record.steps.append(result)
        if proc.flooded.is_set():
            result.status, result.detail = "failed", "the output limit was exceeded"
        elif time.monotonic() >= deadline:
            result.status = "failed"
            result.detail = f"not started: the scenario's {seconds_text(scenario.timeout)} limit was reached"
        else:
            try:
                _do(proc, step, recorder, result, deadline, scenario.timeout, bound)
            except Terminated as stop:
                result.status, result.detail = "failed", f"wirecheck was stopped by {stop.name}"
                _not_run(record, scenario, index + 1)
                raise
        if result.status == "failed":
            _not_run(record, scenario, index + 1)
            return


def _not_run(record: RunRecord, scenario: Scenario, start: int) -> None:
    for later in range(start, len(scenario.steps)):
        record.steps.append(StepResult(later, scenario.steps[later].action, "not_run"))


def _do(proc: LiveProcess, step: Step, recorder: FramedRecorder, result: StepResult, deadline: float,
        scenario_timeout: float, bound: dict[str, Any]) -> None:
    value = fill(step.value, bound) if step.action in ("send", "expect") else step.value
    if step.action in ("send", "send_raw"):
        data = encode_message(value) if step.action == "send" else value.encode("utf-8")
        recorder.sent(data)
        written = proc.write_line(data, deadline)
        if written < 0:
            result.status = "failed"
            result.detail = "stdin is closed (the process exited?)"
        elif written <= len(data):
            result.status = "failed"
            result.detail = ("the output limit was exceeded" if proc.flooded.is_set() else
                             f"the process did not read its input: {written} of {len(data) + 1} bytes written "
                             "within the scenario's timeout")
        else:
            result.detail = step.describe(value)
    elif step.action == "expect":
        seconds = DEFAULT_EXPECT_TIMEOUT if step.timeout is None else step.timeout
        limit = min(time.monotonic() + seconds, deadline)
        while True:
            wait = limit - time.monotonic()
            if wait <= 0:
                result.status = "failed"
                within = (f"within {seconds_text(seconds)}" if limit < deadline else
                          f"within the scenario's {seconds_text(scenario_timeout)} limit")
                result.detail = f"no line matching {step.describe(value)[7:]} {within}"
                return
            try:
                line = proc.lines.get(timeout=min(wait, 0.5))
            except queue.Empty:
                if proc.flooded.is_set():
                    result.status, result.detail = "failed", "the output limit was exceeded"
                    return
                continue
            if line is None:
                proc.lines.put(None)  # keep the end-of-output marker for later steps
                result.status = "failed"
                if proc.flooded.is_set():
                    result.detail = "the output limit was exceeded"
                    return
                code = proc.wait(1.0)
                status = f"exit status {code}" if code is not None else "still running"
                result.detail = f"stdout closed ({status}) before a line matching {step.describe(value)[7:]}"
                return
            received = _parse(line)
            if received is not None and matches(value, received):
                values, problem = bind_values(step, received)
                if problem is not None:
                    result.status, result.detail = "failed", f"matched at {line.at:.3f}s, but {problem}"
                    return
                bound.update(values)
                shown = ", ".join(f"{name} = {brief(found)}" for name, found in values.items())
                result.detail = f"matched at {line.at:.3f}s" + (f"; bound {shown}" if shown else "")
                return
    elif step.action == "sleep":
        if proc.flooded.wait(max(min(step.value, deadline - time.monotonic()), 0.0)):
            result.status, result.detail = "failed", "the output limit was exceeded"
    elif step.action == "close_stdin":
        proc.close_stdin()
    elif step.action == "wait_exit":
        seconds = DEFAULT_WAIT_EXIT_TIMEOUT if step.timeout is None else step.timeout
        left = max(deadline - time.monotonic(), 0.0)
        code = proc.wait(min(seconds, left))
        if code is None:
            result.status = "failed"
            cut = "" if seconds < left else f" (the scenario's {seconds_text(scenario_timeout)} limit)"
            if proc.stdin_closed_at is not None:
                since = seconds_text(proc.elapsed() - proc.stdin_closed_at)
                result.detail = f"still running {since} after end of input{cut}"
            else:
                result.detail = f"still running after {seconds_text(proc.elapsed() - result.at)}, its input still " \
                                f"open{cut}"
        elif step.value is not None and code != step.value:  # the scenario says how a correct run ends
            result.status, result.detail = "failed", f"exit status {code}, where this scenario ends with {step.value}"
        else:
            result.detail = f"exit status {code}"


def seconds_text(seconds: float) -> str:
    """A duration for people: "15 s", "2.5 s", "0.25 s"."""
    text = f"{seconds:.2f}" if seconds < 1 else f"{seconds:.1f}" if seconds < 10 else f"{seconds:.0f}"
    return f"{text.rstrip('0').rstrip('.') if '.' in text else text} s"


def ending_text(ended_by: str | None, code: int | None, grace: float = STOP_GRACE_SECONDS) -> str:
    """How the harness ended a program it had to stop, from what the reaper saw: "" when it had exited by itself."""
    if ended_by == "SIGKILL":
        return f"SIGTERM did not end it within {seconds_text(grace)}; killed with SIGKILL"
    if ended_by != "SIGTERM":
        return ""
    if code is not None and code >= 0:
        return f"ended with SIGTERM (it exited with status {code})"
    return "ended with SIGTERM"


def _say_how_it_ended(proc: LiveProcess, record: RunRecord) -> None:
    """Once the harness has ended the program: say how, on the step that gave up on it (a wait_exit or expect that
    failed) and in the run record."""
    record.ending = ending_text(proc.program.ended_by, proc.program.returncode)
    if not record.ending:
        return
    failed = next((s for s in record.steps if s.status == "failed"), None)
    if failed is not None and failed.action in ("wait_exit", "expect"):
        failed.detail = f"{failed.detail}; {record.ending}"


SHIPPED_SCENARIOS = Path(__file__).parent / "scenarios"


def find_scenario(name_or_path: str) -> Path:
    """A scenario file path, or the name of a shipped one (tools/wirecheck/harness/scenarios/<name>.yaml)."""
    path = Path(name_or_path)
    if path.is_file():
        return path
    shipped = SHIPPED_SCENARIOS / f"{name_or_path}.yaml"
    return shipped if shipped.is_file() else path


def shipped_scenarios() -> list[str]:
    return sorted(p.stem for p in SHIPPED_SCENARIOS.glob("*.yaml"))
