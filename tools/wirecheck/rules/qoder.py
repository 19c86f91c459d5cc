"""Qoder stream-json protocol rules (texts in rules/texts/qoder.yaml)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from wirecheck.check.message import Message
from wirecheck.contracts.model import ContractRelease, MessageKind
from wirecheck.findings import Finding, Severity, short_repr
from wirecheck.pointer import parse_pointer, replaced, resolve
from wirecheck.rules.catalogue import level_of
from wirecheck.rules.registry import Edit, Needs, Params, Session, rule, schema_at

_ABSENT = object()  # pointer.MISSING means "raise" to resolve(), so absence needs its own marker
_SEMVER = re.compile(r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(?:[-+].*)?$")
# How the SDK parses a protocol_version (@qoder-ai/qoder-agent-sdk@1.0.39 dist/index.js, function Is; the same in
# 1.0.13 and 1.0.34): /^(\d+)\.(\d+)(?:\.\d+)?(?:[-+].*)?$/, its majors compared as numbers. JavaScript's \d is ASCII,
# its `.` no line terminator and its `$` the very end.
_SDK_VERSION = re.compile("([0-9]+)\\.([0-9]+)(?:\\.[0-9]+)?(?:[-+][^\n\r\u2028\u2029]*)?")


def _major(release: ContractRelease) -> str | None:
    match = _SEMVER.match(release.wire_version or "")
    return match.group(1) if match else None


def _version_in_major(params: Params, release: ContractRelease, kind: MessageKind) -> dict[str, Any] | None:
    """The handshake's version in the release's own format: a semantic version of its wire major."""
    major = _major(release)
    if major is None:
        return None
    return schema_at(params.get("pointer", "/protocol_version"),
                     {"type": "string", "pattern": f"^{major}\\.(0|[1-9][0-9]{{0,5}})\\.(0|[1-9][0-9]{{0,5}})$"})


def _other_major(params: Params, message: Message) -> list[Edit]:
    pointer = params.get("pointer", "/protocol_version")
    found = resolve(message.value, parse_pointer(pointer), _ABSENT)
    match = _SEMVER.match(found) if isinstance(found, str) else None
    if match is None:
        return []
    other = f"{int(match.group(1)) + 1}.0.0"
    return [(replace(message, value=replaced(message.value, parse_pointer(pointer), other)), pointer,
             f"protocol version {other}: another major")]


@rule("QODER_PROTOCOL_MAJOR", needs=Needs(schema=_version_in_major, breaks=_other_major))
class ProtocolMajor:
    """params: pointer (where the handshake carries the version; default /protocol_version).

    The SDK refuses a peer whose wire protocol major differs from its own (`dist/protocol/version.d.ts`); the
    release's own version is the catalog's `wire_version`. An absent field is the schema's business (optional
    since older CLIs predate the handshake)."""

    def __init__(self, params: Mapping[str, Any], release: ContractRelease):
        self._pointer = params.get("pointer", "/protocol_version")
        self._tokens = parse_pointer(self._pointer)
        self._wire = release.wire_version
        self._major = _major(release)

    def _version(self, value: Any) -> tuple[Any, re.Match[str] | None]:
        found = resolve(value, self._tokens, _ABSENT)
        return found, _SDK_VERSION.fullmatch(found) if isinstance(found, str) else None

    def holds(self, value: Any) -> bool:
        """Whether a message with this value breaks nothing here (the engine's fast path asks this of a value)."""
        if self._major is None:
            return True
        found, match = self._version(value)
        return found is _ABSENT or not isinstance(found, str) or (
            match is not None and int(match.group(1)) == int(self._major))

    def on_message(self, message: Message) -> Iterable[Finding]:
        """As the SDK's validateProtocolHandshake (dist/index.js:12) reads it: no version (an empty one too) or one
        it cannot parse, it records a diagnostic and skips the handshake (a warning: the session goes on unchecked);
        another major, it throws (an error). A type other than a string is the schema's business."""
        if self.holds(message.value):
            return
        found, match = self._version(message.value)
        if match is None:
            if isinstance(found, str):
                what = "empty" if not found else "no version the SDK can parse"
                yield message.finding(
                    "QODER_PROTOCOL_MAJOR", f"{self._pointer} is {what}: the SDK skips the version handshake (a "
                    "diagnostic), so a peer of another major goes unnoticed", pointer=self._pointer,
                    expected=f"{self._major}.x.y", found=short_repr(found), severity=Severity.WARNING)
        else:
            yield message.finding(
                "QODER_PROTOCOL_MAJOR",
                f"protocol major {int(match.group(1))} differs from this release's wire version {self._wire}: "
                "the SDK refuses the session",
                pointer=self._pointer, expected=f"{self._major}.x.y", found=short_repr(found))

    def finish(self) -> Iterable[Finding]:
        return ()


class _Turns:
    """Turn bookkeeping per capture file: which kinds are turn output, which end a turn, which start one."""

    def __init__(self, params: Mapping[str, Any], release: ContractRelease):
        self._results = frozenset(params.get("results", ("result.success", "result.error")))
        self._turn = frozenset(params.get("turn", ("assistant", "stream_event")))
        self._prompt = frozenset(params.get("prompt", ("sdk.user",)))
        self._restart = frozenset(params.get("restart", ("system.task_notification",)))
        self.watches = self._results | self._turn | self._prompt | self._restart
        # file → (line, where, kind) of the last turn output not yet followed by a result
        self.open: dict[str, tuple[int | None, str | None, str]] = {}
        self.ended: dict[str, int | None] = {}  # file → line of the result that ended the last turn (framed)

    def step(self, kind: str, file: str, line: int | None, where: str | None, sender: str | None) -> str | None:
        """'after_result' when turn output follows a result with no new prompt (only knowable with senders)."""
        if kind in self._prompt or kind in self._restart:
            self.ended.pop(file, None)
        elif kind in self._results:
            self.open.pop(file, None)
            if sender is not None:
                self.ended[file] = line
        elif kind in self._turn:
            self.open[file] = (line, where, kind)
            if file in self.ended:
                return "after_result"
        return None


def _turns(params: Params) -> Session:
    return Session(turns={
        "prompt": tuple(params.get("prompt", ("sdk.user",))),
        "turn": tuple(params.get("turn", ("assistant", "stream_event"))),
        "result": tuple(params.get("results", ("result.success", "result.error"))),
        "restart": tuple(params.get("restart", ("system.task_notification",)))})


@rule("QODER_RESULT_ENDS_TURN", session=_turns)
class ResultEndsTurn(_Turns):
    """params: results, turn, prompt, restart (kind ids). Framed captures only: after a `result`, the CLI writes
    no turn output until the SDK sends the next prompt (or a background task notification starts a turn)."""

    settled = False  # a capture without senders (one stream) cannot show this: the rule settles at once
    reads_values = False  # kinds, places and senders: a large capture's parts send its messages without values

    def on_message(self, message: Message) -> Iterable[Finding]:
        if message.sender is None:
            self.settled = True
            return ()
        kind = message.kind.id if message.kind else ""
        if self.step(kind, message.file, message.line, message.where, message.sender) != "after_result":
            return ()
        return [message.finding(
            "QODER_RESULT_ENDS_TURN",
            f"turn output after the result on line {self.ended[message.file]} and before a new prompt",
            expected="a new prompt (user message) first", found=kind or None)]

    def finish(self) -> Iterable[Finding]:
        return ()


@rule("QODER_TURN_UNFINISHED", session=_turns)
class TurnUnfinished(_Turns):
    """params as QODER_RESULT_ENDS_TURN. The capture ends inside a turn: turn output with no `result` after it.
    It only keeps state until the end, so valid messages reach it on the engine's fast path (`observe`), by kind
    and line alone."""

    observes_values = False
    reads_values = False

    def on_message(self, message: Message) -> Iterable[Finding]:
        self.step(message.kind.id if message.kind else "", message.file, message.line, message.where, message.sender)
        return ()

    def observe(self, kind: MessageKind, value: Any, file: str, line: int) -> None:
        self.step(kind.id, file, line, None, None)

    def finish(self) -> Iterable[Finding]:
        for file, (line, where, kind) in self.open.items():
            yield Finding(
                code="QODER_TURN_UNFINISHED",
                severity=level_of("QODER_TURN_UNFINISHED"),
                message="the stream ends inside a turn: no result follows this message",
                file=file, line=line, where=where, kind=kind,
                expected="a result message", found="end of stream",
            )
        self.open.clear()
