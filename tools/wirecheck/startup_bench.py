"""Start-up time of `wirecheck` against the interpreter's own, in the same run (part of `nox -s bench`).

Every pre-commit hook and CI step starts wirecheck again, so what it costs before doing anything matters. Measured:
`python -c pass` (the floor: the interpreter alone), `wirecheck --help`, `wirecheck validate` of a one-message
capture, and check-jsonschema (the pre-commit hook people use for JSON files; `nox -s bench` installs it from PyPI)
validating the same message against the same kind's schema, inlined into one file: the same one-file job. Each is a
fresh process, in interleaved rounds so that a noisy host slows all alike, timed twice: wall clock, and the CPU time
the process used (user + system, from wait4), which a host loaded by others inflates far less.

wirecheck runs as users install it: from a wheel built from this checkout, in a virtualenv of its own whose
dependencies are those of the running interpreter (a .pth file), so that the editable install's import hook is not
counted (`wheel_environment`; where there is no checkout, the running installation is measured and the report says
so). Targets, on the median CPU time: --help ≤ 0.25 s and a one-message validate ≤ 0.2 s over the floor, and the
validate at most check-jsonschema's CPU (issue 42, 5).
Where the time goes: `python -X importtime -m wirecheck validate ...`; `suites/cli/test_startup.py` keeps heavy
modules out of `--help` (see ARCHITECTURE.md, "Start-up").
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import orjson

TARGETS = {"help": 0.25, "validate": 0.2}  # seconds over `python -c pass`
KIND = ("claude-code-print@2.1.218", "result")  # the message's release and kind
REPO = Path(__file__).resolve().parents[2]
MESSAGE = {"type": "result", "subtype": "success", "is_error": False, "duration_ms": 1200, "duration_api_ms": 1000,
           "num_turns": 1, "result": "done", "stop_reason": "end_turn", "session_id": "s-1", "total_cost_usd": 0.01,
           "usage": {"input_tokens": 10, "output_tokens": 5}}


def wheel_environment(work: Path) -> tuple[Path, str]:
    """(the bin folder of a virtualenv holding wirecheck installed from a wheel built from this checkout, how it was
    made). Its dependencies come from the running interpreter's site-packages through a .pth file (nothing is
    downloaded; the editable install's import hook there is not loaded: .pth files are read only in site folders).
    Without a checkout beside this module: the running installation's own bin folder."""
    if not (REPO / "pyproject.toml").is_file():
        return Path(sys.executable).parent, "the running installation (no checkout to build a wheel from)"
    dist, venv = work / "dist", work / "venv"
    shutil.rmtree(dist, ignore_errors=True)
    shutil.rmtree(venv, ignore_errors=True)
    quiet: dict[str, Any] = {"check": True, "stdout": subprocess.DEVNULL, "timeout": 600}
    # offline where setuptools is here (the tests' environment); else pip fetches it for the build
    isolation = [] if importlib.util.find_spec("setuptools") is None else ["--no-build-isolation"]
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", *isolation, "-w", str(dist),
                    str(REPO)], **quiet)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], **quiet)
    python = str(venv / "bin" / "python")
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-compile", "--target", site,
                    str(next(dist.glob("wirecheck-*.whl")))], **quiet)
    subprocess.run([python, "-m", "compileall", "-q", site], **quiet)  # as pip does at an install
    paths = sysconfig.get_paths()
    (Path(site) / "wirecheck-bench-deps.pth").write_text(
        "\n".join(dict.fromkeys((paths["purelib"], paths["platlib"]))) + "\n")
    script = venv / "bin" / "wirecheck"
    script.write_text(f"#!{python}\nimport sys\nfrom wirecheck.cli import main\nsys.exit(main())\n")
    script.chmod(0o755)
    return venv / "bin", f"a wheel of this checkout in a virtualenv of its own ({venv})"


def commands(capture: Path, schema: Path, bin_dir: Path) -> dict[str, list[str]]:
    """Each measured command: the floor is the interpreter wirecheck runs on."""
    python = str(bin_dir / "python")
    checker = shutil.which("check-jsonschema", path=str(Path(sys.executable).parent)) or shutil.which(
        "check-jsonschema")
    argvs = {"python -c pass": [python, "-c", "pass"], "help": [str(bin_dir / "wirecheck"), "--help"],
             "validate": [str(bin_dir / "wirecheck"), "validate", KIND[0], str(capture)]}
    if checker:
        argvs["check-jsonschema"] = [checker, "--schemafile", str(schema), str(capture)]
    return argvs


