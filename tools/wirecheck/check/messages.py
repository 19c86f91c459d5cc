"""Checks of one message on its own: its body against its kind's schema (strict and tolerant views), its headers, an
argv message decoded by its grammar, and the contracts of the consumers that read it (cross-contract). Also the
words for a message of no kind. Sequences of messages are check/sequences.py's; how the process ended,
check/outcome.py's; the run loop that feeds them, check/engine.py's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from wirecheck.check.message import Message
from wirecheck.check.readers import judge_body_problem, rejects_member
from wirecheck.check.validate import Problem, Validators
from wirecheck.contracts.model import ContractRelease, MessageKind
from wirecheck.findings import Finding, Severity, short_repr

Emit = Callable[[Finding], None]


class MessageChecks:
    """What one message of a known kind gets, whatever came before it."""

    def __init__(self, release: ContractRelease, validators: Validators,
                 load_release: Callable[[str], ContractRelease] | None = None):
        self.release = release
        self.validators = validators
        self._load_release = load_release
        self.has_consumers = frozenset(c.kind for c in release.consumers)
        self._consumers: dict[str, list[tuple[str, MessageKind, Validators]]] = {}
        self._consumer_validator_sets: dict[str, Validators] = {}

    # -- the message's own content ---------------------------------------------------------------------

    def content(self, message: Message, kind: MessageKind, emit: Emit, decoded: bool = False) -> None:
        """The body against the kind's schema, the headers against its header schema."""
        self._body(message, kind, emit, decoded)
        if kind.headers is not None and message.http is not None:
            for problem in self.validators.pair(kind.headers).problems(message.http.headers):
                emit(self.finding(message, problem, "HEADER_VIOLATION", prefix_note="header "))

    def _body(self, message: Message, kind: MessageKind, emit: Emit, decoded: bool) -> None:
        if kind.body == "any" or (message.http is not None and message.http.body_unknown):
            return  # a body the record left out is not known to be missing, nor what it was
        if message.http is not None:  # what reading the body found, as the kind's reader reads the body
            for read_problem in message.http.body_problems:
                emit(judge_body_problem(self.release, message, kind.consumer, read_problem))
        if kind.body == "empty":
            if message.value is not None:
                emit(message.finding("UNEXPECTED_BODY", "this message must have no body",
                                     expected="no body", found=short_repr(message.value)))
            return
        if message.http is not None and message.value is None:
            if not message.http.body_unreadable:  # else its PARSE_ERROR already says what the body is
                emit(message.finding("UNEXPECTED_BODY", "this message needs a JSON body", expected="a JSON body",
                                     found="no body"))
            return
        if kind.schema is None:
            return
        value = message.value
        if kind.argv_grammar is not None and not decoded:
            value = self._decode_argv(message, kind, emit)
        for problem in self.validators.pair(kind.schema).problems(value):
            emit(self.finding(message, problem, "SCHEMA_VIOLATION"))

    def _decode_argv(self, message: Message, kind: MessageKind, emit: Emit) -> Any:
        from wirecheck.capture.argv import decode_argv  # argv grammars are a capture concern (capture/argv.py)

        decoded, problems = decode_argv(list(message.value), kind.argv_grammar or {})
        for pointer, text in problems:
            emit(message.finding("SCHEMA_VIOLATION", text, pointer=pointer, found=short_repr(message.value)))
        return decoded

    def finding(self, message: Message, problem: Problem, code: str, prefix_note: str = "") -> Finding:
        text, severity = prefix_note + problem.message, None
        if problem.unknown_field and code != "HEADER_VIOLATION" and message.kind is not None:
            # the kind's real reader decides: one that rejects unknown members makes this an error (readers.yaml)
            cited = rejects_member(self.release, message.kind.id, problem.pointer)
            if cited is not None:
                text, severity = f"{text}: {message.kind.consumer} rejects unknown members here ({cited})", \
                    Severity.ERROR
        return message.finding(
            "UNKNOWN_FIELD" if problem.unknown_field else code,
            text,
            severity=severity,
            pointer=problem.pointer,
            schema_location=problem.schema_location,
            expected=problem.expected,
            found=problem.found,
        )

    # -- consumers' contracts ------------------------------------------------------------------------

    def consumers(self, message: Message, kind: MessageKind, emit: Emit, decoded: bool = False) -> None:
        for contract, consumer_kind, validators in self.consumer_validators(kind.id):
            if consumer_kind.schema is None or (decoded and consumer_kind.argv_grammar is not None):
                continue
            value = message.value
            if consumer_kind.argv_grammar is not None:  # the consumer reads argv by its own grammar
                value = self._decode_for_consumer(message, contract, consumer_kind, emit)
            other = validators.release
            for problem in validators.pair(consumer_kind.schema).problems(value):
                # an unknown member is rejected where the consumer's reader is closed there (its readers.yaml)
                cited = rejects_member(other, consumer_kind.id, problem.pointer) if problem.unknown_field else None
                what = "unknown to" if problem.unknown_field and cited is None else "rejected by"
                emit(message.finding(
                    "CROSS_CONTRACT_VIOLATION",
                    f"{what} consumer {contract} ({consumer_kind.id}): {problem.message}"
                    + (f" (its reader rejects unknown members here: {cited})" if cited else ""),
                    severity=Severity.WARNING if what == "unknown to" else Severity.ERROR,
                    pointer=problem.pointer,
                    schema_location=problem.schema_location,
                    expected=problem.expected,
                    found=problem.found,
                ))

    def _decode_for_consumer(self, message: Message, contract: str, consumer_kind: MessageKind, emit: Emit) -> Any:
        from wirecheck.capture.argv import decode_argv

        decoded, problems = decode_argv(list(message.value), consumer_kind.argv_grammar or {})
        for pointer, text in problems:
            emit(message.finding("CROSS_CONTRACT_VIOLATION",
                                 f"rejected by consumer {contract} ({consumer_kind.id}): {text}",
                                 pointer=pointer, found=short_repr(message.value)))
        return decoded

    def consumer_release(self, contract: str) -> ContractRelease:
        """Another contract named under the release's `consumers:` (loaded from the release's registry)."""
        if self._load_release is None:
            from wirecheck.contracts import load_registry

            registry = load_registry(self.release.root.parent.parent)
            self._load_release = registry.load
        return self._load_release(contract)

    def consumer_validators(self, kind_id: str) -> list[tuple[str, MessageKind, Validators]]:
        """(contract, its kind, its validators) for each consumer of `kind_id` (the catalog's `consumers:`)."""
        if kind_id not in self._consumers:
            entries = []
            for consumer in self.release.consumers:
                if consumer.kind != kind_id:
                    continue
                other = self.consumer_release(consumer.contract)
                if consumer.contract not in self._consumer_validator_sets:  # one set per contract, not per entry
                    self._consumer_validator_sets[consumer.contract] = Validators(other)
                entries.append((consumer.contract, other.kind(consumer.as_kind),
                                self._consumer_validator_sets[consumer.contract]))
            self._consumers[kind_id] = entries
        return self._consumers[kind_id]

    # -- a message of no kind ------------------------------------------------------------------------

    def unknown_text(self, message: Message) -> str:
        if message.http is not None:
            http = message.http
            what = f"{http.method} {http.path}" + (f" → {http.status}" if http.status is not None else "")
            return f"no message kind of {self.release.name} matches {what}"
        if message.artifact is not None:
            return f"no {message.artifact.channel} kind of {self.release.name} matches this artifact"
        return f"no message kind of {self.release.name} matches this message"

    @staticmethod
    def shape(message: Message) -> str | None:
        if isinstance(message.value, dict):
            keys = {k: message.value[k] for k in ("type", "subtype", "kind", "method") if k in message.value}
            if keys:
                return short_repr(keys)
            return f"an object with keys {short_repr(sorted(message.value)[:8])}" if message.value else "{}"
        return None
