"""Markdown (a PR comment, a per-pair report): the answers in one table, a legend, the gate line, then per pair
its flows and its changes, each once, with fingerprints and shortened witnesses. Everything from a schema is
escaped (`markdown_text`): a renderer never sees it as HTML or markup."""

from __future__ import annotations

from typing import TextIO

from wirecheck.diff.report.common import (
    LATENT_WORD,
    LEGEND,
    MARK,
    PairReport,
    RunReport,
    breaking_readers,
    build,
    change_verdict,
    flows_table,
    member_statements,
    short_payload,
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
    answers(report, out, links)
    legend(out)
    gate = run.gate  # the run's one decision (diff/gate.py), the one the exit code is
    why = f"; {gate.why()}" if gate.why() else ""
    out.write(f"Gate `--fail-on {gate.fail_on}`: **{gate.verdict}** ({text(gate.protects + why)}).\n\n")
    if links is None:
        for pair in report.pairs:
            details(pair, out)
    if run.waiver_findings:
        out.write("## Waivers\n\n")
        for f in run.waiver_findings:
            out.write(f"- {code(f.rule, table=False)} {text(f.message)} ({code(f.path, table=False)})\n")
        out.write("\n")
    single = [p for p in run.packages if len(p.releases) < 2]
    for package in single:
        out.write(f"{text(package.package)}: one release ({text(', '.join(package.releases) or 'none loadable')}), "
                  "nothing to compare.\n\n")


def answers(report: RunReport, out: TextIO, links: dict[str, str] | None = None) -> None:
    out.write("| pair | verdict | old readers that break (forward) | new readers that break (backward) | version "
              "| what to do |\n|---|---|---|---|---|---|\n")
    for pair in report.pairs:
        r, a = pair.result, pair.answer
        target = (links or {}).get(pair.anchor, "") + "#" + pair.anchor
        name = f"{r.package} {r.old_version} → {r.new_version}" + (" (skips releases)" if pair.jump else "")
        out.write(f"| [{text(name)}]({target}) | {_ICON[verdict_word(a)]} | {text(breaking_readers(a, 'forward'))} "
                  f"| {text(breaking_readers(a, 'backward'))} | {text(version_text(r, a))} | "
                  f"{text('; '.join(a.advice))} |\n")
    out.write("\n")


def legend(out: TextIO) -> None:
    out.write("Legend: " + "; ".join(f"**{text(term)}**: {text(words)}" for term, words in LEGEND) + ".\n\n")


def details(pair: PairReport, out: TextIO) -> None:
    r, a = pair.result, pair.answer
    out.write(f'<a id="{pair.anchor}"></a>\n\n## {text(r.package)} {text(r.old_version)} → {text(r.new_version)}\n\n')
    nothing = r.nothing_compared
    if nothing:
        out.write(f"**Nothing compared**: {text(nothing)}.\n\n")
        return
    out.write(f"{_ICON[verdict_word(a)]}; {text(version_text(r, a))}. What to do: {text('; '.join(a.advice))}.\n\n")
    if a.flows:
        out.write("| writer → reader | forward: old reader, new writer | backward: new reader, old writer |\n"
                  "|---|---|---|\n")
        for flow, forward, backward in flows_table(a):
            out.write(f"| {text(flow)} | {forward} | {backward} |\n")
        out.write("\n")
    if not r.findings:
        out.write("No changes on the wire.\n\n")
        return
    if pair.shown_in_steps:
        out.write(f"{pair.shown_in_steps} more change(s) as in the consecutive pairs above.\n\n")
    for change in pair.changes:
        waived = " (waived)" if change.waived else ""
        worst = {v for _, _, v in change.verdicts()}
        mark = MARK["breaking"] if "breaking" in worst else MARK["unknown"] if "unknown" in worst else "·"
        places = ", ".join(f"{code(w.kind, table=False)} ({text(w.text()[len(w.kind) + 2:-1])})"
                           for w in change.where)
        out.write(f"- {mark} **{change.severity.value}{waived}** {code(change.title, table=False)} — "
                  f"{text(change_verdict(change))}; in {places}\n")
        for statement in member_statements(change):
            lead, listed = statement.parts()
            items = ", ".join(" ".join([code(name, table=False)] * bool(name) + [code("#" + fp, table=False)
                                                                                  for fp in fps])
                              for name, fps in listed)
            out.write(f"  - {code(lead, table=False) + ': ' if lead else ''}{text(statement.what)} "
                      f"{code(statement.rule, table=False)}: {items}\n")
        for witness in change.witnesses():
            payload = short_payload(witness.payload, witness_path(change, witness))
            out.write(f"  - witness {witness.direction}/{witness.view} {code(payload, table=False)} — "
                      f"{witness.rejected_by} rejects: {text(witness.reason)}\n")
    out.write("\n")
