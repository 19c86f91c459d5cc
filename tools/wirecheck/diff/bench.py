"""`bench_diff()`: time every bundled release pair (consecutive and transitive), with and without witness search.

Called by the lead's `wirecheck.bench` (`nox -s bench`); `python -m wirecheck.diff.bench` prints the numbers.
Targets (issue 6): all bundled pairs under 1 s without witnesses, under 15 s with. Loading contracts (YAML,
metaschema validation) is timed separately: it is shared with every other command and cached per process.
Each mode is timed over PASSES passes from fresh sides and the best counts, as timeit's does (with its default
of 5 repeats); every pass's time is reported beside it. A pass's time ends with a full collection of the objects
the pass made (what it leaves for the cycle collector is part of its cost); the objects that lived before it are
frozen out of that collection.
"""

from __future__ import annotations

import gc
import time
from pathlib import Path
from typing import Any

from wirecheck.contracts import load_registry
from wirecheck.diff.engine import cycle_collector_paused, diff_releases
from wirecheck.diff.options import DiffOptions
from wirecheck.diff.side import Sides

TARGET_WITHOUT_WITNESSES_S = 1.0
TARGET_WITH_WITNESSES_S = 15.0
PASSES = 5


def bench_diff(contracts: Path | None = None, transitive: bool = True) -> dict[str, Any]:
    """Timings in seconds: `load`, `without_witnesses`, `with_witnesses` (totals), per pair, and the targets."""
    registry = load_registry(contracts)
    started = time.perf_counter()
    loaded, failed = registry.load_all()
    releases = {(r.package, r.version): r for r in loaded}
    skipped = [f"{spec}: {exc.problems[0]}" for spec, exc in failed]
    load_s = time.perf_counter() - started
    pairs = []
    for name, info in registry.packages.items():
        versions = [v for v in info.releases if (name, v) in releases]
        for i, older in enumerate(versions):
            for newer in versions[i + 1:] if transitive else versions[i + 1:i + 2]:
                pairs.append((name, older, newer))
    timings: dict[str, Any] = {"pairs": [], "load_s": round(load_s, 4), "skipped": skipped}
    # A first pass pays the one-time costs (imports, the rule catalogue, regex examples Hypothesis has to search
    # for, cached per pattern); it is reported on its own, then both modes are timed warm. Each pass starts
    # from fresh sides (validators, canonical forms) shared by the pairs of one package, as `diff-versions` does.
    started = time.perf_counter()
    _pass(releases, pairs, DiffOptions(witnesses=False))
    timings["first_pass_s"] = round(time.perf_counter() - started, 4)
    for label, options in (("without_witnesses", DiffOptions(witnesses=False)),
                           ("with_witnesses", DiffOptions(witnesses=True))):
        # best of PASSES, as timeit does: on a shared machine the slower passes measure the neighbours
        passes = [_pass(releases, pairs, options) for _ in range(PASSES)]
        total, rows = min(passes, key=lambda found: found[0])
        timings[f"{label}_s"] = round(total, 4)
        timings[f"{label}_passes_s"] = [round(found[0], 4) for found in passes]
        for index, (pair, elapsed, findings, witnesses) in enumerate(rows):
            if label == "without_witnesses":
                timings["pairs"].append({"pair": pair, "findings": findings, "without_witnesses_s": round(elapsed, 4)})
            else:
                timings["pairs"][index]["with_witnesses_s"] = round(elapsed, 4)
                timings["pairs"][index]["witnesses"] = witnesses
    consecutive = {f"{n}@{a}→{b}" for n, info in registry.packages.items()
                   for a, b in zip([v for v in info.releases if (n, v) in releases],
                                   [v for v in info.releases if (n, v) in releases][1:], strict=False)}
    for label in ("without_witnesses", "with_witnesses"):
        timings[f"consecutive_{label}_s"] = round(
            sum(row[f"{label}_s"] for row in timings["pairs"] if row["pair"] in consecutive), 4)
    timings["consecutive_pair_count"] = len(consecutive)
    timings["pair_count"] = len(pairs)
    timings["targets"] = {"without_witnesses_s": TARGET_WITHOUT_WITNESSES_S,
                          "with_witnesses_s": TARGET_WITH_WITNESSES_S}
    timings["meets_targets"] = (timings["without_witnesses_s"] < TARGET_WITHOUT_WITNESSES_S
                                and timings["with_witnesses_s"] < TARGET_WITH_WITNESSES_S)
    return timings


def _pass(releases: dict[tuple[str, str], Any], pairs: list[tuple[str, str, str]],
          options: DiffOptions) -> tuple[float, list[tuple[str, float, int, int]]]:
    """One pass over every pair from fresh sides, as `diff-versions` runs a package's matrix (one side per
    release, the cycle collector paused throughout): (total seconds, per pair (name, seconds, findings,
    witnesses)). The total includes the collection the pass leaves behind (the cycle collector traversing what
    the sides accumulated and freeing the cycles the pass made), not the freeing of the sides afterwards."""
    rows = []
    sides = Sides()
    # What lived before the pass (the loaded contracts, imported modules) is set aside (gc.freeze), so the closing
    # collection traverses what the pass made and nothing else. Traversing the rest (0.03-0.07 s here) is a cost
    # of the process, paid by any full collection whether it diffs or not.
    gc.collect()
    gc.freeze()
    started = time.perf_counter()
    try:
        with cycle_collector_paused():
            for name, older, newer in pairs:
                t0 = time.perf_counter()
                result = diff_releases(releases[(name, older)], releases[(name, newer)], options, sides)
                rows.append((f"{name}@{older}→{newer}", time.perf_counter() - t0, len(result.findings),
                             sum(len(f.witnesses) for f in result.findings)))
            gc.collect()  # what the pass left for the collector is part of its cost
        return time.perf_counter() - started, rows
    finally:
        gc.unfreeze()


def _passes(result: dict[str, Any], label: str) -> str:
    return ", ".join(f"{t:.3f}" for t in result[f"{label}_passes_s"])


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m wirecheck.diff.bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--contracts", type=Path, default=None, help="a contracts folder (default: the bundled one)")
    args = parser.parse_args(argv)
    result = bench_diff(args.contracts)
    for row in result["pairs"]:
        print(f"  {row['pair']:<48} {row['without_witnesses_s']:>7.3f} s  {row['with_witnesses_s']:>7.3f} s  "
              f"{row['findings']:>4} findings {row['witnesses']:>4} witnesses")
    print(f"{result['consecutive_pair_count']} consecutive pairs (the diff-versions job): without witnesses "
          f"{result['consecutive_without_witnesses_s']:.3f} s, with witnesses "
          f"{result['consecutive_with_witnesses_s']:.3f} s")
    print(f"{result['pair_count']} pairs: load {result['load_s']:.2f} s; first (cold) pass "
          f"{result['first_pass_s']:.2f} s; without witnesses {result['without_witnesses_s']:.3f} s, best of "
          f"{_passes(result, 'without_witnesses')} (target < {TARGET_WITHOUT_WITNESSES_S} s); with witnesses "
          f"{result['with_witnesses_s']:.3f} s, best of {_passes(result, 'with_witnesses')} "
          f"(target < {TARGET_WITH_WITNESSES_S} s)")
    for line in result["skipped"]:
        print(f"  skipped {line}")
    return 0 if result["meets_targets"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
