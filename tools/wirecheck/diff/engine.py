"""The diff of two contract releases (or two raw schemas): kinds matched, schemas compared, findings explained.

Pipeline per matched kind and surface (schema, reply, headers):
  1. semantic verdicts (jsonschema-rs covers) per direction and consumer model;
     all safe → nothing to report (equivalent refactors end here);
  2. structural changes from the node rules, each with probes;
  3. witnesses built from the probes and re-checked by both validators;
  4. per change: breaking where a witness exists or the semantics prove a break the rule predicts, unknown where
     the rule predicts a break nobody could prove or refute, dropped where the semantics prove it safe;
  5. a safety net: a direction the semantics call breaking/unknown that no change explains gets its own finding.
"""

from __future__ import annotations

import dataclasses
import gc
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from wirecheck import lazy
from wirecheck.diff import semantic
from wirecheck.diff.catalogue import diff_rule_catalogue
from wirecheck.diff.fingerprints import fingerprint
from wirecheck.diff.flat import flatten, short_location
from wirecheck.diff.instances import example
from wirecheck.diff.model import (
    ABSENT,
    BACKWARD,
    BREAKING,
    DIRECTIONS,
    FORWARD,
    SAFE,
    STRICT,
    TOLERANT,
    UNKNOWN,
    VIEWS,
    Change,
    DiffFinding,
    DiffResult,
    KindVerdict,
    Several,
    Witness,
    format_path,
)
from wirecheck.diff.options import DiffOptions
from wirecheck.diff.rules.kinds import describe_selector, kind_changes, match_kinds
from wirecheck.diff.rules.protocol import rule_changes
from wirecheck.diff.shape import same_shape
from wirecheck.diff.side import Side, Sides, location_of, related
from wirecheck.diff.walk import structural_changes
from wirecheck.diff.witness import Blame, candidates, from_difference, judge, presence_probes
from wirecheck.pointer import parse_pointer

if TYPE_CHECKING:  # a catalog's release types: `diff-schemas` never imports the contract model (13 dataclasses)
    from wirecheck.contracts.model import ContractRelease, MessageKind, SchemaLink
    from wirecheck.diff.derive import DerivedKind  # kinds derived from raw schemas: `diff` of a catalog never has any

# Changes that only widen or only narrow what a node accepts, so they break in their catalogued direction alone: a
# member a union lost makes it refuse more, never accept more (ACP 1.7.0 → 1.8.0: a string new producers may write
# under `stopReason` was blamed on "lost member null"). Other rules may break either way as the context decides
# (PROPERTY_ADDED beside a typed additionalProperties breaks forward too).
_ONE_WAY = frozenset({"UNION_BRANCH_ADDED", "UNION_BRANCH_REMOVED", "ENUM_VALUE_ADDED", "ENUM_VALUE_REMOVED",
                      "TYPE_WIDENED", "TYPE_NARROWED"})
_SURFACE_WORD = {"schema": "message", "reply": "reply", "headers": "headers"}
_ALL_SAFE = {(d, m): SAFE for d in DIRECTIONS for m in VIEWS}
# (direction, view) → verdict; the structural changes with their witnesses; the baseline payloads
Compared = tuple[dict[tuple[str, str], str], list[tuple[Change, dict[tuple[str, str], Witness]]],
                 dict[str, tuple[Any, set]]]


