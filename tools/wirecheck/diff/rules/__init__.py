"""Structural diff rules: each is a small function over a pair of schema nodes, registered under its ids.

A rule explains *what* changed and proposes probes (payloads to try as witnesses); whether the change breaks
anyone is decided afterwards by the witnesses and the semantic layer (see diff/engine.py). The texts of every
rule — level, directions, purpose, rationale, message — are data in diff/rules.yaml.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from wirecheck.diff.flat import Flat
from wirecheck.diff.model import Change, Probe
from wirecheck.diff.side import Side


@dataclass(frozen=True)
class Pair:
    """What a node rule sees: the two flattened nodes at one instance path, and both sides."""

    old: Flat
    new: Flat
    path: tuple[Any, ...]
    old_side: Side
    new_side: Side
    via: tuple[tuple[tuple[Any, ...], str, str], ...] = ()  # union members walked through (Change.via)
    merged: bool = False  # a node is a union member merged with its object (flat.within), not written anywhere

    def change(self, rule: str, *, path: tuple[Any, ...] | None = None, old_location: str | None = "",
               new_location: str | None = "", probes: Iterable[Probe] = (), key: str = "",
               local: bool | None = None, **params: Any) -> Change:
        """`local`: whether old_location and new_location are both at `path` (Change.local); by default, when
        they are the walked nodes themselves."""
        return Change(
            rule=rule,
            path=self.path if path is None else path,
            old_location=self.old.location if old_location == "" else old_location,
            new_location=self.new.location if new_location == "" else new_location,
            params=params,
            probes=tuple(probes),
            key=key,
            via=self.via,
            local=not self.merged and (path is None or path == self.path) and (
                local if local is not None else old_location == "" and new_location == ""),
        )


NodeRule = Callable[[Pair], Iterable[Change]]
NODE_RULES: dict[str, NodeRule] = {}  # function name → rule
RULE_IDS: dict[str, str] = {}  # rule id → the module that emits it


def node_rule(*rule_ids: str) -> Callable[[NodeRule], NodeRule]:
    """Register a function run at every pair of nodes the walk visits; it may emit any of `rule_ids`."""

    def register(function: NodeRule) -> NodeRule:
        NODE_RULES[f"{function.__module__}.{function.__name__}"] = function
        declare(*rule_ids, module=function.__module__)
        return function

    return register


def declare(*rule_ids: str, module: str) -> None:
    """Declare ids emitted outside the node walk (kind-level, semantic, version and waiver rules)."""
    for rule_id in rule_ids:
        if RULE_IDS.get(rule_id, module) != module:
            raise ValueError(f"diff rule {rule_id} declared by {RULE_IDS[rule_id]} and {module}")
        RULE_IDS[rule_id] = module


@functools.cache
def load_rule_modules() -> None:
    """Import every module of this package (one per rule family) so their registrations run (once: listing the
    package's folder cost a quarter of a millisecond per schema compared)."""
    import wirecheck.diff.rules as package

    for info in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"wirecheck.diff.rules.{info.name}")
