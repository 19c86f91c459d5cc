"""Draw a reproducible sample from a strategy: same strategy, count and seed → the same values.

Hypothesis is used as a generator here, not as a test runner: generate phase only, no database, no deadline,
no health checks (a corpus is not a test), seeded explicitly. A small value space can run out before `count`;
then the next seed continues, so the sample is as long as asked unless the space is genuinely exhausted.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable

MAX_ROUNDS = 8


def draw_examples(strategy: st.SearchStrategy[Any], count: int, seed: int = 0) -> list[Any]:
    found: list[Any] = []
    for round_ in range(MAX_ROUNDS):
        wanted = count - len(found)
        if wanted <= 0:
            break
        batch: list[Any] = []

        @settings(
            max_examples=wanted,
            database=None,
            phases=[Phase.generate],
            deadline=None,
            suppress_health_check=list(HealthCheck),
            derandomize=False,
        )
        @hypothesis_seed(seed * 7919 + round_)
        @given(strategy)
        def collect(value: Any) -> None:
            batch.append(value)

        try:
            collect()
        except Unsatisfiable:
            pass
        if not batch:
            break
        found.extend(batch)
    return found[:count]
