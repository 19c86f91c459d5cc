"""The check catalogue as data: ids, levels, purposes and rationales from rules/texts/*.yaml.

The YAML files are what people read and edit; every command reads their JSON twin, texts.json, written from them by
`write_json_twin()` (`python -m wirecheck.twins` after editing a file of rules/texts/): PyYAML's import was ~90 M
instructions of a `wirecheck validate` of a bundled release, which otherwise reads no YAML (issue 30, 6).
suites/rules/test_catalogue.py fails when the twin is not what the YAML says, byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import orjson

from wirecheck.findings import Severity
from wirecheck.input_files import read_bytes

TEXTS = Path(__file__).parent / "texts"
TEXTS_JSON = Path(__file__).parent / "texts.json"  # generated from TEXTS/*.yaml (json_twin); never edited by hand


@dataclass(frozen=True)
class CheckInfo:
    id: str
    level: Severity
    group: str  # built-in | protocol
    purpose: str
    rationale: str


@cache
def rule_catalogue() -> dict[str, CheckInfo]:
    """Every file in rules/texts/ (one per rule family), as texts.json holds them; an id declared twice is a bug."""
    return catalogue_from(orjson.loads(read_bytes(TEXTS_JSON, "check catalogue")))


def catalogue_from(files: dict[str, Any]) -> dict[str, CheckInfo]:
    """The catalogue of {file name: its data}, files in name order."""
    checks: dict[str, CheckInfo] = {}
    for name, entries in files.items():
        for rule_id, entry in entries.items():
            if rule_id in checks:
                raise ValueError(f"{name}: check {rule_id} is already declared")
            checks[rule_id] = CheckInfo(
                rule_id, Severity(entry["level"]), entry["group"], entry["purpose"], entry["rationale"]
            )
    return checks


def read_texts() -> dict[str, Any]:
    """{file name: data} of every file in rules/texts/, in name order, read with the one YAML loader."""
    from wirecheck.yaml_lines import read_yaml_file

    return {path.name: read_yaml_file(path) for path in sorted(TEXTS.glob("*.yaml"))}


def json_twin(files: dict[str, Any]) -> str:
    """The texts as texts.json holds them (files, and entries in each, in the YAML's order)."""
    from wirecheck.data_files import twin_text

    return twin_text(files)


def write_json_twin() -> None:
    TEXTS_JSON.write_text(json_twin(read_texts()), encoding="utf-8")


def level_of(rule_id: str) -> Severity:
    return rule_catalogue()[rule_id].level