class _Pair:
    """The release pair being diffed: names for findings, both sides, the options."""

    def __init__(self, package: str, old_version: str, new_version: str, old: Side, new: Side,
                 options: DiffOptions, sides: Sides | None = None):
        self.package, self.old_version, self.new_version = package, old_version, new_version
        self.old, self.new, self.options = old, new, options
        self.compared: dict[tuple[str, str], Compared] = {}  # (old location, new location) → compared
        self.readers: dict[str, tuple[Any, Any]] = {}  # kind id → its readings (reader_models)
        self.surfaces = sides.surfaces if sides is not None else {}
        # each change's probe payloads and why any could not be built: what blocked an undecided verdict
        self.probed: dict[int, tuple[list[Any], list[str]]] = {}  # by id: a Change holding a dict is unhashable
        # (old location, new location) → (written alike but for annotations?, structural changes) or None: `_walked`
        self.walked: dict[tuple[str, str], tuple[bool, list[Change]] | None] = {}
        # A change inside a definition of a `$ref` ring is reached by every kind that reaches the ring, each time
        # by paths as long as the ring: witnessing it once per kind multiplied the work by the kinds and the
        # ring's length (issue 39, 5). Such a change is witnessed once, by its owner: the kind whose path to it is
        # shortest (the first listed of those). `ring_changes` gives each such change (by id) its identity,
        # `owner` the identity's owner (kind, its change, its two ends), `shared` the owner's witnesses, and
        # `borrowed` each other kind's change (by id) the (kind, path) it was witnessed at.
        self.ring_changes: dict[int, tuple[Any, ...]] = {}
        self.owner: dict[tuple[Any, ...], list[tuple[str, Change, tuple[Side, str], tuple[Side, str]]]] = {}
        self.shared: dict[tuple[Any, ...], dict[tuple[str, str], Witness]] = {}
        self.borrowed: dict[int, tuple[str, str]] = {}

    def finding(self, rule: str, kind: str, surface: str, params: dict[str, Any], *, path: str = "",
                old_location: str | None = None, new_location: str | None = None,
                verdicts: dict[tuple[str, str], str] | None = None,
                witnesses: Iterable[Witness] = (), key: str = "",
                evidence: dict[tuple[str, str], Witness] | None = None, undecided: str = "",
                witnessed_in: tuple[str, str] | None = None) -> DiffFinding:
        """`evidence`: the witness each breaking verdict rests on, shown or not (without `--witnesses` they are
        jsonschema-rs's answers, kept from the report): a verdict whose witness is latent is marked so."""
        info = diff_rule_catalogue()[rule]
        triples = tuple(sorted((d, m, v) for (d, m), v in (verdicts or {}).items() if v != SAFE))
        latent = tuple(sorted((d, m) for d, m, v in triples if v == BREAKING and (d, m) in (evidence or {})
                              and evidence[(d, m)].undeclared))  # type: ignore[index]
        # version and waiver findings are not about a direction: their level is the catalogue's. Every other
        # finding's severity follows its verdicts alone, never capped by the rule (the gate reads the verdicts too)
        readers = self.real_models(kind, surface, path)
        severity = (info.level if info.group in ("versions", "waivers")
                    else self.options.severity(triples, readers, latent))
        old_short = short_location(self.old.written_at(old_location) if old_location else None)
        new_short = short_location(self.new.written_at(new_location) if new_location else None)
        return DiffFinding(
            rule=rule,
            severity=severity,
            package=self.package,
            old_version=self.old_version,
            new_version=self.new_version,
            kind=kind,
            surface=surface,
            message=info.render({"path": path or "/", "kind": kind, "surface": _SURFACE_WORD.get(surface, surface),
                                 **params}),
            path=path,
            old_location=old_short,
            new_location=new_short,
            verdicts=triples,
            witnesses=tuple(sorted(witnesses, key=lambda w: (w.direction, w.view))),
            fingerprint=fingerprint(self.package, rule, kind, surface, path, old_short, new_short, key),
            params=tuple(sorted((k, v) for k, v in params.items() if isinstance(v, str | int | float | bool))),
            readers=readers,
            latent=latent,
            undecided=undecided if any(v == UNKNOWN for _, _, v in triples) else "",
            witnessed_in=witnessed_in,
        )

    def real_models(self, kind: str, surface: str, path: str) -> tuple[tuple[str, str], ...]:
        """(direction, consumer model) of the kind's real consumers, from the releases' readers.yaml: FORWARD is
        the old release's reader (old consumers read what new producers write), BACKWARD the new one's. A reader
        closed only at some objects is strict for a change at or just under one of them (schema surface)."""
        readings = self.readers.get(kind)
        if readings is None:
            return ()
        try:
            tokens = parse_pointer(path) if surface == "schema" else None
        except ValueError:
            tokens = None
        out = []
        for direction, reading in zip(DIRECTIONS, readings, strict=True):
            if reading is None:
                continue
            if isinstance(reading, bool):  # an added or removed kind: does that side's consumer refuse unknown kinds?
                strict = reading
            else:
                strict = reading.closed if tokens is None else reading.rejects_under(tokens)
            out.append((direction, STRICT if strict else TOLERANT))
        return tuple(out)


def reader_models(old: ContractRelease, new: ContractRelease, match: Any) -> dict[str, tuple[Any, Any]]:
    """kind id (the new one; the old one for a removed kind) → (old release's reading, new release's reading):
    a MemberReading for a matched kind, or for an added (removed) kind whether the old (new) release's consumer
    on that channel refuses messages of no kind; None where readers.yaml says nothing."""
    def refuses_unknown(release: ContractRelease, kind: MessageKind) -> bool | None:
        entries = [u for u in release.unknown_kinds if u.channel == kind.channel and u.consumer == kind.consumer]
        return any(u.reject for u in entries) if entries else None

    out: dict[str, tuple[Any, Any]] = {n.id: (old.readers.get(o.id), new.readers.get(n.id)) for o, n in match.matched}
    out.update({kind.id: (refuses_unknown(old, kind), None) for kind in match.added})
    out.update({kind.id: (None, refuses_unknown(new, kind)) for kind in match.removed})
    return out


@contextmanager
def cycle_collector_paused() -> Iterator[None]:
    """A diff allocates many small objects that live as long as it does (a side's memos, flattened nodes,
    validators) and makes almost no garbage cycles: the cycle collector traversed them over and over and found
    nothing, a fifth of a matrix's time (measured with gc.callbacks). It is paused for one diff; reference
    counting still frees what is dropped, and one pass over the young generation when the diff ends frees the
    cycles it made. A matrix holds it paused across all its pairs, so the objects its shared sides accumulate
    are traversed once, not again after every pair."""
    lazy.start_up_over()  # a `wirecheck diff` process paused the collector from its start to here (lazy.py)
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        # The young generation is everything allocated since the last collection: one pass over it frees the
        # cycles this diff made (witness confirmation makes many: a matrix held 140 MB more without this) and
        # moves what lives on out of it, so no object is traversed twice. That pass costs 35-60 ms of an ACP pair
        # (issue 30, 6): in a process that runs one command and exits (lazy.one_command_process, set by
        # cli.app.main), the outermost diff freezes the generation instead (gc.freeze: never traversed again),
        # and its cycles go with the process. Nested diffs (a matrix's pairs) still collect theirs.
        if was_enabled and lazy.one_command_process:
            gc.freeze()
        else:
            gc.collect(0)
        if was_enabled:
            gc.enable()


def diff_releases(old: ContractRelease, new: ContractRelease, options: DiffOptions | None = None,
                  sides: Sides | None = None) -> DiffResult:
    """`sides`: shared by every pair of a matrix (`diff.package.diff_matrix`); a fresh one by default."""
    with cycle_collector_paused():
        return _diff_releases(old, new, options, sides)


