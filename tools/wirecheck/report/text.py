"""Plain text for terminals: findings in capture order, then coverage, then totals."""

from __future__ import annotations

from typing import TextIO

from wirecheck.check.engine import CheckResult
from wirecheck.findings import printable_stream
from wirecheck.report.summary import finding_line, totals, verdict_line


def write(result: CheckResult, out: TextIO, *, findings: bool = True) -> None:
    out = printable_stream(out)  # a capture's control characters are shown, not obeyed
    t = totals(result)
    names = [c.file for c in result.captures[:10]]
    more = result.capture_count - len(names)
    listing = ", ".join(names) + (f", and {more} more captures" if more else "")
    out.write(f"wirecheck: {result.release.name}  ({listing})\n")
    for capture in result.unreadable:
        out.write(f"{capture.file}: cannot read: {capture.unreadable}\n")
    if result.unreadable_count > len(result.unreadable):
        out.write(f"... and {result.unreadable_count - len(result.unreadable)} more captures that cannot be read\n")
    if findings:
        for finding in result.findings:
            out.write(finding_line(finding) + "\n")
    out.write(f"\n{verdict_line(result)}\n")  # the verdict before the coverage that explains it ...
    minimum = f" (--min-coverage {result.min_coverage:.0%})" if result.min_coverage is not None else ""
    out.write(f"\ncoverage: {t.kinds_exercised}/{t.kinds_total} message kinds exercised{minimum}\n")
    for kind_id, cov in result.coverage.items():
        mark = "✓" if cov.seen and not cov.errors else ("✗" if cov.errors else "·")
        detail = f"{cov.seen} seen" + (f", {cov.errors} errors" if cov.errors else "") + (
            f", {cov.warnings} warnings" if cov.warnings else ""
        )
        out.write(f"  {mark} {kind_id:<40} {detail if cov.seen or cov.errors else 'not exercised'}\n")
    out.write(f"\n{verdict_line(result)}\n")  # and last, where a CI log's tail shows it
