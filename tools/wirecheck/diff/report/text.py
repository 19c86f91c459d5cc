"""Plain text for terminals and CI logs: one block per release pair, one line per finding, witnesses below."""

from __future__ import annotations

from typing import TextIO

from wirecheck.diff.model import DIRECTIONS, VIEWS
from wirecheck.diff.report.common import breaks_text, compatibility_rows, unique_witnesses, witness_text
from wirecheck.findings import printable_stream


def write(run, out: TextIO, show_info: bool = True) -> None:
    out = printable_stream(out)  # a capture's control characters are shown, not obeyed
    for result in run.results:
        jump = any(package.is_jump(result) for package in run.packages)
        out.write(f"{result.name}{'  (skips releases: it breaks what no single step breaks)' if jump else ''}\n")
        verdicts = ", ".join(f"{d}/{m} {v}" for d, m, v in compatibility_rows(result))
        out.write(f"  compatibility: {verdicts}\n")
        if result.version is not None:
            v = result.version
            wire = f"; wire {v.old_wire} → {v.new_wire}" if v.old_wire or v.new_wire else ""
            out.write(f"  version bump: {v.declared_bump} (changes require {v.required_bump}){wire}\n")
        for finding in result.findings:
            if finding.severity.value == "info" and not show_info:
                continue
            waived = f" [waived: {finding.waived}]" if finding.waived else ""
            where = f" {finding.path}" if finding.path else ""
            out.write(f"  {finding.severity.value:<7} {finding.rule} {finding.kind}"
                      f"{'' if finding.surface in ('schema', 'kind', 'release') else ' (' + finding.surface + ')'}"
                      f"{where}: {finding.message} [{breaks_text(finding)}] #{finding.fingerprint}{waived}\n")
            locations = [x for x in (finding.old_location and f"old {finding.old_location}",
                                     finding.new_location and f"new {finding.new_location}") if x]
            if locations:
                out.write(f"          at {'; '.join(locations)}\n")
            for witness in unique_witnesses(finding):
                out.write(f"          witness {witness_text(witness)}\n")
        if result.nothing_compared:
            out.write(f"  nothing compared: {result.nothing_compared}\n")
        elif not result.findings:
            out.write("  no changes on the wire\n")
    for package in run.packages:
        if len(package.releases) > 2:
            verdicts = ", ".join(f"{d}/{m} {package.transitive(d, m)}" for d in DIRECTIONS for m in VIEWS)
            out.write(f"{package.package} transitive (every earlier → every later release): {verdicts}\n")
    for finding in run.waiver_findings:
        out.write(f"{finding.severity.value:<7} {finding.rule}: {finding.message} ({finding.path})\n")
    counts = run.counts()
    out.write(
        f"{len(run.results)} release pair(s): {counts['error']} error(s), {counts['warning']} warning(s), "
        f"{counts['info']} info, {counts['waived']} waived; {run.gate.summary()}\n"
    )
