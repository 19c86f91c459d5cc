"""ECMA-262 pattern matching within a time budget: the one matcher every re-check of a payload uses.

JSON Schema patterns are ECMA-262. `regress` gives their exact semantics (what zod and jsonschema-rs mean: `$` never
matches before a trailing newline, `\\d` is ASCII), but it backtracks without a limit and holds the GIL while it
does: `^(a+)+$` against forty `a`s and a `!` runs for minutes, and no thread can stop it. So matches run in a helper
process that is killed when one takes longer than MATCH_SECONDS; the caller gets RegexTimeout, which every caller
reads as "unknown" (a witness not confirmed, a mutant not made), never as "does not match".

A pattern that ran out of time is not waited for again on a text at least as long. The helper starts on the first
match and serves every later one (a pipe round trip: tens of microseconds); it ends
when this process closes its pipe, and it arms an alarm around each match, so it also dies by itself if this process
is killed while it is stuck in one. Compiling a pattern is linear and happens here (a syntax error is RegressError).
"""

from __future__ import annotations

import atexit
import os
import re
import signal
import subprocess
import sys
import threading
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import regress

if TYPE_CHECKING:  # imported where the helper starts: a process that matches no pattern never pays for it
    from multiprocessing.connection import Connection

MATCH_SECONDS = 2.0  # one match's budget; past it the answer is unknown
START_SECONDS = 60.0  # the helper's start-up, however loaded the machine


class RegexTimeout(Exception):
    """Matching did not finish within MATCH_SECONDS (a pattern that backtracks catastrophically on this text)."""

    def __init__(self, pattern: str, length: int):
        super().__init__(f"matching {pattern!r} against {length} characters took longer than {MATCH_SECONDS:g} s")
        self.pattern = pattern


class Unmatchable(RegexTimeout):
    """The text holds a lone surrogate (JSON text may: `"\\ud800"`), which the matcher (regress, UTF-8 inside)
    cannot take: undecided, as a match out of time is, so every caller already reads it as "unknown"."""

    def __init__(self, pattern: str, length: int):
        Exception.__init__(self, f"{length} characters holding a lone surrogate cannot be matched against "
                                 f"{pattern!r} (the ECMA-262 matcher takes Unicode text only)")
        self.pattern = pattern


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


@lru_cache(maxsize=4096)
def compile_ecma(pattern: str) -> regress.Regex:
    """The compiled pattern (RegressError when it is not ECMA-262); its `find` is unbounded: use `search`."""
    return regress.Regex(pattern, flags="u")


def search(pattern: str, text: str) -> bool:
    """Whether the ECMA pattern matches somewhere in `text` (JSON Schema `pattern` semantics). RegressError when the
    pattern is not ECMA-262; RegexTimeout when the match takes longer than MATCH_SECONDS."""
    return bool(_asked(pattern, text, None))


_GROUP_NAME = re.compile(r"\(\?<([^=!>][^>]*)>")


def full_match(pattern: str, text: str) -> dict[str, str] | None:
    """Whether the ECMA pattern matches the whole of `text` (an argv grammar's `parse`), and then its named groups
    that took part (name → the text they matched); None when it does not match. Within MATCH_SECONDS as `search`
    (RegexTimeout past it), RegressError when the pattern is not ECMA-262."""
    found: Any = _asked(f"^(?:{pattern})$", text, tuple(_GROUP_NAME.findall(pattern)))
    return found if isinstance(found, dict) else None


def _asked(pattern: str, text: str, groups: tuple[str, ...] | None) -> Any:
    compile_ecma(pattern)  # a syntax error here, in this process, at once
    if not text.isascii() and _LONE_SURROGATE.search(text):  # regress would fail on it, in the helper
        raise Unmatchable(pattern, len(text))
    if len(text) >= _timed_out.get(pattern, len(text) + 1):  # as long as one that ran out of time: do not wait again
        raise RegexTimeout(pattern, len(text))
    try:
        return _helper.ask(pattern, text, groups)
    except RegexTimeout:
        _timed_out[pattern] = min(len(text), _timed_out.get(pattern, len(text)))
        raise


# pattern → the shortest text it ran out of time on: a run asks about one pattern again and again (each witness,
# each mutant), and each such wait would cost the whole budget again. Answering "unknown" sooner is always sound.
_timed_out: dict[str, int] = {}


def surely_matches(pattern: str, text: str) -> bool:
    """`search`, with an undecided match counted as no: for choosing strings that must match."""
    try:
        return search(pattern, text)
    except RegexTimeout:
        return False


