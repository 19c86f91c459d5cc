"""`nox -s bench`: throughput and memory of `wirecheck validate`, as ratios against a floor measured in the same run.

Floor: orjson parse plus jsonschema-rs `is_valid` with the right validator already chosen for each line (no
classification, no duplicate-key check, no correlation, no rules, no reporting) — the fastest any Python checker
built on these libraries could be. Target: the engine end to end reaches >= 60 % of it. Memory: peak RSS of a full
run must stay flat from 10k to 1M lines.

The capture is generated in the same run: valid messages of every kind the release's stream producer writes, drawn
from the contract by wirecheck's own Hypothesis strategies (so optional structure is exercised, not just the
minimal fixture shapes), then repeated at random to the wanted length. Kinds whose messages draw findings when
repeated at random (responses to a repeated request id, a handshake whose version is random) are left out, so the
capture conforms but for a finding or two about the capture as a whole, and the engine's ordinary path is what
gets measured. A second corpus, the valid stream
messages of the release's fixtures, is measured beside it for comparison.

Results go to reports/bench/conformance.{json,md}; the exit code is 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import yaml

from wirecheck.capture import CaptureFile, read_capture
from wirecheck.check.classify import Classifier
from wirecheck.check.engine import Engine
from wirecheck.check.message import Message
from wirecheck.check.validate import Validators
from wirecheck.contracts import ContractRelease, load_registry
from wirecheck.json_text import parse_json

THROUGHPUT_TARGET = 0.60
SCALING_TARGET = 0.8  # -j <cores> over -j 1: at least 0.8 x the cores (issue 23)
MEMORY_TOLERANCE = (1.10, 8 * 1024)  # (factor, KiB): peak(1M) <= peak(10k) * factor + slack
PREFERRED_CONTRACTS = ("qoder-agent-sdk@1.0.23", "qoder-agent-sdk@1.0.34", "xopc@0.0.253")
REPO = Path(__file__).resolve().parents[2]
Sample = tuple[Any, str]  # (message, kind id)


def sample_messages(release: ContractRelease, fixtures: Path) -> list[Sample]:
    """Distinct valid stream messages of the release, taken from its conforming fixtures."""
    expectations = fixtures / release.package / release.version / "expectations.yaml"
    if not expectations.exists():
        return []
    classifier, validators = Classifier(release), Validators(release)
    found: dict[bytes, Sample] = {}
    for case in yaml.safe_load(expectations.read_text())["cases"]:
        if case["verdict"] != "conforms":
            continue
        for item in read_capture(CaptureFile(str(expectations.parent / case["capture"]))):
            if not isinstance(item, Message) or item.http is not None or item.artifact is not None:
                continue
            kind = classifier.classify(item)
            if kind is None or kind.schema is None or validators.pair(kind.schema).problems(item.value):
                continue
            found.setdefault(orjson.dumps(item.value), (item.value, kind.id))
    return list(found.values())


def protocol_clean(release: ContractRelease, samples: list[Sample], work: Path) -> list[Sample]:
    """Drop the kinds whose messages draw findings when repeated at random: requests and the responses correlated
    with them (ids repeat), then whatever a trial capture of 5,000 lines shows to be noisy. A kind with one or two
    findings per capture is kept: rules that judge the capture as a whole (the first line, an unfinished last turn)
    say so once, not per message."""
    engine = Engine(release)
    correlated = {k.id for k in release.kinds if k.correlate is not None} | set(engine.answered_kinds)
    pool = [s for s in samples if s[1] not in correlated]
    for _ in range(8):
        path = work / "clean.jsonl"
        write_capture(path, pool, 5000, seed=7)
        result = Engine(release).run([CaptureFile(str(path))])
        path.unlink()
        per_kind = Counter(f.kind for f in result.findings if f.kind is not None)
        noisy = {kind for kind, count in per_kind.items() if count > 2}
        if not noisy:
            break
        pool = [s for s in pool if s[1] not in noisy]
    return pool


def generated_messages(release: ContractRelease, per_kind: int = 40, seed: int = 3) -> list[Sample]:
    """Valid messages of every stream kind of the release, from wirecheck's fuzz strategies."""
    from wirecheck.fuzz.corpus import fuzzable_kinds, valid_entries

    samples: list[Sample] = []
    for kind in fuzzable_kinds(release):
        if kind.channel == "stdio-ndjson":
            samples += [(entry.message, entry.kind) for entry in valid_entries(release, kind, per_kind, seed)]
    return samples


