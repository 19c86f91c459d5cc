"""SARIF 2.1.0 of a certification, for code scanning: each finding that fails a requirement, as a result of that
requirement (its id the rule, its text the description) at the capture file and line the finding is about
(report/sarif.py's locations). Passed, unexercised and out-of-scope requirements have no result: SARIF lists
problems; the JSON report (`--format json`) lists every requirement."""

from __future__ import annotations

from typing import Any, TextIO

from wirecheck.certify.evaluate import Certification
from wirecheck.json_types import json_bytes
from wirecheck.report.sarif import finding_result, sarif_log

_LEVEL = {"MUST": "error", "SHOULD": "warning", "MAY": "note"}


def to_sarif(cert: Certification) -> dict[str, Any]:
    failed = [r for r in cert.results if r.failures]
    rules = [{"id": r.requirement.id, "shortDescription": {"text": r.requirement.text},
              "defaultConfiguration": {"level": _LEVEL.get(r.requirement.level, "warning")}} for r in failed]
    results = [finding_result(f, r.requirement.id, index, cert.contract)
               for index, r in enumerate(failed) for f in r.failures]
    log = sarif_log(rules, results)
    # the run's verdict, as every format states it: the exit code and the gate line
    invocation: dict[str, Any] = {"executionSuccessful": cert.exit_code == 0, "exitCode": cert.exit_code,
                                  "properties": {"verdict": cert.verdict, "gate": cert.gate_line}}
    if cert.run is not None:  # a live run: how it went, and what the program said when it failed
        said = [cert.run_line] + ([f"the program said: {cert.program_words}"] if cert.program_words else [])
        invocation["toolExecutionNotifications"] = [{"level": "note" if cert.run_ok else "error",
                                                     "message": {"text": text}} for text in said]
    log["runs"][0]["invocations"] = [invocation]
    return log


def write(cert: Certification, out: TextIO) -> None:
    out.write(json_bytes(to_sarif(cert), indent=True).decode() + "\n")
