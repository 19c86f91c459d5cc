"""The rule registry (rules/registry.py): every rule says whether one message decides it (and what a message needs
to satisfy it) or a sequence does (and what a session needs), so a generator can never forget a rule."""

from __future__ import annotations

from functools import cache

import pytest

from wirecheck.contracts import load_registry
from wirecheck.findings import blocking
from wirecheck.fuzz.corpus import fuzzable_kinds, mutant_entries, valid_entries
from wirecheck.fuzz.rules import KindRules, message_of
from wirecheck.fuzz.sampling import CannotGenerate
from wirecheck.rules.catalogue import rule_catalogue
from wirecheck.rules.registry import (
    MESSAGE,
    NEEDS,
    RULES,
    SCOPES,
    SEQUENCE,
    SESSIONS,
    Needs,
    Session,
    message_rule,
    rule,
    scope_of,
)

REGISTRY = load_registry()


@cache
def _releases():
    return REGISTRY.load_all()[0]


def test_every_registered_rule_says_how_a_generator_satisfies_it() -> None:
    """A single-message rule declares Needs that fuzz acts on (a schema for the body or the headers, a repair,
    or why it can be broken only by chance / is only a note); a sequence rule declares the Session it needs. A
    rule that declares neither cannot even be registered (below)."""
    scope_of("FIELDS_EQUAL")  # loads every rule module
    assert set(SCOPES) == set(RULES) and RULES
    for rule_id, scope in SCOPES.items():
        assert rule_id in rule_catalogue(), rule_id  # and it has its text
        if scope == MESSAGE:
            needs = NEEDS[rule_id]
            assert needs.schema or needs.headers or needs.repair or needs.by_chance or needs.note, rule_id
        else:
            assert scope == SEQUENCE and callable(SESSIONS[rule_id]), rule_id


def test_a_rule_without_a_way_to_satisfy_it_cannot_be_registered() -> None:
    with pytest.raises(ValueError, match="exactly one of needs"):
        rule("NEW_RULE_NOBODY_CAN_GENERATE")
    with pytest.raises(ValueError, match="exactly one of needs"):
        rule("NEW_RULE_TWICE_DECLARED", needs=Needs(note="n"), session=lambda params: Session(off_streams="x"))
    with pytest.raises(ValueError, match="must say how"):
        Needs()
    with pytest.raises(ValueError, match="exactly one thing"):
        Session()
    with pytest.raises(TypeError):
        message_rule("NEW_STATELESS_RULE")  # type: ignore[call-arg]  (needs is required)
    assert "NEW_RULE_NOBODY_CAN_GENERATE" not in RULES


def _message_rule_uses():
    for release in _releases():
        for use in release.rules:
            if scope_of(use.id) == MESSAGE and NEEDS[use.id].breaks is not None:
                kinds = [k for k in fuzzable_kinds(release) if not use.kinds or k.id in use.kinds]
                yield pytest.param(release.name, use.id, [k.id for k in kinds], id=f"{release.name}-{use.id}")


@pytest.mark.parametrize(("spec", "rule_id", "kind_ids"), list(_message_rule_uses()))
def test_every_breakable_rule_gets_mutants_the_engine_flags_for_it_alone(spec, rule_id, kind_ids) -> None:
    """Each single-message rule a bundled release turns on, and that says how to break it, yields rule mutants:
    schema-valid messages the engine flags with that rule and nothing else."""
    release = REGISTRY.load(spec)
    found = 0
    for kind_id in kind_ids:
        kind = release.kind(kind_id)
        try:
            entries = mutant_entries(release, kind, 10, 0)  # rule mutants come first
        except CannotGenerate:
            continue
        rules = KindRules(release, kind)
        for entry in entries:
            if entry.mutant is None or entry.mutant.keyword != rule_id:
                continue
            message = message_of(kind, entry.message)
            if entry.http is not None:
                message.http = entry.http
            assert [f.code for f in blocking(rules.judge(message))] == [rule_id], entry.as_json()
            found += 1
    assert found, f"{spec}: no mutant breaks {rule_id} on {', '.join(kind_ids)}"


