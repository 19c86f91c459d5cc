"""Frozen values of the contract diff: changes, witnesses, findings, per-kind verdicts, the result of a diff.

Vocabulary (Confluent's, applied per message kind):
- FORWARD  = old consumers reading what new producers write: breaks when new ⊄ old.
- BACKWARD = new consumers reading what old producers wrote: breaks when old ⊄ new.
- consumer model: `strict` consumers validate the schema as authored (closed objects reject unknown fields),
  `tolerant` consumers ignore unknown fields (the tolerant view: closing keywords dropped).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from wirecheck.findings import Severity
from wirecheck.json_types import json_bytes

FORWARD = "forward"
BACKWARD = "backward"
DIRECTIONS = (FORWARD, BACKWARD)
STRICT = "strict"
TOLERANT = "tolerant"
VIEWS = (STRICT, TOLERANT)

# Verdict for one (direction, consumer model): proven breaking, proven safe, or undecided.
BREAKING = "breaking"
SAFE = "safe"
UNKNOWN = "unknown"

ITEM = "*"  # instance-path token for "any array item"

# What a break rests on: a witness that uses only names the writer's contract declared, or one that needs a member
# it never declared (accepted only because an object is open). The default gate fails on declared breaks; latent
# ones are warnings unless strict set semantics are asked for (`--strict-sets`).
DECLARED = "declared"
LATENT = "latent"


class _Absent:
    """Planted where a property must be left out of a generated payload."""

    _instance: _Absent | None = None

    def __new__(cls) -> _Absent:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT = _Absent()


@dataclass(frozen=True)
class Several:
    """Many steps (or values) standing as one: the last step of a grouped change's path (`walk.grouped`), which
    matches any of them. Shown as the first few and how many in all."""

    values: tuple[Any, ...]

    def text(self, show: Any = str) -> str:
        shown = ", ".join(v if isinstance(v, str) else show(v) for v in self.values[:3])
        return f"{shown}, … ({len(self.values)} in all)"

    def __str__(self) -> str:
        return "{" + self.text() + "}"


def format_path(path: tuple[Any, ...]) -> str:
    """An instance path for humans and fingerprints: JSON-pointer style, `*` for any array item."""
    return "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in path)


@dataclass(frozen=True)
class Probe:
    """A payload to try as a witness: a minimal instance of `side` with `value` planted at `path`."""

    side: str  # "old" | "new": the schema that should accept the payload
    path: tuple[Any, ...] = ()
    value: Any = None
    planted: bool = False  # False: the plain minimal instance of `side`


@dataclass(frozen=True)
class Change:
    """One structural difference found by a rule at one place of a kind's schema."""

    rule: str
    path: tuple[Any, ...]  # instance path inside the message
    old_location: str | None  # schema location in the old release: `<file>#<pointer>`
    new_location: str | None
    params: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    probes: tuple[Probe, ...] = ()
    key: str = ""  # extra identity for the fingerprint (e.g. the enum value added)
    # the union members the walk went through to find it: (instance path, old member, new member); probes are
    # built through them, so a change inside `acp` servers is probed with an `acp` server, not the first member
    via: tuple[tuple[tuple[Any, ...], str, str], ...] = field(default=(), compare=False, hash=False)
    # old_location and new_location are the two schemas at `path` itself (the walked nodes, or a union and one of
    # its members), so containment between them says whether this change alone can break a direction
    local: bool = field(default=False, compare=False, hash=False)


@dataclass(frozen=True)
class Witness:
    """A payload one side accepts and the other rejects, re-checked by jsonschema-rs and python-jsonschema."""

    payload: Any
    direction: str  # forward: new accepts, old rejects; backward: old accepts, new rejects
    view: str  # consumer model the witness is for
    rejected_by: str  # "old" | "new"
    reason: str  # the rejecting validator's message
    # members of the payload the writer's contract never names (instance paths): only an open object lets them
    # through. A witness with none is `declared` evidence (a writer of the named fields hits the break), one with
    # some is `latent` (only a writer sending a member its contract never declared does)
    undeclared: tuple[str, ...] = ()
    # the instance path the witness is about, where it is not its finding's: one member of a grouped finding
    # (`walk.grouped`: a witness per member it was probed for, each quoting its own member)
    at: str = ""

    @property
    def evidence(self) -> str:
        return LATENT if self.undeclared else DECLARED

    def payload_key(self) -> bytes:
        """The payload and direction, as bytes: two witnesses with equal keys show the same thing."""
        return json_bytes(self.payload, sort_keys=True) + self.direction.encode()

    def to_json(self) -> dict[str, Any]:
        data = {
            "payload": self.payload,
            "direction": self.direction,
            "consumer": self.view,
            "accepted_by": "old" if self.rejected_by == "new" else "new",
            "rejected_by": self.rejected_by,
            "reason": self.reason,
            "checked_by": ["jsonschema-rs", "python-jsonschema"],
            "evidence": self.evidence,
        }
        if self.undeclared:
            data["undeclared"] = list(self.undeclared)
        return data


