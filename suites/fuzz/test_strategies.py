"""Every generated value is valid (both validators), and generation reaches every part of the schema."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wirecheck.contracts.reference import reference_validator
from wirecheck.fuzz import regex
from wirecheck.fuzz.sampling import draw_examples
from wirecheck.fuzz.schemas import SchemaSet
from wirecheck.fuzz.strategies import Compiler, Unmergeable, merge

from .conftest import DEFS, RESOURCES, def_uri


@pytest.mark.parametrize("name", DEFS)
def test_every_generated_value_passes_both_validators(name, schemas, compiler):
    uri = def_uri(name)
    fast = schemas.ref_validator(uri)
    reference = reference_validator({"$ref": uri}, RESOURCES)

    @settings(max_examples=40)
    @given(compiler.for_uri(uri))
    def check(value):
        assert fast.is_valid(value)
        errors = [e.message for e in reference.iter_errors(value)]
        assert not errors, (value, errors)

    check()


def _sample(compiler, name, count=200, seed=0):
    return draw_examples(compiler.for_uri(def_uri(name)), count, seed)


def test_the_sample_is_reproducible(compiler):
    assert _sample(compiler, "Event", 50, seed=4) == _sample(compiler, "Event", 50, seed=4)
    assert _sample(compiler, "Event", 50, seed=4) != _sample(compiler, "Event", 50, seed=5)


def test_const_discriminated_union_reaches_every_branch(compiler):
    kinds = Counter(value["type"] for value in _sample(compiler, "Event"))
    assert set(kinds) == {"start", "stop", "tree"}


def test_recursion_is_bounded_but_goes_deeper_than_one_level(compiler):
    def depth(node):
        return 1 + max((depth(child) for child in node.get("children", [])), default=0)

    depths = [depth(value) for value in _sample(compiler, "Node", 300)]
    assert max(depths) >= 2
    assert max(depths) <= 2 + 3 + 1  # max_recursion + hard limit


def test_optional_keys_closed_objects_and_dependent_required(compiler):
    values = _sample(compiler, "Closed")
    assert any("a" in v for v in values) and any("a" not in v for v in values)
    assert all("b" in v for v in values if "a" in v)
    assert all(set(v) <= {"a", "b", "c"} for v in values)


def test_prefix_items_and_unique_items(compiler):
    values = _sample(compiler, "Arrays")
    assert any(len(v["tuple"]) == 2 for v in values)
    assert all(isinstance(v["tuple"][0], str) for v in values)
    assert any(len(v["set"]) >= 2 for v in values)


def test_pattern_properties_and_additional_property_schema(compiler):
    values = _sample(compiler, "OpenAndPatterned")
    keys = {k for v in values for k in v if k != "name"}
    assert any(regex.matches("^x-[a-z]+$", k) for k in keys)
    assert any(not k.startswith("x-") for k in keys)


def test_formats_are_the_forms_producers_send(compiler):
    for value in _sample(compiler, "Formats", 100):
        assert value["at"].endswith("Z")
        assert len(value["id"]) == 36


def test_unanchored_and_named_group_patterns(compiler):
    values = _sample(compiler, "Patterns", 200)
    assert any("unanchored" in v for v in values)
    assert all(regex.matches(r"^(?<major>0|[1-9]\d*)-[a-z]+$", v["named"]) for v in values)


def test_digits_are_ascii_as_in_ecma(compiler):
    # Python's \d matches any Unicode digit; an ECMA validator rejects "١". re.ASCII keeps them out.
    for value in _sample(compiler, "Patterns", 300):
        assert value["digits"].replace(".", "").isascii()


def test_conditional_and_not_are_honoured(compiler):
    values = _sample(compiler, "Conditional")
    assert {v["mode"] for v in values} == {"file", "url"}
    assert all(v.get("path") is not None for v in values if v["mode"] == "file")
    assert all(v not in ("admin", "root") for v in _sample(compiler, "Negated"))


def test_unsatisfiable_schema_compiles_to_nothing():
    resources = {
        "https://x.invalid/a.json": {
            "$id": "https://x.invalid/a.json",
            "$defs": {
                "Loop": {"type": "object", "required": ["next"], "properties": {"next": {"$ref": "#/$defs/Loop"}}},
            },
        }
    }
    compiler = Compiler(SchemaSet(resources))
    assert compiler.for_uri("https://x.invalid/a.json#/$defs/Loop").is_empty


def test_merge_intersects_and_refuses_contradictions():
    merged = merge(
        {"type": ["string", "integer"], "required": ["a"], "minLength": 2},
        {"type": "integer", "required": ["b"], "minLength": 4},
    )
    assert merged == {"type": ["integer"], "required": ["a", "b"], "minLength": 4}
    with pytest.raises(Unmergeable):
        merge({"const": 1}, {"const": 2})
    with pytest.raises(Unmergeable):
        merge({"type": "string"}, {"type": "object"})


def test_the_input_schemas_are_not_modified():
    import copy

    before = copy.deepcopy(RESOURCES)
    Compiler(SchemaSet(RESOURCES)).for_uri(def_uri("CrossFile"))
    assert before == RESOURCES


@given(st.data())
def test_regex_strings_match_under_ecma_semantics(data):
    pattern = data.draw(st.sampled_from([r"^[a-z]+\d$", r"^\w{2,3}$", r"x|y", r"^(?<n>\d)\.\d$"]))
    assert regex.matches(pattern, data.draw(regex.strings_matching(pattern)))


def test_numeric_formats_stay_in_the_range_a_consumer_decodes(compiler):
    for value in _sample(compiler, "NumericFormats", 200):
        assert 0 <= value["u"] < 2**32
        assert -5 <= value["i"] < 2**7
        assert value.get("n") is None or 0 <= value["n"] < 2**16


# JSON Schema 2020-12, Validation §7.3 (json-schema.org/draft/2020-12/json-schema-validation#section-7.3): every
# format the vocabulary defines. jsonschema-rs asserts each (validate_formats=True); python-jsonschema each whose
# checking library is installed.
SPEC_FORMATS = ("date-time", "date", "time", "duration", "email", "idn-email", "hostname", "idn-hostname", "ipv4",
                "ipv6", "uri", "uri-reference", "iri", "iri-reference", "uuid", "uri-template", "json-pointer",
                "relative-json-pointer", "regex")


def test_every_format_the_validators_assert_has_a_strategy():
    """Issue 41, 11: `format: idn-email` was drawn as random text, which the validators refuse: `fuzz` said "no
    message could be generated". Every format either validator can assert has a strategy of its own."""
    import jsonschema

    from wirecheck.contracts.formats import URL_FORMATS, fast_validator
    from wirecheck.contracts.reference import FORMAT_CHECKER
    from wirecheck.fuzz.formats import FORMATS

    assert set(jsonschema.Draft202012Validator.FORMAT_CHECKER.checkers) <= set(SPEC_FORMATS)
    assert set(FORMAT_CHECKER.checkers) <= {*SPEC_FORMATS, *URL_FORMATS}
    for fmt in SPEC_FORMATS:  # jsonschema-rs asserts it: a string of no format's form is refused
        assert not fast_validator({"format": fmt}).is_valid("(\x01 not ::{"), fmt
    assert set(FORMATS) == {*SPEC_FORMATS, *URL_FORMATS}


def _format_sample(fmt: str, count: int) -> tuple[list, object, object]:
    uri = "https://contracts.wirecheck.invalid/formats/1.0.0/s.json"
    resources = {uri: {"$id": uri, "$defs": {"F": {"type": "object", "required": ["v"], "additionalProperties": False,
                                                   "properties": {"v": {"type": "string", "format": fmt}}}}}}
    compiler = Compiler(SchemaSet(resources))
    strategy = compiler.for_uri(f"{uri}#/$defs/F")
    return draw_examples(strategy, count, 3), SchemaSet(resources).ref_validator(f"{uri}#/$defs/F"), \
        reference_validator({"$ref": f"{uri}#/$defs/F"}, resources)


@pytest.mark.parametrize("fmt", [*SPEC_FORMATS, "whatwg-url", "zod-url"])
def test_every_format_is_drawn_in_its_own_form_and_both_validators_accept_each_value(fmt):
    values, fast, reference = _format_sample(fmt, 60)
    assert len(values) == 60, values  # none lost to the validators' filter (random text was, nearly all)
    assert len({v["v"] for v in values}) >= 5, values  # drawn, not one value filtered through
    for value in values:
        assert fast.is_valid(value), value
        assert not list(reference.iter_errors(value)), value
