"""A release's behaviour obligations (`contracts/<package>/<version>/behaviour.yaml`): what its real readers depend on
beyond each message — order, count, references between messages, answered requests, the negotiated version,
cancellation honoured, and how the process that wrote the messages ends.

Data only: each obligation is one of a few forms (`FORMS`) with its parameters, a level that follows what its reader
does when it is broken (rejects, hangs or misreads: MUST; tolerates: SHOULD or MAY), and the reader's line a user can
open. check/sequences.py and check/outcome.py judge captures by them; certify turns each into a requirement.
Format: tools/wirecheck/schemas/behaviour.schema.json, contracts/README.md "Behaviour".
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from wirecheck.contracts.model import FieldConditions, Provenance
from wirecheck.pointer import MISSING as ABSENT
from wirecheck.pointer import getter, parse_pointer

BEHAVIOUR_FILE = "behaviour.yaml"

# The forms an obligation takes, each judged by one monitor (check/sequences.py; the process forms: check/outcome.py)
SEQUENCE_FORMS = ("first", "last", "count", "alternates", "unique", "refers", "answered", "negotiated", "leads_to")
OUTCOME_FORMS = ("exit_status", "exits", "final_newline")
FORMS = SEQUENCE_FORMS + OUTCOME_FORMS
# what the reader does when the obligation is broken → the levels that may say so
REACTIONS = {"rejects": ("MUST",), "hangs": ("MUST",), "misreads": ("MUST",), "tolerates": ("SHOULD", "MAY")}

@dataclass(frozen=True)
class Place:
    """Where values are in a message: a pointer (`*` for every item of an array), a parameter of the kind's HTTP
    path template, or the items of an array that meet conditions and a pointer into each. Compiled once (`_find`),
    as it is read in every message of its kinds."""

    tokens: tuple[str, ...] | None = None
    path: str | None = None
    each: tuple[str, ...] | None = None
    each_where: FieldConditions = ()
    _find: Callable[[Any], list[Any]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_find", _finder(self.tokens or (), self.each, self.each_where))

    def __reduce__(self) -> tuple[Any, ...]:  # its fields, not its compiled finder (a closure)
        return Place, (self.tokens, self.path, self.each, self.each_where)

    @property
    def text(self) -> str:
        from wirecheck.pointer import format_pointer

        if self.path is not None:
            return f"{{{self.path}}}"
        if self.each is not None:
            return f"{format_pointer(self.each)}/*{format_pointer(self.tokens or ())}"
        return format_pointer(self.tokens or ())

    def values(self, value: Any, path_params: dict[str, str] | None = None) -> list[Any]:
        """The values at this place of a message (none where it has none)."""
        if self.path is not None:
            found = (path_params or {}).get(self.path)
            return [] if found is None else [found]
        return self._find(value)


def _finder(tokens: tuple[str, ...], each: tuple[str, ...] | None,
            where: FieldConditions) -> Callable[[Any], list[Any]]:
    at = _at_compiled(tokens)
    if each is None:
        return at
    items_of, meets = getter(each), condition_test(where)

    def each_item(value: Any) -> list[Any]:
        items = items_of(value)
        if not isinstance(items, list):
            return []
        out = []
        for item in items:
            if meets(item):
                out.extend(at(item))
        return out

    return each_item


def _at_compiled(tokens: tuple[str, ...]) -> Callable[[Any], list[Any]]:
    """The values at a pointer whose `*` tokens stand for every item of an array."""
    if "*" in tokens:
        star = tokens.index("*")
        items_of, inner = getter(tokens[:star]), _at_compiled(tokens[star + 1:])

        def every(value: Any) -> list[Any]:
            items = items_of(value)
            return [found for item in items for found in inner(item)] if isinstance(items, list) else []

        return every
    get = getter(tokens)

    def at(value: Any) -> list[Any]:
        found = get(value)
        return [] if found is ABSENT else [found]

    return at


def condition_test(conditions: FieldConditions) -> Callable[[Any], bool]:
    """Whether a value meets every condition (the pointer holds one of the accepted values), compiled once."""
    tests = tuple((getter(tokens), accepted) for tokens, accepted in conditions)

    def meets(value: Any) -> bool:
        for get, accepted in tests:
            found = get(value)
            if found is ABSENT or isinstance(found, dict | list) or _key(found) not in accepted:
                return False
        return True

    return meets


def _key(value: Any) -> Any:
    """A JSON scalar as a set member: true is not 1, as Python's True == 1 has it."""
    return ("bool", value) if isinstance(value, bool) else value