def generated_entries(release, kind_ids, mutants):
    """(kind, entry) for 4 valid messages and `mutants` mutants of each kind that can be generated (seed 1)."""
    for kind_id in kind_ids:
        kind = release.kind(kind_id)
        try:
            entries = valid_entries(release, kind, 4, 1) + mutant_entries(release, kind, mutants, 1)
        except CannotGenerate:
            continue
        for entry in entries:
            yield kind, entry


def _message_rules_with_kinds():
    for release in _releases():
        for use in release.rules:
            if scope_of(use.id) == MESSAGE:
                kinds = [k.id for k in fuzzable_kinds(release) if not use.kinds or k.id in use.kinds]
                yield pytest.param(release.name, use.id, kinds, id=f"{release.name}-{use.id}")


@pytest.mark.parametrize(("spec", "rule_id", "kind_ids"), list(_message_rules_with_kinds()))
def test_single_message_rules_keep_no_state(spec, rule_id, kind_ids) -> None:
    """The engine's fast path (and -j workers) run a single-message rule on messages in any order, in any process,
    and trust it to keep nothing between them: one instance, shown valid messages and mutants, must answer each
    message the same whatever came before, and its attributes must not change."""
    from wirecheck.rules.registry import instantiate

    release = REGISTRY.load(spec)
    use = next(u for u in release.rules if u.id == rule_id)
    messages = []
    for kind, entry in generated_entries(release, kind_ids, mutants=6):
        message = message_of(kind, entry.message)
        message.http = entry.http
        messages.append(message)
    assert messages, f"{spec}: no message of {', '.join(kind_ids)} to show {rule_id}"

    def answers(rule, ordered):
        return {id(m): [f.to_json() for f in rule.on_message(m)] for m in ordered}

    shared = instantiate(use, release)
    before = {name: repr(value) for name, value in vars(shared).items()}
    forward, backward = answers(shared, messages), answers(shared, messages[::-1])
    assert forward == backward
    assert forward == {id(m): [f.to_json() for f in instantiate(use, release).on_message(m)] for m in messages}
    assert {name: repr(value) for name, value in vars(shared).items()} == before


def _fixture_messages(release):
    """The classified messages of a release's bundled fixture captures (expectations.yaml), in capture order."""
    from pathlib import Path

    import yaml

    from wirecheck.capture import CaptureFile, read_capture
    from wirecheck.check.engine import Engine
    from wirecheck.check.message import Message

    package, version = release.name.split("@")
    expectations = Path(__file__).resolve().parents[2] / "fixtures" / package / version / "expectations.yaml"
    if not expectations.exists():
        return
    engine = Engine(release)
    for case in yaml.safe_load(expectations.read_text())["cases"]:
        for item in read_capture(CaptureFile(str(expectations.parent / case["capture"]))):
            if isinstance(item, Message) and (kind := engine.classifier.classify(item, {})) is not None:
                item.kind = kind
                yield item


def test_a_rule_that_reads_no_values_finds_the_same_without_them() -> None:
    """A rule declaring `reads_values = False` (its on_message reads a message's kind, place and sender alone) is
    shown messages without their value by a capture's engine fed by workers (check/parts.py): on every bundled
    fixture of every release that uses it, and on a breach of its own, it finds the same with values and without."""
    from dataclasses import replace

    from wirecheck.check.engine import Engine

    judged = set()
    for release in _releases():
        engine = Engine(release)
        for use in release.rules:
            if getattr(engine.rule(use), "reads_values", True) is not False:
                continue
            whole, placed = engine.rule(use), engine.rule(use)
            found: tuple[list, list] = ([], [])
            for message in _fixture_messages(release):
                found[0].extend(whole.on_message(message))
                found[1].extend(placed.on_message(replace(message, value=None)))
            found[0].extend(whole.finish())
            found[1].extend(placed.finish())
            assert found[0] == found[1], (release.name, use.id)
            judged.add(use.id)
    assert "QODER_RESULT_ENDS_TURN" in judged
