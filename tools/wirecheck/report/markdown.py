"""Markdown: a summary a reviewer can paste into a pull request."""

from __future__ import annotations

from typing import TextIO

from wirecheck.check.engine import CheckResult
from wirecheck.findings import printable_stream
from wirecheck.report.summary import totals


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def write(result: CheckResult, out: TextIO) -> None:
    out = printable_stream(out)  # a capture's control characters are shown, not obeyed
    t = totals(result)
    icon = {"conforms": "✅", "fails": "❌"}.get(t.verdict, "❔")  # ❔ inconclusive: nothing shown either way
    out.write(f"# wirecheck: {result.release.name}\n\n")
    out.write(f"{icon} **{t.verdict.replace('-', ' ')}** — {t.messages} messages, {t.errors} errors, "
              f"{t.warnings} warnings, "
              f"{f'{t.infos} info, ' if t.infos else ''}"
              f"{t.kinds_exercised}/{t.kinds_total} message kinds exercised\n\n")
    out.write("| capture | form | messages |\n|---|---|---:|\n")
    for c in result.captures:
        form = c.form or "" if c.unreadable is None else f"cannot read: {c.unreadable}"
        out.write(f"| {_cell(c.file)} | {_cell(form)} | {c.messages} |\n")
    if result.capture_count > len(result.captures):
        out.write(f"| … {result.capture_count - len(result.captures)} more captures with nothing listed | | |\n")
    if result.findings:
        out.write("\n## Findings\n\n| location | severity | code | kind | pointer | message | expected | found |\n")
        out.write("|---|---|---|---|---|---|---|---|\n")
        for f in result.findings:
            out.write("| " + " | ".join(_cell(v or "") for v in (
                f.location, f.severity.value, f.code, f.kind, f.pointer, f.message, f.expected, f.found)) + " |\n")
    out.write("\n## Coverage\n\n| kind | seen | errors | warnings |\n|---|---:|---:|---:|\n")
    for kind_id, cov in result.coverage.items():
        out.write(f"| {kind_id} | {cov.seen or 'not exercised'} | {cov.errors} | {cov.warnings} |\n")
