"""Reporters: each turns a CheckResult into one output format. Registered by name for `--format`; a writer's
module is imported when it is looked up (see wirecheck.lazy)."""

from __future__ import annotations

from wirecheck.lazy import LazyWriters

FORMATS = LazyWriters({
    "text": "wirecheck.report.text",
    "json": "wirecheck.report.json_report",
    "junit": "wirecheck.report.junit",
    "markdown": "wirecheck.report.markdown",
    "sarif": "wirecheck.report.sarif",
})
