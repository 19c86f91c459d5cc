"""Navarch runtime rules (texts in rules/texts/navarch.yaml): how a release reacts to what agent CLIs and the control
plane send it, where JSON Schema cannot say it.

The capacity-reset grammar is a pure function, `parse_capacity_reset`, so its table of cases is tested directly;
the rules apply it to captured messages with the forms a release understands (catalog params).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from wirecheck.check.message import Message
from wirecheck.contracts.model import ContractRelease
from wirecheck.findings import Finding, short_repr
from wirecheck.rules.registry import Needs, rule

# adapter-capacity.cjs / opencode.cjs capacityMonitor: what counts as a provider capacity error.
CAPACITY_TEXT = re.compile(r"\b(?:session|usage|rate)\s+limit\b|\btoo many requests\b", re.IGNORECASE)
# parseResetTime, 0.1.53: `resets in N(.n) seconds|minutes|hours|days` (tried first).
RELATIVE_RESET = re.compile(
    r"\bresets?\s+in\s+([0-9]+(?:\.[0-9]+)?)\s*(seconds?|minutes?|hours?|days?)\b", re.IGNORECASE
)
# parseResetTime, both releases: `resets H(:MM)am|pm (IANA zone)`.
CLOCK_RESET = re.compile(r"\bresets?\s+([0-9]{1,2})(?::([0-9]{2}))?\s*(am|pm)\s*\(([^)]+)\)", re.IGNORECASE)
MENTIONS_RESET = re.compile(r"\bresets?\b", re.IGNORECASE)
_UNIT = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}


@dataclass(frozen=True)
class CapacityReset:
    """When claims resume after a capacity stop, and which form of the reset text said so."""

    form: str  # relative | clock | none (no readable time: the fixed fallback pause)
    retry_at: datetime
    matched: str | None = None  # the text the form matched

    def pause(self, now: datetime) -> timedelta:
        return self.retry_at - now


def _clock_reset(match: re.Match[str], now: datetime, max_search: timedelta) -> datetime | None:
    hour, minute, meridiem, zone = int(match[1]), int(match[2] or 0), match[3].lower(), match[4].strip()
    if not 1 <= hour <= 12 or minute > 59:
        return None
    try:
        tz = ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        return None
    hour24 = hour % 12 + (12 if meridiem == "pm" else 0)
    local_now = now.astimezone(tz)
    for day in range(3):
        date = (local_now + timedelta(days=day)).date()
        candidate = datetime(date.year, date.month, date.day, hour24, minute, tzinfo=tz).astimezone(UTC)
        if candidate > now:
            return candidate if candidate - now <= max_search else None
    return None


def parse_capacity_reset(
    detail: str,
    now: datetime,
    *,
    forms: Sequence[str] = ("relative", "clock"),
    no_time: timedelta = timedelta(minutes=15),
    grace: timedelta = timedelta(0),
    max_search: timedelta = timedelta(hours=48),
) -> CapacityReset:
    """The claim cooldown a Navarch release derives from a capacity error's text.

    `forms` lists the reset forms the release reads, in the order it tries them (0.1.51: clock only; 0.1.53:
    relative, then clock). A relative reset has no upper bound; a clock reset is the next occurrence of that
    local time within `max_search`. With no readable time the pause is `no_time`.
    """
    for form in forms:
        if form == "relative" and (m := RELATIVE_RESET.search(detail)):
            seconds = float(m[1]) * _UNIT[m[2].lower().removesuffix("s")]
            if seconds > 0:
                return CapacityReset("relative", now + timedelta(seconds=seconds) + grace, m[0])
        elif form == "clock" and (m := CLOCK_RESET.search(detail)):
            at = _clock_reset(m, now, max_search)
            if at is None:
                break  # parseResetTime returns null once the clock form matched but does not resolve
            return CapacityReset("clock", at + grace, m[0])
    return CapacityReset("none", now + no_time)


def _string_at(value: Any, *path: str) -> str | None:
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value if isinstance(value, str) else None


def capacity_detail(message: Message, status: int = 429) -> tuple[str, str] | None:
    """(pointer, detail text) of a capacity error the release's gate accepts, else None."""
    value = message.value
    if not isinstance(value, dict):
        return None
    if value.get("type") == "result":
        detail = _string_at(value, "result") or ""
        if value.get("api_error_status") != status or not CAPACITY_TEXT.search(detail):
            return None
        return "/result", detail
    if value.get("type") in ("error", "session.error"):
        error = value.get("error", _string_at(value, "properties") and value["properties"].get("error"))
        for pointer, text in (
            ("/error", error if isinstance(error, str) else None),
            ("/error/data/message", _string_at(error, "data", "message")),
            ("/error/message", _string_at(error, "message")),
        ):
            if text is not None:
                return (pointer, text) if CAPACITY_TEXT.search(text) else None
    return None


