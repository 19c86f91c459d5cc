"""The gate: whether a diff run passes `--fail-on`, and why — the one place that decides it.

`decide(results, options, fail_on, waiver_findings)` is pure: it reads the diff results (findings with their
verdicts and witnesses, waivers already applied), the options that say what is protected (`--compat`
directions, `--consumers` models) and the `--fail-on` level, and returns a `GateDecision`: the exit code and
every reason behind it. The CLI's exit code and every report's gate line come from the same decision
(`DiffRun.gate`), so no report can say "pass" over a run that exits 1, or the reverse.

What fails, in this order of precedence:

1. **Nothing compared** (exit 2, usage, under every `--fail-on`): a pair in which nothing was compared — two
   releases without a message kind — is not a verdict. Saying "no changes on the wire" there would be a green
   gate over nothing. (Two schemas that both accept every payload are compared: they are compatible.)
2. **Stale or expired waivers** fail under every `--fail-on`, `never` included: a waiver that matches nothing
   would hide whatever change next gets its fingerprint.
3. `--fail-on breaking`: every finding not waived that has a `breaking` verdict for a gated direction and a gated
   consumer model (`gated_pairs`, and the kind's real consumer model from readers.yaml: `DiffFinding.readers`)
   on declared evidence. That verdict rests on a witness payload re-checked by both validators, or on
   proven set containment, and **no rule level, ceiling or severity can soften it**: a finding about a direction
   is judged by its verdicts and the options, its severity is never read. A break whose every witness needs a
   member the writer's contract never declared (latent: `DiffFinding.latent`; an optional property added to an
   open object breaks only a writer that sent that name with another type) fails it only under `--strict-sets`.
   Findings about the release itself (no verdicts: version bumps) fail by their severity, `error`.
4. `--fail-on warning`: all of the above, latent breaks, and every finding with a `breaking` or `unknown` verdict
   in a `--compat` direction for any consumer model (a break only strict consumers see while the run protects
   tolerant ones, a verdict nobody could decide), and release findings of severity `warning`.
5. `--fail-on never`: only 1 and 2.
6. **Undecided** (exit 6, `exitcodes.UNDECIDED`, under `--fail-on breaking` when nothing above fails the run): a
   finding not waived with an `unknown` verdict for a gated direction and consumer model and no proven break
   there, about a member the writer's contract declares in a message's schema (not a kind or the release) —
   nobody could build a witness nor decide set containment, so a real break may hide in it (issue 39: all 11 of
   SchemaStore's github-workflow.json pairs came out undecided with exit 0, three holding declared breaks). The
   reason says what blocked the decision (`DiffFinding.undecided`). An optional property added to (removed from)
   an open object is undecided only for a writer of a name its contract never declared (backward: the old writer;
   forward: the new one): such a latent question is a warning, as a latent break is. `--undecided pass` accepts
   undecided changes explicitly (under
   `--fail-on warning` they fail as before, exit 1: `risk`).

This is what `DiffOptions.severity` makes an error (3) or a warning (4) when the diff runs under the same
options; the gate does not rely on it.

A waived finding passes the gate (it is still counted as breaking in the compatibility tables: a waiver lets a
known break through, it does not make it safe).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from wirecheck import exitcodes
from wirecheck.diff.model import BACKWARD, BREAKING, FORWARD, STRICT, TOLERANT, UNKNOWN, DiffFinding, DiffResult
from wirecheck.diff.options import DiffOptions
from wirecheck.findings import Severity

FAIL_ON = ("breaking", "warning", "never")  # --fail-on values, strictest last
UNDECIDED_CHOICES = ("fail", "pass")  # --undecided values: what an undecided change of a declared member does
_THRESHOLD = {"breaking": Severity.ERROR, "warning": Severity.WARNING}

NOTHING_COMPARED = "nothing-compared"
WAIVER = "waiver"
BREAKS = "breaks"
LATENT_BREAKS = "latent"
RISK = "risk"
RELEASE = "release"
UNDECIDED = "undecided"
# (rule, direction) whose writer never declares the member the change is about: an optional property added to an
# open object is a name the old writer's contract never named (backward), one removed a name the new writer's never
# names (forward). An undecided verdict there is a latent question, a warning like a latent break.
# Undecided findings about a message's schema only: a kind's or the release's (a protocol rule added, a selector
# changed, a schema attached) are unknown by the catalogue's word, no payload can decide them, and they name no member
_MESSAGE_SURFACES = frozenset({"schema", "reply", "headers"})
_UNDECLARED_WRITER = frozenset({("PROPERTY_ADDED", BACKWARD), ("PROPERTY_REMOVED", FORWARD)})


@dataclass(frozen=True)
class GateReason:
    """One reason the gate does not pass: what (`code`), about which finding or pair, in words."""

    code: str  # nothing-compared | waiver | breaks | latent | risk | release | undecided
    text: str
    finding: DiffFinding | None = None
    pair: str | None = None  # the release pair's name (`pkg@a → pkg@b`), where the reason is about one


@dataclass(frozen=True)
class GateDecision:
    """The gate's answer: its exit code, and every reason behind it (none when it passes)."""

    fail_on: str
    directions: tuple[str, ...]
    consumers: tuple[str, ...]  # the consumer models whose breaks fail `--fail-on breaking`
    exit_code: int
    reasons: tuple[GateReason, ...] = ()
    strict_sets: bool = False  # latent breaks fail like declared ones (--strict-sets)
    undecided: str = "fail"  # --undecided: fail (exit 6) or pass on an undecided change of a declared member

    @property
    def passed(self) -> bool:
        return self.exit_code == exitcodes.CONFORMS

    @property
    def verdict(self) -> str:
        """`pass`, `fail`, `undecided` (nothing proven to break, a declared member's change not decided), or
        `nothing compared` (a usage error: there was nothing to judge)."""
        if self.exit_code == exitcodes.USAGE:
            return "nothing compared"
        if self.exit_code == exitcodes.UNDECIDED:
            return "undecided"
        return "pass" if self.passed else "fail"

    @property
    def protects(self) -> str:
        """What a break must reach to fail `--fail-on breaking`, in words: `directions forward+backward, tolerant
        consumers, declared breaks`."""
        latent = "latent breaks too" if self.strict_sets else "declared breaks"
        passed = ", undecided changes pass" if self.undecided == "pass" and self.fail_on == "breaking" else ""
        return f"directions {'+'.join(self.directions)}, {' and '.join(self.consumers)} consumers, {latent}{passed}"

    def why(self) -> str:
        """How many reasons of each kind, in words ("" when it passes)."""
        counts: dict[str, int] = {}
        for reason in self.reasons:
            counts[reason.code] = counts.get(reason.code, 0) + 1
        words = {NOTHING_COMPARED: "pair(s) compared nothing", BREAKS: "finding(s) break a protected consumer",
                 LATENT_BREAKS: "finding(s) break a protected consumer only for writers of undeclared members",
                 RISK: "finding(s) may break a consumer or break one not protected",
                 RELEASE: "release finding(s) (version bumps)", WAIVER: "stale or expired waiver(s)",
                 UNDECIDED: "finding(s) of a declared member undecided (--undecided pass accepts them)"}
        return "; ".join(f"{counts[code]} {words[code]}" for code in words if code in counts)

    def summary(self) -> str:
        """The gate line every report shows: verdict, what it was judged under, why."""
        why = self.why()
        return f"gate --fail-on {self.fail_on}: {self.verdict} ({self.protects}{'; ' + why if why else ''})"


