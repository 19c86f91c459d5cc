"""The report model every diff format renders (diff/changes.py, diff/verdict/upgrade.py, diff/report/common.py),
checked on the bundled contracts: every finding reachable by fingerprint from the machine formats (and none in the
prose), no contradictory
findings about one change, the gate line of every format agreeing with the exit code, no Python reprs."""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from wirecheck.contracts import load_registry
from wirecheck.diff import DiffOptions, diff_releases
from wirecheck.diff.changes import group_changes
from wirecheck.diff.package import diff_package
from wirecheck.diff.report import FORMATS, write
from wirecheck.diff.report.common import build, short_payload
from wirecheck.diff.run import DiffRun
from wirecheck.diff.verdict.upgrade import answer
from wirecheck.diff.waivers import apply_waivers, load_waivers

CATALOGS = Path(__file__).parent / "catalogs"
HUMAN = ("text", "markdown", "html")
# Statements about one change that cannot all be true are engine bugs: the last one, walking an `anyOf` of
# alternatives beside an object's properties as if each were the whole object (xopc sidechat.inputs.request:
# "attachments: PROPERTY_ADDED, REQUIRED_PROPERTY_ADDED"), went with issue 19 (diff/walk.py `_as_one`).
KNOWN_CONTRADICTIONS: set[tuple[str, str]] = set()


@pytest.fixture(scope="module")
def bundled() -> DiffRun:
    """Every bundled package, every pair of its matrix (what `wirecheck diff` and diff-versions report)."""
    registry = load_registry()
    packages = [diff_package(registry, name, DiffOptions()) for name in registry.packages]
    return DiffRun(tuple(r for p in packages for r in p.matrix.values()), DiffOptions(), "breaking", (),
                   tuple(packages))


def render(name: str, run: DiffRun, **extra) -> str:
    out = io.StringIO()
    write(name, run, out, **extra)
    return out.getvalue()


def test_every_finding_is_reachable_by_fingerprint_from_the_machine_formats_and_none_is_in_the_prose(bundled) -> None:
    """Fingerprints are ids for JSON, SARIF, JUnit and waivers files (issue 32: `#9a9c4af693fb` after every property
    of the text report): text and Markdown carry none, HTML only in a data attribute a person does not read."""
    data = json.loads(render("json", bundled))
    fingerprints = {f["fingerprint"] for pair in data["pairs"] for f in pair["findings"]}
    assert len(fingerprints) > 300
    for name in ("junit", "sarif", "html"):
        shown = set(re.findall(r"[0-9a-f]{12}", render(name, bundled)))
        assert fingerprints <= shown, (name, sorted(fingerprints - shown)[:5])
    for name in ("text", "markdown"):
        assert not fingerprints & set(re.findall(r"\b[0-9a-f]{12}\b", render(name, bundled))), name
    page = render("html", bundled)
    visible = re.sub(r"<[^>]+>", "", page)  # the page's words, without its tags and their attributes
    assert not fingerprints & set(re.findall(r"\b[0-9a-f]{12}\b", visible))


def test_json_lists_each_pairs_changes_beside_the_flat_findings_each_fingerprint_once(bundled) -> None:
    """JSON keeps the flat list (tools, waivers) and gains the grouped changes the human formats show: per pair the
    changes' fingerprints are exactly the flat list's, each in one change, and the answer comes with them."""
    import jsonschema

    from wirecheck.contracts.loader import own_schema

    data = json.loads(render("json", bundled))
    jsonschema.Draft202012Validator(own_schema("diff-report.schema.json")).validate(data)
    grouped = 0
    for pair in data["pairs"]:
        flat = [f["fingerprint"] for f in pair["findings"]]
        in_changes = [fp for change in pair["changes"] for fp in change["fingerprints"]]
        assert sorted(in_changes) == sorted(flat), (pair["package"], pair["old_version"], pair["new_version"])
        for change in pair["changes"]:
            assert sorted(fp for m in change["members"] for fp in m["fingerprints"]) == sorted(change["fingerprints"])
            broken = {v["direction"] for v in change["verdicts"] if v["verdict"] == "breaking"}
            assert {w["direction"] for w in change["witnesses"]} <= broken
        grouped += len(pair["changes"])
        assert pair["answer"]["advice"] or not flat
    assert 0 < grouped < sum(len(p["findings"]) for p in data["pairs"]) / 3  # grouping, not one change per finding
    usage = next(c for p in data["pairs"] if (p["old_version"], p["new_version"]) == ("1.0.21", "1.0.23")
                 for c in p["changes"] if "SDKControlGetContextUsageResponse" in c["title"])
    assert usage["where"] == [{"kind": "control_request.get_context_usage", "surface": "reply", "at": ""}]


