"""Findings grouped by the change they describe: what a person reads, where the flat list is what a machine reads.

A finding is about one member of one schema node (`/agents` removed, `/subtype` gained an enum value). A change is
everything that happened to one *definition*: the members of `$defs/SDKControlGetContextUsageResponse` that were
added, removed or retyped, its inline sub-objects included (`categories[]/color`). A definition is the innermost
`$defs/<name>` (or `definitions/<name>`) that holds the finding's schema locations, else the schema file's root.
Kinds that reach the same definition (an alias, a replay, the same object inside several messages) share the
change: it is listed once, with the kinds, surfaces and instance paths where it shows (`Where`).

Kind-level findings (kinds added or removed), protocol-rule and version findings are changes of their own, one per
rule. Every finding keeps its fingerprint: a change lists all of its findings, and the flat list stays in JSON
and SARIF.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wirecheck.diff.model import (
    BREAKING,
    DECLARED,
    DIRECTIONS,
    ITEM,
    LATENT,
    SAFE,
    UNKNOWN,
    VIEWS,
    DiffFinding,
    DiffResult,
    Witness,
)
from wirecheck.findings import Severity
from wirecheck.pointer import parse_pointer

SURFACE_WORDS = {"schema": "message", "reply": "reply", "headers": "headers", "kind": "kind", "release": "release"}
_DEFINITIONS = ("$defs", "definitions")
# schema keywords that step into an instance: the token the instance path gets (None: the same instance)
_STEP = {"properties": "name", "patternProperties": "{name}", "additionalProperties": "{name}", "items": ITEM,
         "prefixItems": "index", "contains": ITEM, "unevaluatedProperties": ITEM, "propertyNames": None}
_SAME_INSTANCE = {"anyOf", "oneOf", "allOf", "not", "if", "then", "else", "dependentSchemas"}
_ANY = {ITEM, "{name}"}  # instance tokens that stand for any item or any property name
_KIND_RULES = {"MESSAGE_KIND_ADDED", "MESSAGE_KIND_REMOVED"}  # one change each: "kinds added", "kinds removed"

# Member statuses no single change can have at once (a member cannot be both added and kept, ...).
_EXISTENCE = {
    "PROPERTY_ADDED": "added", "PROPERTY_ADDED_TO_CLOSED_MODEL": "added", "REQUIRED_PROPERTY_ADDED": "added",
    "PROPERTY_REMOVED": "removed", "PROPERTY_REMOVED_FROM_CLOSED_MODEL": "removed",
    "REQUIRED_PROPERTY_REMOVED": "removed",
    "PROPERTY_BECAME_REQUIRED": "kept", "PROPERTY_BECAME_OPTIONAL": "kept",
}
_REQUIREDNESS = {"REQUIRED_PROPERTY_ADDED": "required", "PROPERTY_ADDED": "optional",
                 "PROPERTY_ADDED_TO_CLOSED_MODEL": "optional", "PROPERTY_BECAME_REQUIRED": "required",
                 "PROPERTY_BECAME_OPTIONAL": "optional", "REQUIRED_PROPERTY_REMOVED": "required",
                 "PROPERTY_REMOVED": "optional", "PROPERTY_REMOVED_FROM_CLOSED_MODEL": "optional"}


@dataclass(frozen=True)
class Where:
    """Where a change shows: a kind, its surface (message, reply, headers; kind and release for the rest), and the
    instance path of the changed definition inside that surface ("" = the whole message)."""

    kind: str
    surface: str
    at: str

    def text(self) -> str:
        surface = SURFACE_WORDS.get(self.surface, self.surface)
        return f"{self.kind} ({surface}{' at ' + self.at if self.at else ''})"


@dataclass(frozen=True)
class Member:
    """One member of a change (relative to its definition: `agents`, `categories/*/color`; "" = the definition
    itself) and the findings about it."""

    path: str
    findings: tuple[DiffFinding, ...]


@dataclass(frozen=True)
class Change:
    # what changed, for people: `protocol.json $defs/InputsRequest`, `message kinds added`; several when the same
    # members changed the same way in several definitions (`session_id` added to forty closed requests)
    titles: tuple[str, ...]
    where: tuple[Where, ...]
    members: tuple[Member, ...]
    findings: tuple[DiffFinding, ...]  # every finding of the change, in report order (each fingerprint once)

    @property
    def title(self) -> str:
        if len(self.titles) == 1:
            return self.titles[0]
        return f"{len(self.titles)} definitions ({', '.join(self.titles[:3])}{', …' if len(self.titles) > 3 else ''})"

    @property
    def severity(self) -> Severity:
        """The worst severity of its findings that no waiver covers (info when all are waived)."""
        active = [f.severity for f in self.findings if f.waived is None] or [Severity.INFO]
        return max(active, key=lambda s: s.rank)

    @property
    def waived(self) -> bool:
        return all(f.waived is not None for f in self.findings)

    def verdict(self, direction: str, view: str) -> str:
        found = {v for f in self.findings for d, m, v in f.verdicts if d == direction and m == view}
        return BREAKING if BREAKING in found else UNKNOWN if UNKNOWN in found else SAFE

    def verdicts(self) -> tuple[tuple[str, str, str], ...]:
        return tuple((d, m, self.verdict(d, m)) for d in DIRECTIONS for m in VIEWS)

    def evidence(self, direction: str, view: str) -> str | None:
        """`declared` or `latent` where the change breaks (latent when every finding that breaks there rests on
        latent evidence alone: model.LATENT), else None."""
        found = [f.evidence(direction, view) for f in self.findings]
        if DECLARED in found:
            return DECLARED
        return LATENT if LATENT in found else None

    def witnesses(self) -> tuple[Witness, ...]:
        """One witness per broken direction: the shortest payload that proves it (declared evidence first, then
        tolerant consumers, since a break for them is a break for strict ones too)."""
        out = []
        for direction in DIRECTIONS:
            found = [w for f in self.findings for w in f.witnesses if w.direction == direction]
            if found:
                out.append(min(found, key=lambda w: (bool(w.undeclared), w.view != "tolerant", len(repr(w.payload)),
                                                     w.reason)))
        # a grouped finding's members each have their own witness (Witness.at): all of them are shown
        seen = {w.payload_key() for w in out}
        for witness in (w for f in self.findings for w in f.witnesses if w.at):
            if witness.payload_key() not in seen:
                seen.add(witness.payload_key())
                out.append(witness)
        return tuple(out)

    def contradictions(self) -> list[str]:
        """Statements about one member of this change that cannot all be true (a property both added and kept,
        required and optional at once). Each is an engine bug: the test over the bundled pairs keeps them out."""
        problems = []
        for member in self.members:
            by_where: dict[tuple[str, str], list[DiffFinding]] = {}
            for finding in member.findings:
                by_where.setdefault((finding.kind, finding.surface), []).append(finding)
            for (kind, _), findings in by_where.items():
                rules = sorted({f.rule for f in findings if f.rule in _EXISTENCE})
                existence = {_EXISTENCE[r] for r in rules}
                requiredness = {_REQUIREDNESS[r] for r in rules}
                if len(existence) > 1 or len(requiredness) > 1:
                    problems.append(f"{kind} {member.path or '/'}: {', '.join(rules)}")
        return problems


def group_changes(result: DiffResult) -> tuple[Change, ...]:
    """The changes of one release pair, worst first, each with its members and the places it shows."""
    groups: dict[Any, list[tuple[DiffFinding, str, str]]] = {}  # key → (finding, member path, anchor path)
    titles: dict[Any, str] = {}
    for finding in result.findings:
        key, title, member, at = _placed(finding)
        groups.setdefault(key, []).append((finding, member, at))
        titles.setdefault(key, title)
    changes = []
    for key, placed in groups.items():
        members: dict[str, list[DiffFinding]] = {}
        where: dict[Where, None] = {}
        for finding, member, at in placed:
            members.setdefault(member, []).append(finding)
            where[Where(finding.kind, finding.surface, at)] = None
        changes.append(Change(
            titles=(titles[key],), where=tuple(sorted(where, key=lambda w: (w.kind, w.surface, w.at))),
            members=tuple(Member(path, tuple(fs)) for path, fs in sorted(members.items())),
            findings=tuple(f for f, _, _ in placed)))
    return tuple(sorted(_merge_alike(changes), key=lambda c: (-c.severity.rank, c.waived, c.title)))


def _merge_alike(changes: list[Change]) -> list[Change]:
    """Definitions whose members changed in exactly the same way (same members, same rules, same verdicts): one
    change listing them all."""
    alike: dict[Any, list[Change]] = {}
    for change in changes:
        if not change.where or change.where[0].surface in ("kind", "release"):
            alike[id(change)] = [change]
            continue
        signature = (tuple((m.path, tuple(sorted({f.rule for f in m.findings}))) for m in change.members),
                     change.verdicts(), change.severity, change.waived)
        alike.setdefault(signature, []).append(change)
    out = []
    for group in alike.values():
        if len(group) == 1:
            out.append(group[0])
            continue
        members: dict[str, list[DiffFinding]] = {}
        for change in group:
            for member in change.members:
                members.setdefault(member.path, []).extend(member.findings)
        out.append(Change(
            titles=tuple(t for c in group for t in c.titles),
            where=tuple(sorted({w for c in group for w in c.where}, key=lambda w: (w.kind, w.surface, w.at))),
            members=tuple(Member(path, tuple(fs)) for path, fs in members.items()),
            findings=tuple(f for c in group for f in c.findings)))
    return out


def _placed(finding: DiffFinding) -> tuple[Any, str, str, str]:
    """(group key, title, member path, instance path of the definition) for one finding."""
    if finding.rule in _KIND_RULES:
        what = "added" if finding.rule == "MESSAGE_KIND_ADDED" else "removed"
        return ("kinds", what), f"message kinds {what}", finding.kind, ""
    if finding.surface in ("kind", "release") or not (finding.old_location or finding.new_location):
        return ("finding", finding.fingerprint), finding.message, "", finding.path
    old = _split(finding.old_location)
    new = _split(finding.new_location)
    named = new or old  # the definition as the new release has it (the old one's, for what it no longer has)
    assert named is not None
    relative = named[2]
    path = _tokens(finding.path)
    params = dict(finding.params)
    named_property = params.get("new") if finding.rule == "PROPERTY_RENAMED" else params.get("property")
    if named_property is not None and (not relative or relative[-1] != named_property) and path \
            and path[-1] == named_property and _ends_with(path[:-1], relative):  # located at the object around it
        anchor, member = path[:len(path) - 1 - len(relative)], [*relative, path[-1]]
    elif _ends_with(path, relative):
        anchor, member = path[:len(path) - len(relative)], relative
    else:
        anchor, member = path, []
    title = f"{named[0]} {named[1].lstrip('/') or '(root)'}".strip()
    return ("definition", named[0], named[1]), title, "/".join(member), _join(anchor)


def _split(location: str | None) -> tuple[str, str, list[str]] | None:
    """`file#pointer` → (file, pointer of the innermost definition, instance tokens from there to the node)."""
    if not location:
        return None
    file, _, pointer = location.partition("#")
    tokens = parse_pointer(pointer) if pointer else []
    start = 0
    for i in range(len(tokens) - 1):
        if tokens[i] in _DEFINITIONS:
            start = i + 2
    definition = "".join("/" + t.replace("~", "~0").replace("/", "~1") for t in tokens[:start])
    return file, definition, _instance_tokens(list(tokens[start:]))


def _instance_tokens(schema_tokens: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(schema_tokens):
        token = schema_tokens[i]
        step = _STEP.get(token, "")
        if step == "name" or step == "index":
            if i + 1 < len(schema_tokens):
                out.append(schema_tokens[i + 1])
            i += 2
        elif step:
            out.append(step)
            i += 1
        elif token in _SAME_INSTANCE:
            i += 2 if token in ("anyOf", "oneOf", "allOf", "dependentSchemas") else 1
        else:
            i += 1  # a keyword of the node itself (a bound, an enum): same instance
    return out


def _tokens(path: str) -> list[str]:
    return list(parse_pointer(path)) if path else []


def _ends_with(path: list[str], tail: list[str]) -> bool:
    if len(tail) > len(path):
        return False
    return all(a == b or a in _ANY or b in _ANY for a, b in zip(path[len(path) - len(tail):], tail, strict=True))


def _join(tokens: list[str]) -> str:
    return "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in tokens)
