"""Opening the files wirecheck reads, so that reading them ends, and reading whole files within a size limit.

Every file a command reads goes through here: captures (capture/source.py streams them), and the files read whole —
schemas (`diff-schemas`, contract releases), YAML data (waivers, baselines, requirement sets, scenarios, catalogs,
registries, readers). What would never end, or never start, is refused with the same words whatever the file: a
device (`/dev/zero` never ends; `/dev/null` is read, as empty), a named pipe no process writes to within
FIFO_WAIT_SECONDS (opened without waiting, then waited for: opening one blocks until a writer comes), a loop of
symbolic links. A file read whole is read up to MAX_FILE_BYTES (limits.py): a larger one is refused before it is
read when its size is known, and once that much has come from a pipe otherwise, never held whole.

A folder can be `confine`d: the contracts folders and contract packs, whose files a pull request controls on a CI
gate (`--contracts contracts`). A file under such a folder whose symbolic links lead out of it (`catalog.yaml ->
~/.git-credentials`) is refused before it is opened, whatever reads it: its content never reaches an error message.
"""

from __future__ import annotations

import errno
import os
import select
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

from wirecheck.limits import MAX_FILE_BYTES

FIFO_WAIT_SECONDS = 10.0  # a named pipe's writer must send its first byte (or close) within this; and each next one


class Unreadable(Exception):
    """A file that cannot be read: `reason` says why in words that follow its path ("is a device, not a waivers
    file ..."); `missing` when it does not exist (callers word that in their own terms), `too_large` when it is
    over the limit it was read with."""

    def __init__(self, path: str, reason: str, *, missing: bool = False, too_large: bool = False):
        super().__init__(f"{path}: {reason}")
        self.path, self.reason, self.missing, self.too_large = path, reason, missing, too_large

    def __reduce__(self) -> tuple[object, ...]:  # crosses process boundaries (check/parallel.py)
        return (_unreadable, (self.path, self.reason, self.missing, self.too_large))


def _unreadable(path: str, reason: str, missing: bool, too_large: bool) -> Unreadable:
    return Unreadable(path, reason, missing=missing, too_large=too_large)


_NOT_FOUND = {errno.ENOENT, errno.ENOTDIR}
LOOP_REASON = "is a loop of symbolic links (each points on to the next, and none to a file)"  # outputs say it too

# confined folders: the folder as named (absolute) → where it really is (every symbolic link followed)
_CONFINED: dict[str, str] = {}


def confine(folder: str | os.PathLike[str]) -> None:
    """From now on in this process, a file read from under `folder` must be inside it once every symbolic link on
    its way is followed (a link to another file of the folder is read; one out of it is refused by `problem`). For
    the folders whose content someone else may write: contracts folders and packs."""
    absolute = os.path.abspath(folder)
    _CONFINED[absolute] = os.path.realpath(absolute)


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(os.path.join(folder, ""))


def _escaped(path: str) -> str | None:
    """The confined folder `path` is in (named as it was confined, or through any other name of it or of a folder
    in it) that its symbolic links lead out of, or None."""
    if not _CONFINED:
        return None
    absolute = os.path.abspath(path)
    where = os.path.realpath(os.path.dirname(absolute))  # the folder the file is in, whatever it was called
    for folder, real_folder in _CONFINED.items():
        if (_inside(absolute, folder) or _inside(where, real_folder)) and \
                not _inside(os.path.realpath(absolute), real_folder):
            return folder
    return None


