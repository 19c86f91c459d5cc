"""`nox -s diff-versions` (`python -m wirecheck.diff.versions`): every consecutive release pair of every package
in contracts/, the transitive matrix, written to reports/diff/ (Markdown per pair, JSON, an HTML matrix), and a
summary on stdout. Every report is judged under `--fail-on` (default `breaking`) and says so; the exit code is that
gate's answer (diff/gate.py): 1 while a bundled pair breaks a protected consumer. A release that does not load is
reported and skipped, never a traceback."""

from __future__ import annotations

import argparse
import sys
import time
from functools import partial
from pathlib import Path

from wirecheck import exitcodes
from wirecheck.contracts import ContractError, load_registry
from wirecheck.diff.gate import FAIL_ON, fails
from wirecheck.diff.model import BACKWARD, FORWARD, STRICT, TOLERANT
from wirecheck.diff.options import DiffOptions
from wirecheck.diff.package import PackageDiff, diff_matrix
from wirecheck.diff.report import html as html_report
from wirecheck.diff.report import json_report, markdown
from wirecheck.diff.run import DiffRun


def build(contracts: Path | None, options: DiffOptions) -> tuple[list[PackageDiff], list[str]]:
    registry = load_registry(contracts)
    loaded, failed = registry.load_all()
    problems = [f"{spec} skipped: {exc.problems[0]}" + (f" (+{len(exc.problems) - 1} more)" if len(exc.problems) > 1
                                                         else "") for spec, exc in failed]
    packages = [diff_matrix(name, [r for r in loaded if r.package == name], options) for name in registry.packages]
    return packages, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="diff-versions", description=__doc__)
    parser.add_argument("--contracts", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=Path("reports/diff"))
    parser.add_argument("--no-witnesses", action="store_true")
    parser.add_argument("--fail-on", default="breaking", choices=FAIL_ON,
                        help="the gate every report is judged under (default breaking); the exit code is its answer")
    args = parser.parse_args(argv)
    options = DiffOptions(witnesses=not args.no_witnesses)
    started = time.perf_counter()
    try:
        packages, problems = build(args.contracts, options)
    except ContractError as exc:
        print(f"diff-versions: contract error: {exc}", file=sys.stderr)
        return exitcodes.USAGE
    elapsed = time.perf_counter() - started
    # the consecutive pairs, and the jumps that fail the gate where no step does (as `wirecheck diff` gates them)
    results = [r for p in packages for r in p.gate_pairs(partial(fails, options=options, fail_on=args.fail_on))]
    run = DiffRun(tuple(results), options, args.fail_on, (), tuple(packages))
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    for stale in out.glob("*.md"):
        stale.unlink()
    for package in packages:
        for result in package.consecutive:
            single = DiffRun((result,), options, args.fail_on)
            name = f"{result.package}-{result.old_version}-{result.new_version}.md"
            with (out / name).open("w", encoding="utf-8") as f:
                markdown.write(single, f)
    with (out / "diff.json").open("w", encoding="utf-8") as f:
        json_report.write(run, f)
    with (out / "index.html").open("w", encoding="utf-8") as f:
        html_report.write(run, f)
    with (out / "README.md").open("w", encoding="utf-8") as f:
        markdown.write(run, f)
    jumps = len(results) - sum(len(p.consecutive) for p in packages)
    print(f"wirecheck diff-versions: {len(packages)} package(s), {len(results) - jumps} consecutive pair(s), "
          f"{jumps} longer jump(s) that fail the gate where no step does, "
          f"{sum(len(p.matrix) for p in packages)} in the transitive matrix, {elapsed:.2f} s"
          f"{'' if options.witnesses else ' (no witness search)'}")
    for package in packages:
        print(f"\n{package.package}: releases {', '.join(package.releases) or '(none loadable)'}")
        for result in package.consecutive:
            counts = {"error": 0, "warning": 0, "info": 0}
            for finding in result.findings:
                counts[finding.severity.value] += 1
            verdict = " ".join(
                f"{d[0].upper()}{'/' + m[0] if m == STRICT else ''}:{result.compatibility(d, m)}"
                for d in (FORWARD, BACKWARD) for m in (TOLERANT, STRICT))
            bump = (f"bump {result.version.declared_bump} (needs {result.version.required_bump})"
                    if result.version else "")
            print(f"  {result.old_version} → {result.new_version}: {counts['error']} error(s), "
                  f"{counts['warning']} warning(s), {counts['info']} info; {verdict}; {bump}")
        if len(package.releases) > 1:
            print(f"  transitive: forward {package.transitive(FORWARD, TOLERANT)}, backward "
                  f"{package.transitive(BACKWARD, TOLERANT)} (tolerant consumers); full {package.full(TOLERANT)}")
    for problem in problems:
        print(f"\nwarning: {problem}")
    print(f"\nreports: {out}/index.html (matrix), {out}/diff.json, {out}/README.md, one Markdown file per pair")
    print(run.gate.summary())
    return run.exit_code()


if __name__ == "__main__":
    raise SystemExit(main())
