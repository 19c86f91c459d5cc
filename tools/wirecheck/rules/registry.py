"""The protocol-rule registry: each rule is a small factory registered once under its catalogue id.

A rule sees the classified messages of the kinds it is turned on for (all kinds when the catalog names none),
in capture order, and may report findings at any message or when the capture ends. Rule texts (level, purpose,
rationale) are data in rules/texts/; parameters come from the catalog's `rules:` entry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

from wirecheck.check.message import Message
from wirecheck.contracts.model import ContractRelease, RuleUse
from wirecheck.findings import Finding


class Rule(Protocol):
    """A rule instance may also set `watches` (a set of kind ids) to be shown only those kinds, when the catalog's
    `kinds:` does not narrow it: the engine then skips it for every other message. A rule that has seen all it
    needs may set `settled = True`; messages that no unsettled rule watches take the engine's fast path.

    A rule that never reports from `on_message` for a valid message (it only keeps state for `finish`) may also
    define `observe(kind, value, file, line)`: the engine's fast path then calls that instead of building a
    Message, and valid messages of the kinds it watches stay on the fast path. One whose `observe` reads only the
    kind and line, never the value, says so with `observes_values = False`: parts of a large capture checked by
    other processes (check/parallel.py) then hand on only (kind, line) for such messages, and `value` is None."""

    def on_message(self, message: Message) -> Iterable[Finding]: ...

    def finish(self) -> Iterable[Finding]: ...


class SettlingRule(Rule, Protocol):
    settled: bool


RuleFactory = Callable[[Mapping[str, Any], ContractRelease], Rule]
RULES: dict[str, RuleFactory] = {}


def rule(rule_id: str) -> Callable[[RuleFactory], RuleFactory]:
    """Register a stateful rule: a class (or factory) taking (params, release)."""

    def register(factory: RuleFactory) -> RuleFactory:
        if rule_id in RULES:
            raise ValueError(f"rule {rule_id} registered twice")
        RULES[rule_id] = factory
        return factory

    return register


class _MessageRule:
    single_message = True  # a stateless rule judges each message alone

    def __init__(self, check: Callable[[Message, Mapping[str, Any]], Iterable[Finding]], params: Mapping[str, Any]):
        self._check, self._params = check, params

    def on_message(self, message: Message) -> Iterable[Finding]:
        return self._check(message, self._params)

    def finish(self) -> Iterable[Finding]:
        return ()


def message_rule(rule_id: str):
    """Register a stateless rule: a function (message, params) → findings, applied to each message."""

    def register(check: Callable[[Message, Mapping[str, Any]], Iterable[Finding]]):
        rule(rule_id)(lambda params, release: _MessageRule(check, params))
        return check

    return register


def instantiate(use: RuleUse, release: ContractRelease) -> Rule:
    _load_rule_modules()
    return RULES[use.id](use.params, release)


def _load_rule_modules() -> None:
    """Import every module in this package so their decorators run (one module per rule family)."""
    import importlib
    import pkgutil

    import wirecheck.rules as package

    for info in pkgutil.iter_modules(package.__path__):
        if info.name not in {"registry", "catalogue"}:
            importlib.import_module(f"wirecheck.rules.{info.name}")
