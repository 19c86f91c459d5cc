"""wirecheck.programs: the one way programs are started and ended. The live commands' tests (harness, stub,
fuzz-consumer, suites/hostile) drive it through real runs; these pin its own promises. Waits are for events, with
generous bounds."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

from wirecheck.programs.program import Program, Scratch, run
from wirecheck.programs.signals import Terminated, shielded, terminated_by_signals

linux = pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="reads Linux /proc")


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def test_run_collects_output_writes_input_and_reports_the_exit_code():
    done = run([sys.executable, "-c", "import sys; data = sys.stdin.buffer.read(); sys.stdout.buffer.write(data[::-1]);"
                                      " sys.stderr.write('note'); sys.exit(3)"],
               env=dict(os.environ), input=b"abc", timeout=60)
    assert (done.returncode, done.stdout, done.stderr, done.problems) == (3, b"cba", b"note", [])


def test_run_stops_a_program_at_its_timeout_with_everything_it_started(tmp_path):
    pidfile = tmp_path / "child.pid"
    code = ("import os, subprocess, sys, time\n"
            "child = subprocess.Popen(['sleep', '300'])\n"
            f"open({str(pidfile)!r}, 'w').write(str(child.pid))\n"
            "time.sleep(300)\n")
    started = time.monotonic()
    done = run([sys.executable, "-c", code], env=dict(os.environ), timeout=3)
    assert done.returncode is None and time.monotonic() - started < 60
    assert not alive(int(pidfile.read_text()))


def test_run_bounds_what_it_keeps_and_what_it_writes():
    # more than a pipe holds, to a program that never reads, and more output than is kept
    done = run([sys.executable, "-c", "import sys, time; sys.stdout.write('x' * 300_000); sys.stdout.flush(); "
                                      "time.sleep(300)"],
               env=dict(os.environ), input=b"y" * (1 << 20), timeout=3, max_output=1000)
    assert done.returncode is None and done.stdout == b"x" * 1000


def test_run_streams_stdout_into_a_file_bounded_and_counts_what_it_dropped(tmp_path):
    """`git archive`'s tar goes to a file, not to memory: the first `max_output` bytes written, all counted."""
    with (tmp_path / "out").open("wb") as out:
        done = run([sys.executable, "-c", "import sys; sys.stdout.buffer.write(b'x' * 300_000)"], env=dict(os.environ),
                   timeout=60, stdout_to=out, max_output=200_000)
    assert (done.returncode, done.stdout, done.stdout_total, done.stdout_error) == (0, b"", 300_000, None)
    assert (tmp_path / "out").read_bytes() == b"x" * 200_000
    done = run([sys.executable, "-c", "print('short')"], env=dict(os.environ), timeout=60)
    assert (done.stdout, done.stdout_total) == (b"short\n", 6)


def test_run_reads_to_the_end_when_the_file_cannot_be_written(tmp_path):
    """A full disk (a closed file here) stops the writing, not the reading: the program never blocks on its pipe."""
    out = (tmp_path / "out").open("wb")
    out.close()
    started = time.monotonic()
    done = run([sys.executable, "-c", "import sys; sys.stdout.buffer.write(b'x' * 1_000_000)"], env=dict(os.environ),
               timeout=60, stdout_to=out)
    assert done.returncode == 0 and done.stdout_total == 1_000_000 and "closed file" in (done.stdout_error or "")
    assert time.monotonic() - started < 30