def _diff_releases(old: ContractRelease, new: ContractRelease, options: DiffOptions | None,
                   sides: Sides | None) -> DiffResult:
    from wirecheck.diff.verdict.semver import version_findings

    options = options or DiffOptions()
    sides = sides or Sides()
    pair = _Pair(new.package, old.version, new.version, sides.of(old), sides.of(new), options, sides)
    findings: list[DiffFinding] = []
    verdicts: list[KindVerdict] = []
    match = match_kinds(old, new)
    pair.readers = reader_models(old, new, match)
    for kind in match.added:
        findings.append(_kind_added(pair, kind))
    for kind in match.removed:
        findings.append(_kind_removed(pair, kind))
    for old_kind, new_kind in match.matched:
        for rule, params in kind_changes(old_kind, new_kind):
            info = diff_rule_catalogue()[rule]
            declared = {dv: (BREAKING if rule in ("SELECTOR_CHANGED", "BODY_CHANGED") else UNKNOWN)
                        for dv in info.breaks}
            findings.append(pair.finding(rule, new_kind.id, "kind", params, verdicts=declared,
                                         key=str(sorted(params.items()))))
        for surface, old_link, new_link in _surfaces(old_kind, new_kind):
            if old_link is None or new_link is None:
                rule = "SCHEMA_ATTACHED" if old_link is None else "SCHEMA_DETACHED"
                info = diff_rule_catalogue()[rule]
                findings.append(pair.finding(
                    rule, new_kind.id, surface,
                    {"old": old_link.ref if old_link else "", "new": new_link.ref if new_link else ""},
                    old_location=location_of(old_link.uri) if old_link else None,
                    new_location=location_of(new_link.uri) if new_link else None,
                    verdicts={dv: UNKNOWN for dv in info.breaks},
                ))
                continue
            surface_findings, kind_verdict = compare_surface(
                pair, new_kind.id, surface, location_of(old_link.uri), location_of(new_link.uri), old_kind.id)
            findings += surface_findings
            verdicts.append(kind_verdict)
    for rule, protocol_rule, params in rule_changes(old, new):
        info = diff_rule_catalogue()[rule]
        findings.append(pair.finding(rule, protocol_rule, "release", params,
                                     verdicts={dv: UNKNOWN for dv in info.breaks}, key=protocol_rule))
    extra, version = version_findings(old, new, findings, pair.finding)
    findings += extra
    nothing = None if old.kinds or new.kinds else "neither release has a message kind: nothing was compared"
    roles = {k.id: (k.producer, k.consumer) for k in (*old.kinds, *new.kinds)}
    return DiffResult(new.package, old.version, new.version, tuple(_ordered(findings)), tuple(verdicts), version,
                      nothing_compared=nothing, roles=tuple((kind, *who) for kind, who in sorted(roles.items())))


def _ordered(findings: list[DiffFinding]) -> list[DiffFinding]:
    return sorted(findings, key=lambda f: (-f.severity.rank, f.kind, f.surface, f.path, f.rule, f.fingerprint))


def _surfaces(old: MessageKind, new: MessageKind) -> list[tuple[str, SchemaLink | None, SchemaLink | None]]:
    out = []
    for surface, get in (("schema", lambda k: k.schema), ("reply", lambda k: k.reply.schema if k.reply else None),
                         ("headers", lambda k: k.headers)):
        a, b = get(old), get(new)
        if a is not None or b is not None:
            out.append((surface, a, b))
    return out


def _kind_added(pair: _Pair, kind: MessageKind) -> DiffFinding:
    witnesses = [Witness(payload, FORWARD, STRICT, "old",
                         f"no kind of {pair.old.label} has the selector {describe_selector(kind)}")
                 for payload in _kind_examples(pair.new, kind, pair.options.witnesses)]
    return pair.finding(
        "MESSAGE_KIND_ADDED", kind.id, "kind",
        {"selector": describe_selector(kind), "producer": kind.producer, "consumer": kind.consumer},
        new_location=location_of(kind.schema.uri) if kind.schema else None,
        verdicts={(FORWARD, STRICT): BREAKING}, witnesses=witnesses,
    )


def _kind_removed(pair: _Pair, kind: MessageKind) -> DiffFinding:
    witnesses = [Witness(payload, BACKWARD, view, "new",
                         f"no kind of {pair.new.label} has the selector {describe_selector(kind)}")
                 for payload in _kind_examples(pair.old, kind, pair.options.witnesses) for view in VIEWS]
    return pair.finding(
        "MESSAGE_KIND_REMOVED", kind.id, "kind",
        {"selector": describe_selector(kind), "producer": kind.producer, "consumer": kind.consumer},
        old_location=location_of(kind.schema.uri) if kind.schema else None,
        verdicts={(BACKWARD, STRICT): BREAKING, (BACKWARD, TOLERANT): BREAKING}, witnesses=witnesses,
    )


def _kind_examples(side: Any, kind: MessageKind, wanted: bool) -> list[Any]:
    """[a message of `kind` its own release accepts (both validators)], or [] when none is wanted or can be built
    (a list, since a witness may itself be falsy: {} or 0)."""
    if not wanted or kind.schema is None:
        return []
    try:
        payload = example(side, location_of(kind.schema.uri))
        accepted, _ = side.judge(location_of(kind.schema.uri), STRICT, payload)
    except Exception:  # no example for this schema (NoExample, or a construct the generator cannot build)
        return []
    return [payload] if accepted else []


def compare_surface(pair: _Pair, kind: str, surface: str, old_location: str, new_location: str,
                    old_kind: str | None = None) -> tuple[list[DiffFinding], KindVerdict]:
    """The findings and verdict for one kind surface. Schemas written identically to a pair another diff of the
    same matrix compared already (by digest: the transitive pairs repeat most of them) reuse its answer."""
    old_digest, new_digest = pair.old.digest(old_location), pair.new.digest(new_location)
    key = (pair.package, kind, surface, old_kind, pair.options, old_digest, new_digest, pair.readers.get(kind))
    if key not in pair.surfaces:
        pair.surfaces[key] = _compare_surface(pair, kind, surface, old_location, new_location, old_kind)
    findings, verdict = pair.surfaces[key]
    return [dataclasses.replace(f, old_version=pair.old_version, new_version=pair.new_version)
            for f in findings], verdict


