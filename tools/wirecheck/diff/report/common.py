"""The one report model every diff format renders: per pair the answer first (who breaks, the version verdict,
what to do), then each change once (diff/changes.py), then the gate line of the run's one gate decision.

JSON and SARIF keep the flat list of findings as well; the human formats (text, Markdown, HTML, JUnit) render
only this model, so a pair reads the same in every one of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from wirecheck.diff.changes import Change, group_changes
from wirecheck.diff.model import (
    BACKWARD,
    BREAKING,
    DIRECTIONS,
    FORWARD,
    ITEM,
    LATENT,
    SAFE,
    STRICT,
    TOLERANT,
    UNKNOWN,
    VIEWS,
    DiffFinding,
    DiffResult,
    Witness,
)
from wirecheck.diff.verdict.upgrade import Answer, Flow, answer, role_name
from wirecheck.json_types import json_bytes
from wirecheck.pointer import parse_pointer

DIRECTION_TEXT = {
    FORWARD: "forward (old readers, new writers)",
    BACKWARD: "backward (new readers, old writers)",
}
VIEW_TEXT = {STRICT: "strict consumers", TOLERANT: "tolerant consumers"}
MARK = {BREAKING: "✗", UNKNOWN: "?", SAFE: "✓"}
# a pair whose every break rests on latent evidence (verdict_word)
LATENT_WORD = "breaking only for writers of undeclared members (latent)"
# The legend: (term, what it means, the marks in a report that call for it). A human report prints the entries whose
# marks it uses (`legend_for`), so every symbol it shows is explained and nothing it does not show is.
LEGEND = (
    ("forward", "old readers, new writers", ("forward",)),
    ("backward", "new readers, old writers or stored messages", ("backward",)),
    ("←", "reader ← writer; a peer is either side", ("←",)),
    ("tolerant / strict", "readers that ignore / reject unknown fields", ("tolerant", "strict")),
    ("✗ / ? / ✓", "breaks (a witness or set containment proves it) / undecided / safe, for both kinds of reader unless "
                  "a note says which", ("✗", "✓", "?")),
    ("(strict only) / (tolerant only)", "the mark before it holds for that kind of reader alone",
     ("(strict only)", "(tolerant only)")),
    ("{a, b, c, … (N in all)}", "one change at N places or values of the same kind, the first three shown",
     (re.compile(r"… \(\d[\d,]* in all\)"),)),
    ("(as N)", "a message of a union judged as its member N (counted from 0; a named member by its name), the one it "
               "came closest to", (re.compile(r"\(as \d+\)"),)),
    ("·", "about the version, not a message", ("·",)),
    ("latent", "breaks only a writer that sends members its contract never declared: a warning unless --strict-sets",
     ("latent",)),
    ("witness", "a message one release accepts and the other rejects (… elides)", ("witness",)),
    ("RULE_ID", "the diff rule (wirecheck rules); fingerprints for waivers: --format json",
     (re.compile(r"\b[A-Z][A-Z0-9]+(?:_[A-Z0-9]+)+\b"),)),
)


def legend_for(body: str) -> list[tuple[str, str]]:
    """The legend entries `body` (a report's text, tags stripped) calls for: those whose marks it uses."""
    return [(term, words) for term, words, marks in LEGEND
            if any(m.search(body) if isinstance(m, re.Pattern) else m in body for m in marks)]
# what happened to a member, for the property rules (every other rule's message says it in full)
MEMBER_VERB = {
    "REQUIRED_PROPERTY_ADDED": "added (required)",
    "PROPERTY_ADDED": "added (optional)",
    "PROPERTY_ADDED_TO_CLOSED_MODEL": "added (optional) to a closed object",
    "REQUIRED_PROPERTY_REMOVED": "removed (was required)",
    "PROPERTY_REMOVED": "removed (was optional)",
    "PROPERTY_REMOVED_FROM_CLOSED_MODEL": "removed (was optional); the new object is closed",
    "PROPERTY_BECAME_REQUIRED": "now required",
    "PROPERTY_BECAME_OPTIONAL": "now optional",
    "MESSAGE_KIND_ADDED": "new kinds",
    "MESSAGE_KIND_REMOVED": "kinds removed",
}
# rules whose findings at one member differ only by one value: (words, the parameter that names the value)
VALUE_VERB = {
    "UNION_BRANCH_ADDED": ("union gained members", "branch"),
    "UNION_BRANCH_REMOVED": ("union lost members", "branch"),
    "ENUM_VALUE_ADDED": ("enum values added", "value"),
    "ENUM_VALUE_REMOVED": ("enum values removed", "value"),
}


@dataclass(frozen=True)
class PairReport:
    result: DiffResult
    answer: Answer
    changes: tuple[Change, ...]  # the changes this report lists (a jump leaves out those its steps show)
    jump: bool = False  # a pair that skips releases, listed because it fails the gate where no step does
    shown_in_steps: int = 0  # a jump's changes left out because a consecutive pair lists them already

    @property
    def anchor(self) -> str:
        return pair_anchor(self.result)


@dataclass(frozen=True)
class RunReport:
    pairs: tuple[PairReport, ...]
    gate_line: str
    exit_code: int


def build(run: Any) -> RunReport:
    """The model of a whole run (a `DiffRun`)."""
    shown = {f.fingerprint for r in run.results if not _is_jump(run, r) for f in r.findings}
    pairs = []
    for result in run.results:
        changes = group_changes(result)
        if _is_jump(run, result):
            kept = tuple(c for c in changes if any(f.fingerprint not in shown for f in c.findings))
            pairs.append(PairReport(result, answer(result, run.options), kept, True, len(changes) - len(kept)))
        else:
            pairs.append(PairReport(result, answer(result, run.options), changes))
    return RunReport(tuple(pairs), gate_line(run), run.exit_code())


def pair_report(result: DiffResult, run: Any) -> PairReport:
    return PairReport(result, answer(result, run.options), group_changes(result))


def gate_line(run: Any) -> str:
    """The gate line every format shows: the run's one gate decision (diff/gate.py), the one its exit code is."""
    return str(run.gate.summary())


def plural(count: int, word: str, words: str | None = None) -> str:
    return f"{count} {word if count == 1 else words or word + 's'}"


def change_counts(report: RunReport) -> dict[str, int]:
    """The changes a human report lists, by severity (waived apart): the unit its pair headings count too."""
    counts = {"error": 0, "warning": 0, "info": 0, "waived": 0}
    for pair in report.pairs:
        for change in pair.changes:
            counts["waived" if change.waived else change.severity.value] += 1
    return counts


def counts_text(counts: dict[str, int]) -> str:
    """`14 changes: 7 errors, 5 warnings, 2 info` (waived ones too, when there are)."""
    total = sum(counts.values())
    parts = [plural(counts["error"], "error"), plural(counts["warning"], "warning"), f"{counts['info']} info"]
    if counts["waived"]:
        parts.append(f"{counts['waived']} waived")
    return f"{plural(total, 'change')}: {', '.join(parts)}" if total else "no changes"


def gate_why(run: Any, report: RunReport) -> str:
    """Why the gate fails, counted in changes as the report lists them (the gate counts findings: several findings
    of one change are one reason here): `3 changes break a protected consumer; 1 version finding`."""
    change_of: dict[str, int] = {}
    for pair in report.pairs:
        for change in pair.changes:
            for finding in change.findings:
                change_of.setdefault(finding.fingerprint, id(change))
    groups: dict[str, set] = {}
    for reason in run.gate.reasons:
        key = change_of.get(reason.finding.fingerprint, reason.finding.fingerprint) if reason.finding is not None \
            else reason.text
        groups.setdefault(reason.code, set()).add(key)
    words = {"nothing-compared": ("pair compared nothing", "pairs compared nothing"),
             "breaks": ("change breaks a protected consumer", "changes break a protected consumer"),
             "latent": ("change breaks a protected consumer only for writers of undeclared members",
                        "changes break a protected consumer only for writers of undeclared members"),
             "risk": ("change may break a consumer or breaks one not protected",
                      "changes may break a consumer or break one not protected"),
             "release": ("version finding", "version findings"),
             "waiver": ("stale or expired waiver", "stale or expired waivers"),
             "undecided": ("change of a declared member undecided", "changes of a declared member undecided")}
    return "; ".join(f"{len(groups[code])} {one if len(groups[code]) == 1 else many}"
                     for code, (one, many) in words.items() if code in groups)


def gate_text(run: Any, report: RunReport) -> str:
    """The gate line of the human formats: the same decision as `gate_line`, its reasons counted in changes."""
    gate = run.gate
    why = gate_why(run, report)
    return f"gate --fail-on {gate.fail_on}: {gate.verdict} ({gate.protects}{'; ' + why if why else ''})"


def _is_jump(run: Any, result: DiffResult) -> bool:
    return any(package.is_jump(result) for package in run.packages)


def unchanged_text(results: list[DiffResult]) -> str:
    """The pairs without a change on the wire, in one line: `no changes on the wire (against HEAD): xopc 0.0.251,
    0.0.253; acp 0.5.1 → 0.8.0`. A pair of one release against a git ref (`0.0.251 (HEAD)` → `0.0.251`) is named by
    its version, the ref said once."""
    refs = {r.old_version[len(r.new_version) + 1:] for r in results if r.old_version.startswith(r.new_version + " (")}
    ref = refs.pop() if len(refs) == 1 else None
    by_package: dict[str, list[str]] = {}
    for r in results:
        same = ref is not None and r.old_version == f"{r.new_version} {ref}"
        by_package.setdefault(r.package, []).append(r.new_version if same else f"{r.old_version} → {r.new_version}")
    against = f" (against {ref[1:-1]})" if ref else ""
    return f"no changes on the wire{against}: " + "; ".join(f"{package} {', '.join(versions)}"
                                                            for package, versions in by_package.items())


def pair_anchor(result: DiffResult) -> str:
    """An id for links to a pair's details (HTML, Markdown)."""
    return _slug(f"{result.package}-{result.old_version}-{result.new_version}")


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-._" else "-" for c in text)


# --- the answer --------------------------------------------------------------------------------------------------

def breaking_readers(a: Answer, direction: str) -> str:
    """Who breaks in one direction, as `reader ← writer` per flow: `old sdk ← new cli, old cli ← new sdk
    (undecided)` ("strict readers only" where only closed-model readers break and the run does not protect them)."""
    parts = []
    for flow in a.flows:
        verdict = flow.breaks(direction, a.views)
        strict_only = verdict == SAFE and flow.get(direction, STRICT) == BREAKING
        old, new = ("old", "new") if direction == FORWARD else ("new", "old")
        who = f"{old} {role_name(flow.reader)} ← {new} {role_name(flow.writer)}"
        if verdict == BREAKING:
            latent = not a.strict_sets and flow.latent_only(direction, a.views)
            parts.append(f"{who} (latent)" if latent else who)
        elif verdict == UNKNOWN:
            parts.append(f"{who} (undecided)")
        elif strict_only:
            parts.append(f"{who} (strict readers only)")
    return ", ".join(parts) or "nobody"


def verdict_word(a: Answer) -> str:
    found = {flow.breaks(d, a.views) for flow in a.flows for d in DIRECTIONS}
    if BREAKING in found and not a.strict_sets and all(flow.latent_only(d, a.views) for flow in a.flows
                                                        for d in DIRECTIONS if flow.breaks(d, a.views) == BREAKING):
        return LATENT_WORD
    return "breaking" if BREAKING in found else "undecided" if UNKNOWN in found else "compatible"


def flows_table(a: Answer) -> list[tuple[str, str, str]]:
    """(writer → reader, forward cell, backward cell) per flow: marks for tolerant and strict readers."""
    def cell(flow: Flow, direction: str) -> str:
        return f"{MARK[flow.get(direction, TOLERANT)]} tolerant, {MARK[flow.get(direction, STRICT)]} strict"
    return [(f"{role_name(f.writer)} → {role_name(f.reader)}", cell(f, FORWARD), cell(f, BACKWARD)) for f in a.flows]


def version_text(result: DiffResult, a: Answer) -> str:
    text = a.version_text
    v = result.version
    if v is not None and v.old_wire is not None and v.new_wire is not None:
        text += f"; wire version {v.old_wire} → {v.new_wire}"
    return text


# --- changes -----------------------------------------------------------------------------------------------------

def change_verdict(change: Change) -> str:
    """`forward ✗, backward ? (strict only)`: where the change breaks (a mark alone holds for tolerant and strict
    consumers alike), `breaks nobody` when it has verdicts and all are safe, "" for a change about the release itself
    (a version: no verdicts, nothing on the wire to break)."""
    if not any(f.verdicts for f in change.findings):
        return ""
    parts = []
    for direction in DIRECTIONS:
        marks = {m: change.verdict(direction, m) for m in VIEWS}
        worst = BREAKING if BREAKING in marks.values() else UNKNOWN if UNKNOWN in marks.values() else SAFE
        if worst != SAFE:
            views = [m for m in (TOLERANT, STRICT) if marks[m] == worst]
            latent = worst == BREAKING and all(change.evidence(direction, m) == LATENT for m in views)
            parts.append(f"{direction} {MARK[worst]}{'' if len(views) == len(VIEWS) else f' ({views[0]} only)'}"
                         f"{' (latent)' if latent else ''}")
    return ", ".join(parts) or "breaks nobody"


@dataclass(frozen=True)
class Statement:
    """One thing said about a change: a rule, its words, and the members it is about with their fingerprints."""

    rule: str
    what: str  # `added (required)`, or a finding's message without the path its member names
    members: tuple[tuple[str, tuple[str, ...]], ...]  # (member name or value, fingerprints); "" = the change itself
    member: str = ""  # the member a value statement is about (`union gained members`)

    def parts(self) -> tuple[str, list[tuple[str, tuple[str, ...]]]]:
        """(the member it leads with, or "", [(member or value, fingerprints)] listed after the words): every format
        says a statement in this order: `lead: what [RULE]: listed`."""
        if self.rule in MEMBER_VERB:
            return "", list(self.members)
        if self.rule in VALUE_VERB:
            return self.member, list(self.members)
        name, fingerprints = self.members[0]
        return name, [("", fingerprints)]

    def text(self) -> str:
        """`added (required) [REQUIRED_PROPERTY_ADDED]: a, b`, `a: union gained members [RULE]: X`, or
        `a: constant changed … [RULE]` (fingerprints are ids for JSON, SARIF and waivers, not for the prose)."""
        lead, listed = self.parts()
        return f"{lead + ': ' if lead else ''}{self.what} [{self.rule}]{self.listed(listed)}"

    @staticmethod
    def listed(listed: list[tuple[str, tuple[str, ...]]], show=lambda name: name) -> str:
        """`: a, b` — the members or values a statement lists after its words, "" when it lists none."""
        names = [show(name) for name, _ in listed if name]
        return ": " + ", ".join(names) if names else ""


def member_statements(change: Change) -> list[Statement]:
    """What happened inside a change. Property and kind rules are gathered by rule (`added (required)`: every
    member added as required); union members and enum values by rule and member; every other finding is its own
    statement, its message without the path its member already names. The same statement in several kinds is
    given once, with every fingerprint."""
    by_rule: dict[str, dict[str, list[str]]] = {}
    by_value: dict[tuple[str, str], dict[str, list[str]]] = {}
    rest: dict[tuple[str, str, str], list[str]] = {}
    for member in change.members:
        name = member_name(member.path)
        for finding in member.findings:
            if finding.rule in MEMBER_VERB and member.path:
                by_rule.setdefault(finding.rule, {}).setdefault(name, []).append(finding.fingerprint)
            elif finding.rule in VALUE_VERB and VALUE_VERB[finding.rule][1] in dict(finding.params):
                value = str(dict(finding.params)[VALUE_VERB[finding.rule][1]])
                by_value.setdefault((finding.rule, name), {}).setdefault(value, []).append(finding.fingerprint)
            else:
                what = finding.message.replace(f" at {finding.path or '/'}", "") if member.path else finding.message
                rest.setdefault((finding.rule, what, name), []).append(finding.fingerprint)
    out = [Statement(rule, MEMBER_VERB[rule], tuple((n, tuple(f)) for n, f in by_rule[rule].items()))
           for rule in MEMBER_VERB if rule in by_rule]
    out += [Statement(rule, VALUE_VERB[rule][0], tuple((v, tuple(f)) for v, f in values.items()), name)
            for (rule, name), values in by_value.items()]
    return out + [Statement(rule, what, ((name, tuple(fps)),)) for (rule, what, name), fps in rest.items()]


def member_name(path: str) -> str:
    return path.replace("/" + ITEM, "[]").replace("/{name}", "{}").replace(ITEM, "[]")


def places_of(change: Change) -> list[tuple[str, list[str]]]:
    """(place, kinds) where a change shows: `message at /request`, the kinds it shows there."""
    places: dict[str, list[str]] = {}
    for where in change.where:
        places.setdefault(where.text()[len(where.kind) + 2:-1], []).append(where.kind)
    return list(places.items())


def where_text(change: Change, limit: int = 6) -> str:
    """`a, b (message at /request); c (reply)`: the kinds a change shows in, those at the same place named together
    (the place once), at most `limit` kinds."""
    shown, parts = 0, []
    for place, kinds in places_of(change):
        if shown >= limit:
            break
        parts.append(f"{', '.join(kinds[:limit - shown])} ({place})")
        shown += len(kinds[:limit - shown])
    more = len(change.where) - shown
    return "; ".join(parts) + (f" and {more} more" if more > 0 else "")


# --- witnesses ---------------------------------------------------------------------------------------------------

def payload_text(payload: object, limit: int = 300) -> str:
    text = json_bytes(payload, sort_keys=True).decode()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def short_payload(payload: Any, path: str, limit: int = 100) -> str:
    """`payload` as JSON, cut down to the way to `path` (an instance path; `*` any item): other members become
    `…`, so the changed part shows however large the message is."""
    return _short(payload, list(parse_pointer(path)) if path else [], limit)


def _short(value: Any, path: list[str], limit: int) -> str:
    if not path:
        return _elided(value, limit)
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        if head in value:
            inner = f"{json_bytes(head).decode()}:{_short(value[head], rest, limit)}"
            return "{" + inner + (",…" if len(value) > 1 else "") + "}"
        return _elided(value, limit)
    if isinstance(value, list) and value:
        index = int(head) if head.isdigit() and int(head) < len(value) else 0
        return "[" + ("…," if index else "") + _short(value[index], rest, limit) + (
            ",…" if index < len(value) - 1 else "") + "]"
    return payload_text(value, limit)


def _elided(value: Any, limit: int) -> str:
    """Compact JSON of `value`; past `limit`, an object's or array's members with their own contents elided
    (`{"a":{…},"b":[…],…}`), so the top-level shape still shows."""
    text = payload_text(value, 10**9)
    if len(text) <= limit or not isinstance(value, dict | list) or not value:
        return text if len(text) <= limit else text[: limit - 1] + "…"
    items = [(json_bytes(k).decode() + ":", v) for k, v in sorted(value.items())] if isinstance(value, dict) \
        else [("", v) for v in value]
    parts: list[str] = []
    for key, item in items:
        inner = payload_text(item, 10**9)
        if len(inner) > 12 and isinstance(item, dict | list):
            inner = "{…}" if isinstance(item, dict) else "[…]"
        if sum(len(p) + 1 for p in parts) + len(key) + len(inner) > limit:
            parts.append("…")
            break
        parts.append(key + inner)
    return ("{" if isinstance(value, dict) else "[") + ",".join(parts) + ("}" if isinstance(value, dict) else "]")


def witness_path(change: Change, witness: Witness) -> str:
    """The instance path a witness of `change` is about: its own (a member of a grouped finding), else its
    finding's."""
    if witness.at:
        return witness.at
    for finding in change.findings:
        if any(w is witness for w in finding.witnesses):
            return finding.path
    return ""


def witness_text(witness: Witness, path: str = "", limit: int = 100, reason_limit: int = 160) -> str:
    """`forward/tolerant {"a":1,…} — old rejects: <the validator's reason>` (`limit` 0: the whole payload)."""
    reason = witness.reason if len(witness.reason) <= reason_limit else witness.reason[: reason_limit - 1] + "…"
    payload = short_payload(witness.payload, path, limit) if limit else payload_text(witness.payload, 10**9)
    latent = f" (latent: {', '.join(witness.undeclared)} never declared by the writer's contract)" \
        if witness.undeclared else ""
    return f"{witness.direction}/{witness.view} {payload} — {witness.rejected_by} rejects: {reason}{latent}"


def witnessed_elsewhere(finding: DiffFinding) -> str:
    """`witnessed in R10 at /next/size` for a finding whose change was witnessed in another kind (a change inside a
    `$ref` ring, witnessed once: DiffFinding.witnessed_in), else ""."""
    if finding.witnessed_in is None:
        return ""
    kind, path = finding.witnessed_in
    return f"witnessed in {kind} at {path or '/'}"


def breaks_text(finding: DiffFinding) -> str:
    """A single finding's verdicts (`breaks forward/strict; unknown backward/tolerant`), for the flat formats."""
    breaking = [f"{d}/{m}{' (latent)' if (d, m) in finding.latent else ''}" for d, m, v in finding.verdicts
                if v == BREAKING]
    unknown = [f"{d}/{m}" for d, m, v in finding.verdicts if v == UNKNOWN]
    out = []
    if breaking:
        out.append("breaks " + ", ".join(breaking))
    if unknown:
        out.append("unknown " + ", ".join(unknown))
    return "; ".join(out) or "breaks nobody"


def unique_witnesses(finding: DiffFinding) -> list[Witness]:
    """One witness per distinct payload (the same payload often proves both consumer models)."""
    seen: dict[bytes, Witness] = {}
    for witness in finding.witnesses:
        key = json_bytes(witness.payload, sort_keys=True) + witness.direction.encode()
        seen.setdefault(key, witness)
    return list(seen.values())