def test_why_a_run_failed_is_said_with_its_last_words():
    code = "import sys; sys.stderr.write('npm error code E404\\nnpm error 404 Not Found\\n'); sys.exit(1)"
    done = run([sys.executable, "-c", code], env=dict(os.environ), timeout=60)
    assert done.failure() == "failed (exit 1): npm error code E404\nnpm error 404 Not Found"
    assert run([sys.executable, "-c", "pass"], env=dict(os.environ), timeout=60).failure() is None
    silent = run([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"],
                 env=dict(os.environ), timeout=60)
    assert silent.failure() == "failed (signal 9), saying nothing on stderr"
    slow = run([sys.executable, "-c", "import sys, time; sys.stderr.write('fetching'); sys.stderr.flush(); "
                                      "time.sleep(300)"], env=dict(os.environ), timeout=2)
    assert slow.failure() == ("did not finish within 2 s and was stopped, with all it started; it had said: "
                               "fetching")


def test_scratch_env_passes_named_variables_and_prefixes_only(monkeypatch):
    monkeypatch.setenv("npm_config_registry", "https://registry.example.invalid/")
    monkeypatch.setenv("NPM_CONFIG_CACHE", "/somewhere")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example.invalid:3128")
    monkeypatch.setenv("NPMRC_SECRET", "no")
    with Scratch.create() as scratch:
        env = scratch.env({"npm_config_logs_max": "0"}, pass_through=("HTTPS_PROXY",),
                          pass_prefixes=("npm_config_", "NPM_CONFIG_"))
        assert env["npm_config_registry"] == "https://registry.example.invalid/"
        assert (env["NPM_CONFIG_CACHE"], env["HTTPS_PROXY"], env["npm_config_logs_max"]) == \
            ("/somewhere", "http://proxy.example.invalid:3128", "0")
        assert "NPMRC_SECRET" not in env and env["HOME"] == str(scratch.root / "home")
        assert "npm_config_registry" not in scratch.env()  # no prefix: nothing of them
        assert scratch.root.is_dir()
    assert not scratch.root.exists()  # removed when the block ends


def test_an_argument_that_is_not_utf8_reaches_the_program_as_its_bytes():
    argument = os.fsdecode(b"caf\xe9-\xff")  # a lone surrogate in Python: what a non-UTF-8 file name becomes
    done = run([sys.executable, "-c", "import os, sys; sys.stdout.buffer.write(os.fsencode(sys.argv[1]))", argument],
               env={**os.environ, "X": argument}, timeout=60)
    assert done.stdout == b"caf\xe9-\xff"


def test_a_program_that_cannot_start_is_an_oserror(tmp_path):
    with pytest.raises(OSError):
        Program([str(tmp_path / "missing")], env=dict(os.environ))


@linux
def test_a_daemon_with_no_environment_is_found_killed_and_named(tmp_path):
    pidfile = tmp_path / "daemon.pid"
    code = ("import os\n"
            "if os.fork() == 0:\n"
            "    os.setsid()\n"
            f"    open({str(pidfile)!r} + '.tmp', 'w').write(str(os.getpid()))\n"
            f"    os.rename({str(pidfile)!r} + '.tmp', {str(pidfile)!r})\n"
            "    os.execve('/bin/sleep', ['sleep', '300'], {})\n"
            f"while not os.path.exists({str(pidfile)!r}):\n    pass\n")
    scratch = Scratch.create()
    try:
        done = run([sys.executable, "-c", code], env=scratch.env(), timeout=60)
    finally:
        scratch.remove()
    daemon = int(pidfile.read_text())
    assert not alive(daemon)
    assert done.returncode == 0 and len(done.problems) == 1
    assert done.problems[0].startswith(f"process {daemon} (sleep), started by the command, left its process group")


def test_sigterm_raises_terminated_and_a_shielded_cleanup_finishes_first():
    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGHUP)
    finished = []
    with pytest.raises(Terminated) as raised, terminated_by_signals(), shielded():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.2)  # the handler runs here: noted, not raised
        finished.append("cleanup")
    assert finished == ["cleanup"]
    assert raised.value.exit_code == 128 + signal.SIGTERM and raised.value.name == "SIGTERM"
    with pytest.raises(Terminated), terminated_by_signals():
        os.kill(os.getpid(), signal.SIGHUP)
        time.sleep(5)  # interrupted by the handler
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGHUP)) == before  # restored


