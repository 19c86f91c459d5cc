"""The gate (diff/gate.py): a break proven in a protected direction never passes `--fail-on breaking`, whatever
the rule's level; the exit code and every report's gate line are one decision; a diff that compared nothing is a
usage error; adding and removing an optional property are judged by the same evidence."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from wirecheck import exitcodes
from wirecheck.diff import diff_schemas
from wirecheck.diff.gate import BREAKS, FAIL_ON, NOTHING_COMPARED, decide, gated_pairs
from wirecheck.diff.model import BREAKING, DIRECTIONS, STRICT, TOLERANT, VIEWS
from wirecheck.diff.options import COMPATIBILITY, DiffOptions
from wirecheck.diff.report import FORMATS, write
from wirecheck.diff.run import DiffRun
from wirecheck.findings import Severity

PAIRS = Path(__file__).parent / "pairs"
DIALECT = "https://json-schema.org/draft/2020-12/schema"
OPEN = {"$schema": DIALECT, "type": "object", "properties": {"a": {"type": "string"}}}
WITH_B = {"$schema": DIALECT, "type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}}
EVERY_OPTION = [DiffOptions(witnesses=True, directions=directions, consumers=consumers)
                for directions in COMPATIBILITY.values() for consumers in (TOLERANT, STRICT)]


def wirecheck(*args: str, cwd: Path) -> tuple[int, str, str]:
    proc = subprocess.run([sys.executable, "-m", "wirecheck", *args], capture_output=True, timeout=120, cwd=cwd,
                          env=dict(os.environ))
    assert b"Traceback" not in proc.stderr, proc.stderr.decode()
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def test_issue_example_a_witnessed_property_addition_fails_the_backward_strict_gate(tmp_path: Path) -> None:
    """Issue 18: `diff-schemas old new --compat backward --consumers strict` exited 0 on PROPERTY_ADDED (capped at
    warning) while the Markdown showed "❌ breaking" above "Gate `--fail-on breaking`: **pass**"."""
    (tmp_path / "old.json").write_text(json.dumps(OPEN))
    (tmp_path / "new.json").write_text(json.dumps(WITH_B))
    code, out, _ = wirecheck("diff-schemas", "old.json", "new.json", "--compat", "backward", "--consumers", "strict",
                             "--format", "markdown", cwd=tmp_path)
    assert code == exitcodes.FINDINGS
    assert "❌ breaking" in out and "Gate `--fail-on breaking`: **fail**" in out and "**pass**" not in out


def test_adding_and_removing_an_optional_property_are_judged_alike() -> None:
    """The same witness ({"b": "x"}: the open side accepts it, the typed side refuses it) proves PROPERTY_ADDED
    backward and PROPERTY_REMOVED forward: both are errors and both fail the gate of their direction."""
    [added] = diff_schemas(OPEN, WITH_B).findings
    [removed] = diff_schemas(WITH_B, OPEN).findings
    assert (added.rule, removed.rule) == ("PROPERTY_ADDED", "PROPERTY_REMOVED")
    assert {w.direction for w in added.witnesses} == {"backward"}
    assert {w.direction for w in removed.witnesses} == {"forward"}
    assert {json.dumps(w.payload) for w in added.witnesses} == {json.dumps(w.payload) for w in removed.witnesses}
    assert added.severity == removed.severity == Severity.ERROR
    for consumers in (TOLERANT, STRICT):
        back = DiffOptions(directions=("backward",), consumers=consumers)
        forth = DiffOptions(directions=("forward",), consumers=consumers)
        assert decide([diff_schemas(OPEN, WITH_B)], back, "breaking").exit_code == exitcodes.FINDINGS
        assert decide([diff_schemas(WITH_B, OPEN)], forth, "breaking").exit_code == exitcodes.FINDINGS
        # ... and neither fails a gate that protects only the other direction
        assert decide([diff_schemas(OPEN, WITH_B)], forth, "breaking").passed
        assert decide([diff_schemas(WITH_B, OPEN)], back, "breaking").passed


@pytest.mark.parametrize("options", EVERY_OPTION, ids=lambda o: f"{'+'.join(o.directions)}-{o.consumers}")
def test_every_proven_break_in_a_protected_direction_fails_the_gate(options: DiffOptions) -> None:
    """Over every rule's before/after pair, under every --compat and --consumers: a finding with a breaking
    verdict in a protected (direction, consumer model) is an error and fails --fail-on breaking and warning;
    the reason names it. (Rule levels and severities are not consulted: a finding forced down to info with the
    same verdicts still fails.)"""
    gated = gated_pairs(options)
    seen = 0
    for path in sorted(PAIRS.glob("*.yaml")):
        case = yaml.safe_load(path.read_text(encoding="utf-8"))
        before, after = ({"$schema": DIALECT, **s} if isinstance(s, dict) else s
                         for s in (case["before"], case["after"]))
        result = diff_schemas(before, after, options)
        for finding in result.findings:
            if not any(v == BREAKING and (d, m) in gated for d, m, v in finding.verdicts):
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
    assert seen > 10


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


DEFS_ONLY = [
    ({"$defs": {"x": {"type": "string"}}}, {"$defs": {"x": {"type": "integer"}}}),
    ({}, True),
    ({"title": "t", "x-note": 1, "allOf": [{}, {"$ref": "#/$defs/any"}], "$defs": {"any": True}}, {}),
]


@pytest.mark.parametrize("old, new", DEFS_ONLY)
def test_a_diff_that_compared_nothing_says_so_and_is_a_usage_error(old, new) -> None:
    old = {"$schema": DIALECT, **old} if isinstance(old, dict) else old
    new = {"$schema": DIALECT, **new} if isinstance(new, dict) else new
    result = diff_schemas(old, new, kinds="none")  # --kinds auto compares a schema of definitions one by one
    assert result.nothing_compared and not result.findings
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


def test_a_schema_that_constrains_something_is_compared() -> None:
    """Only when neither root constrains anything: `{}` against a string schema is a narrowing; two equal real
    schemas are compared and have no changes."""
    anything, text = {"$schema": DIALECT}, {"$schema": DIALECT, "type": "string"}
    narrowed = diff_schemas(anything, text)
    assert narrowed.nothing_compared is None and narrowed.findings
    same = diff_schemas(text, text)
    assert same.nothing_compared is None and not same.findings and DiffRun((same,)).exit_code() == 0
    # a $ref to a definition that constrains something is compared
    ref = {"$schema": DIALECT, "$ref": "#/$defs/x", "$defs": {"x": {"type": "string"}}}
    assert diff_schemas(ref, ref).nothing_compared is None


def test_diff_schemas_of_only_definitions_exits_2_unless_definitions_are_compared(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text(json.dumps({"$schema": DIALECT, "$defs": {"x": {"type": "string"}}}))
    (tmp_path / "b.json").write_text(json.dumps({"$schema": DIALECT, "$defs": {"x": {"type": "integer"}}}))
    code, out, _ = wirecheck("diff-schemas", "a.json", "b.json", "--kinds", "none", cwd=tmp_path)
    assert code == exitcodes.USAGE and "nothing compared" in out and "no changes on the wire" not in out
    # --kinds auto (the default) compares definition by definition (diff/derive.py): `x` changed its type
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
