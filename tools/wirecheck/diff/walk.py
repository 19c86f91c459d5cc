"""Walk two schemas in parallel and collect the structural changes every registered node rule reports."""

from __future__ import annotations

from typing import Any

from wirecheck.diff.flat import flatten
from wirecheck.diff.model import ITEM, Change
from wirecheck.diff.rules import NODE_RULES, Pair, load_rule_modules
from wirecheck.diff.rules.unions import match_branches
from wirecheck.diff.side import Side

_MAX_DEPTH = 64  # schema levels: as deep as diff-schemas accepts (diff/inputs.py, 128 JSON levels)


def structural_changes(old_side: Side, old_location: str, new_side: Side, new_location: str) -> list[Change]:
    load_rule_modules()
    changes: list[Change] = []
    _walk(old_side, old_location, new_side, new_location, (), changes, set(), 0)
    return changes


def _walk(
    old_side: Side, old_loc: str, new_side: Side, new_loc: str, path: tuple[Any, ...],
    out: list[Change], seen: set[tuple[str, str]], depth: int,
) -> None:
    if depth > _MAX_DEPTH or old_side.digest(old_loc) == new_side.digest(new_loc):
        return  # too deep, or written identically (refs followed): no rule finds a change there
    old, new = flatten(old_side, old_loc), flatten(new_side, new_loc)
    key = (old.location, new.location)
    if key in seen:  # recursive schemas: each pair of locations is compared once
        return
    seen.add(key)
    pair = Pair(old, new, path, old_side, new_side)
    for rule in NODE_RULES.values():
        out.extend(rule(pair))
    for name in sorted(set(old.properties) & set(new.properties)):
        _walk(old_side, old.properties[name], new_side, new.properties[name], (*path, name), out, seen, depth + 1)
    if old.items and new.items:
        _walk(old_side, old.items, new_side, new.items, (*path, ITEM), out, seen, depth + 1)
    for index, (a, b) in enumerate(zip(old.prefix_items, new.prefix_items, strict=False)):
        _walk(old_side, a, new_side, b, (*path, index), out, seen, depth + 1)
    if old.additional and new.additional:
        _walk(old_side, old.additional, new_side, new.additional, (*path, "{name}"), out, seen, depth + 1)
    if old.union and new.union:
        matched, _, _, _ = match_branches(pair)
        for a, b in matched:
            _walk(old_side, a, new_side, b, path, out, seen, depth + 1)
    elif old.union and not new.union:
        # a union collapsed into one shape: compare that shape with each old branch of the same type
        for branch in old.branches:
            if flatten(old_side, branch).types == new.types:
                _walk(old_side, branch, new_side, new_loc, path, out, seen, depth + 1)
    elif new.union and not old.union:
        for branch in new.branches:
            if flatten(new_side, branch).types == old.types:
                _walk(old_side, old_loc, new_side, branch, path, out, seen, depth + 1)