def problem(path: str, what: str) -> Unreadable | None:
    """Why `path` cannot be read as a `what` ("capture file", "waivers file") before any reading starts, or None:
    it does not exist, is a directory, a loop of symbolic links, a device other than /dev/null, or a file under a
    `confine`d folder that a symbolic link leads out of (never opened: its content is no one's to see)."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        if exc.errno in _NOT_FOUND:
            return Unreadable(path, f"{what} not found", missing=True)
        if exc.errno == errno.ELOOP:
            return Unreadable(path, LOOP_REASON)
        return Unreadable(path, f"cannot read: {exc.strerror or exc}")
    if stat.S_ISDIR(mode):
        return Unreadable(path, f"is a directory, not a {what}")
    if (stat.S_ISCHR(mode) or stat.S_ISBLK(mode)) and os.path.realpath(path) != os.devnull:
        return Unreadable(path, device_reason(what))
    folder = _escaped(path)
    if folder is not None:
        return Unreadable(path, f"is a symbolic link that leads out of {folder}: wirecheck reads a contracts folder's "
                          "and a contract pack's files only inside it (the file it leads to was not read)")
    return None


def device_reason(what: str) -> str:
    return f"is a device, not a {what} (a device such as /dev/zero never ends)"


def fifo_reason(hint: str = "start the writer first") -> str:
    return f"is a named pipe (FIFO) and no process wrote to it within {FIFO_WAIT_SECONDS:g} s ({hint})"


def size_reason(what: str, size: int | None, limit: int) -> str:
    """A file over the limit, in the words every such refusal uses (its size when known: a pipe's is not)."""
    where = "(see Limits in the README)"
    if size is None:
        return f"holds more than {size_text(limit)}, the most wirecheck reads of a {what} {where}"
    return f"is {size_text(size)}, more than the {size_text(limit)} wirecheck reads of a {what} {where}"


def size_text(size: int) -> str:
    """A size for people: `300 MiB`, `1.5 MiB`, `64 KiB`, `999 bytes`."""
    for shift, unit in ((20, "MiB"), (10, "KiB")):
        if size >= 1 << shift:
            amount = size / (1 << shift)
            return f"{amount:.0f} {unit}" if amount >= 10 or amount == int(amount) else f"{amount:.1f} {unit}"
    return f"{size:,} bytes"


def open_fifo(path: str, hint: str = "start the writer first") -> IO[bytes]:
    """A named pipe, opened without blocking (open() would wait for a writer for ever), then waited for: its first
    byte, or its writer closing, within FIFO_WAIT_SECONDS. Reading it then blocks as a pipe does."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        _wait(fd, path, fifo_reason(hint))
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _wait(fd: int, path: str, reason: str) -> None:
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP)
    if not poller.poll(int(FIFO_WAIT_SECONDS * 1000)):
        raise Unreadable(path, reason)


@contextmanager
def opened(path: str, what: str) -> Iterator[IO[bytes]]:
    """`path` open for reading in binary: Unreadable (never another exception) when `problem` finds one, when a
    named pipe's writer does not come, or when opening fails."""
    found = problem(path, what)
    if found is not None:
        raise found
    try:
        fifo = stat.S_ISFIFO(os.stat(path).st_mode)
        handle = open_fifo(path) if fifo else open(path, "rb")  # noqa: SIM115 (closed below)
    except OSError as exc:
        raise Unreadable(path, f"cannot read: {exc.strerror or exc}") from None
    with handle:
        yield handle


def read_bytes(path: str | os.PathLike[str], what: str, limit: int = MAX_FILE_BYTES) -> bytes:
    """A whole file's bytes, at most `limit` of them: Unreadable past that (said before reading when the size is
    known), as for any file `opened` refuses, or when reading fails. A named pipe that stops sending for
    FIFO_WAIT_SECONDS is refused too: a whole file is wanted, and nothing would say it is complete."""
    name = os.fspath(path)
    with opened(name, what) as handle:
        try:
            info = os.fstat(handle.fileno())
            if stat.S_ISREG(info.st_mode) and info.st_size > limit:
                raise Unreadable(name, size_reason(what, info.st_size, limit), too_large=True)
            data = _read_pipe(handle, name, limit) if stat.S_ISFIFO(info.st_mode) else handle.read(limit + 1)
        except OSError as exc:
            raise Unreadable(name, f"cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:  # grew while read, or a file whose size says nothing (/proc)
        raise Unreadable(name, size_reason(what, None, limit), too_large=True)
    return data


def _read_pipe(handle: IO[bytes], path: str, limit: int) -> bytes:
    fd = handle.fileno()
    os.set_blocking(fd, False)
    parts: list[bytes] = []
    got = 0
    while got <= limit:
        try:
            chunk = os.read(fd, min(1 << 20, limit + 1 - got))
        except BlockingIOError:
            _wait(fd, path, f"is a named pipe (FIFO) whose writer sent nothing for {FIFO_WAIT_SECONDS:g} s, and "
                  "the file is read whole")
            continue
        if not chunk:
            break
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)


def read_text(path: str | os.PathLike[str], what: str, limit: int = MAX_FILE_BYTES) -> str:
    """`read_bytes` as UTF-8 text; Unreadable when it is not UTF-8 (saying where)."""
    data = read_bytes(path, what, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Unreadable(os.fspath(path), f"not UTF-8 text (byte {exc.start}: {exc.reason})") from None
