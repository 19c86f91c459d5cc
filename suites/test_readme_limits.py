"""The README's limits table says what the code does: each row's value is the constant it names."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
UNITS = {"MiB": 1 << 20, "KiB": 1 << 10, "s": 1, "levels": 1}


def limits_table() -> list[dict[str, str]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Limits\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in rows[0].strip("|").split("|")]
    return [dict(zip(header, (cell.strip() for cell in row.strip("|").split("|")), strict=True)) for row in rows[2:]]


def number(text: str) -> float:
    """`32 MiB (...)` → 33554432, `1,000` → 1000, `2 s` → 2."""
    found = re.match(r"([\d,.]+)\s*(MiB|KiB|s|levels)?", text)
    assert found, text
    return float(found[1].replace(",", "")) * UNITS.get(found[2] or "", 1)


def constant(dotted: str) -> float:
    module, _, name = dotted.strip("`").rpartition(".")
    return float(getattr(importlib.import_module(module), name))


ROWS = limits_table()


def test_the_table_is_there() -> None:
    assert len(ROWS) >= 10 and all(row["constant"] for row in ROWS)


@pytest.mark.parametrize("row", [r for r in ROWS if r["constant"].startswith("`wirecheck.")], ids=lambda r: r["what"])
def test_each_limit_is_the_constant_it_names(row: dict[str, str]) -> None:
    assert number(row["limit"]) == constant(row["constant"])


def test_the_memory_limit_is_what_the_hostile_suite_holds_commands_to() -> None:
    [row] = [r for r in ROWS if r["what"] == "peak memory of any command"]
    sys.path.insert(0, str(ROOT / "suites" / "hostile"))
    import hostile_cases

    base, per_line = re.match(r"(\d+) MiB \+ (\d+) × `--max-line-bytes`", row["limit"]).groups()  # type: ignore[union-attr]
    assert (int(base), int(per_line)) == (hostile_cases.MEMORY_BASE_MIB, hostile_cases.MEMORY_PER_LINE)
    assert hostile_cases.memory_budget_mib(1 << 20) == int(base) + int(per_line)