def gated_pairs(options: DiffOptions) -> frozenset[tuple[str, str]]:
    """The (direction, consumer model) pairs whose breaks fail `--fail-on breaking`: the `--compat` directions,
    for tolerant consumers, and for strict (closed-model) consumers too under `--consumers strict`."""
    views = (STRICT, TOLERANT) if options.consumers == STRICT else (TOLERANT,)
    return frozenset((d, m) for d in options.directions for m in views)


def finding_reason(finding: DiffFinding, options: DiffOptions, fail_on: str) -> GateReason | None:
    """Why `finding` fails the gate under `fail_on`, or None when it does not. A finding about a direction is
    judged by its verdicts and the options alone (its severity is never read, so nothing can soften it); a finding
    about the release itself (a version bump: no verdicts) by its severity."""
    if finding.waived is not None or fail_on not in _THRESHOLD:
        return None
    where = f"{finding.rule} {finding.kind}{' ' + finding.path if finding.path else ''}"
    if not finding.verdicts:
        if finding.severity.rank >= _THRESHOLD[fail_on].rank:
            return GateReason(RELEASE, f"{where}: {finding.severity.value}", finding)
        return None
    # the protected models, and the kind's real consumer model in each gated direction (readers.yaml)
    gated = gated_pairs(options) | {(d, m) for d, m in finding.readers if d in options.directions}
    broken = [(d, m) for d, m, v in finding.verdicts if v == BREAKING and (d, m) in gated]
    declared = [f"{d}/{m}" for d, m in broken if options.strict_sets or (d, m) not in finding.latent]
    if declared:
        proof = "witness" if finding.witnesses else "proven"
        return GateReason(BREAKS, f"{where} breaks {', '.join(declared)} ({proof})", finding)
    if fail_on == "warning" and broken:  # latent breaks of a protected consumer: warnings, unless --strict-sets
        return GateReason(LATENT_BREAKS, f"{where} breaks {', '.join(f'{d}/{m}' for d, m in broken)} only for a "
                          "writer of members its contract never declared (latent)", finding)
    risky = [f"{v} {d}/{m}" for d, m, v in finding.verdicts if d in options.directions and v in (BREAKING, UNKNOWN)]
    if fail_on == "warning" and risky:
        return GateReason(RISK, f"{where}: {', '.join(risky)}", finding)
    return None


