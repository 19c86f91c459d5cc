"""Numbers every report shows, computed once."""

from __future__ import annotations

from dataclasses import dataclass

from wirecheck.check.engine import CheckResult
from wirecheck.findings import Severity, printable


@dataclass(frozen=True)
class Totals:
    verdict: str  # conforms | fails | nothing-recognised | below-min-coverage | unreadable (CheckResult.verdict)
    messages: int
    classified: int
    unclassified: int
    errors: int
    warnings: int
    infos: int
    kinds_total: int
    kinds_exercised: int
    captures: int  # every capture of the run (reports may list only some: see check/result.py)
    unreadable: int  # captures that could not be read (the run's exit code is then 2)
    min_coverage: float | None  # --min-coverage, when given


def totals(result: CheckResult) -> Totals:
    return Totals(
        verdict=result.verdict,  # by the run's --fail-on and --min-coverage, as its exit code
        messages=result.messages,
        classified=result.messages - result.unclassified,
        unclassified=result.unclassified,
        errors=result.count(Severity.ERROR),
        warnings=result.count(Severity.WARNING),
        infos=result.count(Severity.INFO),
        kinds_total=len(result.coverage),
        kinds_exercised=len(result.exercised),
        captures=result.capture_count,
        unreadable=result.unreadable_count,
        min_coverage=result.min_coverage,
    )


def headline(t: Totals) -> str:
    """The verdict in words: `CONFORMS`, `FAILS`, `NOTHING RECOGNISED`, `BELOW MIN COVERAGE`, `UNREADABLE`."""
    return t.verdict.replace("-", " ").upper()


def finding_line(f) -> str:
    """One finding on one line (`printable(line=True)`): location, severity, code, sender (framed captures), kind,
    pointer, message, expected/found."""
    parts = [f.location, f.severity.value, f.code]
    if f.sender:
        parts.append(f"from {f.sender}")
    if f.kind:
        parts.append(f"[{f.kind}]")
    if f.pointer:
        parts.append(f.pointer)
    text = "  ".join(parts) + f"  {f.message}"
    detail = [f"{label} {value}" for label, value in (("expected", f.expected), ("found", f.found)) if value]
    if detail:
        text += f" ({'; '.join(detail)})"
    return printable(text, line=True)  # a file name or member name with a line feed does not split the line


def counted(n: int, what: str) -> str:
    """`1 error`, `2 errors`, `0 warnings`."""
    return f"{n} {what}" + ("" if n == 1 else "s")


def verdict_line(result: CheckResult) -> str:
    """`FAILS: 3 messages (none unclassified), 1 error, 2 warnings`: the line every text summary ends with; a run
    with captures it could not read says so first (`UNREADABLE: 1 of 2 captures could not be read; ...`)."""
    t = totals(result)
    unread = f"{t.unreadable} of {t.captures} captures could not be read; " if t.unreadable else ""
    unclassified = f"{t.unclassified} unclassified" if t.unclassified else "none unclassified"
    return (f"{headline(t)}: {unread}{counted(t.messages, 'message')} ({unclassified}), "
            f"{counted(t.errors, 'error')}, {counted(t.warnings, 'warning')}{f', {t.infos} info' if t.infos else ''}")
