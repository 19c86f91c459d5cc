"""SARIF 2.1.0 for code-scanning annotations: each finding points at the schema file and line it is about."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import unquote

from wirecheck import __version__
from wirecheck.diff.catalogue import diff_rule_catalogue
from wirecheck.diff.report.common import breaks_text, gate_line, unique_witnesses, witness_text, witnessed_elsewhere
from wirecheck.encoding import file_uri
from wirecheck.input_files import Unreadable, read_text
from wirecheck.json_types import json_bytes
from wirecheck.pointer import parse_pointer

_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def pointer_line(text: str, pointer: str) -> int:
    """The 1-based line where the value at `pointer` starts in a pretty-printed JSON file (best effort)."""
    position = 0
    for token in parse_pointer(pointer):
        if token.isdigit():
            continue
        found = text.find(f'"{token}"', position)
        if found < 0:
            break
        position = found
    return text.count("\n", 0, position) + 1


def _location(finding, contracts: Path, root: Path, files: tuple[str, str] | None) -> dict[str, Any] | None:
    """The schema file and line a finding is about: the new side's location, else the old side's. A catalog
    release's files live under `contracts`; diff-schemas names its two files (`files`)."""
    sides = ((finding.new_location, finding.new_version, 1), (finding.old_location, finding.old_version, 0))
    for location, version, side in sides:
        if not location or not finding.package:
            continue
        file, _, pointer = location.partition("#")
        path = Path(files[side]) if files else contracts / finding.package / version / file
        line = 1
        if path.is_file():
            with contextlib.suppress(Unreadable, ValueError):  # the line is a help; a file gone bad since leaves 1
                line = pointer_line(read_text(path, "schema file"), unquote(pointer))
        uri = file_uri(path, Path.cwd() if files else root)  # the repository's (diff-schemas: the user's checkout)
        return {"physicalLocation": {"artifactLocation": {"uri": uri}, "region": {"startLine": line}},
                "logicalLocations": [{"fullyQualifiedName": f"{finding.kind}{finding.path}"}]}
    return None


def write(run, out: TextIO, contracts: Path | None = None, root: Path | None = None) -> None:
    from wirecheck.contracts import default_contracts_dir

    contracts = contracts or default_contracts_dir()
    root = root or contracts.parent
    catalogue = diff_rule_catalogue()
    findings = run.findings()
    used = sorted({f.rule for f in findings})
    rules = [
        {"id": rule_id, "shortDescription": {"text": catalogue[rule_id].purpose},
         "fullDescription": {"text": catalogue[rule_id].rationale},
         "defaultConfiguration": {"level": _LEVEL[catalogue[rule_id].level.value]},
         "properties": {"breaks": [f"{d}/{m}" for d, m in catalogue[rule_id].breaks],
                        "group": catalogue[rule_id].group}}
        for rule_id in used
    ]
    files = {(r.package, r.old_version, r.new_version): r.files for r in run.results if r.files}
    results = []
    for f in findings:
        text = (f"{f.package} {f.old_version} → {f.new_version}: {f.kind} {f.path or '/'}: {f.message} "
                f"[{breaks_text(f)}]")
        witnesses = unique_witnesses(f)
        if witnesses:
            text += "\nWitness: " + witness_text(witnesses[0])
        elif f.witnessed_in is not None:
            text += "\nWitness: " + witnessed_elsewhere(f)
        result: dict[str, Any] = {
            "ruleId": f.rule,
            "ruleIndex": used.index(f.rule),
            "level": _LEVEL[f.severity.value],
            "message": {"text": text},
            "partialFingerprints": {"wirecheckFingerprint/v1": f.fingerprint},
        }
        location = _location(f, contracts, root, files.get((f.package, f.old_version, f.new_version)))
        if location:
            result["locations"] = [location]
        if f.waived:
            result["suppressions"] = [{"kind": "external", "justification": f.waived}]
        results.append(result)
    sarif = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "wirecheck", "version": __version__,
                                      "informationUri": "https://wirecheck.invalid/", "rules": rules}},
                  "results": results,
                  # the run's one gate decision, the same the exit code comes from
                  "invocations": [{"executionSuccessful": True, "exitCode": run.exit_code(),
                                   "properties": {"gate": gate_line(run)}}]}],
    }
    out.write(json_bytes(sarif, indent=True).decode() + "\n")
