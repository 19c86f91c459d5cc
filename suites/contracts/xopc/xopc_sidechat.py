"""Side chat and clarification fixture cases (xopc 0.0.251 and 0.0.253)."""

from __future__ import annotations

from xopc_fixtures import Case


def cases_0_0_251() -> list[Case]:
    return []


def sidechat_cases_0_0_253() -> list[Case]:
    return []
