"""Writing the files wirecheck writes (reports, HAR and live captures, corpora, imported contracts), one way.

A regular file is never written in place: its bytes go to a temporary file in the same folder (`.NAME.XXXXXXXX.tmp`,
created with the permissions a new file gets, or the replaced file's), which is flushed to disk and then renamed over
the path. A write that fails (a full disk, a quota, a file size limit, a signal) removes the temporary file and
leaves the file that was there as it was: never a truncated report where a good one stood. Several files written
`together` (a certification's formats and badge) are renamed only once every one of them is whole, so a folder
holds one run's reports or the last good ones, not a mix.

A symbolic link at the path is replaced by the file, never written through: its target is not touched (a link
committed at `reports/stub/certification.txt`, pointing at a file of the user's, would have had the report written
over that file), and a link that loops is refused, in the words an input's loop is refused in. The one exception
is the system's names of a process's open files (`/dev/stdout`, `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`):
those are written through to what they name, as a shell's redirection does, in place.

What is not a regular file is written in place, as it is: a named pipe (`-o fifo`, `--capture-out fifo`) is opened
without blocking and waited for, up to FIFO_WAIT_SECONDS, until some process reads it (opening one for writing
would wait for a reader for ever), as an input's named pipe is waited for its writer (input_files); a device
(`/dev/null`) is written directly. Every failure is `Unwritable`, naming the path and why; the folders an output
made on its way are removed again when it fails, so a failed write leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from wirecheck import input_files
from wirecheck.encoding import text_writer

# a named pipe given as an output must have a reader within this: the wait an input's pipe has for its writer
FIFO_WAIT_SECONDS = input_files.FIFO_WAIT_SECONDS
_POLL_SECONDS = 0.05  # a pipe gives no event for a reader coming: opening it is tried again this often


class Unwritable(OSError):
    """An output that cannot be written: `str()` is `PATH: cannot write: WHY`. An OSError (its `filename` the path,
    its `strerror` why), so a caller that already takes a failed write in its stride still does."""

    def __init__(self, path: str | os.PathLike[str], reason: str):
        super().__init__(None, reason, os.fspath(path))
        self.path, self.reason = os.fspath(path), reason

    def __str__(self) -> str:
        return f"{self.path}: cannot write: {self.reason}"


def check_writable(path: str | os.PathLike[str]) -> None:
    """Unwritable now, before any work, when `path` could not be written: its folder cannot be made or written to,
    it is a folder, or a loop of symbolic links. Nothing is created but the folder, nothing replaced, and a named
    pipe is not opened (its reader would see an empty output)."""
    target = Path(path)
    _folder(target)
    kind = _kind(target)
    if kind == "folder":
        raise Unwritable(target, "it is a folder")
    if kind == "file" and not os.access(target.parent, os.W_OK):
        raise Unwritable(target, f"the folder {target.parent} cannot be written to")


def written_in_place(path: str | os.PathLike[str]) -> bool:
    """Is `path` written as it is (a named pipe, a device, a name of an open file), so that what is written cannot
    be read back from it?"""
    return _kind(Path(path)) in ("fifo", "in place")


def location(path: str | os.PathLike[str]) -> Path:
    """Where the bytes written to `path` land: its folder's real path and its own name (a symbolic link there is
    replaced, not followed), or what a name of an open file names. Never raises (a loop stays as it is)."""
    given = Path(path)
    if _open_file_name(given):
        return Path(os.path.realpath(given))
    return Path(os.path.realpath(given.parent)) / given.name


@contextmanager
def writing(path: str | os.PathLike[str], *, binary: bool = False) -> Iterator[Any]:
    """`path` open for writing (text as every output is encoded, or bytes); in place of the file only once the block
    ends without an exception. Unwritable when it cannot be opened, written or put in place (an OSError raised in
    the block is taken as a failure to write, and reported so)."""
    with together() as outputs, outputs.writing(path, binary=binary) as handle:
        yield handle


def write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    with writing(path, binary=True) as handle:
        handle.write(data)


def write_text(path: str | os.PathLike[str], text: str) -> None:
    with writing(path) as handle:
        handle.write(text)


class _Together:
    """Files written within one `together()`: each whole in its temporary file, all renamed at its end."""

    def __init__(self) -> None:
        self._finished: list[tuple[str, Path]] = []  # (temporary, the path it replaces)
        self._made: list[Path] = []  # folders made on the way to an output, removed again if the outputs fail

    @contextmanager
    def writing(self, path: str | os.PathLike[str], *, binary: bool = False) -> Iterator[Any]:
        given = Path(path)
        self._made += _folder(given)
        kind = _kind(given)
        if kind == "folder":
            raise Unwritable(given, "it is a folder")
        if kind == "fifo":
            raw, temporary = _open_fifo(given), None
        elif kind == "in place":
            raw, temporary = _open_in_place(given), None
        else:
            temporary, raw = _temporary(given)
        handle = raw if binary else text_writer(raw)
        try:
            yield handle
            handle.flush()
            if temporary is not None:
                os.fsync(raw.fileno())
            handle.close()
        except BaseException as exc:
            with contextlib.suppress(OSError, ValueError):  # flushing again may fail again (the disk is still full)
                handle.close()
            with contextlib.suppress(OSError, ValueError):
                raw.close()
            if temporary is not None:
                _remove(temporary)
            if isinstance(exc, OSError) and not isinstance(exc, Unwritable):
                raise Unwritable(given, _why(exc)) from None
            raise
        if temporary is not None:
            self._finished.append((temporary, given))

    def commit(self) -> None:
        done = 0
        try:
            for temporary, given in self._finished:
                try:
                    os.replace(temporary, given)  # a symbolic link there is replaced, its target left alone
                except OSError as exc:
                    raise Unwritable(given, _why(exc)) from None
                done += 1
        finally:
            self.discard(done)

    def discard(self, start: int = 0) -> None:
        """Remove the temporary files from `start` on; when none went in place, the folders made for them too."""
        for temporary, _ in self._finished[start:]:
            _remove(temporary)
        if start == 0:
            for folder in reversed(self._made):  # deepest first; one that holds anything stays
                with contextlib.suppress(OSError):
                    os.rmdir(folder)
        self._finished.clear()
        self._made.clear()


@contextmanager
def together() -> Iterator[_Together]:
    """Several outputs that go in place together (`outputs.writing(path)` for each), once every one is whole; if
    any fails, none replaces its file."""
    outputs = _Together()
    try:
        yield outputs
    except BaseException:
        outputs.discard()
        raise
    outputs.commit()


# -- one file --------------------------------------------------------------------------------------------------------


def _folder(path: Path) -> list[Path]:
    """Make the folders on the way to `path`; the ones made, outermost first."""
    missing = []
    folder = path.parent
    while not os.path.lexists(folder) and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # mkdir met a file on the way, or a link that loops
        try:
            os.stat(path.parent)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise Unwritable(path, f"its folder {input_files.LOOP_REASON}") from None
        raise Unwritable(path, "a file stands where a folder of this path should be") from None
    except OSError as exc:
        raise Unwritable(path, _why(exc)) from None
    return missing[::-1]


# the system's names of a process's open files (what a shell's redirection made): written through, in place
_OPEN_FILE_NAME = re.compile(r"/dev/(?:stdout|stderr|fd/[0-9]+)|/proc/(?:self|thread-self|[0-9]+)/fd/[0-9]+")


def _open_file_name(path: Path) -> bool:
    return _OPEN_FILE_NAME.fullmatch(os.path.abspath(path)) is not None


def _kind(path: Path) -> str:
    """How `path` is written: "file" (a new file put in its place, also over a symbolic link), "folder" (it cannot
    be), "fifo" (a named pipe, once read) or "in place" (a device, or a name of an open file)."""
    opened = _open_file_name(path)
    try:
        mode = (os.stat if opened else os.lstat)(path).st_mode
        if stat.S_ISLNK(mode):
            os.stat(path)  # followed only to find a loop: a loop is refused, any other link replaced
            return "file"
    except FileNotFoundError:
        return "file"  # a new file, or a link to nothing (replaced)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Unwritable(path, input_files.LOOP_REASON) from None
        raise Unwritable(path, _why(exc)) from None
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISREG(mode) and not opened:
        return "file"
    return "in place"  # a character device (/dev/null, a terminal), a socket, what /dev/stdout names


def _temporary(given: Path) -> tuple[str, IO[bytes]]:
    """A new file beside `given`, with the permissions the file there has (or a new file gets: 0666 less the umask;
    a symbolic link's target lends it none)."""
    try:
        status = os.lstat(given)
        mode = stat.S_IMODE(status.st_mode) if stat.S_ISREG(status.st_mode) else None
    except OSError:
        mode = None
    for _ in range(100):
        temporary = str(given.parent / f".{given.name}.{secrets.token_hex(4)}.tmp")
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
            break
        except FileExistsError:
            continue
        except OSError as exc:
            raise Unwritable(given, _why(exc)) from None
    else:
        raise Unwritable(given, "no temporary file could be made beside it")
    try:
        if mode is not None:
            os.chmod(fd if os.chmod in os.supports_fd else temporary, mode)
        return temporary, open(fd, "wb")
    except OSError as exc:
        os.close(fd)
        _remove(temporary)
        raise Unwritable(given, _why(exc)) from None


def _open_in_place(given: Path) -> IO[bytes]:
    try:
        return open(given, "wb")
    except OSError as exc:
        raise Unwritable(given, _why(exc)) from None


def _open_fifo(given: Path) -> IO[bytes]:
    """A named pipe, opened once a process reads it: opening one without a reader fails at once when not blocking
    (ENXIO), and is tried again until FIFO_WAIT_SECONDS have passed."""
    deadline = time.monotonic() + FIFO_WAIT_SECONDS
    while True:
        try:
            fd = os.open(given, os.O_WRONLY | os.O_NONBLOCK)
            break
        except OSError as exc:
            if exc.errno != errno.ENXIO:
                raise Unwritable(given, _why(exc)) from None
        if time.monotonic() >= deadline:
            raise Unwritable(given, f"it is a named pipe (FIFO) and no process read from it within "
                                    f"{FIFO_WAIT_SECONDS:g} s (start the reader first, or write to standard output: "
                                    f"`wirecheck ... > {given}`)")
        time.sleep(_POLL_SECONDS)
    os.set_blocking(fd, True)
    return open(fd, "wb")


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)
