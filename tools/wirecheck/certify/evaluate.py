"""Judge an engine result against a requirement set: per requirement pass / fail / not exercised / out of scope,
scores per level, a verdict (certified, not certified, incomplete, run failed) and a compatibility badge. Pure: values
in, a `Certification` out."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from wirecheck import exitcodes
from wirecheck.certify.baseline import EMPTY, Baseline, OutOfScope
from wirecheck.certify.requirements import LEVELS, Requirement, RequirementSet
from wirecheck.check.engine import CheckResult, KindCoverage
from wirecheck.findings import Finding, Severity
from wirecheck.programs.tail import last_words

# Statuses. A failure fails the run (NOT CERTIFIED); "not exercised" is not a pass either, but not a failure: it
# leaves the run INCOMPLETE, unless the scope file declares the requirement out of scope for this run (OUT_OF_SCOPE,
# with its reason and evidence). A baselined failure does not fail the run; a baselined requirement that passes does
# (the entry is stale), and so does an out-of-scope requirement that was exercised and passed (STALE_SCOPE).
PASS, FAIL, NOT_EXERCISED = "pass", "fail", "not_exercised"
EXPECTED_FAIL, UNEXPECTED_PASS = "expected_fail", "unexpected_pass"
OUT_OF_SCOPE, STALE_SCOPE = "out_of_scope", "stale_scope"
STATUSES = (PASS, FAIL, NOT_EXERCISED, EXPECTED_FAIL, UNEXPECTED_PASS, OUT_OF_SCOPE, STALE_SCOPE)
STALE = (UNEXPECTED_PASS, STALE_SCOPE)  # a scope-file entry that the run shows wrong: fails the run at any level

# Verdicts, and the exit code each gives.
CERTIFIED, NOT_CERTIFIED, INCOMPLETE, RUN_FAILED = "certified", "not certified", "incomplete", "run failed"


@dataclass(frozen=True)
class RequirementResult:
    requirement: Requirement
    status: str
    exercised: int  # how many messages exercised it
    failures: tuple[Finding, ...] = ()  # the findings that fail it
    notes: tuple[Finding, ...] = ()  # matched findings below its failing severity (e.g. unknown fields on a kind)
    baseline_reason: str | None = None
    scope: OutOfScope | None = None  # the scope file declares it out of scope (whether or not that held)

    @property
    def warnings(self) -> tuple[Finding, ...]:
        """What the reading side tolerates among the matched findings below the failing severity: a requirement
        that passes over them is reported with them in every format (`Certification.passed_with_warnings`)."""
        return tuple(f for f in self.notes if f.severity is Severity.WARNING)

    @property
    def gap(self) -> bool:
        """Not exercised where it had to be: a requirement whose kind need not be sent (`exercise: optional`, a
        renewal when no lease would have lapsed) that was not is no gap."""
        return self.status == NOT_EXERCISED and not self.requirement.optional


@dataclass(frozen=True)
class LevelScore:
    level: str
    total: int = 0
    passed: int = 0
    failed: int = 0
    not_exercised: int = 0
    expected_failures: int = 0
    unexpected_passes: int = 0
    out_of_scope: int = 0
    stale_scope: int = 0

    @property
    def in_scope(self) -> int:
        return self.total - self.out_of_scope

    @property
    def score(self) -> float:
        """Passed among the requirements in scope (out-of-scope ones are neither for nor against)."""
        return self.passed / self.in_scope if self.in_scope else 1.0

    def as_json(self) -> dict[str, Any]:
        return {"level": self.level, "total": self.total, "passed": self.passed, "failed": self.failed,
                "not_exercised": self.not_exercised, "expected_failures": self.expected_failures,
                "unexpected_passes": self.unexpected_passes, "out_of_scope": self.out_of_scope,
                "stale_scope": self.stale_scope, "score": round(self.score, 4)}


@dataclass(frozen=True)
class Badge:
    label: str
    message: str
    color: str  # a CSS colour (shields.io palette)


@dataclass
class Certification:
    contract: str
    role: str | None
    fail_on: str  # the lowest level whose failures fail the run
    results: list[RequirementResult]
    coverage: Mapping[str, KindCoverage]
    unmapped: list[Finding]  # findings (in scope) that no requirement links to
    identity: dict[str, Any] = field(default_factory=dict)
    run: dict[str, Any] | None = None  # live runs: what happened (exit code, scenario steps); "ok" False fails
    messages: int = 0

    @property
    def scores(self) -> list[LevelScore]:
        out = []
        for level in LEVELS:
            mine = [r for r in self.results if r.requirement.level == level]
            out.append(LevelScore(
                level, len(mine),
                sum(r.status == PASS for r in mine), sum(r.status == FAIL for r in mine),
                sum(r.status == NOT_EXERCISED for r in mine), sum(r.status == EXPECTED_FAIL for r in mine),
                sum(r.status == UNEXPECTED_PASS for r in mine), sum(r.status == OUT_OF_SCOPE for r in mine),
                sum(r.status == STALE_SCOPE for r in mine),
            ))
        return out

    def failing_levels(self) -> tuple[str, ...]:
        return LEVELS[: LEVELS.index(self.fail_on) + 1]

    def blocking(self) -> list[RequirementResult]:
        """The results that make the run NOT CERTIFIED: failures at a failing level, and stale scope-file entries
        (an expected failure that passes, an out-of-scope requirement exercised and passed) at any level."""
        levels = self.failing_levels()
        return [r for r in self.results if r.status in STALE or (r.requirement.level in levels and r.status == FAIL)]

    def unexercised(self) -> list[RequirementResult]:
        """The requirements at a failing level that no message exercised and the scope file does not declare out of
        scope: they make an otherwise clean run INCOMPLETE, not certified and not failed. One on a kind its subject
        need not send (`exercise: optional`: a renewal, a heartbeat) is not among them: nothing was missing."""
        levels = self.failing_levels()
        return [r for r in self.results if r.requirement.level in levels and r.gap]

    def out_of_scope(self) -> list[RequirementResult]:
        return [r for r in self.results if r.status == OUT_OF_SCOPE]

    def passed_with_warnings(self) -> list[RequirementResult]:
        """Passes over what the reading side tolerates (a MUST passes over what its reader drops): said in every
        report, never hidden behind the pass."""
        return [r for r in self.results if r.status == PASS and r.warnings]

    @property
    def run_ok(self) -> bool:
        return self.run is None or bool(self.run.get("ok", True))

    @property
    def run_failed(self) -> bool:
        """A live run that failed before anything was heard from the implementation (`run["heard"]` false: no byte
        on its output, no request, no HTTP answer): there is nothing to judge, so no verdict (exit RUN_FAILED)."""
        return not self.run_ok and self.run is not None and not self.run.get("heard", True)

    @property
    def passed(self) -> bool:
        return self.verdict == CERTIFIED

    @property
    def verdict(self) -> str:
        """run failed (nothing heard) | not certified (a failure, a stale scope entry, a failed run) | incomplete
        (requirements at a failing level neither exercised nor declared out of scope) | certified."""
        if self.run_failed:
            return RUN_FAILED
        if self.blocking() or not self.run_ok:
            return NOT_CERTIFIED
        return INCOMPLETE if self.unexercised() or self.nothing_exercised else CERTIFIED

    @property
    def nothing_exercised(self) -> bool:
        """No requirement (of the role, when one is named) was exercised by any message: nothing about the subject
        was tested, so it is never certified (issue 42, 3: `--role reader` of a capture its reader wrote nothing
        in, every requirement out of scope or optional). A reader is certified by `wirecheck fuzz-consumer`."""
        return not any(r.exercised for r in self.results)

    @property
    def program_words(self) -> str:
        """What the program under a failed live run last wrote on stderr (up to 3 lines), to quote beside the
        failure: "Not logged in · Please run /login" says more than "stdout closed (exit status 1)"."""
        if self.run is None or self.run_ok:
            return ""
        return last_words(str(self.run.get("stderr_tail") or ""))

    @property
    def exit_code(self) -> int:
        """The command's exit code: the one decision (`verdict`) every report's gate line also shows."""
        return VERDICT_EXIT[self.verdict]

    @property
    def run_problem(self) -> str:
        """Why the live run failed, as one line ("" when it did not)."""
        if self.run_ok or self.run is None:
            return ""
        return str(self.run.get("problem") or "the live run failed")

    @property
    def run_status(self) -> str:
        """` (exit status 1)`; "" where there was no program (probe), it had none (still running when stopped) or
        the problem already says it."""
        status = None if self.run is None else self.run.get("exit_code")
        return "" if status is None or f"exit status {status}" in self.run_problem else f" (exit status {status})"

    @property
    def run_line(self) -> str:
        """The live run in a few words, for every format: `completed (exit status 0)`, `failed: <problem>`."""
        if self.run is None:
            return ""
        return f"completed{self.run_status}" if self.run_ok else f"failed: {self.run_problem}{self.run_status}"

    @property
    def gate_line(self) -> str:
        """`gate --fail-on MUST: not certified (2 failed requirement(s); the live run failed)`,
        `gate --fail-on MUST: incomplete (3 requirement(s) neither exercised nor declared out of scope)`, or for a
        run that heard nothing, `gate --fail-on MUST: run failed (nothing was heard from the implementation: ...)`."""
        if self.run_failed:
            return (f"gate --fail-on {self.fail_on}: run failed (nothing was heard from the implementation: "
                    f"{self.run_problem}; nothing certified)")
        why = []
        failed = [r for r in self.blocking() if r.status not in STALE]
        stale = len(self.blocking()) - len(failed)
        if failed:
            why.append(f"{len(failed)} failed requirement(s)")
        if stale:
            why.append(f"{stale} stale scope-file entr{'y' if stale == 1 else 'ies'}")
        if not self.run_ok:
            why.append("the live run failed")
        if self.unexercised():
            why.append(f"{len(self.unexercised())} requirement(s) neither exercised nor declared out of scope")
        if self.nothing_exercised and not failed and self.run_ok:
            subject = f"role {self.role}" if self.role else "the implementation"
            why.append(f"no requirement on {subject} was exercised: nothing about it was tested (a reader is "
                       "certified with wirecheck fuzz-consumer)")
        if self.out_of_scope() and self.verdict == CERTIFIED:
            why.append(f"{len(self.out_of_scope())} out of scope")
        return f"gate --fail-on {self.fail_on}: {self.verdict}{' (' + '; '.join(why) + ')' if why else ''}"

    @property
    def badge(self) -> Badge:
        """Counts MUSTs in scope: an out-of-scope MUST is neither passed nor missing, and the badge says how many."""
        must = [r for r in self.results if r.requirement.level == "MUST" and r.status != OUT_OF_SCOPE]
        should = [r for r in self.results if r.requirement.level == "SHOULD" and r.status != OUT_OF_SCOPE]
        passed = sum(r.status == PASS for r in must)
        outside = sum(r.status == OUT_OF_SCOPE for r in self.results if r.requirement.level == "MUST")
        aside = f", {outside} out of scope" if outside else ""
        label = f"wirecheck {self.contract}"
        if not self.run_ok:
            return Badge(label, "run failed", "#e05d44")
        if any(r.status in (FAIL, EXPECTED_FAIL) for r in must):
            return Badge(label, f"incompatible ({passed}/{len(must)} MUST{aside})", "#e05d44")
        if any(r.status != PASS and (r.status != NOT_EXERCISED or r.gap) for r in must):
            return Badge(label, f"incomplete ({passed}/{len(must)} MUST{aside})", "#fe7d37")
        if any(r.status != PASS and (r.status != NOT_EXERCISED or r.gap) for r in should):
            return Badge(label, f"compatible (MUST {passed}/{len(must)}{aside})", "#a4a61d")
        return Badge(label, f"compatible (MUST {passed}/{len(must)}{aside})" if outside else "compatible", "#4c1")


VERDICT_EXIT = {CERTIFIED: exitcodes.CONFORMS, NOT_CERTIFIED: exitcodes.FINDINGS, INCOMPLETE: exitcodes.INCONCLUSIVE,
                RUN_FAILED: exitcodes.RUN_FAILED}


# Findings judged against the party that should have acted, not the one whose message carries them.
_CONSUMER_FAULT = frozenset({"REQUEST_WITHOUT_RESPONSE"})  # the request is fine; its receiver never answered

def responsible_role(finding: Finding, release: Any, http_senders: Mapping[str, str]) -> str | None:
    """The role a finding counts against: the kind's consumer for an unanswered request, else the kind's producer,
    else (an unclassified message) the sender the capture records: a framed line's `from`, or for an HTTP exchange
    the one role that sends the release's requests (responses), from `http_senders(release)`; a breach of a
    behaviour obligation counts against the obligation's subject, whoever's message shows it. None when nobody can
    tell."""
    if finding.obligation is not None:
        return next((o.subject for o in release.obligations if o.id == finding.obligation), None)
    if finding.kind is not None:
        try:
            kind = release.kind(finding.kind)
        except KeyError:
            return None
        # a request of no kind (a method the release lacks) is reported at the response kind that owes it an
        # answer: its producer is the receiver
        return kind.consumer if finding.code in _CONSUMER_FAULT and kind.answers is None else kind.producer
    if finding.sender is not None:
        return finding.sender
    side = finding.where.rsplit("/", 1)[-1] if finding.where else None
    return http_senders.get(side) if side else None


def http_senders(release: Any) -> dict[str, str]:
    """"request" / "response" → the one role that produces the release's HTTP requests (responses), if one does."""
    producers: dict[str, set[str]] = {"request": set(), "response": set()}
    for kind in release.kinds:
        if kind.http is not None:
            producers["request" if kind.http.is_request else "response"].add(kind.producer)
    return {side: next(iter(roles)) for side, roles in producers.items() if len(roles) == 1}


