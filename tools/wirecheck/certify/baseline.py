"""Expected-failures baselines: known failures a vendor has accepted for now, each with a reason.

```yaml
expected_failures:
  - id: QODER-1.0.23-CLOSED-FIELDS
    reason: qodercli 1.1.23 sends system/init.betas, which the 1.0.23 types lack
```

A listed requirement that fails does not fail the run; one that *passes* does (the entry is stale and must be
removed), so a baseline never hides a fixed problem or outlives it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from wirecheck.contracts.errors import ContractError, ContractProblem
from wirecheck.yaml_lines import LINE_KEY, YamlFileError, read_yaml_file


@dataclass(frozen=True)
class ExpectedFailure:
    id: str
    reason: str


@dataclass(frozen=True)
class Baseline:
    path: Path | None
    entries: tuple[ExpectedFailure, ...] = ()

    def reason(self, requirement_id: str) -> str | None:
        return next((e.reason for e in self.entries if e.id == requirement_id), None)

    @property
    def ids(self) -> set[str]:
        return {e.id for e in self.entries}


EMPTY = Baseline(None)


def load_baseline(path: Path, known_ids: set[str]) -> Baseline:
    file = str(path)
    try:
        data = read_yaml_file(path, lines=True, what="baseline file")
    except YamlFileError as exc:
        raise ContractError(ContractProblem(file, "", exc.message)) from None
    problems: list[ContractProblem] = []

    def problem(pointer: str, message: str, line: int | None) -> None:
        problems.append(ContractProblem(file, pointer, message, line))

    if not isinstance(data, dict) or not isinstance(data.get("expected_failures"), list):
        raise ContractError(ContractProblem(file, "", "expected a mapping with a list `expected_failures`"))
    for key in data:
        if key not in ("expected_failures", LINE_KEY):
            problem(f"/{key}", f"unknown key {key!r} (a baseline holds `expected_failures`)", data[LINE_KEY])
    entries = []
    seen: dict[str, int | None] = {}  # id → line of its first entry
    for index, entry in enumerate(data["expected_failures"]):
        where = f"/expected_failures/{index}"
        line = entry.get(LINE_KEY) if isinstance(entry, dict) else None
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str) or not isinstance(
            entry.get("reason"), str
        ) or not entry["reason"].strip():
            problem(where, "each entry needs `id` and a non-empty `reason`", line)
            continue
        for key in entry:
            if key not in ("id", "reason", LINE_KEY):
                problem(f"{where}/{key}", f"unknown key {key!r} (an entry holds `id` and `reason`)", line)
        if entry["id"] not in known_ids:
            problem(f"{where}/id", f"no requirement {entry['id']!r} in this set", line)
        elif entry["id"] in seen:
            problem(f"{where}/id", f"{entry['id']} is listed twice (first at line {seen[entry['id']]})", line)
        seen.setdefault(entry["id"], line)
        entries.append(ExpectedFailure(entry["id"], entry["reason"].strip()))
    if problems:
        raise ContractError(problems)
    return Baseline(path, tuple(entries))