@linux
def test_a_start_interrupted_by_a_signal_ends_what_the_reaper_started(tmp_path, monkeypatch):
    # the program is running when Terminated arrives, before wirecheck has read its pid: the reaper must end it
    # (a SIGKILLed reaper left the program running in its own group)
    pidfile = tmp_path / "program.pid"
    code = (f"import os, time\nopen({str(pidfile)!r} + '.tmp', 'w').write(str(os.getpid()))\n"
            f"os.rename({str(pidfile)!r} + '.tmp', {str(pidfile)!r})\ntime.sleep(300)\n")

    def interrupted(self):
        deadline = time.monotonic() + 60
        while not pidfile.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        raise Terminated(signal.SIGTERM)

    monkeypatch.setattr(Program, "_read", interrupted)
    with pytest.raises(Terminated):
        Program([sys.executable, "-c", code], env=dict(os.environ))
    assert not alive(int(pidfile.read_text()))


@pytest.mark.parametrize(("code", "ended_by", "returncode"), [
    # exits by itself before the stop: the stop ended nothing
    ("UP; sys.exit(4)", None, 4),
    # SIGTERM's default action
    ("UP; time.sleep(300)", "SIGTERM", -signal.SIGTERM),
    # a handler that exits with its own status, as qodercli does
    ("signal.signal(signal.SIGTERM, lambda *a: sys.exit(1)); UP; time.sleep(300)", "SIGTERM", 1),
    # ignores SIGTERM: the grace passes and SIGKILL ends it
    ("signal.signal(signal.SIGTERM, signal.SIG_IGN); UP; time.sleep(300)", "SIGKILL", -signal.SIGKILL),
])
def test_stop_says_what_ended_the_program(code, ended_by, returncode):
    up = "print('up', flush=True)"  # once its handlers are in place
    program = Program([sys.executable, "-c", f"import signal, sys, time; {code.replace('UP', up)}"],
                      env=dict(os.environ))
    assert program.stdout is not None and program.stdout.readline() == b"up\n"
    if ended_by is None:
        assert program.wait(60) == returncode
    problems = program.stop(grace=1.0)
    assert (program.ended_by, program.returncode, problems) == (ended_by, returncode, [])


OWNER = """import os, signal, sys, time
from wirecheck.programs.program import Program, Scratch
scratch = Scratch.create(keep=sys.argv[1] == "keep")
program = Program([sys.executable, "-c", "import time; time.sleep(300)"], env=scratch.env(), cwd=scratch.root / "work",
                  scratch=scratch)
print(scratch.root, program.pid, flush=True)
if sys.argv[1] == "stop":
    program.stop()
    print("stopped", scratch.root.exists(), flush=True)
    time.sleep(300)
os.kill(os.getpid(), signal.SIGKILL)
"""


@linux
@pytest.mark.parametrize("how", ["killed", "keep", "stop"])
def test_the_reaper_removes_the_scratch_folder_of_a_wirecheck_that_was_killed(tmp_path, how):
    """wirecheck killed (SIGKILL: no `finally` runs) while its program runs: the reaper ends the program and removes
    the scratch folder, which nobody else would (issue 31, defect 11). A folder kept (--keep-scratch) is kept; one
    whose program wirecheck stopped is its owner's to remove, and the reaper leaves it."""
    import subprocess

    owner = subprocess.Popen([sys.executable, "-c", OWNER, how], stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "TMPDIR": str(tmp_path)})
    root, pid = owner.stdout.readline().split()
    if how == "stop":
        assert owner.stdout.readline().split() == ["stopped", "True"]
        owner.kill()
    owner.wait(60)
    deadline = time.monotonic() + 30
    while (alive(int(pid)) or (Path(root).exists() and how == "killed")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(int(pid))
    if how != "killed":
        time.sleep(0.5)  # the reaper is done with the program: it would have removed the folder by now
        assert Path(root).exists()
        Scratch(Path(root)).remove()
    assert not Path(root).exists()
