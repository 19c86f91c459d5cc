"""Seeded sampling (both paths) and the generation benchmark the `nox -s bench` report uses."""

from __future__ import annotations

from hypothesis import strategies as st

from wirecheck.fuzz.bench import bench_generation, union_kinds
from wirecheck.fuzz.sampling import draw_examples

from .conftest import def_uri


def test_direct_and_engine_paths_are_each_reproducible(compiler):
    strategy = compiler.for_uri(def_uri("Event"))
    for engine in (False, True):
        first = draw_examples(strategy, 30, seed=9, engine=engine)
        assert len(first) == 30
        assert draw_examples(strategy, 30, seed=9, engine=engine) == first


def test_a_small_value_space_is_not_padded_with_invented_values():
    values = draw_examples(st.sampled_from([1, 2]), 10, seed=0, engine=True)
    assert set(values) <= {1, 2}


def test_nothing_yields_nothing():
    assert draw_examples(st.nothing(), 5) == []


def test_bench_measures_a_union_and_checks_every_message(demo):
    result = bench_generation(demo, producer="server", count=200)
    assert result.messages == 200
    assert result.invalid == 0
    assert result.kinds == len(union_kinds(demo, "server")) and result.kinds_seen == result.kinds
    assert result.per_second > 0
    assert result.as_json()["meets_target"] == result.meets_target