# Both capacity rules speak only about a message whose text reads as a provider's capacity error (CAPACITY_TEXT).
_CAPACITY_BY_CHANCE = Needs(by_chance="they judge only text that reads as a provider's usage or rate limit "
                                      "(CAPACITY_TEXT), which generated text almost never is")


@rule("NAVARCH_CAPACITY_RESET", needs=_CAPACITY_BY_CHANCE)
class CapacityResetRule:
    """params: forms (reset forms the release reads, in order), no_time_minutes, max_search_minutes,
    warn_above_hours (optional: warn when a relative reset pauses claims longer)."""

    def __init__(self, params: Mapping[str, Any], release: ContractRelease):
        self._release = release.name
        self._forms = tuple(params.get("forms", ("clock",)))
        self._no_time = timedelta(minutes=params.get("no_time_minutes", 15))
        self._max_search = timedelta(minutes=params.get("max_search_minutes", 48 * 60))
        limit = params.get("warn_above_hours")
        self._warn_above = timedelta(hours=limit) if limit is not None else None

    def on_message(self, message: Message) -> Iterable[Finding]:
        found = capacity_detail(message)
        if found is None:
            return
        pointer, detail = found
        now = datetime.now(UTC)
        reset = parse_capacity_reset(
            detail, now, forms=self._forms, no_time=self._no_time, max_search=self._max_search
        )
        if reset.form == "none" and MENTIONS_RESET.search(detail):
            yield message.finding(
                "NAVARCH_CAPACITY_RESET",
                f"{self._release} cannot read the reset time in this capacity error, so it pauses claims for "
                f"the {int(self._no_time.total_seconds() // 60)}-minute fallback and claims again before the "
                f"provider's limit resets (it reads: {', '.join(self._forms)})",
                pointer=pointer,
                expected=" or ".join(self._forms) + " reset form",
                found=short_repr(detail),
            )
        elif reset.form == "relative" and self._warn_above is not None and reset.pause(now) > self._warn_above:
            hours = reset.pause(now).total_seconds() / 3600
            yield message.finding(
                "NAVARCH_CAPACITY_RESET",
                f"{self._release} pauses claims on this machine for {hours:g} h ({reset.matched!r}): "
                "relative resets have no upper bound",
                pointer=pointer,
                expected=f"a pause of at most {self._warn_above.total_seconds() / 3600:g} h",
                found=short_repr(reset.matched),
            )

    def finish(self) -> Iterable[Finding]:
        return ()


@rule("NAVARCH_CAPACITY_GATE_SIGNAL", needs=_CAPACITY_BY_CHANCE)
class CapacityGateSignalRule:
    """params: status (the api_error_status the gate requires, 429)."""

    def __init__(self, params: Mapping[str, Any], release: ContractRelease):
        self._release = release.name
        self._status = params.get("status", 429)

    def on_message(self, message: Message) -> Iterable[Finding]:
        value = message.value
        if not isinstance(value, dict) or value.get("type") != "result" or value.get("is_error") is not True:
            return
        detail = _string_at(value, "result") or ""
        if not CAPACITY_TEXT.search(detail) or value.get("api_error_status") == self._status:
            return
        yield message.finding(
            "NAVARCH_CAPACITY_GATE_SIGNAL",
            f"this result reports a provider capacity error, but {self._release}'s capacity gate reads only "
            f"api_error_status {self._status}: no claim cooldown is set and the machine keeps claiming "
            "(a Qoder print-mode result has no api_error_status at all)",
            pointer="/api_error_status",
            expected=str(self._status),
            found=short_repr(value["api_error_status"]) if "api_error_status" in value else "absent",
        )

    def finish(self) -> Iterable[Finding]:
        return ()


@rule("NAVARCH_REJECTION_REMEDIATION", needs=Needs(
    note="it tells what the release does with a rejection code (remediate or end): a note on any valid message"))
class RejectionRemediationRule:
    """params: codes (the release's REMEDIABLE_REJECTION_CODES)."""

    def __init__(self, params: Mapping[str, Any], release: ContractRelease):
        self._release = release.name
        self._codes = frozenset(params.get("codes", ()))

    def on_message(self, message: Message) -> Iterable[Finding]:
        code = message.value.get("code") if isinstance(message.value, dict) else None
        if not isinstance(code, str):
            return
        if code in self._codes:
            text = (
                f"{self._release} treats rejection {code!r} as remediable: "
                "it runs another agent turn in the same worktree"
            )
        else:
            text = f"{self._release} does not remediate rejection {code!r}: the session ends rejected"
        yield message.finding(
            "NAVARCH_REJECTION_REMEDIATION",
            text,
            pointer="/code",
            expected=", ".join(sorted(self._codes)),
            found=short_repr(code),
        )

    def finish(self) -> Iterable[Finding]:
        return ()
