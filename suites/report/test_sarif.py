"""The conformance SARIF report (code scanning, the GitHub Action): a result per finding at its file and line, the
check's catalogue text as its rule."""

from __future__ import annotations

import io

import orjson

from wirecheck.check.engine import check_captures
from wirecheck.report import FORMATS


def test_each_finding_is_a_result_at_its_capture_line(demo, write_lines):
    path = write_lines([{"type": "hello", "version": "1.0.0", "extra": True},
                        {"type": "event", "payload": {"kind": "count", "count": -1}}])
    result = check_captures(demo, [path])
    out = io.StringIO()
    FORMATS["sarif"](result, out)
    sarif = orjson.loads(out.getvalue())
    assert sarif["version"] == "2.1.0"
    (run,) = sarif["runs"]
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    assert set(rules) == {"UNKNOWN_FIELD", "SCHEMA_VIOLATION"}
    assert rules["SCHEMA_VIOLATION"]["shortDescription"]["text"].startswith("Checks that")
    got = [(r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["region"]["startLine"],
            r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"]) for r in run["results"]]
    assert got == [("UNKNOWN_FIELD", "warning", 1, "/extra"), ("SCHEMA_VIOLATION", "error", 2, "/payload/count")]
    for r in run["results"]:
        assert run["tool"]["driver"]["rules"][r["ruleIndex"]]["id"] == r["ruleId"]
        assert r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("capture.jsonl")
        assert "demo@1.0.0" in r["message"]["text"]


def test_a_conforming_run_has_no_results(demo, write_lines):
    result = check_captures(demo, [write_lines([{"type": "hello", "version": "1.0.0"}])])
    out = io.StringIO()
    FORMATS["sarif"](result, out)
    assert orjson.loads(out.getvalue())["runs"][0]["results"] == []
