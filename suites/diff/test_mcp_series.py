"""MCP's published schema history, revision by revision (issue 30, done-when): each consecutive pair of
fixtures/mcp-schema diffed as `wirecheck diff-schemas OLD NEW` does, held to MCP's changelogs item by item
(fixtures/mcp-schema/mcp-series.yaml): what each item shows (rule, kind, path, direction, declared or latent, a
witness for a declared break), the counts by severity and evidence, and every error accounted for by a changelog
item or a documented-elsewhere change that is true by set semantics: no false break."""

from __future__ import annotations

import itertools
import json
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import pytest

from wirecheck.diff.engine import diff_schemas
from wirecheck.diff.inputs import in_input_terms, read_input
from wirecheck.diff.model import DECLARED, UNKNOWN, VIEWS
from wirecheck.yaml_lines import read_yaml_file

MCP = Path(__file__).resolve().parents[2] / "fixtures" / "mcp-schema"
SERIES = read_yaml_file(MCP / "mcp-series.yaml")["pairs"]


def _result(old: str, new: str) -> Any:
    old_input, new_input = (read_input(json.loads((MCP / v / "schema.json").read_text())) for v in (old, new))
    return in_input_terms(diff_schemas(old_input.schema, new_input.schema, old_name=old, new_name=new), old_input,
                          new_input)


@pytest.fixture(scope="module", params=SERIES, ids=lambda p: f"{p['old']}..{p['new']}")
def pair(request: pytest.FixtureRequest) -> tuple[dict[str, Any], Any]:
    return request.param, _result(request.param["old"], request.param["new"])


def _matching(entry: dict[str, Any], findings: Any) -> list[Any]:
    return [f for f in findings if fnmatchcase(f.rule, entry["rule"]) and fnmatchcase(f.kind, entry["kind"])
            and fnmatchcase(f.path, entry.get("path", ""))]


def _entries(expected: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for item in expected["items"] for e in item.get("found", ())] + list(expected["undocumented"])


def test_the_counts_by_severity_and_evidence(pair: tuple[dict[str, Any], Any]) -> None:
    expected, result = pair
    findings = result.findings
    counts = {severity: sum(f.severity.value == severity for f in findings) for severity in ("error", "warning",
                                                                                               "info")}
    counts["declared"] = sum(f.breaks_declared() for f in findings)
    counts["latent"] = sum(f.breaks() and not f.breaks_declared() for f in findings)
    counts["undecided"] = sum(not f.breaks() and any(v == UNKNOWN for *_, v in f.verdicts) for f in findings)
    assert counts == expected["counts"]


def test_every_changelog_item_the_schema_can_show_is_found_in_its_direction(
        pair: tuple[dict[str, Any], Any]) -> None:
    expected, result = pair
    for entry in _entries(expected):
        found = _matching(entry, result.findings)
        assert len(found) == entry.get("count", 1), (entry, [(f.rule, f.kind, f.path) for f in found])
        undecided = [f for f in found if not f.breaks(entry["breaks"])]
        assert len(undecided) == entry.get("undecided", 0), (entry, [f.verdicts for f in undecided])
        assert all(v == UNKNOWN for f in undecided for d, _, v in f.verdicts if d == entry["breaks"])
        for finding in found:
            if finding in undecided:
                continue
            if "evidence" not in entry:
                continue
            evidence = {finding.evidence(entry["breaks"], view) for view in VIEWS} - {None}
            assert evidence == {entry["evidence"]}, (entry, finding.verdicts, finding.latent)
            if entry["evidence"] == DECLARED:
                assert any(w.direction == entry["breaks"] for w in finding.witnesses), entry
    for item in expected["items"]:  # each item is shown or says why the schema cannot show it
        assert bool(item.get("found")) != bool(item.get("not_in_schema")), item["item"]


def test_every_error_is_a_documented_or_explained_change(pair: tuple[dict[str, Any], Any]) -> None:
    """No false break: each error-level finding is one a changelog item names or `undocumented` explains."""
    expected, result = pair
    accounted = {id(f) for entry in _entries(expected) for f in _matching(entry, result.findings)}
    unaccounted = [(f.rule, f.kind, f.path) for f in result.findings
                   if f.severity.value == "error" and id(f) not in accounted]
    assert unaccounted == []


def test_the_series_is_every_consecutive_published_revision() -> None:
    revisions = sorted(p.name for p in MCP.iterdir() if (p / "schema.json").exists())
    assert [(p["old"], p["new"]) for p in SERIES] == list(itertools.pairwise(revisions))
