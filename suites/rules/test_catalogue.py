"""The check catalogue (rules/catalogue.py): commands read texts.json, the JSON twin of rules/texts/*.yaml, so a
`wirecheck validate` of a bundled release imports no PyYAML; the twin must be what the YAML files say."""

from __future__ import annotations

import pytest

from wirecheck.rules import catalogue


def test_the_catalogue_commands_read_is_the_yaml_files() -> None:
    files = catalogue.read_texts()
    assert list(files) == sorted(p.name for p in catalogue.TEXTS.glob("*.yaml")) and files
    assert catalogue.TEXTS_JSON.read_text(encoding="utf-8") == catalogue.json_twin(files), (
        "rules/texts.json is stale: run python -m wirecheck.twins")
    assert catalogue.rule_catalogue() == catalogue.catalogue_from(files)
    assert list(catalogue.rule_catalogue()) == [rule_id for entries in files.values() for rule_id in entries]


def test_a_stale_twin_is_found_stale() -> None:
    files = catalogue.read_texts()
    name = next(iter(files))
    rule_id = next(iter(files[name]))
    files[name][rule_id] = {**files[name][rule_id], "purpose": files[name][rule_id]["purpose"] + " (edited)"}
    assert catalogue.TEXTS_JSON.read_text(encoding="utf-8") != catalogue.json_twin(files)


def test_an_id_declared_twice_is_refused() -> None:
    entry = {"level": "error", "group": "protocol", "purpose": "p", "rationale": "r"}
    with pytest.raises(ValueError, match=r"b\.yaml: check X is already declared"):
        catalogue.catalogue_from({"a.yaml": {"X": entry}, "b.yaml": {"X": entry}})