def write_capture(path: Path, samples: list[Sample], count: int, seed: int = 0) -> tuple[list[str], int]:
    rng = random.Random(seed)
    encoded = [(orjson.dumps(value) + b"\n", kind) for value, kind in samples]
    kinds: list[str] = []
    size = 0
    with path.open("wb") as handle:
        for _ in range(count):
            line, kind = encoded[rng.randrange(len(encoded))]
            handle.write(line)
            size += len(line)
            kinds.append(kind)
    return kinds, size


def floor_seconds(path: Path, kinds: list[str], release: ContractRelease, exact: bool = False) -> float:
    """The floor's seconds: the strict validators of the kinds the capture holds compiled (as the engine compiles
    them during its run: a bare loop cannot validate without them), then each line loaded and validated with its
    kind known. The release's registry is built before the clock starts, as `Engine(release)` is for the engine.
    `exact`: each line is also held to orjson's own serialisation of what it loaded (capture/ndjson.py's round
    trip), as the engine must before it may judge what a reader reads: the cheapest test found that no duplicate
    key hides in a line and no number was read inexactly. (jiter's catch_duplicate_keys finds the first, at 0.25 µs
    a line more on the generated corpus and 1.3 µs less on 3 KB fixture lines, but reads 1e400 as infinity and a
    400-digit integer exactly, without a word: issue 43.)"""
    validators = Validators(release)
    present = set(kinds)
    loads, dumps, newline = orjson.loads, orjson.dumps, orjson.OPT_APPEND_NEWLINE
    start = time.perf_counter()
    by_kind = {k.id: validators.pair(k.schema).strict for k in release.kinds
               if k.schema is not None and k.id in present}
    compiling = time.perf_counter() - start
    order = [by_kind[k] for k in kinds]  # the floor knows each line's kind without asking: not timed
    start = time.perf_counter() - compiling
    with path.open("rb") as handle:
        if exact:
            for validator, line in zip(order, handle, strict=True):
                value = loads(line)
                if dumps(value, None, newline) != line:  # never on the bench's captures: orjson wrote them
                    value = parse_json(line.rstrip(b"\r\n"))[0]
                validator.is_valid(value)
        else:
            for validator, line in zip(order, handle, strict=True):
                validator.is_valid(loads(line))
    return time.perf_counter() - start


def engine_run(path: Path, release: ContractRelease) -> tuple[float, int]:
    engine = Engine(release)
    start = time.perf_counter()
    result = engine.run([CaptureFile(str(path))])
    return time.perf_counter() - start, len(result.findings)


def paired(runs: int, floor: Callable[[], float],
           engine: Callable[[], float]) -> tuple[float, float, float, list[float]]:
    """(best floor seconds, best engine seconds, median of the per-round ratios, every round's ratio). Each round
    times the floor and the engine back to back, so a shared machine slowing down in the middle slows both sides
    of a ratio alike."""
    rounds = [(floor(), engine()) for _ in range(runs)]
    ratios = [f / e for f, e in rounds]
    return min(f for f, _ in rounds), min(e for _, e in rounds), statistics.median(ratios), ratios


