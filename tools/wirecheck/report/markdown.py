"""Markdown: a summary a reviewer can paste into a pull request."""

from __future__ import annotations

from typing import TextIO

from wirecheck.check.engine import CheckResult
from wirecheck.findings import printable_stream
from wirecheck.markdown_text import code, text
from wirecheck.report.summary import counted, totals


def write(result: CheckResult, out: TextIO) -> None:
    out = printable_stream(out)  # a capture's control characters are shown, not obeyed
    t = totals(result)
    icon = {"conforms": "✅", "fails": "❌"}.get(t.verdict, "❔")  # ❔ inconclusive: nothing shown either way
    out.write(f"# wirecheck: {result.release.name}\n\n")
    unread = f"{t.unreadable} of {t.captures} captures could not be read, " if t.unreadable else ""
    out.write(f"{icon} **{t.verdict.replace('-', ' ')}** — {unread}{counted(t.messages, 'message')}, "
              f"{counted(t.errors, 'error')}, {counted(t.warnings, 'warning')}, "
              f"{f'{t.infos} info, ' if t.infos else ''}"
              f"{t.kinds_exercised} of {t.kinds_total} message kinds exercised\n\n")
    out.write("| capture | form | messages |\n|---|---|---:|\n")
    for c in result.captures:
        form = c.form or "" if c.unreadable is None else f"cannot read: {c.unreadable}"
        out.write(f"| {code(c.file)} | {text(form)} | {c.messages} |\n")
    if result.capture_count > len(result.captures):
        out.write(f"| … {result.capture_count - len(result.captures)} more captures with nothing listed | | |\n")
    if result.findings:
        out.write("\n## Findings\n\n| location | severity | code | kind | pointer | message | expected | found |\n")
        out.write("|---|---|---|---|---|---|---|---|\n")
        for f in result.findings:
            cells = [code(f.location), f.severity.value, code(f.code), code(f.kind) if f.kind else "",
                     code(f.pointer) if f.pointer else "", text(f.message),
                     code(f.expected) if f.expected else "", code(f.found) if f.found else ""]
            out.write("| " + " | ".join(cells) + " |\n")
    out.write("\n## Coverage\n\n| kind | seen | errors | warnings |\n|---|---:|---:|---:|\n")
    for kind_id, cov in result.coverage.items():
        out.write(f"| {code(kind_id)} | {cov.seen or 'not exercised'} | {cov.errors} | {cov.warnings} |\n")
