"""Protocol rules a catalog turns on (`rules:`): added, removed, or with changed parameters between releases.

Rules carry behaviour JSON Schema cannot (which rejection codes are remediable, which reset-time forms parse);
a change there is a wire change too. Whom it breaks depends on the rule, so the verdict is unknown, never safe.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from wirecheck.diff.rules import declare
from wirecheck.json_types import shown

if TYPE_CHECKING:  # only a catalog's releases have protocol rules: `diff-schemas` never imports the contract model
    from wirecheck.contracts.model import ContractRelease, RuleUse

declare("PROTOCOL_RULE_ADDED", "PROTOCOL_RULE_REMOVED", "PROTOCOL_RULE_CHANGED", module=__name__)


def _key(use: RuleUse) -> str:
    return use.id


def rule_changes(old: ContractRelease, new: ContractRelease) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(rule id of the diff rule, protocol rule id, params) for each protocol rule use that changed."""
    old_uses = {_key(u): u for u in old.rules}
    new_uses = {_key(u): u for u in new.rules}
    for key in sorted(new_uses.keys() - old_uses.keys()):
        yield "PROTOCOL_RULE_ADDED", key, {"rule": key, "kinds": ", ".join(new_uses[key].kinds) or "all kinds"}
    for key in sorted(old_uses.keys() - new_uses.keys()):
        yield "PROTOCOL_RULE_REMOVED", key, {"rule": key, "kinds": ", ".join(old_uses[key].kinds) or "all kinds"}
    for key in sorted(old_uses.keys() & new_uses.keys()):
        a, b = old_uses[key], new_uses[key]
        delta = _delta(dict(a.params), dict(b.params))
        if set(a.kinds) != set(b.kinds):
            delta.append(f"kinds {', '.join(sorted(a.kinds)) or 'none'} → {', '.join(sorted(b.kinds)) or 'none'}")
        if delta:
            yield "PROTOCOL_RULE_CHANGED", key, {"rule": key, "changes": "; ".join(delta)}


def _delta(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    out = []
    for name in sorted(old.keys() | new.keys()):
        if name in ("note", "description"):
            continue
        a, b = old.get(name), new.get(name)
        if a == b:
            continue
        if isinstance(a, list) and isinstance(b, list):
            added = [v for v in b if v not in a]
            removed = [v for v in a if v not in b]
            parts = ([f"+{', +'.join(map(shown, added))}"] if added else []) + (
                [f"-{', -'.join(map(shown, removed))}"] if removed else [])
            out.append(f"{name}: {' '.join(parts) or 'reordered'}")
        else:
            out.append(f"{name}: {shown(a)} → {shown(b)}")
    return out
