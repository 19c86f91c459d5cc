"""The check catalogue as data: ids, levels, purposes and rationales from rules/texts/*.yaml."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from wirecheck.findings import Severity
from wirecheck.yaml_lines import read_yaml_file


@dataclass(frozen=True)
class CheckInfo:
    id: str
    level: Severity
    group: str  # built-in | protocol
    purpose: str
    rationale: str


@cache
def rule_catalogue() -> dict[str, CheckInfo]:
    """Every file in rules/texts/ (one per rule family); an id declared twice is a bug."""
    checks: dict[str, CheckInfo] = {}
    for path in sorted((Path(__file__).parent / "texts").glob("*.yaml")):
        for rule_id, entry in read_yaml_file(path).items():  # the one YAML loader (yaml_lines)
            if rule_id in checks:
                raise ValueError(f"{path.name}: check {rule_id} is already declared")
            checks[rule_id] = CheckInfo(
                rule_id, Severity(entry["level"]), entry["group"], entry["purpose"], entry["rationale"]
            )
    return checks


def level_of(rule_id: str) -> Severity:
    return rule_catalogue()[rule_id].level