@dataclass(frozen=True)
class Match:
    """The messages a form speaks of: of these kinds (resolved from the file's globs), meeting `where`."""

    kinds: frozenset[str]
    where: FieldConditions = ()
    written: tuple[str, ...] = ()  # the globs as the file writes them, for people
    _meets: Callable[[Any], bool] | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_meets", condition_test(self.where) if self.where else None)

    def __reduce__(self) -> tuple[Any, ...]:  # its fields, not its compiled test (a closure)
        return Match, (self.kinds, self.where, self.written)

    def matches(self, kind_id: str | None, value: Any) -> bool:
        return kind_id in self.kinds and (self._meets is None or self._meets(value))

    @property
    def text(self) -> str:
        from wirecheck.contracts.model import condition_text

        what = " | ".join(self.written or sorted(self.kinds))
        return what + (f" with {', '.join(condition_text(t, a) for t, a in self.where)}" if self.where else "")


@dataclass(frozen=True)
class Reader:
    consumer: str
    reaction: str  # rejects | hangs | misreads | tolerates
    provenance: Provenance

    @property
    def cited(self) -> str:
        return "; ".join(self.provenance.at)


@dataclass(frozen=True)
class Obligation:
    id: str
    level: str  # MUST | SHOULD | MAY
    subject: str  # the role whose duty it is
    says: str
    reader: Reader
    form: str  # one of FORMS
    params: MappingProxyType[str, Any]  # the form's parameters: Match and Place values where the file has them
    line: int | None = None  # where it starts in behaviour.yaml

    @property
    def finding_severity(self) -> str:
        """A MUST's breach is an error (what the reader rejects, hangs on or misreads); a SHOULD's or MAY's a
        warning (what it tolerates)."""
        return "error" if self.level == "MUST" else "warning"

    @property
    def conditional(self) -> bool:
        """Does it speak only where something happened first (a request, a tool call, a step, a success result, a
        thing to count per)? A capture where that never happened cannot show it: its requirement is then not
        exercised, and holds no verdict back (`exercise: optional`), as for a kind its subject need not send."""
        if self.form in ("alternates", "unique", "refers", "answered", "negotiated", "leads_to"):
            return True
        return ("when" in self.params and "or" not in self.params) or "per" in self.params


@dataclass(frozen=True)
class Behaviour:
    keys: MappingProxyType[str, MappingProxyType[str, Place]]  # key name → kind id → where the kind names it
    obligations: tuple[Obligation, ...]


NO_BEHAVIOUR = Behaviour(MappingProxyType({}), ())


def conditions(raw: dict[str, Any] | None) -> FieldConditions:
    """`where:` as selector conditions: pointer → the accepted values (one, or a list of them)."""
    out = []
    for pointer, accepted in sorted((raw or {}).items()):
        values = accepted if isinstance(accepted, list) else [accepted]
        out.append((parse_pointer(pointer), frozenset(_key(v) for v in values)))
    return tuple(out)


def place(raw: Any) -> Place:
    if isinstance(raw, str):
        return Place(tokens=parse_pointer(raw))
    if "path" in raw:
        return Place(path=raw["path"])
    return Place(tokens=parse_pointer(raw["at"]), each=parse_pointer(raw["each"]),
                 each_where=conditions(raw.get("where")))


