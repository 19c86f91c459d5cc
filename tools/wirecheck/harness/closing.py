"""The closing verdict of a live tier: per release of the program under test, the worst of its rows and which row
made it; for the tier, the worst of those, as its exit code. Rows are certifications (verdict and exit code: certify's
VERDICT_EXIT), so the codes mean what they mean everywhere (wirecheck.exitcodes): 0 certified, 4 incomplete, 1 not
certified (a requirement failed, or the run failed after the program spoke: a scenario step, a hang, a wrong exit
status), 5 run failed (nothing was heard from the program), 2 the tier could not run it at all. Worst first: a run
that heard nothing, then what could not be run, then a failure, then a gap; a pass last."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from wirecheck import exitcodes

# exit codes from best to worst
ORDER = (exitcodes.CONFORMS, exitcodes.INCONCLUSIVE, exitcodes.FINDINGS, exitcodes.USAGE, exitcodes.RUN_FAILED)


def worst(codes: Iterable[int]) -> int:
    """The worst of exit codes (0 when there are none)."""
    return max(codes, key=ORDER.index, default=exitcodes.CONFORMS)


@dataclass(frozen=True)
class Closing:
    subject: str  # the release of the program under test: "claude-code@2.1.332"
    verdict: str
    exit_code: int
    made_by: str  # the row that decided it ("" when every row passed)

    def line(self) -> str:
        because = f" — {self.made_by}" if self.made_by else ""
        return f"closing verdict {self.subject}: {self.verdict.upper()} (exit {self.exit_code}){because}"


def closing(subject: str, rows: Sequence[tuple[str, str, int]]) -> Closing:
    """The closing verdict of `subject` from its rows (what the row is, its verdict, its exit code): the worst, and
    the first row that has it. No rows: nothing was certified, a run failure."""
    if not rows:
        return Closing(subject, "run failed", exitcodes.RUN_FAILED, "no row was certified")
    code = worst(code for _, _, code in rows)
    what, verdict, _ = next(row for row in rows if row[2] == code)
    return Closing(subject, verdict, code, "" if code == exitcodes.CONFORMS else f"{what}: {verdict}")
