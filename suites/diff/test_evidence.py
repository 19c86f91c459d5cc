"""Declared and latent evidence (issue 30, 3): a break whose every witness needs a member the writer's contract never
declared (only an open object let it through) is latent — true by set semantics, shown in every report, but a
warning for the default gate; `--strict-sets` makes it fail like a declared one."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from wirecheck.cli.app import app
from wirecheck.diff import diff_schemas, report
from wirecheck.diff.model import BACKWARD, DECLARED, FORWARD, LATENT, STRICT, TOLERANT
from wirecheck.diff.options import DiffOptions
from wirecheck.diff.run import DiffRun
from wirecheck.diff.side import Side
from wirecheck.diff.witness import judge
from wirecheck.findings import Severity

D = "https://json-schema.org/draft/2020-12/schema"
OPEN = {"$schema": D, "type": "object", "properties": {"a": {"type": "string"}}}
WITH_TITLE = {"$schema": D, "type": "object", "properties": {"a": {"type": "string"}, "title": {"type": "string"}}}


def _cli(tmp_path: Path, old: Any, new: Any, *args: str) -> tuple[int, str]:
    (tmp_path / "old.json").write_text(json.dumps(old), encoding="utf-8")
    (tmp_path / "new.json").write_text(json.dumps(new), encoding="utf-8")
    run = CliRunner().invoke(app, ["diff-schemas", str(tmp_path / "old.json"), str(tmp_path / "new.json"), *args])
    return run.exit_code, run.stdout


def test_an_optional_property_added_to_an_open_object_is_a_latent_break() -> None:
    """`{"title": 0}`: an old writer could send `title` (its open object let any member through) with a type the new
    reader refuses. True, so it is reported; but `title` is no name the old contract declared."""
    (finding,) = diff_schemas(OPEN, WITH_TITLE).findings
    assert finding.rule == "PROPERTY_ADDED" and finding.breaks(BACKWARD, TOLERANT)
    assert finding.evidence(BACKWARD, TOLERANT) == LATENT and not finding.breaks_declared()
    assert finding.severity is Severity.WARNING
    assert [w.payload for w in finding.witnesses] == [{"title": 0}, {"title": 0}]
    assert all(w.undeclared == ("/title",) and w.evidence == LATENT for w in finding.witnesses)
    strict = diff_schemas(OPEN, WITH_TITLE, DiffOptions(strict_sets=True)).findings[0]
    assert strict.severity is Severity.ERROR and strict.latent == finding.latent


def test_a_type_change_of_a_declared_property_is_declared_evidence() -> None:
    new = {**OPEN, "properties": {"a": {"type": "integer"}}}
    (finding,) = diff_schemas(OPEN, new).findings
    assert finding.evidence(BACKWARD, TOLERANT) == DECLARED and finding.evidence(FORWARD, TOLERANT) == DECLARED
    assert finding.latent == () and finding.severity is Severity.ERROR
    assert all(w.undeclared == () for w in finding.witnesses)


def test_a_member_an_unevaluated_properties_schema_types_is_declared() -> None:
    """`unevaluatedProperties: {type: string}` types every other member, as a typed additionalProperties map does:
    its keys are data. jsonschema-rs gives that keyword no annotations, so `bar` was taken for an undeclared member
    and the break latent (Confluent 2020-12 case 38, lenient: incompatible; the default gate passed it)."""
    old = {"$schema": D, "properties": {"foo": {"type": "string"}}, "unevaluatedProperties": {"type": "string"}}
    new = {**old, "properties": {"foo": {"type": "string"}, "bar": {"type": "number"}}}
    (finding,) = diff_schemas(old, new).findings
    assert finding.breaks(BACKWARD, STRICT) and finding.evidence(BACKWARD, STRICT) == DECLARED
    assert {json.dumps(w.payload) for w in finding.witnesses if w.direction == BACKWARD} == {'{"bar": "x"}'}
    assert finding.severity is Severity.ERROR


def test_the_default_gate_passes_a_latent_break_and_strict_sets_fails_it(tmp_path: Path) -> None:
    code, out = _cli(tmp_path, OPEN, WITH_TITLE)
    assert code == 0, out
    assert "latent" in out and "declared breaks" in out
    code, out = _cli(tmp_path, OPEN, WITH_TITLE, "--strict-sets")
    assert code == 1, out
    assert "latent breaks too" in out
    code, out = _cli(tmp_path, OPEN, WITH_TITLE, "--fail-on", "warning")
    assert code == 1 and "only for writers of undeclared members" in out, out


def test_a_closed_object_that_gains_an_optional_property_is_declared() -> None:
    """Closed, nobody could send `title` before: the new optional property breaks only strict old readers, forward,
    and the witness uses `title` as the new writer declares it."""
    closed = {**OPEN, "additionalProperties": False}
    new = {**WITH_TITLE, "additionalProperties": False}
    (finding,) = diff_schemas(closed, new).findings
    assert finding.breaks(FORWARD, STRICT) and finding.evidence(FORWARD, STRICT) == DECLARED


@pytest.mark.parametrize("output_format", ["text", "markdown", "json", "junit", "sarif", "html"])
def test_every_report_says_which_breaks_are_latent(output_format: str) -> None:
    out = io.StringIO()
    report.write(output_format, DiffRun((diff_schemas(OPEN, WITH_TITLE),)), out)
    assert "latent" in out.getvalue()


def test_the_json_report_gives_the_evidence_of_every_breaking_verdict_and_witness() -> None:
    out = io.StringIO()
    report.write("json", DiffRun((diff_schemas(OPEN, WITH_TITLE), diff_schemas(OPEN, {
        **OPEN, "properties": {"a": {"type": "integer"}}}))), out)
    latent, declared = (pair["findings"][0] for pair in json.loads(out.getvalue())["pairs"])
    assert {v["evidence"] for v in latent["verdicts"]} == {"latent"}
    assert {w["evidence"] for w in latent["witnesses"]} == {"latent"}
    assert latent["witnesses"][0]["undeclared"] == ["/title"]
    assert {v["evidence"] for v in declared["verdicts"]} == {"declared"}
    assert all("undeclared" not in w for w in declared["witnesses"])


def test_undeclared_members_are_read_from_the_branches_that_accept_the_payload() -> None:
    uri = "https://schemas.wirecheck.invalid/s"
    side = Side("old", {uri: {"$defs": {"A": {
        "type": "object",
        "properties": {"a": {}, "map": {"additionalProperties": {"type": "string"}},
                       "meta": {"additionalProperties": {}, "properties": {"t": {}}},
                       "free": {"type": "object"}, "fixed": {"const": {"$ref": "#/x"}}},
        "patternProperties": {"^x-": {}},
        "anyOf": [{"properties": {"b": {"type": "string"}}, "required": ["b"]}, {"properties": {"c": {}}}]}}}})
    at = uri + "#/$defs/A"
    # a typed map's keys are data, `x-` names match a pattern, `c` is named by a branch that accepts the payload
    assert side.undeclared(at, {"a": 1, "map": {"k": "v"}, "x-y": 0, "c": 1}) == ()
    # `meta` is open (`additionalProperties: {}` says nothing); the outermost undeclared member only
    assert side.undeclared(at, {"a": 1, "meta": {"t": 0, "z": {"deep": 1}}, "title": 0}) == ("/meta/z", "/title")
    assert side.undeclared(at, {"b": "x"}) == ()
    # a free-form object's members are names nobody declared; a constant's are data
    assert side.undeclared(at, {"free": {"k": 1}, "fixed": {"$ref": "#/x"}}) == ("/free/k",)
    # `b` is named only by a branch that refuses this payload (`b` is no string): the open object let it through
    assert side.undeclared(at, {"b": 1, "c": 0}) == ("/b",)


def test_undeclared_members_named_like_keywords_or_escaped_in_pointers() -> None:
    """The evaluation paths are read by their last two tokens as written: a member named `enum`, `properties` or
    `required` is a name, not the keyword; `a/b` and `x~y` are written `a~1b` and `x~0y` there."""
    uri = "https://schemas.wirecheck.invalid/s"
    side = Side("old", {uri: {"$defs": {"A": {
        "type": "object",
        "properties": {"enum": {"type": "object", "properties": {"properties": {}}}, "a/b": {"type": "object"},
                       "x~y": {"additionalProperties": {"type": "integer"}}, "c": {"enum": [{"k": 1}]}},
        "required": ["r~1/s"]}}}})
    at = uri + "#/$defs/A"
    payload = {"enum": {"properties": {"p": 1}, "q": 1}, "a/b": {"z": 1}, "x~y": {"m": 1}, "c": {"k": 1},
               "r~1/s": 0, "required": 0}
    assert side.undeclared(at, payload) == ("/a~1b/z", "/enum/properties/p", "/enum/q", "/required")


def test_a_declared_witness_is_preferred_to_a_shorter_latent_one() -> None:
    uri_old, uri_new = "https://schemas.wirecheck.invalid/old/", "https://schemas.wirecheck.invalid/new/"
    old = Side("old", {uri_old: {"type": "object", "properties": {"a": {"type": "string"}}}})
    new = Side("new", {uri_new: {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "null"}},
                                 "required": []}})
    latent, declared = {"b": 0}, {"a": "long enough"}
    found = judge([latent, declared], (old, uri_old + "#"), (new, uri_new + "#"))
    assert found[(BACKWARD, TOLERANT)].payload == declared and found[(BACKWARD, TOLERANT)].undeclared == ()
    found = judge([latent], (old, uri_old + "#"), (new, uri_new + "#"))
    assert found[(BACKWARD, TOLERANT)].undeclared == ("/b",)
