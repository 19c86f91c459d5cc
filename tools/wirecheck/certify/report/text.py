"""Plain text for a terminal: verdict, scores, then every requirement that is not passed, with its findings."""

from __future__ import annotations

from typing import TextIO

from wirecheck.certify.evaluate import PASS, Certification
from wirecheck.findings import printable_stream
from wirecheck.report.summary import finding_line

SHOWN_FINDINGS = 5


def write(cert: Certification, out: TextIO) -> None:
    out = printable_stream(out)  # a capture's control characters are shown, not obeyed
    scope = f" (role {cert.role})" if cert.role else ""
    if cert.run_failed:
        out.write(f"{cert.contract}{scope}: RUN FAILED — nothing was heard from the implementation, so nothing was "
                  "certified\n")
    else:
        out.write(f"{cert.contract}{scope}: {cert.verdict.upper()} — {cert.badge.message}\n")
    if cert.run is not None and not cert.run_ok:
        out.write(f"  run: {cert.run_problem}{cert.run_status}\n")
        if cert.program_words:
            out.write(f"  the program said: \"{cert.program_words}\"\n")
    for score in cert.scores:
        if score.total and not cert.run_failed:
            out.write(f"  {score.level:<6} {score.passed}/{score.total} passed, {score.failed} failed, "
                      f"{score.not_exercised} not exercised, {score.expected_failures} expected failures, "
                      f"{score.unexpected_passes} stale baseline entries\n")
    for result in cert.results:
        if result.status == PASS or cert.run_failed:  # nothing heard: every requirement is unexercised, no news
            continue
        req = result.requirement
        out.write(f"{result.status.upper():<15} {req.level:<6} {req.id}  ({req.link.element})\n")
        if result.baseline_reason:
            out.write(f"    baseline: {result.baseline_reason}\n")
        for finding in result.failures[:SHOWN_FINDINGS]:
            out.write(f"    {finding_line(finding)}\n")
        if len(result.failures) > SHOWN_FINDINGS:
            out.write(f"    … {len(result.failures) - SHOWN_FINDINGS} more\n")
    if cert.unmapped:
        out.write(f"{len(cert.unmapped)} finding(s) no requirement covers:\n")
        for finding in cert.unmapped[:SHOWN_FINDINGS]:
            out.write(f"    {finding_line(finding)}\n")
    out.write(f"{cert.gate_line}\n")
