"""Value sets: enum members and consts added or removed, enum constraints introduced or dropped."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from wirecheck.diff.instances import NoExample, example
from wirecheck.diff.model import Change, Probe
from wirecheck.diff.rules import Pair, node_rule
from wirecheck.json_types import json_bytes


def _key(value: object) -> str:
    return json_bytes(value, sort_keys=True).decode()


@node_rule("VERSION_STAMP_CHANGED")
def version_stamps(pair: Pair) -> Iterator[Change]:
    """A version stamp's value changed (contracts/stamps.py): expected with every release, and breaks nobody."""
    old, new = pair.old.stamp, pair.new.stamp
    if old is not None and new is not None and _key(old[0]) != _key(new[0]):
        yield pair.change("VERSION_STAMP_CHANGED", old=old[0], new=new[0], key="stamp")


@node_rule("ENUM_VALUE_ADDED", "ENUM_VALUE_REMOVED", "CONST_CHANGED", "ENUM_CONSTRAINT_ADDED",
           "ENUM_CONSTRAINT_REMOVED")
def value_sets(pair: Pair) -> Iterator[Change]:
    old, new = pair.old, pair.new
    if old.union or new.union:
        return
    if old.enum is not None and new.enum is not None:
        old_keys = {_key(v): v for v in old.enum}
        new_keys = {_key(v): v for v in new.enum}
        if old.is_const and new.is_const:
            if old_keys.keys() != new_keys.keys():
                yield pair.change(
                    "CONST_CHANGED",
                    probes=[Probe("old", pair.path, old.enum[0], True), Probe("new", pair.path, new.enum[0], True)],
                    old=old.enum[0], new=new.enum[0], key=f"{_key(old.enum[0])}->{_key(new.enum[0])}",
                )
            return
        for key in sorted(new_keys.keys() - old_keys.keys()):
            value = new_keys[key]
            yield pair.change("ENUM_VALUE_ADDED", probes=[Probe("new", pair.path, value, True)], value=value, key=key)
        for key in sorted(old_keys.keys() - new_keys.keys()):
            value = old_keys[key]
            yield pair.change("ENUM_VALUE_REMOVED", probes=[Probe("old", pair.path, value, True)], value=value,
                              key=key)
    elif old.enum is None and new.enum is not None and old.types is not None:
        probes = []
        with contextlib.suppress(NoExample):
            probes.append(Probe("old", pair.path, example(pair.old_side, old.location), True))
        probes += [Probe("old", pair.path, v, True) for v in ("x_wirecheck_other", 987654)]
        yield pair.change("ENUM_CONSTRAINT_ADDED", probes=probes, values=new.enum)
    elif old.enum is not None and new.enum is None and new.types is not None:
        probes = [Probe("new", pair.path, v, True) for v in ("x_wirecheck_other", 987654)]
        with contextlib.suppress(NoExample):
            probes.append(Probe("new", pair.path, example(pair.new_side, new.location), True))
        yield pair.change("ENUM_CONSTRAINT_REMOVED", probes=probes, values=old.enum)
