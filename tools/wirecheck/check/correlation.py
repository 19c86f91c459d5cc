"""Requests and their responses, per capture, within a bound: memory does not grow with the capture's length.

A request is remembered by its id until its response comes (`awaiting`), and a while after (`answered`), so a second
response is told from a response to no request. Each is kept as the few fields a finding about it needs, never the
message. Past MAX_AWAITING requests waiting at once, the oldest is no longer tracked: whether it is answered cannot
be told any more, so responses to ids not known are not reported from then on, and one CORRELATION_LIMIT note says
how many of each there were. Past MAX_ANSWERED answered requests, the oldest are forgotten: a response to one is
reported as answering no request, and says it may answer one answered long before.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from wirecheck.contracts.model import MessageKind
from wirecheck.findings import Finding
from wirecheck.rules.catalogue import level_of

MAX_AWAITING = 100_000  # requests waiting for their response at once, per capture
MAX_ANSWERED = 100_000  # answered requests remembered, per capture


@dataclass(slots=True)
class Request:
    kind: MessageKind | None  # None: a JSON-RPC request for a method the release does not define
    request_id: Any
    file: str
    line: int | None
    where: str | None
    sender: str | None
    answered: int = 0
    method: str | None = None  # a request of no kind: its method
    answer: MessageKind | None = None  # a request of no kind: the response kind that answers it

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}" if self.line is not None else f"{self.file}#{self.where or ''}"

    def finding(self, code: str, message: str) -> Finding:
        """A finding about the request; one of no kind names the response kind that owes it an answer."""
        kind = self.kind if self.kind is not None else self.answer
        return Finding(code=code, severity=level_of(code), message=message, file=self.file, line=self.line,
                       where=self.where, kind=kind.id if kind is not None else None, sender=self.sender)


class Correlation:
    def __init__(self) -> None:
        # oldest first, the oldest dropped past a bound: ordered dicts, whose oldest entry is found at once (a plain
        # dict's first entry is found past every entry deleted before it: ~30 µs a request at 100,000)
        self.awaiting: OrderedDict[Any, Request] = OrderedDict()
        self.answered: OrderedDict[Any, Request] = OrderedDict()
        self.dropped = 0  # awaiting requests no longer tracked (past MAX_AWAITING)
        self.forgotten = 0  # answered requests no longer remembered (past MAX_ANSWERED)
        self.unmatched = 0  # responses to an unknown id after a drop: not reported (they may answer a dropped one)

    def request(self, key: Any, request: Request) -> Request | None:
        """Remember a request; the one with the same id still awaiting its response, if any (it is replaced)."""
        earlier = self.awaiting.pop(key, None)
        self.answered.pop(key, None)
        self.awaiting[key] = request
        if len(self.awaiting) > MAX_AWAITING:
            self.awaiting.popitem(last=False)
            self.dropped += 1
        return earlier

    def response(self, key: Any) -> Request | None:
        """The request a response with this id answers (its `answered` count raised), or None when none is known."""
        request = self.awaiting.pop(key, None)
        if request is None:
            request = self.answered.get(key)
            if request is not None:
                request.answered += 1
            return request
        request.answered = 1
        self._remember_answered(key, request)
        return request

    def answered_at_once(self, key: Any, request: Request) -> bool:
        """`request(key, request)` then `response(key)`, for a response that follows its request with nothing in
        between (`request.answered` already 1); False, and nothing done, when the id is still awaiting an answer
        or the requests awaiting are at their bound (remembering one more would drop the oldest)."""
        if key in self.awaiting or len(self.awaiting) >= MAX_AWAITING:
            return False
        self.answered.pop(key, None)  # an earlier request's, answered: this one is the latest (last in order)
        self._remember_answered(key, request)
        return True

    def _remember_answered(self, key: Any, request: Request) -> None:
        """Keep an answered request (a later response with its id answers it again); past MAX_ANSWERED the oldest
        is forgotten."""
        self.answered[key] = request
        if len(self.answered) > MAX_ANSWERED:
            self.answered.popitem(last=False)
            self.forgotten += 1

    def no_request_text(self, shown_id: str) -> str:
        """What a response that answers no known request is told."""
        older = f" (or to one answered before the last {MAX_ANSWERED:,})" if self.forgotten else ""
        return f"no request with id {shown_id}{older}"

    def unanswered(self) -> Iterator[Request]:
        return iter(self.awaiting.values())

    def limit_note(self, file: str) -> Finding | None:
        """The CORRELATION_LIMIT note, when requests were dropped."""
        if not self.dropped:
            return None
        return Finding(code="CORRELATION_LIMIT", severity=level_of("CORRELATION_LIMIT"), file=file, message=(
            f"more than {MAX_AWAITING:,} requests awaited their response at once: the {self.dropped:,} oldest were "
            f"no longer tracked, so whether they were answered is not checked, nor are the {self.unmatched:,} "
            "responses to ids no longer known"))