def _compare_surface(pair: _Pair, kind: str, surface: str, old_location: str, new_location: str,
                     old_kind: str | None) -> tuple[list[DiffFinding], KindVerdict]:
    key = (old_location, new_location)
    if key not in pair.compared:  # kinds of one release may share a schema (an alias, a reply): compared once
        pair.compared[key] = _compare_schemas(pair, old_location, new_location)
    proven, changes, baseline = pair.compared[key]
    old_end, new_end = (pair.old, old_location), (pair.new, new_location)
    verdict = KindVerdict(kind, surface, old_kind, kind, tuple(sorted((d, m, v) for (d, m), v in proven.items())))
    if all(v == SAFE for v in proven.values()):
        # proven equivalent: only what breaks nobody by definition is still worth a line (a version stamp, an
        # annotation when they were asked for)
        return [_explain(pair, kind, surface, change, found, proven, (old_end, new_end)) for change, found in changes
                if not diff_rule_catalogue()[change.rule].breaks and not found], verdict
    findings = _explained(pair, kind, surface, changes, proven, (old_end, new_end))
    net = _net_witnesses(pair, proven, findings, old_end, new_end, baseline)
    attributed = _attributed(changes, net, old_end, new_end)
    if attributed is not changes:
        findings = _explained(pair, kind, surface, attributed, proven, (old_end, new_end))
    findings += _safety_net(pair, kind, surface, proven, findings, old_end, new_end, net)
    return findings, verdict


def _explained(pair: _Pair, kind: str, surface: str, changes: list[tuple[Change, dict[tuple[str, str], Witness]]],
               proven: dict[tuple[str, str], str], ends: tuple[tuple[Side, str], tuple[Side, str]]
               ) -> list[DiffFinding]:
    unique: dict[tuple[str, str, tuple], DiffFinding] = {}
    for change, found in changes:  # a union walked branch by branch can report one change twice
        finding = _explain(pair, kind, surface, change, found, proven, ends)
        unique.setdefault((finding.rule, finding.path, finding.params), finding)
    return list(unique.values())


def _attributed(changes: list[tuple[Change, dict[tuple[str, str], Witness]]], net: dict[tuple[str, str], Witness],
                old_end: tuple[Side, str], new_end: tuple[Side, str]
                ) -> list[tuple[Change, dict[tuple[str, str], Witness]]]:
    """`changes` with each witness the safety net found given to the one change it is about: the only change that
    predicts a break there, has no witness of its own, and at whose path the reader's every error lies (a probe
    planted in one member of an untagged union is often read by another member; the set difference is not)."""
    out = changes
    for dv, witness in net.items():
        side, location = old_end if witness.rejected_by == "old" else new_end
        paths = [path for path, _ in side.errors(location, dv[1], witness.payload)]
        about = [i for i, (change, found) in enumerate(out) if dv not in found and paths
                 and dv in diff_rule_catalogue()[change.rule].breaks and all(related(p, change.path) for p in paths)]
        if len({(out[i][0].rule, out[i][0].path) for i in about}) == 1:
            out = list(out)
            for i in about:
                out[i] = (out[i][0], {**out[i][1], dv: witness})
    return out


def _walked(pair: _Pair, old_location: str, new_location: str) -> tuple[bool, list[Change]] | None:
    """(written alike but for annotations?, the structural changes) of two schemas, walked once; None where they
    are written identically, or alike and nothing but annotations would be reported."""
    key = (old_location, new_location)
    if key in pair.walked:  # asked before every kind is compared (`_own_ring_changes`), then again
        return pair.walked[key]
    walked: tuple[bool, list[Change]] | None = None
    if pair.old.digest(old_location) != pair.new.digest(new_location):  # else written identically
        alike = same_shape(pair.old, old_location, pair.new, new_location)  # written alike but for annotations
        if not alike or pair.options.annotations or pair.old.stamped or pair.new.stamped:
            found = structural_changes(pair.old, old_location, pair.new, new_location)
            if not pair.options.annotations:
                found = [change for change in found if change.rule != "ANNOTATION_CHANGED"]
            walked = (alike, found)
    pair.walked[key] = walked
    return walked


def _own_ring_changes(pair: _Pair, kinds: list[tuple[str, str, str]]) -> None:
    """Before any kind is compared: each change inside a definition of a `$ref` ring that several of `kinds`
    (kind id, old location, new location) reach gets one owner, the kind whose path to it is shortest (the first
    listed of those) unless its witnesses fall short (`_witnesses_once`); the others take its witnesses
    (`_Pair.owner`: the kinds in that order, the owner first once known). A change is the same in two kinds when it
    is the same rule at the same two schema locations with the same parameters (the union members on the way to
    the ring differ from kind to kind: the owner's witness is built through its own)."""
    reached: dict[tuple[Any, ...], list[tuple[int, int, str, Change, tuple[Side, str], tuple[Side, str]]]] = {}
    for index, (kind, old_location, new_location) in enumerate(kinds):
        walked = _walked(pair, old_location, new_location)
        if walked is None or walked[0]:
            continue
        for change in walked[1]:
            if not (change.old_location and change.new_location and pair.old.in_ring(change.old_location)
                    and pair.new.in_ring(change.new_location)):
                continue
            identity = (change.rule, change.key, change.old_location, change.new_location,
                        tuple(sorted((k, repr(v)) for k, v in change.params.items())))
            reached.setdefault(identity, []).append((len(change.path), index, kind, change,
                                                     (pair.old, old_location), (pair.new, new_location)))
    for identity, places in reached.items():
        if len({place[2] for place in places}) < 2:
            continue  # one kind reaches it: its own, as any other change
        pair.owner[identity] = [place[2:] for place in sorted(places, key=lambda place: place[:2])]
        for place in places:
            pair.ring_changes[id(place[3])] = identity


