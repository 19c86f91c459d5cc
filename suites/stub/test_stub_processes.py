"""`wirecheck stub -- RUNTIME`: the runtime is found where the user is, runs in a scratch folder, and it and
everything it started are ended however the stub ends (the runtime exits, SIGTERM); a SIGTERM still leaves the HAR
and the certification of what was recorded. Each test waits for events (files written, processes gone) with
generous deadlines, never for a time to pass."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="process checks read Linux /proc")

RUNTIME = """#!/bin/sh
# a runtime that starts a child of its own, says where things are, then exits (normal) or waits (wait)
echo "$HOME" > "$1/home.tmp" && mv "$1/home.tmp" "$1/home"
sleep 120 &
echo $! > "$1/child.tmp" && mv "$1/child.tmp" "$1/child.pid"
echo $$ > "$1/runtime.tmp" && mv "$1/runtime.tmp" "$1/runtime.pid"
if [ "$2" = wait ]; then wait; fi
"""


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


def gone(pid: int, seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not alive(pid)


def wait_for(path: Path, process: subprocess.Popen, seconds: float = 60.0) -> str:
    deadline = time.monotonic() + seconds
    while not path.is_file():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)
    return path.read_text().strip()


@pytest.fixture
def runtime(tmp_path, monkeypatch):
    """./rt.sh in the current folder (a relative path: resolved where the user is, not in the scratch folder)."""
    script = tmp_path / "rt.sh"
    script.write_text(RUNTIME)
    script.chmod(0o755)
    marks = tmp_path / "marks"
    marks.mkdir()
    monkeypatch.chdir(tmp_path)
    return marks


def stub(out: Path, *runtime_args: str, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "wirecheck", "stub", "xopc@0.0.253", "--max-seconds", "120",
                             "--out-dir", str(out), "--format", "jsonl", "--", "./rt.sh", *runtime_args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs)


def test_a_runtime_given_as_a_relative_path_runs_and_what_it_started_is_ended(tmp_path, runtime):
    process = stub(tmp_path / "out", str(runtime), "normal")
    _, err = process.communicate(timeout=120)
    assert b"No such file" not in err and process.returncode == 5, err  # it ran, and sent no request: run failed
    child = int((runtime / "child.pid").read_text())
    assert gone(child), f"the runtime's child {child} outlived the stub"
    home = Path((runtime / "home").read_text().strip())
    assert home.name == "home" and not home.parent.exists()  # the scratch folder is gone too
    assert (tmp_path / "out" / "stub.har").is_file()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_stopped_stub_ends_its_runtime_and_still_writes_the_har_and_certification(tmp_path, runtime, signum):
    out = tmp_path / "out"
    process = stub(out, str(runtime), "wait")
    try:
        runtime_pid = int(wait_for(runtime / "runtime.pid", process))
        process.send_signal(signum)
        stdout, err = process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 128 + signum, err
    assert b"Traceback" not in err, err
    child = int((runtime / "child.pid").read_text())
    assert gone(runtime_pid) and gone(child), "the runtime or its child outlived the stub"
    home = Path((runtime / "home").read_text().strip())
    assert not home.parent.exists(), "the runtime's scratch folder was left behind"
    assert orjson.loads((out / "stub.har").read_bytes())["log"]["entries"] == []
    footer = orjson.loads(stdout.splitlines()[-1])
    assert footer["run"]["ok"] is False and f"stopped by {signal.Signals(signum).name}" in str(footer["run"])
    assert (out / "certification.html").is_file()


def test_a_runtime_that_leaves_its_group_is_ended_and_named(tmp_path, monkeypatch):
    script = tmp_path / "rt.py"
    script.write_text(
        "import os, sys, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    for fd in (0, 1, 2):\n"
        "        os.close(fd)\n"
        "    open(sys.argv[1] + '.tmp', 'w').write(str(os.getpid()))\n"
        "    os.rename(sys.argv[1] + '.tmp', sys.argv[1])\n"
        "    os.execve('/bin/sleep', ['sleep', '120'], {})\n"
        "while not os.path.exists(sys.argv[1]):\n"
        "    time.sleep(0.01)\n")
    pidfile = tmp_path / "daemon.pid"
    result = subprocess.run([sys.executable, "-m", "wirecheck", "stub", "xopc@0.0.253", "--max-seconds", "120",
                             "--out-dir", str(tmp_path / "out"), "--", sys.executable, str(script), str(pidfile)],
                            capture_output=True, timeout=120)
    daemon = int(pidfile.read_text())
    assert gone(daemon), f"the runtime's daemon {daemon} outlived the stub"
    assert f"process {daemon} (sleep), started by the command, left its process group".encode() in result.stderr
    assert result.returncode == 5, result.stderr  # it sent no request: the run failed


def test_the_runtime_gets_a_scratch_home_and_no_shell(tmp_path, runtime):
    process = stub(tmp_path / "out", str(runtime), "normal", env={**os.environ, "HOME": "/nonexistent"})
    process.communicate(timeout=120)
    home = (runtime / "home").read_text().strip()
    assert home.endswith("/home") and "wirecheck-run-" in home


def test_a_runtime_that_exits_before_its_first_request_is_a_run_failure_quoting_its_words(tmp_path):
    """Its stderr still reaches the terminal as it comes, and the reports quote its last words."""
    words = "Not logged in · Please run /login"
    result = subprocess.run([sys.executable, "-m", "wirecheck", "stub", "xopc@0.0.253", "--max-seconds", "60",
                             "--out-dir", str(tmp_path / "out"), "--", sys.executable, "-c",
                             f"import sys; print({words!r}, file=sys.stderr); sys.exit(1)"],
                            capture_output=True, timeout=120)
    err = result.stderr.decode()
    assert result.returncode == 5, err
    assert words in err  # relayed to the terminal as it came
    assert f'the program said: "{words}"' in result.stdout.decode()  # and quoted in the report
    text = (tmp_path / "out" / "certification.txt").read_text()
    assert "RUN FAILED" in text and f'the program said: "{words}"' in text


def test_a_runtime_that_floods_stderr_before_exiting_is_quoted_by_its_last_words(tmp_path):
    """The runtime's stderr is read through programs.tail: all of it relayed, its last words quoted from a bounded
    tail whose cut fell inside a character (dropped, no U+FFFD)."""
    words = "Not logged in · Please run /login"
    result = subprocess.run([sys.executable, "-m", "wirecheck", "stub", "xopc@0.0.253", "--max-seconds", "60",
                             "--out-dir", str(tmp_path / "out"), "--format", "jsonl", "--", sys.executable, "-c",
                             "import sys\nfor _ in range(1 << 12):\n    sys.stderr.write('€' * 1000 + '\\n')\n"
                             f"print({words!r}, file=sys.stderr); sys.exit(1)"],
                            capture_output=True, timeout=120)
    assert result.returncode == 5, result.stderr[-2000:]
    assert result.stderr.count("€".encode() * 1000) == 1 << 12  # relayed whole, as it came
    footer = orjson.loads((tmp_path / "out" / "certification.jsonl").read_bytes().splitlines()[-1])
    assert footer["program_said"].endswith(f"€ / {words}") and "\ufffd" not in footer["program_said"]