def _flat_lines(run: DiffRun) -> int:
    """How many lines the flat text layout this report replaced (f23bbcd) printed for `run`: per pair a name and a
    compatibility line (and a version line), per finding a line, a location line, one line per distinct witness."""
    lines = 1 + sum(len(p.releases) > 2 for p in run.packages)
    for result in run.results:
        lines += 2 + (result.version is not None) + (not result.findings)
        for f in result.findings:
            lines += 1 + bool(f.old_location or f.new_location)
            lines += len({(w.direction, json.dumps(w.payload, sort_keys=True, default=str)) for w in f.witnesses})
    return lines


def test_the_text_report_of_the_bundled_run_is_five_times_shorter_than_the_flat_one(bundled) -> None:
    """Issue 22's done-when: the text report at least 5x shorter with nothing lost (every fingerprint is still in
    it: test_every_finding_is_reachable_by_fingerprint_from_every_format)."""
    grouped = render("text", bundled).count("\n")
    assert _flat_lines(bundled) >= 5 * grouped, (_flat_lines(bundled), grouped)


def test_no_contradictory_findings_about_one_change_on_the_bundled_pairs(bundled) -> None:
    found = {(r.name, problem) for r in bundled.results for change in group_changes(r)
             for problem in change.contradictions()}
    assert found == KNOWN_CONTRADICTIONS


def test_a_change_is_listed_once_with_its_members_and_every_kind_it_shows_in(bundled) -> None:
    result = next(r for r in bundled.results if r.name == "qoder-agent-sdk@1.0.21 → qoder-agent-sdk@1.0.23")
    changes = group_changes(result)
    usage = [c for c in changes if "SDKControlGetContextUsageResponse" in c.title]
    assert len(usage) == 1  # one reshaped reply, not one change per property
    [change] = usage
    assert [w.text() for w in change.where] == ["control_request.get_context_usage (reply)"]
    members = {m.path for m in change.members}
    assert {"agents", "autoCompact", "categories/*/color", "skills/count"} <= members
    assert {w.direction for w in change.witnesses()} == {"forward", "backward"}  # one per broken direction
    assert sum(len(c.findings) for c in changes) == len(result.findings)  # every finding in exactly one change
    shared = next(c for c in changes if "tool_result_meta" in {m.path for m in c.members})
    assert {w.kind for w in shared.where} == {"user", "sdk.user", "user.replay"}  # one change, three kinds


def test_the_answer_names_the_roles_that_break_and_what_to_do(bundled) -> None:
    result = next(r for r in bundled.results if r.name == "qoder-agent-sdk@1.0.21 → qoder-agent-sdk@1.0.23")
    a = answer(result, DiffOptions())
    assert ("cli", "sdk") in {(f.writer, f.reader) for f in a.flows}
    assert "this is a major change shipped as a patch" in a.advice
    assert any("upgrade cli and sdk together" in line for line in a.advice)
    registry = load_registry(CATALOGS)
    refactor = diff_releases(registry.load("shop@1.0.1"), registry.load("shop@2.0.0"))
    assert answer(refactor, DiffOptions()).advice[0].startswith("upgrade in any order")


def test_every_report_opens_with_the_answer_and_says_where(bundled) -> None:
    for name in HUMAN:
        text = render(name, bundled)
        first_change = text.index("SDKControlGetContextUsageResponse")
        assert text.index("upgrade cli and sdk together") < first_change, name
        assert "control_request.get_context_usage" in text and "(reply" in text, name
    md = render("markdown", bundled)
    assert md.index("| pair | verdict |") < md.index("Legend:")