def kind_ids(patterns: list[str], all_ids: list[str]) -> frozenset[str]:
    return frozenset(k for k in all_ids if any(fnmatch.fnmatchcase(k, p) for p in patterns))


def build(raw: dict[str, Any], release: Any, file: str, cited: Any) -> tuple[Behaviour, list[Any]]:
    """behaviour.yaml's data (valid against its schema) as the release's Behaviour, and the problems that only the
    release can show: kinds no glob matches, a `per` no key defines or a kind that does not name it, a level its
    reader's reaction does not give, a subject that is no role, a request kind nothing answers. `cited(entry,
    where)` checks a provenance's sources and returns it (the loader's, shared with readers.yaml)."""
    from wirecheck.contracts.errors import ContractProblem

    problems: list[ContractProblem] = []
    all_ids = [k.id for k in release.kinds]
    by_id = {k.id: k for k in release.kinds}

    def match(entry: dict[str, Any], where: str) -> Match:
        ids = kind_ids(entry["kinds"], all_ids)
        for index, pattern in enumerate(entry["kinds"]):
            if not any(fnmatch.fnmatchcase(k, pattern) for k in all_ids):
                problems.append(ContractProblem(file, f"{where}/kinds/{index}",
                                                f"{pattern!r} matches no kind of {release.name}"))
        return Match(ids, conditions(entry.get("where")), tuple(entry["kinds"]))

    keys: dict[str, MappingProxyType[str, Place]] = {}
    for name, entries in raw.get("keys", {}).items():
        resolved: dict[str, Place] = {}
        for pattern, at in entries.items():
            where = f"/keys/{name}/{pattern}"
            ids = kind_ids([pattern], all_ids)
            if not ids:
                problems.append(ContractProblem(file, where, f"{pattern!r} matches no kind of {release.name}"))
            found = place(at)
            for kind_id in sorted(ids):
                if found.path is not None and not _has_path_param(by_id[kind_id], found.path):
                    problems.append(ContractProblem(file, where, f"kind {kind_id!r} has no path parameter "
                                                                 f"{{{found.path}}}"))
                resolved.setdefault(kind_id, found)
        keys[name] = MappingProxyType(resolved)

    obligations: list[Obligation] = []
    seen: dict[str, int] = {}
    for index, entry in enumerate(raw["obligations"]):
        where = f"/obligations/{index}"
        if entry["id"] in seen:
            problems.append(ContractProblem(file, f"{where}/id", f"duplicate id {entry['id']} (also at "
                                                                 f"/obligations/{seen[entry['id']]})"))
        seen.setdefault(entry["id"], index)
        if entry["subject"] not in release.roles:
            problems.append(ContractProblem(file, f"{where}/subject", f"{entry['subject']!r} is not one of the "
                                                                      f"roles {', '.join(release.roles)}"))
        reaction = entry["reader"]["reaction"]
        if entry["level"] not in REACTIONS[reaction]:
            problems.append(ContractProblem(
                file, f"{where}/level", f"a reader that {reaction} a breach makes it a "
                                        f"{' or '.join(REACTIONS[reaction])}, not a {entry['level']}"))
        provenance = cited(entry["reader"], f"{where}/reader")
        form = next(f for f in FORMS if f in entry)
        params = _params(form, entry[form], f"{where}/{form}", match, problems, file)
        for per_at, per in _pers(form, params, f"{where}/{form}"):
            if per not in keys:
                problems.append(ContractProblem(file, per_at, f"no key {per!r} under keys"))
        for per_at, per, matched in _keyed(form, params, f"{where}/{form}"):
            lacking = sorted(k for k in matched.kinds if per in keys and k not in keys[per] and
                             not _tied(keys, per, k))
            if lacking:
                problems.append(ContractProblem(file, per_at, f"kind(s) {', '.join(lacking)} name no {per!r} "
                                                              f"(keys.{per} has no entry for them)"))
        if form == "answered" and params.get("from") not in (None, *release.roles):
            problems.append(ContractProblem(file, f"{where}/answered/from", f"{params['from']!r} is not one of the "
                                                                            f"roles {', '.join(release.roles)}"))
        if form == "answered":
            answered = {k.id for response in release.kinds if response.answers and response.correlate
                        for k in release.kinds if k is not response and fnmatch.fnmatchcase(k.id, response.answers)}
            requested = params.get("kinds")
            if requested is not None:
                strays = sorted(requested.kinds - answered)
                if strays:
                    problems.append(ContractProblem(file, f"{where}/answered/kinds",
                                                    f"no response kind answers {', '.join(strays)} (the catalog's "
                                                    "answers/correlate)"))
            elif not answered:
                problems.append(ContractProblem(file, f"{where}/answered", f"{release.name} pairs no request with "
                                                "a response (the catalog's answers/correlate)"))
        if form == "negotiated" and "equals" not in params and not release.wire_version:
            problems.append(ContractProblem(file, f"{where}/negotiated", "the catalog has no wire_version: say "
                                                                         "which versions under `equals`"))
        obligations.append(Obligation(
            id=entry["id"], level=entry["level"], subject=entry["subject"], says=" ".join(entry["says"].split()),
            reader=Reader(entry["reader"]["consumer"], reaction, provenance), form=form,
            params=MappingProxyType(params), line=entry.get("__line__")))
    return Behaviour(MappingProxyType(keys), tuple(obligations)), problems