def peak_rss_kib(contract: str, contracts_dir: Path, path: Path) -> int:
    """Peak RSS of a separate process checking the capture, in KiB: VmHWM, the high-water mark of the process's
    own memory since exec. (ru_maxrss would also count the pages it shared with this large parent between fork
    and exec: 267 MiB "flat" for a run that peaks at 85.)"""
    code = (
        "import resource, sys; from pathlib import Path; from wirecheck.contracts import load_registry; "
        "from wirecheck.check.engine import check_captures; "
        f"r = check_captures(load_registry(Path({str(contracts_dir)!r})).load({contract!r}), [{str(path)!r}]); "
        "status = Path('/proc/self/status'); "
        "hwm = [int(line.split()[1]) for line in status.read_text().splitlines() if line.startswith('VmHWM:')] "
        "if status.exists() else []; "
        "print(hwm[0] if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, r.messages)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=3600)
    return int(out.stdout.split()[0])


def measure(release: ContractRelease, samples: list[Sample], messages: int, runs: int, work: Path) -> dict[str, Any]:
    capture = work / f"capture-{messages}.jsonl"
    kinds, size = write_capture(capture, samples, messages)
    gc.collect()
    floor, engine, ratio, rounds = paired(runs, lambda: floor_seconds(capture, kinds, release),
                                          lambda: engine_run(capture, release)[0])
    exact, _, exact_ratio, exact_rounds = paired(runs, lambda: floor_seconds(capture, kinds, release, exact=True),
                                                 lambda: engine_run(capture, release)[0])
    _, findings = engine_run(capture, release)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "wirecheck", "validate", release.name, str(capture), "--no-progress",
                    "--contracts", str(release.root.parent.parent)], check=False, capture_output=True, timeout=3600)
    cli = time.perf_counter() - start
    capture.unlink()
    return {
        "messages": messages,
        "bytes": size,
        "average_line_bytes": round(size / messages),
        "distinct_messages": len(samples),
        "findings": findings,
        "floor_messages_per_s": round(messages / floor),
        "engine_messages_per_s": round(messages / engine),
        "cli_messages_per_s": round(messages / cli),
        "ratio": round(ratio, 3),  # the median of paired rounds; the best-of rates above are shown beside it
        "round_ratios": [round(r, 3) for r in rounds],
        "exact_floor_messages_per_s": round(messages / exact),
        "ratio_to_exact_floor": round(exact_ratio, 3),  # its own paired rounds, beside the floor's
        "round_ratios_to_exact_floor": [round(r, 3) for r in exact_rounds],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m wirecheck.bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--contract", help=f"package@version (default: the first of {', '.join(PREFERRED_CONTRACTS)} "
                                           "with conforming stream fixtures)")
    parser.add_argument("--contracts", type=Path, default=None)
    parser.add_argument("--fixtures", type=Path, default=REPO / "fixtures")
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--memory-lines", default="10000,100000,1000000")
    parser.add_argument("--runs", type=int, default=7, help="paired floor/engine rounds per corpus (the ratio is "
                                                             "their median)")
    parser.add_argument("--out", type=Path, default=Path("reports/bench"))
    parser.add_argument("--scaling-lines", type=int, default=1_000_000, help="lines of the one large capture")
    parser.add_argument("--scaling-captures", type=int, default=1000, help="small captures (200 lines each)")
    parser.add_argument("--traffic-messages", type=int, default=250_000,
                        help="messages of each request-and-reply capture (at least)")
    parser.add_argument("--traffic-count", type=int, default=None,
                        help="`wirecheck fuzz --count` of each request-and-reply capture (default: TRAFFIC's)")
    parser.add_argument("--skip-others", action="store_true",
                        help="only the conformance bench (not generation and diff)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    from wirecheck import startup_bench

    startup_ok = startup_bench.write(args.out)  # first: the host is as quiet as it will be
    conformance_ok = conformance(args)
    if args.skip_others:
        return 0 if conformance_ok and startup_ok else 1
    return 0 if conformance_ok & generation(args.out) & diff(args.out) & diff_cost(args.out) & startup_ok else 1


def generation(out: Path) -> bool:
    """Valid messages generated per second for the Qoder CLI → SDK union (issue 7's target: >= 200/s)."""
    from wirecheck.fuzz.bench import bench_generation

    result = bench_generation(load_registry().load("qoder-agent-sdk@1.0.23"), producer="cli",
                              channel="stdio-ndjson", count=2000).as_json()
    (out / "generation.json").write_text(orjson.dumps(result, option=orjson.OPT_INDENT_2).decode() + "\n")
    print(f"\ngeneration: {result['per_second']:.0f} valid messages/s for {result['release']} CLI → SDK "
          f"({result['invalid']} invalid; target {result['target']:.0f}/s): "
          f"{'met' if result['meets_target'] else 'MISSED'}")
    return bool(result["meets_target"])


def diff(out: Path) -> bool:
    """Time to diff every bundled release pair, without and with witness payloads (issue 6's targets)."""
    from wirecheck.diff.bench import bench_diff

    result = bench_diff()
    (out / "diff.json").write_text(orjson.dumps(result, option=orjson.OPT_INDENT_2).decode() + "\n")
    print(f"diff: {result['pair_count']} release pairs in {result['without_witnesses_s']:.2f} s without witnesses "
          f"(best of {result['without_witnesses_passes_s']}; target < {result['targets']['without_witnesses_s']} s), "
          f"{result['with_witnesses_s']:.2f} s with "
          f"(target < {result['targets']['with_witnesses_s']} s): {'met' if result['meets_targets'] else 'MISSED'}")
    return bool(result["meets_targets"])


def diff_cost(out: Path) -> bool:
    """CPU and memory of fresh `diff-schemas` / `diff` processes on a one-keyword pair, MCP's and ACP's real pairs
    and a 5.9 MB pair of interlinked definitions (issue 30, 6): reports/bench/diff-cost.{json,md}. Measured from a
    fresh process: a child's peak memory (wait4's ru_maxrss) counts what the process that started it held (Linux
    keeps the high-water mark across the fork and the exec), and this one holds the benches before it (416 MiB
    reported for the 5.9 MB pair, whose own peak is 249 MiB)."""
    done = subprocess.run([sys.executable, "-m", "wirecheck.diff.cost", str(out)], check=False, timeout=3600)
    return done.returncode == 0


def conformance(args: argparse.Namespace) -> bool:

    registry = load_registry(args.contracts)
    release, samples = None, []
    for spec in [args.contract] if args.contract else PREFERRED_CONTRACTS:
        try:
            release = registry.load(spec)
        except Exception:  # not bundled: try the next
            continue
        samples = sample_messages(release, args.fixtures)
        if samples:
            break
    if release is None or not samples:
        print("bench: no contract with conforming stream fixtures found", file=sys.stderr)
        return False

    work = args.out / "work"
    work.mkdir(parents=True, exist_ok=True)
    fixture_samples = protocol_clean(release, samples, work)
    generated = protocol_clean(release, generated_messages(release), work)
    as_is = measure(release, fixture_samples, args.messages, args.runs, work)
    real = measure(release, generated, args.messages, args.runs, work)
    if real["findings"] > 10 or as_is["findings"] > 10:
        print(f"bench: captures of valid messages drew findings ({real['findings']}, {as_is['findings']}); "
              "the corpus is not clean", file=sys.stderr)
        return False
    met = real["ratio"] >= THROUGHPUT_TARGET

    scaled = scaling(args, release, registry.root, generated, work)
    traffic = request_reply_scaling(args, registry.root, work)

    memory = []
    for lines in [int(n) for n in args.memory_lines.split(",")]:
        path = work / f"memory-{lines}.jsonl"
        _, written = write_capture(path, generated, lines, seed=1)
        peak = peak_rss_kib(release.name, registry.root, path)
        memory.append({"lines": lines, "bytes": written, "peak_rss_kib": peak})
        path.unlink()
    first, last = memory[0]["peak_rss_kib"], memory[-1]["peak_rss_kib"]
    flat = last <= first * MEMORY_TOLERANCE[0] + MEMORY_TOLERANCE[1]

    report: dict[str, Any] = {
        "contract": release.name,
        "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]},
        "throughput": {"target": THROUGHPUT_TARGET, "met": met, "generated": real, "fixtures": as_is},
        "memory": {"runs": memory, "growth_kib": last - first, "flat": flat},
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "conformance.json").write_text(orjson.dumps(report, option=orjson.OPT_INDENT_2).decode() + "\n")

    def row(label: str, m: dict[str, Any]) -> str:
        return (f"| {label} | {m['average_line_bytes']} | {m['floor_messages_per_s']:,} | "
                f"{m['engine_messages_per_s']:,} | {m['cli_messages_per_s']:,} | **{m['ratio']:.2f}** | "
                f"{', '.join(f'{r:.2f}' for r in m['round_ratios'])} | {m['exact_floor_messages_per_s']:,} | "
                f"{m['ratio_to_exact_floor']:.2f} |")

    text = [
        f"# wirecheck bench: {release.name}",
        "",
        f"{args.messages:,} messages per capture, repeated at random from {real['distinct_messages']} generated and "
        f"{as_is['distinct_messages']} fixture messages (distinct, valid, protocol-clean).",
        "Floor = the strict validators compiled, then orjson + jsonschema-rs is_valid with the kind known; engine = "
        "duplicate-key check, classification, strict/tolerant validation, correlation, protocol rules, coverage.",
        "Exact floor = the floor, each line also held to orjson's serialisation of what it loaded: the cheapest exact "
        "test found that no duplicate key hides in a line, which the engine must make (its own paired rounds).",
        "",
        "| corpus | bytes/line | floor msg/s | engine msg/s | CLI msg/s (incl. start-up) | engine/floor "
        "(median) | each round | exact floor msg/s | engine/exact floor (median) |",
        "|---|---:|---:|---:|---:|---:|---|---:|---:|",
        row("generated from the contract (target applies)", real),
        row("fixture messages", as_is),
        "",
        f"Target engine/floor ≥ {THROUGHPUT_TARGET} on the generated corpus: {'met' if met else 'MISSED'}.",
        "",
        "| lines | MB | peak RSS (MiB) |",
        "|---:|---:|---:|",
        *[f"| {m['lines']:,} | {m['bytes'] / 1e6:.0f} | {m['peak_rss_kib'] / 1024:.1f} |" for m in memory],
        "",
        f"Memory {'flat' if flat else 'GROWS'}: {(last - first) / 1024:+.1f} MiB from {memory[0]['lines']:,} to "
        f"{memory[-1]['lines']:,} lines.",
    ]
    (args.out / "conformance.md").write_text("\n".join(text) + "\n")
    print("\n".join(text))
    return met and flat and scaled and traffic


_PARALLEL_RUN = """
import json, sys, time
from pathlib import Path
from wirecheck.capture import CaptureFile
from wirecheck.check import parallel
from wirecheck.check.engine import Engine
from wirecheck.contracts import load_registry
contracts, spec, jobs, listing, method = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
registry = load_registry(Path(contracts))
engine = Engine(registry.load(spec), load_release=registry.load)
captures = [CaptureFile(p) for p in Path(listing).read_text().split()]
stats = parallel.Stats()
start = time.perf_counter()
result = parallel.check(engine, parallel.ReleaseSource(contracts, spec), captures,
                        parallel.Plan(jobs=jobs, forced=True, start_method=method or None), stats)
seconds = time.perf_counter() - start
peak = [int(l.split()[1]) for l in Path('/proc/self/status').read_text().splitlines() if l.startswith('VmHWM:')]
print(json.dumps({"seconds": seconds, "messages": result.messages, "findings": len(result.findings),
                  "main_peak_kib": peak[0] if peak else 0, "worker_peak_kib": stats.worker_peak_kib,
                  "start_method": stats.start_method}))
"""


def parallel_run(contracts: Path, spec: str, paths: list[Path], jobs: int, work: Path,
                 start_method: str = "") -> dict[str, Any]:
    """One `-j jobs` check of the captures in a fresh process: seconds (pool start-up included, interpreter
    start-up not), messages, the peak memory of the main process and of the busiest worker, and how the workers
    were started (`start_method`: fork, forkserver or spawn; empty: as the CLI chooses)."""
    listing = work / "captures.txt"
    listing.write_text("\n".join(str(p) for p in paths))
    out = subprocess.run([sys.executable, "-c", _PARALLEL_RUN, str(contracts), spec, str(jobs), str(listing),
                          start_method],
                         capture_output=True, text=True, check=True, timeout=3600)
    return orjson.loads(out.stdout.strip().splitlines()[-1])


def start_methods(contracts: Path, spec: str, paths: list[Path], jobs: int, work: Path,
                  rounds: int) -> dict[str, dict[str, Any]]:
    """What each way of starting the workers costs on the same run (issue 42, 4): fork (workers inherit the
    engine), a fork server (started by the run: the first pool of a process pays its start) and spawn (each worker
    imports wirecheck and loads the release), in interleaved rounds."""
    names = ("fork", "forkserver", "spawn")
    seconds: dict[str, list[float]] = {name: [] for name in names}
    messages = 0
    for _ in range(rounds):
        for name in names:
            run = parallel_run(contracts, spec, paths, jobs, work, name)
            assert run["start_method"] == name, run
            seconds[name].append(run["seconds"])
            messages = run["messages"]
    fork = statistics.median(seconds["fork"])
    return {name: {"seconds": round(statistics.median(times), 3),
                   "messages_per_s": round(messages / statistics.median(times)),
                   "over_fork_s": round(statistics.median(times) - fork, 3)} for name, times in seconds.items()}


def scaling(args: argparse.Namespace, release: ContractRelease, contracts: Path, samples: list[Sample],
            work: Path, rounds: int = 3) -> bool:
    """-j 1 against -j <every CPU> on one large capture and on many small ones (issue 23): the speed-up, as the
    median of paired rounds, against 0.8 x the CPUs; and the peak memory per worker at 1/10 and all of the lines."""
    from wirecheck.check.parallel import available_cpus

    cores = available_cpus()
    big = work / "scaling-big.jsonl"
    write_capture(big, samples, args.scaling_lines, seed=5)
    tenth = work / "scaling-tenth.jsonl"
    write_capture(tenth, samples, args.scaling_lines // 10, seed=5)
    small_dir = work / "scaling-small"
    small_dir.mkdir(exist_ok=True)
    smalls = []
    for i in range(args.scaling_captures):
        smalls.append(small_dir / f"{i:05d}.jsonl")
        write_capture(smalls[-1], samples, 200, seed=i)
    corpora: dict[str, Any] = {}
    for name, paths in (("one large capture", [big]), ("many small captures", smalls)):
        pairs = [(parallel_run(contracts, release.name, paths, 1, work),
                  parallel_run(contracts, release.name, paths, cores, work)) for _ in range(rounds)]
        one, many = pairs[0]
        assert one["messages"] == many["messages"] and one["findings"] == many["findings"], (one, many)
        speedups = [a["seconds"] / b["seconds"] for a, b in pairs]
        corpora[name] = {
            "captures": len(paths), "messages": one["messages"],
            "one_core_messages_per_s": round(one["messages"] / min(a["seconds"] for a, _ in pairs)),
            "all_cores_messages_per_s": round(one["messages"] / min(b["seconds"] for _, b in pairs)),
            "speedup": round(statistics.median(speedups), 2), "round_speedups": [round(x, 2) for x in speedups],
        }
    memory = [parallel_run(contracts, release.name, [path], cores, work) for path in (tenth, big)]
    methods = start_methods(contracts, release.name, smalls, cores, work, rounds)
    for path in (big, tenth, *smalls):
        path.unlink()
    target = SCALING_TARGET * cores
    met = all(c["speedup"] >= target for c in corpora.values())
    worker_growth = memory[1]["worker_peak_kib"] - memory[0]["worker_peak_kib"]
    main_growth = memory[1]["main_peak_kib"] - memory[0]["main_peak_kib"]
    flat = max(worker_growth, main_growth) <= MEMORY_TOLERANCE[1]
    report = {"cores": cores, "target_speedup": target, "met": met, "corpora": corpora,
              "memory": {"lines": [args.scaling_lines // 10, args.scaling_lines], "runs": memory, "flat": flat},
              "start_methods": methods}
    (args.out / "scaling.json").write_text(orjson.dumps(report, option=orjson.OPT_INDENT_2).decode() + "\n")
    text = [
        "", f"## Scaling: -j 1 against -j {cores} ({release.name})", "",
        "| corpus | captures | messages | 1 core msg/s | all cores msg/s | speed-up (median) | each round |",
        "|---|---:|---:|---:|---:|---:|---|",
        *[f"| {name} | {c['captures']:,} | {c['messages']:,} | {c['one_core_messages_per_s']:,} | "
          f"{c['all_cores_messages_per_s']:,} | **{c['speedup']:.2f}** | "
          f"{', '.join(f'{x:.2f}' for x in c['round_speedups'])} |" for name, c in corpora.items()],
        "", f"Target speed-up ≥ 0.8 × {cores} cores = {target:.1f}: {'met' if met else 'MISSED'}.", "",
        f"Peak memory at {args.scaling_lines // 10:,} → {args.scaling_lines:,} lines on -j {cores}: busiest worker "
        f"{memory[0]['worker_peak_kib'] / 1024:.1f} → {memory[1]['worker_peak_kib'] / 1024:.1f} MiB, main process "
        f"{memory[0]['main_peak_kib'] / 1024:.1f} → {memory[1]['main_peak_kib'] / 1024:.1f} MiB: "
        f"{'flat' if flat else 'GROWS'}.",
        "", f"### Start methods: -j {cores} on the {len(smalls):,} small captures (medians of {rounds})", "",
        f"The CLI forks its workers (a process of one thread: they inherit its engine); beside another thread they "
        f"come from a fork server, and where there is no fork they are spawned (check/parallel.py start_method). "
        f"The runs above used: {', '.join(sorted({r['start_method'] for r in memory}))}.", "",
        "| start method | seconds | msg/s | seconds over fork |", "|---|---:|---:|---:|",
        *[f"| {name} | {m['seconds']:.2f} | {m['messages_per_s']:,} | {m['over_fork_s']:+.2f} |"
          for name, m in methods.items()],
    ]
    (args.out / "scaling.md").write_text("\n".join(text) + "\n")
    print("\n".join(text))
    return met and flat


# Captures of requests and replies from end to end (issue 43): what `wirecheck fuzz --messages-only` writes for a
# release (every kind, both directions, framed: control requests and their responses, JSON-RPC calls and their
# results), its messages repeated to the wanted length. (contract, fuzz --count, the name in the report)
TRAFFIC = (("qoder-agent-sdk@1.0.23", 200, "Qoder, every kind (control requests and responses)"),
           ("acp@2.4.0", 1000, "ACP, JSON-RPC requests and results"))
TRAFFIC_TARGET = 1.6  # -j 2 over -j 1 on each (issue 43)


def traffic_capture(contracts: Path, spec: str, count: int, messages: int, path: Path) -> int:
    """`wirecheck fuzz SPEC --count COUNT --seed 5 --messages-only`, its frames repeated until the capture holds
    at least `messages`; the messages written."""
    out = subprocess.run([sys.executable, "-m", "wirecheck", "fuzz", spec, "--count", str(count), "--seed", "5",
                          "--messages-only", "--contracts", str(contracts)],
                         capture_output=True, check=True, timeout=3600).stdout
    header, _, frames = out.partition(b"\n")
    lines = frames.count(b"\n")
    copies = max(1, -(-messages // max(lines, 1)))
    with path.open("wb") as handle:
        handle.write(header + b"\n")
        for _ in range(copies):
            handle.write(frames)
    return lines * copies


def request_reply_scaling(args: argparse.Namespace, contracts: Path, work: Path, rounds: int = 3) -> bool:
    """-j 1 against -j <every CPU> on captures full of requests and replies (TRAFFIC), each split into parts whose
    messages workers check, the main process correlating them in order: the speed-up as the median of paired
    rounds, against TRAFFIC_TARGET; the findings and messages of both runs must agree."""
    from wirecheck.check.parallel import available_cpus

    cores = available_cpus()
    rows = []
    for spec, count, name in TRAFFIC:
        path = work / f"traffic-{spec}.jsonl"
        messages = traffic_capture(contracts, spec, args.traffic_count or count, args.traffic_messages, path)
        pairs = [(parallel_run(contracts, spec, [path], 1, work), parallel_run(contracts, spec, [path], cores, work))
                 for _ in range(rounds)]
        for one, many in pairs:
            assert one["messages"] == many["messages"] == messages and one["findings"] == many["findings"], \
                (one, many)
        speedups = [a["seconds"] / b["seconds"] for a, b in pairs]
        rows.append({"contract": spec, "corpus": name, "messages": messages, "bytes": path.stat().st_size,
                     "one_core_messages_per_s": round(messages / min(a["seconds"] for a, _ in pairs)),
                     "all_cores_messages_per_s": round(messages / min(b["seconds"] for _, b in pairs)),
                     "speedup": round(statistics.median(speedups), 2),
                     "round_speedups": [round(x, 2) for x in speedups]})
        path.unlink()
    met = all(row["speedup"] >= TRAFFIC_TARGET for row in rows)
    (args.out / "traffic.json").write_text(orjson.dumps({"cores": cores, "target_speedup": TRAFFIC_TARGET,
                                                         "met": met, "corpora": rows},
                                                        option=orjson.OPT_INDENT_2).decode() + "\n")
    text = [
        "", f"## Requests and replies: -j 1 against -j {cores}", "",
        "`wirecheck fuzz <contract> --messages-only` (every kind, both directions, framed), repeated; workers check "
        "every message of a part, the main process correlates requests and answers in order.", "",
        "| corpus | contract | messages | MB | 1 core msg/s | all cores msg/s | speed-up (median) | each round |",
        "|---|---|---:|---:|---:|---:|---:|---|",
        *[f"| {r['corpus']} | {r['contract']} | {r['messages']:,} | {r['bytes'] / 1e6:.0f} | "
          f"{r['one_core_messages_per_s']:,} | {r['all_cores_messages_per_s']:,} | **{r['speedup']:.2f}** | "
          f"{', '.join(f'{x:.2f}' for x in r['round_speedups'])} |" for r in rows],
        "", f"Target speed-up ≥ {TRAFFIC_TARGET} on each: {'met' if met else 'MISSED'}.",
    ]
    (args.out / "traffic.md").write_text("\n".join(text) + "\n")
    print("\n".join(text))
    return met


if __name__ == "__main__":
    sys.exit(main())
