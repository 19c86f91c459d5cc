"""The diff rule catalogue as data (diff/rules.yaml): level, directions, bump, purpose, rationale, message."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from wirecheck.diff.model import DIRECTIONS, VIEWS
from wirecheck.findings import Severity
from wirecheck.json_types import json_bytes

BUMPS = ("none", "patch", "minor", "major")


@dataclass(frozen=True)
class DiffRuleInfo:
    id: str
    level: Severity
    group: str
    breaks: tuple[tuple[str, str], ...]  # (direction, consumer model)
    bump: str
    purpose: str
    rationale: str
    message: str
    ceiling: Severity | None = None

    def render(self, params: dict[str, Any]) -> str:
        values: defaultdict[str, str] = defaultdict(lambda: "?")
        for key, value in params.items():
            values[key] = value if isinstance(value, str) else _show(value)
        return self.message.format_map(values)


def _show(value: Any) -> str:

    try:
        return json_bytes(value).decode()
    except TypeError:
        return repr(value)


@cache
def diff_rule_catalogue() -> dict[str, DiffRuleInfo]:
    raw = yaml.safe_load((Path(__file__).parent / "rules.yaml").read_text(encoding="utf-8"))
    catalogue = {}
    for rule_id, entry in raw.items():
        breaks = []
        for item in entry["breaks"]:
            direction, _, view = item.partition("/")
            if direction not in DIRECTIONS or view not in VIEWS:
                raise ValueError(f"rules.yaml: {rule_id}: bad direction {item!r}")
            breaks.append((direction, view))
        if entry["bump"] not in BUMPS:
            raise ValueError(f"rules.yaml: {rule_id}: bad bump {entry['bump']!r}")
        catalogue[rule_id] = DiffRuleInfo(
            rule_id, Severity(entry["level"]), entry["group"], tuple(breaks), entry["bump"],
            entry["purpose"], entry["rationale"], entry["message"],
            Severity(entry["ceiling"]) if "ceiling" in entry else None,
        )
    return catalogue
