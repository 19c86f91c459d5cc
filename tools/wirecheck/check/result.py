"""A conformance run's result, as a value that merges.

A run over several captures is the merge of its captures' results, in any grouping and any order: `merge` is
associative and commutative and gives exactly what one sequential run over the same captures gives. That is what
lets `-j N` and a Dask cluster check captures apart and still print one answer.

Memory does not grow with the number of captures or findings: the first MAX_LISTED findings of each (check, kind,
severity) in the run are listed, in capture order; the rest are counted (summary, coverage and verdict stay exact)
and one FINDINGS_OMITTED note per such group says how many were left out. Likewise a capture's summary is kept when
it is among the run's first MAX_LISTED captures, holds a listed finding, or is among the first MAX_LISTED that could
not be read; every capture is counted.

Each of these is a "first N in capture order" rule, and the first N of a union are the first N of the parts' first
N: that is why merging in any grouping gives the sequential answer.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from wirecheck import exitcodes
from wirecheck.contracts.model import ContractRelease, MessageKind
from wirecheck.findings import Finding, Severity

# Findings listed per (check, kind, severity) in a run: past this many they are counted, not kept. A capture
# checked against the wrong release has one finding per line; a fleet of captures one or more per capture.
MAX_LISTED = 1000

GroupKey = tuple[str, str | None, Severity]  # (check, kind, severity)

# A run's verdicts, worst first, and the exit code each gives (see CheckResult.verdict).
UNREADABLE = "unreadable"  # a capture could not be read (a device, a named pipe nobody wrote to, no permission)
NOTHING_RECOGNISED = "nothing-recognised"  # no message was of a kind of the release: wrong file or wrong release
FAILS = "fails"  # a finding at or above --fail-on
BELOW_MIN_COVERAGE = "below-min-coverage"  # fewer of the release's kinds exercised than --min-coverage asks
CONFORMS = "conforms"
VERDICT_EXIT = {
    UNREADABLE: exitcodes.USAGE,
    NOTHING_RECOGNISED: exitcodes.INCONCLUSIVE,
    FAILS: exitcodes.FINDINGS,
    BELOW_MIN_COVERAGE: exitcodes.INCONCLUSIVE,
    CONFORMS: exitcodes.CONFORMS,
}


@dataclass
class KindCoverage:
    kind: MessageKind
    seen: int = 0
    errors: int = 0
    warnings: int = 0
    unjudged: int = 0  # of those seen, messages whose body the record left out: classified, their content unknown

    @property
    def judged(self) -> int:
        """Messages of this kind whose content was checked: what a requirement on the kind can count as exercising
        it (a HAR that leaves every body out certifies nothing about them)."""
        return self.seen - self.unjudged


@dataclass
class CaptureSummary:
    file: str
    form: str | None
    messages: int = 0
    index: int = 0  # the capture's place in the run: merged results keep this order
    findings: list[Finding] = field(default_factory=list)  # this capture's listed findings, in the order found
    unreadable: str | None = None  # why the capture could not be read (it then counts no messages)


@dataclass(frozen=True, order=True)
class Omission:
    """Findings of one group counted but not listed: where the first of them was found, and how many."""

    first: int  # the index of the capture the first omitted finding came from
    file: str  # that capture's label
    count: int = 0


@dataclass
class CheckResult:
    release: ContractRelease
    captures: list[CaptureSummary]
    coverage: dict[str, KindCoverage]
    messages: int = 0
    unclassified: int = 0
    fail_on: Severity = Severity.ERROR  # the lowest severity that fails this run (--fail-on): every report uses it
    omitted: dict[GroupKey, Omission] = field(default_factory=dict)  # findings counted past MAX_LISTED
    capture_count: int = 0  # every capture of the run, listed in `captures` or not
    unreadable_count: int = 0  # captures that could not be read
    min_coverage: float | None = None  # --min-coverage: the fraction of the release's kinds a conforming run exercises
    # behaviour obligation id → how many times the run judged it (check/sequences.py, check/outcome.py): what
    # exercises its requirement; one never judged was not shown by these captures, neither kept nor broken
    judged: dict[str, int] = field(default_factory=dict)

    @property
    def classified(self) -> int:
        return self.messages - self.unclassified

    @property
    def verdict(self) -> str:
        """The run's verdict, which every report shows and the exit code follows: unreadable (a capture could not
        be read: what it held is not known, so nothing said of the others is the answer; a usage error), else
        nothing recognised (not one message of a kind of the release, however few the findings: a gate pointed at
        the wrong file or release must not pass), else fails (a finding at or above --fail-on), else below the
        coverage asked for, else conforms."""
        if self.unreadable_count:
            return UNREADABLE
        if self.classified == 0:
            return NOTHING_RECOGNISED
        if self.fails():
            return FAILS
        # exercised/total < min, in integers where the fraction is exact (0.7 of 10 kinds is 7, not 7.000…01)
        if self.min_coverage is not None and len(self.exercised) < round(self.min_coverage * len(self.coverage), 9):
            return BELOW_MIN_COVERAGE
        return CONFORMS

    @property
    def exit_code(self) -> int:
        return VERDICT_EXIT[self.verdict]

    @property
    def findings(self) -> list[Finding]:
        """Every listed finding in capture order, then one FINDINGS_OMITTED note (info) per group that had more."""
        listed = [finding for capture in self.captures for finding in capture.findings]
        return listed + self._notes()

    def _notes(self) -> list[Finding]:
        where = "in this capture" if len(self.captures) == 1 else "in this run"
        return [
            Finding(code="FINDINGS_OMITTED", severity=Severity.INFO, file=omission.file, kind=kind, message=(
                f"{omission.count} more {code} {severity.value}s" + (f" on {kind}" if kind else "")
                + f" {where} are counted in the summary but not listed (the first {MAX_LISTED} are)"))
            for (code, kind, severity), omission in sorted(self.omitted.items(), key=_note_order)
        ]

    def count(self, severity: Severity) -> int:
        listed = sum(1 for capture in self.captures for f in capture.findings if f.severity is severity)
        omitted = sum(o.count for (_, _, s), o in self.omitted.items() if s is severity)
        notes = len(self.omitted) if severity is Severity.INFO else 0
        return listed + omitted + notes

    def failing(self, finding: Finding) -> bool:
        return finding.severity.rank >= self.fail_on.rank

    def fails(self, fail_on: Severity | None = None) -> bool:
        threshold = (fail_on or self.fail_on).rank
        return any(self.count(severity) for severity in Severity if severity.rank >= threshold)

    @property
    def exercised(self) -> list[str]:
        return [k for k, c in self.coverage.items() if c.seen]

    @property
    def not_exercised(self) -> list[str]:
        return [k for k, c in self.coverage.items() if not c.seen]

    @property
    def unreadable(self) -> list[CaptureSummary]:
        return [capture for capture in self.captures if capture.unreadable is not None]


def empty_result(release: ContractRelease, fail_on: Severity = Severity.ERROR,
                 min_coverage: float | None = None) -> CheckResult:
    return CheckResult(release=release, captures=[], coverage={k.id: KindCoverage(k) for k in release.kinds},
                       fail_on=fail_on, min_coverage=min_coverage)


def group_of(finding: Finding) -> GroupKey:
    return (finding.code, finding.kind, finding.severity)


def merge(results: Iterable[CheckResult]) -> CheckResult:
    """One result for the union of the results' captures, as one sequential run over them in capture order would
    give. Each capture must appear in exactly one of the results (their indexes tell the order)."""
    results = list(results)
    if not results:
        raise ValueError("merge needs at least one result")
    first = results[0]
    for other in results[1:]:
        if (other.release.name != first.release.name or other.fail_on is not first.fail_on
                or other.min_coverage != first.min_coverage):
            raise ValueError(f"cannot merge results of {other.release.name} (--fail-on {other.fail_on.value}, "
                             f"--min-coverage {other.min_coverage}) into {first.release.name} (--fail-on "
                             f"{first.fail_on.value}, --min-coverage {first.min_coverage})")
    merged = empty_result(first.release, first.fail_on, first.min_coverage)
    for result in results:
        merged.messages += result.messages
        merged.unclassified += result.unclassified
        merged.capture_count += result.capture_count
        merged.unreadable_count += result.unreadable_count
        for kind_id, cov in result.coverage.items():
            into = merged.coverage[kind_id]
            into.seen += cov.seen
            into.errors += cov.errors
            into.warnings += cov.warnings
            into.unjudged += cov.unjudged
        for key, omission in result.omitted.items():
            _omit(merged.omitted, key, omission)
        for obligation_id, count in result.judged.items():
            merged.judged[obligation_id] = merged.judged.get(obligation_id, 0) + count
    captures = sorted((c for r in results for c in r.captures), key=lambda c: c.index)
    indexes = [c.index for c in captures]
    if len(set(indexes)) != len(indexes):
        raise ValueError("a capture index appears in more than one result")
    # The first MAX_LISTED of each group, in capture order, stay listed; the rest become counts. A group a result
    # already cut holds MAX_LISTED listed findings before its omitted ones, so none of those can come earlier.
    listed: dict[GroupKey, int] = {}
    shown = CaptureListing()
    for capture in captures:
        kept = []
        for finding in capture.findings:
            key = group_of(finding)
            listed[key] = listed.get(key, 0) + 1
            if listed[key] <= MAX_LISTED:
                kept.append(finding)
            else:
                _omit(merged.omitted, key, Omission(capture.index, capture.file, 1))
        capture = replace(capture, findings=kept) if len(kept) != len(capture.findings) else capture
        if shown.keeps(capture):
            merged.captures.append(capture)
    return merged


class CaptureListing:
    """Which captures' summaries a result keeps, shown them in capture order (see the module docstring)."""

    def __init__(self) -> None:
        self.shown = 0
        self.unreadable = 0

    def keeps(self, capture: CaptureSummary) -> bool:
        first = self.shown < MAX_LISTED
        self.shown += 1
        if capture.unreadable is not None:
            self.unreadable += 1
            return first or self.unreadable <= MAX_LISTED
        return first or bool(capture.findings)


def _note_order(item: tuple[GroupKey, Omission]) -> tuple[int, str, str, str]:
    """Notes follow the capture where their group's omissions began, then the group: the same in any merge."""
    (code, kind, severity), omission = item
    return (omission.first, code, kind or "", severity.value)


def _omit(omitted: dict[GroupKey, Omission], key: GroupKey, omission: Omission) -> None:
    earlier = omitted.get(key)
    if earlier is None:
        omitted[key] = omission
    else:
        start = min(earlier, omission)
        omitted[key] = Omission(start.first, start.file, earlier.count + omission.count)
