"""The diff judges each kind for its real consumer (readers.yaml), as validate does: a break only closed-model
readers see is an error where the kind's real reader is closed, and stays a warning where it is open."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from wirecheck.contracts import load_registry
from wirecheck.diff.engine import diff_releases
from wirecheck.diff.gate import finding_reason
from wirecheck.diff.model import BACKWARD, BREAKING, FORWARD, STRICT, TOLERANT
from wirecheck.diff.options import DiffOptions
from wirecheck.findings import Severity

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = load_registry(ROOT / "contracts")


@cache
def diff(old: str, new: str):
    return diff_releases(REGISTRY.load(old), REGISTRY.load(new), DiffOptions(witnesses=False))


def test_severity_protects_the_real_model_as_well_as_the_asked_ones():
    strict_only = ((FORWARD, STRICT, BREAKING),)
    options = DiffOptions()  # --consumers tolerant
    assert options.severity(strict_only) is Severity.WARNING
    assert options.severity(strict_only, ((FORWARD, STRICT),)) is Severity.ERROR
    assert options.severity(strict_only, ((BACKWARD, STRICT),)) is Severity.WARNING  # another direction
    assert options.severity(strict_only, ((FORWARD, TOLERANT),)) is Severity.WARNING


def test_a_member_added_for_a_closed_reader_is_an_error_and_fails_the_gate():
    """xopc's web client is taken as closed (its source was not read: the conservative reading)."""
    result = diff("xopc@0.0.251", "xopc@0.0.253")
    finding = next(f for f in result.findings if f.rule == "PROPERTY_ADDED_TO_CLOSED_MODEL"
                   and f.kind == "sidechat.get.response" and f.path.endswith("/suggestedAnswer"))
    assert finding.breaks(FORWARD, STRICT) and not finding.breaks(FORWARD, TOLERANT)
    assert dict(finding.readers)[FORWARD] == STRICT
    assert finding.severity is Severity.ERROR
    assert finding_reason(finding, DiffOptions(), "breaking") is not None
    assert finding.to_json()["readers"] == {"forward": "strict", "backward": "strict"}


def test_a_member_added_for_an_open_reader_stays_a_warning():
    """The Qoder SDKs read named keys only: a field added to what the CLI sends breaks nobody real."""
    result = diff("qoder-agent-sdk@1.0.21", "qoder-agent-sdk@1.0.23")
    sdk_read = {k.id for k in REGISTRY.load("qoder-agent-sdk@1.0.21").kinds if k.consumer == "sdk"}
    strict_only = [f for f in result.findings if f.kind in sdk_read and f.breaks(FORWARD, STRICT)
                   and not f.breaks(FORWARD, TOLERANT) and not f.breaks(BACKWARD)]
    assert strict_only
    for finding in strict_only:
        assert dict(finding.readers)[FORWARD] == TOLERANT
        assert finding.severity is Severity.WARNING, finding
        assert finding_reason(finding, DiffOptions(), "breaking") is None


@pytest.mark.parametrize(("old", "new"), [("xopc@0.0.251", "xopc@0.0.253")])
def test_a_kind_added_where_the_old_consumer_refuses_unknown_kinds_is_an_error(old, new):
    """The gateway answers a route it does not serve 404: a new route breaks the old gateway's clients."""
    result = diff(old, new)
    added = [f for f in result.findings if f.rule == "MESSAGE_KIND_ADDED" and f.kind.startswith("clarification.")]
    assert added and all(dict(f.readers)[FORWARD] == STRICT and f.severity is Severity.ERROR for f in added)