def test_witnesses_are_shortened_around_the_changed_path() -> None:
    payload = {"a": {"b": [{"c": 1, "d": "x" * 500}], "e": list(range(100))}, "f": "y" * 500}
    assert short_payload(payload, "/a/b/*/c") == '{"a":{"b":[{"c":1,…}],…},…}'
    assert len(short_payload(payload, "")) <= 100


def _verdict_of(name: str, output: str) -> str:
    """The gate verdict a format states: `pass` or `fail`."""
    if name == "json":
        return "fail" if json.loads(output)["summary"]["exit_code"] else "pass"
    if name == "sarif":
        return "fail" if json.loads(output)["runs"][0]["invocations"][0]["exitCode"] else "pass"
    if name == "junit":
        gate = next(s for s in ET.fromstring(output.split("\n", 1)[1]).iter("testsuite") if s.get("name") == "gate")
        return "fail" if gate.find(".//failure") is not None else "pass"
    if name == "html":  # the words, as a browser shows them
        output = re.sub(r"<[^>]+>", "", output)
    lines = set(re.findall(r"[Gg]ate `?--fail-on \w+`?: \**(pass|fail)", output))
    assert len(lines) == 1, (name, lines)
    return lines.pop()


@pytest.mark.parametrize("fail_on", ["breaking", "warning", "never"])
def test_no_format_states_a_gate_that_disagrees_with_the_exit_code(tmp_path, fail_on) -> None:
    registry = load_registry(CATALOGS)
    results = [diff_releases(registry.load("shop@1.0.0"), registry.load("shop@1.0.1"))]
    errors = [f.fingerprint for f in results[0].findings if f.severity.value == "error"]
    waivers = tmp_path / "waivers.yaml"
    runs = [DiffRun(tuple(results), DiffOptions(), fail_on)]
    for extra in ([], [{"fingerprint": "abcdefabcdef", "reason": "r", "who": "w"}]):  # all waived; one stale
        waivers.write_text(yaml.safe_dump({"waivers": [{"fingerprint": fp, "reason": "known", "who": "me"}
                                                       for fp in errors] + extra}))
        waived, problems = apply_waivers(results, load_waivers(waivers))
        runs.append(DiffRun(tuple(waived), DiffOptions(), fail_on, tuple(problems)))
    codes = set()
    for run in runs:
        expected = "fail" if run.exit_code() else "pass"
        codes.add(run.exit_code())
        for name in FORMATS:
            assert _verdict_of(name, render(name, run)) == expected, (name, fail_on)
    assert codes == {"breaking": {0, 1}, "warning": {1}, "never": {0, 1}}[fail_on]  # both verdicts were rendered


_REPR = re.compile(r"\bNone\b|\bTrue\b|\bFalse\b|\{'|\['|': |\bobject at 0x|\bdict_(keys|values|items)\(")


def test_no_python_repr_in_any_report_of_the_bundled_run(bundled) -> None:
    for name in FORMATS:
        for line in render(name, bundled).splitlines():
            assert not _REPR.search(line), (name, line[:300])


def test_a_property_named_like_html_is_text_in_markdown_and_html() -> None:
    from wirecheck.diff import diff_schemas

    hostile = "<img src=x onerror=alert(1)>"
    old = {"type": "object", "properties": {hostile: {"type": "string"}}}
    new = {"type": "object", "properties": {hostile: {"type": "integer"}}}
    run = DiffRun((diff_schemas(old, new),), DiffOptions(), "breaking")
    md, html = render("markdown", run), render("html", run)
    outside_code = re.sub(r"`+[^`]*`+", "", md)
    assert "<img" not in outside_code and "&lt;img" in outside_code
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html


def test_the_model_is_built_once_per_run_for_every_format(bundled) -> None:
    report = build(bundled)
    assert len(report.pairs) == len(bundled.results) and report.exit_code == bundled.exit_code()
