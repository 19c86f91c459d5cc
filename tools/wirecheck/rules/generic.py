"""Rules any catalog can turn on with parameters (texts in rules/texts/generic.yaml)."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from wirecheck.check.message import Message
from wirecheck.contracts.model import ContractRelease
from wirecheck.findings import Finding, short_repr
from wirecheck.pointer import MISSING, parse_pointer, replaced, resolve
from wirecheck.rules.registry import Edit, Needs, Params, Session, rule


def _copy_left(params: Params, message: Message) -> Message:
    left = resolve(message.value, parse_pointer(params["left"]), MISSING)
    right = resolve(message.value, parse_pointer(params["right"]), MISSING)
    if left is MISSING or right is MISSING:
        return message
    return replace(message, value=replaced(message.value, parse_pointer(params["right"]), copy.deepcopy(left)))


def _right_differs(params: Params, message: Message) -> list[Edit]:
    left = resolve(message.value, parse_pointer(params["left"]), MISSING)
    if left is MISSING or resolve(message.value, parse_pointer(params["right"]), MISSING) is MISSING:
        return []
    return [(replace(message, value=replaced(message.value, parse_pointer(params["right"]), other)), params["right"],
             f"{params['right']} differs from {params['left']}") for other in _different(left)]


def _different(value: Any) -> list[Any]:
    """Values of the same JSON type as `value` that differ from it."""
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int | float):
        return [value + 1]
    if isinstance(value, str):
        return [value + "-other", value[:-1] if value else "other", "0" if value != "0" else "1"]
    return []


@rule("FIELDS_EQUAL", needs=Needs(repair=_copy_left, breaks=_right_differs))
class FieldsEqual:
    """params: left, right (JSON pointers into the message)."""


    def __init__(self, params: Mapping[str, Any], release: ContractRelease):
        self._left, self._right = params["left"], params["right"]
        self._left_tokens, self._right_tokens = parse_pointer(self._left), parse_pointer(self._right)

    def on_message(self, message: Message) -> Iterable[Finding]:
        left = resolve(message.value, self._left_tokens, MISSING)
        right = resolve(message.value, self._right_tokens, MISSING)
        if left is MISSING or right is MISSING or left == right:
            return  # absence is the schema's business, not this rule's
        yield message.finding(
            "FIELDS_EQUAL",
            f"{self._right} must equal {self._left}",
            pointer=self._right,
            expected=short_repr(left),
            found=short_repr(right),
        )

    def finish(self) -> Iterable[Finding]:
        return ()


@rule("FIRST_MESSAGE_IS", session=lambda params: Session(first=(params["kind"], params.get("from"))))
class FirstMessageIs:
    """params: kind (the expected first kind), from (optional: only messages sent by this role count).

    Only messages on the expected kind's channel count: an HTTP exchange in the same capture is another stream.
    """

    def __init__(self, params: Mapping[str, Any], release: ContractRelease):
        self._kind = params["kind"]
        self._channel = release.kind(self._kind).channel
        self._sender = params.get("from")
        self._seen_first_in: set[str] = set()
        self.settled = False  # rules are instantiated per capture: after its first message, this one is done

    def on_message(self, message: Message) -> Iterable[Finding]:
        if message.file in self._seen_first_in:  # the common case, decided before anything else
            return ()
        kind = message.kind
        if kind is None or kind.channel != self._channel:
            return ()
        sender = message.sender or kind.producer  # a framed capture says who sent it; else the kind does
        if self._sender and sender != self._sender:
            return ()
        self._seen_first_in.add(message.file)
        self.settled = True
        if kind.id == self._kind:
            return ()
        return [message.finding(
            "FIRST_MESSAGE_IS",
            f"the first message from {sender} must be {self._kind}",
            expected=self._kind,
            found=kind.id,
        )]

    def finish(self) -> Iterable[Finding]:
        return ()
