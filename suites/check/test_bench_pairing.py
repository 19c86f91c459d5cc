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


def test_the_floor_pays_for_compiling_its_validators_as_the_engine_does(tmp_path, monkeypatch) -> None:
    """The engine compiles its validators during its timed run; a floor that compiled its own before the clock
    started was measured doing less than any checker can (issue 43: ~0.2 µs a message of the bench's corpus). A
    fake clock that compiling moves by one second a validator: the floor's seconds include every compile."""
    import orjson

    from wirecheck import bench
    from wirecheck.check.validate import Validators
    from wirecheck.contracts import load_registry

    release = load_registry().load("qoder-agent-sdk@1.0.23")
    kind = next(k for k in release.kinds if k.schema is not None)
    clock = [0.0]
    compile_pair = Validators.pair

    def pair(self, link):  # type: ignore[no-untyped-def]
        clock[0] += 1.0
        return compile_pair(self, link)

    monkeypatch.setattr(Validators, "pair", pair)
    monkeypatch.setattr(bench.time, "perf_counter", lambda: clock[0])
    path = tmp_path / "capture.ndjson"
    path.write_bytes(orjson.dumps({}) + b"\n")
    assert bench.floor_seconds(path, [kind.id], release) == 1.0  # one kind present: one compile, timed


def test_the_exact_floor_holds_every_line_to_its_serialisation_and_validates_it(tmp_path, monkeypatch) -> None:
    """The exact floor (issue 43) pays for what the engine must do before judging what a reader reads: one round
    trip through orjson's serialisation a line, then the validation; the plain floor makes no round trip. A line
    that is not orjson's own (spaces) is read exactly, as the engine reads it, and still validated."""
    import orjson

    from wirecheck import bench
    from wirecheck.contracts import load_registry

    release = load_registry().load("qoder-agent-sdk@1.0.23")
    kind = next(k for k in release.kinds if k.schema is not None)
    path = tmp_path / "capture.ndjson"
    path.write_bytes(orjson.dumps({"a": 1}) + b"\n" + b'{"a": 1, "a": 2}\n')
    dumped: list[object] = []
    validated: list[object] = []
    dumps = orjson.dumps

    def counting(value, *rest):  # type: ignore[no-untyped-def]
        dumped.append(value)
        return dumps(value, *rest)

    class Validator:
        def is_valid(self, value):  # type: ignore[no-untyped-def]
            validated.append(value)
            return True

    monkeypatch.setattr(orjson, "dumps", counting)
    monkeypatch.setattr(bench.Validators, "pair", lambda self, link: type("P", (), {"strict": Validator()})())
    bench.floor_seconds(path, [kind.id] * 2, release)
    assert dumped == [] and validated == [{"a": 1}, {"a": 2}]
    validated.clear()
    bench.floor_seconds(path, [kind.id] * 2, release, exact=True)
    assert dumped[:2] == [{"a": 1}, {"a": 2}]  # one round trip a line (the exact reading of the second, more)
    assert validated == [{"a": 1}, {"a": 2}]
