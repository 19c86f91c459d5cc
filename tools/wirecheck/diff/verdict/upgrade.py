"""The answer a release engineer wants from a pair: which roles break, whether the version says so, what to do.

Every message kind is written by one role and read by another (a reply the other way round). A pair's findings,
sorted by those flows, say who breaks: FORWARD = the old reader meets the new writer's messages, BACKWARD = the
new reader meets what old writers wrote. From that follows an upgrade order per flow (old readers break → upgrade
the readers first; new readers break on old messages → upgrade the writers first and drain what old ones wrote;
both → together), and from the rule texts' `bump:` whether the declared version bump covers the changes.
"""

from __future__ import annotations

from dataclasses import dataclass

from wirecheck.diff.catalogue import BUMPS
from wirecheck.diff.model import BACKWARD, BREAKING, FORWARD, SAFE, STRICT, TOLERANT, UNKNOWN, DiffResult
from wirecheck.diff.options import DiffOptions

_VERSION_RULES = {"SEMVER_BUMP_TOO_SMALL", "SEMVER_NOT_INCREASED", "WIRE_VERSION_NOT_BUMPED",
                  "WIRE_VERSION_BUMP_TOO_SMALL"}


def role_name(role: str) -> str:
    """A role as a report names it: a catalog's `any` (a message either side sends) is a peer."""
    return "peer" if role == "any" else role


@dataclass(frozen=True)
class Flow:
    """Messages one role writes and another reads, and the pair's worst verdict for them per direction and
    consumer model."""

    writer: str
    reader: str
    verdicts: tuple[tuple[str, str, str], ...]  # (direction, consumer model, verdict)
    # (direction, consumer model) whose breaks all rest on latent evidence (model.LATENT): only a writer that sends
    # members its contract never declared meets them
    latent: tuple[tuple[str, str], ...] = ()

    def get(self, direction: str, view: str) -> str:
        return next((v for d, m, v in self.verdicts if d == direction and m == view), SAFE)

    def latent_only(self, direction: str, views: tuple[str, ...]) -> bool:
        """Whether `direction` breaks for `views` only on latent evidence."""
        broken = [view for view in views if self.get(direction, view) == BREAKING]
        return bool(broken) and all((direction, view) in self.latent for view in broken)

    def breaks(self, direction: str, views: tuple[str, ...]) -> str:
        """The worst verdict of `direction` over `views`."""
        found = {self.get(direction, view) for view in views}
        return BREAKING if BREAKING in found else UNKNOWN if UNKNOWN in found else SAFE


@dataclass(frozen=True)
class Answer:
    flows: tuple[Flow, ...]
    views: tuple[str, ...]  # the consumer models the run protects (tolerant; strict too under --consumers strict)
    declared_bump: str | None  # None: no versions (diff-schemas)
    required_bump: str | None
    advice: tuple[str, ...]  # what to do, in order
    strict_sets: bool = False  # latent breaks count like declared ones (--strict-sets)

    @property
    def version_text(self) -> str:
        """`minor bump, changes need major`, `major bump: enough (changes need minor)`, `same version, no change
        needs a bump`."""
        if self.declared_bump is None:
            return "no versions"
        if self.declared_bump == "downgrade":
            return "version went down"
        declared = "same version" if self.declared_bump == "none" else f"{self.declared_bump} bump"
        if self.required_bump in (None, "none"):
            return f"{declared}, no change needs a bump"
        if BUMPS.index(self.declared_bump) >= BUMPS.index(self.required_bump):
            return f"{declared}: enough (changes need {self.required_bump})"
        return f"{declared}, changes need {self.required_bump}"


