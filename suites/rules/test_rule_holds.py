"""A single-message rule that answers for a value (`holds`, rules/registry.py): the engine's fast path asks it instead
of building a Message, so it must agree exactly with the rule's findings."""

from __future__ import annotations

import pytest

from wirecheck.check.message import Message
from wirecheck.rules.registry import RULES, instantiate

from .test_registry import REGISTRY, _message_rules_with_kinds, generated_entries


@pytest.mark.parametrize(("spec", "rule_id", "kind_ids"), [
    p for p in _message_rules_with_kinds() if hasattr(RULES[p.values[1]], "holds")])
def test_a_rule_that_answers_for_a_value_agrees_with_its_findings(spec, rule_id, kind_ids) -> None:
    """The engine's fast path takes a message of a kind with single-message rules when each `holds(value)` (else
    it builds a Message for their on_message, which reports what they find): `holds` must be True exactly where
    on_message finds nothing, on valid messages, on mutants, and on values with the rule's field odd or absent."""
    release = REGISTRY.load(spec)
    rule = instantiate(next(u for u in release.rules if u.id == rule_id), release)
    values = []
    for _, entry in generated_entries(release, kind_ids, mutants=10):
        values.append(entry.message)
        if isinstance(entry.message, dict):  # each top-level member absent, or of another type
            values += [{k: v for k, v in entry.message.items() if k != name} for name in entry.message]
            values += [{**entry.message, name: odd} for name in entry.message for odd in (None, 7, "x", [])]
    answers = [(rule.holds(value), not list(rule.on_message(Message(value=value, file="f")))) for value in values]
    assert all(holds == clean for holds, clean in answers)
    assert {holds for holds, _ in answers} == {True, False}, "some values should break the rule, some not"
