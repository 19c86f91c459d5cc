"""Loading screens every schema with jsonschema-rs and asks python-jsonschema (the reference, which words the
problems) only about the documents jsonschema-rs refuses. That is sound only while the two agree on what is valid:
a document jsonschema-rs passed but python-jsonschema refuses would load without its problem reported."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wirecheck.contracts.loader import _problems, _screened

KEYWORDS = [
    "$schema", "$id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$defs", "$comment", "$vocabulary",
    "type", "enum", "const", "properties", "patternProperties", "additionalProperties", "propertyNames",
    "required", "dependentRequired", "dependentSchemas", "items", "prefixItems", "contains", "minContains",
    "maxContains", "unevaluatedItems", "unevaluatedProperties", "allOf", "anyOf", "oneOf", "not", "if", "then",
    "else", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength",
    "pattern", "format", "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties", "title",
    "description", "default", "examples", "deprecated", "readOnly", "contentEncoding", "contentMediaType",
    "contentSchema", "definitions", "x-provenance", "a",
]
SCALARS = (st.none() | st.booleans() | st.integers(-2, 3) | st.sampled_from([0.5, 1.0, -1.5])
           | st.sampled_from(["", "a", "string", "object", "integer", "#", "#/$defs/a", "https://a.example/b",
                              "https://a.example/b#c", "1bad", "a b", "["]))


def _schemas() -> st.SearchStrategy[Any]:
    return st.recursive(
        SCALARS,
        lambda inner: (st.lists(inner, max_size=3)
                       | st.dictionaries(st.sampled_from(KEYWORDS), inner, max_size=4)
                       | st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2)),
        max_leaves=16,
    )


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_schemas())
def test_jsonschema_rs_and_python_jsonschema_agree_on_the_metaschema(document: Any) -> None:
    fast, reference = _screened("meta")
    assert fast.is_valid(document) == (not list(reference.iter_errors(document)))


def test_a_refused_schema_gets_the_reference_validators_located_messages() -> None:
    found = _problems({"properties": {"a": {"type": "strin"}}, "required": "a"}, "meta")
    assert [list(e.absolute_path) for e in found] == [["properties", "a", "type"], ["required"]]
    assert "'a' is not of type 'array'" in found[1].message
    assert _problems({"properties": {"a": {"type": "string"}}}, "meta") == []
