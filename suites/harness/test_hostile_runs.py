"""The live harness against programs that fight it: children that escape the process group and keep the pipes
open (or keep running), lines that try to speak for the capture's frame, programs that cannot be started, and
scenario values JSON cannot hold. Every run ends, bounded, with nothing left running."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import orjson
import pytest

from wirecheck.certify.pipeline import certify_captures
from wirecheck.check.engine import CheckOptions
from wirecheck.contracts import load_registry
from wirecheck.harness.process import Limits
from wirecheck.harness.runner import run_scenario
from wirecheck.harness.scenario import Scenario, Step
from wirecheck.programs.program import CommandError, resolve_program

HERE = Path(__file__).parent
HOSTILE = str(HERE / "hostile_cli.py")
CONTRACTS = HERE / "data" / "contracts"


def scenario(*steps: Step, timeout: float = 20.0) -> Scenario:
    return Scenario("hostile", "sdk", "cli", steps or (Step("expect", {"type": "never"}, 3.0),), timeout)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie waiting for init to reap it has ended
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="finding escaped children needs Linux /proc")
@pytest.mark.parametrize("mode", ["escape", "daemon", "bare-daemon"])
def test_a_child_that_leaves_the_group_is_killed_and_reported(tmp_path, mode):
    pidfile = tmp_path / "child.pid"
    started = time.monotonic()
    record = run_scenario([sys.executable, HOSTILE, mode], scenario(), tmp_path / "c.ndjson",
                          env={"HOSTILE_PIDFILE": str(pidfile)})
    elapsed = time.monotonic() - started
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(pid), f"process {pid} outlived the run"
    assert elapsed < 15, elapsed  # the run ends at the expect's 3 s, not when the child would
    assert any(f"process {pid}" in p and "killed" in p for p in record.problems), record.problems
    assert not record.ok


def in_thread(function, seconds: float = 120.0):
    """Call `function` on a thread; its result, or a failure (not a hung test run) if it has not returned in time."""
    import threading

    results: list = []
    worker = threading.Thread(target=lambda: results.append(function()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert results, f"still running after {seconds:g} s"
    return results[0]


def test_a_send_to_a_program_that_does_not_read_its_input_ends_at_the_timeout(tmp_path):
    pidfile = tmp_path / "child.pid"
    big = {"type": "user", "text": "x" * (1 << 20)}  # far more than a pipe holds (64 KiB)
    record = in_thread(lambda: run_scenario(
        [sys.executable, HOSTILE, "hang"], scenario(Step("send", big), Step("close_stdin"), timeout=5.0),
        tmp_path / "c.ndjson", env={"HOSTILE_PIDFILE": str(pidfile)}))
    assert [(s.status, s.detail.split(":")[0]) for s in record.steps] == [
        ("failed", "the process did not read its input"), ("not_run", "")]
    assert "bytes written within the scenario's timeout" in record.steps[0].detail
    assert not alive(int(pidfile.read_text()))


def test_a_line_cannot_speak_for_the_frame_around_it(tmp_path):
    capture = tmp_path / "c.ndjson"
    run_scenario([sys.executable, HOSTILE, "spoof"], scenario(Step("send_raw", '{"type": "user"}, "from": "cli"'),
                                                              Step("wait_exit", timeout=5.0)), capture)
    lines = capture.read_bytes().splitlines()[1:]
    # the sent line and the spoofing received line stay broken frames, each from its real sender
    sent = next(line for line in lines if line.startswith(b'{"from": "sdk"'))
    spoof = next(line for line in lines if b'"x": 1' in line)
    assert spoof.startswith(b'{"from": "cli"')
    for frame in (sent, spoof):
        with pytest.raises(orjson.JSONDecodeError):
            orjson.loads(frame)
    # the program writes without waiting for what is sent: the sent frame may come before or after its lines
    assert orjson.loads(next(line for line in lines if line != sent and line != spoof)) == {
        "from": "cli", "message": {"type": "keep_alive"}}
    release = load_registry(CONTRACTS).load("fakeqoder@1.0.0")
    cert = certify_captures(release, [capture], role="cli")
    well_formed = next(r for r in cert.results if "PARSE_ERROR" in r.requirement.link.builtin)
    assert well_formed.status == "fail"
    assert [f.line for f in well_formed.failures] == [lines.index(spoof) + 2]  # not the harness's own line


def printed(tmp_path: Path, output: bytes, limits: Limits | None = None) -> tuple[Path, list[bytes]]:
    """Run a program that prints `output` as it is; (the capture, its frames after the header and before the
    process record, which the last line is: how the program ended)."""
    source = tmp_path / "output.bin"
    source.write_bytes(output)
    capture = tmp_path / "c.ndjson"
    run_scenario([sys.executable, HOSTILE, "print"], scenario(Step("wait_exit", timeout=10.0)), capture,
                 env={"HOSTILE_OUTPUT": str(source)}, limits=limits)
    lines = capture.read_bytes().split(b"\n")
    assert lines[-2].startswith(b'{"process":') and lines[-1] == b""
    return capture, lines[1:-2]


def well_formed(capture: Path, max_line_bytes: int | None = None):
    release = load_registry(CONTRACTS).load("fakeqoder@1.0.0")
    options = CheckOptions(max_line_bytes=max_line_bytes) if max_line_bytes else None
    cert = certify_captures(release, [capture], role="cli", options=options)
    return next(r for r in cert.results if "PARSE_ERROR" in r.requirement.link.builtin)


def test_received_bytes_are_kept_exactly(tmp_path):
    # a raw carriage return inside a JSON string: invalid JSON to Python's json and to Node's JSON.parse
    broken = b'{"type": "keep_alive", "text": "a\rb"}'
    crlf = b'{"type": "keep_alive"}\r'  # a CRLF line end: the \r is JSON whitespace, kept all the same
    capture, frames = printed(tmp_path, broken + b"\n" + crlf + b"\n")
    assert frames == [b'{"from": "cli", "message": ' + broken + b"}", b'{"from": "cli", "message": ' + crlf + b"}"]
    result = well_formed(capture)
    assert result.status == "fail"
    assert [(f.line, f.code) for f in result.failures] == [(2, "PARSE_ERROR")]


@pytest.mark.parametrize("over", [0, 1])
def test_the_line_limit_applies_to_the_message_not_to_its_frame(tmp_path, over):
    limit = 4096
    head = b'{"type": "keep_alive", "pad": "'
    line = head + b"x" * (limit + over - len(head) - 2) + b'"}'
    assert len(line) == limit + over
    capture, _ = printed(tmp_path, line + b"\n", Limits(max_line_bytes=limit))
    alone = tmp_path / "alone.ndjson"  # the same line read by validate, without a frame
    alone.write_bytes(line + b"\n")
    live, plain = well_formed(capture, limit), well_formed(alone, limit)
    assert (live.status, plain.status) == (("pass", "pass") if over == 0 else ("fail", "fail")), \
        (live.failures, plain.failures)


def test_a_frame_with_two_senders_counts_against_every_role(tmp_path):
    capture = tmp_path / "c.ndjson"
    capture.write_bytes(b'{"wirecheck_capture": 1, "framing": "directed"}\n'
                        b'{"from": "cli", "message": {"type": "keep_alive"}, "from": "sdk"}\n')
    release = load_registry(CONTRACTS).load("fakeqoder@1.0.0")
    cert = certify_captures(release, [capture], role="cli")
    well_formed = next(r for r in cert.results if "DUPLICATE_KEY" in r.requirement.link.builtin)
    assert well_formed.status == "fail" and well_formed.failures[0].code == "DUPLICATE_KEY"


def test_a_relative_program_is_found_where_the_user_is_not_in_the_scratch_folder(tmp_path, monkeypatch):
    program = tmp_path / "cli.sh"
    program.write_text("#!/bin/sh\necho '{\"type\": \"keep_alive\"}'\n")
    program.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    record = run_scenario(["./cli.sh"], scenario(Step("expect", {"type": "keep_alive"}, 5.0)),
                          tmp_path / "c.ndjson")
    assert record.ok, record.as_run()
    assert record.as_run()["identity"]["program_sha256"] is not None


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: str(d / "missing"), "no such file"),
        (lambda d: str(d), "is a directory"),
        (lambda d: (d / "x.sh").write_text("echo") and str(d / "x.sh"), "is not executable"),
        (lambda d: "wirecheck-no-such-program", "not found on PATH"),
        (lambda d: "", "empty string"),
    ],
)
def test_a_command_that_cannot_start_is_named(tmp_path, make, message):
    program = make(tmp_path)
    with pytest.raises(CommandError, match=message):
        resolve_program(program, os.environ.get("PATH"))
    record = run_scenario([program], scenario(), tmp_path / "c.ndjson")
    assert not record.ok and message in record.problems[0] and "cannot start" in record.problems[0]


def test_a_big_integer_is_sent_as_written(tmp_path):
    capture = tmp_path / "c.ndjson"
    big = 123456789012345678901234567890
    record = run_scenario(["/bin/cat"], scenario(Step("send", {"n": big}), Step("expect", {"n": big}, 5.0),
                                                 Step("close_stdin"), Step("wait_exit", timeout=5.0)), capture)
    assert record.ok, record.as_run()
    assert b'"message": {"n":123456789012345678901234567890}}' in capture.read_bytes()


def test_a_flood_of_tiny_lines_stops_at_the_line_limit_and_ends_a_sleep(tmp_path):
    capture = tmp_path / "c.ndjson"
    started = time.monotonic()
    record = run_scenario([sys.executable, HOSTILE, "tiny"], scenario(Step("sleep", 30.0), timeout=60.0), capture,
                          limits=Limits(max_lines=5000))
    assert time.monotonic() - started < 15  # the sleep ends when the run is stopped
    assert "stdout exceeded 5000 lines; the run was stopped" in record.problems
    assert record.steps[0].status == "failed" and "output limit" in record.steps[0].detail
    # the header, the lines within the limit, and how it ended: the harness stopped it
    lines = capture.read_bytes().splitlines()
    assert len(lines) == 5002 and b'"stopped_by_harness":true' in lines[-1]


def live_wirecheck(tmp_path: Path, mode: str, *options: str, **popen):
    """`wirecheck certify --run` of hostile_cli MODE (a scenario that waits 50 s for nothing), started once the
    program has written its pidfile: (the wirecheck process, the pidfile)."""
    import subprocess

    scenario_file = tmp_path / "s.yaml"
    scenario_file.write_text("scenario: 1\nroles: {harness: sdk, implementation: cli}\ntimeout: 60\n"
                             "steps: [{expect: {match: {type: never}, timeout: 50}}]\n")
    pidfile = tmp_path / "child.pid"
    wirecheck = subprocess.Popen(
        [sys.executable, "-m", "wirecheck", "certify", "fakeqoder@1.0.0", "--contracts", str(CONTRACTS), "--run",
         "--scenario", str(scenario_file), *options, "--env", f"HOSTILE_PIDFILE={pidfile}", "--", sys.executable,
         HOSTILE, mode], **popen)
    deadline = time.monotonic() + 30
    while not pidfile.is_file() or not pidfile.read_text():
        if time.monotonic() > deadline or wirecheck.poll() is not None:
            wirecheck.kill()
            pytest.fail(f"the program never started: {wirecheck.communicate()}")
        time.sleep(0.05)
    return wirecheck, pidfile


def test_a_terminated_wirecheck_still_ends_the_command(tmp_path):
    import signal
    import subprocess

    wirecheck, pidfile = live_wirecheck(tmp_path, "hang", "--out-dir", str(tmp_path / "out"), "--format", "jsonl",
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wirecheck.send_signal(signal.SIGTERM)
        out, err = wirecheck.communicate(timeout=60)
    finally:
        wirecheck.kill()
    assert wirecheck.returncode == 128 + signal.SIGTERM and b"Traceback" not in err, err
    pid = int(pidfile.read_text())
    assert not alive(pid), f"process {pid} outlived wirecheck"
    # what was recorded is still certified and reported: the run failed because it was stopped
    assert b"step  1 expect      failed  wirecheck was stopped by SIGTERM" in err, err
    report = orjson.loads(out.splitlines()[-1])
    assert report["run"]["ok"] is False and "stopped by SIGTERM" in report["run"]["problem"], report["run"]
    assert (tmp_path / "out" / "certification.html").is_file()
    assert (tmp_path / "out" / "capture.framed.ndjson").is_file()


def test_a_killed_wirecheck_leaves_nothing_behind(tmp_path):
    """SIGKILL gives wirecheck no chance to clean up: the reaper sees it go and ends the command itself."""
    import signal
    import subprocess

    wirecheck, pidfile = live_wirecheck(tmp_path, "escape", "--capture-out", str(tmp_path / "c.ndjson"),
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wirecheck.send_signal(signal.SIGKILL)
        wirecheck.wait(30)
    finally:
        wirecheck.kill()
    pid = int(pidfile.read_text())  # the child that left the command's group and holds its stdout
    deadline = time.monotonic() + 30
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(pid), f"process {pid} outlived a killed wirecheck"