def _witnesses_once(pair: _Pair, change: Change, old_end: tuple[Side, str],
                    new_end: tuple[Side, str]) -> dict[tuple[str, str], Witness]:
    """`_witnesses`, but a change of a `$ref` ring that several kinds reach is witnessed once, by its owner
    (`_own_ring_changes`): the other kinds' findings take the owner's verdicts and name where it was witnessed."""
    identity = pair.ring_changes.get(id(change))
    if identity is None:
        return _witnesses(pair, change, old_end, new_end)
    candidates = pair.owner[identity]
    if identity not in pair.shared:
        # the kinds in order of their path to it: the first whose witnesses answer every (direction, consumer
        # model) the rule says the change breaks owns it (a payload built along a path dozens of levels deep may
        # fail where another kind's would not: then the next kind tries); else the one that answered most
        wanted = set(diff_rule_catalogue()[change.rule].breaks)
        best: tuple[int, dict[tuple[str, str], Witness]] | None = None
        for index, (_, owned, owner_old, owner_new) in enumerate(candidates):
            found = _witnesses(pair, owned, owner_old, owner_new)
            if best is None or len(found) > len(best[1]):
                best = (index, found)
            if wanted <= set(found):
                break
        assert best is not None
        candidates.insert(0, candidates.pop(best[0]))
        pair.shared[identity] = best[1]
    kind, owned, _, _ = candidates[0]
    if owned is not change:
        pair.borrowed[id(change)] = (kind, format_path(owned.path))
        pair.probed[id(change)] = pair.probed.get(id(owned), ([], []))
    return pair.shared[identity]


def _compare_schemas(pair: _Pair, old_location: str, new_location: str) -> Compared:
    """The semantic verdicts, the structural changes (each with its witnesses) and the baseline payloads."""
    walked = _walked(pair, old_location, new_location)
    if walked is None:
        return _ALL_SAFE, [], {}
    alike, found = walked
    if alike:  # what is left breaks nobody by definition: annotations asked for, version stamps
        return _ALL_SAFE, [(change, {}) for change in found if not diff_rule_catalogue()[change.rule].breaks], {}
    old_end, new_end = (pair.old, old_location), (pair.new, new_location)
    baseline = _baseline(pair, old_end, new_end)
    changes = [(change, _witnesses_once(pair, change, old_end, new_end)) for change in found]
    # a verified witness already answers its (direction, consumer model): no set reasoning needed there
    known = {dv for _, found in changes for dv in found} | {dv for _, dvs in baseline.values() for dv in dvs}
    return semantic.compare(pair.old, old_location, pair.new, new_location, known=known), changes, baseline


def _baseline(pair: _Pair, old_end: tuple[Side, str], new_end: tuple[Side, str]) -> dict[str, tuple[Any, set]]:
    """The plain minimal payload of each side and the (direction, view) pairs it already witnesses."""
    out: dict[str, tuple[Any, set]] = {}
    for name, (side, location) in (("old", old_end), ("new", new_end)):
        try:
            payload = example(side, location)
        except Exception:
            continue
        out[name] = (payload, set(judge([payload], old_end, new_end, confirm=pair.options.witnesses)))
    return out


def _witnesses(pair: _Pair, change: Change, old_end: tuple[Side, str],
               new_end: tuple[Side, str]) -> dict[tuple[str, str], Witness]:
    """Payloads proving the change breaks someone. Without witness search they are jsonschema-rs's answer only:
    evidence for the verdict (and a reason to skip set reasoning), stripped before anything is shown."""
    if not change.probes:
        return {}
    failures: list[str] = []
    plants: dict[bytes, tuple[Any, ...]] = {}
    payloads = candidates(change.probes, old_end, new_end, change.via, failures, plants)
    pair.probed[id(change)] = (payloads, failures)
    # only rejections at or around the change's path, of what its probe planted, count: no change is credited
    # with another's break
    blame = Blame(plants, (change.old_location, change.new_location) if change.local else (None, None), change.via)
    found = judge(payloads, old_end, new_end, about=change.path, confirm=pair.options.witnesses, blame=blame)
    if change.rule in _ONE_WAY:  # nor with a break its kind of change cannot make (another change's, or the net's)
        directions = {d for d, _ in diff_rule_catalogue()[change.rule].breaks}
        return {dv: w for dv, w in found.items() if dv[0] in directions}
    return found


def _explain(pair: _Pair, kind: str, surface: str, change: Change, witnesses: dict[tuple[str, str], Witness],
             proven: dict[tuple[str, str], str], ends: tuple[tuple[Side, str], tuple[Side, str]]) -> DiffFinding:
    info = diff_rule_catalogue()[change.rule]
    # With witness search, "breaking" needs a witness; without it, a break the semantics prove and the rule
    # predicts is attributed to the rule. A predicted break nobody proved or refuted stays "unknown".
    verdicts: dict[tuple[str, str], str] = {}
    for dv in set(info.breaks) | set(witnesses):
        if dv in witnesses:
            verdicts[dv] = BREAKING
        elif proven.get(dv) == SAFE or (change.local and _locally_safe(pair, change, dv)):
            continue
        elif proven.get(dv) == BREAKING and not pair.options.witnesses:
            verdicts[dv] = BREAKING
        else:
            verdicts[dv] = UNKNOWN
    borrowed = pair.borrowed.get(id(change))  # witnessed in another kind: its payloads are not this kind's
    shown = list(witnesses.values()) if pair.options.witnesses and borrowed is None else []
    if shown and any(isinstance(step, Several) for step in change.path):
        shown = _member_witnesses(change, ends, set()) or shown
    blocked = _blocked(pair, change, ends, [dv for dv, v in verdicts.items() if v == UNKNOWN])
    return pair.finding(
        change.rule, kind, surface, dict(change.params), path=format_path(change.path),
        old_location=change.old_location, new_location=change.new_location, verdicts=verdicts,
        witnesses=shown, key=change.key, evidence=witnesses, undecided=blocked, witnessed_in=borrowed,
    )


