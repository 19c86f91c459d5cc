"""Record the corruption corpus: each wrapper beside this file in front of the real CLI, through the live tier
(`python -m wirecheck.harness.live CLI --version V --scenario S --executable WRAPPER --pass-env WIRECHECK_REAL_CLI`),
the capture it made and what today's certification says of it, into fixtures/live/corruptions/:

    python suites/harness/wrappers/record.py [--only WRAPPER ...] [--out fixtures/live/corruptions]

The real CLIs are the live tiers' (installed into the user cache as the tiers install them; npm and PyPI only).
Test data tooling: never run by the default tests, which replay what it wrote (suites/harness/test_corruptions.py).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

import yaml

from wirecheck.harness import live

HERE = Path(__file__).resolve().parent
HEALTHY = HERE.parents[2] / "fixtures" / "live"  # the same scenario, recorded from the CLI without a wrapper
# (wrapper, CLI, version, scenario): each corruption in front of the CLIs whose output it applies to
CASES = [
    ("result_first", "claude-code", "2.1.332", "claude-print-plain"),
    ("result_twice", "claude-code", "2.1.332", "claude-print-plain"),
    ("exit_1", "claude-code", "2.1.332", "claude-print-plain"),
    ("hang_after_result", "claude-code", "2.1.332", "claude-print-plain"),
    ("no_final_newline", "claude-code", "2.1.332", "claude-print-plain"),
    ("stream_json", "claude-code", "2.1.332", "claude-print-plain"),
    ("repeat_tool_use", "opencode", "1.18.33", "opencode-run-tool"),
    ("step_finish_first", "opencode", "1.18.33", "opencode-run-plain"),
    ("exit_1", "opencode", "1.18.33", "opencode-run-plain"),
    ("hang_after_result", "opencode", "1.18.33", "opencode-run-plain"),
    *[(wrapper, "qodercli", version, scenario) for version in ("1.1.23", "1.1.52") for wrapper, scenario in (
        ("result_twice", "qoder-print-plain"),
        ("exit_1", "qoder-print-plain"),
        ("hang_after_result", "qoder-print-plain"),
        ("no_final_newline", "qoder-print-plain"),
        ("repeat_tool_use", "qoder-session-tools"),
        ("repeat_tool_result", "qoder-session-tools"),
        ("drop_interrupt_response", "qoder-session-cancel"),
        ("rename_result_subtype", "qoder-session-sdk"),
    )],
]


def record(wrapper: str, cli: str, version: str, scenario: str, out: Path) -> dict:
    release = next(r for r in live.load_plan()[cli] if r.version == version)
    os.environ["WIRECHECK_REAL_CLI"] = str(live.install(release, live.cache_root()))
    shown = [cli, "--version", version, "--scenario", scenario, "--executable", f"suites/harness/wrappers/{wrapper}.py",
             "--pass-env", "WIRECHECK_REAL_CLI"]
    with tempfile.TemporaryDirectory(prefix="wirecheck-corruption-") as temp:
        argv = [*shown[:5], "--executable", str(HERE / f"{wrapper}.py"), *shown[7:], "--out", f"{temp}/out",
                "--record", f"{temp}/kept"]
        code = live.main(argv)
        kept = Path(temp) / "kept" / release.name
        capture = out / release.name / f"{wrapper}.{scenario}.framed.ndjson"
        capture.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(kept / f"{scenario}.framed.ndjson", capture)
        provenance = yaml.safe_load((kept / "provenance.yaml").read_text())
    outcome = live.recorded_outcome(provenance, release, scenario)
    return {"wrapper": f"suites/harness/wrappers/{wrapper}.py", "cli": release.name, "scenario": scenario,
            "capture": str(capture.relative_to(out)),
            "command": f"WIRECHECK_REAL_CLI=<{release.executable}> python -m wirecheck.harness.live {' '.join(shown)}",
            "run": outcome, "tier_exit": code, "today": today(release, scenario, capture, outcome)}


def judged(release: live.Release, scenario: str, capture: Path, outcome: dict) -> dict:
    """Per contract: the verdict, its exit code and every requirement that failed (any level)."""
    said = {}
    for target in live.targets_of(release, scenario):
        cert = live.certify_capture(target, capture, {"outcome": outcome})
        said[target.contract] = {"verdict": cert.verdict, "exit_code": cert.exit_code,
                                 "failed": sorted(r.requirement.id for r in cert.results if r.status == "fail")}
    return said


def today(release: live.Release, scenario: str, capture: Path, outcome: dict) -> dict:
    """judged(), and per contract what failed that does not fail the healthy recording (`beyond_healthy`)."""
    provenance = yaml.safe_load((HEALTHY / release.name / "provenance.yaml").read_text())
    healthy = judged(release, scenario, HEALTHY / release.name / f"{scenario}.framed.ndjson",
                     live.recorded_outcome(provenance, release, scenario))
    said = judged(release, scenario, capture, outcome)
    for contract, verdict in said.items():
        verdict["beyond_healthy"] = sorted(set(verdict["failed"]) - set(healthy[contract]["failed"]))
    return said


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("fixtures/live/corruptions"))
    parser.add_argument("--only", action="append", help="only this wrapper (repeatable)")
    parser.add_argument("--judge-again", action="store_true",
                        help="run nothing: judge the recorded captures again with today's code")
    args = parser.parse_args(argv)
    path = args.out / "expected.yaml"
    expected = yaml.safe_load(path.read_text()) if path.is_file() else {}
    if args.judge_again:
        plan = {r.name: r for releases in live.load_plan().values() for r in releases}
        for case in expected.values():
            case["today"] = today(plan[case["cli"]], case["scenario"], args.out / case["capture"], case["run"])
        path.write_text(yaml.safe_dump(expected, sort_keys=False, allow_unicode=True, width=120))
        return 0
    for wrapper, cli, version, scenario in CASES:
        if args.only and wrapper not in args.only:
            continue
        said = record(wrapper, cli, version, scenario, args.out)
        expected[f"{wrapper} {cli}@{version} {scenario}"] = said
        path.write_text(yaml.safe_dump(expected, sort_keys=False, allow_unicode=True, width=120))
        print(f"### {wrapper} {cli}@{version} {scenario}: tier exit {said['tier_exit']}; {said['today']}",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
