"""Start an implementation for a live run: no shell, a scratch HOME/XDG/TMPDIR, bounded buffers, a hard deadline.

Stdout is read line by line on a thread (a line longer than `max_line_bytes` is cut and flagged; more than
`max_output_bytes` in total stops the run); stderr keeps only its last `stderr_tail_bytes`. Every received line is
handed to `on_line` with the time it arrived. The whole process group is killed on close, so a CLI's children
do not outlive the run; on Linux so is any process that left the group (setsid, a daemon) but still holds one of
the run's pipes or runs with the run's scratch HOME, and each such process is reported as a problem.
"""

from __future__ import annotations

import contextlib
import os
import queue
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_MAX_LINE_BYTES = 1 << 20
DEFAULT_MAX_OUTPUT_BYTES = 64 << 20
DEFAULT_STDERR_TAIL = 16 << 10
# Lines, whatever their size: a flood of tiny lines ("1\n") within the byte limit is tens of millions of lines, each
# a Python object while it waits for an `expect`, a frame in the capture and a finding when certified.
DEFAULT_MAX_LINES = 1_000_000
PASSED_ENV = ("PATH", "LANG", "LC_ALL", "SYSTEMROOT")


@dataclass
class Scratch:
    """A private folder standing in for the user's home, config, cache and temp directories."""

    root: Path
    keep: bool = False

    @classmethod
    def create(cls, keep: bool = False) -> Scratch:
        root = Path(tempfile.mkdtemp(prefix="wirecheck-run-"))
        for name in ("home", "config", "cache", "data", "state", "tmp", "work"):
            (root / name).mkdir()
        return cls(root, keep)

    def env(self, extra: Mapping[str, str] = {}, pass_through: Sequence[str] = ()) -> dict[str, str]:
        env = {name: os.environ[name] for name in (*PASSED_ENV, *pass_through) if name in os.environ}
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
        if not self.keep:
            shutil.rmtree(self.root, ignore_errors=True)


@dataclass
class Limits:
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES
    stderr_tail_bytes: int = DEFAULT_STDERR_TAIL
    max_lines: int = DEFAULT_MAX_LINES


@dataclass(slots=True)
class Line:
    data: bytes  # without the line end
    at: float  # monotonic seconds since start
    truncated: bool = False  # longer than max_line_bytes: `data` holds only the first bytes


@dataclass
class Problems:
    """What went wrong with the process itself (not the protocol): reported in the run outcome."""

    items: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, text: str) -> None:
        with self.lock:
            self.items.append(text)


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


