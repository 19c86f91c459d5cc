"""The hostile-input suite's one runner: every case (hostile_cases.py: captures, schemas, YAML; input_cases.py: the
files other than captures; live_cases.py: programs and platforms for the live commands; contract_cases.py:
contracts folders and packs someone else wrote, schemas to import, formats to generate; report_cases.py: hostile
names in every report format of every command) run as `wirecheck` in a
process group of its own under a `wirecheck.programs.Program` (its reaper adopts whatever leaves the group), and
held to the same guarantees: an exit
code in the case's set (a subset of hostile_cases.ALLOWED: never 3, the code of a bug, never a signal, no
traceback), its wall-clock budget (a hang is a failure, not a slow run), nothing left in its process group and
nothing that left the group still running once wirecheck has exited, and the README's memory limit (peak resident
memory, measured by wait4 in measure.py). Cases marked large are the slow tier: `nox -s hostile`."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import contract_cases  # noqa: F401  (registers its cases)
import hostile_cases
import input_cases  # noqa: F401  (registers its cases)
import live_cases  # noqa: F401  (registers its cases)
import number_cases  # noqa: F401  (registers its cases)
import output_cases  # noqa: F401  (registers its cases)
import report_cases  # noqa: F401  (registers its cases)
import secret_cases  # noqa: F401  (registers its cases)
from hostile_cases import CASES, Case, Feed, Interrupt, Run, Workspace

from wirecheck.programs.program import Program

ADDRESS_SPACE_CAP = 4 << 30  # RLIMIT_AS: a runaway stops here instead of taking the machine (the budget is RSS)


@dataclass
class Finished:
    code: int
    stdout: str
    stderr: str
    peak_mib: float
    seconds: float
    root: Path  # the case's folder: its inputs, and what the run wrote there


MEASURE = Path(__file__).with_name("measure.py")


@pytest.fixture(scope="session")
def hypothesis_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache folder (XDG_CACHE_HOME) whose Hypothesis Unicode tables are already built. wirecheck keeps Hypothesis's
    storage in `$XDG_CACHE_HOME/wirecheck/hypothesis` (lazy.hypothesis_home) and Hypothesis builds the tables (the
    characters of each category, those UTF-8 can encode) where they are missing (250 MiB peak for a moment, measured
    with measure.py): a one-time cost per user, not one that grows with the input, so each case starts with them, as
    a user's second run does."""
    home = tmp_path_factory.mktemp("cache-home")
    subprocess.run([sys.executable, "-c", "from wirecheck.lazy import hypothesis_home; hypothesis_home(); "
                    "from hypothesis.internal.charmap import charmap, intervals_from_codec; "
                    "charmap(); intervals_from_codec('utf-8')"], cwd=home,
                   env={**os.environ, "XDG_CACHE_HOME": str(home)}, check=True, timeout=600)
    assert (home / "wirecheck" / "hypothesis").is_dir()
    return home


def run_case(case: Case, root: Path, hypothesis_home: Path | None = None) -> tuple[Run, Finished]:
    with contextlib.ExitStack() as serving:  # a platform the case serves lives as long as the run
        run = case.build(Workspace(root, serving))
        return run, _run(case, run, root, hypothesis_home)


