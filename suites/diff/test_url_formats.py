"""A format change is a change of the accepted set: `uri` → `whatwg-url` (or `zod-url`) breaks both directions,
each shown by a URL edge case one reader accepts and the other refuses, re-checked here with python-jsonschema;
two WHATWG readers that differ only in zod's trim() differ both ways too. No direction is ever called safe."""

from __future__ import annotations

import pytest

from wirecheck.contracts.formats import WHATWG_URL, ZOD_URL, is_whatwg_url, is_zod_url
from wirecheck.contracts.reference import reference_validator
from wirecheck.diff import diff_schemas

DIALECT = "https://json-schema.org/draft/2020-12/schema"
BOTH = ["backward/strict", "backward/tolerant", "forward/strict", "forward/tolerant"]


def _schema(fmt: str | None) -> dict:
    field = {"type": "string"} if fmt is None else {"type": "string", "format": fmt}
    return {"$schema": DIALECT, "type": "object", "properties": {"u": field}, "required": ["u"]}


def _finding(before: str | None, after: str | None):
    findings = diff_schemas(_schema(before), _schema(after)).findings
    assert len(findings) == 1, [f.rule for f in findings]
    return findings[0]


def _verdicts(finding, which):
    return sorted(f"{d}/{m}" for d, m, v in finding.verdicts if v == which)


@pytest.mark.parametrize(("before", "after"), [("uri", WHATWG_URL), ("uri", ZOD_URL), (WHATWG_URL, "uri"),
                                               (WHATWG_URL, ZOD_URL), (ZOD_URL, WHATWG_URL)])
def test_a_change_between_url_formats_breaks_both_ways_with_witnesses(before, after):
    finding = _finding(before, after)
    assert finding.rule == "FORMAT_CHANGED" and finding.path == "/u"
    assert _verdicts(finding, "breaking") == BOTH
    assert {f"{w.direction}/{w.view}" for w in finding.witnesses} == set(BOTH)
    for witness in finding.witnesses:
        writer, reader = (after, before) if witness.direction == "forward" else (before, after)
        assert reference_validator(_schema(writer), {}).is_valid(witness.payload)
        assert not reference_validator(_schema(reader), {}).is_valid(witness.payload)


def test_the_witnesses_are_the_urls_the_issue_names():
    """uri → zod-url: a new producer's URL an RFC 3986 reader refuses, an old producer's URI zod refuses."""
    finding = _finding("uri", ZOD_URL)
    forward = {w.payload["u"] for w in finding.witnesses if w.direction == "forward"}
    backward = {w.payload["u"] for w in finding.witnesses if w.direction == "backward"}
    assert forward and all(is_zod_url(u) for u in forward)
    assert backward and not any(is_zod_url(u) for u in backward)


def test_whatwg_and_zod_differ_by_trim_both_ways():
    assert is_zod_url("\u00a0https://a.test/") and not is_whatwg_url("\u00a0https://a.test/")
    assert is_whatwg_url("a://@\u3000") and not is_zod_url("a://@\u3000")


@pytest.mark.parametrize(("before", "after", "rule", "breaks"), [
    (None, ZOD_URL, "FORMAT_ADDED", ["backward/strict", "backward/tolerant"]),
    (WHATWG_URL, None, "FORMAT_REMOVED", ["forward/strict", "forward/tolerant"]),
])
def test_adding_and_removing_a_url_format(before, after, rule, breaks):
    finding = _finding(before, after)
    assert finding.rule == rule and _verdicts(finding, "breaking") == breaks


def test_the_same_url_format_is_no_change():
    assert diff_schemas(_schema(ZOD_URL), _schema(ZOD_URL)).findings == ()


def test_a_field_of_a_url_format_gets_a_valid_example():
    """The minimal payload of a kind with a zod-url field is valid, so other changes beside it get witnesses."""
    before = _schema(ZOD_URL)
    after = {**before, "properties": {**before["properties"], "n": {"type": "integer"}}, "required": ["u", "n"]}
    finding = next(f for f in diff_schemas(before, after).findings if f.path == "/n")
    assert finding.witnesses and all(is_zod_url(w.payload["u"]) for w in finding.witnesses)
