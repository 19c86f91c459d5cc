"""Draw a reproducible sample from a strategy: same strategy, count and seed → the same values.

Hypothesis is used as a generator here, not as a test runner. The fast path draws each value from a fresh
`ConjectureData` fed by `random.Random(seed)` (no engine: no example database, no mutation of earlier examples,
no health checks) — about 7× the engine's rate on a full message union, which is what makes the ≥ 200
messages/s target. It relies on two Hypothesis internals (`ConjectureData`, `BuildContext`); if a future
Hypothesis changes them, `draw_examples` falls back to the public engine path (`@given` with `@seed`,
generate phase only), which is slower but equally reproducible.
"""

from __future__ import annotations

import contextlib
import random
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument, Unsatisfiable

MAX_ROUNDS = 8
MAX_CHOICES = 50_000  # per value: a bound on size, like Hypothesis' own buffer limit
MAX_FAILED_DRAWS = 20  # per wanted value, before the space is taken as exhausted


class CannotGenerate(Exception):
    """The schema asks for values no generator can make (a string of minLength 2^31, a pattern `a{100000}`)."""


def draw_examples(strategy: st.SearchStrategy[Any], count: int, seed: int = 0, *, engine: bool = False) -> list[Any]:
    try:
        if not engine:
            try:
                return _draw_direct(strategy, count, seed)
            except _InternalsChanged:
                pass
        return _draw_with_engine(strategy, count, seed)
    except InvalidArgument as exc:  # raised lazily, when a strategy for a huge size is first drawn from
        raise CannotGenerate(str(exc).split("  ", 1)[0]) from None


class _InternalsChanged(Exception):
    pass


def _provider() -> Any:
    """Hypothesis' own provider, minus "local constants": Hypothesis mixes in literals from whatever modules
    happen to be imported, which would make the corpus depend on the importing program, not just the seed."""
    from hypothesis.internal.conjecture import providers

    cache: dict[Any, tuple[Any, ...]] = {}

    class CorpusProvider(providers.HypothesisProvider):
        def _maybe_draw_constant(self, choice_type: Any, constraints: Any, *, p: float = 0.05) -> Any:
            assert self._random is not None
            if self._random.random() > p:
                return None
            key = (choice_type, providers.choice_constraints_key(choice_type, constraints))
            if key not in cache:
                cache[key] = tuple(
                    c for c in providers.GLOBAL_CONSTANTS.set_for_type(choice_type)
                    if providers.choice_permitted(c, constraints)
                )
            return self._random.choice(cache[key]) if cache[key] else None

    return CorpusProvider


def _draw_direct(strategy: st.SearchStrategy[Any], count: int, seed: int) -> list[Any]:
    try:
        from hypothesis.control import BuildContext
        from hypothesis.errors import StopTest, UnsatisfiedAssumption
        from hypothesis.internal.conjecture.data import ConjectureData

        provider = _provider()
    except (ImportError, AttributeError) as exc:
        raise _InternalsChanged() from exc
    rng = random.Random(seed)
    found: list[Any] = []
    failures = 0
    while len(found) < count and failures < MAX_FAILED_DRAWS * max(count, 1):
        try:
            data = ConjectureData(random=rng, max_choices=MAX_CHOICES, provider=provider)
            with BuildContext(data, is_final=False, wrapped_test=None):  # type: ignore[arg-type]
                found.append(data.draw(strategy))
        except (StopTest, UnsatisfiedAssumption):
            failures += 1
        except TypeError as exc:  # a changed internal signature
            if not found and failures == 0:
                raise _InternalsChanged() from exc
            raise
    return found


def _draw_with_engine(strategy: st.SearchStrategy[Any], count: int, seed: int) -> list[Any]:
    found: list[Any] = []
    for round_ in range(MAX_ROUNDS):
        wanted = count - len(found)
        if wanted <= 0:
            break
        batch = _engine_round(strategy, wanted, seed * 7919 + round_)
        if not batch:
            break
        found.extend(batch)
    return found[:count]


def _engine_round(strategy: st.SearchStrategy[Any], wanted: int, round_seed: int) -> list[Any]:
    batch: list[Any] = []

    @settings(
        max_examples=wanted,
        database=None,
        phases=[Phase.generate],
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=False,
    )
    @hypothesis_seed(round_seed)
    @given(strategy)
    def collect(value: Any) -> None:
        batch.append(value)

    with contextlib.suppress(Unsatisfiable):
        collect()
    return batch
