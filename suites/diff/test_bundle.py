"""diff-schemas on schemas as people publish them (issue 39, item 3): a `$ref` to another file is resolved from
--ref-map URL=FILE, --schemas-dir DIR or the schema's own folder, never fetched, and the files reached are
bundled into the schema (diff/bundle.py), so a break inside one is reported like any other."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from wirecheck.cli.app import app
from wirecheck.contracts.drafts import Untranslatable
from wirecheck.diff.bundle import bundle

D7 = "http://json-schema.org/draft-07/schema#"


def _write(folder: Path, name: str, schema: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(schema), encoding="utf-8")
    return path


def _package(version: str = "1") -> dict:
    """SchemaStore's layout: package.json refers to eslintrc.json by a relative `$ref` (resolved against its
    `$id`), which refers to a third file and to a place in itself."""
    return {"$schema": D7, "$id": "https://json.schemastore.org/package.json", "type": "object",
            "properties": {"name": {"type": "string"}, "eslintConfig": {"$ref": "eslintrc.json"}}}


def _eslintrc(required: list[str]) -> dict:
    return {"$schema": D7, "$id": "https://json.schemastore.org/eslintrc.json", "type": "object",
            "definitions": {"rule": {"type": "string"}},
            "properties": {"root": {"type": "boolean"}, "rule": {"$ref": "#/definitions/rule"},
                           "plugins": {"$ref": "https://json.schemastore.org/plugins.json#/definitions/list"}},
            "required": required}


PLUGINS = {"$schema": D7, "$id": "https://json.schemastore.org/plugins.json",
           "definitions": {"list": {"type": "array", "items": {"type": "string"}}}}


def _diff(*args: str) -> tuple[int, dict, str]:
    run = CliRunner().invoke(app, ["diff-schemas", *args, "--format", "json"])
    report = json.loads(run.stdout) if run.exit_code in (0, 1) else {}
    return run.exit_code, report, run.output


def test_a_break_inside_a_file_a_ref_reaches_is_reported_from_the_schemas_own_folder(tmp_path: Path) -> None:
    for side, required in (("old", []), ("new", ["root"])):
        _write(tmp_path / side, "package.json", _package())
        _write(tmp_path / side, "eslintrc.json", _eslintrc(required))
        _write(tmp_path / side, "plugins.json", PLUGINS)
    code, report, output = _diff(str(tmp_path / "old/package.json"), str(tmp_path / "new/package.json"))
    assert code == 1, output
    (finding,) = report["pairs"][0]["findings"]
    assert finding["rule"] == "PROPERTY_BECAME_REQUIRED" and finding["path"] == "/eslintConfig/root"
    assert "/definitions/eslintrc.json" in finding["new_location"]
    # the same files unchanged: nothing to report (the bundled refs resolve alike on both sides)
    _write(tmp_path / "new", "eslintrc.json", _eslintrc([]))
    code, report, output = _diff(str(tmp_path / "old/package.json"), str(tmp_path / "new/package.json"))
    assert code == 0 and report["pairs"][0]["findings"] == [], output


def test_ref_map_and_schemas_dir_say_where_a_file_is_and_nothing_is_fetched(tmp_path: Path) -> None:
    old = _write(tmp_path / "a", "package.json", _package())
    new = _write(tmp_path / "b", "package.json", _package())
    code, _, output = _diff(str(old), str(new))
    assert code == 2 and "https://json.schemastore.org/eslintrc.json" in output and "--ref-map" in output \
        and "--schemas-dir" in output and "never fetched" in output
    lib = tmp_path / "lib"
    _write(lib, "eslintrc.json", _eslintrc(["root"]))
    plugins = _write(tmp_path / "elsewhere", "whatever.json", PLUGINS)
    code, report, output = _diff(str(old), str(new), "--schemas-dir", str(lib),
                                 "--ref-map", f"https://json.schemastore.org/plugins.json={plugins}")
    assert code == 0 and report["pairs"][0]["findings"] == [], output


def test_a_file_in_another_draft_and_an_anchor_are_refused_with_where() -> None:
    old_draft = {**_eslintrc([]), "$schema": "http://json-schema.org/draft-04/schema#"}
    try:
        bundle(_package(), lambda url: old_draft if url.endswith("eslintrc.json") else PLUGINS)
    except Untranslatable as exc:
        assert exc.pointer == "/properties/eslintConfig/$ref" and "draft-04" in exc.reason
    else:
        raise AssertionError("a draft-04 file bundled into a draft-07 schema")
    anchored = {**_package(), "properties": {"x": {"$ref": "eslintrc.json#top"}}}
    try:
        bundle(anchored, lambda url: _eslintrc([]))
    except Untranslatable as exc:
        assert "anchor" in exc.reason
    else:
        raise AssertionError("an anchor bundled")


def test_a_resource_the_schema_embeds_under_its_own_id_is_left_where_it_is() -> None:
    """AsyncAPI's bundled schemas hold their definitions under their own `$id`s: a `$ref` to one is no other file."""
    embedded = {"$schema": D7, "$id": "https://x.example/root.json", "type": "object",
                "properties": {"a": {"$ref": "https://x.example/part.json"}},
                "definitions": {"https://x.example/part.json": {"$id": "https://x.example/part.json",
                                                                "type": "string"}}}
    assert bundle(embedded, lambda url: None) == (embedded, [])


