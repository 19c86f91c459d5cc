"""Markdown (a PR comment, a per-pair report): the gate's verdict first, the answers in one table (the pairs without
changes in one line, longer jumps in a table of their own), a legend of the marks used, then per pair its flows and
its changes, each once, with shortened witnesses. Fingerprints are ids for JSON, SARIF and waivers files, not for
the prose. Everything from a schema is escaped (`markdown_text`): a renderer never sees it as HTML or markup."""

from __future__ import annotations

import io
import re
from typing import TextIO

from wirecheck.diff.model import DIRECTIONS, SAFE, STRICT, TOLERANT, UNKNOWN
from wirecheck.diff.report.common import (
    LATENT_WORD,
    MARK,
    PairReport,
    RunReport,
    Statement,
    breaking_readers,
    build,
    change_counts,
    change_verdict,
    counts_text,
    flows_table,
    gate_why,
    legend_for,
    member_statements,
    places_of,
    short_payload,
    unchanged_text,
    verdict_word,
    version_text,
    witness_path,
)
from wirecheck.markdown_text import code, text

_ICON = {"breaking": "❌ breaking", "undecided": "❓ undecided", "compatible": "✅ compatible",
         LATENT_WORD: f"⚠️ {LATENT_WORD}"}


def write(run, out: TextIO, links: dict[str, str] | None = None) -> None:
    """`links`: pair anchor → the file that holds its details (diff-versions' index); by default each pair's
    details follow in this document."""
    report = build(run)
    out.write("# wirecheck contract diff\n\n")
    gate = run.gate  # the run's one decision (diff/gate.py), the one the exit code is
    why = gate_why(run, report)
    out.write(f"Gate `--fail-on {gate.fail_on}`: **{gate.verdict}** ({text(gate.protects)}"
              f"{'; ' + text(why) if why else ''}).\n\n")
    head, body = io.StringIO(), io.StringIO()
    answers(report, head, links)
    if links is None:
        for pair in report.pairs:
            if pair.changes or pair.result.nothing_compared or pair.shown_in_steps:
                details(pair, body)
    if run.waiver_findings:
        body.write("## Waivers\n\n")
        for f in run.waiver_findings:
            body.write(f"- {code(f.rule, table=False)} {text(f.message)} ({code(f.path, table=False)})\n")
        body.write("\n")
    single = [p for p in run.packages if len(p.releases) < 2]
    for package in single:
        body.write(f"{text(package.package)}: one release ({text(', '.join(package.releases) or 'none loadable')}), "
                   "nothing to compare.\n\n")
    out.write(head.getvalue())
    legend(out, head.getvalue() + body.getvalue())
    out.write(body.getvalue())
    if links is None and len(report.pairs) > 1 and any(p.changes for p in report.pairs):
        out.write(f"In all, {counts_text(change_counts(report))}.\n")


_HEADER = ("| pair | verdict | old readers that break (forward) | new readers that break (backward) | version "
           "| what to do |\n|---|---|---|---|---|---|\n")


def answers(report: RunReport, out: TextIO, links: dict[str, str] | None = None) -> None:
    """The table of answers: the consecutive pairs that changed, then the longer jumps in a table of their own,
    then the pairs without changes in one line."""
    listed = [p for p in report.pairs if p.result.findings or p.result.nothing_compared]
    steps, jumps = [p for p in listed if not p.jump], [p for p in listed if p.jump]
    for rows, heading in ((steps, ""), (jumps, "Longer jumps that break where no single step shows it:\n\n")):
        if rows:
            out.write(heading + _HEADER)
            for pair in rows:
                _row(pair, out, links)
            out.write("\n")
    unchanged = [p.result for p in report.pairs if p not in listed]
    if unchanged:
        words = unchanged_text(unchanged)
        out.write(f"{text(words[0].upper() + words[1:])}.\n\n")


def _row(pair: PairReport, out: TextIO, links: dict[str, str] | None) -> None:
    r, a = pair.result, pair.answer
    target = (links or {}).get(pair.anchor, "") + "#" + pair.anchor
    name = f"{r.package} {r.old_version} → {r.new_version}" + (" (skips releases)" if pair.jump else "")
    out.write(f"| [{text(name)}]({target}) | {_ICON[verdict_word(a)]} | {text(breaking_readers(a, 'forward'))} "
              f"| {text(breaking_readers(a, 'backward'))} | {text(version_text(r, a))} | "
              f"{text('; '.join(a.advice))} |\n")


def legend(out: TextIO, body: str) -> None:
    """The legend entries the document's marks call for (`legend_for` reads it without Markdown's escapes)."""
    entries = legend_for(re.sub(r"\\(.)", r"\1", body))
    if entries:
        out.write("Legend: " + "; ".join(f"**{text(term)}**: {text(words)}" for term, words in entries) + ".\n\n")


def _flows_add_to_the_answer(a) -> bool:
    """Whether the table of flows (tolerant and strict marks per direction) says more than the answers' row, which
    names every flow that breaks, "(strict readers only)" where only closed models do, "(undecided)": only where
    strict readers are undecided on a flow tolerant ones read safely."""
    return any(flow.get(d, TOLERANT) == SAFE and flow.get(d, STRICT) == UNKNOWN for flow in a.flows for d in DIRECTIONS)


def details(pair: PairReport, out: TextIO) -> None:
    r, a = pair.result, pair.answer
    out.write(f'<a id="{pair.anchor}"></a>\n\n## {text(r.package)} {text(r.old_version)} → {text(r.new_version)}\n\n')
    nothing = r.nothing_compared
    if nothing:
        out.write(f"**Nothing compared**: {text(nothing)}.\n\n")
        return
    counts = {"error": 0, "warning": 0, "info": 0, "waived": 0}  # the verdict and advice are in the answers' row
    for change in pair.changes:
        counts["waived" if change.waived else change.severity.value] += 1
    out.write(f"{counts_text(counts).capitalize()}"
              f"{f', {pair.shown_in_steps} more as in the consecutive pairs' if pair.shown_in_steps else ''}.\n\n")
    if _flows_add_to_the_answer(a):
        out.write("| writer → reader | forward: old reader, new writer | backward: new reader, old writer |\n"
                  "|---|---|---|\n")
        for flow, forward, backward in flows_table(a):
            out.write(f"| {text(flow)} | {forward} | {backward} |\n")
        out.write("\n")
    if not r.findings:
        out.write("No changes on the wire.\n\n")
        return
    for change in pair.changes:
        waived = " (waived)" if change.waived else ""
        worst = {v for _, _, v in change.verdicts()}
        mark = MARK["breaking"] if "breaking" in worst else MARK["unknown"] if "unknown" in worst else "·"
        places = "; ".join(", ".join(code(kind, table=False) for kind in kinds) + f" ({text(place)})"
                           for place, kinds in places_of(change))
        verdict = change_verdict(change)
        out.write(f"- {mark} **{change.severity.value}{waived}** {code(change.title, table=False)}"
                  f"{' — ' + text(verdict) if verdict else ''}; in {places}\n")
        for statement in member_statements(change):
            lead, listed = statement.parts()
            items = Statement.listed(listed, lambda name: code(name, table=False))
            out.write(f"  - {code(lead, table=False) + ': ' if lead else ''}{text(statement.what)} "
                      f"{code(statement.rule, table=False)}{items}\n")
        for witness in change.witnesses():
            payload = short_payload(witness.payload, witness_path(change, witness))
            out.write(f"  - witness {witness.direction}/{witness.view} {code(payload, table=False)} — "
                      f"{witness.rejected_by} rejects: {text(witness.reason)}\n")
    out.write("\n")
