"""Run an implementation for a live run: a `Program` (no shell, a scratch HOME/XDG/TMPDIR, its own process group
under the reaper, which ends everything it started) with bounded buffers and writes.

Stdout is read line by line on a thread (a line longer than `max_line_bytes` is cut and flagged; more than
`max_output_bytes` in total stops the run); stderr is read by a `programs.tail.Tail` keeping its last
`stderr_tail_bytes`. Every received line is handed to `on_line` with the time it arrived. Writes to stdin give up at
a deadline, so a program that does not read its input cannot hold the run.
"""

from __future__ import annotations

import contextlib
import queue
import signal
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from wirecheck.capture.process import ProcessRecord
from wirecheck.programs.program import Program, Scratch
from wirecheck.programs.tail import TAIL_BYTES, Tail

DEFAULT_MAX_LINE_BYTES = 1 << 20
DEFAULT_MAX_OUTPUT_BYTES = 64 << 20
# Lines, whatever their size: a flood of tiny lines ("1\n") within the byte limit is tens of millions of lines, each
# a Python object while it waits for an `expect`, a frame in the capture and a finding when certified.
DEFAULT_MAX_LINES = 1_000_000


@dataclass
class Limits:
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES
    stderr_tail_bytes: int = TAIL_BYTES
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
        self.started = time.monotonic()
        self.output_bytes = 0
        self.line_count = 0
        self.stdin_closed_at: float | None = None  # seconds since start when the harness ended the input
        self.last_line_at: float | None = None  # seconds since start when its last stdout line arrived
        self.final_newline: bool | None = None  # did the last bytes it wrote on stdout end a line (None: none)
        self.stopping_at: float | None = None  # seconds since start when the harness began to end it
        self.flooded = threading.Event()
        self.program = Program(self.argv, env=env, cwd=scratch.root / "work", scratch=scratch)
        self._stdout_reader = threading.Thread(target=self._read_stdout, daemon=True, name="wirecheck-stdout")
        self._stdout_reader.start()
        self.stderr = Tail(limits.stderr_tail_bytes).follow(self.program.stderr)

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    # -- reading --------------------------------------------------------------------------------------

    def _read_stdout(self) -> None:
        stream = self.program.stdout
        assert stream is not None
        limit = self.limits.max_line_bytes
        try:
            while True:
                chunk = stream.readline(limit + 1)
                if not chunk:
                    break
                self.output_bytes += len(chunk)
                self.final_newline = chunk.endswith(b"\n")
                truncated = False
                if len(chunk) > limit and not chunk.endswith(b"\n"):
                    truncated = True
                    # drain the rest of the over-long line without keeping it
                    while True:
                        rest = stream.readline(limit)
                        self.output_bytes += len(rest)
                        if rest:
                            self.final_newline = rest.endswith(b"\n")
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
                self.last_line_at = line.at
                self._on_line(line)
                if data.lstrip()[:1] == b"{":  # only an object can match an `expect`: nothing else waits in memory
                    self.lines.put(line)
        except (OSError, ValueError):
            pass
        finally:
            self.lines.put(None)

    def stderr_tail(self) -> str:
        return self.stderr.text()

    # -- writing --------------------------------------------------------------------------------------

    def write_line(self, data: bytes, deadline: float) -> int:
        """Write one line (a line end is added); Program.write says what the result means."""
        return self.program.write(data + b"\n", deadline, self.flooded)

    def close_stdin(self) -> None:
        if self.stdin_closed_at is None:
            self.stdin_closed_at = self.elapsed()
        self.program.close_stdin()

    # -- ending ---------------------------------------------------------------------------------------

    def record(self, role: str, stopped: bool) -> ProcessRecord:
        """How the program ended, as the capture's last line says it (capture/process.py); `stopped`: the harness
        had to end it (it had not exited by the end of the scenario)."""
        program = self.program
        code = program.returncode
        stopped = stopped or program.ended_by is not None
        exited_at = None if stopped or program.exited_at is None else round(program.exited_at - self.started, 3)
        return ProcessRecord(
            role=role, exit_status=code if code is not None and code >= 0 and not stopped else None,
            signal=_signal_name(-code) if code is not None and code < 0 and not stopped else None,
            stopped_by_harness=stopped, ended_by=program.ended_by,
            stopped_at=None if not stopped or self.stopping_at is None else round(self.stopping_at, 3),
            input_closed_at=_rounded(self.stdin_closed_at), last_output_at=_rounded(self.last_line_at),
            exited_at=exited_at, final_newline=self.final_newline)

    def wait(self, timeout: float) -> int | None:
        return self.program.wait(timeout)

    def close(self) -> None:
        """End the program and everything it started; what it left behind is added to the problems."""
        if self.program.returncode is None and self.stopping_at is None:
            self.stopping_at = self.elapsed()
        for problem in self.program.stop():
            self.problems.add(problem)
        # every process holding the pipes is gone: the readers meet end of file (the stderr tail closes its own)
        self._stdout_reader.join(timeout=10)
        self.stderr.join(timeout=10)
        # closing a stream a reader thread still blocks on would wait for that read forever
        with contextlib.suppress(OSError, ValueError):
            if self.program.stdout is not None and not self._stdout_reader.is_alive():
                self.program.stdout.close()


def _rounded(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds, 3)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
