"""The protocol-rule registry: each rule is a small factory registered once under its catalogue id.

A rule sees the classified messages of the kinds it is turned on for (all kinds when the catalog names none),
in capture order, and may report findings at any message or when the capture ends. Rule texts (level, purpose,
rationale) are data in rules/texts/; parameters come from the catalog's `rules:` entry.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from wirecheck.check.message import Message
from wirecheck.contracts.model import ContractRelease, MessageKind, RuleUse
from wirecheck.findings import Finding

# What a rule's findings depend on. Every rule says which, when it is registered:
MESSAGE = "message"  # one message alone (its body, its HTTP envelope): it declares `Needs`
SEQUENCE = "sequence"  # other messages too (order, pairing, state across a capture): it declares a `Session`


class Rule(Protocol):
    """A rule instance may also set `watches` (a set of kind ids) to be shown only those kinds, when the catalog's
    `kinds:` does not narrow it: the engine then skips it for every other message. A rule that has seen all it
    needs may set `settled = True`; messages that no unsettled rule watches take the engine's fast path.

    A rule that never reports from `on_message` for a valid message (it only keeps state for `finish`) may also
    define `observe(kind, value, file, line)`: the engine's fast path then calls that instead of building a
    Message, and valid messages of the kinds it watches stay on the fast path. One whose `observe` reads only the
    kind and line, never the value, says so with `observes_values = False`: parts of a large capture checked by
    other processes (check/parallel.py) then hand on only (kind, line) for such messages, and `value` is None.
    One whose `on_message` reads only a message's kind, place (file, line, where) and sender, never its value, says
    so with `reads_values = False`: those parts then hand on such messages without their value (None).
    A rule of scope MESSAGE keeps no state at all: the fast path runs it on each valid message and takes the message
    only when it finds nothing (else the message takes the full path, which reports the finding)."""

    def on_message(self, message: Message) -> Iterable[Finding]: ...

    def finish(self) -> Iterable[Finding]: ...

    # A rule of scope MESSAGE may also define `holds(value) -> bool`, True exactly when `on_message` finds nothing in
    # a message with that value: the fast path then asks that, without building a Message (check/engine.py _holding).


class SettlingRule(Rule, Protocol):
    settled: bool


Params = Mapping[str, Any]
# (message, pointer, description): one edit of a valid message that breaks the rule and nothing else
Edit = tuple[Message, str, str]


@dataclass(frozen=True)
class Needs:
    """What a single-message rule asks of one message, declared beside the rule so that a generator (wirecheck
    fuzz) can satisfy it in every "valid" message and break it, alone, in a labelled mutant. A rule declares at
    least one of these; `wirecheck.fuzz.rules` applies each, and a test fails for a rule that declares none.

    - `schema(params, release, kind)`: a JSON Schema the message (the body, for HTTP) must also satisfy for the rule
      to hold, or None when the rule asks nothing of that kind; generation takes it as part of the kind's schema.
    - `headers(params, release, kind)`: a JSON Schema for an HTTP message's headers (names lower case), or None.
    - `repair(params, message)`: the message, changed so the rule holds, for what JSON Schema cannot say (two
      fields equal; the HTTP status that goes with an error code).
    - `breaks(params, message)`: single edits of a message that holds the rule after which it does not.
    - `by_chance`: why a generated message breaks the rule only by rare chance (prose that happens to read as a
      provider's rate-limit notice): generation drops such messages, and says nothing else.
    - `note`: the rule's findings are notes about a valid message (info), so there is nothing to satisfy.
    """

    schema: Callable[[Params, ContractRelease, MessageKind], Any] | None = None
    headers: Callable[[Params, ContractRelease, MessageKind], Any] | None = None
    repair: Callable[[Params, Message], Message] | None = None
    breaks: Callable[[Params, Message], list[Edit]] | None = None
    by_chance: str | None = None
    note: str | None = None

    def __post_init__(self) -> None:
        if not (self.schema or self.headers or self.repair or self.by_chance or self.note):
            raise ValueError("a rule's Needs must say how a message satisfies it")


@dataclass(frozen=True)
class Session:
    """What a sequence rule asks of a session of stream messages, for a session generator (`wirecheck fuzz
    --messages-only`) to write one that satisfies it. Exactly one of:

    - `first`: (kind id, role or None): the first message (from that role) is of this kind (a handshake);
    - `turns`: {"prompt", "turn", "result", "restart"}: kind ids; turn output sits between a prompt (or a restart)
      and the result that ends the turn, and the stream never ends inside a turn;
    - `off_streams`: why the rule judges no stream message (it follows HTTP exchanges): a stream session holds none
      of its kinds, and a release that turns it on for a stream kind gets no session (the generator says so).
    """

    first: tuple[str, str | None] | None = None
    turns: Mapping[str, tuple[str, ...]] | None = None
    off_streams: str | None = None

    def __post_init__(self) -> None:
        if sum(x is not None for x in (self.first, self.turns, self.off_streams)) != 1:
            raise ValueError("a rule's Session says exactly one thing")


RuleFactory = Callable[[Params, ContractRelease], Rule]
RULES: dict[str, RuleFactory] = {}
SCOPES: dict[str, str] = {}  # rule id → MESSAGE | SEQUENCE
NEEDS: dict[str, Needs] = {}  # single-message rules: what a message needs to satisfy them
SESSIONS: dict[str, Callable[[Params], Session]] = {}  # sequence rules: what a session needs, from the params


def rule(rule_id: str, *, needs: Needs | None = None,
         session: Callable[[Params], Session] | None = None) -> Callable[[RuleFactory], RuleFactory]:
    """Register a rule: a class (or factory) taking (params, release). A single-message rule gives `needs`, a
    sequence rule `session` (exactly one of them): a rule no generator could satisfy cannot be registered."""
    if (needs is None) == (session is None):
        raise ValueError(f"rule {rule_id}: give exactly one of needs (single message) or session (sequence)")

    def register(factory: RuleFactory) -> RuleFactory:
        if rule_id in RULES:
            raise ValueError(f"rule {rule_id} registered twice")
        RULES[rule_id] = factory
        SCOPES[rule_id] = MESSAGE if needs is not None else SEQUENCE
        if needs is not None:
            NEEDS[rule_id] = needs
        if session is not None:
            SESSIONS[rule_id] = session
        return factory

    return register


class _MessageRule:

    def __init__(self, check: Callable[[Message, Mapping[str, Any]], Iterable[Finding]], params: Mapping[str, Any]):
        self._check, self._params = check, params

    def on_message(self, message: Message) -> Iterable[Finding]:
        return self._check(message, self._params)

    def finish(self) -> Iterable[Finding]:
        return ()


def message_rule(rule_id: str, *, needs: Needs):
    """Register a stateless rule: a function (message, params) → findings, applied to each message."""

    def register(check: Callable[[Message, Mapping[str, Any]], Iterable[Finding]]):
        rule(rule_id, needs=needs)(lambda params, release: _MessageRule(check, params))
        return check

    return register


def instantiate(use: RuleUse, release: ContractRelease) -> Rule:
    _load_rule_modules()
    return RULES[use.id](use.params, release)


def scope_of(rule_id: str) -> str:
    """MESSAGE or SEQUENCE (KeyError for an id no module registers)."""
    _load_rule_modules()
    return SCOPES[rule_id]


@functools.cache
def _load_rule_modules() -> None:
    """Import every module in this package so their decorators run (one module per rule family)."""
    import importlib
    import pkgutil

    import wirecheck.rules as package

    for info in pkgutil.iter_modules(package.__path__):
        if info.name not in {"registry", "catalogue"}:
            importlib.import_module(f"wirecheck.rules.{info.name}")


def schema_at(pointer: str, schema: Any) -> dict[str, Any]:
    """`schema` for the value at `pointer` (object members only), as a schema for the whole message: what a rule's
    `Needs.schema` says about one field. An absent member is left to the kind's own schema."""
    from wirecheck.pointer import parse_pointer

    for token in reversed(parse_pointer(pointer)):
        schema = {"properties": {token: schema}}
    return schema
