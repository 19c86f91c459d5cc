"""Walk two schemas in parallel and collect the structural changes every registered node rule reports."""

from __future__ import annotations

import dataclasses
import hashlib
from collections import Counter, defaultdict
from typing import Any

from wirecheck.diff.catalogue import diff_rule_catalogue, show
from wirecheck.diff.flat import Flat, beside, flatten, member_of
from wirecheck.diff.model import ABSENT, BACKWARD, FORWARD, ITEM, Change, Several
from wirecheck.diff.regex_example import regex_example
from wirecheck.diff.rules import NODE_RULES, Pair, load_rule_modules
from wirecheck.diff.rules.unions import discriminator, match_branches
from wirecheck.diff.side import Side

_MAX_DEPTH = 64  # schema levels: as deep as diff-schemas accepts (diff/inputs.py, 128 JSON levels)
# More changes than this of one rule at one node (enum values, properties of one object) are reported as one
# change, whose witnesses come from the probes of its first GROUP_PROBES members: each change's witness search
# builds and validates payloads the size of the message, so one change per member made a diff quadratic
# (1,000 added properties: 19 s and 1.2 GB; 4,000 added enum values: 12 s).
GROUP_LIMIT = 16
GROUP_PROBES = 4


def structural_changes(old_side: Side, old_location: str, new_side: Side, new_location: str) -> list[Change]:
    load_rule_modules()
    changes: list[Change] = []
    _walk(old_side, old_location, new_side, new_location, (), changes, set(), 0)
    # a union's members beside an object's properties are walked merged with it, so a change of those properties
    # is found at the object and in each member: listed once (the object's), before grouping counts changes
    once: dict[tuple[Any, ...], Change] = {}
    for change in changes:
        once.setdefault((change.rule, change.path, change.key), change)
    return grouped(list(once.values()))


def grouped(changes: list[Change]) -> list[Change]:
    """`changes` with every set of more than GROUP_LIMIT changes of one rule at one place merged into one change
    (`group_of`), in the order found. Places widen step by step, each only for what is still too many: one path
    (enum values), the children of one path (properties), then one depth (the same change under many properties)."""
    places = (lambda c: c.path, lambda c: (c.path[:-1], len(c.path)), lambda c: len(c.path))
    for place in places:
        groups: defaultdict[tuple[Any, ...], list[Change]] = defaultdict(list)
        for change in changes:
            groups[(change.rule, place(change))].append(change)
        large = [members for members in groups.values() if len(members) > GROUP_LIMIT]
        if large:
            merged = {id(members[0]): group_of(members) for members in large}
            inside = {id(c) for members in large for c in members}
            changes = [merged.get(id(c), c) for c in changes if id(c) in merged or id(c) not in inside]
    return changes


def group_of(members: list[Change]) -> Change:
    """One change standing for `members` (one rule, paths of one length): what they share as it is, what differs
    (a parameter, a step of the path) listed as `Several`; the probes of the first GROUP_PROBES members."""
    first = members[0]
    params: dict[str, Any] = {}
    for name, value in first.params.items():
        values = [m.params.get(name) for m in members]
        params[name] = value if all(v == value for v in values) else Several(_distinct(values)).text(show)
    path = tuple(step if all(m.path[i] == step for m in members) else Several(_distinct(m.path[i] for m in members))
                 for i, step in enumerate(first.path))
    keys = "\n".join(sorted(m.key for m in members)).encode()
    return Change(
        rule=first.rule, path=path,
        old_location=first.old_location if all(m.old_location == first.old_location for m in members) else None,
        new_location=first.new_location if all(m.new_location == first.new_location for m in members) else None,
        params=params, probes=tuple(p for m in members[:GROUP_PROBES] for p in m.probes),
        key=f"{len(members)}:{hashlib.sha256(keys).hexdigest()[:16]}",
    )


def _distinct(values: Any) -> tuple[Any, ...]:
    out: dict[str, Any] = {}
    for value in values:
        for one in value.values if isinstance(value, Several) else (value,):  # a group merged again
            out.setdefault(one if isinstance(one, str) else show(one), one)
    return tuple(out.values())


Via = tuple[tuple[tuple[Any, ...], str, str], ...]


