"""Start a program the one way wirecheck starts programs (see the package docstring), and end it with all it
started."""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from wirecheck.programs.signals import shielded
from wirecheck.programs.tail import Tail

REAPER = Path(__file__).with_name("reaper.py")
PASSED_ENV = ("PATH", "LANG", "LC_ALL", "SYSTEMROOT")
# what a program that fetches from the network needs of the user's environment to get there (a proxy, a company's
# certificate authority): passed to npm, npx and pip beside their own settings' variables
NETWORK_ENV = ("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "no_proxy",
               "all_proxy", "SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE")
START_SECONDS = 60.0  # for the reaper to start the program and say so (a Python start-up on a loaded machine)
STOP_GRACE_SECONDS = 2.0  # between SIGTERM to the program's group and SIGKILL
DEFAULT = subprocess.PIPE


@dataclass
class Scratch:
    """A private folder standing in for the user's home, config, cache and temp directories."""

    root: Path
    keep: bool = False

    @classmethod
    def create(cls, keep: bool = False) -> Scratch:
        root = Path(tempfile.mkdtemp(prefix="wirecheck-run-"))  # reaper.SCRATCH_PREFIX: the folders it removes
        for name in ("home", "config", "cache", "data", "state", "tmp", "work"):
            (root / name).mkdir()
        return cls(root, keep)

    def env(self, extra: Mapping[str, str] = {}, pass_through: Sequence[str] = (),
            pass_prefixes: Sequence[str] = ()) -> dict[str, str]:
        """The program's environment: PATH, the locale, the variables named in `pass_through` and those starting
        with one of `pass_prefixes` (a tool's settings given as variables: `npm_config_`, `PIP_`), taken from
        wirecheck's own environment; HOME, XDG_* and TMPDIR in the scratch folder; then `extra`."""
        prefixes = tuple(pass_prefixes)
        names = (*PASSED_ENV, *pass_through, *(name for name in os.environ if prefixes and name.startswith(prefixes)))
        env = {name: os.environ[name] for name in names if name in os.environ}
        env.setdefault("LANG", "C.UTF-8")
        env.update({
            "HOME": str(self.root / "home"),
            "XDG_CONFIG_HOME": str(self.root / "config"),
            "XDG_CACHE_HOME": str(self.root / "cache"),
            "XDG_DATA_HOME": str(self.root / "data"),
            "XDG_STATE_HOME": str(self.root / "state"),
            "TMPDIR": str(self.root / "tmp"),
            "TMP": str(self.root / "tmp"),
            "TEMP": str(self.root / "tmp"),
        })
        env.update(extra)
        return env

    def remove(self) -> None:
        """Remove the folder. A second remover may be at work on it (the reaper, when wirecheck is stopped by a
        signal) or a process of the program's still finishing a write: a pass that leaves the folder is tried
        again, a few times, so nothing is left behind by the race."""
        if self.keep:
            return
        for attempt in range(5):
            shutil.rmtree(self.root, ignore_errors=True)
            if not self.root.exists():
                return
            time.sleep(0.05 * (attempt + 1))

    def __enter__(self) -> Scratch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


class CommandError(ValueError):
    """The command cannot be started: not found, a directory, not executable. `str()` says which and why."""


def resolve_program(program: str, path: str | None = None) -> str:
    """The absolute path of the program to start: a name is looked up on `path` (the PATH the command will get), a
    path with a slash is taken relative to the current folder (the command itself runs in a scratch folder, where a
    relative path would mean something else). CommandError when it cannot be started."""
    if not program:
        raise CommandError("the command is an empty string")
    if os.sep in program or (os.altsep and os.altsep in program):
        candidate = Path(program).absolute()
        if not candidate.exists():
            raise CommandError(f"{program!r}: no such file")
    else:
        found = shutil.which(program, path=path)
        if found is None:
            for folder in (path or "").split(os.pathsep):
                there = Path(folder or ".") / program
                if there.exists():
                    candidate = there.absolute()
                    break
            else:
                raise CommandError(f"{program!r}: not found on PATH")
        else:
            candidate = Path(found).absolute()
    if candidate.is_dir():
        raise CommandError(f"{program!r}: is a directory ({candidate})")
    if not os.access(candidate, os.X_OK):
        raise CommandError(f"{program!r}: is not executable ({candidate})")
    return str(candidate)


