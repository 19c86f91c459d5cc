"""Plain text for terminals and CI logs: the answers first (one line per pair; the pairs without changes in one
line), a legend of the marks the report uses, then per pair its changes, each once, with its members and one
shortened witness per broken direction, and last the counts and the gate line. Fingerprints are ids for JSON,
SARIF and waivers files: the prose does not carry them."""

from __future__ import annotations

import io
import textwrap
from typing import TextIO

from wirecheck.diff.model import DIRECTIONS, VIEWS
from wirecheck.diff.report.common import (
    MARK,
    PairReport,
    RunReport,
    breaking_readers,
    build,
    change_counts,
    change_verdict,
    counts_text,
    gate_text,
    legend_for,
    member_statements,
    plural,
    unchanged_text,
    verdict_word,
    version_text,
    where_text,
    witness_path,
    witness_text,
)
from wirecheck.findings import printable, printable_stream

WIDTH = 118
WITNESSES = 2  # a change's witnesses shown; the other formats show them all


def write(run, out: TextIO) -> None:
    out = printable_stream(out)  # a schema's or capture's control characters are shown, not obeyed
    report = build(run)
    head, body = io.StringIO(), io.StringIO()
    answers(report, head)
    for pair in report.pairs:
        if pair.changes or pair.result.nothing_compared or pair.shown_in_steps:
            _details(pair, body)
    for package in run.packages:
        if len(package.releases) > 2:
            verdicts = ", ".join(f"{d}/{m} {package.transitive(d, m)}" for d in DIRECTIONS for m in VIEWS)
            body.write(f"\n{_line(package.package)} transitive (every earlier → every later release): {verdicts}\n")
        elif len(package.releases) < 2:
            releases = ", ".join(package.releases) or "none loadable"
            body.write("\n" + _line(f"{package.package}: one release ({releases}), nothing to compare") + "\n")
    for finding in run.waiver_findings:
        body.write(_line(f"{finding.severity.value} {finding.rule}: {finding.message} ({finding.path})") + "\n")
    out.write(head.getvalue())
    legend = legend_for(head.getvalue() + body.getvalue())
    if legend:
        out.write(_wrap("legend: " + "; ".join(f"{term}: {words}" for term, words in legend), ""))
    out.write(body.getvalue())
    listed = [p for p in report.pairs if p.changes]
    if len(listed) > 1:  # one pair's heading has its counts already
        out.write(f"\nin all, {counts_text(change_counts(report))}\n")
    elif not listed:
        out.write("\nno changes\n" if not any(p.result.nothing_compared for p in report.pairs) else "\n")
    out.write(f"{gate_text(run, report)}\n")


def answers(report: RunReport, out: TextIO) -> None:
    """The answers, one block per pair that changed: what breaks, the version verdict, what to do; the pairs
    without a change on the wire in one line."""
    unchanged = [p for p in report.pairs if _unchanged(p)]
    out.write(f"wirecheck diff: {plural(len(report.pairs), 'release pair')}"
              f"{', no changes on the wire' if len(unchanged) == len(report.pairs) and unchanged else ''}\n")
    for pair in report.pairs:
        if not _unchanged(pair) and not pair.jump:
            _answer(pair, out)
    jumps = [p for p in report.pairs if p.jump and not _unchanged(p)]
    if jumps:  # what to do follows from the steps; a jump's own line says what breaks across it
        out.write("  longer jumps that break where no single step shows it:\n")
        for pair in jumps:
            r, a = pair.result, pair.answer
            out.write(_wrap(f"{r.package} {r.old_version} → {r.new_version}: {verdict_word(a)}; {version_text(r, a)}",
                            "    "))
    if unchanged:
        out.write(_wrap(unchanged_text([p.result for p in unchanged]), "  "))


def _unchanged(pair: PairReport) -> bool:
    return not pair.result.findings and not pair.result.nothing_compared


def _answer(pair: PairReport, out: TextIO) -> None:
    r, a = pair.result, pair.answer
    jump = " (skips releases)" if pair.jump else ""
    out.write(_line(f"  {r.package} {r.old_version} → {r.new_version}{jump}: {verdict_word(a)}; {version_text(r, a)}")
              + "\n")
    if a.flows:
        out.write(_wrap(f"forward breaks: {breaking_readers(a, 'forward')}; backward breaks: "
                        f"{breaking_readers(a, 'backward')}", "      "))
    out.write(_wrap(f"do: {'; '.join(a.advice)}", "      "))


def _details(pair: PairReport, out: TextIO) -> None:
    r = pair.result
    counts = {"error": 0, "warning": 0, "info": 0, "waived": 0}
    for change in pair.changes:
        counts["waived" if change.waived else change.severity.value] += 1
    out.write("\n" + _line(f"{r.package} {r.old_version} → {r.new_version}{' (skips releases)' if pair.jump else ''}: "
                          f"{counts_text(counts)}"
                          f"{f', {pair.shown_in_steps} more as in the steps above' if pair.shown_in_steps else ''}")
              + "\n")
    nothing = r.nothing_compared
    if nothing:
        out.write(_line(f"  nothing compared: {nothing}") + "\n")
        return
    for change in pair.changes:
        waived = " (waived)" if change.waived else ""
        verdict = change_verdict(change)
        if change.where and change.where[0].surface in ("kind", "release") and len(change.findings) == 1:
            finding = change.findings[0]  # a finding about no schema (a version, a protocol rule): one line
            out.write(_wrap(f"{MARK.get(_worst(change), '·')} {change.severity.value}{waived} {finding.message} "
                            f"[{finding.rule}{'; ' + verdict if verdict else ''}]", "  "))
            continue
        where = "" if change.where[0].surface == "kind" else f"; in {where_text(change)}"  # kinds: the members
        statements = member_statements(change)
        title = change.title
        if len(statements) == 1 and statements[0].text().startswith(title + " ["):
            title, statements = statements[0].text(), []  # the change is its one statement: said once
        out.write(_wrap(f"{MARK.get(_worst(change), '·')} {change.severity.value}{waived} {title}: "
                        f"{verdict}{where}", "  "))
        if statements:
            out.write(_wrap("; ".join(statement.text() for statement in statements), "      "))
        witnesses = change.witnesses()
        for witness in witnesses[:WITNESSES]:
            said = witness_text(witness, witness_path(change, witness), limit=50, reason_limit=100)
            out.write(_wrap(f"witness {said}", "      "))
        if len(witnesses) > WITNESSES:
            out.write(f"      and {plural(len(witnesses) - WITNESSES, 'more witness', 'more witnesses')} "
                      "(--format markdown, html or json)\n")


def _worst(change) -> str:
    verdicts = {v for _, _, v in change.verdicts()}
    return "breaking" if "breaking" in verdicts else "unknown" if "unknown" in verdicts else \
        "safe" if any(f.verdicts for f in change.findings) else "none"


def _line(text: str) -> str:
    """One line of the report: a line feed or tab in a name it holds is shown (`\\x0a`), splitting nothing."""
    return printable(text, line=True)


def _wrap(text: str, indent: str) -> str:
    """`text` wrapped into lines of the report; a line feed or tab in a name it holds is shown (`\\x0a`), not read
    as a break (textwrap would turn it into a space)."""
    return "\n".join(textwrap.wrap(_line(text), WIDTH, initial_indent=indent,
                                   subsequent_indent=indent + "  ", break_long_words=False,
                                   break_on_hyphens=False)) + "\n"
