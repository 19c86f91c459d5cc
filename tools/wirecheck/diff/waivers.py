"""Waivers: reviewed, expiring exceptions for known findings, matched by fingerprint.

A waiver that matches no finding fails the run (WAIVER_STALE): it would otherwise silently hide whatever change
next gets its fingerprint. An expired waiver stops hiding its finding and fails the run (WAIVER_EXPIRED).
File format (YAML or JSON), validated by tools/wirecheck/schemas/diff-waivers.schema.json:

    waivers:
      - fingerprint: 3f2a9c0d1e4b
        reason: "the control plane reads agent types with a tolerant parser since 2026-11"
        who: alice@example.com
        expires: 2027-01-31
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from wirecheck.contracts.errors import ContractProblem, for_people, located
from wirecheck.contracts.reference import FORMAT_CHECKER, ReferenceValidator
from wirecheck.diff.catalogue import diff_rule_catalogue
from wirecheck.diff.model import DiffFinding, DiffResult
from wirecheck.diff.rules import declare
from wirecheck.findings import Severity
from wirecheck.yaml_lines import YamlFileError, read_yaml_file

declare("WAIVER_STALE", "WAIVER_EXPIRED", module=__name__)

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "schemas" / "diff-waivers.schema.json"


class WaiverFileError(Exception):
    """The waivers file cannot be read or does not match its schema (a usage error, exit 2)."""


@dataclass(frozen=True)
class Waiver:
    fingerprint: str
    reason: str
    who: str
    expires: dt.date | None
    where: str  # file#/waivers/N, for messages


def load_waivers(path: Path) -> list[Waiver]:
    try:
        data = read_yaml_file(path, what="waivers file")
    except YamlFileError as exc:
        raise WaiverFileError(str(exc)) from None
    data = _dates_as_text(data)
    schema = orjson.loads(SCHEMA_PATH.read_bytes())
    # ECMA `\\d` (ASCII digits, not `２`) and `format: date` asserted: the date must exist ("2027-02-30" does not,
    # nor year 0), whether YAML read it as a date or it was quoted as text
    validator = ReferenceValidator(schema, format_checker=FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        pointer = "/" + "/".join(str(p) for p in errors[0].absolute_path)
        hint = " (quote it: YAML reads an all-digit fingerprint as a number)" if (
            pointer.endswith("/fingerprint") and not isinstance(errors[0].instance, str)) else ""
        raise WaiverFileError(str(located([ContractProblem(str(path), pointer, for_people(errors[0]) + hint)])[0]))
    waivers = []
    for index, entry in enumerate(data.get("waivers", [])):
        expires = dt.date.fromisoformat(entry["expires"]) if entry.get("expires") else None
        waivers.append(Waiver(entry["fingerprint"], entry["reason"], entry["who"], expires,
                              f"{path}#/waivers/{index}"))
    return waivers


def _dates_as_text(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _dates_as_text(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_dates_as_text(v) for v in value]
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


def apply_waivers(results: list[DiffResult], waivers: list[Waiver], today: dt.date | None = None
                  ) -> tuple[list[DiffResult], list[DiffFinding]]:
    """Mark waived findings; return the results and the waiver findings (stale or expired)."""
    today = today or dt.date.today()
    active = {w.fingerprint: w for w in waivers if w.expires is None or w.expires >= today}
    used: set[str] = set()
    out = []
    for result in results:
        findings = []
        for finding in result.findings:
            waiver = active.get(finding.fingerprint)
            if waiver is not None:
                used.add(waiver.fingerprint)
                finding = dataclasses.replace(finding, waived=f"{waiver.reason} ({waiver.who})")
            findings.append(finding)
        out.append(dataclasses.replace(result, findings=tuple(findings)))
    problems = []
    catalogue = diff_rule_catalogue()
    for waiver in waivers:
        params = {"fingerprint": waiver.fingerprint, "reason": waiver.reason, "who": waiver.who,
                  "expires": waiver.expires.isoformat() if waiver.expires else "never"}
        if waiver.expires is not None and waiver.expires < today:
            rule = "WAIVER_EXPIRED"
        elif waiver.fingerprint not in used:
            rule = "WAIVER_STALE"
        else:
            continue
        problems.append(DiffFinding(
            rule=rule, severity=Severity.ERROR, package="", old_version="", new_version="", kind="waivers",
            surface="waivers", message=catalogue[rule].render(params), path=waiver.where,
            fingerprint=waiver.fingerprint,
        ))
    return out, problems
