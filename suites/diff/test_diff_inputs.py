"""diff-schemas reads drafts 04–07 (translated into 2020-12, diff/inputs.py): verdicts as the drafts mean them,
locations in the files as written, `--explain-input`, `--default-draft`, and real draft-07 schemas (MCP)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from wirecheck.contracts.drafts import DRAFTS
from wirecheck.diff.engine import diff_schemas
from wirecheck.diff.inputs import in_input_terms, read_input

from .test_diff_cli import wirecheck

ROOT = Path(__file__).resolve().parents[2]
MCP = ROOT / "fixtures" / "mcp-schema"
D4, D7 = DRAFTS["4"].uri, DRAFTS["7"].uri
D2020 = DRAFTS["2020-12"].uri


def diff(old, new):
    old_input, new_input = read_input(old), read_input(new)
    return in_input_terms(diff_schemas(old_input.schema, new_input.schema), old_input, new_input)


def test_a_draft_07_schema_and_its_2020_12_spelling_are_the_same_schema():
    old = {"$schema": D7, "type": "array", "items": [{"type": "string"}, {"$ref": "#/definitions/N"}],
           "additionalItems": False, "definitions": {"N": {"type": "integer"}}}
    new = {"$schema": D2020, "type": "array", "prefixItems": [{"type": "string"}, {"$ref": "#/$defs/N"}],
           "items": False, "$defs": {"N": {"type": "integer"}}}
    assert diff(old, new).findings == ()


def test_draft_04_exclusive_bounds_compare_as_draft_04_means_them():
    old = {"$schema": D4, "type": "number", "maximum": 5, "exclusiveMaximum": True}
    assert diff(old, {"$schema": D2020, "type": "number", "exclusiveMaximum": 5}).findings == ()
    findings = diff(old, {"$schema": D4, "type": "number", "maximum": 5}).findings  # 5 is newly allowed
    assert any(f.breaks("forward") and any(w.payload == 5 for w in f.witnesses) for f in findings)


def test_a_ref_sibling_draft_07_ignores_changes_nothing():
    old = {"$schema": D7, "definitions": {"S": {"type": "string"}}, "properties": {"a": {"$ref": "#/definitions/S"}}}
    new = {"$schema": D7, "definitions": {"S": {"type": "string"}},
           "properties": {"a": {"$ref": "#/definitions/S", "maxLength": 1}}}
    assert diff(old, new).findings == ()


def test_dependencies_in_2020_12_gets_its_witness():
    """jsonschema-rs applied `dependencies` and python-jsonschema did not, so the witness of removing it was
    dropped at confirmation; read as dependentRequired, both validators confirm it."""
    old = {"$schema": D2020, "type": "object", "dependencies": {"a": ["b"]}}
    new = {"$schema": D2020, "type": "object"}
    [finding] = diff(old, new).findings
    assert finding.breaks("forward") and finding.witnesses
    assert all("a" in w.payload and "b" not in w.payload for w in finding.witnesses if w.direction == "forward")


def test_locations_name_the_places_of_the_files_as_written():
    old = json.loads((MCP / "2025-03-26" / "schema.json").read_text())
    new = json.loads((MCP / "2025-06-18" / "schema.json").read_text())
    result = diff({**old, "$ref": "#/definitions/CallToolResult"}, {**new, "$ref": "#/definitions/CallToolResult"})
    added = [f for f in result.findings if f.rule == "UNION_BRANCH_ADDED" and f.path == "/content/*"]
    assert added and added[0].breaks("forward") and added[0].witnesses
    assert added[0].new_location == "#/definitions/ContentBlock/anyOf/3"
    assert all("$defs" not in (f.old_location or "") + (f.new_location or "") for f in result.findings)


def test_cli_reads_draft_07_and_explains_the_translation(tmp_path: Path) -> None:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps({"$schema": D7, "definitions": {"P": {"type": "string"}},
                               "properties": {"p": {"$ref": "#/definitions/P"}, "t": {"items": [{}]}}}))
    new.write_text(json.dumps({"$schema": D7, "definitions": {"P": {"type": "integer"}},
                               "properties": {"p": {"$ref": "#/definitions/P"}, "t": {"items": [{}]}}}))
    code, out, err = wirecheck("diff-schemas", str(old), str(new))
    assert code == 1 and "TYPE_CHANGED" in out and "definitions/P" in out, out + err
    assert "read as draft-07 (declared by $schema); 4 rewrite(s) into 2020-12 (--explain-input lists them)" in err
    code, _, err = wirecheck("diff-schemas", str(old), str(new), "--explain-input")
    assert code == 1
    assert f"{old}#/definitions: definitions → $defs (1 entry)" in err
    assert f"{old}#/properties/p/$ref: $ref '#/definitions/P' → '#/$defs/P'" in err
    assert f"{new}#/properties/t/items: an items array → prefixItems" in err


def test_cli_default_draft(tmp_path: Path) -> None:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps({"items": [{"type": "string"}]}))
    new.write_text(json.dumps({"items": [{"type": "string"}], "additionalItems": False}))
    code, _, err = wirecheck("diff-schemas", str(old), str(new))
    assert code == 2 and "old.json#/items: not a valid 2020-12 schema" in err and "--default-draft 7" in err
    code, out, err = wirecheck("diff-schemas", str(old), str(new), "--default-draft", "7")
    assert code == 1 and "no $schema: the default draft" in err, out + err
    code, _, err = wirecheck("diff-schemas", str(old), str(new), "--default-draft", "3")
    assert code == 2 and "--default-draft: '3' is not a draft wirecheck reads" in err


def test_a_schema_past_the_value_limit_is_refused_before_it_is_compared(tmp_path: Path) -> None:
    """diff-schemas' memory grows with the schema (two of 1,900 $defs, 104,504 values: 487 MiB, 237 s); past
    75,000 JSON values an input is refused by its count, the limit said."""
    from wirecheck.diff.inputs import MAX_SCHEMA_VALUES

    small = tmp_path / "small.json"
    small.write_text(json.dumps({"enum": [0]}))
    at_limit = tmp_path / "at.json"
    at_limit.write_text(json.dumps({"enum": list(range(MAX_SCHEMA_VALUES - 2))}))  # the schema and its list count
    past = tmp_path / "past.json"
    past.write_text(json.dumps({"enum": list(range(MAX_SCHEMA_VALUES - 1))}))
    code, _, err = wirecheck("diff-schemas", str(small), str(past))
    assert code == 2 and f"{past}: holds more than {MAX_SCHEMA_VALUES:,} JSON values" in err, err
    code, _, err = wirecheck("diff-schemas", str(past), str(small))
    assert code == 2 and f"{past}: holds more than {MAX_SCHEMA_VALUES:,} JSON values" in err, err
    code, _, err = wirecheck("diff-schemas", str(small), str(at_limit))
    assert code in (0, 1) and "JSON values" not in err, err  # compared: a verdict, whatever it is


def test_diff_schemas_and_the_histories_replay_read_a_schema_through_one_pipeline(tmp_path: Path, monkeypatch) -> None:
    """`diff-schemas` and the replay of the schema histories read each side by `inputs.read_schema` (bundled,
    bounded, tolerated annotations dropped, translated): one function, so the replay judges what users get."""
    import pytest

    from wirecheck.cli import diff_cmd
    from wirecheck.diff import histories, inputs
    from wirecheck.diff.inputs import MAX_SCHEMA_VALUES, TooLarge, read_schema

    read = read_schema({"$schema": "http://json-schema.org/draft-07/schema#", "description": None,
                        "properties": {"a": {"$ref": "https://x.invalid/a.json"}}},
                       lambda url: {"type": "string"} if url == "https://x.invalid/a.json" else None)
    assert read.translation.schema["$defs"]["a.json"]["type"] == "string" and len(read.bundled) == 1
    assert [note.split(":")[0] for note in read.dropped] == ["/description"]  # `description: null`, dropped
    with pytest.raises(TooLarge, match="more than"):
        read_schema({"enum": list(range(MAX_SCHEMA_VALUES + 1))})
    calls: list[Any] = []

    def counted(*args: Any) -> Any:
        calls.append(args)
        return read_schema(*args)

    monkeypatch.setattr(inputs, "read_schema", counted)
    schema = tmp_path / "s.json"
    schema.write_text('{"type": "object"}')
    diff_cmd._load_schema(schema, DRAFTS["2020-12"])
    histories._read(histories.Revision(series="s", label="x", file=schema))
    assert len(calls) == 2