# -- a running program ------------------------------------------------------------------------------------------


class Program:
    """A program started under the reaper (see the module docstring). `stdin`, `stdout`, `stderr` are what
    subprocess.Popen takes (PIPE, DEVNULL, a file descriptor, None to share wirecheck's); with PIPE, the streams are
    this object's `stdin`/`stdout`/`stderr`, connected to the program itself. `scratch`: the program's scratch
    folder, which the reaper removes should wirecheck end without doing so (killed); its owner removes it otherwise
    (a folder kept with `keep` is not given). OSError when it cannot be started."""

    def __init__(self, argv: Sequence[str], *, env: Mapping[str, str], cwd: str | Path | None = None,
                 stdin: Any = DEFAULT, stdout: Any = DEFAULT, stderr: Any = DEFAULT, scratch: Scratch | None = None):
        if not argv:
            raise ValueError("no command to run")
        self.argv = list(argv)
        self.returncode: int | None = None
        self.escaped: list[dict[str, Any]] = []
        self.left = 0
        # what ended the program once `stop` has run: "SIGTERM" (it exited within the grace), "SIGKILL" (it did
        # not), None (it had exited by itself, or the reaper could not say)
        self.ended_by: str | None = None
        self.exited_at: float | None = None  # time.monotonic() when the reaper saw it exit
        self._exited = threading.Event()
        self._done = threading.Event()
        self._reported = False  # the reaper said everything was ended (not: it died)
        self._stopped = False
        ours, theirs = socket.socketpair()
        try:
            self._reaper = subprocess.Popen(
                [sys.executable, "-I", "-S", "-X", "utf8", str(REAPER), str(theirs.fileno())],
                stdin=stdin, stdout=stdout, stderr=stderr, pass_fds=(theirs.fileno(),), start_new_session=True,
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        self._control = ours
        self._lines = ours.makefile("rb")
        self.stdin: IO[bytes] | None = self._reaper.stdin
        self.stdout: IO[bytes] | None = self._reaper.stdout
        self.stderr: IO[bytes] | None = self._reaper.stderr
        try:
            # json, not orjson: an argument or variable that is not UTF-8 arrives as a lone surrogate (Python's
            # surrogateescape) and must leave the reaper as the bytes it was
            removed = None if scratch is None or scratch.keep else str(scratch.root)
            ours.sendall(json.dumps({"argv": self.argv, "env": dict(env), "cwd": None if cwd is None else str(cwd),
                                     "scratch": removed}).encode() + b"\n")
            ours.settimeout(START_SECONDS)
            first = self._read()
            ours.settimeout(None)
        except BaseException:
            self._abandon()
            raise
        if first is None or "pid" not in first:
            self._abandon()
            if first is None:
                raise OSError(f"the reaper did not start {self.argv[0]!r}")
            raise OSError(int(first.get("error") or 0), str(first.get("message")), self.argv[0])
        self.pid: int = int(first["pid"])
        self._listener = threading.Thread(target=self._listen, daemon=True, name="wirecheck-reaper")
        self._listener.start()

    def _read(self) -> dict[str, Any] | None:
        try:
            value = json.loads(self._lines.readline())
        except (OSError, ValueError):  # end of file (b"" is not JSON), a closed socket
            return None
        return value if isinstance(value, dict) else None

    def _listen(self) -> None:
        while (message := self._read()) is not None:
            if "exit" in message:
                self.exited_at = time.monotonic()
                self.returncode = int(message["exit"])
                self._exited.set()
            elif message.get("done"):
                self.escaped = list(message.get("escaped") or [])
                self.left = int(message.get("left") or 0)
                ended_by = message.get("ended_by")
                self.ended_by = ended_by if ended_by in ("SIGTERM", "SIGKILL") else None
                self._reported = True
                break
        self._exited.set()
        self._done.set()

    def _abandon(self) -> None:
        """Starting failed or was interrupted (a signal) before the program was known: the socket closed, the reaper
        ends whatever it may have started already, as when wirecheck dies; killed if it does not end."""
        for end in (self._lines, self._control):
            with contextlib.suppress(OSError, ValueError):
                end.close()
        try:
            self._reaper.wait(START_SECONDS)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(OSError):
                self._reaper.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._reaper.wait(10)
        for stream in (self.stdin, self.stdout, self.stderr):
            with contextlib.suppress(OSError, ValueError):
                if stream is not None:
                    stream.close()

    # -- while it runs ------------------------------------------------------------------------------------

    def poll(self) -> int | None:
        return self.returncode

    def wait(self, timeout: float | None = None) -> int | None:
        """The exit code once the program has exited (-N for signal N), or None when `timeout` passed first."""
        self._exited.wait(None if timeout is None else max(timeout, 0.0))
        return self.returncode

    def write(self, data: bytes, deadline: float, stop: threading.Event | None = None) -> int:
        """Write `data` to the program's stdin, giving up at `deadline` (time.monotonic) or when `stop` is set: the
        number of bytes written (all of them, or fewer when it stopped reading in time); -1 once stdin is closed
        (the program exited or closed it)."""
        stdin = self.stdin
        if stdin is None or stdin.closed:
            return -1
        try:
            stdin.flush()
            fd = stdin.fileno()
            os.set_blocking(fd, False)
        except (OSError, ValueError):
            return -1
        view, done = memoryview(data), 0
        while done < len(view):
            left = deadline - time.monotonic()
            if left <= 0 or (stop is not None and stop.is_set()):
                break
            try:
                _, ready, _ = select.select([], [fd], [], min(left, 0.25))
                if ready:
                    done += os.write(fd, view[done:done + 65536])
            except BlockingIOError:
                continue
            except (OSError, ValueError):
                return -1
        return done

    def close_stdin(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            if self.stdin is not None:
                self.stdin.close()

    # -- the end ----------------------------------------------------------------------------------------------

    def stop(self, grace: float = STOP_GRACE_SECONDS) -> list[str]:
        """End the program and everything it started (see the module docstring); the problems to report: each
        process that had left the program's group, and anything that could not be ended. Idempotent; no signal
        cuts it short."""
        if self._stopped:
            return []
        self._stopped = True
        problems: list[str] = []
        with shielded():
            with contextlib.suppress(OSError):
                self._control.sendall(json.dumps({"stop": grace}).encode() + b"\n")
            if not self._done.wait(grace + 30.0):
                problems.append("the reaper did not report the end of the command's processes; they were killed")
            elif not self._reported:
                problems.append("the reaper ended before the command did (was it killed, by the command?); what "
                                "could still be reached was killed")
            if self.returncode is None or not self._reported:
                # the reaper died (the program killed its parent?) or hangs: end what can still be reached
                with contextlib.suppress(OSError):
                    os.killpg(self.pid, signal.SIGKILL)
                with contextlib.suppress(OSError):
                    self._reaper.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._reaper.wait(10)
            self._listener.join(5)
            for stream in (self._lines, self._control, self.stdin):  # stdout and stderr: their readers close them
                with contextlib.suppress(OSError, ValueError):
                    if stream is not None:
                        stream.close()
        for process in self.escaped:
            problems.append(f"process {process['pid']} ({process['name']}), started by the command, left its process "
                            "group and was still running when the command ended; it was killed")
        if self.left:
            problems.append(f"{self.left} processes started by the command could not be ended")
        return problems

    def __enter__(self) -> Program:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


# -- a program run to its end ----------------------------------------------------------------------------------

MAX_RUN_OUTPUT = 64 << 20  # of each of stdout and stderr that `run` keeps


@dataclass
class Completed:
    returncode: int | None  # None: still running at the timeout, and stopped
    stdout: bytes  # empty when it went to `stdout_to`
    stderr: bytes
    problems: list[str]  # what Program.stop found left behind
    stdout_total: int = 0  # bytes the program wrote on stdout, kept or not (more than `max_output`: some dropped)
    stdout_error: str | None = None  # why `stdout_to` could not be written (what was read past it was dropped)
    timeout: float = 0.0  # the seconds it was given

    def failure(self) -> str | None:
        """Why the run failed, in words that follow the command's name ("npm pack x@1.0.0 failed (exit 1): …"),
        the end of its stderr quoted (its last 2,000 characters); None when it exited 0."""
        said = self.stderr.decode("utf-8", "replace").strip()[-2000:]
        if self.returncode is None:
            ended = f"did not finish within {self.timeout:g} s and was stopped, with all it started"
            return f"{ended}; it had said: {said}" if said else ended
        if self.returncode == 0:
            return None
        ended = f"failed (signal {-self.returncode})" if self.returncode < 0 else f"failed (exit {self.returncode})"
        return f"{ended}: {said}" if said else f"{ended}, saying nothing on stderr"


def run(argv: Sequence[str], *, env: Mapping[str, str], timeout: float, cwd: str | Path | None = None,
        input: bytes = b"", max_output: int = MAX_RUN_OUTPUT, scratch: Scratch | None = None,
        stdout_to: IO[bytes] | None = None) -> Completed:
    """Run a program to its end as a Program: `input` written (within the timeout), then stdin closed; stdout
    collected (its first `max_output` bytes; the rest is read and dropped, and counted in `stdout_total`), into
    memory or, streamed, into `stdout_to` (a file open for writing: `git archive`'s tar); stderr kept (its last
    `max_output` bytes: a program's last words are at its end); the program and all it started ended at its exit or
    at `timeout`. `scratch`: the folder whose `env` the program has, removed by the reaper should wirecheck be
    killed meanwhile (its owner removes it otherwise). OSError when it cannot be started."""
    deadline = time.monotonic() + timeout
    program = Program(argv, env=env, cwd=cwd, scratch=scratch)
    stdout = bytearray()
    seen = _Collected()
    reader = threading.Thread(target=_collect, args=(program.stdout, stdout if stdout_to is None else stdout_to,
                                                     max_output, seen), daemon=True)
    reader.start()
    stderr = Tail(max_output).follow(program.stderr)
    try:
        if input:
            program.write(input, deadline)
        program.close_stdin()
        code = program.wait(max(deadline - time.monotonic(), 0.0))
    finally:
        problems = program.stop()
        reader.join(10)
        stderr.join(10)
        with contextlib.suppress(OSError, ValueError):
            if program.stdout is not None and not reader.is_alive():
                program.stdout.close()
    return Completed(code, bytes(stdout), stderr.data, problems, seen.total, seen.error, timeout)


@dataclass
class _Collected:
    total: int = 0
    error: str | None = None


def _collect(stream: IO[bytes] | None, into: bytearray | IO[bytes], limit: int, seen: _Collected) -> None:
    """Read `stream` to its end, its first `limit` bytes added to `into` (a bytearray, or a file written), the rest
    dropped; `seen.total`: every byte read. A file that cannot be written (a full disk) is written no further, and
    the stream still read to its end, so the program never blocks on it."""
    with contextlib.suppress(OSError, ValueError):
        read = getattr(stream, "read1", None)
        while read is not None and (chunk := read(65536)):
            kept = chunk[:max(limit - seen.total, 0)]
            seen.total += len(chunk)
            if not kept or seen.error is not None:
                continue
            if isinstance(into, bytearray):
                into += kept
                continue
            try:
                into.write(kept)
            except (OSError, ValueError) as exc:
                seen.error = str(exc)
