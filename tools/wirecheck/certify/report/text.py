"""Plain text for a terminal: verdict, scores, then the requirements that are not plain passes, in groups apart:
failures (with their findings), requirements passed over warnings (what the reading side tolerates), requirements
not exercised, and requirements the scope file declares out of scope."""

from __future__ import annotations

from typing import TextIO

from wirecheck.certify.evaluate import NOT_EXERCISED, OUT_OF_SCOPE, PASS, STALE_SCOPE, Certification
from wirecheck.findings import printable, printable_stream
from wirecheck.report.summary import finding_line

SHOWN_FINDINGS = 5


def _line(text: str) -> str:
    """A scope file's reason, a program's words: shown on their line, a line feed in them escaped."""
    return printable(text, line=True)


def write(cert: Certification, out: TextIO) -> None:
    out = printable_stream(out)  # a capture's control characters are shown, not obeyed
    scope = f" (role {cert.role})" if cert.role else ""
    if cert.run_failed:
        out.write(f"{cert.contract}{scope}: RUN FAILED — nothing was heard from the implementation, so nothing was "
                  "certified\n")
    else:
        out.write(f"{cert.contract}{scope}: {cert.verdict.upper()} — {cert.badge.message}\n")
    implementation = ((cert.identity or {}).get("run") or {}).get("implementation")
    if implementation:
        out.write(f"  implementation: {_line(str(implementation))}\n")
    if cert.run is not None and not cert.run_ok:
        out.write(f"  run: {cert.run_problem}{cert.run_status}\n")
        if cert.program_words:
            out.write(f"  the program said: \"{_line(cert.program_words)}\"\n")
    for score in cert.scores:
        if score.total and not cert.run_failed:
            out.write(f"  {score.level:<6} {score.passed}/{score.in_scope} passed, {score.failed} failed, "
                      f"{score.not_exercised} not exercised, {score.out_of_scope} out of scope, "
                      f"{score.expected_failures} expected failures, "
                      f"{score.unexpected_passes + score.stale_scope} stale scope-file entries\n")
    if cert.run_failed:  # nothing heard: every requirement is unexercised, no news
        out.write(f"{cert.gate_line}\n")
        return
    judged = [r for r in cert.results if r.status not in (PASS, NOT_EXERCISED, OUT_OF_SCOPE)]
    if judged:
        out.write("Failed or stale:\n")
    for result in judged:
        req = result.requirement
        out.write(f"{result.status.upper():<15} {req.level:<6} {req.id}  ({req.link.element})\n")
        if result.baseline_reason:
            out.write(f"    baseline: {_line(result.baseline_reason)}\n")
        if result.scope is not None:
            exercised = ("exercised and passed: remove the entry" if result.status == STALE_SCOPE
                         else "but it was exercised")
            out.write(f"    declared out of scope ({_line(result.scope.reason)}), {exercised}\n")
        for finding in result.failures[:SHOWN_FINDINGS]:
            out.write(f"    {finding_line(finding)}\n")
        if len(result.failures) > SHOWN_FINDINGS:
            out.write(f"    … {len(result.failures) - SHOWN_FINDINGS} more\n")
    tolerated = cert.passed_with_warnings()
    if tolerated:
        out.write("Passed with warnings (what the reading side tolerates):\n")
    for result in tolerated:
        req = result.requirement
        out.write(f"{'PASS':<15} {req.level:<6} {req.id}  ({req.link.element})\n")
        for finding in result.warnings[:SHOWN_FINDINGS]:
            out.write(f"    {finding_line(finding)}\n")
        if len(result.warnings) > SHOWN_FINDINGS:
            out.write(f"    … {len(result.warnings) - SHOWN_FINDINGS} more\n")
    gaps = [r for r in cert.results if r.status == NOT_EXERCISED]
    if gaps:
        levels = cert.failing_levels()
        out.write("Not exercised (not failed, not passed; declare what this run cannot reach in a scope file):\n")
        for result in gaps:
            req = result.requirement
            mark = "NOT_EXERCISED" if req.level in levels and result.gap else "not exercised"
            optional = " — optional: none was needed in this run" if not result.gap else ""
            out.write(f"{mark:<15} {req.level:<6} {req.id}  ({req.link.element}){optional}\n")
    outside = cert.out_of_scope()
    if outside:
        out.write("Out of scope for this run (scope file):\n")
        for result in outside:
            req = result.requirement
            assert result.scope is not None
            out.write(f"{'OUT_OF_SCOPE':<15} {req.level:<6} {req.id}  ({req.link.element})\n")
            out.write(f"    reason: {_line(result.scope.reason)}\n    evidence: {_line(result.scope.evidence)}\n")
    if cert.unmapped:
        out.write(f"{len(cert.unmapped)} finding(s) no requirement covers:\n")
        for finding in cert.unmapped[:SHOWN_FINDINGS]:
            out.write(f"    {finding_line(finding)}\n")
    out.write(f"{cert.gate_line}\n")
