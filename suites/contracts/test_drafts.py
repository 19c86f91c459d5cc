"""Drafts 04–07 (and 2019-09) translated into 2020-12 (contracts/drafts.py): each rewrite, each refusal, the
official JSON Schema Test Suite through the translation, real draft-07 schemas (MCP), and a property test: the
draft's own validator on the original and both 2020-12 validators on the translation agree on every instance."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import jsonschema_rs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wirecheck.contracts.drafts import (
    DIALECT,
    DRAFTS,
    Untranslatable,
    draft_named,
    legacy_keywords,
    translate,
)
from wirecheck.contracts.reference import FORMAT_CHECKER, ReferenceValidator, _ecma_pattern, _ecma_pattern_properties

ROOT = Path(__file__).resolve().parents[2]
SUITE = Path(__file__).parent / "data" / "json-schema-test-suite"
MCP = ROOT / "fixtures" / "mcp-schema"
D4, D6, D7 = (DRAFTS[n].uri for n in ("4", "6", "7"))


def changes(translation) -> dict[str, str]:
    return {r.pointer: r.change for r in translation.rewrites}


# -- each rewrite ---------------------------------------------------------------------------------------------

def test_items_array_becomes_prefix_items_and_additional_items_becomes_items():
    t = translate({"$schema": D7, "items": [{"type": "string"}], "additionalItems": False})
    assert t.schema == {"$schema": DIALECT, "prefixItems": [{"type": "string"}], "items": False}
    assert changes(t)["/items"] == "an items array → prefixItems"
    assert changes(t)["/additionalItems"].startswith("additionalItems → items")


def test_additional_items_beside_a_single_items_schema_is_dropped_as_the_draft_ignores_it():
    t = translate({"$schema": D7, "items": {"type": "string"}, "additionalItems": False})
    assert t.schema == {"$schema": DIALECT, "items": {"type": "string"}}
    assert "ignores additionalItems when items is not an array" in changes(t)["/additionalItems"]


def test_definitions_become_defs_and_refs_follow():
    t = translate({"$schema": D7, "definitions": {"A": {"type": "string"}},
                   "properties": {"a": {"$ref": "#/definitions/A"}}})
    assert t.schema["$defs"] == {"A": {"type": "string"}}
    assert t.schema["properties"]["a"] == {"$ref": "#/$defs/A"}
    assert changes(t)["/definitions"] == "definitions → $defs (1 entry)"
    assert changes(t)["/properties/a/$ref"] == "$ref '#/definitions/A' → '#/$defs/A'"
    assert t.source_pointer("/$defs/A/type") == "/definitions/A/type"


def test_dependencies_split_into_dependent_required_and_dependent_schemas():
    t = translate({"$schema": D4, "dependencies": {"a": ["b"], "c": {"required": ["d"]}}})
    assert t.schema == {"$schema": DIALECT, "dependentRequired": {"a": ["b"]},
                        "dependentSchemas": {"c": {"required": ["d"]}}}


def test_dependencies_in_a_2020_12_schema_is_applied_by_both_validators():
    """The 2020-12 meta-schema keeps `dependencies` (deprecated, with its old value shape); jsonschema-rs applies
    it and python-jsonschema ignores it. Translated, both apply it: no witness is lost between them."""
    schema = {"$schema": DIALECT, "dependencies": {"a": ["b"]}, "dependentRequired": {"a": ["c"]}}
    assert jsonschema_rs.validator_for(schema).is_valid({"a": 1, "c": 1}) is False
    assert jsonschema.Draft202012Validator(schema).is_valid({"a": 1, "c": 1}) is True  # the disagreement
    t = translate(schema)
    assert t.schema == {"$schema": DIALECT, "dependentRequired": {"a": ["b", "c"]}}
    for instance, valid in (({"a": 1, "c": 1}, False), ({"a": 1, "b": 1, "c": 1}, True), ({"b": 1}, True)):
        assert jsonschema_rs.validator_for(t.schema).is_valid(instance) is valid
        assert ReferenceValidator(t.schema).is_valid(instance) is valid
    assert "jsonschema-rs applies it, python-jsonschema ignores it" in changes(t)["/dependencies"]


def test_legacy_keywords_in_a_contract_are_named():
    [(pointer, why)] = legacy_keywords({"$defs": {"A": {"dependencies": {"a": ["b"]}}}})
    assert pointer == "/$defs/A/dependencies" and "write dependentRequired" in why
    assert not list(legacy_keywords({"properties": {"dependencies": {"type": "object"}}}))  # a property's name


def test_draft4_id_and_boolean_exclusive_bounds():
    t = translate({"$schema": D4, "id": "http://example.com/s.json#", "type": "integer", "maximum": 5,
                   "exclusiveMaximum": True, "minimum": 0, "exclusiveMinimum": False})
    assert t.schema == {"$schema": DIALECT, "$id": "http://example.com/s.json", "type": "integer",
                        "exclusiveMaximum": 5, "minimum": 0}
    assert changes(t)["/exclusiveMaximum"] == "maximum 5 with exclusiveMaximum true → exclusiveMaximum 5"
    assert "1.0" in changes(t)[""]  # the one thing 2020-12 cannot say: draft-04's integer excludes 1.0


def test_siblings_of_a_ref_are_dropped_in_drafts_up_to_07_but_annotations_stay():
    t = translate({"$schema": D7, "definitions": {"A": {}},
                   "properties": {"a": {"$ref": "#/definitions/A", "type": "string", "description": "kept"}}})
    assert t.schema["properties"]["a"] == {"$ref": "#/$defs/A", "description": "kept"}
    assert "ignores what stands beside a $ref" in changes(t)["/properties/a/type"]
    same = translate({"properties": {"a": {"$ref": "#/$defs/A", "type": "string"}}, "$defs": {"A": {}}})
    assert same.schema["properties"]["a"] == {"$ref": "#/$defs/A", "type": "string"}  # 2020-12 applies both


@pytest.mark.parametrize(("draft", "keyword", "value"), [
    (D4, "const", 1), (D4, "contains", {"type": "string"}), (D4, "propertyNames", {"maxLength": 1}),
    (D6, "if", {"type": "string"}), (D7, "prefixItems", [{"type": "string"}]), (D7, "dependentRequired", {"a": []}),
    (D7, "unevaluatedProperties", False), (D7, "minContains", 2), (D4, "$id", "http://example.com/x"),
])
def test_keywords_the_draft_does_not_have_are_dropped(draft, keyword, value):
    t = translate({"$schema": draft, keyword: value})
    assert t.schema == {"$schema": DIALECT}
    assert "ignore" in changes(t)[f"/{keyword}"]


def test_formats_the_draft_does_not_define_are_dropped():
    t = translate({"$schema": D7, "properties": {"u": {"format": "uuid"}, "d": {"format": "date"},
                                                  "b": {"format": "byte"}}})
    assert t.schema["properties"] == {"u": {}, "d": {"format": "date"}, "b": {"format": "byte"}}
    assert "'uuid' is not a draft-07 format" in changes(t)["/properties/u/format"]
    assert translate({"$schema": D4, "format": "date"}).schema == {"$schema": DIALECT}


def test_pointers_with_escapes_are_written_as_uri_fragments():
    t = translate({"$schema": D7, "definitions": {"a b/c%": {"type": "string"}},
                   "properties": {"s": {"$ref": "#/definitions/a%20b~1c%25"}}})
    assert t.schema["properties"]["s"] == {"$ref": "#/$defs/a%20b~1c%25"}
    assert ReferenceValidator(t.schema).is_valid({"s": 1}) is False


def test_refs_are_resolved_as_the_draft_resolves_them_and_become_json_pointers():
    t = translate({"$schema": D7, "$id": "http://example.com/root.json",
                   "definitions": {"B": {"$id": "b.json", "definitions": {"C": {"type": "integer"}},
                                         "allOf": [{"$ref": "#/definitions/C"}]},
                                   "T": {"$id": "#tee", "type": "null"}},
                   "properties": {"b": {"$ref": "b.json"}, "t": {"$ref": "#tee"},
                                  "c": {"$ref": "http://example.com/b.json#/definitions/C"}}})
    assert t.schema["properties"] == {"b": {"$ref": "#/$defs/B"}, "t": {"$ref": "#/$defs/T"},
                                      "c": {"$ref": "#/$defs/B/$defs/C"}}
    assert t.schema["$defs"]["B"]["allOf"] == [{"$ref": "#/$defs/B/$defs/C"}]  # relative to the embedded $id
    assert "$id" not in t.schema["$defs"]["B"] and "$id" not in t.schema["$defs"]["T"]


def test_a_ref_into_a_dropped_place_keeps_its_target_under_defs():
    t = translate({"$schema": D7, "properties": {"f": {"prefixItems": [{"const": 1}]},
                                                 "g": {"$ref": "#/properties/f/prefixItems/0"}}})
    assert t.schema["properties"]["g"] == {"$ref": "#/$defs/~1properties~1f~1prefixItems~10"}
    assert t.schema["$defs"] == {"/properties/f/prefixItems/0": {"const": 1}}


def test_a_2020_12_schema_without_legacy_keywords_is_unchanged():
    schema = {"$schema": DIALECT, "$defs": {"A": {"type": "string"}}, "prefixItems": [{"$ref": "#/$defs/A"}],
              "dependentRequired": {"a": ["b"]}, "x-vendor": {"if": 1}}
    t = translate(schema)
    assert t.schema == schema and t.rewrites == () and t.declared


def test_no_dollar_schema_reads_as_the_default_draft():
    schema = {"items": [{"type": "string"}]}
    with pytest.raises(Untranslatable, match="not a valid 2020-12 schema"):
        translate(schema)
    t = translate(schema, draft_named("7"))
    assert t.schema == {"prefixItems": [{"type": "string"}]} and not t.declared
    assert "no $schema: the default draft" in t.summary


@pytest.mark.parametrize(("name", "expected"), [
    ("4", "draft-04"), ("04", "draft-04"), ("draft-07", "draft-07"), ("7", "draft-07"), ("2019-09", "2019-09"),
    ("2020-12", "2020-12"), ("http://json-schema.org/draft-06/schema", "draft-06"),
])
def test_draft_names(name, expected):
    assert draft_named(name).name == expected


def test_an_unknown_draft_name_is_refused():
    with pytest.raises(ValueError, match="'3' is not a draft wirecheck reads"):
        draft_named("3")


@pytest.mark.parametrize(("schema", "pointer", "reason"), [
    ({"$schema": "http://json-schema.org/draft-03/schema#"}, "/$schema", "not a draft wirecheck reads"),
    ({"$schema": D7, "properties": {"a": {"$ref": "other.json#/x"}}}, "/properties/a/$ref",
     "is not a JSON pointer into this file: it leads to"),
    ({"$schema": D7, "properties": {"a": {"$ref": "#/definitions/missing"}}}, "/properties/a/$ref",
     "points at nothing in this file"),
    ({"$schema": D7, "properties": {"a": {"$ref": "#/required"}}, "required": ["a"]}, "/properties/a/$ref",
     "not a schema"),
    ({"items": {"$dynamicRef": "#x"}}, "/items/$dynamicRef", "dynamic scope"),
    ({"$schema": D4, "required": []}, "/required", "not a valid draft-04 schema"),
    ({"$schema": D7, "definitions": {"s": {"$schema": D4}}}, "/definitions/s/$schema", "another draft"),
    ({"$schema": D7, "definitions": {"x\ud800": {}}, "properties": {"a": {"$ref": "#/definitions/x%ED%A0%80"}}},
     "/properties/a/$ref", "points at nothing"),
    ({"$schema": D7, "definitions": {"x\ud800": {}}, "properties": {"a": {"$ref": "#/definitions/x\ud800"}}},
     "/properties/a/$ref", "not a valid draft-07 schema"),
    ({"$schema": D7, "definitions": {"x\ud800": {"$id": "#x"}}, "properties": {"a": {"$ref": "#x"}}},
     "/properties/a/$ref", "lone surrogate, which no URI"),
])
def test_what_has_no_faithful_translation_is_refused_with_its_place(schema, pointer, reason):
    with pytest.raises(Untranslatable) as caught:
        translate(schema)
    assert caught.value.pointer == pointer and reason in caught.value.reason


def test_deep_schemas_are_refused_before_anything_recurses():
    deep: Any = {}
    for _ in range(5000):
        deep = {"properties": {"a": deep}}
    with pytest.raises(Untranslatable, match="nests more than 128 levels"):
        translate(deep)


# -- the official test suite through the translation -----------------------------------------------------------

# Groups the translation refuses, each for a reason it names (anything else refused fails the test).
REFUSED = {
    "definitions.json": {"validate definition against metaschema"},  # a $ref to the draft's meta-schema (remote)
    "defs.json": {"validate definition against metaschema"},
    "ref.json": {"remote ref, containing refs itself"},
}


def _suite_cases():
    for path in sorted(SUITE.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for file, groups in data["files"].items():
            for index, group in enumerate(groups):
                yield pytest.param(path.stem, file, group, id=f"{path.stem}/{file}#{index}")


def _draft_of(folder: str):
    return DRAFTS[folder.removeprefix("draft")]


@pytest.mark.parametrize(("folder", "file", "group"), list(_suite_cases()))
def test_json_schema_test_suite_through_the_translation(folder, file, group):
    """Each case of the official suite (its verdicts are the draft's own) gets the same verdict from the
    translated schema, under python-jsonschema and jsonschema-rs alike."""
    try:
        translation = translate(group["schema"], _draft_of(folder))
    except Untranslatable as exc:
        assert group["description"] in REFUSED.get(Path(file).name, ()), exc
        return
    reference = ReferenceValidator(translation.schema)
    fast = jsonschema_rs.validator_for(translation.schema)
    for case in group["tests"]:
        assert reference.is_valid(case["data"]) is case["valid"], case["description"]
        assert fast.is_valid(case["data"]) is case["valid"], case["description"]


def test_the_suite_copy_says_where_it_comes_from():
    for path in SUITE.glob("*.json"):
        assert json.loads(path.read_text())["source"].startswith("github.com/json-schema-org/JSON-Schema-Test-Suite@")
    assert "Julian Berman" in (SUITE / "LICENSE").read_text()


# -- the property: same verdicts, draft-N validator on the original, 2020-12 validators on the translation --------

def _draft_validator(draft):
    """The draft's python-jsonschema validator as wirecheck configures its own: ECMA-262 patterns, and the formats
    its specification defines, each checked as wirecheck checks it."""
    cls = jsonschema.validators.extend(draft.validator, {"pattern": _ecma_pattern,
                                                         "patternProperties": _ecma_pattern_properties})
    checker = jsonschema.FormatChecker()
    checker.checkers = {k: v for k, v in FORMAT_CHECKER.checkers.items() if k in draft.formats}
    return lambda schema: cls(schema, format_checker=checker)


NAMES = st.sampled_from(["a", "b", "c"])
STRINGS = st.sampled_from(["", "a", "abc", "2024-01-31", "not a date", "user@example.com", "10.0.0.1",
                           "3fa85f64-5717-4562-b3fc-2c963f66afa6", "2024-01-31T12:00:00Z"])
NUMBERS = st.sampled_from([-2, 0, 1, 2, 3, 5, 0.5, 2.5, 5.5])  # no 1.0: draft-04 alone reads it as no integer
INSTANCES = st.recursive(
    st.none() | st.booleans() | NUMBERS | STRINGS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(NAMES, inner, max_size=3),
    max_leaves=8,
)


@st.composite
def draft_schemas(draw, draft, depth: int = 0, refs: bool = True) -> Any:
    """Small draft-N schemas built from the keywords the translation touches (and some it must drop); `$ref`s
    lead to the definition D, which has none (so no loop reads nothing)."""
    sub = draft_schemas(draft, depth + 1, refs) if depth < 2 else st.just({})
    schema: dict[str, Any] = {}
    keywords = draw(st.lists(st.sampled_from([
        "type", "items", "items-array", "additionalItems", "dependencies", "ref", "maximum", "minimum",
        "exclusive", "const", "contains", "propertyNames", "if", "prefixItems", "dependentRequired", "format",
        "properties", "required", "additionalProperties", "enum", "minLength", "unevaluatedProperties",
    ]), max_size=4, unique=True))
    for keyword in keywords:
        if keyword == "type":
            schema["type"] = draw(st.sampled_from(["integer", "number", "string", "array", "object"]))
        elif keyword == "items":
            schema["items"] = draw(sub)
        elif keyword == "items-array":
            schema["items"] = draw(st.lists(sub, min_size=1, max_size=2))
        elif keyword == "additionalItems":
            schema["additionalItems"] = draw(st.booleans() | sub)
        elif keyword == "dependencies":
            schema["dependencies"] = draw(st.dictionaries(NAMES, st.lists(NAMES, min_size=1, max_size=2,
                                                                          unique=True) | sub, max_size=2))
        elif keyword == "ref" and refs:
            schema["$ref"] = "#/definitions/D"
        elif keyword in ("maximum", "minimum"):
            schema[keyword] = draw(st.sampled_from([0, 1, 2.5, 3]))
        elif keyword == "exclusive":
            name = draw(st.sampled_from(["exclusiveMaximum", "exclusiveMinimum"]))
            bound = "maximum" if name == "exclusiveMaximum" else "minimum"
            if draft.number == 4:
                schema.setdefault(bound, 2)
                schema[name] = draw(st.booleans())
            else:
                schema[name] = draw(st.sampled_from([0, 2, 2.5]))
        elif keyword == "const":
            schema["const"] = draw(INSTANCES)
        elif keyword in ("contains", "propertyNames", "if"):
            schema[keyword] = draw(sub)
        elif keyword == "prefixItems":
            schema["prefixItems"] = draw(st.lists(sub, min_size=1, max_size=2))
        elif keyword == "dependentRequired":
            schema["dependentRequired"] = {"a": ["b"]}
        elif keyword == "format":
            schema["format"] = draw(st.sampled_from(["date", "email", "ipv4", "uuid", "date-time"]))
        elif keyword == "properties":
            schema["properties"] = draw(st.dictionaries(NAMES, sub, max_size=2))
        elif keyword == "required":
            schema["required"] = draw(st.lists(NAMES, min_size=1, max_size=2, unique=True))
        elif keyword == "additionalProperties":
            schema["additionalProperties"] = draw(st.booleans() | sub)
        elif keyword == "enum":
            schema["enum"] = draw(st.lists(INSTANCES, min_size=1, max_size=3, unique_by=json.dumps))
        elif keyword == "minLength":
            schema["minLength"] = draw(st.integers(0, 3))
        elif keyword == "unevaluatedProperties":
            schema["unevaluatedProperties"] = False
    return schema


@st.composite
def documents(draw, draft) -> dict[str, Any]:
    root = draw(draft_schemas(draft))
    root["definitions"] = {"D": draw(draft_schemas(draft, 1, refs=False))}
    root["$schema"] = draft.uri
    return root


@cache
def _validators(draft_name: str):
    return _draft_validator(DRAFTS[draft_name])


@pytest.mark.parametrize("draft_name", ["4", "6", "7"])
@settings(max_examples=150)
@given(data=st.data())
def test_translation_keeps_every_verdict(draft_name, data):
    draft = DRAFTS[draft_name]
    original = data.draw(documents(draft), label="schema")
    try:
        draft.validator.check_schema(original)
    except jsonschema.SchemaError:
        return  # drawn combinations the draft's meta-schema refuses (the translation refuses them too)
    translated = translate(original).schema
    judge = _validators(draft_name)(original)
    reference = ReferenceValidator(translated, format_checker=FORMAT_CHECKER)
    fast = jsonschema_rs.validator_for(translated, validate_formats=True)
    for instance in data.draw(st.lists(INSTANCES, min_size=5, max_size=10), label="instances"):
        expected = judge.is_valid(instance)
        assert reference.is_valid(instance) is expected, (instance, translated)
        assert fast.is_valid(instance) is expected, (instance, translated)


# -- real schemas: MCP's draft-07 revisions --------------------------------------------------------------------

@cache
def _mcp(revision: str):
    original = json.loads((MCP / revision / "schema.json").read_text(encoding="utf-8"))
    return original, translate(original)


@pytest.mark.parametrize("revision", ["2025-03-26", "2025-06-18"])
def test_mcp_draft_07_schema_translates(revision):
    original, translation = _mcp(revision)
    assert translation.draft.name == "draft-07" and translation.declared
    assert set(translation.schema["$defs"]) == set(original["definitions"])
    kinds = {r.change.split(" ")[0] for r in translation.rewrites}
    assert kinds == {"$ref", "definitions", "'http://json-schema.org/draft-07/schema#'"}
    jsonschema.Draft202012Validator.check_schema(translation.schema)


@pytest.mark.parametrize("revision", ["2025-03-26", "2025-06-18"])
def test_mcp_messages_and_mutants_get_the_same_verdict_from_both_drafts(revision):
    """Valid messages of every MCP definition, generated from the translation, and their single-constraint
    mutants: the draft-07 validator on the original agrees with both 2020-12 validators on the translation."""
    from wirecheck.fuzz.mutants import MutantFactory
    from wirecheck.fuzz.sampling import CannotGenerate, draw_examples
    from wirecheck.fuzz.schemas import SchemaSet
    from wirecheck.fuzz.strategies import EMPTY, Compiler

    original, translation = _mcp(revision)
    uri = "https://schemas.wirecheck.invalid/mcp/schema.json"
    schemas = SchemaSet({uri: {**translation.schema, "$id": uri}})
    compiler = Compiler(schemas)
    draft7 = _draft_validator(DRAFTS["7"])
    checked = 0
    for name in sorted(original["definitions"]):
        target = f"{uri}#/$defs/{name}"
        strategy = compiler.for_uri(target)
        try:
            messages = [] if strategy is EMPTY else draw_examples(strategy, 3, seed=1)
        except CannotGenerate:
            messages = []
        judge = draft7({**original, "$ref": f"#/definitions/{name}"})
        reference = schemas.ref_validator(target)
        factory = MutantFactory(schemas, target)
        for message in messages:
            for instance in [message, *(m.instance for m in factory.mutants(message)[:10])]:
                assert judge.is_valid(instance) is reference.is_valid(instance), (name, instance)
                checked += 1
    assert checked > 500


def test_a_schema_of_embedded_resources_is_crawled_once_not_once_per_ref(monkeypatch) -> None:
    """Issue 39, 5: a lookup of an embedded `$id` in an uncrawled referencing.Registry crawls the whole document
    and keeps nothing (the registry is immutable), so translating a file of embedded resources crawled it again for
    every `$ref` (a 2 MB pair of real schemas: over 300 s). 40 embedded resources, 80 `$ref`s: one crawl."""
    import referencing

    from wirecheck.contracts.drafts import DRAFTS, translate

    crawls: list[int] = []
    crawl = referencing.Registry.crawl
    monkeypatch.setattr(referencing.Registry, "crawl", lambda self: crawls.append(1) or crawl(self))
    definitions = {f"d{i}": {"$id": f"urn:example:d{i}", "type": "object",
                             "properties": {"next": {"$ref": f"urn:example:d{(i + 1) % 40}"},
                                            "self": {"$ref": "#"}}} for i in range(40)}
    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "definitions": definitions,
              "anyOf": [{"$ref": "urn:example:d0"}]}
    translated = translate(schema, DRAFTS["7"]).schema
    assert translated["$defs"]["d3"]["properties"]["next"]["$ref"] == "#/$defs/d4"
    assert translated["$defs"]["d3"]["properties"]["self"]["$ref"] == "#/$defs/d3"
    assert len(crawls) == 1