def kind_schema() -> dict[str, Any]:
    """The schema of the message's kind with every $ref resolved: what check-jsonschema is given."""
    from wirecheck.contracts import load_registry
    from wirecheck.contracts.inline import inline_refs

    release = load_registry().load(KIND[0])
    kind = next(k for k in release.kinds if k.id == KIND[1])
    assert kind.schema is not None
    return inline_refs(release.resources, kind.schema.uri)


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
    capture, schema = work / "one-message.json", work / "result.schema.json"
    capture.write_bytes(orjson.dumps(MESSAGE))
    schema.write_bytes(orjson.dumps(kind_schema()))
    bin_dir, installed = wheel_environment(work)
    argvs = commands(capture, schema, bin_dir)
    wall, cpu = sampled(argvs, rounds)
    floor, cpu_floor = statistics.median(wall["python -c pass"]), statistics.median(cpu["python -c pass"])
    result: dict[str, Any] = {"rounds": rounds, "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0],
                                                            "load": os.getloadavg()[0]},
                              "installed": installed, "floor_s": round(floor, 4), "floor_cpu_s": round(cpu_floor, 4),
                              "commands": {}}
    for name in [*TARGETS, "check-jsonschema"]:
        if name not in argvs:
            continue
        median, median_cpu = statistics.median(wall[name]), statistics.median(cpu[name])
        result["commands"][name] = {"argv": argvs[name][1:], "median_s": round(median, 4),
                                    "over_floor_s": round(median - floor, 4),
                                    "ratio_to_floor": round(median / floor, 1), "median_cpu_s": round(median_cpu, 4),
                                    "cpu_over_floor_s": round(median_cpu - cpu_floor, 4)}
        if name in TARGETS:
            result["commands"][name].update(target_over_floor_s=TARGETS[name],
                                            met=median_cpu - cpu_floor <= TARGETS[name])
    validate, checker = result["commands"]["validate"], result["commands"].get("check-jsonschema")
    # the same one-file job: at most check-jsonschema's CPU (unmet where it could not be measured)
    validate["check_jsonschema_cpu_s"] = checker["median_cpu_s"] if checker else None
    validate["met_against_check_jsonschema"] = bool(checker) and validate["median_cpu_s"] <= checker["median_cpu_s"]
    result["met"] = all(c.get("met", True) for c in result["commands"].values()) and \
        validate["met_against_check_jsonschema"]
    return result


LABELS = {"help": "wirecheck --help", "validate": "wirecheck validate (one message)",
          "check-jsonschema": "check-jsonschema (the same message, the kind's schema inlined)"}


def write(out: Path) -> bool:
    result = measure(out / "work")
    (out / "startup.json").write_text(orjson.dumps(result, option=orjson.OPT_INDENT_2).decode() + "\n")
    validate = result["commands"]["validate"]
    checker = validate["check_jsonschema_cpu_s"]
    lines = ["# wirecheck start-up", "",
             f"Medians of {result['rounds']} interleaved rounds (load average {result['machine']['load']:.1f} on "
             f"{result['machine']['cpus']} CPUs), wirecheck from {result['installed']}. Floor `python -c pass`: "
             f"{result['floor_cpu_s']:.3f} s CPU, {result['floor_s']:.3f} s wall clock. The targets are judged on "
             "CPU time.", "",
             "| command | CPU (s) | CPU over the floor (s) | wall (s) | wall over the floor (s) | wall × floor | "
             "target | |", "|---|---:|---:|---:|---:|---:|---:|---|"]
    for name, c in result["commands"].items():
        target = f"≤ {c['target_over_floor_s']} s" if "met" in c else ""
        verdict = ("met" if c["met"] else "MISSED") if "met" in c else ""
        lines.append(f"| {LABELS[name]} | {c['median_cpu_s']:.3f} | {c['cpu_over_floor_s']:.3f} | {c['median_s']:.3f} "
                     f"| {c['over_floor_s']:.3f} | {c['ratio_to_floor']} | {target} | {verdict} |")
    lines += ["", f"validate against check-jsonschema on the same one-file job: "
                  f"{validate['median_cpu_s']:.3f} s CPU against "
                  f"{f'{checker:.3f} s' if checker is not None else 'not measured (check-jsonschema not installed)'}"
                  f": {'met' if validate['met_against_check_jsonschema'] else 'MISSED'} (target: at most its CPU)."]
    return publish(out / "startup.md", lines, result)


def publish(path: Path, lines: list[str], result: dict[str, Any]) -> bool:
    """Write a bench's Markdown table and print it; whether its targets were met (this bench and diff/cost.py)."""
    path.write_text("\n".join(lines) + "\n")
    print("\n" + "\n".join(lines))
    return bool(result["met"])


def main(write: Callable[[Path], bool]) -> None:
    """`python -m <bench> [FOLDER]`: write into FOLDER (reports/bench), exit 1 when a target was missed. The folder
    is made absolute: the runs it starts name files in it, and a relative name starting with `-` would be read as
    an option."""
    import argparse

    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    parser = argparse.ArgumentParser(prog=f"python -m {spec.name}" if spec is not None else None)
    parser.add_argument("folder", nargs="?", type=Path, default=Path("reports/bench"),
                        help="where the report is written (default: reports/bench)")
    target = parser.parse_args().folder.resolve()
    target.mkdir(parents=True, exist_ok=True)
    sys.exit(0 if write(target) else 1)


if __name__ == "__main__":
    main(write)
