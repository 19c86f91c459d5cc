"""Run pytest on a copy of the sample adapter repository (suites/plugin/sample_adapter) in a subprocess, the way
an adapter's CI would (the plugin is loaded through its `pytest11` entry point)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SAMPLE = Path(__file__).parent / "sample_adapter"


@pytest.fixture
def adapter_repo(tmp_path):
    repo = tmp_path / "adapter"
    shutil.copytree(SAMPLE, repo, ignore=shutil.ignore_patterns("__pycache__", "out", "reports"))
    return repo


def run_pytest(repo: Path, *args: str, broken: bool = False, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "HYPOTHESIS"))}
    env.pop("WIRECHECK_SAMPLE_BROKEN", None)
    if broken:
        env["WIRECHECK_SAMPLE_BROKEN"] = "1"
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rA", *args], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=timeout)
