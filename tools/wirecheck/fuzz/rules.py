"""A kind's single-message protocol rules as generation sees them, read from the rule registry
(wirecheck.rules.registry `Needs`): the schemas they add to the body and the headers, the repairs JSON Schema cannot
say, the single edits that break each one — and the engine's own verdict on a generated message
(`Engine.judge_alone`), which is what "valid" and "breaks exactly its label" are measured by.

A generated message is a `Message` as the engine would read it: the body, and for an HTTP kind the envelope its
selector gives (method, the path with every `{name}` filled, the status, the generated headers).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from wirecheck.check.engine import Engine
from wirecheck.check.message import HttpInfo, Message
from wirecheck.contracts.model import ContractRelease, MessageKind, RuleUse
from wirecheck.findings import Finding, blocking
from wirecheck.fuzz.memo import for_release
from wirecheck.rules.registry import MESSAGE, NEEDS, Needs, scope_of

GENERATED = "<generated>"  # the file name generated messages are judged under
_PLACEHOLDER = re.compile(r"\{[^/}]+\}")


def engine_for(release: ContractRelease) -> Engine:
    """One engine per release (validators, classifier): judging a message is then a few validator calls."""
    engine: Engine = for_release(release, "engine", lambda: Engine(release))
    return engine


def consumer_kinds(release: ContractRelease, kind: MessageKind) -> list[tuple[ContractRelease, MessageKind]]:
    """The other contracts' kinds a message of `kind` must also be (the catalog's `consumers:`, which the engine
    checks as CROSS_CONTRACT_VIOLATION), as the engine loads them. An argv kind's generated value is its own
    grammar's decoded object, which another grammar's decoding cannot be compared with: those are left out."""
    engine = engine_for(release)
    return [(engine.consumer_release(contract), consumer_kind)
            for contract, consumer_kind, _ in engine.consumer_validators(kind.id)
            if not (kind.argv_grammar is not None and consumer_kind.argv_grammar is not None)]


def message_of(kind: MessageKind, value: Any, headers: dict[str, str] | None = None) -> Message:
    """`value` as the engine reads a message of `kind`: an HTTP kind's body with the envelope its selector gives."""
    http = None
    if kind.http is not None:
        status = kind.http.status
        path = _PLACEHOLDER.sub("wirecheck", kind.http.path)
        http = HttpInfo(method=kind.http.method, url=f"http://127.0.0.1{path}", path=path,
                        status=None if status is None else int(status if status.isdigit() else status[0] + "00"),
                        headers=dict(headers or {}))
    return Message(value=value, file=GENERATED, line=1, kind=kind, http=http)


class KindRules:
    """The single-message rules a release turns on for one kind (rules/registry.py MESSAGE), with their Needs."""

    def __init__(self, release: ContractRelease, kind: MessageKind):
        self.release, self.kind = release, kind
        self.uses: list[RuleUse] = [use for use in release.rules
                                    if scope_of(use.id) == MESSAGE and (not use.kinds or kind.id in use.kinds)]
        self._needs: list[tuple[RuleUse, Needs]] = [(use, NEEDS[use.id]) for use in self.uses]
        self._decoded = kind.argv_grammar is not None  # generated argv values are the grammar's decoded object

    def __bool__(self) -> bool:
        return bool(self.uses)

    def body_schemas(self) -> list[Any]:
        """The JSON Schemas the rules add to the kind's body schema."""
        found = [needs.schema(use.params, self.release, self.kind) for use, needs in self._needs if needs.schema]
        return [schema for schema in found if schema is not None]

    def header_schemas(self) -> list[Any]:
        found = [needs.headers(use.params, self.release, self.kind) for use, needs in self._needs if needs.headers]
        return [schema for schema in found if schema is not None] if self.kind.http is not None else []

    def repair(self, message: Message) -> Message:
        for use, needs in self._needs:
            if needs.repair is not None:
                message = needs.repair(use.params, message)
        return message

    def judge(self, message: Message) -> list[Finding]:
        """The engine's findings on this message alone (schema, headers, single-message rules, consumers)."""
        return engine_for(self.release).judge_alone(message, decoded=self._decoded)

    def holds(self, message: Message) -> bool:
        return not blocking(self.judge(message))

    def breaking_edits(self, message: Message) -> list[tuple[Message, str, str, str]]:
        """(message, rule id, pointer, description): single edits that break one rule."""
        return [(edited, use.id, pointer, description)
                for use, needs in self._needs if needs.breaks is not None
                for edited, pointer, description in needs.breaks(use.params, message)]

    def with_headers(self, message: Message, headers: dict[str, str]) -> Message:
        if message.http is None:
            return message
        return replace(message, http=replace(message.http, headers={**message.http.headers, **headers}))
