"""Every diff report format: JSON valid against its own schema, SARIF 2.1.0 shape with located results, JUnit
parseable with failures per kind, Markdown/text/HTML carrying verdicts, witnesses and fingerprints."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from wirecheck.contracts import load_registry
from wirecheck.diff import DiffOptions
from wirecheck.diff.package import diff_package
from wirecheck.diff.report import FORMATS, write
from wirecheck.diff.report.sarif import pointer_line
from wirecheck.diff.run import DiffRun

CATALOGS = Path(__file__).parent / "catalogs"
SCHEMA = Path(__file__).resolve().parents[2] / "tools" / "wirecheck" / "schemas" / "diff-report.schema.json"


@pytest.fixture(scope="module")
def run():
    package = diff_package(load_registry(CATALOGS), "shop", DiffOptions())
    return DiffRun(tuple(package.consecutive), DiffOptions(), "breaking", (), (package,))


def _render(name, run, **extra):
    out = io.StringIO()
    write(name, run, out, **extra)
    return out.getvalue()


def test_json_matches_its_schema(run) -> None:
    data = json.loads(_render("json", run))
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(data)
    assert data["summary"]["exit_code"] == 1
    first = data["pairs"][0]
    assert first["compatibility"]["backward"]["tolerant"] == "breaking"
    assert data["pairs"][1]["findings"] == []
    witnessed = [f for f in first["findings"] if f["witnesses"]]
    assert witnessed and witnessed[0]["witnesses"][0]["checked_by"] == ["jsonschema-rs", "python-jsonschema"]
    assert data["packages"][0]["matrix"][1]["old_version"] == "1.0.0"


def test_json_schema_rejects_a_broken_report(run) -> None:
    data = json.loads(_render("json", run))
    data["pairs"][0]["findings"][0]["fingerprint"] = "nope"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(data)


def test_sarif(run) -> None:
    data = json.loads(_render("sarif", run, contracts=CATALOGS, root=CATALOGS.parent))
    assert data["version"] == "2.1.0"
    driver = data["runs"][0]["tool"]["driver"]
    ids = [r["id"] for r in driver["rules"]]
    results = data["runs"][0]["results"]
    assert all(ids[r["ruleIndex"]] == r["ruleId"] for r in results)
    assert {r["level"] for r in results} <= {"error", "warning", "note"}
    located = next(r for r in results if r["ruleId"] == "REQUIRED_PROPERTY_REMOVED")
    physical = located["locations"][0]["physicalLocation"]
    # annotations go on the new file, at the object that lost the property
    assert physical["artifactLocation"]["uri"] == "catalogs/shop/1.0.1/stream.json"
    text = (CATALOGS / "shop/1.0.1/stream.json").read_text().splitlines()
    assert '"Usage"' in text[physical["region"]["startLine"] - 1]
    assert located["partialFingerprints"]["wirecheckFingerprint/v1"]


def test_pointer_line() -> None:
    text = '{\n  "$defs": {\n    "A": {\n      "properties": {\n        "x": {}\n      }\n    }\n  }\n}\n'
    assert pointer_line(text, "/$defs/A/properties/x") == 5


def test_junit(run) -> None:
    root = ET.fromstring(_render("junit", run))
    suites = root.findall("testsuite")
    assert len(suites) == 3 and suites[2].get("name") == "gate"  # a pair per suite, then the run's gate
    assert suites[2].find(".//failure") is not None  # the run fails: so does its gate case
    failures = {c.get("name") for c in suites[0].iter("testcase") if c.find("failure") is not None}
    assert {"event.bye", "control.get_usage", "clarify.request"} <= failures
    assert not any(c.find("failure") is not None for c in suites[1].iter("testcase"))


def test_markdown_text_html(run) -> None:
    md = _render("markdown", run)
    assert md.index("| pair | verdict |") < md.index("Legend:") < md.index('<a id="shop-1.0.0-1.0.1">')
    assert "| shop → client | ✗ tolerant, ✗ strict | ✗ tolerant, ✗ strict |" in md or "❌ breaking" in md
    assert "`REQUIRED_PROPERTY_REMOVED`" in md and "  - witness backward/" in md
    text = _render("text", run)
    assert text.index("do: ") < text.index("legend: ") < text.index(" changes: ")
    assert "witness backward/tolerant" in text and "gate --fail-on breaking: fail" in text
    html = _render("html", run)
    assert "<table>" in html and "older ↓ / newer →" in html and html.count("<td class=") >= 3
    assert "<script" not in html


def test_every_format_registered() -> None:
    assert set(FORMATS) == {"text", "markdown", "json", "junit", "sarif", "html"}


def test_html_for_single_pairs_still_has_a_matrix() -> None:
    from wirecheck.diff import diff_releases

    registry = load_registry(CATALOGS)
    result = diff_releases(registry.load("shop@1.0.0"), registry.load("shop@1.0.1"))
    html = _render("html", DiffRun((result,)))
    assert "<h2>shop</h2>" in html and "class='bad'" in html and "href='#shop-1.0.0-1.0.1'" in html


def test_diff_versions_writes_every_report(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from wirecheck.diff.versions import main

    code = main(["--contracts", str(CATALOGS), "--out", str(tmp_path), "--no-witnesses"])
    # judged under --fail-on breaking by default (issue 18: it said "never" over pairs that break every direction),
    # and every report says so
    assert code == 1
    for name in ("index.md", "shop-1.0.0-1.0.1.md"):
        assert "Gate `--fail-on breaking`: **fail**" in (tmp_path / name).read_text(encoding="utf-8")
    assert "Gate `--fail-on breaking`: **pass**" in (tmp_path / "shop-1.0.1-2.0.0.md").read_text(encoding="utf-8")
    assert "--fail-on never" not in (tmp_path / "index.md").read_text(encoding="utf-8")
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["diff.json", "index.html", "index.md", "shop-1.0.0-1.0.1.md", "shop-1.0.1-2.0.0.md"]
    index = (tmp_path / "index.md").read_text()  # the answers, each pair linked to its own file
    assert "[shop 1.0.0 → 1.0.1](shop-1.0.0-1.0.1.md#shop-1.0.0-1.0.1)" in index and "## " not in index
    data = json.loads((tmp_path / "diff.json").read_text())
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(data)
    assert len(data["packages"][0]["matrix"]) == 3
    printed = capsys.readouterr().out
    assert "shop 1.0.0 → 1.0.1: breaking; patch bump, changes need major" in printed and "do: " in printed
    assert "gate --fail-on breaking: fail" in printed
    assert main(["--contracts", str(CATALOGS), "--out", str(tmp_path), "--fail-on", "never"]) == 0
    assert "Gate `--fail-on never`: **pass**" in (tmp_path / "index.md").read_text(encoding="utf-8")


def test_bench_diff_reports_both_modes() -> None:
    import gc

    from wirecheck.diff.bench import PASSES, bench_diff

    frozen = gc.get_freeze_count()
    timings = bench_diff(CATALOGS)
    # the objects set aside while a pass is timed are handed back to the collector, which is left running
    assert gc.get_freeze_count() == frozen and gc.isenabled()
    assert len(timings["without_witnesses_passes_s"]) == len(timings["with_witnesses_passes_s"]) == PASSES
    assert timings["without_witnesses_s"] == min(timings["without_witnesses_passes_s"])
    assert timings["pair_count"] == 3 and timings["consecutive_pair_count"] == 2
    assert timings["with_witnesses_s"] > 0 and timings["without_witnesses_s"] > 0
    assert all({"with_witnesses_s", "without_witnesses_s", "witnesses"} <= set(row) for row in timings["pairs"])


def test_markdown_and_junit_hold_any_property_name() -> None:
    """A `|` in a property name would split a Markdown table row; a NUL would make the JUnit file unparseable."""
    import io
    import xml.etree.ElementTree as ET

    from wirecheck.diff import diff_schemas
    from wirecheck.diff.options import DiffOptions
    from wirecheck.diff.report import junit, markdown
    from wirecheck.diff.run import DiffRun

    dialect = "https://json-schema.org/draft/2020-12/schema"
    old = {"$schema": dialect, "type": "object", "properties": {"a|b\x00": {"type": "string"}}}
    new = {"$schema": dialect, "type": "object", "properties": {"a|b\x00": {"type": "integer"}}}
    run = DiffRun((diff_schemas(old, new),), DiffOptions(), "breaking")
    text = io.StringIO()
    markdown.write(run, text)
    tables: list[list[str]] = [[]]
    for line in text.getvalue().splitlines():
        if line.startswith("|"):
            tables[-1].append(line.replace("\\|", ""))
        elif tables[-1]:
            tables.append([])
    assert all(len({row.count("|") for row in table}) == 1 for table in tables if table)  # no row split
    assert "- `a|b\\x00`: type changed from" in text.getvalue()  # a list item: shown as written
    xml = io.StringIO()
    junit.write(run, xml)
    assert "TYPE_CHANGED /a|b\\x00" in ET.fromstring(xml.getvalue().split("\n", 1)[1]).find(".//failure").text