def _run(case: Case, run: Run, root: Path, hypothesis_home: Path | None) -> Finished:
    cache = {"XDG_CACHE_HOME": str(hypothesis_home)} if hypothesis_home is not None else {}
    env = {**os.environ, **cache, "WIRECHECK_CONTRACTS": str(run.contracts), "PYTHONFAULTHANDLER": "1", **run.env}
    env.pop("WIRECHECK_DEBUG", None)
    out, err, measured = root / "stdout.txt", root / "stderr.txt", root / "measured.json"
    if isinstance(run.stdin, bytes):
        (root / "stdin.bin").write_bytes(run.stdin)
    stdin_path = run.stdin if isinstance(run.stdin, Path) else root / "stdin.bin" if run.stdin is not None else None
    started = time.monotonic()
    # measure.py forks the command (so its peak memory is its own) and leads the process group the reaper starts it
    # in: everything the command starts is in that group unless it leaves it, and then the reaper adopts it
    file_size = [] if run.file_size is None else [str(run.file_size)]
    command = [sys.executable, str(MEASURE), str(measured), str(ADDRESS_SPACE_CAP), str(int(case.seconds * 2)),
               *file_size, "--", sys.executable, "-m", "wirecheck", *run.args]
    writer = None
    with contextlib.ExitStack() as streams:
        stdout, stderr = streams.enter_context(out.open("wb")), streams.enter_context(err.open("wb"))
        if isinstance(run.stdin, Feed):
            read_end, write_end = os.pipe()
            streams.callback(os.close, read_end)  # the command's copy is its own: the writer sees only the command
            writer = _Writer(write_end, run.stdin)
            stdin: Any = read_end
        else:
            stdin = streams.enter_context((stdin_path if stdin_path is not None else Path(os.devnull)).open("rb"))
        program = Program(command, env=env, cwd=root, stdin=stdin, stdout=stdout, stderr=stderr)
    if writer is not None:
        writer.start()
    try:
        if run.interrupt is not None:
            _interrupt(case, run.interrupt, root, program, started)
        code = program.wait(max(case.seconds - (time.monotonic() - started), 0.0))
        seconds = time.monotonic() - started
        left = _left_in_group(program.pid) if code is not None else 0
        if run.interrupt is not None and code is not None:
            # what the command left to end itself once it was gone (its own reapers clean up after it) is given the
            # same grace as its process group before the runner's reaper names it
            _left_under(program, grace=15.0)
        blocked = writer is not None and not writer.ended(grace=5.0)  # before the runner's reaper ends anything
    finally:
        escaped = program.stop(grace=5.0)  # ends what is left; names each process that had left the group
    if code is None:
        pytest.fail(f"{case.id}: still running after {case.seconds:g} s (a hang); stderr: "
                    f"{err.read_text(errors='replace')[-2000:]}")
    assert not left, f"{case.id}: left {left} process(es) running in its process group"
    assert escaped == [], f"{case.id}: {escaped}"
    assert not blocked, f"{case.id}: the process writing to its standard input stayed blocked after it ended"
    result = json.loads(measured.read_text())
    return Finished(result["code"], out.read_text(errors="replace"), err.read_text(errors="replace"),
                    result["peak_kib"] / 1024, seconds, root)


class _Writer(threading.Thread):
    """Writes a Feed into the command's standard input, as `cat big |` would, until the feed ends or nobody reads."""

    def __init__(self, fd: int, feed: Feed):
        super().__init__(daemon=True, name="hostile-stdin")
        self.fd, self.feed = fd, feed

    def run(self) -> None:
        with contextlib.suppress(OSError), open(self.fd, "wb", buffering=0) as pipe:
            for _ in range(self.feed.count):
                pipe.write(self.feed.chunk)

    def ended(self, grace: float) -> bool:
        self.join(grace)
        return not self.is_alive()


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as listing:
            return [int(child) for child in listing.read().split()]
    except OSError:
        return []


def _interrupt(case: Case, interrupt: Interrupt, root: Path, program: Program, started: float) -> None:
    """Send the interrupt's signal to the `wirecheck` process (measure.py's child) once it is ready."""
    while time.monotonic() - started < case.seconds and program.poll() is None:
        command = _children(program.pid)
        if command and interrupt.ready(root, command[0]):
            os.kill(command[0], interrupt.signum)
            return
        time.sleep(0.05)
    pytest.fail(f"{case.id}: never ready for its {signal.Signals(interrupt.signum).name} (exit {program.poll()})")


def _left_under(program: Program, grace: float) -> None:
    """Wait up to `grace` seconds for the processes under the runner's reaper (orphans it adopted) to end."""
    reaper = program._reaper.pid
    deadline = time.monotonic() + grace
    while _children(reaper) and time.monotonic() < deadline:
        time.sleep(0.1)


