"""`nox -s diff-versions` (`python -m wirecheck.diff.versions`): every consecutive release pair of every package
in contracts/, the transitive matrix, written to reports/diff/ (an index.md of answers linking a Markdown file per
pair, JSON, an HTML matrix with details), and the table of answers on stdout. Every report is judged under
`--fail-on` (default `breaking`) and says so; the exit code is that gate's answer (diff/gate.py): 1 while a bundled
pair breaks a protected consumer. A release that does not load is
reported and skipped, never a traceback."""

from __future__ import annotations

import argparse
import sys
import time
from functools import partial
from pathlib import Path

from wirecheck import exitcodes
from wirecheck.contracts import ContractError, load_registry
from wirecheck.diff.gate import FAIL_ON, UNDECIDED_CHOICES, fails
from wirecheck.diff.model import BACKWARD, FORWARD, TOLERANT
from wirecheck.diff.options import DiffOptions
from wirecheck.diff.package import PackageDiff, diff_matrix
from wirecheck.diff.report import html as html_report
from wirecheck.diff.report import json_report, markdown
from wirecheck.diff.report import text as text_report
from wirecheck.diff.report.common import build as report_model
from wirecheck.diff.report.common import gate_text, pair_anchor
from wirecheck.diff.run import DiffRun
from wirecheck.output_files import writing


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
    parser.add_argument("--undecided", default="fail", choices=UNDECIDED_CHOICES,
                        help="fail (default: exit 6 on an undecided change of a declared member) or pass")
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
    run = DiffRun(tuple(results), options, args.fail_on, (), tuple(packages), args.undecided)
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    for stale in out.glob("*.md"):
        stale.unlink()
    links = {}
    for result in results:  # the consecutive pairs and the jumps that fail the gate: each a file the index links
        single = DiffRun((result,), options, args.fail_on, undecided=args.undecided)
        name = f"{result.package}-{result.old_version}-{result.new_version}.md"
        links[pair_anchor(result)] = name
        with writing(out / name) as f:
            markdown.write(single, f)
    with writing(out / "diff.json") as f:
        json_report.write(run, f)
    with writing(out / "index.html") as f:
        html_report.write(run, f)
    with writing(out / "index.md") as f:
        markdown.write(run, f, links=links)  # the answers, each pair linking to its own file
    jumps = len(results) - sum(len(p.consecutive) for p in packages)
    print(f"wirecheck diff-versions: {len(packages)} package(s), {len(results) - jumps} consecutive pair(s), "
          f"{jumps} longer jump(s) that fail the gate where no step does, "
          f"{sum(len(p.matrix) for p in packages)} in the transitive matrix, {elapsed:.2f} s"
          f"{'' if options.witnesses else ' (no witness search)'}\n")
    model = report_model(run)
    text_report.answers(model, sys.stdout)
    for package in packages:
        if len(package.releases) < 2:
            print(f"  {package.package}: one release ({', '.join(package.releases) or 'none loadable'}), "
                  "nothing to compare")
        elif len(package.releases) > 2:
            print(f"  {package.package} transitive: forward {package.transitive(FORWARD, TOLERANT)}, backward "
                  f"{package.transitive(BACKWARD, TOLERANT)} (tolerant readers); full {package.full(TOLERANT)}")
    for problem in problems:
        print(f"\nwarning: {problem}")
    print(f"\n{gate_text(run, model)}")
    print(f"reports: {out}/index.md (answers, a link per pair), {out}/index.html (matrix and details), "
          f"{out}/diff.json, one Markdown file per pair")
    return run.exit_code()


if __name__ == "__main__":
    raise SystemExit(main())
