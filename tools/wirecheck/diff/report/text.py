"""Plain text for terminals and CI logs: the answers first (one line per pair), a legend, then per pair its
changes, each once, with its members, fingerprints and one shortened witness per broken direction."""

from __future__ import annotations

import textwrap
from typing import TextIO

from wirecheck.diff.model import DIRECTIONS, VIEWS
from wirecheck.diff.report.common import (
    LEGEND,
    MARK,
    PairReport,
    RunReport,
    breaking_readers,
    build,
    change_verdict,
    member_statements,
    verdict_word,
    version_text,
    where_text,
    witness_path,
    witness_text,
)
from wirecheck.findings import printable_stream

WIDTH = 118


def write(run, out: TextIO) -> None:
    out = printable_stream(out)  # a schema's or capture's control characters are shown, not obeyed
    report = build(run)
    answers(report, out)
    out.write("legend: " + "; ".join(f"{term}: {text}" for term, text in LEGEND[:3]) + "\n")
    for pair in report.pairs:
        _details(pair, out)
    for package in run.packages:
        if len(package.releases) > 2:
            verdicts = ", ".join(f"{d}/{m} {package.transitive(d, m)}" for d in DIRECTIONS for m in VIEWS)
            out.write(f"\n{package.package} transitive (every earlier → every later release): {verdicts}\n")
        elif len(package.releases) < 2:
            out.write(f"\n{package.package}: one release ({', '.join(package.releases) or 'none loadable'}), "
                      "nothing to compare\n")
    for finding in run.waiver_findings:
        out.write(f"{finding.severity.value} {finding.rule}: {finding.message} ({finding.path})\n")
    counts = run.counts()
    out.write(f"\n{counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} info, "
              f"{counts['waived']} waived; {report.gate_line}\n")


def answers(report: RunReport, out: TextIO) -> None:
    """The answers, one block per pair: what breaks, the version verdict, what to do."""
    out.write(f"wirecheck diff: {len(report.pairs)} release pair(s)\n")
    for pair in report.pairs:
        _answer(pair, out)


def _answer(pair: PairReport, out: TextIO) -> None:
    r, a = pair.result, pair.answer
    jump = " (skips releases)" if pair.jump else ""
    out.write(f"  {r.package} {r.old_version} → {r.new_version}{jump}: {verdict_word(a)}; {version_text(r, a)}\n")
    if a.flows:
        out.write(_wrap(f"forward breaks: {breaking_readers(a, 'forward')}; backward breaks: "
                        f"{breaking_readers(a, 'backward')}", "      "))
    out.write(_wrap(f"do: {'; '.join(a.advice)}", "      "))


def _details(pair: PairReport, out: TextIO) -> None:
    r = pair.result
    out.write(f"\n{r.package} {r.old_version} → {r.new_version}: {len(pair.changes)} change(s)"
              f"{f', {pair.shown_in_steps} more as in the steps above' if pair.shown_in_steps else ''}\n")
    nothing = r.nothing_compared
    if nothing:
        out.write(f"  nothing compared: {nothing}\n")
        return
    if not r.findings:
        out.write("  no changes on the wire\n")
    for change in pair.changes:
        waived = " (waived)" if change.waived else ""
        if change.where and change.where[0].surface in ("kind", "release") and len(change.findings) == 1:
            finding = change.findings[0]  # a finding about no schema (a version, a protocol rule): one line
            out.write(_wrap(f"{MARK.get(_worst(change), '·')} {change.severity.value}{waived} {finding.message} "
                            f"[{finding.rule}; {change_verdict(change)}] #{finding.fingerprint}", "  "))
            continue
        where = "" if change.where[0].surface == "kind" else f"; in {where_text(change)}"  # kinds: the members
        out.write(_wrap(f"{MARK.get(_worst(change), '·')} {change.severity.value}{waived} {change.title}: "
                        f"{change_verdict(change)}{where}", "  "))
        out.write(_wrap("; ".join(statement.text() for statement in member_statements(change)), "      "))
        for witness in change.witnesses():
            out.write(_wrap(f"witness {witness_text(witness, witness_path(change, witness), limit=50)}", "      "))


def _worst(change) -> str:
    verdicts = {v for _, _, v in change.verdicts()}
    return "breaking" if "breaking" in verdicts else "unknown" if "unknown" in verdicts else \
        "safe" if any(f.verdicts for f in change.findings) else "none"


def _wrap(text: str, indent: str) -> str:
    return "\n".join(textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=indent + "  ",
                                   break_long_words=False, break_on_hyphens=False)) + "\n"
