"""JSON report; its format is published as tools/wirecheck/schemas/report.schema.json (validated in tests)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, TextIO

from wirecheck import __version__
from wirecheck.check.engine import CheckResult
from wirecheck.json_types import json_text
from wirecheck.report.summary import totals

REPORT_FORMAT = "wirecheck-conformance/1"


def to_json(result: CheckResult) -> dict[str, Any]:
    return {
        "format": REPORT_FORMAT,
        "wirecheck": __version__,
        "contract": {"package": result.release.package, "version": result.release.version},
        "captures": [{"file": c.file, "form": c.form, "messages": c.messages}
                     | ({"unreadable": c.unreadable} if c.unreadable is not None else {}) for c in result.captures],
        "summary": asdict(totals(result)),
        "coverage": [
            {"kind": k, "title": c.kind.title, "seen": c.seen, "errors": c.errors, "warnings": c.warnings}
            for k, c in result.coverage.items()
        ],
        "findings": [f.to_json() for f in result.findings],
    }


def write(result: CheckResult, out: TextIO) -> None:
    out.write(json_text(to_json(result), indent=True) + "\n")
