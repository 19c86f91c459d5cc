"""Shared test fixtures: the demo contract (suites/data/contracts) and capture writers."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, settings

from wirecheck.contracts import load_registry

# Hypothesis profiles, chosen with HYPOTHESIS_PROFILE: `ci` (the default: fast, derandomized, no example
# database, so a run is reproducible) and `thorough` (nightly: many more examples, random seeds).
settings.register_profile(
    "ci",
    max_examples=25,
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "thorough",
    max_examples=1000,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

DATA = Path(__file__).parent / "data"
DEMO_CONTRACTS = DATA / "contracts"


@pytest.fixture(scope="session")
def demo_registry():
    return load_registry(DEMO_CONTRACTS)


@pytest.fixture(scope="session")
def demo(demo_registry):
    return demo_registry.load("demo@1.0.0")


@pytest.fixture
def write_lines(tmp_path):
    """Write messages (dicts or raw bytes/str lines) as a capture file; returns its path as str."""

    def write(lines, name: str = "capture.jsonl") -> str:
        path = tmp_path / name
        with path.open("wb") as handle:
            for line in lines:
                if isinstance(line, bytes):
                    handle.write(line)
                elif isinstance(line, str):
                    handle.write(line.encode())
                else:
                    handle.write(orjson.dumps(line) + b"\n")
        return str(path)

    return write