def answer(result: DiffResult, options: DiffOptions) -> Answer:
    views = (STRICT, TOLERANT) if options.consumers == STRICT else (TOLERANT,)
    worst: dict[tuple[str, str], dict[tuple[str, str], str]] = {}
    declared: dict[tuple[str, str], set[tuple[str, str]]] = {}  # flow → (direction, view) broken on declared evidence
    undecided_elsewhere = False
    for finding in result.findings:
        if finding.rule in _VERSION_RULES:
            continue
        roles = result.writer_reader(finding.kind, finding.surface)
        if roles is None and finding.surface != "release":  # no catalog (diff-schemas): the schema's two ends
            roles = ("producer", "consumer")
        if roles is None:
            undecided_elsewhere = undecided_elsewhere or any(v == UNKNOWN for _, _, v in finding.verdicts)
            continue
        cell = worst.setdefault(roles, {})
        for d, m, v in finding.verdicts:
            if cell.get((d, m)) != BREAKING:
                cell[(d, m)] = v
            if v == BREAKING and (d, m) not in finding.latent:
                declared.setdefault(roles, set()).add((d, m))
    flows = tuple(Flow(w, r, tuple(sorted((d, m, v) for (d, m), v in cell.items())),
                       tuple(sorted(dv for dv, v in cell.items() if v == BREAKING and dv not in declared.get((w, r),
                                                                                                           ()))))
                  for (w, r), cell in sorted(worst.items()))
    version = result.version
    declared_bump = version.declared_bump if version else None
    required = version.required_bump if version else None
    return Answer(flows, views, declared_bump, required,
                  tuple(_advice(flows, options.directions, views, declared_bump, required, undecided_elsewhere,
                                options.strict_sets)), options.strict_sets)


def _advice(flows: tuple[Flow, ...], directions: tuple[str, ...], views: tuple[str, ...], declared: str | None,
            required: str | None, undecided_elsewhere: bool, strict_sets: bool = False) -> list[str]:
    before: set[tuple[str, str]] = set()  # (a, b): a must be upgraded before b
    undecided = undecided_elsewhere
    latent = False  # a break only writers of undeclared members meet (not gated unless --strict-sets)
    for flow in flows:
        if FORWARD in directions:
            verdict = flow.breaks(FORWARD, views)
            if verdict == BREAKING and not strict_sets and flow.latent_only(FORWARD, views):
                latent = True
            elif verdict == BREAKING:
                before.add((flow.reader, flow.writer))  # old readers cannot read the new writer
            undecided = undecided or verdict == UNKNOWN
        if BACKWARD in directions:
            verdict = flow.breaks(BACKWARD, views)
            if verdict == BREAKING and not strict_sets and flow.latent_only(BACKWARD, views):
                latent = True
            elif verdict == BREAKING:
                before.add((flow.writer, flow.reader))  # new readers cannot read what old writers wrote
            undecided = undecided or verdict == UNKNOWN
    advice = []
    before = {(role_name(a), role_name(b)) for a, b in before}
    together = sorted({tuple(sorted((a, b))) for a, b in before if (b, a) in before or a == b})
    for a, b in together:
        advice.append(f"upgrade {a} and {b} together: no order is safe" if a != b else
                      f"upgrade every {a} at once: old and new {a}s cannot read each other")
    tied = {role for pair in together for role in pair}
    for a, b in sorted(before):
        if a != b and (b, a) not in before and not (a in tied and b in tied):
            advice.append(f"upgrade {a}s before {b}s")
    if not before:
        advice.append("upgrade in any order: nothing breaks a protected consumer" if not undecided else
                      "no proven break, but some changes are undecided: review them before relying on any order")
    elif undecided:
        advice.append("some changes are undecided: review them too")
    if latent:
        advice.append("some breaks (latent) hit only writers that send members their contract never declared: "
                      "check no writer does (--strict-sets makes them fail the gate)")
    if declared is not None and required is not None and declared != "downgrade" and \
            BUMPS.index(declared) < BUMPS.index(required):
        advice.append(f"this is a {required} change shipped as a {declared}" if declared != "none" else
                      f"this is a {required} change with no version bump")
    return advice

