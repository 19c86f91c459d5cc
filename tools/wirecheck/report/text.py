"""Plain text for terminals and CI logs: findings in capture order, the coverage of what was seen, the verdict last.

The coverage lists the kinds the captures exercised (or that have findings) and counts the rest in one line: a
release has up to a hundred kinds, and a hook's or CI job's log should not list them all for every run. The whole
list comes with --all-kinds, in the JSON, Markdown and JUnit reports, and whenever the verdict is BELOW MIN
COVERAGE (the kinds not exercised are then its reason).
"""

from __future__ import annotations

from typing import TextIO

from wirecheck.check.engine import CheckResult
from wirecheck.check.result import BELOW_MIN_COVERAGE
from wirecheck.findings import printable, printable_stream
from wirecheck.report.summary import counted, finding_line, totals, verdict_line


def write(result: CheckResult, out: TextIO, *, findings: bool = True, all_kinds: bool = False) -> None:
    out = printable_stream(out)  # a capture's control characters are shown, not obeyed
    t = totals(result)
    names = [printable(c.file, line=True) for c in result.captures[:10]]  # a name's line feed splits no line
    more = result.capture_count - len(names)
    listing = ", ".join(names) + (f", and {more} more captures" if more else "")
    out.write(f"wirecheck: {result.release.name}  ({listing})\n")
    for capture in result.unreadable:
        out.write(printable(f"{capture.file}: cannot read: {capture.unreadable}", line=True) + "\n")
    if result.unreadable_count > len(result.unreadable):
        out.write(f"... and {result.unreadable_count - len(result.unreadable)} more captures that cannot be read\n")
    if findings:
        for finding in result.findings:
            out.write(finding_line(finding) + "\n")
    minimum = f" (--min-coverage {result.min_coverage:.0%})" if result.min_coverage is not None else ""
    out.write(f"\ncoverage: {t.kinds_exercised} of {t.kinds_total} message kinds exercised{minimum}\n")
    every = all_kinds or t.verdict == BELOW_MIN_COVERAGE
    quiet = 0
    for kind_id, cov in result.coverage.items():
        if not (cov.seen or cov.errors or cov.warnings or every):
            quiet += 1
            continue
        mark = "✓" if cov.seen and not cov.errors else ("✗" if cov.errors else "·")
        detail = ", ".join([f"{cov.seen} seen"] + [f"{cov.unjudged} without a recorded body"] * bool(cov.unjudged)
                           + [counted(n, what) for n, what in ((cov.errors, "error"), (cov.warnings, "warning")) if n])
        out.write(f"  {mark} {kind_id:<40} {detail if cov.seen or cov.errors else 'not exercised'}\n")
    if quiet:
        out.write(f"  · {counted(quiet, 'other kind')} not exercised (--all-kinds lists them)\n")
    out.write(f"\n{verdict_line(result)}\n")  # last, where a CI log's tail shows it