def surely_does_not_match(pattern: str, text: str) -> bool:
    """The pattern is known to reject `text` (an undecided match counts as no): for strings that must not match."""
    try:
        return not search(pattern, text)
    except RegexTimeout:
        return False


class _Helper:
    """The matching process, started on first use; replaced after a timeout."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._send: Connection | None = None
        self._receive: Connection | None = None

    def ask(self, pattern: str, text: str, groups: tuple[str, ...] | None = None) -> Any:
        """True/False (`groups` None), or None / {name: text} for a match whose named `groups` are wanted."""
        with self._lock:
            for attempt in (1, 2):  # a helper that died (killed from outside, out of memory) is replaced once
                try:
                    if self._process is None or self._process.poll() is not None:
                        self._start()
                    assert self._send is not None and self._receive is not None
                    self._send.send((pattern, text, groups))
                    if not self._receive.poll(MATCH_SECONDS):
                        break
                    answer: Any = self._receive.recv()
                except (EOFError, OSError):
                    self._stop()
                    if attempt == 2:
                        raise RegexTimeout(pattern, len(text)) from None
                    continue
                if isinstance(answer, str):
                    raise regress.RegressError(answer)
                return answer
            self._stop()
            raise RegexTimeout(pattern, len(text))

    def _start(self) -> None:
        code = "from wirecheck.ecma_regex import _serve; _serve()"
        self._process = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, close_fds=True)
        assert self._process.stdin is not None and self._process.stdout is not None
        from multiprocessing.connection import Connection

        self._send = Connection(os.dup(self._process.stdin.fileno()), readable=False)
        self._receive = Connection(os.dup(self._process.stdout.fileno()), writable=False)
        self._process.stdin.close()
        self._process.stdout.close()
        # its start-up (an interpreter, regress) is not part of any match's budget: wait until it says it is ready
        if not (self._receive.poll(START_SECONDS) and self._receive.recv() == "ready"):
            self._stop()
            raise OSError("the regex helper process did not start")

    def _stop(self) -> None:
        for connection in (self._send, self._receive):
            if connection is not None:
                connection.close()
        self._send = self._receive = None
        if self._process is not None:
            if self._process.poll() is None:
                self._process.kill()
            self._process.wait()
            self._process = None

    def close(self) -> None:
        """End the helper (its pipe closes, it exits); at exit, so no process is left behind."""
        with self._lock:
            if self._process is not None:
                for connection in (self._send, self._receive):
                    if connection is not None:
                        connection.close()
                self._send = self._receive = None
                try:
                    self._process.wait(timeout=MATCH_SECONDS)
                except subprocess.TimeoutExpired:
                    self._process.kill()
                    self._process.wait()
                self._process = None


    def forget(self) -> None:
        """In a forked child: drop the parent's helper (its pipe is the parent's; this process starts its own)."""
        self._lock = threading.Lock()
        for connection in (self._send, self._receive):
            if connection is not None:
                connection.close()  # this process's copies: the parent's stay open
        self._send = self._receive = None
        self._process = None  # the parent's child, not this process's to wait for


_helper = _Helper()
atexit.register(_helper.close)
if hasattr(os, "register_at_fork"):  # not on Windows
    os.register_at_fork(after_in_child=_helper.forget)  # forked workers (check/parallel.py) inherit this module


def _serve() -> None:
    """The helper's loop: (pattern, text, groups) in, True/False (groups None) or None / the named groups (or the
    compile error's text) out, until the pipe ends."""
    from multiprocessing.connection import Connection

    receive = Connection(os.dup(0), writable=False)
    send = Connection(os.dup(1), readable=False)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the command; it ends this through the pipe
    send.send("ready")
    while True:
        try:
            pattern, text, groups = receive.recv()
        except (EOFError, OSError):
            return
        try:
            compiled = compile_ecma(pattern)
        except regress.RegressError as exc:
            send.send(str(exc))
            continue
        # SIGALRM's default action ends the process even while regress holds the GIL: if the command that asked
        # was killed and cannot kill this, it does not outlive the match by more than a few budgets
        signal.setitimer(signal.ITIMER_REAL, MATCH_SECONDS * 4)
        match = compiled.find(text)
        signal.setitimer(signal.ITIMER_REAL, 0)
        send.send(match is not None if groups is None else _named(match, text, groups))


def _named(match: Any, text: str, groups: tuple[str, ...]) -> dict[str, str] | None:
    """A match's named groups that took part, as text: regress gives UTF-8 byte offsets."""
    if match is None:
        return None
    data = text.encode("utf-8", "surrogatepass")
    spans = {name: match.named_group(name) for name in groups}
    return {name: data[span].decode("utf-8", "surrogatepass") for name, span in spans.items() if span is not None}
