"""What one `wirecheck diff-schemas` / `wirecheck diff` costs, as its user pays it (issue 30, 6): CPU seconds and
peak memory of fresh processes, measured by wait4 as `startup_bench` measures start-up. Part of `nox -s bench`
(reports/bench/diff-cost.json and .md); `python -m wirecheck.diff.cost [OUT]` runs it alone.

Measured, each the median of ROUNDS interleaved runs (a host loaded by others inflates CPU time far less than wall
time). The targets are the issue's seconds on the machine they were set on, where the floor `python -c pass` took
REFERENCE_FLOOR_CPU_S; they are judged as ratios to that floor measured in the same run (a shared host's CPU speed
drifts: 0.022 to 0.031 s for the floor within one day here, and every pair moved with it), so a pair is met when
its median × REFERENCE_FLOOR_CPU_S / floor is within its target. Both numbers are reported:
- a one-keyword pair (`maxLength` added to a property): target SMALL_PAIR_CPU_S;
- every consecutive pair of MCP's published schemas (fixtures/mcp-schema) and of the bundled ACP releases
  (`wirecheck diff acp@A acp@B`): target REAL_PAIR_CPU_S each;
- two schemas of interlinked definitions at the input value limit (1,350 definitions, 270 kinds, 5.9 MB, the
  hostile suite's shape), once: peak memory within the README's 512 MiB (MEMORY_MIB).
Where start-up goes: `python -X importtime -m wirecheck diff-schemas A B`.
"""

from __future__ import annotations

import itertools
import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any

from wirecheck.startup_bench import fresh_process, main, publish, sampled

SMALL_PAIR_CPU_S = 0.2
REAL_PAIR_CPU_S = 0.5
# `python -c pass`, median CPU, on the quiet 2-CPU machine where the targets were first measured as met or missed
# (reports/bench/diff-cost.json of commit 8d6c462): the unit the targets are in
REFERENCE_FLOOR_CPU_S = 0.022
FLOOR = "python -c pass"
MEMORY_MIB = 512  # the README's limits table: 256 MiB + 8 × the default --max-line-bytes (32 MiB)
ROUNDS = 5
REPO = Path(__file__).resolve().parents[3]
D = "https://json-schema.org/draft/2020-12/schema"


def _wirecheck() -> list[str]:
    script = Path(sys.executable).parent / "wirecheck"
    return [str(script)] if script.exists() else [sys.executable, "-m", "wirecheck"]


