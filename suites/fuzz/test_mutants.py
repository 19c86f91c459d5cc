"""Every mutant is rejected by both validators for the labelled reason, and only for it."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings

from wirecheck.contracts.reference import reference_validator
from wirecheck.fuzz.mutants import MutantFactory, explain_rejection
from wirecheck.fuzz.sampling import draw_examples
from wirecheck.pointer import format_pointer

from .conftest import DEFS, RESOURCES, def_uri


def _all_errors(errors):
    for error in errors:
        yield error
        yield from _all_errors(error.context or ())


@pytest.mark.parametrize("name", DEFS)
def test_every_mutant_is_rejected_for_its_label(name, schemas, compiler):
    uri = def_uri(name)
    factory = MutantFactory(schemas, uri)
    fast = schemas.ref_validator(uri)
    reference = reference_validator({"$ref": uri}, RESOURCES)

    @settings(max_examples=15)
    @given(compiler.for_uri(uri))
    def check(value):
        for mutant in factory.mutants(value):
            assert not fast.is_valid(mutant.instance), mutant
            assert not reference.is_valid(mutant.instance), mutant
            errors = _all_errors(reference.iter_errors(mutant.instance))
            tree = {(e.validator, format_pointer(e.absolute_path)) for e in errors}
            assert (mutant.keyword, mutant.pointer) in tree, (mutant, tree)
            label = (mutant.keyword, mutant.pointer)
            assert explain_rejection(reference, mutant.instance, label) == [label], mutant

    check()


def test_mutants_cover_the_constraints_of_the_schema(schemas, compiler):
    """The kinds of single edits the factory knows: a regression here means a constraint went untested."""
    keywords: Counter[str] = Counter()
    for name in ("Scalars", "Formats", "Patterns", "Closed", "Arrays", "Event", "Composed", "Refusing",
                 "OpenAndPatterned"):
        uri = def_uri(name)
        factory = MutantFactory(schemas, uri)
        for value in draw_examples(compiler.for_uri(uri), 30, 1):
            keywords.update(m.keyword for m in factory.mutants(value))
    expected = {
        "required", "type", "const", "enum", "additionalProperties", "unevaluatedProperties", "pattern",
        "format", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
        "multipleOf", "minItems", "maxItems", "items", "uniqueItems", "dependentRequired", "not",
        "minProperties", "maxProperties",
    }
    assert expected <= set(keywords), expected - set(keywords)


def test_a_candidate_another_branch_accepts_is_not_a_mutant(schemas):
    # Expr is anyOf[integer, pair of Expr]: changing an integer's type to a 2-item array could be valid.
    factory = MutantFactory(schemas, def_uri("Expr"))
    for mutant in factory.mutants([1, [2, 3]]):
        assert not schemas.ref_validator(def_uri("Expr")).is_valid(mutant.instance)


def test_mutant_labels_name_keyword_and_place(schemas):
    factory = MutantFactory(schemas, def_uri("Stop"), kind="stop")
    labels = {m.label for m in factory.mutants({"type": "stop", "reason": "done"})}
    assert {"required at /", "const at /type", "enum at /reason", "additionalProperties at /"} <= labels


def test_protocol_rules_hold_in_valid_messages_and_rule_mutants_break_one(demo):
    from dataclasses import replace

    from wirecheck.findings import blocking
    from wirecheck.fuzz.rules import KindRules
    from wirecheck.fuzz.strategies import compiler_for, kind_messages

    kind = demo.kind("job")  # the demo catalog turns FIELDS_EQUAL on: /payload/id must equal /id
    rules = KindRules(demo, kind)
    assert [use.id for use in rules.uses] == ["FIELDS_EQUAL"]
    messages = draw_examples(kind_messages(demo, "job"), 20, 2)
    assert all(m.value["payload"]["id"] == m.value["id"] for m in messages)
    assert all(blocking(rules.judge(m)) == [] for m in messages)  # the engine finds nothing
    factory = MutantFactory(compiler_for(demo).schemas, kind.schema.uri, kind="job", rules=rules)
    mutants = [(m, mutant) for m in messages for mutant in factory.mutants(m.value, m)]
    rule_mutants = [mutant for _, mutant in mutants if mutant.keyword == "FIELDS_EQUAL"]
    assert rule_mutants
    for mutant in rule_mutants:
        assert mutant.pointer == "/payload/id"
        assert compiler_for(demo).schemas.ref_validator(kind.schema.uri).is_valid(mutant.instance)
        judged = rules.judge(replace(messages[0], value=mutant.instance))
        assert [f.code for f in blocking(judged)] == ["FIELDS_EQUAL"]
    # a schema mutant must not break the rule as well (that would be two constraints): the engine agrees
    for message, mutant in mutants:
        if mutant.keyword != "FIELDS_EQUAL":
            codes = {f.code for f in blocking(rules.judge(replace(message, value=mutant.instance)))}
            assert codes in ({"SCHEMA_VIOLATION"}, {"UNKNOWN_FIELD"}), (mutant, codes)


def test_a_bound_beyond_the_payload_limit_gets_no_mutant_past_it():
    """A one-past-maxLength mutant of maxLength 2^31-1 would be a 2 GB string: not built; the others still are."""
    from wirecheck.fuzz.schemas import SchemaSet

    uri = "https://x.invalid/big.json"
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": uri, "type": "object",
              "properties": {"s": {"type": "string", "maxLength": 2**31 - 1}, "a": {"maxItems": 2**31 - 1},
                             "t": {"type": "string", "maxLength": 3}}}
    factory = MutantFactory(SchemaSet({uri: schema}), uri)
    labels = {m.label for m in factory.mutants({"s": "x", "a": [1], "t": "ab"})}
    assert "maxLength at /t" in labels and not {"maxLength at /s", "maxItems at /a"} & labels


def test_max_properties_beyond_the_payload_limit_gets_no_mutant():
    from wirecheck.fuzz.schemas import SchemaSet

    uri = "https://x.invalid/props.json"
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": uri, "type": "object",
              "properties": {"big": {"type": "object", "maxProperties": 2**31 - 1},
                             "small": {"type": "object", "maxProperties": 1}}}
    labels = {m.label for m in MutantFactory(SchemaSet({uri: schema}), uri).mutants({"big": {}, "small": {}})}
    assert "maxProperties at /small" in labels and "maxProperties at /big" not in labels