def _left_in_group(pgid: int, grace: float = 5.0) -> int:
    """How many processes are still in the group once `grace` seconds have passed for them to end on their own (a
    process pool's forkserver and resource tracker end when they see the pipe of the command that started them
    close; the same grace the live commands' reaper gives)."""
    deadline = time.monotonic() + grace
    while _in_group(pgid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return _in_group(pgid)


def _in_group(pgid: int) -> int:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return 0
    return len([pid for pid in os.listdir("/proc") if pid.isdigit() and _pgid(int(pid)) == pgid]) or 1


def _pgid(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except OSError:
        return None


def _params(large: bool) -> list:
    return [pytest.param(c, id=c.id, marks=[pytest.mark.slow] if c.large else []) for c in CASES if c.large == large]


@pytest.mark.parametrize("case", _params(large=False))
def test_hostile_input(case: Case, tmp_path: Path, hypothesis_home: Path) -> None:
    check(case, tmp_path, hypothesis_home)


@pytest.mark.parametrize("case", _params(large=True))
def test_hostile_input_large(case: Case, tmp_path: Path, hypothesis_home: Path) -> None:
    check(case, tmp_path, hypothesis_home)


def check(case: Case, root: Path, hypothesis_home: Path | None = None) -> None:
    run, finished = run_case(case, root, hypothesis_home)
    print(f"hostile: {case.id}: exit {finished.code}, peak {finished.peak_mib:.0f} MiB of {case.memory_mib}, "
          f"{finished.seconds:.1f} s")  # shown with -s (nox -s hostile): the numbers behind the limits table
    if run.interrupt is not None:  # the code is the signal's; everything else is held as for any case
        assert finished.code == run.interrupt.code, (
            f"{case.id}: exit {finished.code} after {signal.Signals(run.interrupt.signum).name}, expected "
            f"{run.interrupt.code}\n{finished.stderr[-3000:]}")
    else:
        assert finished.code >= 0, f"{case.id}: killed by signal {-finished.code}\n{finished.stderr[-3000:]}"
        assert finished.code != 3, f"{case.id}: internal error (exit 3)\n{finished.stderr[-3000:]}"
    assert "Traceback" not in finished.stderr, f"{case.id}: a traceback\n{finished.stderr[-3000:]}"
    if run.interrupt is None:
        assert finished.code in case.codes, (f"{case.id}: exit {finished.code}, expected one of "
                                             f"{sorted(case.codes)}\n{finished.stderr[-3000:]}")
    assert finished.peak_mib <= case.memory_mib, (
        f"{case.id}: peak memory {finished.peak_mib:.0f} MiB over its budget of {case.memory_mib} MiB")
    if run.expect is not None:
        assert run.expect(finished) is not False, f"{case.id}: {run.expect}\n{finished.stderr[-3000:]}"


def test_every_command_has_hostile_cases() -> None:
    """A command without a hostile case is a command nobody has attacked."""
    from wirecheck.cli.app import COMMAND_MODULES  # noqa: F401  (the app lists its command groups)

    covered = {c.command for c in CASES}
    for command in ("validate", "diff", "diff-schemas", "fuzz", "certify", "show", "contracts", "stub", "probe",
                    "fuzz-consumer", "import"):
        assert command in covered, command
    assert hostile_cases.MEMORY_MIB >= hostile_cases.MEMORY_BASE_MIB


# -- the runner's own guarantees fail when they should ---------------------------------------------------------------

# Loaded at start-up by the Pythons of a case's run (PYTHONPATH): misbehaves in the `wirecheck` process only.
MISBEHAVING = """import os, signal, subprocess, sys
if sys.orig_argv[1:3] == ["-m", "wirecheck"]:
    {}
"""


@pytest.mark.parametrize(("misbehaviour", "says"), [
    ("os._exit(3)", r"internal error \(exit 3\)"),
    ("os.kill(os.getpid(), signal.SIGKILL)", "killed by signal 9"),
    ("sys.stderr.write('Traceback (most recent call last):')", "a traceback"),
    ("os._exit(5)", r"exit 5, expected one of \[0\]"),
    ("sys.modules['hog'] = bytearray(300 << 20)", "peak memory 3"),
    ("subprocess.Popen(['sleep', '300'])", r"left 1 process\(es\) running in its process group"),
    ("subprocess.Popen(['sleep', '300'], start_new_session=True)", "left its process group and was still running"),
], ids=["exit 3", "a signal", "a traceback", "another exit code", "memory", "a process left", "a process escaped"])
def test_the_runner_fails_a_case_that_breaks_a_guarantee(tmp_path: Path, misbehaviour: str, says: str) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(MISBEHAVING.format(misbehaviour))
    root = tmp_path / "case"
    root.mkdir()
    broken = Case("contracts", "misbehaves", lambda ws: Run(["contracts"], env={"PYTHONPATH": str(site)}),
                  frozenset({0}))
    with pytest.raises(AssertionError, match=says):
        check(broken, root)
