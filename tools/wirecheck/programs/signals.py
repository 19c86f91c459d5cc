"""SIGTERM and SIGHUP to wirecheck (a CI job's timeout, a closed terminal) end a run through `Terminated`, raised
in the main thread, so every `finally` that owns a program runs; a cleanup itself is never cut short (`shielded`)."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Any


class Terminated(SystemExit):
    """wirecheck got SIGTERM or SIGHUP. A SystemExit with code 128 + the signal: no `except Exception` takes it for
    an error of its own, and left alone it ends the command with that code. Where a run can still report (certify
    --run, stub), it is caught, the report written, and the command exits `exit_code` all the same."""

    def __init__(self, signum: int):
        super().__init__(128 + signum)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


class _Signals:
    installed = 0
    shield = 0
    pending: int | None = None
    raised = False


def _on_signal(signum: int, frame: Any) -> None:
    if _Signals.raised:  # the stop the first signal started is under way: it must finish (SIGKILL stops it all)
        return
    if _Signals.shield:
        _Signals.pending = signum
        return
    _Signals.raised = True
    raise Terminated(signum)


@contextlib.contextmanager
def terminated_by_signals() -> Iterator[None]:
    """Within: the first SIGTERM or SIGHUP raises Terminated in the main thread (later ones are ignored). Nested
    uses share one installation; outside the main thread nothing is installed (Python delivers signals there)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = None
    if not _Signals.installed:
        _Signals.raised, _Signals.pending = False, None
        previous = {sig: signal.signal(sig, _on_signal) for sig in (signal.SIGTERM, signal.SIGHUP)}
    _Signals.installed += 1
    try:
        yield
    finally:
        _Signals.installed -= 1
        if previous is not None:
            for sig, handler in previous.items():
                signal.signal(sig, handler)


@contextlib.contextmanager
def shielded() -> Iterator[None]:
    """A cleanup no signal cuts short: a SIGTERM or SIGHUP within raises Terminated once the outermost shield ends
    (unless an exception is already on its way out)."""
    _Signals.shield += 1
    failed = True
    try:
        yield
        failed = False
    finally:
        _Signals.shield -= 1
        if not _Signals.shield and _Signals.pending is not None and not _Signals.raised:
            signum, _Signals.pending = _Signals.pending, None
            _Signals.raised = True
            if not failed:
                raise Terminated(signum)