_MATCHES = {"first": (), "last": (), "count": ("for_each",), "alternates": ("open", "close"), "unique": (),
            "refers": ("to",), "negotiated": (), "leads_to": ("after", "then", "ends", "during"),
            "exit_status": ("when", "among")}
_WHOLE_MATCH = frozenset({"first", "last", "count", "unique", "refers", "negotiated"})


def _params(form: str, raw: Any, where: str, match: Any, problems: list[Any], file: str) -> dict[str, Any]:
    """A form's parameters with its messages as Match values and its places as Place values."""
    raw = {k: v for k, v in raw.items() if k != "__line__"} if isinstance(raw, dict) else {}
    params: dict[str, Any] = dict(raw)
    if form in _WHOLE_MATCH:
        params["messages"] = match(raw, where)
        params.pop("kinds", None)
        params.pop("where", None)
    for name in _MATCHES.get(form, ()):
        if name in raw:
            params[name] = match(raw[name], f"{where}/{name}")
            if name == "to":
                params["to_at"] = place(raw["to"]["at"])
    if "at" in raw and form != "negotiated":
        params["at"] = place(raw["at"])
    elif "at" in raw:
        params["at"] = parse_pointer(raw["at"])
    if form == "answered" and "kinds" in raw:
        params["kinds"] = match(raw, where)
    return params


def _pers(form: str, params: dict[str, Any], where: str) -> list[tuple[str, str]]:
    return [(f"{where}/per", params["per"])] if "per" in params else []


def _keyed(form: str, params: dict[str, Any], where: str) -> list[tuple[str, str, Match]]:
    """(where, key, the messages that must name it) for a form that holds per key."""
    per = params.get("per")
    if per is None:
        return []
    out = [(f"{where}/per", per, params[name]) for name in ("messages", "open", "close", "after", "then", "ends",
                                                             "during", "for_each") if name in params]
    if "to" in params:
        out.append((f"{where}/per", per, params["to"]))
    return out


def _tied(keys: dict[str, MappingProxyType[str, Place]], per: str, kind_id: str) -> bool:
    """A kind names `per` through another key a message ties to it (a renewal names its command, the lease ties the
    command to its run): some kind names both `per` and a key this kind names."""
    mine = {name for name, kinds in keys.items() if kind_id in kinds}
    return any(per in {name for name, kinds in keys.items() if other in kinds} and mine & {
        name for name, kinds in keys.items() if other in kinds} for other in keys.get(per, {}))


def _has_path_param(kind: Any, name: str) -> bool:
    return kind.http is not None and f"{{{name}}}" in kind.http.path
