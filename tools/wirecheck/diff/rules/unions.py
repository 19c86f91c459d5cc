"""Unions (`oneOf`/`anyOf`): members matched by identity (discriminator value, title, the definition they refer
to), then by shape; added, removed, re-keyed — each named by its identity, never by its position."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from wirecheck.diff.flat import Flat, flatten, member_of
from wirecheck.diff.instances import NoExample, example, member_example
from wirecheck.diff.model import SAFE, STRICT, Change, Probe
from wirecheck.diff.rules import Pair, node_rule
from wirecheck.diff.semantic import contained
from wirecheck.diff.shape import same_shape, shape_key
from wirecheck.diff.side import Side, child, join
from wirecheck.diff.vocabulary import assertions, tag
from wirecheck.json_types import json_bytes
from wirecheck.pointer import parse_pointer


def discriminator(side: Side, branches: list[str]) -> tuple[str | None, dict[str, Any]]:
    """The property every branch fixes to a const (or one-value enum), and branch location → that value.
    Memoised per side: the walk asks again for every pair of releases and every kind sharing the union."""
    key = ("discriminator", tuple(branches))
    if key not in side.memo:
        side.memo[key] = _discriminator(side, branches)
    name, values = side.memo[key]
    return name, dict(values)


def _discriminator(side: Side, branches: list[str]) -> tuple[str | None, dict[str, Any]]:
    flats = [flatten(side, b) for b in branches]
    candidates: set[str] | None = None
    for flat in flats:
        names = {name for name in flat.properties if _const(side, flat, name) is not None}
        candidates = names if candidates is None else candidates & names
    if not candidates or len(branches) < 2:
        return None, {}
    # prefer the conventional names, then alphabetical, for a stable answer
    for name in ("type", "kind", "subtype", "event", "method", *sorted(candidates)):
        if name in candidates:
            values = {b: _const(side, f, name) for b, f in zip(branches, flats, strict=True)}
            keys = [json_bytes(v[0]) for v in values.values() if v]
            if len(set(keys)) == len(keys):
                return name, {b: v[0] for b, v in values.items() if v}
    return None, {}


def _const(side: Side, flat: Flat, name: str) -> tuple[Any] | None:
    prop = flatten(side, flat.properties[name])
    if prop.enum is not None and len(prop.enum) == 1:
        return (prop.enum[0],)
    return None


_MAX_PROOFS = 16  # containment proofs per union; beyond that, unmatched branches are reported as such


def _equivalent(pair: Pair, old_branch: str, new_branch: str) -> bool:
    if flatten(pair.old_side, old_branch).types != flatten(pair.new_side, new_branch).types:
        return False
    return (contained(pair.new_side, new_branch, pair.old_side, old_branch, STRICT) == SAFE
            and contained(pair.old_side, old_branch, pair.new_side, new_branch, STRICT) == SAFE)


Matching = tuple[list[tuple[str, str]], list[str], list[str], tuple[str | None, str | None]]


def match_branches(pair: Pair) -> Matching:
    """(matched pairs, only-old branches, only-new branches, (old discriminator, new discriminator)).

    Memoised per pair of union locations: many kinds share one union (e.g. every control request)."""
    key = ("match_branches", id(pair.new_side), pair.old.location, pair.new.location)
    found = pair.old_side.memo.get(key)
    if found is None:
        found = pair.old_side.memo[key] = _match_branches(pair)
    matched, only_old, only_new, names = found
    return list(matched), list(only_old), list(only_new), names


def _match_branches(pair: Pair) -> Matching:
    old_b, new_b = pair.old.branches, pair.new.branches
    old_d, old_values = discriminator(pair.old_side, old_b)
    new_d, new_values = discriminator(pair.new_side, new_b)
    matched: list[tuple[str, str]] = []
    if old_d is not None and old_d == new_d:
        by_value = {json_bytes(v): b for b, v in new_values.items()}
        left_new = list(new_b)
        left_old = []
        for b in old_b:
            target = by_value.get(json_bytes(old_values[b])) if b in old_values else None
            if target is not None and target in left_new:
                matched.append((b, target))
                left_new.remove(target)
            else:
                left_old.append(b)
        return matched, left_old, left_new, (old_d, new_d)
    left_old, left_new = list(old_b), list(new_b)

    def pair_off(twin_of: Callable[[str], str | None]) -> None:
        for b in list(left_old):
            twin = twin_of(b)
            if twin is not None and twin in left_new:
                matched.append((b, twin))
                left_new.remove(twin)
                left_old.remove(b)

    # by identity: a title, then the definition a member refers to (each only where it names one member per side)
    for name_of in (lambda side, b: identity(side, b)[0], lambda side, b: identity(side, b)[1]):
        new_names = _unique({n: name_of(pair.new_side, n) for n in left_new})
        old_names = _unique({b: name_of(pair.old_side, b) for b in left_old})
        by_name = {name: n for n, name in new_names.items()}
        pair_off(lambda b, by_name=by_name, old_names=old_names: by_name.get(old_names.get(b)))  # type: ignore[misc]
    # then branches written alike (refs followed)
    shapes = {n: shape_key(pair.new_side, n) for n in left_new}
    pair_off(lambda b: next((n for n in left_new if shapes[n] == shape_key(pair.old_side, b)
                             and same_shape(pair.old_side, b, pair.new_side, n)), None))
    # then by a constant only one branch on each side has (a partial discriminator: `subtype: "get_usage"`)
    old_marks = _unique_consts(pair.old_side, left_old)
    new_marks = _unique_consts(pair.new_side, left_new)
    by_mark = {mark: n for n, marks in new_marks.items() for mark in marks}
    pair_off(lambda b: next((by_mark[m] for m in sorted(old_marks.get(b, ())) if m in by_mark), None))
    # then proven equal (set containment both ways), among a few remaining branches of the same JSON type
    if len(left_old) * len(left_new) <= _MAX_PROOFS:
        pair_off(lambda b: next((n for n in left_new if _equivalent(pair, b, n)), None))
    # then the most alike objects (half their property names or more in common), best first
    scored = sorted(((_likeness(pair, b, n), b, n) for b in left_old for n in left_new), reverse=True)
    for score, b, n in scored:
        if score >= 0.5 and b in left_old and n in left_new:
            matched.append((b, n))
            left_old.remove(b)
            left_new.remove(n)
    # last, a lone remaining branch of the same JSON type on each side (never guessed among several; objects only
    # with a property name in common)
    for b in list(left_old):
        types = member_of(pair.old_side, pair.old, b).types
        same_old = [o for o in left_old if member_of(pair.old_side, pair.old, o).types == types]
        same_new = [n for n in left_new if member_of(pair.new_side, pair.new, n).types == types]
        if len(same_old) == 1 and len(same_new) == 1 and (
                types != ("object",) or _likeness(pair, b, same_new[0]) > 0):
            matched.append((b, same_new[0]))
            left_new.remove(same_new[0])
            left_old.remove(b)
    return matched, left_old, left_new, (old_d, new_d)


def identity(side: Side, member: str) -> tuple[str | None, str | None]:
    """(title, definition name) of a union member: its own title or that of what it wraps (a `$ref`, a one-part
    `allOf`), and the `$defs` entry it leads to, if any."""
    key = ("identity", member)
    if key not in side.memo:
        title = None
        location = member
        for _ in range(16):
            node = side.node(location)
            if not isinstance(node, dict):
                break
            if title is None and isinstance(node.get("title"), str) and node["title"]:
                title = node["title"]
            said = assertions(node)
            if said == {"$ref"} and isinstance(node["$ref"], str) and side.has(join(location, node["$ref"])):
                location = join(location, node["$ref"])
            elif said == {"allOf"} and isinstance(node["allOf"], list) and len(node["allOf"]) == 1:
                location = child(location, "allOf", 0)
            else:
                break
        tokens = parse_pointer(location.partition("#")[2])
        name = tokens[1] if len(tokens) == 2 and tokens[0] in ("$defs", "definitions") else None
        side.memo[key] = (title, name)
    found: tuple[str | None, str | None] = side.memo[key]
    return found


def _unique(names: dict[str, str | None]) -> dict[str, str]:
    counts = Counter(names.values())
    return {b: name for b, name in names.items() if name is not None and counts[name] == 1}


def _likeness(pair: Pair, old_branch: str, new_branch: str) -> float:
    """Property names in common over property names in all (Jaccard), for two objects (members as they apply,
    merged with the object beside their union); 0 for anything else."""
    a, b = member_of(pair.old_side, pair.old, old_branch), member_of(pair.new_side, pair.new, new_branch)
    if a.types != b.types or not a.properties or not b.properties:
        return 0.0
    names_a, names_b = set(a.properties), set(b.properties)
    return len(names_a & names_b) / len(names_a | names_b)


def _unique_consts(side: Side, branches: list[str]) -> dict[str, set[tuple[str, bytes]]]:
    """Per branch, the (property, constant) pairs no other of the given branches shares."""
    marks: dict[str, set[tuple[str, bytes]]] = {}
    for b in branches:
        flat = flatten(side, b)
        marks[b] = set()
        for name in flat.properties:
            value = _const(side, flat, name)
            if value is not None:
                marks[b].add((name, json_bytes(value[0], sort_keys=True)))
    counts: dict[tuple[str, bytes], int] = {}
    for found in marks.values():
        for mark in found:
            counts[mark] = counts.get(mark, 0) + 1
    return {b: {m for m in found if counts[m] == 1} for b, found in marks.items()}


def _example(side: Side, location: str, union: Flat | None = None) -> Any:
    """A payload of the schema at `location`; of a member of `union`, merged with the object beside that union
    (built alone, ACP's `boolean` config option lacked the `id` and `name` every option has)."""
    try:
        return member_example(side, union, location) if union is not None else example(side, location)
    except NoExample:
        return None


def _label(side: Side, location: str) -> str:
    """How a member is named in a finding: its title, the definition it refers to, a constant only it has, else
    its shape (`object {a, b}`, `string`) — never its position, which says nothing once members move."""
    title, name = identity(side, location)
    if title or name:
        return title or name or ""
    flat = flatten(side, location)
    consts = sorted(tag(n, v[0]) for n in flat.properties if (v := _const(side, flat, n)) is not None)
    if consts:
        return " ".join(consts)
    if flat.enum is not None:
        return ("const " if flat.is_const else "enum ") + json_bytes(flat.enum if not flat.is_const else flat.enum[0]
                                                                      ).decode()[:60]
    kinds = "|".join(flat.types) if flat.types else "any value"
    if flat.properties:
        names = sorted(flat.properties)
        shown = ", ".join(names[:4]) + (", …" if len(names) > 4 else "")
        return f"{kinds} {{{shown}}}"
    return kinds


def mutants(value: Any) -> list[Any]:
    """Near misses of a valid object: each member dropped, each member's value of the wrong type."""
    if not isinstance(value, dict):
        return [None, "x_wirecheck_other", 987654]
    out: list[Any] = []
    for name in value:
        out.append({k: v for k, v in value.items() if k != name})
        out.append({**value, name: None if value[name] is not None else "x"})
    return out


def _introduced(pair: Pair) -> Iterator[Change]:
    """A plain node became a union (or the reverse): each branch the other side has no like of is reported."""
    for union, side, plain, here, there, code in (
        (pair.new, pair.new_side, pair.old, "new", "old", "UNION_BRANCH_ADDED"),
        (pair.old, pair.old_side, pair.new, "old", "new", "UNION_BRANCH_REMOVED"),
    ):
        if not union.union or plain.union:
            continue
        for b in union.branches:
            if flatten(side, b).types == plain.types:
                continue
            value = _example(side, b, union)
            probes = [Probe(here, pair.path, value, True)]
            probes += [Probe(there, pair.path, m, True) for m in mutants(value)]
            label = _label(side, b)
            yield pair.change(code, probes=probes, branch=label, key=json_bytes(label).decode(), local=True,
                              old_location=b if here == "old" else "", new_location=b if here == "new" else "")


@node_rule("UNION_BRANCH_ADDED", "UNION_BRANCH_REMOVED", "DISCRIMINATOR_CHANGED")
def branches(pair: Pair) -> Iterator[Change]:
    if bool(pair.old.union) != bool(pair.new.union):
        refined = pair.new if pair.new.union else pair.old
        if not (refined.properties or refined.required or refined.closed):
            # a union of alternatives appeared (or went); a union *beside* an object's own properties only refines
            # it (`anyOf: [{required: [type]}, {required: [subtype]}]`) and is left to the set reasoning
            yield from _introduced(pair)
        return
    if not pair.old.union or not pair.new.union:
        return
    _, only_old, only_new, (old_d, new_d) = match_branches(pair)
    if old_d != new_d and old_d is not None and new_d is not None:
        probes = [Probe("old", pair.path, _example(pair.old_side, b, pair.old), True) for b in pair.old.branches]
        probes += [Probe("new", pair.path, _example(pair.new_side, b, pair.new), True) for b in pair.new.branches]
        yield pair.change("DISCRIMINATOR_CHANGED", probes=probes, old=old_d, new=new_d, key=f"{old_d}->{new_d}")
    _, new_values = discriminator(pair.new_side, pair.new.branches)
    _, old_values = discriminator(pair.old_side, pair.old.branches)
    for b in only_new:
        value = _example(pair.new_side, b, pair.new)
        label = new_values.get(b, _label(pair.new_side, b))
        yield pair.change("UNION_BRANCH_ADDED", new_location=b, probes=[Probe("new", pair.path, value, True)],
                          branch=label, key=json_bytes(label).decode(), local=True)
    for b in only_old:
        value = _example(pair.old_side, b, pair.old)
        label = old_values.get(b, _label(pair.old_side, b))
        yield pair.change("UNION_BRANCH_REMOVED", old_location=b, probes=[Probe("old", pair.path, value, True)],
                          branch=label, key=json_bytes(label).decode(), local=True)
