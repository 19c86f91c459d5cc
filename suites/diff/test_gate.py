"""The gate (diff/gate.py): a break proven in a protected direction never passes `--fail-on breaking`, whatever
the rule's level; the exit code and every report's gate line are one decision; a diff that compared nothing is a
usage error; adding and removing an optional property are judged by the same evidence."""

from __future__ import annotations

import dataclasses
import html
import io
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from wirecheck import exitcodes
from wirecheck.diff import diff_schemas
from wirecheck.diff.gate import BREAKS, FAIL_ON, LATENT_BREAKS, NOTHING_COMPARED, decide, gated_pairs
from wirecheck.diff.model import BREAKING, DIRECTIONS, STRICT, TOLERANT, VIEWS
from wirecheck.diff.options import COMPATIBILITY, DiffOptions
from wirecheck.diff.report import FORMATS, write
from wirecheck.diff.run import DiffRun
from wirecheck.findings import Severity

PAIRS = Path(__file__).parent / "pairs"
DIALECT = "https://json-schema.org/draft/2020-12/schema"
OPEN = {"$schema": DIALECT, "type": "object", "properties": {"a": {"type": "string"}}}
WITH_B = {"$schema": DIALECT, "type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}}
EVERY_OPTION = [DiffOptions(witnesses=True, directions=directions, consumers=consumers, strict_sets=strict_sets)
                for directions in COMPATIBILITY.values() for consumers in (TOLERANT, STRICT)
                for strict_sets in (False, True)]


def wirecheck(*args: str, cwd: Path) -> tuple[int, str, str]:
    proc = subprocess.run([sys.executable, "-m", "wirecheck", *args], capture_output=True, timeout=120, cwd=cwd,
                          env=dict(os.environ))
    assert b"Traceback" not in proc.stderr, proc.stderr.decode()
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def test_issue_example_a_witnessed_property_addition_fails_the_backward_strict_gate(tmp_path: Path) -> None:
    """Issue 18: `diff-schemas old new --compat backward --consumers strict` exited 0 on PROPERTY_ADDED (capped at
    warning) while the Markdown showed "❌ breaking" above "Gate `--fail-on breaking`: **pass**". The break is latent
    (its witness needs `b`, a member the old contract never declared: issue 30, 3): the report says so and the
    gate passes it, unless strict set semantics are asked for; either way the report and the gate agree."""
    (tmp_path / "old.json").write_text(json.dumps(OPEN))
    (tmp_path / "new.json").write_text(json.dumps(WITH_B))
    args = ("diff-schemas", "old.json", "new.json", "--compat", "backward", "--consumers", "strict", "--format",
            "markdown")
    code, out, _ = wirecheck(*args, "--strict-sets", cwd=tmp_path)
    assert code == exitcodes.FINDINGS
    assert "❌ breaking" in out and "Gate `--fail-on breaking`: **fail**" in out and "**pass**" not in out
    code, out, _ = wirecheck(*args, cwd=tmp_path)
    assert code == exitcodes.CONFORMS
    assert "❌" not in out and "(latent)" in out and "Gate `--fail-on breaking`: **pass**" in out


def test_adding_and_removing_an_optional_property_are_judged_alike() -> None:
    """The same witness ({"b": "x"}: the open side accepts it, the typed side refuses it) proves PROPERTY_ADDED
    backward and PROPERTY_REMOVED forward: both are latent (warnings), both are errors under --strict-sets, and
    both fail the strict-sets gate of their direction."""
    [added] = diff_schemas(OPEN, WITH_B).findings
    [removed] = diff_schemas(WITH_B, OPEN).findings
    assert (added.rule, removed.rule) == ("PROPERTY_ADDED", "PROPERTY_REMOVED")
    assert {w.direction for w in added.witnesses} == {"backward"}
    assert {w.direction for w in removed.witnesses} == {"forward"}
    assert {json.dumps(w.payload) for w in added.witnesses} == {json.dumps(w.payload) for w in removed.witnesses}
    assert added.severity == removed.severity == Severity.WARNING
    assert added.latent == tuple((d, m) for d, m, _ in added.verdicts) and removed.latent
    strict_sets = DiffOptions(strict_sets=True)
    assert (diff_schemas(OPEN, WITH_B, strict_sets).findings[0].severity
            == diff_schemas(WITH_B, OPEN, strict_sets).findings[0].severity == Severity.ERROR)
    for consumers in (TOLERANT, STRICT):
        back = DiffOptions(directions=("backward",), consumers=consumers, strict_sets=True)
        forth = DiffOptions(directions=("forward",), consumers=consumers, strict_sets=True)
        assert decide([diff_schemas(OPEN, WITH_B)], back, "breaking").exit_code == exitcodes.FINDINGS
        assert decide([diff_schemas(WITH_B, OPEN)], forth, "breaking").exit_code == exitcodes.FINDINGS
        # ... and neither fails a gate that protects only the other direction
        assert decide([diff_schemas(OPEN, WITH_B)], forth, "breaking").passed
        assert decide([diff_schemas(WITH_B, OPEN)], back, "breaking").passed
        # nor, without strict sets, `--fail-on breaking`; `--fail-on warning` fails on them as latent breaks
        lenient = dataclasses.replace(back, strict_sets=False)
        assert decide([diff_schemas(OPEN, WITH_B)], lenient, "breaking").passed
        decision = decide([diff_schemas(OPEN, WITH_B)], lenient, "warning")
        assert [r.code for r in decision.reasons] == [LATENT_BREAKS] and not decision.passed


@pytest.mark.parametrize("options", EVERY_OPTION, ids=lambda o: f"{'+'.join(o.directions)}-{o.consumers}"
                         f"{'-strict-sets' if o.strict_sets else ''}")
def test_every_proven_break_in_a_protected_direction_fails_the_gate(options: DiffOptions) -> None:
    """Over every rule's before/after pair, under every --compat, --consumers and --strict-sets: a finding with a
    breaking verdict in a protected (direction, consumer model) on declared evidence (on any evidence under
    --strict-sets) is an error and fails --fail-on breaking and warning; the reason names it. (Rule levels and
    severities are not consulted: a finding forced down to info with the same verdicts still fails.) A latent
    one is a warning that fails --fail-on warning only."""
    gated = gated_pairs(options)
    seen = latent = 0
    for path in sorted(PAIRS.glob("*.yaml")):
        case = yaml.safe_load(path.read_text(encoding="utf-8"))
        before, after = ({"$schema": DIALECT, **s} if isinstance(s, dict) else s
                         for s in (case["before"], case["after"]))
        result = diff_schemas(before, after, options)
        for finding in result.findings:
            if not any(v == BREAKING and (d, m) in gated for d, m, v in finding.verdicts):
                continue
            if not options.strict_sets and not any(v == BREAKING and (d, m) in gated and (d, m) not in finding.latent
                                                   for d, m, v in finding.verdicts):
                latent += 1
                assert finding.severity == Severity.WARNING, (path.stem, finding.rule)
                alone = dataclasses.replace(result, findings=(finding,))
                assert decide([alone], options, "breaking").passed
                assert [r.code for r in decide([alone], options, "warning").reasons] == [LATENT_BREAKS]
                continue
            seen += 1
            assert finding.severity == Severity.ERROR, (path.stem, finding.rule)
            softened = dataclasses.replace(finding, severity=Severity.INFO)
            alone = dataclasses.replace(result, findings=(softened,))
            for fail_on in ("breaking", "warning"):
                decision = decide([alone], options, fail_on)
                assert decision.exit_code == exitcodes.FINDINGS, (path.stem, finding.rule, fail_on)
                assert [r.code for r in decision.reasons] == [BREAKS]
                assert finding.rule in decision.reasons[0].text
            assert decide([alone], options, "never").passed
            waived = dataclasses.replace(alone, findings=(dataclasses.replace(softened, waived="known"),))
            assert decide([waived], options, "breaking").passed
    assert seen > 10 and (latent > 0 or options.strict_sets)


def test_gated_pairs_follow_compat_and_consumers() -> None:
    assert gated_pairs(DiffOptions()) == {(d, TOLERANT) for d in DIRECTIONS}
    assert gated_pairs(DiffOptions(directions=("backward",), consumers=STRICT)) == {
        ("backward", m) for m in VIEWS}
    with pytest.raises(ValueError, match="--fail-on"):
        decide([], DiffOptions(), "sometimes")
    assert FAIL_ON == ("breaking", "warning", "never")


def test_no_rule_entry_can_cap_a_finding() -> None:
    """The rule catalogue takes no key beyond the documented ones: a severity cap cannot come back unnoticed."""
    from wirecheck.diff import catalogue

    raw = yaml.safe_load((Path(catalogue.__file__).parent / "rules.yaml").read_text(encoding="utf-8"))
    assert catalogue.catalogue_from(raw) == catalogue.diff_rule_catalogue()
    raw["PROPERTY_ADDED"]["ceiling"] = "warning"
    with pytest.raises(ValueError, match="PROPERTY_ADDED: unknown keys \\['ceiling'\\]"):
        catalogue.catalogue_from(raw)


def test_the_catalogue_diffs_read_is_rules_yaml() -> None:
    """Diffs read rules.json, the JSON twin of rules.yaml (no PyYAML in a diff of two JSON files): it must be what
    the YAML says, entry by entry and in its order, byte for byte as json_twin writes it."""
    from wirecheck.diff import catalogue
    from wirecheck.yaml_lines import read_yaml_file

    raw = read_yaml_file(catalogue.RULES_YAML)
    assert catalogue.RULES_JSON.read_text(encoding="utf-8") == catalogue.json_twin(raw), (
        "rules.json is stale: run python -m wirecheck.twins")
    assert catalogue.diff_rule_catalogue() == catalogue.catalogue_from(raw)
    assert list(catalogue.diff_rule_catalogue()) == list(raw)  # `wirecheck rules` lists them in the YAML's order


ACCEPT_EVERYTHING = [
    ({"$defs": {"x": {"type": "string"}}}, {"$defs": {"x": {"type": "integer"}}}),  # roots only (--kinds none)
    ({}, True),
    ({"title": "t", "x-note": 1, "allOf": [{}, {"$ref": "#/$defs/any"}], "$defs": {"any": True}}, {}),
    ({"title": "a"}, {"title": "b"}),  # issue 30, 4
    ({"$id": "https://schemas.example/a"}, {"$id": "https://schemas.example/b"}),
]


@pytest.mark.parametrize("old, new", ACCEPT_EVERYTHING)
def test_schemas_that_accept_every_payload_compare_as_compatible(old, new) -> None:
    """Issue 30, 4: two schemas that both accept every payload accept the same messages: compatible, exit 0 (they
    used to exit 2, "nothing compared", so a gate on such a schema errored out)."""
    old = {"$schema": DIALECT, **old} if isinstance(old, dict) else old
    new = {"$schema": DIALECT, **new} if isinstance(new, dict) else new
    result = diff_schemas(old, new, kinds="none")  # --kinds auto compares a schema of definitions one by one
    assert result.nothing_compared is None and not result.findings
    assert {result.compatibility(d, m) for d in DIRECTIONS for m in VIEWS} == {"safe"}
    assert DiffRun((result,)).exit_code() == exitcodes.CONFORMS


def test_a_draft_07_additional_items_without_an_items_array_is_no_change(tmp_path: Path) -> None:
    """Issue 30, 4: draft-07 ignores `additionalItems` beside no `items` array: `true` → `false` changes nothing."""
    draft7 = "http://json-schema.org/draft-07/schema#"
    (tmp_path / "a.json").write_text(json.dumps({"$schema": draft7, "additionalItems": True}))
    (tmp_path / "b.json").write_text(json.dumps({"$schema": draft7, "additionalItems": False}))
    code, out, _ = wirecheck("diff-schemas", "a.json", "b.json", cwd=tmp_path)
    assert code == exitcodes.CONFORMS and "gate --fail-on breaking: pass" in out, out


def test_a_pair_that_compared_nothing_says_so_and_is_a_usage_error() -> None:
    """Two releases without a message kind compare nothing: that is no verdict (exit 2 under every --fail-on), its
    compatibility is unknown, never safe, and no report calls it "no changes on the wire"."""
    result = dataclasses.replace(diff_schemas({"type": "string"}, {"type": "string"}),
                                 nothing_compared="neither release has a message kind: nothing was compared")
    run = DiffRun((result,))
    assert run.exit_code() == exitcodes.USAGE == run.gate.exit_code
    assert [r.code for r in run.gate.reasons] == [NOTHING_COMPARED]
    assert {result.compatibility(d, m) for d in DIRECTIONS for m in VIEWS} == {"unknown"}  # never "safe"
    for fail_on in FAIL_ON:  # not a verdict: --fail-on never does not make it one
        assert DiffRun((result,), fail_on=fail_on).exit_code() == exitcodes.USAGE
    for name in ("text", "markdown", "html"):
        out = io.StringIO()
        write(name, run, out)
        assert "nothing compared" in out.getvalue().lower() and "no changes on the wire" not in out.getvalue().lower()
    for name in FORMATS:  # every format states the gate of the exit code
        out = io.StringIO()
        write(name, run, out)
        assert set(stated_gates(name, out.getvalue(), exitcodes.USAGE)) == {("breaking", "nothing compared")}, name


def test_a_schema_that_constrains_something_is_compared() -> None:
    """`{}` against a string schema is a narrowing; two equal real schemas are compared and have no changes."""
    anything, text = {"$schema": DIALECT}, {"$schema": DIALECT, "type": "string"}
    narrowed = diff_schemas(anything, text)
    assert narrowed.nothing_compared is None and narrowed.findings
    same = diff_schemas(text, text)
    assert same.nothing_compared is None and not same.findings and DiffRun((same,)).exit_code() == 0
    # a $ref to a definition that constrains something is compared
    ref = {"$schema": DIALECT, "$ref": "#/$defs/x", "$defs": {"x": {"type": "string"}}}
    assert diff_schemas(ref, ref).nothing_compared is None


def test_diff_schemas_of_only_definitions_compares_the_definitions_nothing_uses(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text(json.dumps({"$schema": DIALECT, "$defs": {"x": {"type": "string"}}}))
    (tmp_path / "b.json").write_text(json.dumps({"$schema": DIALECT, "$defs": {"x": {"type": "integer"}}}))
    code, out, _ = wirecheck("diff-schemas", "a.json", "b.json", "--kinds", "none", cwd=tmp_path)
    assert code == exitcodes.CONFORMS and "nothing compared" not in out  # the roots: both accept everything
    # --kinds auto (the default) compares the definitions nothing uses (diff/derive.py): `x` changed its type
    code, out, _ = wirecheck("diff-schemas", "a.json", "b.json", cwd=tmp_path)
    assert code == exitcodes.FINDINGS and "TYPE_CHANGED" in out and "nothing compared" not in out


@pytest.mark.parametrize("fail_on", FAIL_ON)
def test_every_report_states_the_gate_of_the_exit_code(fail_on: str) -> None:
    """Text, Markdown, HTML and JSON carry the gate line of the one decision the exit code comes from."""
    for old, new in ((OPEN, WITH_B), (OPEN, OPEN), (WITH_B, OPEN)):
        run = DiffRun((diff_schemas(old, new),), fail_on=fail_on)
        verdict = run.gate.verdict
        assert verdict == ("pass" if run.exit_code() == 0 else "fail")
        rendered = {}
        for name in FORMATS:
            out = io.StringIO()
            write(name, run, out)
            rendered[name] = out.getvalue()
        assert f"gate --fail-on {fail_on}: {verdict} " in rendered["text"]
        assert f"Gate `--fail-on {fail_on}`: **{verdict}**" in rendered["markdown"]
        assert f"<code>--fail-on {fail_on}</code>: <b>{verdict}</b>" in rendered["html"]
        summary = json.loads(rendered["json"])["summary"]
        assert summary["exit_code"] == run.exit_code() and summary["gate"]["verdict"] == verdict
        assert summary["gate"]["line"] == run.gate.summary()


# -- every format scanned: no gate line anywhere may disagree with the exit code -----------------------------------

VERDICT_OF_EXIT = {exitcodes.CONFORMS: "pass", exitcodes.FINDINGS: "fail", exitcodes.USAGE: "nothing compared"}
GATE_STATEMENT = re.compile(r"gate\s+--fail-on\s+(\w+)\s*:\s*(pass|fail|nothing compared)", re.IGNORECASE)


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def stated_gates(name: str, out: str, exit_code: int) -> list[tuple[str, str]]:
    """Every gate statement a report of format `name` makes, wherever it is (a line, an attribute, a JSON string,
    an HTML cell), as (fail_on, verdict); plus the structured verdicts (JSON's `gate.verdict`; JUnit's gate case,
    failed exactly when the command is, whose pass/fail stands for the exit code's verdict)."""
    stated: list[tuple[str, str]] = []
    if name in ("json", "sarif"):
        document = json.loads(out)
        texts = list(_strings(document))
        if name == "json":
            gate = document["summary"]["gate"]
            stated.append((gate["fail_on"], gate["verdict"]))
            assert document["summary"]["exit_code"] == exit_code
    elif name == "junit":
        root = ET.fromstring(out.split("\n", 1)[1] if out.startswith("<?xml") else out)
        texts = [t for e in root.iter() for t in (e.text or "", *e.attrib.values())]
        [suite] = [s for s in root.iter("testsuite") if s.get("name") == "gate"]
        [case] = suite.iter("testcase")
        failed = case.find("failure") is not None
        assert failed == (int(suite.get("failures", "0")) > 0)
        stated.append((str(case.get("name")).removeprefix("--fail-on "),
                       VERDICT_OF_EXIT[exit_code] if failed == (exit_code != 0) else f"junit failed={failed}"))
    elif name == "html":
        texts = [html.unescape(re.sub(r"<[^>]+>", "", out))]
    else:  # text, markdown: emphasis and code marks are not words
        texts = [out.replace("**", "").replace("`", "")]
    for text in texts:
        stated += [(fail_on, verdict.lower()) for fail_on, verdict in GATE_STATEMENT.findall(text)]
    return stated


SCAN_CASES = [  # (old, new, --compat, --consumers, --fail-on)
    (OPEN, WITH_B, "backward", "strict", "breaking"),  # the issue's example: a proven break
    (OPEN, WITH_B, "backward", "strict", "never"),
    (OPEN, WITH_B, "forward", "tolerant", "breaking"),  # a direction the gate does not protect
    (OPEN, WITH_B, "full", "tolerant", "warning"),
    (WITH_B, OPEN, "full", "tolerant", "breaking"),
    (OPEN, OPEN, "full", "tolerant", "breaking"),
    ({"$schema": DIALECT, "$defs": {"x": {}}}, {"$schema": DIALECT}, "full", "tolerant", "never"),  # both accept all
]


@pytest.mark.parametrize("output_format", list(FORMATS))
def test_no_report_format_states_a_gate_that_disagrees_with_the_exit_code(output_format: str, tmp_path) -> None:
    """Issue 18 item 3, done when: every report format of `wirecheck diff-schemas` (the command, its real exit
    code) is scanned for gate statements; each one names the run's --fail-on and the verdict of the exit code, and
    there is at least one. The cases pass, fail and pass under `never` (a pair that compared nothing, which only
    `diff` of releases without kinds makes, is scanned in `test_a_pair_that_compared_nothing_says_so…`)."""
    from typer.testing import CliRunner

    from wirecheck.cli.app import app

    runner = CliRunner()
    codes = set()
    for number, (old, new, compat, consumers, fail_on) in enumerate(SCAN_CASES):
        (tmp_path / f"old{number}.json").write_text(json.dumps(old))
        (tmp_path / f"new{number}.json").write_text(json.dumps(new))
        result = runner.invoke(app, ["diff-schemas", str(tmp_path / f"old{number}.json"),
                                     str(tmp_path / f"new{number}.json"), "--compat", compat, "--consumers", consumers,
                                     "--fail-on", fail_on, "--format", output_format])
        assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
        expected = VERDICT_OF_EXIT[result.exit_code]
        stated = stated_gates(output_format, result.stdout, result.exit_code)
        assert stated, (output_format, number, result.stdout[:400])
        assert set(stated) == {(fail_on, expected)}, (output_format, number, result.exit_code, stated)
        codes.add(result.exit_code)
    assert codes == {exitcodes.CONFORMS, exitcodes.FINDINGS}  # not vacuous: both verdicts were met


def test_the_scan_finds_a_gate_line_that_disagrees() -> None:
    """The scanner itself: a report whose line says pass on a failing run is caught, in every form it can take."""
    assert stated_gates("markdown", "Gate `--fail-on breaking`: **pass** (x)", 1) == [("breaking", "pass")]
    assert stated_gates("html", "<p>gate <code>--fail-on never</code>: <b>fail</b></p>", 0) == [("never", "fail")]
    sarif = json.dumps({"runs": [{"x": "gate --fail-on breaking: pass"}]})
    assert stated_gates("sarif", sarif, 1) == [("breaking", "pass")]
    junit = ('<testsuites><testsuite name="gate" failures="0"><testcase name="--fail-on breaking"/></testsuite>'
             '</testsuites>')
    assert stated_gates("junit", junit, 1) == [("breaking", "junit failed=False")]
