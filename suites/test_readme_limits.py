"""The README's limits table says what the code does: each row's value is the constant it names."""

from __future__ import annotations

import ast
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


# Every kind of file wirecheck reads, by the words its reader names it with (`what`), and where the limits table
# covers it: a reader of a new kind of file fails here until the table says what bounds it.
INPUT_KINDS = {
    "capture file": "capture",
    "schema file": "a `diff-schemas` schema",
    "contract schema file": "a contract's schema or YAML file",
    "contract file": "a contract's schema or YAML file",
    "waivers file": "`--waivers`",
    "scope file": "`--scope`",
    "requirement set for ": "`--requirements`",
    "scenario file": "`--scenario`",
    "stub scenario": "`stub --scenario`",
    "mapping file": "`--mapping`",
    "schema file to import": "`import schema`'s schema file",
    "licence file": "`--license`",
    "corpus manifest": "the `diff-corpus` manifest",
    "schema history manifest": "a schema history's manifest",
    "live tier plan": "the live tiers' `live.yaml`",
    "parsed contract data": "wirecheck's own generated data",  # contracts/parsed.jsonl
    "diff rule catalogue": "wirecheck's own generated data",  # diff/rules.json
    "check catalogue": "wirecheck's own generated data",  # rules/texts.json
    "file": "a file read whole",  # the generic reader (a problem's file read again for its line)
}
READERS = {"read_bytes", "read_text", "read_yaml_file", "capture_problem"}


def _what(call: ast.Call) -> str | None:
    """The `what` a reader call names its file with: the keyword, or the second argument; an f-string's start."""
    given = next((k.value for k in call.keywords if k.arg == "what"), call.args[1] if len(call.args) > 1 else None)
    if isinstance(given, ast.Constant) and isinstance(given.value, str):
        return given.value
    if isinstance(given, ast.JoinedStr) and given.values and isinstance(given.values[0], ast.Constant):
        return str(given.values[0].value)
    return None


def input_kinds_read() -> set[str]:
    found = set()
    for path in (ROOT / "tools" / "wirecheck").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
                if name in READERS and (what := _what(node)) is not None:
                    found.add(what)
    return found | {"capture file"}  # capture/source.py names it through input_files.problem


def test_the_limits_table_covers_every_kind_of_file_wirecheck_reads() -> None:
    kinds = input_kinds_read()
    assert kinds - set(INPUT_KINDS) == set(), "a reader of a kind of file the limits table does not name"
    assert {"schema file", "waivers file", "scope file", "scenario file", "contract file"} <= kinds  # found
    covered = " ".join(row["what"] for row in ROWS)
    for kind in kinds:
        assert INPUT_KINDS[kind] in covered, (kind, INPUT_KINDS[kind])
