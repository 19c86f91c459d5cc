"""One diff run as reporters see it: the pair results, waiver findings, the options and the gate decision."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from wirecheck.diff.gate import GateDecision, decide
from wirecheck.diff.model import DiffFinding, DiffResult
from wirecheck.diff.options import DiffOptions

if TYPE_CHECKING:
    from wirecheck.diff.package import PackageDiff  # built by `wirecheck diff`, which imports it


@dataclass(frozen=True)
class DiffRun:
    results: tuple[DiffResult, ...]
    options: DiffOptions = DiffOptions()  # noqa: RUF009  (frozen, so one shared default is safe)
    fail_on: str = "breaking"  # breaking | warning | never
    waiver_findings: tuple[DiffFinding, ...] = ()
    packages: tuple[PackageDiff, ...] = ()
    undecided: str = "fail"  # --undecided: fail | pass (gate.UNDECIDED_CHOICES)

    def findings(self) -> list[DiffFinding]:
        return [f for r in self.results for f in r.findings] + list(self.waiver_findings)

    def counts(self) -> dict[str, int]:
        counts = {"error": 0, "warning": 0, "info": 0, "waived": 0}
        for finding in self.findings():
            if finding.waived is not None:
                counts["waived"] += 1
            else:
                counts[finding.severity.value] += 1
        return counts

    @cached_property
    def gate(self) -> GateDecision:
        """The gate decision (diff/gate.py): the exit code and every report's gate line come from it."""
        return decide(self.results, self.options, self.fail_on, self.waiver_findings, self.undecided)

    def failing(self) -> list[DiffFinding]:
        """The findings that fail the gate (waiver problems included)."""
        return [r.finding for r in self.gate.reasons if r.finding is not None]

    def exit_code(self) -> int:
        return self.gate.exit_code