def fails(finding: DiffFinding, options: DiffOptions, fail_on: str) -> bool:
    return finding_reason(finding, options, fail_on) is not None


def undecided_reason(finding: DiffFinding, options: DiffOptions) -> GateReason | None:
    """Why `finding` is an undecided change of a declared member for a protected reader (see the module
    docstring, 6), or None. Only a finding `finding_reason` lets pass under `--fail-on breaking` is asked."""
    if finding.waived is not None or finding.surface not in _MESSAGE_SURFACES:
        return None
    gated = gated_pairs(options) | {(d, m) for d, m in finding.readers if d in options.directions}
    open_ = [f"{d}/{m}" for d, m, v in finding.verdicts if v == UNKNOWN and (d, m) in gated
             and (finding.rule, d) not in _UNDECLARED_WRITER
             and not any(v2 == BREAKING and d2 == d for d2, _, v2 in finding.verdicts)]
    if not open_:
        return None
    where = f"{finding.rule} {finding.kind}{' ' + finding.path if finding.path else ''}"
    blocked = finding.undecided or "no witness was found and set containment could not decide it"
    return GateReason(UNDECIDED, f"{where}: {', '.join(open_)} undecided: {blocked}", finding)


def decide(results: Iterable[DiffResult], options: DiffOptions, fail_on: str,
           waiver_findings: Iterable[DiffFinding] = (), undecided: str = "fail") -> GateDecision:
    """The gate decision for a diff run (see the module docstring for what fails and why)."""
    if fail_on not in FAIL_ON:
        raise ValueError(f"--fail-on must be one of {', '.join(FAIL_ON)}, got {fail_on!r}")
    if undecided not in UNDECIDED_CHOICES:
        raise ValueError(f"--undecided must be one of {', '.join(UNDECIDED_CHOICES)}, got {undecided!r}")
    results = tuple(results)
    views = (STRICT, TOLERANT) if options.consumers == STRICT else (TOLERANT,)

    def decision(code: int, reasons: list[GateReason]) -> GateDecision:
        return GateDecision(fail_on, tuple(options.directions), views, code, tuple(reasons), options.strict_sets,
                            undecided)

    empty = [GateReason(NOTHING_COMPARED, f"{r.name}: {r.nothing_compared}", pair=r.name)
             for r in results if r.nothing_compared]
    if empty:
        return decision(exitcodes.USAGE, empty)
    reasons = [GateReason(WAIVER, f"{f.rule} {f.fingerprint}: {f.message}", f) for f in waiver_findings]
    unsettled: list[GateReason] = []
    for result in results:
        for finding in result.findings:
            reason = finding_reason(finding, options, fail_on)
            if reason is not None:
                reasons.append(GateReason(reason.code, reason.text, finding, result.name))
            elif fail_on == "breaking" and undecided == "fail" and (
                    reason := undecided_reason(finding, options)) is not None:
                unsettled.append(GateReason(reason.code, reason.text, finding, result.name))
    if reasons:
        return decision(exitcodes.FINDINGS, reasons + unsettled)
    return decision(exitcodes.UNDECIDED if unsettled else exitcodes.CONFORMS, unsettled)
