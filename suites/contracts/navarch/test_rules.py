"""Navarch rules on single messages: the gate signal, the reset warnings and the remediation report, per release."""

from __future__ import annotations

from wirecheck.check.message import Message
from wirecheck.contracts import load_registry
from wirecheck.findings import Severity
from wirecheck.rules.registry import instantiate

REGISTRY = load_registry()


def _rule(version: str, rule_id: str):
    release = REGISTRY.load(f"navarch-runtime@{version}")
    (use,) = [u for u in release.rules if u.id == rule_id]
    return instantiate(use, release)


def _findings(version: str, rule_id: str, value: dict):
    return list(_rule(version, rule_id).on_message(Message(value=value, file="c.ndjson", line=1)))


QODER_RATE_LIMIT = {"type": "result", "subtype": "success", "is_error": True, "error_code": 429,
                    "result": "Rate limit exceeded for your plan. Your usage limit resets in 3 hours."}


def test_gate_signal_fires_for_a_capacity_result_without_api_error_status():
    (finding,) = _findings("0.1.53", "NAVARCH_CAPACITY_GATE_SIGNAL", QODER_RATE_LIMIT)
    assert finding.code == "NAVARCH_CAPACITY_GATE_SIGNAL"
    assert finding.severity is Severity.WARNING
    assert finding.pointer == "/api_error_status"
    assert (finding.expected, finding.found) == ("429", "absent")


def test_gate_signal_is_silent_when_the_gate_can_fire_or_nothing_is_a_capacity_error():
    assert _findings("0.1.53", "NAVARCH_CAPACITY_GATE_SIGNAL", {**QODER_RATE_LIMIT, "api_error_status": 429}) == []
    assert _findings("0.1.53", "NAVARCH_CAPACITY_GATE_SIGNAL", {**QODER_RATE_LIMIT, "is_error": False}) == []
    assert _findings("0.1.53", "NAVARCH_CAPACITY_GATE_SIGNAL",
                     {"type": "result", "is_error": True, "result": "tool crashed"}) == []


def test_gate_signal_reports_a_wrong_status():
    (finding,) = _findings("0.1.51", "NAVARCH_CAPACITY_GATE_SIGNAL", {**QODER_RATE_LIMIT, "api_error_status": 529})
    assert finding.found == "529"


CLAUDE_429 = {"type": "result", "subtype": "success", "is_error": True, "api_error_status": 429}


def test_relative_reset_is_unreadable_for_0_1_51_and_read_by_0_1_53():
    value = {**CLAUDE_429, "result": "Usage limit reached; resets in 2 hours"}
    (old,) = _findings("0.1.51", "NAVARCH_CAPACITY_RESET", value)
    assert "15-minute fallback" in old.message and old.pointer == "/result"
    assert _findings("0.1.53", "NAVARCH_CAPACITY_RESET", value) == []


def test_unbounded_relative_reset_warns_in_0_1_53():
    value = {**CLAUDE_429, "result": "usage limit; resets in 23 days"}
    (finding,) = _findings("0.1.53", "NAVARCH_CAPACITY_RESET", value)
    assert "552 h" in finding.message


def test_capacity_error_without_any_reset_text_is_the_designed_fallback_not_a_finding():
    assert _findings("0.1.53", "NAVARCH_CAPACITY_RESET", {**CLAUDE_429, "result": "Rate limit reached"}) == []


def test_opencode_error_events_are_read_by_the_monitor():
    value = {"type": "error", "error": {"name": "APIError", "data": {"message": "rate limit; resets at noon"}}}
    (finding,) = _findings("0.1.53", "NAVARCH_CAPACITY_RESET", value)
    assert finding.pointer == "/error/data/message"


def test_remediation_set_grew_in_0_1_53():
    rejection = {"code": "review_fix_required"}
    (old,) = _findings("0.1.51", "NAVARCH_REJECTION_REMEDIATION", rejection)
    (new,) = _findings("0.1.53", "NAVARCH_REJECTION_REMEDIATION", rejection)
    assert old.severity is Severity.INFO and "does not remediate" in old.message
    assert "remediable" in new.message and "does not" not in new.message
    assert _findings("0.1.53", "NAVARCH_REJECTION_REMEDIATION", {"message": "no code"}) == []
