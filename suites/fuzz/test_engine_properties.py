"""Property tests for wirecheck's own validator (the engine's strict/tolerant schema check): generated valid
messages produce no problem; every mutant produces one, of the right sort (an unknown-field warning exactly when
the mutant adds a key to a closed object). Example counts come from the Hypothesis profile (HYPOTHESIS_PROFILE)."""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wirecheck.check.validate import Validators
from wirecheck.contracts import load_registry
from wirecheck.fuzz.corpus import fuzzable_kinds
from wirecheck.fuzz.mutants import MutantFactory
from wirecheck.fuzz.rules import KindRules
from wirecheck.fuzz.strategies import compiler_for, kind_strategy

REGISTRY = load_registry()
CLOSING = ("additionalProperties", "unevaluatedProperties")


def _specs() -> list[str]:
    return [release.name for release in REGISTRY.load_all()[0]]


@cache
def _prepared(spec: str):
    release = REGISTRY.load(spec)
    kinds = fuzzable_kinds(release)
    return release, kinds, Validators(release)


@pytest.mark.parametrize("spec", _specs())
def test_engine_accepts_generated_messages_and_rejects_mutants(spec):
    release, kinds, validators = _prepared(spec)

    @given(st.data())
    def check(data):
        kind = data.draw(st.sampled_from(kinds), label="kind")
        value = data.draw(kind_strategy(release, kind.id), label="message")
        pair = validators.pair(kind.schema)
        assert pair.problems(value) == [], (kind.id, value)
        factory = MutantFactory(compiler_for(release).schemas, kind.schema.uri, kind=kind.id,
                                rules=KindRules(release, kind))
        for mutant in factory.mutants(value):
            if mutant.via == ("rule",):
                continue  # schema-valid by construction; the rule engine judges it
            problems = pair.problems(mutant.instance)
            assert problems, mutant
            if mutant.keyword in CLOSING:
                assert all(p.unknown_field for p in problems), (mutant, problems)
            else:
                assert any(not p.unknown_field for p in problems), (mutant, problems)

    check()
