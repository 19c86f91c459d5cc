"""Markdown: a summary a pull request comment or a vendor's README can embed."""

from __future__ import annotations

from typing import TextIO

from wirecheck.certify.evaluate import Certification
from wirecheck.findings import printable_stream
from wirecheck.markdown_text import code, text
from wirecheck.report.summary import finding_line

ICONS = {"pass": "✅ pass", "fail": "❌ fail", "not_exercised": "⚪ not exercised",
         "expected_fail": "🟡 expected failure", "unexpected_pass": "❗ passes (stale baseline)",
         "out_of_scope": "➖ out of scope", "stale_scope": "❗ passes (stale out-of-scope entry)"}


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
    out.write("| level | passed | failed | not exercised | out of scope | expected failures | stale scope entries "
              "| score |\n")
    out.write("|---|---:|---:|---:|---:|---:|---:|---:|\n")
    for s in cert.scores:
        out.write(f"| {s.level} | {s.passed}/{s.in_scope} | {s.failed} | {s.not_exercised} | {s.out_of_scope} "
                  f"| {s.expected_failures} | {s.unexpected_passes + s.stale_scope} | {s.score:.0%} |\n")
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
            if r.scope is not None:
                out.write(f"Declared out of scope ({text(r.scope.reason)}), but it was exercised.\n\n")
            for f in r.failures[:20]:
                out.write(f"- {code(finding_line(f), table=False)}\n")
            if len(r.failures) > 20:
                out.write(f"- … {len(r.failures) - 20} more\n")
    tolerated = cert.passed_with_warnings()
    if tolerated:
        out.write("\n## Passed with warnings\n\nPassed over what the reading side tolerates (it goes on past "
                  "these):\n")
        for r in tolerated:
            out.write(f"\n### {code(r.requirement.id, table=False)}\n\n")
            for f in r.warnings[:20]:
                out.write(f"- {code(finding_line(f), table=False)}\n")
            if len(r.warnings) > 20:
                out.write(f"- … {len(r.warnings) - 20} more\n")
    stale = [r for r in cert.results if r.status == "stale_scope" and r.scope is not None]
    if stale:
        out.write("\n## Stale out-of-scope entries\n\nDeclared out of scope, yet exercised and passed: remove them "
                  "from the scope file.\n\n")
        for r in stale:
            assert r.scope is not None
            out.write(f"- `{r.requirement.id}` ({text(r.scope.reason)})\n")
    gaps = [r for r in cert.results if r.status == "not_exercised"]
    if gaps:
        levels = cert.failing_levels()
        out.write("\n## Not exercised\n\nNeither passed nor failed: no message exercised them, and the scope file "
                  "does not declare them out of scope. At a failing level they make the run incomplete.\n\n")
        for r in gaps:
            blocks = " — **blocks certification**" if r.requirement.level in levels else ""
            out.write(f"- `{r.requirement.id}` {r.requirement.level}{blocks}\n")
    outside = cert.out_of_scope()
    if outside:
        out.write("\n## Out of scope for this run\n\n| id | level | reason | evidence |\n|---|---|---|---|\n")
        for r in outside:
            assert r.scope is not None
            out.write(f"| `{r.requirement.id}` | {r.requirement.level} | {text(r.scope.reason)} "
                      f"| {text(r.scope.evidence)} |\n")
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
        if ident["run"].get("implementation"):
            out.write(f"- implementation {text(ident['run']['implementation'])}\n")
        out.write(f"- command {code(' '.join(ident['run']['argv']), table=False)}\n")
