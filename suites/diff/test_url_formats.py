"""A format change is a change of the accepted set: `uri` → `whatwg-url` (or `zod-url`) breaks both directions,
each shown by a URL edge case one reader accepts and the other refuses, re-checked here with python-jsonschema;
two WHATWG readers that differ only in zod's trim() differ both ways too. No direction is ever called safe."""

from __future__ import annotations

from pathlib import Path

import pytest

from wirecheck.contracts import load_registry
from wirecheck.contracts.formats import (
    WHATWG_URL,
    ZOD_URL,
    ZOD_URL_SINCE_3_25_0,
    ZOD_URL_SINCE_3_25_76,
    is_whatwg_url,
    is_zod_url,
)
from wirecheck.contracts.reference import reference_validator
from wirecheck.diff import diff_schemas
from wirecheck.diff.engine import diff_releases

ROOT = Path(__file__).resolve().parents[2]

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


def test_a_zod_range_whose_floor_rises_breaks_forward_only():
    """zod-url-since-3.25.0 → -3.25.76 (ACP 1.9.0 → 2.0.0: the SDK's zod floor rose): the new range accepts every
    URL the old one does, and more (an IPv6 host, no host), which a reader on zod 3.25.0-3.25.28 refuses."""
    finding = _finding(ZOD_URL_SINCE_3_25_0, ZOD_URL_SINCE_3_25_76)
    assert finding.rule == "FORMAT_CHANGED"
    assert _verdicts(finding, "breaking") == ["forward/strict", "forward/tolerant"]
    assert {w.direction for w in finding.witnesses} == {"forward"}
    for witness in finding.witnesses:
        assert reference_validator(_schema(ZOD_URL_SINCE_3_25_76), {}).is_valid(witness.payload)
        assert not reference_validator(_schema(ZOD_URL_SINCE_3_25_0), {}).is_valid(witness.payload)


def test_the_bundled_acp_releases_differ_in_the_elicitation_url_only_where_the_zod_range_did():
    """The import profile's zod formats move no other verdict: 0.23.0 → 1.9.0 share a range (no format finding);
    1.9.0 → 2.4.0 has one, on elicitation/create's url, breaking forward with a witness."""
    registry = load_registry(ROOT / "contracts")

    def format_findings(old, new):
        result = diff_releases(registry.load(f"acp@{old}"), registry.load(f"acp@{new}"))
        return [f for f in result.findings if f.rule.startswith("FORMAT_")]

    assert format_findings("0.23.0", "1.9.0") == []
    (finding,) = format_findings("1.9.0", "2.4.0")
    assert (finding.kind, finding.path) == ("client.elicitation.create", "/params/url")
    assert _verdicts(finding, "breaking") == ["forward/strict", "forward/tolerant"] and finding.witnesses