def test_an_annotation_of_the_wrong_type_is_a_warning_not_a_refusal(tmp_path: Path) -> None:
    """Issue 39, 3: SchemaStore schemas carry `description: null` and `examples: "Yes"`, which draft-07's
    meta-schema refuses and every validator ignores: each is dropped with a warning naming its place and keyword,
    and the pair is compared (here: `b` became required, a backward break). A fault in a keyword that is no
    annotation (`type: 5`) is still refused."""
    base = {"$schema": D7, "type": "object", "description": None,
            "properties": {"a": {"type": "string", "examples": "Yes"}, "b": {"type": "integer"}}}
    old = _write(tmp_path, "old.json", base)
    new = _write(tmp_path, "new.json", {**base, "required": ["b"]})
    run = CliRunner().invoke(app, ["diff-schemas", str(old), str(new), "--format", "json"])
    assert run.exit_code == 1, run.output
    assert f"warning: {old}#/description: description is null, not string" in run.stderr
    assert f"warning: {new}#/properties/a/examples: examples is string, not array" in run.stderr
    (finding,) = json.loads(run.stdout)["pairs"][0]["findings"]
    assert finding["rule"] == "PROPERTY_BECAME_REQUIRED"
    broken = _write(tmp_path, "broken.json", {**base, "properties": {"a": {"type": 5}}})
    run = CliRunner().invoke(app, ["diff-schemas", str(old), str(broken)])
    assert run.exit_code == 2 and "broken.json#/properties/a/type" in run.output


def test_a_file_nested_too_deep_is_a_located_refusal_not_a_crash(tmp_path: Path) -> None:
    """A file a `$ref` reaches nested 1,020 levels deep (orjson reads it): a usage error naming the URL and where,
    never a RecursionError read as an internal error."""
    _write(tmp_path, "package.json", _package())
    (tmp_path / "eslintrc.json").write_text('{"type": "object", "properties": {"x": {"enum": ['
                                            + "[" * 1020 + "]" * 1020 + "]}}}", encoding="utf-8")
    run = CliRunner().invoke(app, ["diff-schemas", str(tmp_path / "package.json"), str(tmp_path / "package.json")])
    assert run.exit_code == 2, run.output
    assert "eslintrc.json nests more than 128 levels deep (at /properties/x/enum/0/0" in run.output


def _vector(data_dir_type: str) -> dict[str, Any]:
    """An excerpt of SchemaStore's vector.json (src/schemas/json/vector.json at 899044e14, 2026-04-13, Apache-2.0,
    draft 2019-09): `data_dir` and the definitions it refers to, named by Rust types with `<` and `>` unencoded in
    the `$ref` ("#/definitions/core::option::Option<std::path::PathBuf>"), which no URI reference may hold."""
    option = "core::option::Option<std::path::PathBuf>"
    return {
        "$schema": "https://json-schema.org/draft/2019-09/schema",
        "$id": "https://json.schemastore.org/vector.json",
        "type": "object",
        "properties": {"data_dir": {"$ref": f"#/definitions/{option}",
                                    "title": "The directory used for persisting Vector state data.",
                                    "default": "/var/lib/vector/"}},
        "definitions": {
            option: {"description": "A file path.",
                     "oneOf": [{"type": "null"}, {"$ref": "#/definitions/stdlib::PathBuf"}],
                     "unevaluatedProperties": False},
            "stdlib::PathBuf": {"description": "A file path.", "type": data_dir_type},
        },
    }


def test_a_ref_holding_characters_no_uri_may_hold_is_read_as_the_place_it_names(tmp_path: Path) -> None:
    """Issue 39, 3: vector.json's `$ref`s name Rust types (`Option<std::path::PathBuf>`): its draft's meta-schema
    refuses them as no `uri-reference` once formats are asserted, and validators resolve them all the same
    (python-jsonschema 4.26.0 builds a validator of vector.json that rejects a wrong type there; ajv 8.20.0's
    validateSchema is true). Each is read percent-encoded, with a warning naming the `$ref` and its place, and the
    pair is compared through it: the path turned from a string to an integer is a break both ways (exit 1, not 2).
    A `$ref` whose encoded form points at nothing is still refused."""
    old = _write(tmp_path, "old.json", _vector("string"))
    new = _write(tmp_path, "new.json", _vector("integer"))
    run = CliRunner().invoke(app, ["diff-schemas", str(old), str(new), "--format", "json"])
    assert run.exit_code == 1, run.output
    assert (f"warning: {old}#/properties/data_dir/$ref: $ref '#/definitions/core::option::Option<std::path::PathBuf>' "
            "is not a URI reference") in run.stderr
    assert "read as '#/definitions/core::option::Option%3Cstd::path::PathBuf%3E'" in run.stderr
    findings = json.loads(run.stdout)["pairs"][0]["findings"]
    assert {f["path"] for f in findings} == {"/data_dir"} and findings[0]["severity"] == "error"
    import jsonschema  # the reference validator resolves the same $ref as written, and judges alike

    assert not jsonschema.Draft201909Validator(_vector("string")).is_valid({"data_dir": 5})
    assert jsonschema.Draft201909Validator(_vector("integer")).is_valid({"data_dir": 5})
    dangling = _vector("string")
    dangling["properties"]["data_dir"]["$ref"] = "#/definitions/core::option::Option<Nothing>"
    run = CliRunner().invoke(app, ["diff-schemas", str(_write(tmp_path, "dangling.json", dangling)), str(new)])
    assert run.exit_code == 2 and "dangling.json#/properties/data_dir" in run.output, run.output