def evaluate(
    result: CheckResult,
    requirements: RequirementSet,
    *,
    baseline: Baseline = EMPTY,
    role: str | None = None,
    fail_on: str = "MUST",
) -> Certification:
    release = result.release
    producers = {k.id: k.producer for k in release.kinds}
    correlated = {k.id for k in release.kinds if k.correlate is not None}
    rule_kinds: dict[str, set[str]] = {}
    for use in release.rules:
        rule_kinds.setdefault(use.id, set()).update(use.kinds or producers)
    seen = {kind_id: cov.judged for kind_id, cov in result.coverage.items()}  # a body left out exercises nothing

    def seen_in_scope(kind_ids: Iterable[str]) -> int:
        return sum(seen.get(k, 0) for k in kind_ids if role is None or producers.get(k) == role)

    by_http = http_senders(release)
    in_scope = [role is None or responsible_role(f, release, by_http) in (role, None) for f in result.findings]
    findings = list(result.findings)
    scoped = [r for r in requirements if role is None or r.subject in (role, "any")]
    results = []
    matched: set[int] = set()
    for requirement in scoped:
        link = requirement.link
        # a protocol rule whose requirement names the role judges that role, whichever message carries the
        # finding (a run that never ends is reported at its lease, but ending it is the runtime's duty)
        owned = (link.rule is not None or link.obligation is not None) and role is not None \
            and requirement.subject == role
        mine = [(i, f) for i, f in enumerate(findings) if (owned or in_scope[i]) and requirement.matches(f)]
        matched.update(i for i, _ in mine)
        if link.kind is not None:
            failing = [f for _, f in mine if f.severity is Severity.ERROR]
            exercised = seen.get(link.kind, 0)
        else:
            # A warning is what the receiving reader tolerates (readers.yaml: ignore) and an error what it rejects:
            # a MUST fails on what breaks the peer, a SHOULD or MAY on a tolerated deviation too (an unknown
            # notification a client drops failed ACP's KNOWN-METHODS MUST, NOT CERTIFIED for a working agent)
            floor = Severity.ERROR if requirement.level == "MUST" else Severity.WARNING
            failing = [f for _, f in mine if f.severity.rank >= floor.rank]
            if link.obligation is not None:  # what the engine judged of it (a process record, a sequence)
                exercised = result.judged.get(link.obligation, 0) + len(mine)
            elif link.rule is not None:
                exercised = seen_in_scope(set(link.kinds) or rule_kinds.get(link.rule, set()))
            elif link.exercised_by == "correlated_message":
                exercised = seen_in_scope(correlated) + len(mine)
            else:
                exercised = (result.messages if role is None else seen_in_scope(producers) + result.unclassified)
                exercised += len(mine)
        notes = tuple(f for _, f in mine if f not in failing)
        reason, scope = baseline.reason(requirement.id), baseline.scope(requirement.id)
        if failing:  # out of scope or not, a requirement that fails has failed
            status = EXPECTED_FAIL if reason is not None else FAIL
        elif not exercised:
            status = OUT_OF_SCOPE if scope is not None else NOT_EXERCISED
        else:
            status = UNEXPECTED_PASS if reason is not None else STALE_SCOPE if scope is not None else PASS
        results.append(RequirementResult(requirement, status, exercised, tuple(failing), notes, reason, scope))
    unmapped = [f for i, f in enumerate(findings)
                if in_scope[i] and i not in matched and f.severity is not Severity.INFO]
    return Certification(
        contract=release.name, role=role, fail_on=fail_on, results=results, coverage=result.coverage,
        unmapped=unmapped, messages=result.messages,
    )
