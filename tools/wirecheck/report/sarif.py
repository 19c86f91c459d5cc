"""SARIF 2.1.0 for code scanning: each finding an annotation on the capture file and line it is about (the GitHub
Action uploads it). A finding without a line (a HAR entry, a whole document) points at the file, its place given as a
logical location (the JSON pointer)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TextIO

from wirecheck import __version__
from wirecheck.check.engine import CheckResult
from wirecheck.encoding import file_uri
from wirecheck.findings import Finding
from wirecheck.json_types import json_bytes
from wirecheck.rules.catalogue import rule_catalogue

_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def to_sarif(result: CheckResult) -> dict[str, Any]:
    catalogue = rule_catalogue()
    used = sorted({f.code for f in result.findings})
    rules = [{"id": code, "shortDescription": {"text": catalogue[code].purpose},
              "fullDescription": {"text": catalogue[code].rationale},
              "defaultConfiguration": {"level": _LEVEL[catalogue[code].level.value]}}
             if code in catalogue else {"id": code} for code in used]
    results = [finding_result(f, f.code, used.index(f.code), result.release.name) for f in result.findings]
    return sarif_log(rules, results)


def finding_result(f: Finding, rule_id: str, rule_index: int, release: str) -> dict[str, Any]:
    """One SARIF result: the finding at its capture file and line (its JSON pointer as a logical location)."""
    text = f"{release} {f.kind or ''} {f.pointer or ''}".replace("  ", " ") + f": {f.message}"
    physical: dict[str, Any] = {"artifactLocation": {"uri": file_uri(f.file, Path.cwd())}}
    if f.line:
        physical["region"] = {"startLine": f.line}
    location: dict[str, Any] = {"physicalLocation": physical}
    if f.where or f.pointer:
        location["logicalLocations"] = [{"fullyQualifiedName": f"{f.where or ''}{f.pointer or ''}"}]
    return {"ruleId": rule_id, "ruleIndex": rule_index, "level": _LEVEL[f.severity.value], "message": {"text": text},
            "locations": [location]}


def sarif_log(rules: list[dict[str, Any]], results: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "wirecheck", "version": __version__,
                                      "informationUri": "https://wirecheck.invalid/", "rules": rules}},
                  "results": results}],
    }


def write(result: CheckResult, out: TextIO) -> None:
    out.write(json_bytes(to_sarif(result), indent=True).decode() + "\n")
