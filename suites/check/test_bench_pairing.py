"""The conformance benchmark pairs its floor and engine timings round by round (a shared machine's slowdown then
hits both sides of a ratio), reports the median paired ratio, and the best time of each side."""

from __future__ import annotations

from wirecheck.bench import paired


def test_paired_rounds_report_the_median_ratio_and_best_times() -> None:
    floors = iter([1.0, 2.0, 1.5, 4.0, 1.0])
    engines = iter([2.0, 2.0, 3.0, 8.0, 1.0])  # ratios 0.5, 1.0, 0.5, 0.5, 1.0
    calls: list[str] = []

    def floor() -> float:
        calls.append("floor")
        return next(floors)

    def engine() -> float:
        calls.append("engine")
        return next(engines)

    best_floor, best_engine, ratio, rounds = paired(5, floor, engine)
    assert calls == ["floor", "engine"] * 5  # interleaved, not all floors first
    assert (best_floor, best_engine, ratio) == (1.0, 1.0, 0.5)
    assert rounds == [0.5, 1.0, 0.5, 0.5, 1.0]  # every round, in order, for the report
