"""opencode-config@1.0.0 against real OpenCode 1.18.33: each config `opencode debug config` read (exit 0) conforms,
each it refused (exit 1) fails, and a refusal is blamed where OpenCode blames it (the key its message ends with).
The runs were recorded by suites/contracts/opencode/record_debug_config.py (fixtures/opencode-config/1.0.0/real)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
import yaml

from wirecheck.capture import CaptureFile
from wirecheck.check.engine import Engine
from wirecheck.contracts import load_registry
from wirecheck.findings import Severity

ROOT = Path(__file__).resolve().parents[2]
RECORDED = yaml.safe_load((ROOT / "fixtures/opencode-config/1.0.0/real/debug-config.yaml").read_text())
ENGINE = Engine(load_registry(ROOT / "contracts").load("opencode-config@1.0.0"))


@pytest.mark.parametrize("case", RECORDED["cases"], ids=lambda case: case["name"])
def test_the_contract_reads_a_config_as_opencode_does(tmp_path, case):
    path = tmp_path / "opencode.json"
    path.write_bytes(orjson.dumps(case["config"]))
    result = ENGINE.run([CaptureFile(str(path))])
    errors = [f for f in result.findings if f.severity is Severity.ERROR]
    assert result.messages == 1 and result.unclassified == 0
    if case["exit_status"] == 0:
        assert not errors, f"OpenCode read it; wirecheck fails it: {[(f.pointer, f.message) for f in errors]}"
        return
    assert errors, f"OpenCode refused it ({case['stderr'][1:]}); wirecheck passes it"
    blamed = {line.rsplit(" ", 1)[-1].replace(".", "/") for line in case["stderr"][1:]}
    blamed = {"/" + key for key in blamed}
    assert any(f.pointer is not None and any(f.pointer.startswith(key.rsplit("/", 1)[0] or "/") for key in blamed)
               for f in errors), [(f.pointer, f.message) for f in errors]
