"""The capacity-reset grammar (rules/navarch.py parse_capacity_reset), case by case, per release.

0.1.51 reads only the clock form; 0.1.53 tries the relative form first, then the clock form. A text without a
readable time gives the 15-minute fallback pause.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from wirecheck.check.message import Message
from wirecheck.contracts import load_registry
from wirecheck.rules.navarch import capacity_detail, parse_capacity_reset

NOW = datetime(2026, 12, 2, 18, 0, tzinfo=UTC)  # 10:00 in Los Angeles (PST, UTC-8)


def _forms(version: str) -> tuple[str, ...]:
    """The reset forms the release's catalog turns on: the table below is checked against the contract data."""
    release = load_registry().load(f"navarch-runtime@{version}")
    (use,) = [u for u in release.rules if u.id == "NAVARCH_CAPACITY_RESET"]
    return tuple(use.params["forms"])


FORMS = {"0.1.51": _forms("0.1.51"), "0.1.53": _forms("0.1.53")}


def test_catalog_forms_per_release():
    assert FORMS == {"0.1.51": ("clock",), "0.1.53": ("relative", "clock")}

# (detail, release, expected form, expected pause from NOW)
CASES = [
    # clock form: next occurrence of that local time in the named IANA zone
    ("You've hit your session limit · resets 3pm (America/Los_Angeles)", "0.1.51", "clock", timedelta(hours=5)),
    ("You've hit your session limit · resets 3pm (America/Los_Angeles)", "0.1.53", "clock", timedelta(hours=5)),
    ("usage limit reached, resets 9:30am (America/Los_Angeles)", "0.1.53", "clock", timedelta(hours=23, minutes=30)),
    ("Rate limit. Resets 12am (UTC)", "0.1.51", "clock", timedelta(hours=6)),
    ("rate limit: reset 6PM (Europe/Berlin)", "0.1.53", "clock", timedelta(hours=23)),  # 18:00 Berlin passed
    # relative form: 0.1.53 only, every unit, singular and plural, decimals, no upper bound
    ("Usage limit reached; resets in 23 days", "0.1.53", "relative", timedelta(days=23)),
    ("rate limit exceeded - resets in 1 day", "0.1.53", "relative", timedelta(days=1)),
    ("Too many requests: reset in 90 seconds", "0.1.53", "relative", timedelta(seconds=90)),
    ("session limit, resets in 1 second", "0.1.53", "relative", timedelta(seconds=1)),
    ("session limit, resets in 45 minutes", "0.1.53", "relative", timedelta(minutes=45)),
    ("session limit, resets in 1.5 hours", "0.1.53", "relative", timedelta(hours=1, minutes=30)),
    ("session limit, Resets In 2HOURS", "0.1.53", "relative", timedelta(hours=2)),
    # 0.1.51 cannot read the relative form: fallback
    ("Usage limit reached; resets in 23 days", "0.1.51", "none", timedelta(minutes=15)),
    ("session limit, resets in 45 minutes", "0.1.51", "none", timedelta(minutes=15)),
    # relative wins over clock in 0.1.53 (tried first)
    ("limit resets in 2 hours (or resets 3pm (UTC))", "0.1.53", "relative", timedelta(hours=2)),
    ("limit resets in 2 hours (or resets 3pm (UTC))", "0.1.51", "clock", timedelta(hours=21)),
    # no time at all, zero durations, unknown units and zones: fallback
    ("rate limit exceeded", "0.1.53", "none", timedelta(minutes=15)),
    ("rate limit exceeded", "0.1.51", "none", timedelta(minutes=15)),
    ("rate limit, resets in 0 minutes", "0.1.53", "none", timedelta(minutes=15)),
    ("rate limit, resets in 3 weeks", "0.1.53", "none", timedelta(minutes=15)),
    ("rate limit, resets in two hours", "0.1.53", "none", timedelta(minutes=15)),
    ("rate limit, resets 3pm (Mars/Olympus_Mons)", "0.1.53", "none", timedelta(minutes=15)),
    ("rate limit, resets 13pm (UTC)", "0.1.53", "none", timedelta(minutes=15)),
    ("rate limit, resets 3pm", "0.1.53", "none", timedelta(minutes=15)),  # clock form needs the zone
    ("rate limit, resets at 3pm (UTC)", "0.1.53", "none", timedelta(minutes=15)),  # "at" is not in the grammar
]


@pytest.mark.parametrize("detail, release, form, pause", CASES, ids=[f"{c[1]}:{c[0][:40]}" for c in CASES])
def test_reset_grammar(detail, release, form, pause):
    reset = parse_capacity_reset(detail, NOW, forms=FORMS[release])
    assert reset.form == form
    assert reset.pause(NOW) == pause


def test_grace_is_added_to_readable_resets_only():
    grace = timedelta(seconds=30)
    assert parse_capacity_reset("resets in 1 hour", NOW, grace=grace).pause(NOW) == timedelta(hours=1, seconds=30)
    assert parse_capacity_reset("no time", NOW, grace=grace).pause(NOW) == timedelta(minutes=15)


def test_clock_reset_beyond_the_search_window_is_unreadable():
    reset = parse_capacity_reset("resets 9:30am (America/Los_Angeles)", NOW, max_search=timedelta(hours=12))
    assert reset.form == "none"


def _message(value):
    return Message(value=value, file="c.ndjson", line=1)


@pytest.mark.parametrize(
    "value, expected",
    [
        ({"type": "result", "api_error_status": 429, "result": "Rate limit reached"},
         ("/result", "Rate limit reached")),
        ({"type": "result", "api_error_status": 429, "result": "overloaded"}, None),  # not a capacity text
        ({"type": "result", "result": "Rate limit reached"}, None),  # the gate needs 429
        ({"type": "error", "error": "Too many requests"}, ("/error", "Too many requests")),
        ({"type": "error", "error": {"name": "APIError", "data": {"message": "usage limit; resets in 2 hours"}}},
         ("/error/data/message", "usage limit; resets in 2 hours")),
        ({"type": "error", "error": {"message": "session limit"}}, ("/error/message", "session limit")),
        ({"type": "error", "error": {"data": {"message": "tool failed"}}}, None),
        ({"type": "text", "part": {"text": "rate limit"}}, None),  # assistant text never counts
    ],
)
def test_capacity_detail_reads_what_the_gate_and_the_monitor_read(value, expected):
    assert capacity_detail(_message(value)) == expected
