"""One diff run as reporters see it: the pair results, waiver findings, the options and the gate."""

from __future__ import annotations

from dataclasses import dataclass

from wirecheck import exitcodes
from wirecheck.diff.model import DiffFinding, DiffResult
from wirecheck.diff.options import DiffOptions
from wirecheck.diff.package import PackageDiff
from wirecheck.findings import Severity

FAIL_ON = {"breaking": Severity.ERROR, "warning": Severity.WARNING}


@dataclass(frozen=True)
class DiffRun:
    results: tuple[DiffResult, ...]
    options: DiffOptions = DiffOptions()  # noqa: RUF009  (frozen, so one shared default is safe)
    fail_on: str = "breaking"  # breaking | warning | never
    waiver_findings: tuple[DiffFinding, ...] = ()
    packages: tuple[PackageDiff, ...] = ()

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

    def failing(self) -> list[DiffFinding]:
        threshold = FAIL_ON.get(self.fail_on)
        if threshold is None:
            return [f for f in self.waiver_findings]  # stale/expired waivers fail even with --fail-on never
        return [f for f in self.findings() if f.waived is None and f.severity.rank >= threshold.rank]

    def exit_code(self) -> int:
        return exitcodes.FINDINGS if self.failing() else exitcodes.CONFORMS