class LiveProcess:
    def __init__(self, argv: Sequence[str], scratch: Scratch, *, env: Mapping[str, str], limits: Limits,
                 on_line: Callable[[Line], None]):
        if not argv:
            raise ValueError("no command to run")
        self.argv = list(argv)
        self.scratch = scratch
        self.limits = limits
        self.problems = Problems()
        self.lines: queue.Queue[Line | None] = queue.Queue()
        self._on_line = on_line
        self._stderr: deque[bytes] = deque()
        self._stderr_size = 0
        self.started = time.monotonic()
        self.output_bytes = 0
        self.line_count = 0
        self.flooded = threading.Event()
        self.proc = subprocess.Popen(
            self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            cwd=scratch.root / "work", env=dict(env), start_new_session=True, close_fds=True,
        )
        self._threads = [threading.Thread(target=self._read_stdout, daemon=True, name="wirecheck-stdout"),
                         threading.Thread(target=self._read_stderr, daemon=True, name="wirecheck-stderr")]
        for thread in self._threads:
            thread.start()

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    # -- reading --------------------------------------------------------------------------------------

    def _read_stdout(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        limit = self.limits.max_line_bytes
        try:
            while True:
                chunk = stream.readline(limit + 1)
                if not chunk:
                    break
                self.output_bytes += len(chunk)
                truncated = False
                if len(chunk) > limit and not chunk.endswith(b"\n"):
                    truncated = True
                    # drain the rest of the over-long line without keeping it
                    while True:
                        rest = stream.readline(limit)
                        self.output_bytes += len(rest)
                        if not rest or rest.endswith(b"\n") or self.output_bytes > self.limits.max_output_bytes:
                            break
                    self.problems.add(f"a stdout line exceeded {limit} bytes; only its first {limit} bytes "
                                      "were kept")
                if self.output_bytes > self.limits.max_output_bytes:
                    self.problems.add(f"stdout exceeded {self.limits.max_output_bytes} bytes; the run was stopped")
                    self.flooded.set()
                    break
                data = chunk[:limit] if truncated else chunk.removesuffix(b"\n")  # a \r before it is kept
                if not data.strip():
                    continue
                self.line_count += 1
                if self.line_count > self.limits.max_lines:
                    self.problems.add(f"stdout exceeded {self.limits.max_lines} lines; the run was stopped")
                    self.flooded.set()
                    break
                line = Line(data, self.elapsed(), truncated)
                self._on_line(line)
                if data.lstrip()[:1] == b"{":  # only an object can match an `expect`: nothing else waits in memory
                    self.lines.put(line)
        except (OSError, ValueError):
            pass
        finally:
            self.lines.put(None)

    def _read_stderr(self) -> None:
        stream = self.proc.stderr
        assert stream is not None
        with contextlib.suppress(OSError, ValueError):
            read = getattr(stream, "read1", stream.read)  # read1: whatever is there, without waiting for 64 KiB
            for chunk in iter(lambda: read(65536), b""):
                self._stderr.append(chunk)
                self._stderr_size += len(chunk)
                while self._stderr_size > self.limits.stderr_tail_bytes and len(self._stderr) > 1:
                    self._stderr_size -= len(self._stderr.popleft())

    def stderr_tail(self) -> str:
        data = b"".join(self._stderr)[-self.limits.stderr_tail_bytes:]
        return data.decode("utf-8", "replace")

    # -- writing --------------------------------------------------------------------------------------

    def write_line(self, data: bytes) -> bool:
        stdin = self.proc.stdin
        if stdin is None or stdin.closed:
            return False
        try:
            stdin.write(data + b"\n")
            stdin.flush()
            return True
        except (BrokenPipeError, OSError, ValueError):
            return False

    def close_stdin(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()

    # -- ending ---------------------------------------------------------------------------------------

    def wait(self, timeout: float) -> int | None:
        try:
            return self.proc.wait(timeout=max(timeout, 0.0))
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            if self.wait(2.0) is None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.wait(5.0)
        else:
            # the leader exited; its group may still hold children
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)

    def close(self) -> None:
        self.close_stdin()
        self.kill()
        for thread in self._threads:
            thread.join(timeout=1)
        # a process that left the group (setsid) can keep our pipes open, or just keep running as a daemon
        for _ in range(5):
            escaped = _escaped_processes(self._pipe_inodes(), f"HOME={self.scratch.root / 'home'}".encode())
            if not escaped:
                break
            for pid, why in escaped.items():
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
                self.problems.add(f"process {pid}, started by the command, {why} after the command ended; it was "
                                  "killed")
            time.sleep(0.1)
        for thread in self._threads:
            thread.join(timeout=5)
        for stream, thread in zip((self.proc.stdout, self.proc.stderr), self._threads, strict=True):
            # closing a stream a reader thread still blocks on would wait for that read forever
            with contextlib.suppress(OSError, ValueError):
                if stream is not None and not thread.is_alive():
                    stream.close()

    def _pipe_inodes(self) -> set[int]:
        inodes = set()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            with contextlib.suppress(OSError, ValueError, AttributeError):
                if stream is not None:
                    inodes.add(os.fstat(stream.fileno()).st_ino)
        return inodes


def _escaped_processes(pipe_inodes: set[int], home_entry: bytes) -> dict[int, str]:
    """Processes other than this one that hold one of the run's pipes or run with its scratch HOME (Linux /proc;
    elsewhere none are found): {pid: why}."""
    proc = Path("/proc")
    if not proc.is_dir():
        return {}
    links = {f"pipe:[{inode}]" for inode in pipe_inodes}
    mine = os.getpid()
    found: dict[int, str] = {}
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == mine:
            continue
        pid = int(entry.name)
        try:
            if any(var == home_entry for var in (entry / "environ").read_bytes().split(b"\0")):
                found[pid] = "was still running"
                continue
        except OSError:
            pass
        if links:
            with contextlib.suppress(OSError):
                for fd in (entry / "fd").iterdir():
                    with contextlib.suppress(OSError):
                        if os.readlink(fd) in links:
                            found[pid] = "kept the run's pipes open"
                            break
    return found
