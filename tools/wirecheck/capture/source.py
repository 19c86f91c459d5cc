"""Where a capture's bytes come from: a path or standard input, opened so that reading it ends.

A regular file, standard input and a pipe (`<(cmd)`, a named pipe) are read. What would never end, or never start,
is refused with a usage error naming it, as every file wirecheck reads is (input_files.py, the same words): a device
(`/dev/zero` runs for ever; `/dev/null` is read), a named pipe no process writes to within
input_files.FIFO_WAIT_SECONDS (opening one blocks until some writer comes: it is opened without waiting, and then
waited for, up to that), a symbolic-link loop. A capture is streamed, never read whole: it has no size limit. The
first bytes are looked at through `Head`, which reads until it has them (a pipe may hand over one byte at a time),
and gives them back to the reader.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO, TYPE_CHECKING, Any

from wirecheck import input_files
from wirecheck.contracts.errors import ContractError

if TYPE_CHECKING:
    from wirecheck.contracts.model import MessageKind


class CaptureUnreadable(ContractError):
    """A capture that cannot be opened or read (a socket, no permission, an I/O error, closed stdin, a device): like
    a missing capture, a usage error naming it (a ContractError without a file is what the CLI reports as one),
    never an internal error, nor taken for a failure to write the report."""

    def __init__(self, path: str, reason: str):
        super().__init__(f"cannot read capture {path}: {reason}")
        self.path, self.reason = path, reason

    def __reduce__(self) -> tuple[Any, ...]:  # crosses process boundaries (check/parallel.py)
        return (CaptureUnreadable, (self.path, self.reason))


_STDIN_HINT = "start the writer first, or give the pipe as standard input: `wirecheck ... - < {}`"


def capture_problem(path: str) -> str | None:
    """Why `path` cannot be read as a capture (before any reading starts), or None: input_files.problem, in a
    capture's words. Standard input (`-`) is judged when it is opened."""
    if path == "-":
        return None
    found = input_files.problem(path, "capture file")
    if found is None:
        return None
    if found.missing:
        return _not_found(path)
    if found.reason.startswith("cannot read: "):
        return f"cannot read capture {path}: {found.reason.removeprefix('cannot read: ')}"
    if found.reason == input_files.device_reason("capture file"):
        return f"{path} {found.reason}: write the capture to a file, or pipe it to standard input (-)"
    return f"{path} {found.reason}"


def _not_found(path: str) -> str:
    return f"capture not found: {path}"


class CaptureFile:
    """A capture path (or "-" for stdin); `form` is known once reading has started."""

    def __init__(self, path: str, as_kind: MessageKind | None = None):
        self.path = path
        # stream | framed | exchanges | har | artifacts | document | array | sequence | concatenated | corpus |
        # file | argv | env (see capture/README.md)
        self.form: str | None = None
        self.handle: IO[bytes] | None = None  # while open: lets a progress display poll tell()
        # `--as KIND`: every message is of this kind; a file, argv or env kind takes the whole capture as one
        self.as_kind = as_kind
        # a capture that is one JSON document is one file of a `channel: file` kind (its path matches the kind's
        # pattern); lines of JSON are read as lines all the same (`*.jsonl` kinds: each line is a message)
        self.bare_file = False
        # the capture holds everything its writer sent (a HAR the stub recorded; framed captures and those that say
        # how the program ended are whole by their form): what must have happened by its end can be judged
        self.whole = False

    @property
    def bare(self) -> str | None:
        """The channel whose one artifact the whole capture is (file, argv, env), or None."""
        if self.as_kind is not None and self.as_kind.channel in ("file", "argv", "env"):
            return self.as_kind.channel
        return "file" if self.bare_file else None

    @property
    def label(self) -> str:
        return self.path

    @contextmanager
    def open(self) -> Iterator[IO[bytes]]:
        if self.path == "-":
            if sys.stdin is None:  # started with standard input closed (`<&-`)
                raise CaptureUnreadable(self.path, "standard input is closed")
            stream = sys.stdin.buffer
            problem = _stdin_problem(stream)
            if problem:
                raise CaptureUnreadable(self.path, problem)
            yield stream
            return
        problem = capture_problem(self.path)
        if problem is not None:  # a missing file's reason is the system's, as where the capture is read (fsspec)
            raise CaptureUnreadable(self.path, os.strerror(errno.ENOENT) if problem == _not_found(self.path)
                                    else problem)
        try:
            fifo = stat.S_ISFIFO(os.stat(self.path).st_mode)
            # closed below; the open itself is what may fail
            handle = input_files.open_fifo(self.path, _STDIN_HINT.format(self.path)) if fifo \
                else open(self.path, "rb")  # noqa: SIM115
        except input_files.Unreadable as exc:
            raise CaptureUnreadable(self.path, exc.reason) from None
        except OSError as exc:
            raise CaptureUnreadable(self.path, exc.strerror or str(exc)) from None
        with handle:
            self.handle = handle
            try:
                yield handle
            finally:
                self.handle = None


def _stdin_problem(stream: IO[bytes]) -> str | None:
    """Standard input redirected from a device that never ends (`< /dev/zero`); a terminal is someone typing."""
    try:
        fd = stream.fileno()
        mode = os.fstat(fd).st_mode
    except (OSError, ValueError, AttributeError):  # not a real descriptor (a test's BytesIO): read it
        return None
    if (stat.S_ISCHR(mode) or stat.S_ISBLK(mode)) and not os.isatty(fd):
        if os.fstat(fd).st_rdev == os.stat(os.devnull).st_rdev:
            return None
        return "standard input is a device, not a capture (a device such as /dev/zero never ends)"
    return None


class Head:
    """A binary stream whose first bytes can be looked at (`peek`, `peek_until`) before reading starts: reads until
    it has them or the input ends, however a pipe hands them over, and `read1`/`read` give them back first."""

    def __init__(self, raw: IO[bytes]):
        self._raw = raw
        self._read = getattr(raw, "read1", raw.read)
        self._head = b""
        self._ended = False

    def peek_until(self, enough: Callable[[bytes], bool], limit: int) -> bytes:
        """The first bytes, read until `enough` says so of them, `limit` is reached or the input ends."""
        while not enough(self._head) and len(self._head) < limit and not self._ended:
            more = self._read(min(limit - len(self._head), 1 << 16))
            if not more:
                self._ended = True
            self._head += more
        return self._head

    def peek(self, size: int) -> bytes:
        """The first `size` bytes (fewer only when the input is shorter)."""
        return self.peek_until(lambda head: len(head) >= size, size)[:size]

    def seekable(self) -> bool:
        """Whether the input can be read again (a file, standard input from a file; not a pipe)."""
        try:
            return bool(self._raw.seekable())
        except (AttributeError, OSError, ValueError):
            return False

    def tell(self) -> int:
        return self._raw.tell() - len(self._head)

    def seek(self, offset: int) -> None:
        self._raw.seek(offset)
        self._head, self._ended = b"", False

    def read1(self, size: int = -1) -> bytes:
        if self._head:
            data = self._head if size < 0 else self._head[:size]
            self._head = self._head[len(data):]
            return data
        return b"" if self._ended else self._read(size)

    def read(self, size: int = -1) -> bytes:
        if size < 0:
            data, self._head = self._head + (b"" if self._ended else self._raw.read()), b""
            return data
        parts, got = [], 0
        while got < size:
            more = self.read1(size - got)
            if not more:
                break
            parts.append(more)
            got += len(more)
        return b"".join(parts)