@dataclass(frozen=True)
class DiffFinding:
    rule: str
    severity: Severity
    package: str
    old_version: str
    new_version: str
    kind: str  # message kind id (the new one when renamed, the old one when removed)
    surface: str  # schema | reply | headers | kind | release
    message: str
    path: str = ""  # instance path inside the message
    old_location: str | None = None
    new_location: str | None = None
    # (direction, consumer model) → breaking | unknown; pairs absent are safe (or not applicable)
    verdicts: tuple[tuple[str, str, str], ...] = ()
    witnesses: tuple[Witness, ...] = ()
    fingerprint: str = ""
    waived: str | None = None  # the waiver's reason, when one applies
    params: tuple[tuple[str, Any], ...] = ()
    # (direction, consumer model) of the kind's real consumers, by the releases' readers.yaml (FORWARD: the old
    # release's reader, BACKWARD: the new one's); a break for the real model is gated like a protected one
    readers: tuple[tuple[str, str], ...] = ()
    # (direction, consumer model) of the breaking verdicts that rest on latent evidence alone (Witness.undeclared):
    # the only payloads that break there carry a member the writer's contract never declared
    latent: tuple[tuple[str, str], ...] = ()
    # what blocked the decision where a verdict is unknown: no payload could be built (and why), none the writer
    # accepts, none the reader refuses at the change, and set containment could not decide (diff/gate.py, 6)
    undecided: str = ""
    # (kind, instance path) where this finding's change was witnessed, when not in its own kind: a change inside a
    # definition of a `$ref` ring, which every kind reaching the ring reaches, is witnessed once, through the
    # shortest path from a kind's root (diff/engine.py `_Pair.owner`); the other kinds' findings carry its verdicts
    witnessed_in: tuple[str, str] | None = None

    def breaks(self, direction: str | None = None, view: str | None = None) -> bool:
        return any(
            v == BREAKING and (direction in (None, d)) and (view in (None, m)) for d, m, v in self.verdicts
        )

    def evidence(self, direction: str, view: str) -> str | None:
        """`declared` or `latent` for a breaking verdict (see DECLARED, LATENT), None for any other."""
        if not any(v == BREAKING and d == direction and m == view for d, m, v in self.verdicts):
            return None
        return LATENT if (direction, view) in self.latent else DECLARED

    def breaks_declared(self, direction: str | None = None, view: str | None = None) -> bool:
        """Whether a break (in `direction`, for `view`) rests on declared evidence."""
        return any(v == BREAKING and (direction in (None, d)) and (view in (None, m)) and (d, m) not in self.latent
                   for d, m, v in self.verdicts)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "rule": self.rule,
            "severity": self.severity.value,
            "fingerprint": self.fingerprint,
            "package": self.package,
            "old_version": self.old_version,
            "new_version": self.new_version,
            "kind": self.kind,
            "surface": self.surface,
            "message": self.message,
            "path": self.path,
            "verdicts": [{"direction": d, "consumer": m, "verdict": v,
                          **({"evidence": self.evidence(d, m)} if v == BREAKING else {})}
                         for d, m, v in self.verdicts],
            "witnesses": [w.to_json() for w in self.witnesses],
        }
        if self.old_location:
            data["old_location"] = self.old_location
        if self.new_location:
            data["new_location"] = self.new_location
        if self.waived is not None:
            data["waived"] = self.waived
        if self.readers:
            data["readers"] = dict(self.readers)
        if self.undecided:
            data["undecided"] = self.undecided
        if self.witnessed_in is not None:
            data["witnessed_in"] = {"kind": self.witnessed_in[0], "path": self.witnessed_in[1]}
        return data


@dataclass(frozen=True)
class KindVerdict:
    """The semantic answer for one kind surface: per direction and consumer model, breaking/safe/unknown."""

    kind: str
    surface: str
    old_kind: str | None
    new_kind: str | None
    verdicts: tuple[tuple[str, str, str], ...]  # (direction, view, verdict)

    def get(self, direction: str, view: str) -> str:
        for d, m, v in self.verdicts:
            if d == direction and m == view:
                return v
        return SAFE


@dataclass(frozen=True)
class VersionVerdict:
    """What the change set requires of the version bump, and what the release did."""

    declared_bump: str  # major | minor | patch | none | downgrade
    required_bump: str  # major | minor | patch | none
    old_wire: str | None
    new_wire: str | None
    required_wire_bump: str


@dataclass(frozen=True)
class DiffResult:
    package: str
    old_version: str
    new_version: str
    findings: tuple[DiffFinding, ...]
    kinds: tuple[KindVerdict, ...]
    version: VersionVerdict | None
    problems: tuple[str, ...] = ()  # e.g. waiver-file problems (usage errors)
    files: tuple[str, str] | None = None  # diff-schemas: the (old, new) schema files, where its locations point
    # why nothing was compared (neither schema constrains anything at its root, neither release has a kind), or
    # None: such a pair is a usage error for the gate (diff/gate.py), never "no changes on the wire"
    nothing_compared: str | None = None
    # (kind, producer, consumer) of every kind of either release (the new one's where both have it): who writes
    # and who reads each kind, so a report can say which role breaks (a reply is written by the kind's consumer)
    roles: tuple[tuple[str, str, str], ...] = ()

    def writer_reader(self, kind: str, surface: str) -> tuple[str, str] | None:
        """(writer, reader) of `kind`'s `surface`, or None for findings about no kind (protocol rules, versions)."""
        for kind_id, producer, consumer in self.roles:
            if kind_id == kind:
                return (consumer, producer) if surface == "reply" else (producer, consumer)
        return None

    @property
    def name(self) -> str:
        return f"{self.package}@{self.old_version} → {self.package}@{self.new_version}"

    def worst(self) -> Severity | None:
        active = [f.severity for f in self.findings if f.waived is None]
        return max(active, key=lambda s: s.rank) if active else None

    def compatibility(self, direction: str, view: str) -> str:
        """The pair's verdict in one direction for one consumer model: the worst over its findings. A waived
        finding still counts: a waiver lets a break pass the gate, it does not make it safe. A pair that compared
        nothing is unknown in every direction, never safe."""
        if self.nothing_compared:
            return UNKNOWN
        verdicts = {v for f in self.findings for d, m, v in f.verdicts if d == direction and m == view}
        return BREAKING if BREAKING in verdicts else UNKNOWN if UNKNOWN in verdicts else SAFE
