"""What an object's property names may be (`propertyNames`) and what an array may hold past its tuple (`items`,
`unevaluatedItems`, `items: false`): constraints with no property or position of their own, each given the
payloads that show its effect."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from wirecheck.diff.flat import Flat, flatten, written_types
from wirecheck.diff.instances import NoExample, example
from wirecheck.diff.model import ITEM, Change, Probe
from wirecheck.diff.regex_example import regex_examples
from wirecheck.diff.rules import Pair, node_rule
from wirecheck.diff.rules.types import TYPE_SAMPLES
from wirecheck.diff.shape import same_shape
from wirecheck.diff.side import Side
from wirecheck.diff.vocabulary import assertions

_NAMES = ["", "a", "A", "0", "a b", "_", "-", "é", "x" * 65, "x" * 257]  # names some propertyNames refuses


def _example(side: Side, location: str | None, default: Any = None) -> Any:
    if location is None:
        return default
    try:
        return example(side, location)
    except NoExample:
        return default


@node_rule("PROPERTY_NAMES_ADDED", "PROPERTY_NAMES_REMOVED", "PROPERTY_NAMES_CHANGED")
def property_names(pair: Pair) -> Iterator[Change]:
    """`propertyNames` added, removed or changed: an object holding a name one side admits and the other refuses
    (names around the length bounds, the pattern's own examples, a few common shapes) is the witness."""
    old, new = pair.old, pair.new
    if old.names is None and new.names is None:
        return
    # written alike (refs followed; a digest also names where it is written, and AsyncAPI's definitions are keyed by
    # their version, so every pair's unchanged `channels` names were "changed" and undecided: issue 39)
    if old.names is not None and new.names is not None and same_shape(pair.old_side, old.names, pair.new_side,
                                                                      new.names):
        return
    names = list(_NAMES)
    for side, flat in ((pair.old_side, old), (pair.new_side, new)):
        if flat.names is None:
            continue
        said = flatten(side, flat.names)
        for bound in ("minLength", "maxLength"):
            n = said.keywords.get(bound)
            if isinstance(n, int) and 0 <= n <= 1024:
                names += ["n" * k for k in (n - 1, n, n + 1) if k >= 0]
        if isinstance(said.keywords.get("pattern"), str):
            names += regex_examples(said.keywords["pattern"])
        names += [v for v in said.enum or () if isinstance(v, str)]
    probes = []
    for side_name, side, flat in (("old", pair.old_side, old), ("new", pair.new_side, new)):
        base = _example(side, flat.location, {})
        base = base if isinstance(base, dict) else {}
        for name in dict.fromkeys(names):
            value = _example(side, flat.properties.get(name) or flat.additional, 0)
            probes.append(Probe(side_name, pair.path, {**base, name: value}, True))
    rule = ("PROPERTY_NAMES_ADDED" if old.names is None else "PROPERTY_NAMES_REMOVED" if new.names is None
            else "PROPERTY_NAMES_CHANGED")
    yield pair.change(rule, probes=probes, old=_words(pair.old_side, old.names), new=_words(pair.new_side, new.names))


def _words(side: Side, location: str | None) -> str:
    """A constraint in the user's keywords: `maxLength 3, pattern ^a`; `none` when absent."""
    if location is None:
        return "none"
    node = side.node(location)
    if not isinstance(node, dict):
        return "no name at all" if node is False else "any name"
    said = sorted(assertions(node))
    parts = [f"{k} {node[k]}" if isinstance(node[k], str | int | float) else k for k in said]
    return ", ".join(parts) or "any name"


def _tail(flat: Flat) -> str:
    """What an array admits past its `prefixItems`: `closed`, `any`, or `schema`."""
    return "closed" if flat.items_closed else "schema" if flat.items is not None else "any"


def _array(pair: Pair, side_name: str, extra: Any) -> list[Any]:
    """An array as one side admits it, each tuple position either side has filled with an example (this side's,
    else the other side's: so the other side does not refuse the array for its tuple), `extra` after them."""
    own, other = (pair.old, pair.new) if side_name == "old" else (pair.new, pair.old)
    own_side, other_side = (pair.old_side, pair.new_side) if side_name == "old" else (pair.new_side, pair.old_side)
    count = max(len(own.prefix_items), len(other.prefix_items))
    return [_example(own_side, own.prefix_items[i]) if i < len(own.prefix_items)
            else _example(other_side, other.prefix_items[i]) for i in range(count)] + [extra]


@node_rule("EXTRA_ITEMS_FORBIDDEN", "EXTRA_ITEMS_ALLOWED", "ITEMS_SCHEMA_ADDED", "ITEMS_SCHEMA_REMOVED")
def array_tail(pair: Pair) -> Iterator[Change]:
    """The items an array admits past its tuple: closed (`items: false`, `unevaluatedItems: false`), given a schema
    where there was none, or the reverse. An array with one more item (of each type, and the other side's example
    item) is the witness. A schema on both sides is walked as a pair (walk.py)."""
    old, new = pair.old, pair.new
    if "array" not in (old.types or ("array",)) or "array" not in (new.types or ("array",)):
        return
    before, after = _tail(old), _tail(new)
    if before == after or {before, after} == {"schema"}:
        return
    samples = [*TYPE_SAMPLES.values(), ""]
    for side, flat in ((pair.old_side, old), (pair.new_side, new)):
        if flat.items is not None:
            samples.append(_example(side, flat.items))
    count = max(len(old.prefix_items), len(new.prefix_items))
    probes = [Probe(name, pair.path, _array(pair, name, value), True) for value in samples for name in ("old", "new")]
    at = (*pair.path, ITEM)
    if "closed" in (before, after):
        rule = "EXTRA_ITEMS_FORBIDDEN" if after == "closed" else "EXTRA_ITEMS_ALLOWED"
        yield pair.change(rule, probes=probes, count=count)
        return
    narrowed = after == "schema"
    ruled = (new if narrowed else old)
    words = _items_words(pair.new_side if narrowed else pair.old_side, ruled.items)
    yield pair.change("ITEMS_SCHEMA_ADDED" if narrowed else "ITEMS_SCHEMA_REMOVED", path=at, probes=probes,
                      old_location=old.items, new_location=new.items, local=False,
                      old="any item" if narrowed else words, new=words if narrowed else "any item")


def _items_words(side: Side, location: str | None) -> str:
    if location is None:
        return "any item"
    flat = flatten(side, location)
    types = written_types(flat)
    node = side.node(location)
    said = sorted(assertions(node) - {"type"}) if isinstance(node, dict) else []
    kinds = "|".join(types) if types else "any type"
    return f"{kinds}{' (' + ', '.join(said) + ')' if said else ''}"
