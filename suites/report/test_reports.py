"""Every report format, checked against what the engine found (and the JSON report against its own schema)."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import jsonschema
import orjson
import pytest

from wirecheck.check.engine import check_captures
from wirecheck.contracts.loader import own_schema
from wirecheck.report import FORMATS

LINES = [
    {"type": "hello", "version": "1.0.0", "extra": True},
    {"type": "event", "payload": {"kind": "count", "count": -1}},
    {"type": "who-knows"},
]


@pytest.fixture
def result(demo, write_lines):
    return check_captures(demo, [write_lines(LINES)])


def render(name, result) -> str:
    out = io.StringIO()
    FORMATS[name](result, out)
    return out.getvalue()


def test_json_report_matches_its_schema_and_the_result(result):
    report = orjson.loads(render("json", result))
    jsonschema.validate(report, own_schema("report.schema.json"), format_checker=jsonschema.FormatChecker())
    assert report["summary"] == {"verdict": "fails", "messages": 3, "classified": 2, "unclassified": 1,
                                 "errors": 1, "warnings": 2, "infos": 0, "kinds_total": 12, "kinds_exercised": 2,
                                 "captures": 1, "unreadable": 0,
                                 "min_coverage": None}
    assert [(f["line"], f["code"], f.get("pointer")) for f in report["findings"]] == [
        (1, "UNKNOWN_FIELD", "/extra"), (2, "SCHEMA_VIOLATION", "/payload/count"), (3, "UNKNOWN_MESSAGE_KIND", None)]
    assert {c["kind"]: c["seen"] for c in report["coverage"]}["hello"] == 1


def test_json_report_schema_rejects_a_wrong_report(result):
    report = orjson.loads(render("json", result))
    report["summary"]["verdict"] = "maybe"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(report, own_schema("report.schema.json"))


def test_junit_has_a_case_per_kind_with_failures_and_skips(result):
    root = ET.fromstring(render("junit", result))
    suite = root.find("testsuite")
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert len(cases) == 13  # 12 kinds + the capture-level case
    assert cases["event"].find("failure") is not None
    assert "/payload/count" in cases["event"].find("failure").text
    assert cases["hello"].find("failure") is None and "unknown field" in cases["hello"].find("system-out").text
    assert cases["job"].find("skipped").get("message") == "not exercised"
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("13", "1", "10")


def test_markdown_lists_verdict_findings_and_coverage(result):
    text = render("markdown", result)
    assert "❌ **fails** — 3 messages, 1 error, 2 warnings, 2 of 12 message kinds exercised" in text
    assert "| `SCHEMA_VIOLATION` | `event` | `/payload/count` |" in text
    assert "| `job` | not exercised | 0 | 0 |" in text


def test_text_report_gives_location_code_pointer_and_expected_found(result):
    text = render("text", result)
    assert ':2  error  SCHEMA_VIOLATION  [event]  /payload/count  (as kind "count") expected at least 0, found -1 ' \
           "(expected minimum: 0; found -1)" in text
    assert "coverage: 2 of 12 message kinds exercised" in text
    assert text.rstrip().endswith("FAILS: 3 messages (1 unclassified), 1 error, 2 warnings")


def test_conforming_result(demo, write_lines):
    result = check_captures(demo, [write_lines([{"type": "hello", "version": "1.0.0"}])])
    assert orjson.loads(render("json", result))["summary"]["verdict"] == "conforms"
    assert render("text", result).rstrip().endswith("CONFORMS: 1 message (none unclassified), 0 errors, 0 warnings")


def test_every_format_judges_by_the_runs_fail_on(demo, write_lines) -> None:
    """With --fail-on warning a run with only a warning exits 1; each report must say it fails too, not conforms."""
    from wirecheck.check.engine import CheckOptions
    from wirecheck.findings import Severity

    lines = [{"type": "hello", "version": "1.0.0", "extra": True}]  # an unknown field: one warning
    for fail_on, verdict in ((Severity.ERROR, "conforms"), (Severity.WARNING, "fails")):
        result = check_captures(demo, [write_lines(lines)], CheckOptions(fail_on=fail_on))
        assert [f.severity for f in result.findings] == [Severity.WARNING]
        assert result.fails() == (verdict == "fails")
        assert orjson.loads(render("json", result))["summary"]["verdict"] == verdict
        assert render("text", result).splitlines()[-1].startswith(verdict.upper())
        assert ("❌" if verdict == "fails" else "✅") in render("markdown", result)
        suites = ET.fromstring(render("junit", result).split("\n", 1)[1])
        assert suites.get("failures") == ("1" if verdict == "fails" else "0")


@pytest.mark.parametrize("name", ["text", "markdown"])
def test_control_characters_from_a_capture_are_shown_escaped_not_obeyed(demo, write_lines, name) -> None:
    """A field name carrying an ANSI escape, a bell or a right-to-left override would recolour the terminal or
    reorder the line a reviewer reads; the human formats show it escaped (JSON escapes by itself)."""
    result = check_captures(demo, [write_lines([{"type": "hello", "version": "1.0.0",
                                                 "\x1b[31mred\x1b[0m": 1, "bell\x07": 2, "rlo\u202e": 3}])])
    text = render(name, result)
    assert "\\x1b[31mred\\x1b[0m" in text and "bell\\x07" in text and "rlo\\u202e" in text
    assert not any(c in text for c in "\x1b\x07\u202e")


def test_printable_keeps_line_ends_tabs_and_ordinary_unicode() -> None:
    from wirecheck.findings import printable

    assert printable("a\tb\nç ✓ 日本\x00\x7f\x85\u2066") == "a\tb\nç ✓ 日本\\x00\\x7f\\x85\\u2066"


def test_info_findings_are_counted_in_every_summary(demo, write_lines) -> None:
    """Under --fail-on info a run fails on them: a summary of "0 errors, 0 warnings" would not say why. A capture
    with more unknown messages than are listed gets one FINDINGS_OMITTED info."""
    from wirecheck.check.engine import MAX_LISTED, CheckOptions
    from wirecheck.findings import Severity

    # as many messages it knows: a capture of nothing but unknown messages is NOTHING RECOGNISED (test_verdict.py),
    # one mostly of them MOSTLY_UNRECOGNISED (an error)
    lines = [{"type": "hello", "version": "1.0.0"}] * (MAX_LISTED + 1) + [{"type": "who-knows"}] * (MAX_LISTED + 1)
    for fail_on, verdict in ((Severity.ERROR, "CONFORMS"), (Severity.INFO, "FAILS")):
        result = check_captures(demo, [write_lines(lines)], CheckOptions(fail_on=fail_on))
        assert render("text", result).rstrip().endswith(
            f"{verdict}: {2 * MAX_LISTED + 2} messages ({MAX_LISTED + 1} unclassified), 0 errors, {MAX_LISTED + 1} "
            "warnings, 1 info")
        assert f"0 errors, {MAX_LISTED + 1} warnings, 1 info, " in render("markdown", result)
        assert orjson.loads(render("json", result))["summary"]["infos"] == 1


def test_findings_on_framed_lines_name_their_sender_in_json_and_text(demo, write_lines) -> None:
    result = check_captures(demo, [write_lines([
        {"wirecheck_capture": 1, "framing": "directed"},
        {"from": "server", "message": {"type": "hello", "version": "1.0.0"}},
        b'{"from": "client", "message": {"type": \n',
        {"from": "server", "message": {"type": "who-knows"}},
    ])])
    report = orjson.loads(render("json", result))
    jsonschema.validate(report, own_schema("report.schema.json"))
    assert [(f["line"], f["code"], f.get("sender")) for f in report["findings"]] == [
        (3, "PARSE_ERROR", "client"), (4, "UNKNOWN_MESSAGE_KIND", "server")]
    lines = render("text", result).splitlines()
    assert any(line.startswith(f"{result.captures[0].file}:3  error  PARSE_ERROR  from client  ") for line in lines)
