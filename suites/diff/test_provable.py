"""Issue 30, 4 and 5: what has a simple witness is decided (not left "unknown"), and each finding says the real
reason in the user's keywords, with its values and a witness. Each example of the issue is a case here; the pairs
in suites/diff/pairs/ hold one case per rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from wirecheck.cli.app import app
from wirecheck.diff import diff_schemas
from wirecheck.diff.inputs import in_input_terms, read_input
from wirecheck.diff.model import BACKWARD, FORWARD, LATENT, STRICT, TOLERANT, UNKNOWN
from wirecheck.diff.side import Side
from wirecheck.diff.witness import judge

D = "https://json-schema.org/draft/2020-12/schema"
D4 = "http://json-schema.org/draft-04/schema#"


def _schema(body: dict[str, Any]) -> dict[str, Any]:
    return {"$schema": D, **body}


def _only(old: dict[str, Any], new: dict[str, Any]) -> Any:
    (finding,) = diff_schemas(_schema(old), _schema(new)).findings
    return finding


def _real(old: dict[str, Any], new: dict[str, Any], finding: Any) -> None:
    """Every witness of `finding` is accepted by its writer and refused by its reader (both validators)."""
    uri_old, uri_new = "https://schemas.wirecheck.invalid/o/", "https://schemas.wirecheck.invalid/n/"
    ends = (Side("old", {uri_old: _schema(old)}), uri_old + "#"), (Side("new", {uri_new: _schema(new)}), uri_new + "#")
    for witness in finding.witnesses:
        found = judge([witness.payload], *ends)
        assert (witness.direction, witness.view) in found, witness


def test_additional_properties_true_to_a_type_is_decided_with_a_fresh_name() -> None:
    old, new = {"additionalProperties": True}, {"additionalProperties": {"type": "number"}}
    finding = _only(old, new)
    assert finding.rule == "TYPE_NARROWED" and finding.path == "/{name}"
    assert finding.breaks(BACKWARD, TOLERANT) and not any(v == UNKNOWN for *_, v in finding.verdicts)
    assert finding.evidence(BACKWARD, TOLERANT) == LATENT  # the name is one the old contract never declared
    assert finding.message == 'type at /{name} narrowed from any type to ["number"]'
    (payload,) = {json.dumps(w.payload) for w in finding.witnesses}
    assert len(json.loads(payload)) == 1 and not isinstance(next(iter(json.loads(payload).values())), int | float)
    _real(old, new, finding)


def test_additional_properties_true_to_false_is_a_closed_model_not_a_narrowed_type() -> None:
    """Issue 30, 5: it said "type narrowed from any type to object" (the new schema still accepts "x", 1, [])."""
    old, new = {"additionalProperties": True}, {"additionalProperties": False}
    finding = _only(old, new)
    assert finding.rule == "MODEL_CLOSED" and finding.message == "object at / is now closed to unknown fields"
    assert finding.breaks(BACKWARD, STRICT) and finding.witnesses
    _real(old, new, finding)


def test_a_written_type_where_there_was_none_is_a_narrowed_type() -> None:
    """The other side of the same reading: `{properties: …}` alone accepts strings too; `type: object` does not."""
    old, new = {"properties": {"a": {}}}, {"type": "object", "properties": {"a": {}}}
    finding = _only(old, new)
    assert finding.rule == "TYPE_NARROWED" and finding.message == 'type at / narrowed from any type to ["object"]'
    _real(old, new, finding)


@pytest.mark.parametrize(("old", "new", "rule"), [
    ({"type": "object"}, {"type": "object", "unevaluatedProperties": {"type": "string"}}, "TYPE_NARROWED"),
    ({"type": "array", "prefixItems": [{"type": "string"}]},
     {"type": "array", "prefixItems": [{"type": "string"}], "unevaluatedItems": False}, "EXTRA_ITEMS_FORBIDDEN"),
    ({"type": "array", "prefixItems": [{"type": "string"}]},
     {"type": "array", "prefixItems": [{"type": "string"}], "unevaluatedItems": {"type": "string"}},
     "ITEMS_SCHEMA_ADDED"),
    ({"type": "array", "contains": {"type": "integer"}},
     {"type": "array", "contains": {"type": "integer"}, "minContains": 2}, "CONTAINS_RANGE_NARROWED"),
    ({"type": "object"}, {"type": "object", "propertyNames": {"maxLength": 3}}, "PROPERTY_NAMES_ADDED"),
])
def test_keywords_added_are_decided_with_a_witness(old: dict[str, Any], new: dict[str, Any], rule: str) -> None:
    """Issue 30, 4: unevaluatedProperties, unevaluatedItems, minContains and propertyNames added were "unknown"."""
    finding = _only(old, new)
    assert finding.rule == rule and finding.breaks(BACKWARD, TOLERANT) and finding.witnesses
    assert not any(v == UNKNOWN for *_, v in finding.verdicts)
    _real(old, new, finding)


@pytest.mark.parametrize(("old", "new"), [
    # Confluent's corpus, 2020-12 case 34: `I_123` matched `^I_` (integer) before; declared a number now, it must
    # still be an integer, as the pattern still applies: the same set
    ({"properties": {"foo": {"type": "string"}}, "additionalProperties": False,
      "patternProperties": {"^S_": {"type": "string"}, "^I_": {"type": "integer"}}},
     {"properties": {"foo": {"type": "string"}, "I_123": {"type": "number"}}, "additionalProperties": False,
      "patternProperties": {"^S_": {"type": "string"}, "^I_": {"type": "integer"}}}),
    # case 36: a property unevaluatedProperties already typed the same way
    ({"properties": {"foo": {"type": "string"}}, "unevaluatedProperties": {"type": "string"}},
     {"properties": {"foo": {"type": "string"}, "bar": {"type": "string"}},
      "unevaluatedProperties": {"type": "string"}}),
])
def test_an_addition_covered_by_what_the_object_admitted_is_compatible(old: dict[str, Any],
                                                                        new: dict[str, Any]) -> None:
    result = diff_schemas(_schema(old), _schema(new))
    assert result.findings == ()
    assert {v for kind in result.kinds for *_, v in kind.verdicts} == {"safe"}


def test_the_tail_of_a_tuple_retyped_is_decided() -> None:
    """Confluent 2020-12 case 76: a third tuple position dropped, so it falls to `unevaluatedItems: string`."""
    old = {"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}, {"type": "number"}],
           "unevaluatedItems": {"type": "string"}}
    new = {"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}],
           "unevaluatedItems": {"type": "string"}}
    finding = _only(old, new)
    assert finding.rule == "TYPE_CHANGED" and finding.path == "/2"
    assert finding.breaks(BACKWARD, TOLERANT) and finding.breaks(FORWARD, TOLERANT)
    _real(old, new, finding)


def test_required_foo_to_bar_says_bar_is_now_required() -> None:
    """Issue 30, 5: it said "now optional: foo" while the break is "now required: bar" (bar is no property)."""
    old = {"type": "object", "properties": {"foo": {"type": "string"}}, "required": ["foo"]}
    new = {"type": "object", "properties": {"foo": {"type": "string"}}, "required": ["bar"]}
    findings = {f.rule: f for f in diff_schemas(_schema(old), _schema(new)).findings}
    required = findings["PROPERTY_BECAME_REQUIRED"]
    assert required.path == "/bar" and required.breaks(BACKWARD, TOLERANT)
    assert required.message == "property bar became required at /bar"
    assert {json.dumps(w.payload) for w in required.witnesses} == {json.dumps({"foo": ""})}
    optional = findings["PROPERTY_BECAME_OPTIONAL"]
    assert optional.path == "/foo" and optional.breaks(FORWARD, TOLERANT) and not optional.breaks(BACKWARD)
    _real(old, new, required)


def test_max_properties_is_named_with_its_values_and_a_witness() -> None:
    old = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "maxProperties": 2}
    new = {**old, "maxProperties": 1}
    finding = _only(old, new)
    assert finding.rule == "PROPERTY_COUNT_NARROWED" and finding.message == "maxProperties at / changed from 2 to 1"
    assert next(w.payload for w in finding.witnesses) == {"a": "", "b": ""}
    assert finding.evidence(BACKWARD, TOLERANT) == "declared"  # `a` and `b` are declared names
    _real(old, new, finding)


def test_a_draft_04_exclusive_maximum_is_described_in_its_own_keywords(tmp_path: Path) -> None:
    """Issue 30, 5: `exclusiveMaximum: true` added beside `maximum: 5` (draft-04) was "maximum changed from 5 to
    none" (and a second finding): the translated 2020-12 form. It is one narrowed bound, in the draft's words."""
    old = {"$schema": D4, "type": "number", "maximum": 5}
    new = {"$schema": D4, "type": "number", "maximum": 5, "exclusiveMaximum": True}
    old_input, new_input = read_input(old), read_input(new)
    result = in_input_terms(diff_schemas(old_input.schema, new_input.schema), old_input, new_input)
    (finding,) = result.findings
    assert finding.rule == "RANGE_NARROWED" and finding.breaks(BACKWARD, TOLERANT)
    assert finding.message == "upper bound at / changed from maximum 5 to maximum 5 with exclusiveMaximum true"
    assert next(w.payload for w in finding.witnesses) == 5
    (tmp_path / "old.json").write_text(json.dumps(old))
    (tmp_path / "new.json").write_text(json.dumps(new))
    run = CliRunner().invoke(app, ["diff-schemas", str(tmp_path / "old.json"), str(tmp_path / "new.json")])
    assert "maximum 5 with exclusiveMaximum true" in run.stdout and "to none" not in run.stdout, run.stdout


def test_a_grouped_finding_shows_a_witness_per_member_quoting_that_member() -> None:
    """Issue 30, 5: a change standing for many (walk.grouped) showed one witness, quoted at the group's path. Each
    member it was probed for has its own witness now, quoting its own member (`Witness.at`)."""
    from wirecheck.diff.changes import group_changes
    from wirecheck.diff.report.common import short_payload, witness_path

    added = {f"p{i}": {"type": "string"} for i in range(20)}
    old = {"type": "object", "properties": {"m": {"type": "object", "properties": {"a": {"type": "string"}}}}}
    new = {"type": "object", "properties": {"m": {"type": "object", "properties": {"a": {"type": "string"}, **added}}}}
    result = diff_schemas(_schema(old), _schema(new))
    (finding,) = result.findings
    assert finding.rule == "PROPERTY_ADDED" and "20 in all" in finding.path
    members = sorted({w.at for w in finding.witnesses})
    assert members == ["/m/p0", "/m/p1", "/m/p10", "/m/p11"]
    (change,) = group_changes(result)
    shown = {witness_path(change, w): short_payload(w.payload, witness_path(change, w)) for w in change.witnesses()}
    assert shown["/m/p1"] == '{"m":{"p1":0}}'
    _real(old, new, finding)
