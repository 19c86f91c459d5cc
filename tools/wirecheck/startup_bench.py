"""Start-up time of `wirecheck` against the interpreter's own, in the same run (part of `nox -s bench`).

Every pre-commit hook and CI step starts wirecheck again, so what it costs before doing anything matters. Measured:
`python -c pass` (the floor: the interpreter alone), `wirecheck --help`, and `wirecheck validate` of a one-message
capture, each a fresh process, in interleaved rounds so that a noisy host slows all three alike. Each is timed twice:
wall clock, and the CPU time the process used (user + system, from wait4), which a host loaded by others inflates
far less. The targets (--help ≤ 0.25 s, one-message validate ≤ 0.4 s over the floor) are judged on the median CPU
time; the wall-clock medians, differences and ratios are reported beside it.
Where the time goes: `python -X importtime -m wirecheck --help`; `suites/cli/test_startup.py` keeps heavy modules
out of `--help` (see ARCHITECTURE.md, "Start-up").
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import orjson

TARGETS = {"help": 0.25, "validate": 0.4}  # seconds over `python -c pass`
MESSAGE = {"type": "result", "subtype": "success", "is_error": False, "duration_ms": 1200, "duration_api_ms": 1000,
           "num_turns": 1, "result": "done", "stop_reason": "end_turn", "session_id": "s-1", "total_cost_usd": 0.01,
           "usage": {"input_tokens": 10, "output_tokens": 5}}


def commands(capture: Path) -> dict[str, list[str]]:
    script = Path(sys.executable).parent / "wirecheck"
    wirecheck = [str(script)] if script.exists() else [sys.executable, "-m", "wirecheck"]
    return {"python -c pass": [sys.executable, "-c", "pass"], "help": [*wirecheck, "--help"],
            "validate": [*wirecheck, "validate", "claude-code-print@2.1.218", str(capture)]}


def measured_env() -> dict[str, str]:
    """The environment of a timed process: as a user's, whose installed wheel has its .pyc files (pip compiles at
    install). With PYTHONDONTWRITEBYTECODE set (some sandboxes and CI images set it) the warm-up writes none and every
    run compiles wirecheck's modules again: about 0.1 s of a one-keyword diff that no user pays."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def fresh_process(argv: list[str]) -> tuple[float, float, float, int]:
    """(wall seconds, CPU seconds, peak MiB, exit code) of one fresh process running `argv` (this bench and the
    diff's cost bench, diff/cost.py)."""
    started = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=measured_env())
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    return (time.perf_counter() - started, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024,
            child.returncode)


def sampled(argvs: dict[str, list[str]], rounds: int, repeats: Mapping[str, int] | None = None
            ) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """(wall, CPU) seconds of every run of each command: one warm-up each (disk cache, .pyc files), then `rounds`
    interleaved rounds, a command `repeats` names run that many times a round (this bench and diff/cost.py)."""
    for argv in argvs.values():
        fresh_process(argv)
    wall: dict[str, list[float]] = {name: [] for name in argvs}
    cpu: dict[str, list[float]] = {name: [] for name in argvs}
    for _ in range(rounds):
        for name, argv in argvs.items():
            for _ in range((repeats or {}).get(name, 1)):
                elapsed, used, _, _ = fresh_process(argv)
                wall[name].append(elapsed)
                cpu[name].append(used)
    return wall, cpu


def measure(work: Path, rounds: int = 15) -> dict[str, Any]:
    work.mkdir(parents=True, exist_ok=True)
    capture = work / "one-message.json"
    capture.write_bytes(orjson.dumps(MESSAGE))
    argvs = commands(capture)
    wall, cpu = sampled(argvs, rounds)
    floor, cpu_floor = statistics.median(wall["python -c pass"]), statistics.median(cpu["python -c pass"])
    result: dict[str, Any] = {"rounds": rounds, "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0],
                                                            "load": os.getloadavg()[0]},
                              "floor_s": round(floor, 4), "floor_cpu_s": round(cpu_floor, 4), "commands": {}}
    for name in TARGETS:
        median, median_cpu = statistics.median(wall[name]), statistics.median(cpu[name])
        result["commands"][name] = {"argv": argvs[name][-3:] if name == "validate" else argvs[name][-1:],
                                    "median_s": round(median, 4), "over_floor_s": round(median - floor, 4),
                                    "ratio_to_floor": round(median / floor, 1),
                                    "median_cpu_s": round(median_cpu, 4),
                                    "cpu_over_floor_s": round(median_cpu - cpu_floor, 4),
                                    "target_over_floor_s": TARGETS[name],
                                    "met": median_cpu - cpu_floor <= TARGETS[name]}
    result["met"] = all(c["met"] for c in result["commands"].values())
    return result


def write(out: Path) -> bool:
    result = measure(out / "work")
    (out / "startup.json").write_text(orjson.dumps(result, option=orjson.OPT_INDENT_2).decode() + "\n")
    lines = ["# wirecheck start-up", "",
             f"Medians of {result['rounds']} interleaved rounds (load average {result['machine']['load']:.1f} on "
             f"{result['machine']['cpus']} CPUs). Floor `python -c pass`: {result['floor_cpu_s']:.3f} s CPU, "
             f"{result['floor_s']:.3f} s wall clock. The target is judged on CPU time over the floor.", "",
             "| command | CPU (s) | CPU over the floor (s) | wall (s) | wall over the floor (s) | wall × floor | "
             "target | |", "|---|---:|---:|---:|---:|---:|---:|---|"]
    for name, c in result["commands"].items():
        label = "wirecheck --help" if name == "help" else "wirecheck validate (one message)"
        lines.append(f"| {label} | {c['median_cpu_s']:.3f} | {c['cpu_over_floor_s']:.3f} | {c['median_s']:.3f} | "
                     f"{c['over_floor_s']:.3f} | {c['ratio_to_floor']} | ≤ {c['target_over_floor_s']} s | "
                     f"{'met' if c['met'] else 'MISSED'} |")
    return publish(out / "startup.md", lines, result)


def publish(path: Path, lines: list[str], result: dict[str, Any]) -> bool:
    """Write a bench's Markdown table and print it; whether its targets were met (this bench and diff/cost.py)."""
    path.write_text("\n".join(lines) + "\n")
    print("\n" + "\n".join(lines))
    return bool(result["met"])


def main(write: Callable[[Path], bool]) -> None:
    """`python -m <bench> [FOLDER]`: write into FOLDER (reports/bench), exit 1 when a target was missed."""
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("reports/bench")
    target.mkdir(parents=True, exist_ok=True)
    sys.exit(0 if write(target) else 1)


if __name__ == "__main__":
    main(write)
