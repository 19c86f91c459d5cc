"""Reporters: each turns a CheckResult into one output format. Registered by name for `--format`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from wirecheck.check.engine import CheckResult
from wirecheck.report import json_report, junit, markdown, text

Writer = Callable[[CheckResult, TextIO], None]

FORMATS: dict[str, Writer] = {
    "text": text.write,
    "json": json_report.write,
    "junit": junit.write,
    "markdown": markdown.write,
}
