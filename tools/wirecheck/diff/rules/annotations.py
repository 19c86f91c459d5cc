"""Annotations: keywords no validator asserts (`vocabulary.is_annotation`), listed when asked (--annotations)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from wirecheck.diff.flat import Flat
from wirecheck.diff.model import Change
from wirecheck.diff.rules import Pair, node_rule
from wirecheck.diff.side import Side
from wirecheck.diff.vocabulary import is_annotation

_PLACES = frozenset({"$id", "$schema", "$defs", "definitions"})  # where schemas live, not what they say


def annotations_of(side: Side, flat: Flat) -> dict[str, Any]:
    """The annotations of a walked node: its own, then those of the nodes its `$ref`s lead to (the node's own win,
    as they do for readers of generated docs)."""
    found: dict[str, Any] = {}
    for location in (flat.origin or flat.location, *flat.refs):
        node = side.node(location)
        if isinstance(node, dict):
            for key, value in node.items():
                if is_annotation(key) and key not in _PLACES:
                    found.setdefault(key, value)
    return found


@node_rule("ANNOTATION_CHANGED")
def annotation_changes(pair: Pair) -> Iterator[Change]:
    before, after = annotations_of(pair.old_side, pair.old), annotations_of(pair.new_side, pair.new)
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k, _NONE) != after.get(k, _NONE))
    if changed:
        yield pair.change("ANNOTATION_CHANGED", keywords=", ".join(changed), key=",".join(changed))


_NONE = object()
