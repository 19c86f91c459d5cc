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


HOSTILE_NAMES = ["a b|c<d>.jsonl", "line\nfeed.jsonl", "esc\x1b]0;t\x07.jsonl", "bidi\u202egnp.jsonl", "q?#%20&.jsonl"]


def test_a_hostile_file_name_is_a_valid_uri_reference_that_names_the_file(demo, tmp_path, monkeypatch, sarif_errors):
    """Issue 41, 9: artifactLocation.uri held a capture's name raw (control characters, a line feed, `|`, `<>`),
    which is no URI: code scanning cannot place the result. Each byte is percent-encoded; decoded, it is the name.
    (The schema check itself is every_sarif_log_is_checked's, in suites/conftest.py.)"""
    from urllib.parse import unquote

    monkeypatch.chdir(tmp_path)
    for name in HOSTILE_NAMES:
        (tmp_path / name).write_text('{"type": "hello", "version": "1.0.0", "extra": 1}\n')
    result = check_captures(demo, [str(tmp_path / name) for name in HOSTILE_NAMES])
    out = io.StringIO()
    FORMATS["sarif"](result, out)
    assert not sarif_errors(out.getvalue())
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in orjson.loads(out.getvalue())["runs"][0]["results"]]
    assert sorted(unquote(uri) for uri in uris) == sorted(HOSTILE_NAMES)
    assert all(not any(c in uri for c in " |<>\n\x1b\u202e?#") for uri in uris), uris
    outside = check_captures(demo, [str(tmp_path / HOSTILE_NAMES[0])])
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")  # a capture outside where wirecheck runs: a file URI
    out = io.StringIO()
    FORMATS["sarif"](outside, out)
    uri = orjson.loads(out.getvalue())["runs"][0]["results"][0]["locations"][0]["physicalLocation"][
        "artifactLocation"]["uri"]
    assert uri.startswith("file:///") and unquote(uri[len("file://"):]) == str(tmp_path / HOSTILE_NAMES[0])
