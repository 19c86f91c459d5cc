"""Every message kind of every release: a valid strategy whose messages pass both validators and the whole engine,
and mutants that both validators and the engine reject for the labelled reason alone."""

from __future__ import annotations

import os
from dataclasses import replace
from functools import cache

import pytest

from wirecheck.check.classify import Classifier
from wirecheck.check.labels import Label, as_found, refused_for
from wirecheck.check.message import Message
from wirecheck.contracts import load_registry
from wirecheck.contracts.reference import reference_validator
from wirecheck.findings import blocking
from wirecheck.fuzz.corpus import fuzzable_kinds, valid_messages
from wirecheck.fuzz.mutants import RULE, MutantFactory, explain_rejection
from wirecheck.fuzz.rules import KindRules
from wirecheck.fuzz.sampling import CannotGenerate, draw_examples
from wirecheck.fuzz.strategies import compiler_for, kind_strategy

THOROUGH = os.environ.get("HYPOTHESIS_PROFILE") == "thorough"
VALID, MUTATED = (100, 20) if THOROUGH else (6, 2)
REGISTRY = load_registry()


@cache
def _release(spec: str):
    return REGISTRY.load(spec)


def _cases() -> list[tuple[str, str]]:
    # a release that does not load is left to the contract self-tests
    return [(release.name, kind.id) for release in REGISTRY.load_all()[0] for kind in fuzzable_kinds(release)]


# Kinds no message of which is valid to the whole engine, and why: generation says so (CannotGenerate) instead of
# writing "valid" messages that `wirecheck validate` fails.
NO_VALID_MESSAGE = {
    ("navarch-runtime@0.1.53", "file.opencode-config"): "opencode-config@1.0.0 refuses the V2 keys 0.1.53 writes",
}


@pytest.mark.parametrize(("spec", "kind_id"), _cases())
def test_kind_generates_valid_messages_and_rejected_mutants(spec, kind_id):
    """Valid means valid to the whole engine (Engine.judge_alone: schema, headers, every single-message rule of
    the release, the consumers' contracts), and each mutant is rejected by the engine for its label alone."""
    release = _release(spec)
    kind = release.kind(kind_id)
    compiler = compiler_for(release)
    rules = KindRules(release, kind)
    if (spec, kind_id) in NO_VALID_MESSAGE:
        with pytest.raises(CannotGenerate, match="CROSS_CONTRACT_VIOLATION"):
            valid_messages(release, kind, VALID, seed=1)
        return
    messages = valid_messages(release, kind, VALID, seed=1)  # what `wirecheck fuzz` writes
    assert messages, f"{spec} {kind_id}: the strategy produced nothing"
    fast = compiler.schemas.ref_validator(kind.schema.uri)
    reference = reference_validator({"$ref": kind.schema.uri}, release.resources)
    classify = Classifier(release).classify
    for message in messages:
        value = message.value
        assert fast.is_valid(value), value
        assert reference.is_valid(value), (value, [e.message for e in reference.iter_errors(value)][:3])
        assert blocking(rules.judge(message)) == [], (value, message.http)  # the engine finds nothing
        if kind.channel == "stdio-ndjson":  # and the checker takes it for a message of its kind
            found = classify(Message(value=value, file="", sender=kind.producer))
            assert found is not None and found.id == kind_id, (value, found and found.id)
    factory = MutantFactory(compiler.schemas, kind.schema.uri, kind=kind_id, rules=rules)
    for message in messages[:MUTATED]:
        for mutant in factory.mutants(message.value, message):
            judged = blocking(rules.judge(replace(message, value=mutant.instance, http=mutant.http)))
            codes = {f.code for f in judged}
            # refused for the labelled keyword at the labelled place alone (the corpus self-test's matcher)
            assert refused_for(judged, Label(mutant.keyword, mutant.pointer)), (mutant, [as_found(f) for f in judged])
            if mutant.via == RULE:  # breaks a protocol rule: schema-valid, flagged by the engine's rule
                assert fast.is_valid(mutant.instance) and reference.is_valid(mutant.instance), mutant
                continue
            label = (mutant.keyword, mutant.pointer)
            assert not fast.is_valid(mutant.instance), mutant
            assert explain_rejection(reference, mutant.instance, label) == [label], mutant
            expected = "UNKNOWN_FIELD" if mutant.keyword in ("additionalProperties", "unevaluatedProperties") \
                else "SCHEMA_VIOLATION"
            # the kind's own schema says it; a consumer's contract (CROSS_CONTRACT_VIOLATION) may say it too
            assert expected in codes and codes <= {expected, "CROSS_CONTRACT_VIOLATION"}, (mutant, codes)


def test_a_kind_whose_schema_allows_what_its_selector_does_not_pick_still_generates_its_own_messages(demo):
    # demo's ping request allows `request: {}`, which neither selector alternative (/request/subtype or
    # /request/kind = ping) picks: the generator plants the first alternative's value
    classify = Classifier(demo).classify
    values = draw_examples(kind_strategy(demo, "request.ping"), 30, seed=0)
    assert values and all(classify(Message(value=v, file="", sender="client")).id == "request.ping" for v in values)
    assert {"subtype", "kind"} & {key for v in values for key in v["request"]}


def test_issue_example_xopc_run_events_carry_their_sequence():
    """Issue 18: about 22 % of `wirecheck fuzz xopc@0.0.253` events.request messages were labelled valid with a
    runId and no sequence (the platform rejects them; validate flags XOPC_RUN_EVENT_HAS_SEQUENCE). The rule's
    declared Needs make a runId bring its sequence; without one, the message is free."""
    release = _release("xopc@0.0.253")
    kind = release.kind("events.request")
    messages = valid_messages(release, kind, 60, seed=0)
    events = [m.value["event"] for m in messages]
    assert all("sequence" in e for e in events if e.get("runId")), [e for e in events if e.get("runId")][:2]
    assert any(e.get("runId") for e in events) and any(not e.get("runId") for e in events)  # not vacuous
    # and every one travels in the envelope the engine reads: POST /events with the runtime's bearer token
    assert all(m.http.method == "POST" and m.http.headers["authorization"].startswith("Bearer ") for m in messages)
