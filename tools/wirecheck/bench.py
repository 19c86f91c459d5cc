"""`nox -s bench`: throughput and memory of `wirecheck validate`, as ratios against a floor measured in the same run.

Floor: orjson parse plus jsonschema-rs `is_valid` with the right validator already chosen for each line (no
classification, no reporting) — the fastest any Python checker built on these libraries could be. Target: the
engine end to end reaches >= 60 % of it. Memory: peak RSS of a full run must stay flat from 10k to 1M lines.
Results go to reports/bench/conformance.{json,md}; the exit code is 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import resource
import subprocess
import sys
import time
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

THROUGHPUT_TARGET = 0.60
MEMORY_TOLERANCE = (1.10, 8 * 1024)  # (factor, KiB): peak(1M) <= peak(10k) * factor + slack
PREFERRED_CONTRACTS = ("qoder-agent-sdk@1.0.23", "qoder-agent-sdk@1.0.34", "demo@1.0.0")


def sample_messages(release: ContractRelease, fixtures: Path) -> list[tuple[Any, str]]:
    """Valid stream messages of the release, taken from its conforming fixtures: (message, kind id)."""
    expectations = fixtures / release.package / release.version / "expectations.yaml"
    if not expectations.exists():
        return []
    classifier, validators = Classifier(release), Validators(release)
    found: dict[bytes, tuple[Any, str]] = {}
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


def write_capture(path: Path, samples: list[tuple[Any, str]], count: int, seed: int = 0) -> tuple[list[str], int]:
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


def floor_seconds(path: Path, kinds: list[str], release: ContractRelease) -> float:
    validators = Validators(release)
    by_kind = {k.id: validators.pair(k.schema).strict for k in release.kinds if k.schema is not None}
    order = [by_kind[k] for k in kinds]
    loads = orjson.loads
    start = time.perf_counter()
    with path.open("rb") as handle:
        for validator, line in zip(order, handle, strict=True):
            validator.is_valid(loads(line))
    return time.perf_counter() - start


def engine_seconds(path: Path, release: ContractRelease) -> tuple[float, int]:
    engine = Engine(release)
    start = time.perf_counter()
    result = engine.run([CaptureFile(str(path))])
    elapsed = time.perf_counter() - start
    return elapsed, len(result.findings)


def best_of(runs: int, fn) -> float:
    return min(fn() for _ in range(runs))


def peak_rss_kib(contract: str, contracts_dir: Path, path: Path) -> int:
    """Peak RSS of a separate `wirecheck validate` process over the capture (ru_maxrss, KiB on Linux)."""
    code = (
        "import resource, sys; from wirecheck.contracts import load_registry; "
        "from wirecheck.check.engine import check_captures; "
        f"r = check_captures(load_registry(__import__('pathlib').Path({str(contracts_dir)!r})).load({contract!r}), "
        f"[{str(path)!r}]); print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, r.messages)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=1800)
    return int(out.stdout.split()[0])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m wirecheck.bench", description=__doc__)
    parser.add_argument("--contract", help="package@version with stream fixtures (default: the first available "
                                           f"of {', '.join(PREFERRED_CONTRACTS)})")
    parser.add_argument("--contracts", type=Path, default=None)
    parser.add_argument("--fixtures", type=Path, default=Path(__file__).resolve().parents[2] / "fixtures")
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--memory-lines", default="10000,100000,1000000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path("reports/bench"))
    args = parser.parse_args(argv)

    registry = load_registry(args.contracts)
    fixtures = args.fixtures
    candidates = [args.contract] if args.contract else list(PREFERRED_CONTRACTS)
    release, samples = None, []
    for spec in candidates:
        if spec == "demo@1.0.0" and not args.contract:
            registry = load_registry(Path(__file__).resolve().parents[2] / "suites" / "data" / "contracts")
            fixtures = Path(__file__).resolve().parents[2] / "suites" / "data" / "fixtures"
        try:
            release = registry.load(spec)
        except Exception:  # not bundled (yet): try the next
            continue
        samples = sample_messages(release, fixtures)
        if samples:
            break
    if release is None or not samples:
        print("bench: no contract with conforming stream fixtures found", file=sys.stderr)
        return 2

    args.out.mkdir(parents=True, exist_ok=True)
    work = args.out / "work"
    work.mkdir(exist_ok=True)
    capture = work / f"capture-{args.messages}.jsonl"
    kinds, size = write_capture(capture, samples, args.messages)
    gc.collect()
    floor = best_of(args.runs, lambda: floor_seconds(capture, kinds, release))
    engine = best_of(args.runs, lambda: engine_seconds(capture, release)[0])
    _, findings = engine_seconds(capture, release)
    if findings:
        print(f"bench: the generated capture of valid messages got {findings} findings; not measuring", file=sys.stderr)
        return 2
    cli_start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "wirecheck", "validate", release.name, str(capture), "--no-progress",
                    "--contracts", str(registry.root)], check=False, capture_output=True, timeout=1800)
    cli = time.perf_counter() - cli_start
    ratio = floor / engine

    memory = []
    for lines in [int(n) for n in args.memory_lines.split(",")]:
        path = work / f"memory-{lines}.jsonl"
        _, bytes_written = write_capture(path, samples, lines, seed=1)
        memory.append({"lines": lines, "bytes": bytes_written,
                       "peak_rss_kib": peak_rss_kib(release.name, registry.root, path)})
        path.unlink()
    capture.unlink()
    first, last = memory[0]["peak_rss_kib"], memory[-1]["peak_rss_kib"]
    memory_flat = last <= first * MEMORY_TOLERANCE[0] + MEMORY_TOLERANCE[1]

    report: dict[str, Any] = {
        "contract": release.name,
        "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]},
        "capture": {"messages": args.messages, "bytes": size, "distinct_messages": len(samples),
                    "findings": findings},
        "throughput": {
            "floor_messages_per_s": round(args.messages / floor),
            "engine_messages_per_s": round(args.messages / engine),
            "cli_messages_per_s": round(args.messages / cli),
            "ratio": round(ratio, 3),
            "target": THROUGHPUT_TARGET,
            "met": ratio >= THROUGHPUT_TARGET,
        },
        "memory": {"runs": memory, "growth_kib": last - first, "flat": memory_flat},
        "peak_rss_this_process_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }
    (args.out / "conformance.json").write_text(orjson.dumps(report, option=orjson.OPT_INDENT_2).decode() + "\n")
    t = report["throughput"]
    lines_md = [
        f"# wirecheck bench: {release.name}",
        "",
        f"{args.messages} messages, {size / 1e6:.1f} MB, {len(samples)} distinct valid messages from the fixtures.",
        "",
        "| measure | messages/s |",
        "|---|---:|",
        f"| floor: orjson + jsonschema-rs is_valid (kind known) | {t['floor_messages_per_s']:,} |",
        f"| wirecheck engine end to end | {t['engine_messages_per_s']:,} |",
        f"| `wirecheck validate` CLI incl. start-up | {t['cli_messages_per_s']:,} |",
        "",
        f"Ratio engine/floor: **{t['ratio']:.2f}** (target ≥ {THROUGHPUT_TARGET}) — {'met' if t['met'] else 'MISSED'}",
        "",
        "| lines | peak RSS (MiB) |",
        "|---:|---:|",
        *[f"| {m['lines']:,} | {m['peak_rss_kib'] / 1024:.1f} |" for m in memory],
        "",
        f"Memory {'flat' if memory_flat else 'GROWS'}: {report['memory']['growth_kib'] / 1024:+.1f} MiB "
        f"from {memory[0]['lines']:,} to {memory[-1]['lines']:,} lines.",
    ]
    (args.out / "conformance.md").write_text("\n".join(lines_md) + "\n")
    print("\n".join(lines_md))
    return 0 if t["met"] and memory_flat else 1


if __name__ == "__main__":
    sys.exit(main())
