"""Issue 39, 1 and 4: an undecided change of a declared member never passes in silence (exit 6, saying what
blocked it; `--undecided pass` accepts it), and the witness builder reaches what blocked it before: a
`minProperties` sibling met through patternProperties, a planted member read by a pattern, a union whose first
member is a scalar; a `{}` property added beside patterns that do not read its name is no finding."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from wirecheck import exitcodes
from wirecheck.diff import diff_schemas
from wirecheck.diff.gate import UNDECIDED, decide
from wirecheck.diff.model import BACKWARD, BREAKING, FORWARD, TOLERANT, UNKNOWN, DiffFinding
from wirecheck.diff.options import DiffOptions
from wirecheck.findings import Severity

JOBS = {"type": "object", "minProperties": 1, "additionalProperties": False,
        "patternProperties": {"^[a-z]+$": {"type": "object", "required": ["run"],
                                           "properties": {"run": {"type": "string"}}}}}


def _pair(required: list[str]) -> dict:
    return {"type": "object", "required": ["on", "jobs"], "properties": {
        "jobs": JOBS,
        "on": {"type": "object", "properties": {"schedule": {"type": "array", "items": {
            "type": "object", "properties": {"cron": {"type": "string"}}, "required": required}}}}}}


def test_the_issue_minimal_pair_is_decided_with_a_confirmed_witness() -> None:
    """A required `minProperties: 1` member (only patternProperties can fill it) beside the member whose property
    becomes required: no witness could be built before, and the gate passed."""
    result = diff_schemas(_pair([]), _pair(["cron"]))
    (finding,) = [f for f in result.findings if f.rule == "PROPERTY_BECAME_REQUIRED"]
    assert finding.breaks(BACKWARD, TOLERANT) and finding.path == "/on/schedule/*/cron"
    witness = next(w for w in finding.witnesses if w.direction == BACKWARD)
    import jsonschema

    assert jsonschema.Draft202012Validator(_pair([])).is_valid(witness.payload)
    assert not jsonschema.Draft202012Validator(_pair(["cron"])).is_valid(witness.payload)
    assert decide([result], DiffOptions(), "breaking").exit_code == exitcodes.FINDINGS


def test_an_open_minproperties_object_is_filled_with_a_fresh_member() -> None:
    old = {"type": "object", "required": ["meta", "a"], "properties": {
        "meta": {"type": "object", "minProperties": 2}, "a": {"type": "object", "properties": {"b": {}}}}}
    new = json.loads(json.dumps(old))
    new["properties"]["a"]["required"] = ["b"]
    (finding,) = [f for f in diff_schemas(old, new).findings if f.rule == "PROPERTY_BECAME_REQUIRED"]
    assert finding.witnesses and len(finding.witnesses[0].payload["meta"]) == 2


def test_a_member_planted_under_a_union_is_built_in_an_object_member() -> None:
    """`on` is a string or an object: a change under /on/x was planted into the string member, and lost."""
    def schema(kind: str) -> dict:
        return {"type": "object", "required": ["on"], "properties": {"on": {"oneOf": [
            {"type": "string", "enum": ["push"]},
            {"type": "object", "properties": {"x": {"type": "object", "properties": {"t": {"type": kind}}}}}]}}}

    (finding,) = [f for f in diff_schemas(schema("string"), schema("integer")).findings if f.path == "/on/x/t"]
    assert finding.breaks(BACKWARD, TOLERANT)
    assert all(isinstance(w.payload["on"], dict) for w in finding.witnesses)


def _undecided(rule: str = "PATTERN_CHANGED", direction: str = FORWARD, **more) -> DiffFinding:
    more.setdefault("verdicts", ((direction, TOLERANT, UNKNOWN),))
    return DiffFinding(rule=rule, severity=Severity.WARNING, package="p", old_version="1", new_version="2",
                       kind="k", surface="schema", message="m", path="/a", fingerprint="f",
                       undecided="no probe payload could be built (x)", **more)


def _result(*findings: DiffFinding):
    from wirecheck.diff.model import DiffResult

    return DiffResult("p", "1", "2", findings, (), None)


def test_an_undecided_change_of_a_declared_member_fails_with_its_own_code_and_says_why() -> None:
    decision = decide([_result(_undecided())], DiffOptions(), "breaking")
    assert decision.exit_code == exitcodes.UNDECIDED == 6 and decision.verdict == "undecided"
    (reason,) = decision.reasons
    assert reason.code == UNDECIDED and "no probe payload could be built (x)" in reason.text
    assert "undecided" in decision.summary()


def test_undecided_pass_is_an_explicit_choice() -> None:
    decision = decide([_result(_undecided())], DiffOptions(), "breaking", undecided="pass")
    assert decision.exit_code == exitcodes.CONFORMS and "undecided changes pass" in decision.summary()
    with pytest.raises(ValueError, match="--undecided"):
        decide([], DiffOptions(), "breaking", undecided="maybe")


@pytest.mark.parametrize("finding", [
    _undecided(waived="known"),
    _undecided("PROPERTY_ADDED", BACKWARD),  # a name the old writer never declared: a latent question
    _undecided(verdicts=((FORWARD, "strict", UNKNOWN),)),  # strict readers are not protected by default
    _undecided(verdicts=((FORWARD, TOLERANT, UNKNOWN), (FORWARD, "strict", BREAKING))),
], ids=["waived", "latent-question", "unprotected", "decided-elsewhere"])
def test_what_is_not_an_undecided_declared_change(finding: DiffFinding) -> None:
    assert decide([_result(finding)], DiffOptions(), "breaking").exit_code == exitcodes.CONFORMS


def test_a_proven_break_outranks_undecided_and_warning_keeps_its_risk() -> None:
    broken = dataclasses.replace(_undecided(), rule="TYPE_CHANGED", verdicts=((BACKWARD, TOLERANT, BREAKING),),
                                 fingerprint="g")
    decision = decide([_result(_undecided(), broken)], DiffOptions(), "breaking")
    assert decision.exit_code == exitcodes.FINDINGS and {r.code for r in decision.reasons} == {"breaks", UNDECIDED}
    assert decide([_result(_undecided())], DiffOptions(), "warning").exit_code == exitcodes.FINDINGS
    assert decide([_result(_undecided())], DiffOptions(), "never").exit_code == exitcodes.CONFORMS


def test_a_real_undecided_finding_says_what_blocked_it() -> None:
    """A regular expression changed: no probe breaks it, and containment cannot decide regexes."""
    old = {"type": "object", "required": ["a"], "properties": {"a": {"type": "string", "pattern": "^a+$"}}}
    new = {"type": "object", "required": ["a"], "properties": {"a": {"type": "string", "pattern": "^(a|b)+$"}}}
    result = diff_schemas(old, new)
    open_ = [f for f in result.findings if any(v == UNKNOWN for *_, v in f.verdicts) and not f.breaks()]
    for finding in open_:
        assert finding.undecided and "could not decide" in finding.undecided


def test_a_property_added_with_schema_true_beside_other_patterns_is_no_finding() -> None:
    old = {"type": "object", "properties": {"a": {"type": "string"}},
           "patternProperties": {"^x-": {"type": "string"}}}
    new = {**old, "properties": {"a": {"type": "string"}, "payload": {}, "extra": True}}
    assert diff_schemas(old, new).findings == ()
    closed = {**old, "additionalProperties": False}  # in a closed object it is a member strict readers refuse
    assert [f.rule for f in diff_schemas(closed, {**new, "additionalProperties": False}).findings] == [
        "PROPERTY_ADDED_TO_CLOSED_MODEL"] * 2


def test_the_cli_exits_6_and_undecided_pass_exits_0(tmp_path: Path) -> None:
    # a changed regular expression no probe breaks and containment cannot decide
    (tmp_path / "old.json").write_text(json.dumps(
        {"type": "object", "required": ["a"], "properties": {"a": {"type": "string", "pattern": "^a+$"}}}))
    (tmp_path / "new.json").write_text(json.dumps(
        {"type": "object", "required": ["a"], "properties": {"a": {"type": "string", "pattern": "^[ab]+$"}}}))
    base = [sys.executable, "-m", "wirecheck", "diff-schemas", str(tmp_path / "old.json"), str(tmp_path / "new.json")]
    done = subprocess.run([*base, "--format", "json"], capture_output=True, text=True)
    report = json.loads(done.stdout)
    assert done.returncode == exitcodes.UNDECIDED, done.stderr
    gate = report["summary"]["gate"]
    assert gate["verdict"] == "undecided"
    assert any(r["code"] == "undecided" and "could not decide" in r["text"] for r in gate["reasons"])
    assert "could not decide" in report["pairs"][0]["findings"][0]["undecided"]
    text = subprocess.run(base, capture_output=True, text=True)
    assert text.returncode == exitcodes.UNDECIDED and "undecided" in text.stdout.splitlines()[-1]
    assert subprocess.run([*base, "--undecided", "pass"], capture_output=True).returncode == exitcodes.CONFORMS
    assert subprocess.run([*base, "--undecided", "maybe"], capture_output=True).returncode == exitcodes.USAGE


def test_property_names_written_alike_under_other_definition_names_are_no_change() -> None:
    """AsyncAPI keys its definitions by version (`…/2.0.0/channels.json`): the `propertyNames` of `channels` is
    written alike in every release, but its digest names where it is written, so every pair reported it changed,
    and undecided (issue 39). Written alike, refs followed, is unchanged; a changed bound is still found."""
    def schema(version: str, min_length: int = 1) -> dict:
        key = f"{version}/channels"
        return {"type": "object", "properties": {"channels": {"$ref": f"#/$defs/{version}~1channels"},
                                                 "v": {"const": version}},
                "$defs": {key: {"type": "object", "propertyNames": {"minLength": min_length}}}}

    rules = [f.rule for f in diff_schemas(schema("2.0.0"), schema("2.1.0")).findings]
    assert "PROPERTY_NAMES_CHANGED" not in rules and "CONST_CHANGED" in rules
    assert "PROPERTY_NAMES_CHANGED" in [f.rule for f in diff_schemas(schema("2.0.0"), schema("2.1.0", 2)).findings]


def test_members_required_apart_are_decided_by_their_combinations() -> None:
    """package.json 304f42048 → bc24ba579: the root `anyOf` that allowed `bundleDependencies` or
    `bundledDependencies` but not both was removed. No rule explains it and the set difference gives no payload;
    the combinations of the names the combinators require (diff/witness.py presence_probes) give the witness: both
    present, which the new schema accepts and the old refuses (forward)."""
    either = {"oneOf": [{"type": "array", "items": {"type": "string"}}, {"type": "boolean"}]}
    new = {"type": "object", "properties": {"bundleDependencies": either, "bundledDependencies": either}}
    old = {**new, "anyOf": [
        {"type": "object", "not": {"required": ["bundledDependencies", "bundleDependencies"]}},
        {"type": "object", "not": {"required": ["bundleDependencies"]}, "required": ["bundledDependencies"]},
        {"type": "object", "not": {"required": ["bundledDependencies"]}, "required": ["bundleDependencies"]}]}
    result = diff_schemas(old, new)
    forward = [w for f in result.findings for w in f.witnesses if w.direction == FORWARD and w.view == TOLERANT]
    assert forward and set(forward[0].payload) == {"bundleDependencies", "bundledDependencies"}
    assert decide([result], DiffOptions(), "breaking").exit_code == exitcodes.FINDINGS
