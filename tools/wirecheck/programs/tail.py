"""The last bytes a program wrote on a stream (its stderr), kept in bounded memory, to quote its last words where a
live run failed ("the program said: Not logged in · Please run /login").

Every program wirecheck starts has its stderr read by a `Tail` (`follow`): a thread reads the stream to its end, so a
chatty program never blocks on a full pipe, and keeps only the last `limit` bytes whatever it writes (a gigabyte
of stderr costs `limit` plus one read). `data` is those bytes exactly; `text` decodes them, a character whose first
bytes were cut off dropped rather than shown as U+FFFD; `last_words` is the quote every report shows.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from typing import IO

TAIL_BYTES = 4096  # of a program's stderr kept to quote; a last line longer than this is quoted by its end
READ_BYTES = 65536  # one read: what is held beside the tail while it is cut
QUOTED_LINES = 3  # last non-blank lines in a quote
QUOTED_CHARS = 500  # characters of a quote, at most (its end kept)


class Tail:
    """The last `limit` bytes added (`add`) or read from a stream (`follow`); safe to read from any thread."""

    def __init__(self, limit: int = TAIL_BYTES, echo: Callable[[bytes], None] | None = None):
        if limit <= 0:
            raise ValueError("a tail keeps at least one byte")
        self.limit = limit
        self.total = 0  # bytes seen, kept or not
        self._echo = echo  # each chunk, as read (the stub passes the runtime's stderr on to wirecheck's own)
        self._kept = bytearray()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def add(self, chunk: bytes) -> None:
        with self._lock:
            self.total += len(chunk)
            self._kept += chunk[-self.limit:]
            if len(self._kept) > self.limit:
                del self._kept[:len(self._kept) - self.limit]

    @property
    def data(self) -> bytes:
        """The last bytes, exactly as written."""
        with self._lock:
            return bytes(self._kept)

    def text(self) -> str:
        """The last bytes as text: where the cut fell inside a UTF-8 character, its remaining continuation bytes are
        dropped; anything else that is not UTF-8 becomes U+FFFD."""
        with self._lock:
            data, cut = bytes(self._kept), self.total > len(self._kept)
        if cut:
            start = 0
            while start < min(len(data), 3) and 0x80 <= data[start] <= 0xBF:
                start += 1
            data = data[start:]
        return data.decode("utf-8", "replace")

    def last_words(self) -> str:
        return last_words(self.text())

    # -- reading a stream ---------------------------------------------------------------------------------------

    def follow(self, stream: IO[bytes] | None, name: str = "wirecheck-stderr") -> Tail:
        """Read `stream` to its end on a daemon thread, then close it (it is the reader's: nobody else reads it)."""
        if stream is not None:
            self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True, name=name)
            self._thread.start()
        return self

    def _read(self, stream: IO[bytes]) -> None:
        try:
            fd = stream.fileno()
            while chunk := os.read(fd, READ_BYTES):
                if self._echo is not None:
                    with contextlib.suppress(OSError, ValueError):
                        self._echo(chunk)
                self.add(chunk)
        except (OSError, ValueError):
            pass
        finally:
            with contextlib.suppress(OSError, ValueError):
                stream.close()

    def join(self, timeout: float | None = None) -> bool:
        """Wait up to `timeout` seconds for the stream's end (every process holding it has exited); True once read
        to its end (or when nothing is followed)."""
        if self._thread is None:
            return True
        self._thread.join(timeout)
        return not self._thread.is_alive()


def last_words(text: str, lines: int = QUOTED_LINES, chars: int = QUOTED_CHARS) -> str:
    """What a program last said, to quote beside a failure: its last `lines` non-blank lines, stripped, joined with
    " / ", at most `chars` characters (the end kept)."""
    kept = [line.strip() for line in text.splitlines() if line.strip()][-lines:]
    return " / ".join(kept)[-chars:]
