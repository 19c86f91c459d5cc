"""JSONL: a header (identity), one record per requirement, a footer (verdict, scores, badge, coverage; the ids that
failed the run, those not exercised, those out of scope, each list apart).

Format version 2 added the verdict `incomplete` (exit 4), the statuses `out_of_scope` and `stale_scope`, each
record's `scope` and the footer's `not_exercised` and `out_of_scope` lists. Version 3 added each record's `warnings`
(what a passing requirement passed over: the reading side tolerates them) and `warnings_total`.

Every line validates against tools/wirecheck/schemas/certification.schema.json (tested)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TextIO

from wirecheck.certify.evaluate import Certification, RequirementResult
from wirecheck.json_types import json_text

FORMAT, FORMAT_VERSION = "wirecheck-certification", 3
MAX_FINDINGS = 50


def requirement_record(r: RequirementResult) -> dict[str, Any]:
    record: dict[str, Any] = {
        "record": "requirement",
        "id": r.requirement.id,
        "level": r.requirement.level,
        "subject": r.requirement.subject,
        "text": r.requirement.text,
        "checks": r.requirement.link.as_json(),
        "exercise": "optional" if r.requirement.optional else "required",
        "status": r.status,
        "exercised": r.exercised,
        "findings": [f.to_json() for f in r.failures[:MAX_FINDINGS]],
        "findings_total": len(r.failures),
        "notes_total": len(r.notes),
        "warnings": [f.to_json() for f in r.warnings[:MAX_FINDINGS]],
        "warnings_total": len(r.warnings),
    }
    if r.baseline_reason is not None:
        record["baseline_reason"] = r.baseline_reason
    if r.scope is not None:
        record["scope"] = {"reason": r.scope.reason, "evidence": r.scope.evidence}
    return record


def records(cert: Certification) -> Iterator[dict[str, Any]]:
    yield {"record": "header", "format": FORMAT, "format_version": FORMAT_VERSION, "contract": cert.contract,
           "role": cert.role, "fail_on": cert.fail_on, "identity": cert.identity}
    for result in cert.results:
        yield requirement_record(result)
    badge = cert.badge
    yield {
        "record": "footer",
        "verdict": cert.verdict,
        "passed": cert.passed,
        "exit_code": cert.exit_code,
        "gate": cert.gate_line,
        "badge": {"label": badge.label, "message": badge.message, "color": badge.color},
        "scores": [s.as_json() for s in cert.scores],
        "blocking": [r.requirement.id for r in cert.blocking()],
        "not_exercised": [r.requirement.id for r in cert.unexercised()],
        "out_of_scope": [r.requirement.id for r in cert.out_of_scope()],
        "coverage": [{"kind": k, "producer": c.kind.producer, "seen": c.seen, "errors": c.errors,
                      "warnings": c.warnings} for k, c in cert.coverage.items()],
        "messages": cert.messages,
        "unmapped_findings": [f.to_json() for f in cert.unmapped[:MAX_FINDINGS]],
        "unmapped_total": len(cert.unmapped),
        "run": cert.run,
        **({"program_said": cert.program_words} if cert.program_words else {}),
    }


def write(cert: Certification, out: TextIO) -> None:
    for record in records(cert):
        out.write(json_text(record) + "\n")
