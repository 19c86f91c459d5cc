"""Every message kind of every release: a valid strategy whose values pass both validators, and mutants that
both validators reject for the labelled reason."""

from __future__ import annotations

import os
from functools import cache

import pytest

from wirecheck.check.classify import Classifier
from wirecheck.check.message import Message
from wirecheck.contracts import load_registry
from wirecheck.contracts.reference import reference_validator
from wirecheck.fuzz.corpus import fuzzable_kinds
from wirecheck.fuzz.mutants import MutantFactory, explain_rejection
from wirecheck.fuzz.rules import KindRules
from wirecheck.fuzz.sampling import draw_examples
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


@pytest.mark.parametrize(("spec", "kind_id"), _cases())
def test_kind_generates_valid_messages_and_rejected_mutants(spec, kind_id):
    release = _release(spec)
    kind = release.kind(kind_id)
    compiler = compiler_for(release)
    rules = KindRules(release, kind)
    values = draw_examples(kind_strategy(release, kind_id), VALID, seed=1)
    assert values, f"{spec} {kind_id}: the strategy produced nothing"
    fast = compiler.schemas.ref_validator(kind.schema.uri)
    reference = reference_validator({"$ref": kind.schema.uri}, release.resources)
    classify = Classifier(release).classify
    for value in values:
        assert fast.is_valid(value), value
        assert reference.is_valid(value), (value, [e.message for e in reference.iter_errors(value)][:3])
        assert rules.findings(value) == [], value  # single-message protocol rules hold too
        if kind.channel == "stdio-ndjson":  # and the checker takes it for a message of its kind
            found = classify(Message(value=value, file="", sender=kind.producer))
            assert found is not None and found.id == kind_id, (value, found and found.id)
    factory = MutantFactory(compiler.schemas, kind.schema.uri, kind=kind_id, rules=rules)
    for value in values[:MUTATED]:
        for mutant in factory.mutants(value):
            if mutant.via == ("rule",):  # breaks a protocol rule: schema-valid, flagged by the engine's rule
                assert fast.is_valid(mutant.instance) and reference.is_valid(mutant.instance), mutant
                assert rules.findings(mutant.instance) == [mutant.keyword], mutant
                continue
            label = (mutant.keyword, mutant.pointer)
            assert not fast.is_valid(mutant.instance), mutant
            assert explain_rejection(reference, mutant.instance, label) == [label], mutant


def test_a_kind_whose_schema_allows_what_its_selector_does_not_pick_still_generates_its_own_messages(demo):
    # demo's ping request allows `request: {}`, which neither selector alternative (/request/subtype or
    # /request/kind = ping) picks: the generator plants the first alternative's value
    classify = Classifier(demo).classify
    values = draw_examples(kind_strategy(demo, "request.ping"), 30, seed=0)
    assert values and all(classify(Message(value=v, file="", sender="client")).id == "request.ping" for v in values)
    assert {"subtype", "kind"} & {key for v in values for key in v["request"]}
