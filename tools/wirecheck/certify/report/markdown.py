"""Markdown: a summary a pull request comment or a vendor's README can embed."""

from __future__ import annotations

from typing import TextIO

from wirecheck.certify.evaluate import Certification
from wirecheck.findings import printable_stream
from wirecheck.markdown_text import code, text
from wirecheck.report.summary import finding_line

ICONS = {"pass": "✅ pass", "fail": "❌ fail", "not_exercised": "⚪ not exercised",
         "expected_fail": "🟡 expected failure", "unexpected_pass": "❗ passes (stale baseline)"}


def write(cert: Certification, out: TextIO) -> None:
    out = printable_stream(out)  # a capture's control characters are shown, not obeyed
    ident = cert.identity
    out.write(f"# Certification: {cert.contract}\n\n")
    if cert.run_failed:
        out.write("**run failed** — nothing was heard from the implementation, so nothing was certified")
    else:
        out.write(f"**{cert.verdict}** — {cert.badge.message}")
    out.write(f" (role `{cert.role}`)\n\n" if cert.role else "\n\n")
    out.write(f"**{cert.gate_line}**\n\n")
    out.write("| level | passed | failed | not exercised | expected failures | stale baseline | score |\n")
    out.write("|---|---:|---:|---:|---:|---:|---:|\n")
    for s in cert.scores:
        out.write(f"| {s.level} | {s.passed}/{s.total} | {s.failed} | {s.not_exercised} | {s.expected_failures} "
                  f"| {s.unexpected_passes} | {s.score:.0%} |\n")
    if cert.run is not None:
        out.write(f"\nLive run: {text(cert.run_line)}\n")
        if cert.program_words:
            out.write(f"\nThe program said: {code(cert.program_words, table=False)}\n")
    out.write("\n## Requirements\n\n| id | level | status | checks | exercised |\n|---|---|---|---|---:|\n")
    for r in cert.results:
        out.write(f"| `{r.requirement.id}` | {r.requirement.level} | {ICONS[r.status]} | "
                  f"{text(r.requirement.link.element)} | {r.exercised} |\n")
    failing = [r for r in cert.results if r.failures]
    if failing:
        out.write("\n## Findings behind failures\n")
        for r in failing:
            out.write(f"\n### {code(r.requirement.id, table=False)}\n\n{text(r.requirement.text)}\n\n")
            if r.baseline_reason:
                out.write(f"Baseline: {text(r.baseline_reason)}\n\n")
            for f in r.failures[:20]:
                out.write(f"- {code(finding_line(f), table=False)}\n")
            if len(r.failures) > 20:
                out.write(f"- … {len(r.failures) - 20} more\n")
    out.write("\n## Coverage\n\n| kind | producer | seen | errors | warnings |\n|---|---|---:|---:|---:|\n")
    for kind_id, c in cert.coverage.items():
        out.write(f"| `{kind_id}` | {c.kind.producer} | {c.seen} | {c.errors} | {c.warnings} |\n")
    out.write("\n## Identity\n\n")
    out.write(f"- wirecheck {ident.get('wirecheck_version')}, {ident.get('timestamp')}\n")
    contract = ident.get("contract", {})
    out.write(f"- contract `{contract.get('name')}` sha256 `{contract.get('sha256')}`\n")
    out.write(f"- requirements `{ident.get('requirements', {}).get('sha256')}`\n")
    for capture in ident.get("captures", []):
        out.write(f"- capture {code(capture['path'], table=False)} sha256 `{capture['sha256']}` "
                  f"({capture['messages']} messages)\n")
    if "run" in ident:
        out.write(f"- command {code(' '.join(ident['run']['argv']), table=False)}\n")
