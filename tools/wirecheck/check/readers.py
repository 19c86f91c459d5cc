"""The readers of a release (readers.yaml) applied to what validate finds: an unknown member sent to a reader that
rejects it, and a message of no kind sent to a consumer that rejects it, are errors; where the reader ignores
them they are warnings. A line of a stream that is not JSON is judged as its reader reads it (`non_json_lines`).
The diff's real consumer model comes from the same data (diff/readers.py)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from wirecheck.check.message import Message
from wirecheck.contracts.model import ContractRelease, NonJsonReading, Provenance, UnknownKindReading
from wirecheck.findings import Finding, Severity
from wirecheck.json_text import is_text_line
from wirecheck.pointer import MISSING, parse_pointer, resolve


def channel_of(message: Message) -> str:
    if message.http is not None:
        return "http"
    if message.artifact is not None:
        return message.artifact.channel
    return "stdio-ndjson"


def _consumers(release: ContractRelease, message: Message, channel: str) -> set[str]:
    """Who may read an unclassified message: the consumers of what its sender (a framed line's `from`; for HTTP,
    the side that sends requests or responses) produces on its channel; every consumer there when nobody can tell."""
    kinds = [k for k in release.kinds if k.channel == channel]
    if message.sender is not None:
        kinds = [k for k in kinds if k.producer == message.sender] or kinds
    elif message.http is not None:
        request = message.http.status is None
        kinds = [k for k in kinds if k.http is not None and k.http.is_request == request] or kinds
    return {k.consumer for k in kinds}


def _json_key(value: object) -> object:
    """JSON true is not the number 1 (Python's True == 1 says it is)."""
    return ("bool", value) if isinstance(value, bool) else value


def _applies(entry: UnknownKindReading, value: object) -> bool:
    for tokens, accepted in entry.fields:
        found = resolve(value, tokens, MISSING)
        if found is MISSING or isinstance(found, dict | list) or _json_key(found) not in map(_json_key, accepted):
            return False
    for tokens, start in entry.prefix:
        found = resolve(value, tokens, MISSING)
        if not (isinstance(found, str) and found.startswith(start)):
            return False
    return (all(resolve(value, tokens, MISSING) is not MISSING for tokens in entry.present)
            and all(resolve(value, tokens, MISSING) is MISSING for tokens in entry.absent))


def unknown_kind_reading(release: ContractRelease, message: Message) -> UnknownKindReading | None:
    """How the consumers that may read this unclassified message treat it: the first entry that applies for each;
    one that rejects wins (the message fails where any of its possible readers refuses it). None: no readers.yaml."""
    channel = channel_of(message)
    readings = []
    for consumer in sorted(_consumers(release, message, channel)):
        for entry in release.unknown_kinds:
            if entry.channel == channel and entry.consumer == consumer and _applies(entry, message.value):
                readings.append(entry)
                break
    return next((r for r in readings if r.reject), readings[0] if readings else None)


class Tolerated:
    """A protocol rule whose breach the release's readers go on past (readers.yaml `rules`, `reads: tolerate`): its
    errors are warnings that say so and cite the readers. Everything else is the rule's own (`settled`, `observe`)."""

    def __init__(self, rule: Any, provenance: Provenance):
        self._rule = rule
        self._cited = ", ".join(provenance.at) or ", ".join(provenance.sources)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._rule, name)

    def on_message(self, message: Message) -> Iterable[Finding]:
        return [self._judged(finding) for finding in self._rule.on_message(message)]

    def finish(self) -> Iterable[Finding]:
        return [self._judged(finding) for finding in self._rule.finish()]

    def _judged(self, finding: Finding) -> Finding:
        if finding.severity is not Severity.ERROR:
            return finding
        return replace(finding, severity=Severity.WARNING,
                       message=f"{finding.message}; its readers go on past this ({self._cited})")


def rejects_member(release: ContractRelease, kind_id: str, pointer: str) -> str | None:
    """Where the kind's reader says it rejects the unknown member at `pointer` (its citation), or None."""
    reading = release.readers.get(kind_id)
    if reading is None:
        return None
    try:
        tokens = parse_pointer(pointer)
    except ValueError:
        return None
    return reading.cited if reading.rejects_at(tokens[:-1]) else None


def judge_non_json_line(release: ContractRelease, finding: Finding) -> Finding:
    """A PARSE_ERROR of one line of a stream, as the stream's readers read it (readers.yaml `non_json_lines`): an
    error where any reader rejects such a line or the file says nothing for one (a JSON Lines reader fails on it);
    a warning that says so where the source at hand does not show how a reader parses the stream (Claude Code
    prints `⚠ claude.ai connectors are disabled …` before its JSON result; the seed shows Navarch calling
    parseClaudeJsonResult on stdout, then stderr, not what that function does with such a line); info where every
    reader skips it."""
    if finding.code != "PARSE_ERROR" or finding.line is None or finding.where is not None or \
            not is_text_line(finding.message):  # JSON that breaks off is no warning line: as its reader fails on it
        return finding
    consumers = {k.consumer for k in release.kinds if k.channel == "stdio-ndjson"
                 and (finding.sender is None or k.producer == finding.sender)}
    readings: list[NonJsonReading] = []
    for consumer in sorted(consumers):
        entry = next((e for e in release.non_json_lines if e.channel == "stdio-ndjson" and e.consumer == consumer),
                     None)
        if entry is None:
            return finding
        if entry.reads == "reject":
            return replace(finding, message=f"{finding.message}; {consumer} fails on a line that is not JSON "
                                            f"({entry.cited})")
        readings.append(entry)
    if not readings:
        return finding
    unknown = next((r for r in readings if r.reads == "unknown"), None)
    if unknown is not None:
        return replace(finding, severity=Severity.WARNING, message=(
            f"{finding.message}; how the {unknown.consumer} reads a line that is not JSON is not shown "
            f"({unknown.cited}): the line does not fail the result"))
    return replace(finding, severity=Severity.INFO, message=(
        f"{finding.message}; {', '.join(r.consumer for r in readings)} skips lines that are not JSON "
        f"({', '.join(r.cited for r in readings)})"))


def judge_body_problem(release: ContractRelease, message: Message, consumer: str | None, finding: Finding) -> Finding:
    """What reading an HTTP body found, as the body's readers read it (readers.yaml `json_bodies`): a UTF-8 byte
    order mark before the JSON is info where every reader strips it (fetch's response.json() in undici: the
    WHATWG UTF-8 decode), an error in the reader's own words where one refuses it, and an error where the file
    says nothing (a reader that does not strip it refuses the body). `consumer`: the kind's; None for a message of
    no kind (then every consumer that may read it)."""
    if finding.code != "BYTE_ORDER_MARK" or message.http is None:
        return finding
    consumers = {consumer} if consumer is not None else _consumers(release, message, "http")
    entries = {e.consumer: e for e in release.json_bodies if e.channel == "http" and e.consumer in consumers}
    refusing = next((e for e in entries.values() if e.bom == "reject"), None)
    if refusing is not None:
        return replace(finding, severity=Severity.ERROR, message=(
            f"body starts with a UTF-8 byte order mark (U+FEFF), which the {refusing.consumer}'s {refusing.reader} "
            f"refuses ({refusing.cited})"))
    if not consumers or entries.keys() != consumers:
        return replace(finding, severity=Severity.ERROR)
    reading = entries[min(entries)]
    return replace(finding, severity=Severity.INFO, message=(
        f"body starts with a UTF-8 byte order mark (U+FEFF), which the {reading.consumer}'s {reading.reader} strips "
        f"({reading.cited}): the body is read as JSON"))