def _walk(
    old_side: Side, old_loc: str, new_side: Side, new_loc: str, path: tuple[Any, ...],
    out: list[Change], seen: set[tuple[str, str]], depth: int, via: Via = (),
    old_flat: Flat | None = None, new_flat: Flat | None = None,
) -> None:
    """`old_flat`/`new_flat`: the node as walked when it is not the one written at its location (a union's member
    merged with the object beside it)."""
    if depth > _MAX_DEPTH or (old_side.digest(old_loc) == new_side.digest(new_loc) and not (old_flat or new_flat)):
        return  # too deep, or written identically (refs followed): no rule finds a change there
    old, new = old_flat or flatten(old_side, old_loc), new_flat or flatten(new_side, new_loc)
    key = (old_loc if old_flat else old.location, new_loc if new_flat else new.location)
    if key in seen:  # recursive schemas: each pair of locations is compared once
        return
    seen.add(key)
    pair = Pair(old, new, path, old_side, new_side, via, merged=bool(old_flat or new_flat))
    for rule in NODE_RULES.values():
        out.extend(rule(pair))
    deeper = depth + 1
    for name in sorted(set(old.properties) & set(new.properties)):
        _walk(old_side, old.properties[name], new_side, new.properties[name], (*path, name), out, seen, deeper, via)
    if old.items and new.items:
        _walk(old_side, old.items, new_side, new.items, (*path, ITEM), out, seen, deeper, via)
    # tuples position by position, a position one side has no prefixItems for read by its `items`
    for index in range(max(len(old.prefix_items), len(new.prefix_items))):
        a = old.prefix_items[index] if index < len(old.prefix_items) else old.items
        b = new.prefix_items[index] if index < len(new.prefix_items) else new.items
        if a and b:
            _walk(old_side, a, new_side, b, (*path, index), out, seen, deeper, via)
    # a pattern both sides keep, judged on a property name it matches
    for pattern in sorted(set(old.patterns) & set(new.patterns)):
        # (both sides may write the pattern at the same location: what it reaches decides whether it changed)
        literal = regex_example(pattern, 0, None) if old_side.digest(old.patterns[pattern]) != new_side.digest(
            new.patterns[pattern]) else None
        if literal is not None:
            _walk(old_side, old.patterns[pattern], new_side, new.patterns[pattern], (*path, literal), out, seen,
                  deeper, via)
    if old.additional and new.additional:
        _walk(old_side, old.additional, new_side, new.additional, (*path, "{name}"), out, seen, deeper, via)
    if old.union and new.union:
        matched, _, _, _ = match_branches(pair)
        for a, b in matched:  # members beside an object's own properties are that object refined: merged with it
            _walk(old_side, a, new_side, b, path, out, seen, deeper, (*via, (path, a, b)),
                  old_flat=member_of(old_side, old, a) if beside(old) else None,
                  new_flat=member_of(new_side, new, b) if beside(new) else None)
    elif old.union and not new.union:
        # a union collapsed into one shape: compare that shape with each old member of the same type (a member
        # beside the object's own properties is that object refined: compared merged with it)
        walks: list[list[Change]] = []
        tagged = discriminator(old_side, old.branches)[0] is not None
        for branch in old.branches:
            member = member_of(old_side, old, branch)
            if member.types == new.types:
                found: list[Change] = []
                walks.append(found)
                _walk(old_side, branch, new_side, new_loc, path, found, seen if tagged else set(seen), deeper,
                      (*via, (path, branch, new_loc)), old_flat=member if beside(old) else None, new_flat=new_flat)
        out.extend(_as_one(walks, FORWARD, tagged, closed=new.closed))
    elif new.union and not old.union:
        walks = []
        tagged = discriminator(new_side, new.branches)[0] is not None
        for branch in new.branches:
            member = member_of(new_side, new, branch)
            if member.types == old.types:
                found = []
                walks.append(found)
                _walk(old_side, old_loc, new_side, branch, path, found, seen if tagged else set(seen), deeper,
                      (*via, (path, old_loc, branch)), old_flat=old_flat, new_flat=member if beside(new) else None)
        out.extend(_as_one(walks, BACKWARD, tagged, closed=old.closed))


# A change found in some members of an untagged union only, weakened to what the union as a whole does
_WEAKER = {("REQUIRED_PROPERTY_ADDED", False): "PROPERTY_ADDED",
           ("REQUIRED_PROPERTY_ADDED", True): "PROPERTY_ADDED_TO_CLOSED_MODEL",
           ("REQUIRED_PROPERTY_REMOVED", False): "PROPERTY_REMOVED",
           ("REQUIRED_PROPERTY_REMOVED", True): "PROPERTY_REMOVED_FROM_CLOSED_MODEL"}


def _as_one(walks: list[list[Change]], every: str, tagged: bool, closed: bool) -> list[Change]:
    """The changes found walking each member of a union against the other side's one shape, as changes of the
    union. The union accepts what any of its members accepts, so a break in direction `every` (the union is the
    reader: a payload must fail every member) holds for it only where every member shows the change; the other
    direction needs one member. Members told apart by a tag (a discriminator) are separate messages, and each
    member's change stands. Otherwise a change found in some members only and breaking only in `every` is
    weakened (a property required by some alternatives is an optional one: `content` or `attachments`) or left
    to the set reasoning, which still judges that direction; each change is listed once (untagged members are
    walked each on their own, so a change under a property they share is seen in each)."""
    everywhere = Counter(k for found in walks for k in {(c.rule, c.path, c.key) for c in found})
    out: dict[tuple[Any, ...], Change] = {}
    for change in (c for found in walks for c in found):
        breaks = {d for d, _ in diff_rule_catalogue()[change.rule].breaks}
        if not tagged and breaks and everywhere[(change.rule, change.path, change.key)] < len(walks):
            weaker = _WEAKER.get((change.rule, closed))
            if weaker is not None:
                change = dataclasses.replace(change, rule=weaker,
                                             probes=tuple(p for p in change.probes if p.value is not ABSENT))
            elif breaks <= {every}:
                continue
        out.setdefault((change.rule, change.path, change.key), change)
    return list(out.values())

