"""JSON: the whole run, validated in tests by tools/wirecheck/schemas/diff-report.schema.json."""

from __future__ import annotations

from typing import Any, TextIO

from wirecheck import __version__
from wirecheck.diff.changes import group_changes
from wirecheck.diff.model import DIRECTIONS, VIEWS
from wirecheck.diff.report.common import build
from wirecheck.json_types import json_bytes


def answer_json(a) -> dict[str, Any]:
    """The pair's answer (diff/verdict/upgrade.py): who breaks reading whom, the version verdict, what to do."""
    return {"flows": [{"writer": f.writer, "reader": f.reader,
                       "verdicts": [{"direction": d, "consumer": m, "verdict": v} for d, m, v in f.verdicts]}
                      for f in a.flows],
            "protects": list(a.views), "version": a.version_text, "advice": list(a.advice)}


def change_json(change) -> dict[str, Any]:
    """One change as the human formats list it (diff/changes.py): its definitions, where it shows, its members with
    their findings' fingerprints, one witness per broken direction. Each fingerprint is in exactly one change."""
    return {"title": change.title, "definitions": list(change.titles), "severity": change.severity.value,
            "waived": change.waived,
            "where": [{"kind": w.kind, "surface": w.surface, "at": w.at} for w in change.where],
            "members": [{"path": m.path, "rules": sorted({f.rule for f in m.findings}),
                         "fingerprints": [f.fingerprint for f in m.findings]} for m in change.members],
            "fingerprints": [f.fingerprint for f in change.findings],
            "verdicts": [{"direction": d, "consumer": m, "verdict": v,
                          **({"evidence": change.evidence(d, m)} if change.evidence(d, m) else {})}
                         for d, m, v in change.verdicts()],
            "witnesses": [w.to_json() for w in change.witnesses()]}


def result_json(result, pair=None) -> dict[str, Any]:
    """A pair: the flat list of findings (every one, for tools and waivers) and, given its report model (`pair`,
    diff/report/common.py), the answer and the changes the human formats show, each finding in one change."""
    data: dict[str, Any] = {
        "package": result.package,
        "old_version": result.old_version,
        "new_version": result.new_version,
        "compatibility": {d: {m: result.compatibility(d, m) for m in VIEWS} for d in DIRECTIONS},
        "kinds": [
            {"kind": k.kind, "surface": k.surface, "old_kind": k.old_kind,
             "verdicts": {d: {m: k.get(d, m) for m in VIEWS} for d in DIRECTIONS}}
            for k in result.kinds
        ],
        "findings": [f.to_json() for f in result.findings],
    }
    if pair is not None:
        data["answer"] = answer_json(pair.answer)
        data["changes"] = [change_json(c) for c in group_changes(result)]
    if result.nothing_compared:
        data["nothing_compared"] = result.nothing_compared
    if result.version is not None:
        v = result.version
        data["version"] = {"declared_bump": v.declared_bump, "required_bump": v.required_bump,
                           "old_wire_version": v.old_wire, "new_wire_version": v.new_wire}
    return data


def gate_json(gate) -> dict[str, Any]:
    reasons = []
    for reason in gate.reasons:
        item = {"code": reason.code, "text": reason.text}
        if reason.pair:
            item["pair"] = reason.pair
        if reason.finding is not None and reason.finding.fingerprint:
            item["fingerprint"] = reason.finding.fingerprint
        reasons.append(item)
    return {"verdict": gate.verdict, "fail_on": gate.fail_on, "directions": list(gate.directions),
            "consumers": list(gate.consumers), "line": gate.summary(), "reasons": reasons}


def run_json(run) -> dict[str, Any]:
    data: dict[str, Any] = {
        "wirecheck_diff": 1,
        "tool": {"name": "wirecheck", "version": __version__},
        "options": {"compat": "full" if len(run.options.directions) == 2 else run.options.directions[0],
                    "consumers": run.options.consumers, "witnesses": run.options.witnesses,
                    "fail_on": run.fail_on},
        "pairs": [result_json(p.result, p) for p in build(run).pairs],
        "waivers": [f.to_json() for f in run.waiver_findings],
        "summary": {**run.counts(), "exit_code": run.gate.exit_code, "gate": gate_json(run.gate)},
    }
    if run.packages:
        data["packages"] = [
            {"package": p.package, "releases": list(p.releases),
             "transitive": {d: {m: p.transitive(d, m) for m in VIEWS} for d in DIRECTIONS},
             "full": {m: p.full(m) for m in VIEWS}, "full_transitive": {m: p.full(m, True) for m in VIEWS},
             "matrix": [{"old_version": a, "new_version": b,
                         "compatibility": {d: {m: r.compatibility(d, m) for m in VIEWS} for d in DIRECTIONS}}
                        for (a, b), r in p.matrix.items()]}
            for p in run.packages
        ]
    return data


def write(run, out: TextIO) -> None:
    out.write(json_bytes(run_json(run), indent=True).decode() + "\n")
