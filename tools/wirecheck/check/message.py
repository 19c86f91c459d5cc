"""A message as the checker and the protocol rules see it: parsed, located, classified."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from wirecheck.contracts.model import MessageKind
from wirecheck.findings import Finding, Severity
from wirecheck.rules.catalogue import level_of


@dataclass(frozen=True, slots=True)
class HttpInfo:
    method: str
    url: str
    path: str  # the path relative to the kind's base (after the base prefix was removed)
    status: int | None  # None on a request
    headers: dict[str, str] = field(default_factory=dict)  # lower-cased names
    body_unreadable: bool = False  # a body that is not JSON: reported when read, not again as "no body"
    body_unknown: bool = False  # the record left the body out (a HAR without content.text): neither checked nor "none"
    # what reading the body found (PARSE_ERROR, DUPLICATE_KEY, ...), reported once the message's kind is known: a kind
    # whose reader takes any body (`body: any`, e.g. xopc's heartbeat answer, client.ts:22 reads a body that is not
    # JSON as null) gets none of them; every other kind, and a message of no kind, gets them all
    body_problems: tuple[Finding, ...] = ()
    # a request the platform never took: the answer in the record was the stub's own (its HAR entry's `_wirecheck`):
    # a fault its scenario injected ("fault events=503 once") or its refusal of a request it could not act on
    # ("refused: no leased command x"). That answer is judged against neither side; this request still is
    stub_answer: str | None = None


@dataclass(frozen=True, slots=True)
class ArtifactInfo:
    channel: str  # file | argv | env
    path: str | None = None  # file artifacts: where the file was written
    program: str | None = None  # argv artifacts: basename of argv[0]


@dataclass(frozen=True, slots=True)
class CorpusEntry:
    """What a `wirecheck fuzz` corpus line says of its message: its kind and whether it must conform."""

    kind: str
    expect: str  # accept | reject
    breaks: Any = None  # a mutant's label: {"keyword", "pointer", "description"}


@dataclass(slots=True)
class Message:
    value: Any  # the parsed JSON (the body, for HTTP)
    file: str
    line: int | None = None
    where: str | None = None  # JSON pointer into the capture file (HAR entries)
    sender: str | None = None  # the role that sent it, when the capture says so (framed captures)
    kind: MessageKind | None = None
    http: HttpInfo | None = None
    exchange: int | None = None  # index of the HTTP exchange it belongs to
    artifact: ArtifactInfo | None = None
    corpus: CorpusEntry | None = None  # a fuzz corpus entry: judged against its expect, not reported as found
    # a JSON-RPC answer streamed over HTTP (Server-Sent Events): the event's place in its stream; every event is a
    # response to the same request, so those after the first are no second answer (capture/http.py)
    stream_event: int = 0

    def finding(
        self,
        code: str,
        message: str,
        *,
        pointer: str | None = None,
        severity: Severity | None = None,
        expected: str | None = None,
        found: str | None = None,
        schema_location: str | None = None,
        kind: str | None = None,
    ) -> Finding:
        """A finding located at this message; the severity defaults to the check's catalogue level."""
        return Finding(
            code=code,
            severity=severity or level_of(code),
            message=message,
            file=self.file,
            line=self.line,
            where=self.where,
            pointer=pointer,
            kind=kind or (self.kind.id if self.kind else None),
            schema_location=schema_location,
            expected=expected,
            found=found,
            sender=self.sender,
        )
