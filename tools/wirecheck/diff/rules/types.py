"""JSON types: a node's set of accepted types widened, narrowed or replaced."""

from __future__ import annotations

from collections.abc import Iterator

from wirecheck.diff.model import Change, Probe
from wirecheck.diff.rules import Pair, node_rule

TYPE_SAMPLES = {"string": "x", "integer": 1, "number": 0.5, "boolean": True, "null": None, "object": {}, "array": []}


def _expand(types: tuple[str, ...]) -> set[str]:
    # integer ⊂ number: `number` admits every integer, so compare the expanded sets
    found = set(types)
    return found | {"integer"} if "number" in found else found


@node_rule("TYPE_WIDENED", "TYPE_NARROWED", "TYPE_CHANGED")
def types(pair: Pair) -> Iterator[Change]:
    old, new = pair.old, pair.new
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
