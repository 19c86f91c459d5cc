"""The fuzz self-test schemas (suites/fuzz/data): one $def per JSON Schema feature the contracts use."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from wirecheck.fuzz.schemas import SchemaSet
from wirecheck.fuzz.strategies import Compiler

DATA = Path(__file__).parent / "data"


def _resources() -> dict:
    found = {}
    for path in sorted(DATA.glob("*.json")):
        schema = orjson.loads(path.read_bytes())
        found[schema["$id"]] = schema
    return found


RESOURCES = _resources()
KEYWORDS = "https://contracts.wirecheck.invalid/fuzz-selftest/1.0.0/keywords.json"
DEFS = sorted(RESOURCES[KEYWORDS]["$defs"])


def def_uri(name: str) -> str:
    return f"{KEYWORDS}#/$defs/{name}"


@pytest.fixture(scope="session")
def schemas() -> SchemaSet:
    return SchemaSet(RESOURCES)


@pytest.fixture(scope="session")
def compiler(schemas) -> Compiler:
    return Compiler(schemas)
