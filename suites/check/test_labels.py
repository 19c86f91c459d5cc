"""check/labels.py: whether the engine's findings on a mutant are its label's, and only its label's."""

from __future__ import annotations

import pytest

from wirecheck.check.labels import Label, as_found, keyword_of, matches, refused_for
from wirecheck.findings import Finding, Severity

SCHEMA = "https://contracts.wirecheck.invalid/demo/1.0.0/messages.json"


def finding(code: str, pointer: str | None, location: str | None = None,
            severity: Severity = Severity.ERROR) -> Finding:
    return Finding(code, severity, "m", "corpus.jsonl", 1, pointer=pointer,
                   schema_location=None if location is None else f"{SCHEMA}#{location}")


@pytest.mark.parametrize(("location", "keyword"), [
    ("/$defs/Hello/properties/name/maxLength", "maxLength"),
    ("/$defs/Hello/required", "required"),
    # a property (or definition) named like a keyword is a name, not the keyword
    ("/properties/type/properties/maxLength/type", "type"),
    ("/$defs/required/anyOf/1/properties/enum/const", "const"),
    ("/properties/x/items", "items"),  # items: false, refusing an item
    ("/properties/o/additionalProperties", "additionalProperties"),
    ("/dependentRequired/0", "dependentRequired"),  # jsonschema-rs names the dependency after the keyword
    ("/properties/a/not", "not"),
    ("/properties/tags/prefixItems/0/enum", "enum"),
    ("", None),
])
def test_the_keyword_a_schema_location_ends_at(location, keyword):
    assert keyword_of(f"{SCHEMA}#{location}") == keyword


def test_no_location_has_no_keyword():
    assert keyword_of(None) is None and keyword_of(SCHEMA) is None and keyword_of(f"{SCHEMA}#nope") is None


def test_a_schema_label_is_its_keyword_at_its_place():
    label = Label("maxLength", "/name")
    assert matches(finding("SCHEMA_VIOLATION", "/name", "/$defs/Hello/properties/name/maxLength"), label)
    # the same keyword elsewhere, another keyword at the same place, and the parent or a child: other constraints
    assert not matches(finding("SCHEMA_VIOLATION", "/other", "/properties/other/maxLength"), label)
    assert not matches(finding("SCHEMA_VIOLATION", "/name", "/properties/name/pattern"), label)
    assert not matches(finding("SCHEMA_VIOLATION", "", "/properties/maxLength"), Label("maxLength", ""))
    parent = Label("required", "")
    assert not matches(finding("SCHEMA_VIOLATION", "/name", "/properties/name/required"), parent)
    assert not matches(finding("SCHEMA_VIOLATION", "/a/b", "/properties/a/properties/b/type"), Label("type", "/a"))
    assert not matches(finding("SCHEMA_VIOLATION", "/a", "/properties/a/type"), Label("type", "/a/b"))
    # a consumer's contract refusing the same keyword at the same place is the same constraint; elsewhere it is not
    assert matches(finding("CROSS_CONTRACT_VIOLATION", "/name", "/properties/name/maxLength"), label)
    assert not matches(finding("CROSS_CONTRACT_VIOLATION", "/name", "/properties/name/pattern"), label)
    assert not matches(finding("CROSS_CONTRACT_VIOLATION", "/name"), label)  # an argv the consumer cannot decode
    # only the schemas of the message carry a schema keyword (a header's schema is not the body's)
    assert not matches(finding("HEADER_VIOLATION", "/name", "/properties/name/maxLength"), label)
    # a schema finding without a location cannot be shown to be the label's
    assert not matches(finding("SCHEMA_VIOLATION", "/name"), label)


@pytest.mark.parametrize("keyword", ["additionalProperties", "unevaluatedProperties", "items", "unevaluatedItems"])
def test_a_closing_keyword_is_found_at_what_it_refuses_one_level_below(keyword):
    label = Label(keyword, "/o")
    assert matches(finding("UNKNOWN_FIELD", "/o/wirecheckUnknownField", f"/properties/o/{keyword}"), label)
    assert matches(finding("SCHEMA_VIOLATION", "/o", f"/properties/o/{keyword}"), label)
    assert not matches(finding("UNKNOWN_FIELD", "/o/a/b", f"/properties/o/{keyword}"), label)  # two levels
    assert not matches(finding("UNKNOWN_FIELD", "/p/x", f"/properties/p/{keyword}"), label)  # another object
    assert not matches(finding("UNKNOWN_FIELD", "/x", f"/{keyword}"), Label(keyword, "/o"))  # the parent's
    # only closing keywords move: a `type` at a member is not the object's
    assert not matches(finding("SCHEMA_VIOLATION", "/o/x", "/properties/o/properties/x/type"), Label("type", "/o"))


def test_a_rule_label_is_that_rule_at_its_place():
    label = Label("FIELDS_EQUAL", "/b")
    assert matches(finding("FIELDS_EQUAL", "/b"), label)
    assert not matches(finding("FIELDS_EQUAL", "/c"), label)  # the same rule turned on for another pair
    assert not matches(finding("QODER_PROTOCOL_MAJOR", "/b"), label)
    # a rule finding with no pointer is about the whole message
    assert matches(finding("XOPC_CLIENT_INSTANCE_ID", None), Label("XOPC_CLIENT_INSTANCE_ID", ""))
    assert not matches(finding("XOPC_CLIENT_INSTANCE_ID", None), Label("XOPC_CLIENT_INSTANCE_ID", "/x"))


def test_refused_for_the_label_alone():
    label = Label("type", "/a")
    own = finding("SCHEMA_VIOLATION", "/a", "/properties/a/type")
    accident = finding("SCHEMA_VIOLATION", "", "/required")
    note = finding("SOME_NOTE", "/z", severity=Severity.INFO)
    assert refused_for([own], label) and refused_for([own, note], label)
    assert refused_for([own, own], label)  # one constraint may be said twice (both validators' views)
    assert not refused_for([own, accident], label)
    assert not refused_for([accident], label)
    assert not refused_for([], label) and not refused_for([note], label)
    assert refused_for([finding("UNKNOWN_FIELD", "/a/k", "/properties/a/additionalProperties",
                                Severity.WARNING)], Label("additionalProperties", "/a"))


@pytest.mark.parametrize(("breaks", "label"), [
    ({"keyword": "type", "pointer": "/a", "description": "d"}, Label("type", "/a")),
    ({"keyword": "required", "pointer": ""}, Label("required", "")),
    (None, None), ([], None), ({"keyword": "type"}, None), ({"pointer": "/a"}, None),
    ({"keyword": "", "pointer": "/a"}, None), ({"keyword": "type", "pointer": 3}, None),
    ({"keyword": "type", "pointer": "a"}, None),  # not a JSON pointer
])
def test_a_label_is_read_from_breaks(breaks, label):
    assert Label.of(breaks) == label


def test_labels_and_findings_are_said_alike():
    assert str(Label("required", "")) == "required at /" and str(Label("type", "/a")) == "type at /a"
    assert as_found(finding("SCHEMA_VIOLATION", "", "/required")) == "SCHEMA_VIOLATION (required at /)"
    assert as_found(finding("FIELDS_EQUAL", "/b")) == "FIELDS_EQUAL at /b"
    assert as_found(finding("CROSS_CONTRACT_VIOLATION", None)) == "CROSS_CONTRACT_VIOLATION at /"