def interlinked(count: int, kinds: int, padding: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Two schemas of `count` definitions (MCP's layout), for this bench and the hostile suite: each definition has
    six `$ref`s to earlier ones, a `Message` union lists the last `kinds`, the new schema retypes `p0` in every tenth
    kind; `padding` words of description per definition set the size (480, 1,350 definitions: 5.9 MB)."""
    import copy
    import random

    rnd = random.Random(3)
    defs: dict[str, Any] = {}
    for i in range(count):
        props = {f"p{j}": {"$ref": f"#/$defs/D{rnd.randrange(i)}"} if i and j % 2 else
                 {"type": "string", "description": "x " * 40} for j in range(12)}
        defs[f"D{i}"] = {"type": "object", "description": "Thing. " * padding, "properties": props,
                         "required": ["p0"]}
    defs["Message"] = {"anyOf": [{"$ref": f"#/$defs/D{i}"} for i in range(count - kinds, count)]}
    old: dict[str, Any] = {"$schema": D, "$defs": defs}
    new = copy.deepcopy(old)
    for i in range(count - kinds, count, 10):
        new["$defs"][f"D{i}"]["properties"]["p0"] = {"type": "integer"}
    return old, new


def cases(work: Path) -> dict[str, list[str]]:
    """The commands timed, by name; their input files written under `work`."""
    work.mkdir(parents=True, exist_ok=True)
    wirecheck = _wirecheck()
    small_old, small_new = work / "one-keyword-old.json", work / "one-keyword-new.json"
    small_old.write_text(json.dumps({"type": "object", "properties": {"a": {"type": "string"}}}))
    small_new.write_text(json.dumps({"type": "object", "properties": {"a": {"type": "string", "maxLength": 3}}}))
    out = {FLOOR: [sys.executable, "-c", "pass"],
           "one keyword": [*wirecheck, "diff-schemas", str(small_old), str(small_new)]}
    mcp = sorted(p.parent for p in (REPO / "fixtures" / "mcp-schema").glob("*/schema.json"))
    for a, b in itertools.pairwise(mcp):
        out[f"mcp {a.name} → {b.name}"] = [*wirecheck, "diff-schemas", str(a / "schema.json"), str(b / "schema.json")]
    from wirecheck.contracts import load_registry

    acp = list(load_registry().packages["acp"].releases)
    for older, newer in itertools.pairwise(acp):
        out[f"acp {older} → {newer}"] = [*wirecheck, "diff", f"acp@{older}", f"acp@{newer}"]
    return out


def measure(work: Path, rounds: int = ROUNDS) -> dict[str, Any]:
    argvs = cases(work)
    wall, cpu = sampled(argvs, rounds, {FLOOR: 4})  # the floor is short: more samples for a steadier unit
    floor = statistics.median(cpu[FLOOR])
    result: dict[str, Any] = {"rounds": rounds, "machine": {"cpus": os.cpu_count(), "load": os.getloadavg()[0],
                                                            "python": sys.version.split()[0]},
                              "floor_cpu_s": round(floor, 4), "reference_floor_cpu_s": REFERENCE_FLOOR_CPU_S,
                              "pairs": {}}
    for name in argvs:
        if name == FLOOR:
            continue
        target = SMALL_PAIR_CPU_S if name == "one keyword" else REAL_PAIR_CPU_S
        median = statistics.median(cpu[name])
        scaled = median * REFERENCE_FLOOR_CPU_S / floor
        result["pairs"][name] = {"median_cpu_s": round(median, 4), "min_cpu_s": round(min(cpu[name]), 4),
                                 "median_wall_s": round(statistics.median(wall[name]), 4),
                                 "floors": round(median / floor, 1), "scaled_cpu_s": round(scaled, 4),
                                 "target_cpu_s": target, "met": scaled <= target}
    old, new = interlinked(1350, 270, 480)
    (work / "interlinked-old.json").write_text(json.dumps(old))
    (work / "interlinked-new.json").write_text(json.dumps(new))
    elapsed, used, peak, code = fresh_process([*_wirecheck(), "diff-schemas", str(work / "interlinked-old.json"),
                                      str(work / "interlinked-new.json")])
    result["large"] = {"what": "1,350 interlinked definitions, 270 kinds, 5.9 MB a side", "exit": code,
                       "peak_mib": round(peak, 1), "cpu_s": round(used, 2), "wall_s": round(elapsed, 2),
                       "target_mib": MEMORY_MIB, "met": peak <= MEMORY_MIB and code in (0, 1)}
    result["inputs"] = large_inputs(work)
    result["ring_growth"] = ring_growth(result["inputs"])
    result["met"] = (all(p["met"] for p in result["pairs"].values()) and result["large"]["met"]
                     and all(p["met"] for p in result["inputs"].values())
                     and result["ring_growth"].get("met", True))
    return result


RING_GROWTH_LIMIT = 2.0  # a ring's CPU may grow at most twice as fast as its size: a ring must not multiply work


def ring_growth(inputs: dict[str, Any]) -> dict[str, Any]:
    """How much faster than its size the ring's CPU grows from 0.9 to 4.2 MB: (CPU ratio) / (size ratio); 1 is
    linear. Met within RING_GROWTH_LIMIT."""
    small, large = inputs.get("ring 0.9 MB"), inputs.get("ring 4.2 MB")
    if not small or not large:
        return {}
    size = sum(large["bytes"]) / sum(small["bytes"])
    growth = (large["cpu_s"] / max(small["cpu_s"], 1e-6)) / size
    return {"size_ratio": round(size, 2), "cpu_ratio": round(large["cpu_s"] / max(small["cpu_s"], 1e-6), 1),
            "growth": round(growth, 1), "limit": RING_GROWTH_LIMIT, "met": growth <= RING_GROWTH_LIMIT}


# Issue 39 (item 5): a pair of about 2 MB within LARGE_PAIR_CPU_S (scaled to the reference floor as above), every
# input within MEMORY_MIB. Each is also given as a ratio to its own floor: a fresh process that reads the same two
# files with the json module and checks each against its draft's meta-schema with python-jsonschema (INPUT_FLOOR).
LARGE_PAIR_CPU_S = 3.0
REFUSED = frozenset({"combined 5 MB"})  # past diff/inputs.py MAX_SCHEMA_VALUES
INPUT_FLOOR = ("import json, sys, jsonschema\n"
               "for name in sys.argv[1:]:\n"
               "    with open(name, encoding='utf-8') as f:\n"
               "        schema = json.load(f)\n"
               "    jsonschema.validators.validator_for(schema).check_schema(schema)\n")


def large_cases(work: Path) -> dict[str, tuple[Path, Path, float | None]]:
    """name → (old file, new file, CPU target in seconds or None: memory only): the pairs of
    diff/cost_inputs.py and AsyncAPI's 3.0.0 → 3.1.0 from the histories corpus, written under `work`."""
    from wirecheck.diff.cost_inputs import CASES, write_pair

    out: dict[str, tuple[Path, Path, float | None]] = {}
    for name, make in CASES.items():
        old, new = write_pair(make(), work, name.replace(" ", "-").replace(".", ""))
        out[name] = (old, new, LARGE_PAIR_CPU_S if name in ("combined 2 MB", "ring 0.9 MB") else None)
    corpus = REPO / "fixtures" / "schema-histories" / "asyncapi"
    out["asyncapi 3.0.0 → 3.1.0"] = (corpus / "asyncapi@3.0.0.json", corpus / "asyncapi@3.1.0.json",
                                     LARGE_PAIR_CPU_S)
    return out


def large_inputs(work: Path) -> dict[str, Any]:
    """Each large pair run once in a fresh process beside its floor run once: CPU seconds, peak MiB, exit code."""
    out: dict[str, Any] = {}
    for name, (old, new, target) in large_cases(work).items():
        _, used, peak, code = fresh_process([*_wirecheck(), "diff-schemas", str(old), str(new)])
        _, floor_used, floor_peak, floor_code = fresh_process([sys.executable, "-c", INPUT_FLOOR, str(old), str(new)])
        sizes = [p.stat().st_size for p in (old, new)]
        scaled = used * REFERENCE_FLOOR_CPU_S / max(_machine_floor(), 1e-6)
        # a 5 MB pair of real schemas holds more JSON values than diff-schemas compares: refused (exit 2), and
        # within the memory bound while it says so; every other pair must be compared
        exits = (2,) if name in REFUSED else (0, 1, 6)
        met = peak <= MEMORY_MIB and code in exits and (target is None or scaled <= target)
        out[name] = {"bytes": sizes, "exit": code, "cpu_s": round(used, 2), "peak_mib": round(peak, 1),
                     "floor_cpu_s": round(floor_used, 3), "floor_peak_mib": round(floor_peak, 1),
                     "floor_exit": floor_code, "floors": round(used / max(floor_used, 1e-6), 1),
                     "memory_floors": round(peak / max(floor_peak, 1e-6), 1), "scaled_cpu_s": round(scaled, 2),
                     "target_cpu_s": target, "target_mib": MEMORY_MIB, "met": met}
    return out


_FLOOR_MEMO: list[float] = []


def _machine_floor() -> float:
    """Median CPU of `python -c pass` here (measured once per run): the unit the CPU targets are scaled by."""
    if not _FLOOR_MEMO:
        _FLOOR_MEMO.append(statistics.median(fresh_process([sys.executable, "-c", "pass"])[1] for _ in range(5)))
    return _FLOOR_MEMO[0]


def write(out: Path) -> bool:
    result = measure(out / "work")
    (out / "diff-cost.json").write_text(json.dumps(result, indent=1) + "\n")
    lines = ["# diff cost (fresh processes)", "",
             f"Median CPU of {result['rounds']} interleaved rounds (load average {result['machine']['load']:.1f} on "
             f"{result['machine']['cpus']} CPUs). Floor `{FLOOR}`: {result['floor_cpu_s']:.3f} s here, "
             f"{REFERENCE_FLOOR_CPU_S} s where the targets were set; a pair's CPU is judged scaled by their ratio.",
             "", "| pair | CPU median (s) | CPU min (s) | wall median (s) | × floor | scaled (s) | target (s) | |",
             "|---|---:|---:|---:|---:|---:|---:|---|"]
    for name, p in result["pairs"].items():
        lines.append(f"| {name} | {p['median_cpu_s']:.3f} | {p['min_cpu_s']:.3f} | {p['median_wall_s']:.3f} | "
                     f"{p['floors']} | {p['scaled_cpu_s']:.3f} | ≤ {p['target_cpu_s']} | "
                     f"{'met' if p['met'] else 'MISSED'} |")
    large = result["large"]
    lines += ["", f"{large['what']}: exit {large['exit']}, peak {large['peak_mib']} MiB (≤ {large['target_mib']}), "
              f"{large['cpu_s']} s CPU: {'met' if large['met'] else 'MISSED'}"]
    lines += ["", "Large and `$ref`-ring inputs (issue 39, 5; diff/cost_inputs.py), one fresh run each. Floor: the "
              "same two files read by `json` and checked against their meta-schema by python-jsonschema.", "",
              "| pair | MB (old, new) | exit | CPU (s) | × floor | scaled (s) | target (s) | peak MiB | × floor "
              "| ≤ 512 MiB | |", "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|"]
    for name, p in result["inputs"].items():
        mb = ", ".join(f"{b / 1e6:.2f}" for b in p["bytes"])
        lines.append(f"| {name} | {mb} | {p['exit']} | {p['cpu_s']:.2f} | {p['floors']} | {p['scaled_cpu_s']:.2f} | "
                     f"{'≤ ' + str(p['target_cpu_s']) if p['target_cpu_s'] else '-'} | {p['peak_mib']} | "
                     f"{p['memory_floors']} | {'yes' if p['peak_mib'] <= p['target_mib'] else 'NO'} | "
                     f"{'met' if p['met'] else 'MISSED'} |")
    ring = result.get("ring_growth") or {}
    if ring:
        lines += ["", f"The ring's CPU grew {ring['cpu_ratio']}× for {ring['size_ratio']}× the size: {ring['growth']}× "
                  f"faster than linear (≤ {ring['limit']}): {'met' if ring['met'] else 'MISSED'}"]
    return publish(out / "diff-cost.md", lines, result)


if __name__ == "__main__":
    main(write)
