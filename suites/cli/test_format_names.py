"""`--format` takes the same names in every command (issue 42, 6): `json` for a JSON report, JSON lines included
(certify, stub and probe write one record per requirement; `jsonl`, its earlier name, still accepted), `sarif` where
a report of located findings exists (validate, diff, certify), and fuzz-consumer has a `--format` of its own."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

ROOT = Path(__file__).resolve().parents[2]
XOPC = ROOT / "fixtures" / "xopc" / "0.0.253"
DEMO = ROOT / "suites" / "data" / "contracts"


def wirecheck(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "wirecheck", *args], capture_output=True, text=True, timeout=300,
                          env=env)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def test_certify_names_its_json_lines_json_and_keeps_jsonl():
    capture = str(XOPC / "invalid" / "broken-run.jsonl")
    reports = [wirecheck("certify", "xopc@0.0.253", capture, "--role", "runtime", "--format", name)
               for name in ("json", "jsonl")]
    assert [r.returncode for r in reports] == [1, 1]
    texts = [re.sub(r'"timestamp":"[^"]*"', '"timestamp":""', r.stdout) for r in reports]
    assert texts[0] == texts[1]
    records = [orjson.loads(line) for line in texts[0].splitlines()]
    assert {r["record"] for r in records} >= {"requirement"}


def test_certify_writes_sarif_of_the_findings_that_fail_requirements(tmp_path):
    capture = XOPC / "invalid" / "broken-run.jsonl"
    proc = wirecheck("certify", "xopc@0.0.253", str(capture), "--role", "runtime", "--format", "sarif",
                     "--out-dir", str(tmp_path / "out"))
    assert proc.returncode == 1, proc.stderr
    run = orjson.loads(proc.stdout)["runs"][0]
    assert run["results"] and {r["ruleId"] for r in run["results"]} == {rule["id"] for rule in run["tool"]["driver"]
                                                                            ["rules"]}
    assert all(r["ruleId"].startswith("XOPC") or "-" in r["ruleId"] for r in run["results"])
    located = [r["locations"][0]["physicalLocation"] for r in run["results"]]
    assert all(loc["artifactLocation"]["uri"].endswith("broken-run.jsonl") for loc in located)
    assert any(loc.get("region", {}).get("startLine", 0) >= 1 for loc in located)
    assert (tmp_path / "out" / "certification.sarif").is_file()  # --out-dir writes every format


@pytest.mark.parametrize("command", [["certify", "xopc@0.0.253", "x.jsonl"],
                                     ["stub", "xopc@0.0.253"],
                                     ["probe", "xopc@0.0.253", "http://127.0.0.1:9"]])
def test_the_certifying_commands_list_the_same_names(command):
    proc = wirecheck(*command, "--format", "xml", *(["--", "true"] if command[0] == "stub" else []))
    assert proc.returncode == 2
    assert "--format xml: expected one of text, json, markdown, junit, html, sarif" in proc.stderr


def test_fuzz_consumer_takes_a_format(tmp_path):
    (tmp_path / "wirecheck_accepts.py").write_text("def consume(message):\n    return message\n")
    env = {**os.environ, "WIRECHECK_CONTRACTS": str(DEMO),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))}
    base = ["fuzz-consumer", "demo@1.0.0", "--kind", "hello", "--count", "2", "--valid-only", "--python",
            "wirecheck_accepts:consume"]
    as_json = wirecheck(*base, "--format", "json", env=env)
    assert as_json.returncode == 0, as_json.stderr
    assert orjson.loads(as_json.stdout)["release"] == "demo@1.0.0"
    written = wirecheck(*base, "--format", "markdown", "-o", str(tmp_path / "r.md"), env=env)
    assert written.returncode == 0 and written.stdout == ""
    assert (tmp_path / "r.md").read_text().startswith("#")
    wrong = wirecheck(*base, "--format", "sarif", env=env)
    assert wrong.returncode == 2 and "--format sarif: expected one of markdown, json" in wrong.stderr
