"""Message kinds between releases: matched by id, else by selector (a rename); added, removed, re-routed."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from wirecheck.diff.rules import declare

if TYPE_CHECKING:  # only a catalog's releases have kinds: `diff-schemas` never imports the contract model
    from wirecheck.contracts.model import ContractRelease, MessageKind

declare(
    "MESSAGE_KIND_ADDED", "MESSAGE_KIND_REMOVED", "MESSAGE_KIND_RENAMED", "ROLES_CHANGED", "SELECTOR_CHANGED",
    "BODY_CHANGED", "SCHEMA_ATTACHED", "SCHEMA_DETACHED", "ARGV_GRAMMAR_CHANGED", "KIND_DEPRECATED",
    module=__name__,
)


def selector_key(kind: MessageKind) -> tuple[Any, ...]:
    """What recognises a kind on the wire; two kinds with the same key are the same message under two names."""
    if kind.http is not None:
        path = re.sub(r"\{[^}]*\}", "{}", kind.http.path)
        return ("http", kind.http.method, path, kind.http.status, kind.http.base)
    return (kind.channel, frozenset(frozenset(alt) for alt in kind.fields), kind.path_glob, kind.program)


def describe_selector(kind: MessageKind) -> str:
    from wirecheck.contracts.model import condition_text

    if kind.http is not None:
        status = f" → {kind.http.status}" if kind.http.status else ""
        return f"{kind.http.method} {kind.http.path}{status}"
    parts = []
    for alt in kind.fields:
        parts.append(", ".join(condition_text(p, v) for p, v in alt))
    where = f"{kind.channel}" + (f" {kind.path_glob}" if kind.path_glob else "") + (
        f" {kind.program}" if kind.program else "")
    return where + (": " + " or ".join(parts) if parts else "")


@dataclass(frozen=True)
class KindMatch:
    matched: tuple[tuple[MessageKind, MessageKind], ...]
    added: tuple[MessageKind, ...]
    removed: tuple[MessageKind, ...]


def match_kinds(old: ContractRelease, new: ContractRelease) -> KindMatch:
    new_by_id = {k.id: k for k in new.kinds}
    matched: list[tuple[MessageKind, MessageKind]] = []
    left_old: list[MessageKind] = []
    for kind in old.kinds:
        if kind.id in new_by_id:
            matched.append((kind, new_by_id.pop(kind.id)))
        else:
            left_old.append(kind)
    by_selector = {selector_key(k): k for k in new_by_id.values()}
    removed = []
    for kind in left_old:
        twin = by_selector.pop(selector_key(kind), None)
        if twin is not None:
            matched.append((kind, twin))
            new_by_id.pop(twin.id)
        else:
            removed.append(kind)
    return KindMatch(tuple(matched), tuple(new_by_id.values()), tuple(removed))


def kind_changes(old: MessageKind, new: MessageKind) -> Iterator[tuple[str, dict[str, Any]]]:
    """(rule id, params) for what changed about a matched kind besides its schemas."""
    if old.id != new.id:
        yield "MESSAGE_KIND_RENAMED", {"old": old.id, "new": new.id}
    if (old.producer, old.consumer) != (new.producer, new.consumer):
        yield "ROLES_CHANGED", {"old": f"{old.producer} → {old.consumer}", "new": f"{new.producer} → {new.consumer}"}
    if selector_key(old) != selector_key(new):
        yield "SELECTOR_CHANGED", {"old": describe_selector(old), "new": describe_selector(new)}
    if old.body != new.body:
        yield "BODY_CHANGED", {"old": old.body, "new": new.body}
    if (old.argv_grammar or {}) != (new.argv_grammar or {}):
        yield "ARGV_GRAMMAR_CHANGED", {"changes": _grammar_delta(dict(old.argv_grammar or {}),
                                                                   dict(new.argv_grammar or {}))}
    if new.deprecated and not old.deprecated:
        yield "KIND_DEPRECATED", {}


def _json(value: Any) -> str:
    from wirecheck.json_types import json_bytes

    return json_bytes(value, sort_keys=True).decode()


def _grammar_delta(old: dict[str, Any], new: dict[str, Any]) -> str:
    from deepdiff import DeepDiff

    delta = DeepDiff(old, new, ignore_order=True, verbose_level=2)
    parts = []
    for label, key in (("added", "dictionary_item_added"), ("removed", "dictionary_item_removed"),
                       ("changed", "values_changed"), ("added", "iterable_item_added"),
                       ("removed", "iterable_item_removed")):
        for where, value in (delta.get(key) or {}).items():
            value = value.get("new_value", value) if isinstance(value, dict) and "new_value" in value else value
            pointer = "".join("/" + (a or b) for a, b in re.findall(r"\['((?:[^'\\]|\\.)*)'\]|\[(\d+)\]", where))
            parts.append(f"{label} {pointer or '/'}: {_json(value)}"[:160])
    return "; ".join(sorted(parts)[:12]) or "reordered"