def _blocked(pair: _Pair, change: Change, ends: tuple[tuple[Side, str], tuple[Side, str]],
             open_: list[tuple[str, str]]) -> str:
    """What kept a change's `open_` (direction, consumer model) pairs undecided, in words: no probe, no payload
    built (and why), none the writer accepts (its first error), or none the reader refuses at the change; set
    containment could not settle it either. Asked only where a verdict is unknown."""
    if not open_:
        return ""
    tail = "; set containment could not decide it"
    if not change.probes:
        return f"the rule has no probe payload for this change{tail}"
    payloads, failures = pair.probed.get(id(change), ([], []))
    if not payloads:
        return f"no probe payload could be built ({'; '.join(dict.fromkeys(failures)) or 'none planted'}){tail}"
    old_end, new_end = ends
    for direction, _ in open_:
        writer = new_end if direction == FORWARD else old_end
        if not any(writer[0].accepts(writer[1], STRICT, p) for p in payloads):
            errors = writer[0].errors(writer[1], STRICT, payloads[0])
            why = errors[0][1] if errors else "rejected"
            return f"no probe payload built is accepted by the {writer[0].name} schema (first: {why}){tail}"
    return f"no probe payload built is refused by the reader at {format_path(change.path) or '/'}{tail}"


def _member_witnesses(change: Change, ends: tuple[tuple[Side, str], tuple[Side, str]], seen: set[bytes]
                      ) -> list[Witness]:
    """A grouped change's witnesses member by member (its probes came from its first members, walk.grouped): one
    per member and broken direction, each quoting its own member (`Witness.at`), beyond those already shown."""
    old_end, new_end = ends
    out: list[Witness] = []
    for at in dict.fromkeys(probe.path for probe in change.probes):
        probes = [probe for probe in change.probes if probe.path == at]
        member = tuple(step for step in at if step is not ABSENT)
        found = judge(candidates(probes, old_end, new_end, change.via), old_end, new_end, about=member)
        for (direction, view), witness in sorted(found.items()):
            if view == TOLERANT or (direction, TOLERANT) not in found:
                witness = dataclasses.replace(witness, at=format_path(member))
                if witness.payload_key() not in seen:
                    seen.add(witness.payload_key())
                    out.append(witness)
    return out


def _open_views(proven: dict[tuple[str, str], str], findings: list[DiffFinding], direction: str) -> list[str]:
    """The consumer models a direction breaks (or may) in that no finding explains."""
    return [view for view in VIEWS
            if proven[(direction, view)] != SAFE
            and not any(d == direction and m == view and v == BREAKING for f in findings for d, m, v in f.verdicts)
            and not (proven[(direction, view)] == UNKNOWN
                     and any(d == direction and m == view for f in findings for d, m, _ in f.verdicts))]


def _net_witnesses(pair: _Pair, proven: dict[tuple[str, str], str], findings: list[DiffFinding],
                   old_end: tuple[Side, str], new_end: tuple[Side, str],
                   baseline: dict[str, tuple[Any, set]]) -> dict[tuple[str, str], Witness]:
    """Witnesses for what no finding explains: drawn from the set difference (jsonschema-rs `subtract`) and from
    the baseline payloads."""
    witnesses: dict[tuple[str, str], Witness] = {}
    if not pair.options.witnesses:
        return witnesses
    presence: dict[tuple[str, str], Witness] | None = None  # diff/witness.py presence_probes, judged once
    for direction in DIRECTIONS:
        open_views = _open_views(proven, findings, direction)
        writer, reader = (new_end, old_end) if direction == FORWARD else (old_end, new_end)
        drawn: dict[str, dict[tuple[str, str], Witness]] = {}  # by the view asked (Side.view_of): drawn once
        for view in open_views:
            asked = reader[0].view_of(reader[1], view)
            if asked not in drawn:
                rest = semantic.difference(writer[0], writer[1], reader[0], reader[1], view)
                drawn[asked] = from_difference(rest, writer, old_end, new_end)
            found = drawn[asked]
            if (direction, view) not in found:  # members required together or apart: their combinations
                if presence is None:
                    presence = judge(presence_probes(old_end, new_end), old_end, new_end)
                found = presence
            if (direction, view) in found:
                witnesses[(direction, view)] = found[(direction, view)]
        for payload, dvs in baseline.values():
            for dv in dvs:
                if dv[0] == direction and dv[1] in open_views and dv not in witnesses:
                    witnesses[dv] = judge([payload], old_end, new_end)[dv]
    return witnesses


def _locally_safe(pair: _Pair, change: Change, dv: tuple[str, str]) -> bool:
    """Whether the two schemas at a change's own path are contained in the direction `dv` breaks: then this change
    breaks nobody there, whatever else in the message does (an enum value added beside an open string member)."""
    if not change.old_location or not change.new_location:
        return False
    direction, view = dv
    writer, reader = ((pair.new, change.new_location), (pair.old, change.old_location)) if direction == FORWARD else (
        (pair.old, change.old_location), (pair.new, change.new_location))
    return semantic.contained(writer[0], writer[1], reader[0], reader[1], view) == SAFE  # remembered there


