"""How both Qoder SDKs read a line of the CLI's stdout that is not JSON (readers.yaml `non_json_lines`): the
TypeScript SDK drops any line JSON.parse refuses (@qoder-ai/qoder-agent-sdk@1.0.39 dist/index.js:4), the Python SDK
skips one that does not start with an opening brace (qoder-agent-sdk 1.0.13 _internal/transport/subprocess_cli.py:903)
and buffers one that does with the lines after it. A text line is info; JSON that breaks off stays an error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wirecheck.check.engine import check_captures
from wirecheck.contracts import load_registry
from wirecheck.findings import Severity

ROOT = Path(__file__).resolve().parents[3]
PROMPT_RUN = ROOT / "suites/harness/data/qodercli-1.1.23/qoder-prompt.framed.ndjson"


@pytest.mark.parametrize("spec", ["qoder-agent-sdk@1.0.13", "qoder-agent-sdk@1.0.23", "qoder-agent-sdk@1.0.39"])
@pytest.mark.parametrize(("line", "severity"), [
    ("Debugger listening on ws://127.0.0.1:9229/0f2c", Severity.INFO),
    ('{"type":"assistant","message":{"id":"m', Severity.ERROR),
])
def test_a_line_of_the_cli_that_is_not_json(spec, line, severity, tmp_path):
    lines = PROMPT_RUN.read_text().splitlines()
    path = tmp_path / "run.framed.ndjson"
    path.write_text("\n".join([*lines[:3], '{"from": "cli", "message": ' + line + "}", *lines[3:]]) + "\n")
    assert json.loads(lines[2])["from"] == "cli"
    findings = check_captures(load_registry(ROOT / "contracts").load(spec), [str(path)]).findings
    assert [(f.code, f.severity, f.line) for f in findings if f.code == "PARSE_ERROR"] == [
        ("PARSE_ERROR", severity, 4)]
