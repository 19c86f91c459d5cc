"""The diff rule catalogue as data (diff/rules.yaml): level, directions, bump, purpose, rationale, message.

rules.yaml is the table people read and edit; every diff reads its JSON twin, rules.json, written from it by
`write_json_twin()` (`python -m wirecheck.twins` after editing rules.yaml): PyYAML's import and a first YAML
load were ~150 M instructions of a one-keyword `diff-schemas` of two JSON files, which otherwise reads no YAML at
all (issue 30, 6). suites/diff/test_gate.py fails when the twin is not what the YAML says, byte for byte.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import orjson

from wirecheck.diff.model import DIRECTIONS, VIEWS
from wirecheck.findings import Severity
from wirecheck.input_files import read_bytes
from wirecheck.json_types import json_bytes
from wirecheck.markdown_text import literal

RULES_YAML = Path(__file__).parent / "rules.yaml"
RULES_JSON = Path(__file__).parent / "rules.json"  # generated from RULES_YAML (json_twin); never edited by hand
BUMPS = ("none", "patch", "minor", "major")
_KEYS = {"level", "group", "breaks", "bump", "purpose", "rationale", "message"}


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

    def render(self, params: dict[str, Any]) -> str:
        """The message with its parameters filled in; one holding a backtick as a code span (markdown_text.span), so
        that every backtick of a message belongs to a span the HTML report reads as one (a property named `x`
        showed as <code>x</code>, its backticks gone)."""
        values: defaultdict[str, str] = defaultdict(lambda: "?")
        for key, value in params.items():
            values[key] = literal(value if isinstance(value, str) else show(value))
        return self.message.format_map(values)


def show(value: Any) -> str:
    """A parameter as a finding's text shows it, in JSON syntax; never a Python repr."""
    if isinstance(value, str):
        return value
    try:
        return json_bytes(value).decode()
    except TypeError:
        return str(value)


@cache
def diff_rule_catalogue() -> dict[str, DiffRuleInfo]:
    return catalogue_from(orjson.loads(read_bytes(RULES_JSON, "diff rule catalogue")))


def json_twin(raw: dict[str, Any]) -> str:
    """rules.yaml's content as rules.json holds it (entries in the YAML's order)."""
    from wirecheck.data_files import twin_text

    return twin_text(raw)


def write_json_twin() -> None:
    from wirecheck.yaml_lines import read_yaml_file  # the one YAML loader

    RULES_JSON.write_text(json_twin(read_yaml_file(RULES_YAML)), encoding="utf-8")


def catalogue_from(raw: dict[str, Any]) -> dict[str, DiffRuleInfo]:
    """The catalogue of rules.yaml's content; a ValueError names the first entry that is not well formed."""
    catalogue = {}
    for rule_id, entry in raw.items():
        unknown = set(entry) - _KEYS
        if unknown:  # e.g. a severity cap: nothing in a rule's entry may soften what its verdicts prove
            raise ValueError(f"rules.yaml: {rule_id}: unknown keys {sorted(unknown)}")
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
        )
    return catalogue