def _safety_net(pair: _Pair, kind: str, surface: str, proven: dict[tuple[str, str], str],
                findings: list[DiffFinding], old_end: tuple[Side, str], new_end: tuple[Side, str],
                net: dict[tuple[str, str], Witness]) -> list[DiffFinding]:
    out = []
    for direction in DIRECTIONS:
        open_views = _open_views(proven, findings, direction)
        if not open_views:
            continue
        witnesses = {dv: w for dv, w in net.items() if dv[0] == direction and dv[1] in open_views}
        verdicts = {}
        for view in open_views:
            if (direction, view) in witnesses or proven[(direction, view)] == BREAKING:
                verdicts[(direction, view)] = BREAKING
            else:
                verdicts[(direction, view)] = UNKNOWN
        if all(v == UNKNOWN for v in verdicts.values()):
            rule = "SCHEMA_CHANGE_UNDECIDED"
        else:
            rule = "SCHEMA_WIDENED" if direction == FORWARD else "SCHEMA_NARROWED"
        size = max(old_end[0].source_size(old_end[1]), new_end[0].source_size(new_end[1]))
        budget = f" ({size:,} bytes written, refs followed; covers asks up to {semantic.SOURCE_BUDGET_BYTES:,})" \
            if size > semantic.SOURCE_BUDGET_BYTES else ""
        out.append(pair.finding(rule, kind, surface, {"direction": direction}, old_location=old_end[1],
                                new_location=new_end[1], verdicts=verdicts, witnesses=witnesses.values(),
                                key=direction, evidence=witnesses, undecided=(
                                    "no rule explains this direction, no payload drawn from the set difference "
                                    f"breaks it, and set containment could not decide it{budget}")))
    return out


def diff_schemas(old_schema: Any, new_schema: Any, options: DiffOptions | None = None, *,
                 old_name: str = "old", new_name: str = "new", files: tuple[str, str] | None = None,
                 old_resources: dict[str, Any] | None = None,
                 new_resources: dict[str, Any] | None = None, kinds: str = "auto") -> DiffResult:
    """Two raw JSON Schemas (users outside the catalog), producer → consumer. `kinds`: "auto" reports per message
    kind when both schemas are unions of messages, or sets of definitions (diff/derive.py); "none" (or schemas of
    neither shape) compares them as one pseudo-kind `schema`."""
    from wirecheck.diff.derive import derive

    options = options or DiffOptions()
    old_id = old_schema.get("$id") if isinstance(old_schema, dict) else None
    new_id = new_schema.get("$id") if isinstance(new_schema, dict) else None
    # A schema without an $id gets one with an empty last segment, so its locations read `#/pointer` (the side
    # is named beside them); a file name there would be made up, and would change a waiver's fingerprint.
    old_id = old_id or "https://schemas.wirecheck.invalid/diff-schemas/old/"
    new_id = new_id or "https://schemas.wirecheck.invalid/diff-schemas/new/"
    old_resources = {**(old_resources or {}), old_id: old_schema}
    new_resources = {**(new_resources or {}), new_id: new_schema}
    old_kinds = derive(old_resources, old_id + "#", "old") if kinds == "auto" else None
    new_kinds = derive(new_resources, new_id + "#", "new") if kinds == "auto" else None
    if old_kinds is None or new_kinds is None or old_kinds.by_definition != new_kinds.by_definition:
        old_kinds = new_kinds = None
    old_side = Side("old", {**old_resources, **(old_kinds.resources if old_kinds else {})}, old_name,
                    origins=old_kinds.origins if old_kinds else {})
    new_side = Side("new", {**new_resources, **(new_kinds.resources if new_kinds else {})}, new_name,
                    origins=new_kinds.origins if new_kinds else {})
    pair = _Pair("schema", old_name, new_name, old_side, new_side, options)
    with cycle_collector_paused():
        if old_kinds is None or new_kinds is None:
            findings, verdict = compare_surface(pair, "schema", "schema", old_id + "#", new_id + "#")
            verdicts = [verdict]
        else:
            findings, verdicts = _diff_derived(pair, old_kinds.kinds, new_kinds.kinds, old_kinds.whole or old_id + "#",
                                               new_kinds.whole or new_id + "#")
    # Two schemas that accept every payload (annotations only, `true`, a changed `$id`) are compared like any
    # others: they accept the same messages, so they are compatible — a gate on such a schema passes
    return DiffResult("schema", old_name, new_name, tuple(_ordered(findings)), tuple(verdicts), None, files=files)


def _diff_derived(pair: _Pair, old_kinds: list[DerivedKind], new_kinds: list[DerivedKind], old_root: str,
                  new_root: str) -> tuple[list[DiffFinding], list[KindVerdict]]:
    """Kinds derived from two raw schemas: matched by id, else by key (a method and role under another name), else
    (kinds told apart by validation) by shape and use; each matched pair compared like a catalog's kind, the others
    added or removed. `old_root`, `new_root`: the schemas every message of a side satisfies."""
    from wirecheck.diff.derive import match_derived

    findings: list[DiffFinding] = []
    verdicts: list[KindVerdict] = []
    matched, only_old, only_new = match_derived(old_kinds, new_kinds)
    alike, only_old, only_new = _match_by_shape_and_use(pair, only_old, only_new, old_kinds, new_kinds)
    matched += alike
    _own_ring_changes(pair, [(new_kind.id, old_kind.location, new_kind.location) for old_kind, new_kind in matched])
    for old_kind, new_kind in matched:
        if old_kind.id != new_kind.id:
            findings.append(pair.finding("MESSAGE_KIND_RENAMED", new_kind.id, "kind",
                                         {"old": old_kind.id, "new": new_kind.id}, key=old_kind.id))
        found, verdict = compare_surface(pair, new_kind.id, "schema", old_kind.location, new_kind.location,
                                         old_kind.id)
        findings += found
        verdicts.append(verdict)
    for kind in only_new:
        if not kind.document:  # a definition no message refers to, appearing: nobody read it before
            findings += _derived_kind_changed(pair, kind, "MESSAGE_KIND_ADDED", (pair.new, kind.location),
                                              (pair.old, old_root))
    for kind in only_old:
        if not kind.document:  # going (or now referred to by a message, compared there): a helper's going as much
            findings += _derived_kind_changed(pair, kind, "MESSAGE_KIND_REMOVED", (pair.old, kind.location),
                                              (pair.new, new_root))
    return findings, verdicts


