"""JSON types: a node's set of accepted types widened, narrowed or replaced (also through `not: {type: …}`, and for
the fresh property names an open object's `additionalProperties` governs)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from wirecheck.diff.flat import Flat, flatten, only_types, takes_objects, written_types
from wirecheck.diff.model import Change, Probe
from wirecheck.diff.rules import Pair, node_rule
from wirecheck.diff.rules.properties import EXTRA_FIELD
from wirecheck.diff.side import Side, child

TYPE_SAMPLES = {"string": "x", "integer": 1, "number": 0.5, "boolean": True, "null": None, "object": {}, "array": []}
# the values a type admits, as disjoint parts: `number` is the integers and the numbers with a fraction
_PARTS = {"string": ("string",), "integer": ("integer",), "number": ("integer", "fraction"),
          "boolean": ("boolean",), "null": ("null",), "object": ("object",), "array": ("array",)}
_ALL = frozenset(part for parts in _PARTS.values() for part in parts)
_PART_SAMPLES = {**TYPE_SAMPLES, "fraction": 1.5}


def _expand(types: tuple[str, ...]) -> set[str]:
    # integer ⊂ number: `number` admits every integer, so compare the expanded sets
    found = set(types)
    return found | {"integer"} if "number" in found else found


@node_rule("TYPE_WIDENED", "TYPE_NARROWED", "TYPE_CHANGED")
def types(pair: Pair) -> Iterator[Change]:
    old, new = pair.old, pair.new
    old_types, new_types = written_types(old), written_types(new)
    # a node that admits every type (no `type`, no union or enum of its own) given one, or the reverse
    old_any, new_any = (old_types is None and old.enum is None and old.union is None,
                        new_types is None and new.enum is None and new.union is None)
    if (_negated(pair.old_side, old) is not None or _negated(pair.new_side, new) is not None
            or (old_any and new_types is not None) or (new_any and old_types is not None)):
        yield from _through_not(pair)
        return
    if old.types is None or new.types is None or old.enum is not None or new.enum is not None:
        return
    old_set, new_set = _expand(old.types), _expand(new.types)
    if old_set == new_set:
        return
    added, removed = sorted(new_set - old_set), sorted(old_set - new_set)
    probes = [Probe("new", pair.path, TYPE_SAMPLES[t], True) for t in added]
    probes += [Probe("old", pair.path, TYPE_SAMPLES[t], True) for t in removed]
    rule = "TYPE_WIDENED" if not removed else "TYPE_NARROWED" if not added else "TYPE_CHANGED"
    yield pair.change(rule, probes=probes, old=list(old.types), new=list(new.types),
                      key=f"{'|'.join(sorted(old.types))}->{'|'.join(sorted(new.types))}")


def _negated(side: Side, flat: Flat) -> tuple[str, ...] | None:
    """The types a node's own `not: {type: …}` excludes, when that is all its `not` says."""
    node = side.node(flat.location)
    if not isinstance(node, dict) or "not" not in node:
        return None
    return only_types(side, node["not"], child(flat.location, "not"))


def _parts(side: Side, flat: Flat) -> set[str] | None:
    """The type parts a node admits, `not` included; None when its `not` says more than types."""
    if flat.enum is not None:
        return None
    written = written_types(flat)
    kinds = set(_ALL) if written is None else {p for t in written for p in _PARTS.get(t, ())}
    node = side.node(flat.location)
    if isinstance(node, dict) and "not" in node:
        excluded = _negated(side, flat)
        if excluded is None:
            return None
        kinds -= {p for t in excluded for p in _PARTS.get(t, ())}
    return kinds


def _words(side: Side, flat: Flat) -> Any:
    """How a finding's text names what a node admits: its type list, `any type`, `any type but integer`."""
    excluded = ", ".join(_negated(side, flat) or ())
    written = written_types(flat)
    if written is None:
        return f"any type but {excluded}" if excluded else "any type"
    return f"{', '.join(written)} but not {excluded}" if excluded else list(written)


def _through_not(pair: Pair) -> Iterator[Change]:
    """`not: {type: integer}` → `not: {type: number}`: 1.5 is refused now (a number that is no integer); and a node
    that admitted anything given a type (`_meta: {}` → `{type: [object, null]}`: `"x"` is refused now)."""
    old_parts, new_parts = _parts(pair.old_side, pair.old), _parts(pair.new_side, pair.new)
    if old_parts is None or new_parts is None or old_parts == new_parts:
        return
    added, removed = sorted(new_parts - old_parts), sorted(old_parts - new_parts)
    probes = [Probe("new", pair.path, _PART_SAMPLES[p], True) for p in added]
    probes += [Probe("old", pair.path, _PART_SAMPLES[p], True) for p in removed]
    rule = "TYPE_WIDENED" if not removed else "TYPE_NARROWED" if not added else "TYPE_CHANGED"
    old_words, new_words = _words(pair.old_side, pair.old), _words(pair.new_side, pair.new)
    yield pair.change(rule, probes=probes, old=old_words, new=new_words, key=f"{old_words}->{new_words}")


@node_rule("TYPE_WIDENED", "TYPE_NARROWED", "TYPE_CHANGED")
def fresh_names(pair: Pair) -> Iterator[Change]:
    """An open object whose other property names took any value and now take only some (`additionalProperties:
    true` → `{type: number}`), or the reverse: a fresh name holding a value of a type one side no longer admits is
    the witness."""
    old, new = pair.old, pair.new
    if not takes_objects(old) or not takes_objects(new) or old.closed or new.closed:
        return
    if (old.additional is None) == (new.additional is None):
        return  # both constrain other names (walked as a pair), or neither does
    ruled = (flatten(pair.new_side, new.additional) if new.additional is not None
             else flatten(pair.old_side, old.additional))  # type: ignore[arg-type]
    if ruled.types is None or ruled.enum is not None or ruled.false:
        return
    kept = _expand(ruled.types)
    lost = [t for t in TYPE_SAMPLES if t not in kept]
    if not lost:
        return
    at = (*pair.path, "{name}")
    planted = (*pair.path, EXTRA_FIELD)
    narrowed = new.additional is not None
    probes = [Probe("old" if narrowed else "new", planted, TYPE_SAMPLES[t], True) for t in lost]
    words: Any = list(ruled.types)
    old_words, new_words = ("any type", words) if narrowed else (words, "any type")
    yield pair.change("TYPE_NARROWED" if narrowed else "TYPE_WIDENED", path=at, probes=probes, old=old_words,
                      new=new_words, old_location=old.additional, new_location=new.additional,
                      key=f"{{name}}:{old_words}->{new_words}")