def _common_names(side: Side, kinds: list[DerivedKind]) -> dict[str, set[str]]:
    """Per union (a kind's `uses`), the property names more than half of its 3 or more members have: `_meta` on
    every MCP result, `jsonrpc` and `id` in JSON-RPC's envelopes. They say nothing about which member is which."""
    members: dict[str, list[set[str]]] = {}
    for kind in kinds:
        names = set(flatten(side, kind.location).properties)
        for use in kind.uses:
            members.setdefault(use, []).append(names)
    return {use: {n for n in set().union(*listed) if sum(n in names for names in listed) * 2 > len(listed)}
            for use, listed in members.items() if len(listed) >= 3}


def _match_by_shape_and_use(pair: _Pair, only_old: list[DerivedKind], only_new: list[DerivedKind],
                            old_kinds: Sequence[DerivedKind] = (), new_kinds: Sequence[DerivedKind] = ()) -> tuple[
        list[tuple[DerivedKind, DerivedKind]], list[DerivedKind], list[DerivedKind]]:
    """Kinds told apart by validation (named by a definition or a title, not a method) that one side calls by
    another name: matched when written alike (a definition renamed, `$ref`s followed: MCP's `JSONRPCError` →
    `JSONRPCErrorResponse`), else when listed by the same union with half their property names or more in common
    (best first), names most of that union's members have left out (MCP 2025-11-25's `GetTaskPayloadResult`, gone
    with tasks, and 2026-07-28's new `SubscriptionsListenResult` share only `_meta`, which every result has: no
    rename). A kind named by a method is matched by its method alone: readers dispatch on it."""
    matched: list[tuple[DerivedKind, DerivedKind]] = []
    left_old = [k for k in only_old if not k.dispatch]
    left_new = [k for k in only_new if not k.dispatch]
    for kind in list(left_old):
        twin = next((k for k in left_new if same_shape(pair.old, kind.location, pair.new, k.location)), None)
        if twin is not None:
            matched.append((kind, twin))
            left_old.remove(kind)
            left_new.remove(twin)
    scored = []
    common_old = _common_names(pair.old, list(old_kinds)) if left_old and left_new else {}
    common_new = _common_names(pair.new, list(new_kinds)) if left_old and left_new else {}
    for a in left_old:
        for b in left_new:
            shared = set(a.uses) & set(b.uses)
            common = set().union(*(common_old.get(u, set()) | common_new.get(u, set()) for u in shared))
            names_a = set(flatten(pair.old, a.location).properties) - common
            names_b = set(flatten(pair.new, b.location).properties) - common
            if shared and names_a and names_b:
                scored.append((len(names_a & names_b) / len(names_a | names_b), a.id, b.id, a, b))
    for score, _, _, a, b in sorted(scored, key=lambda s: (-s[0], s[1], s[2])):
        if score >= 0.5 and a in left_old and b in left_new:
            matched.append((a, b))
            left_old.remove(a)
            left_new.remove(b)
    done = {id(k) for pair_ in matched for k in pair_}
    return (matched, [k for k in only_old if id(k) not in done], [k for k in only_new if id(k) not in done])


def _derived_kind_changed(pair: _Pair, kind: DerivedKind, rule: str, own: tuple[Side, str],
                          other: tuple[Side, str]) -> list[DiffFinding]:
    """A kind one side lacks. Named by a method or a definition, readers tell it by that name, so the other side
    has no kind for it whatever its union accepts (a catalog's selector, in effect): breaking as MESSAGE_KIND_*
    says. Named only by titles or tags, readers tell it by validation: breaking where the other side's whole schema
    rejects one of its messages (the witness, checked by both validators), safe where it provably accepts all."""
    added = rule == "MESSAGE_KIND_ADDED"
    direction = FORWARD if added else BACKWARD
    params = {"selector": kind.selector, "producer": "producer", "consumer": "consumer"}
    shown_at = kind.written or kind.location
    where: dict[str, Any] = {"new_location": shown_at} if added else {"old_location": shown_at}
    payloads = []
    try:
        payload = example(own[0], own[1])
        if own[0].judge(own[1], STRICT, payload)[0]:
            payloads.append(payload)
    except Exception:  # no example for this schema (NoExample, or a construct the generator cannot build)
        pass
    views = (STRICT,) if added else VIEWS
    if kind.dispatch:
        reason = f"no message kind of {other[0].label} has the {kind.selector}"
        witnesses = [Witness(p, direction, view, other[0].name, reason) for p in payloads for view in views]
        return [pair.finding(rule, kind.id, "kind", params, **where, witnesses=witnesses,
                             verdicts=dict.fromkeys(((direction, view) for view in views), BREAKING))]
    ends = (other, own) if added else (own, other)
    found = judge(payloads, *ends, confirm=pair.options.witnesses)
    verdicts: dict[tuple[str, str], str] = {}
    for view in VIEWS:
        if (direction, view) in found:
            verdicts[(direction, view)] = BREAKING
        else:
            writer, reader = own, other
            verdicts[(direction, view)] = semantic.contained(writer[0], writer[1], reader[0], reader[1], view)
    if all(v == SAFE for v in verdicts.values()):
        return []  # its messages are still read (as another kind's): nothing to report
    shown = [w for dv, w in found.items() if dv[0] == direction] if pair.options.witnesses else []
    return [pair.finding(rule, kind.id, "kind", params, **where, witnesses=shown, verdicts=verdicts, evidence=found)]


