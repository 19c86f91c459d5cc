"""Scope files (`--scope`, also spelled `--baseline`): what a certification run is known not to show, each entry
with a reason. One file, two lists, both optional (at least one present):

```yaml
expected_failures:          # known failures a vendor has accepted for now
  - id: QODER-1.0.23-CLOSED-FIELDS
    reason: qodercli 1.1.23 sends system/init.betas, which the 1.0.23 types lack
out_of_scope:               # requirements this run cannot reach, and how anyone can check that
  - id: ACP-2.4.0-TERMINAL-CREATE-REQUEST-SCHEMA
    reason: the example agent never asks for a terminal
    evidence: "@agentclientprotocol/sdk 1.9.0 dist/examples/agent.js: no call of createTerminal"
```

A listed expected failure that fails does not fail the run; one that *passes* does (the entry is stale and must be
removed), so a baseline never hides a fixed problem or outlives it. An out-of-scope requirement that is not exercised
is reported apart (neither passed, failed nor missing); one that is exercised after all fails the run when it passes
(the entry is stale) and fails as any requirement does when it fails. An entry naming a requirement the set lacks is a
located usage error, like MCP conformance's expected-failures baseline.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from wirecheck.contracts.errors import ContractError, ContractProblem
from wirecheck.yaml_lines import LINE_KEY, YamlFileError, parse_yaml, read_text


@dataclass(frozen=True)
class ExpectedFailure:
    id: str
    reason: str


@dataclass(frozen=True)
class OutOfScope:
    id: str
    reason: str
    evidence: str  # where anyone can check that this run cannot reach the requirement


@dataclass(frozen=True)
class Baseline:
    """A loaded scope file: expected failures and out-of-scope requirements."""

    path: Path | None
    entries: tuple[ExpectedFailure, ...] = ()
    out_of_scope: tuple[OutOfScope, ...] = ()
    sha256: str | None = None  # of the bytes loaded (the identity block's: a named pipe is not read twice)

    def reason(self, requirement_id: str) -> str | None:
        return next((e.reason for e in self.entries if e.id == requirement_id), None)

    def scope(self, requirement_id: str) -> OutOfScope | None:
        return next((e for e in self.out_of_scope if e.id == requirement_id), None)

    @property
    def ids(self) -> set[str]:
        return {e.id for e in self.entries} | {e.id for e in self.out_of_scope}


EMPTY = Baseline(None)


LISTS = {"expected_failures": ("id", "reason"), "out_of_scope": ("id", "reason", "evidence")}
NEEDS = {"expected_failures": "each entry needs `id` and a non-empty `reason`",
         "out_of_scope": "each entry needs `id`, a non-empty `reason` and a non-empty `evidence` (where anyone can "
                         "check that this run cannot reach the requirement)"}


def load_baseline(path: Path, known_ids: set[str]) -> Baseline:
    """A scope file, checked whole: every problem located (file, JSON pointer, line), raised as one ContractError."""
    file = str(path)
    try:
        text = read_text(path, "scope file")
        data = parse_yaml(text, file, lines=True)
    except YamlFileError as exc:
        raise ContractError(ContractProblem(file, "", exc.message)) from None
    problems: list[ContractProblem] = []

    def problem(pointer: str, message: str, line: int | None) -> None:
        problems.append(ContractProblem(file, pointer, message, line))

    if not isinstance(data, dict) or not any(isinstance(data.get(name), list) for name in LISTS):
        raise ContractError(ContractProblem(file, "", "expected a mapping with a list `expected_failures`, "
                                                      "`out_of_scope` or both"))
    for key in data:
        if key == LINE_KEY:
            continue
        if key not in LISTS:
            problem(f"/{key}", f"unknown key {key!r} (a scope file holds `expected_failures` and `out_of_scope`)",
                    data[LINE_KEY])
        elif not isinstance(data[key], list):
            problem(f"/{key}", f"expected a list of entries, found {type(data[key]).__name__}", data[LINE_KEY])
    found: dict[str, list[tuple[str, ...]]] = {name: [] for name in LISTS}
    seen: dict[str, tuple[str, int | None]] = {}  # id → (list, line) of its first entry
    for name, fields in LISTS.items():
        entries = data.get(name)
        for index, entry in enumerate(entries if isinstance(entries, list) else []):
            where = f"/{name}/{index}"
            line = entry.get(LINE_KEY) if isinstance(entry, dict) else None
            if not isinstance(entry, dict) or not all(
                    isinstance(entry.get(f), str) and entry[f].strip() for f in fields):
                problem(where, NEEDS[name], line)
                continue
            for key in entry:
                if key not in (*fields, LINE_KEY):
                    holds = ", ".join(f"`{f}`" for f in fields[:-1]) + f" and `{fields[-1]}`"
                    problem(f"{where}/{key}", f"unknown key {key!r} (an entry holds {holds})", line)
            requirement_id = entry["id"]
            if requirement_id not in known_ids:
                problem(f"{where}/id", f"no requirement {requirement_id!r} in this set", line)
            elif requirement_id in seen:
                first_list, first_line = seen[requirement_id]
                also = "" if first_list == name else f" under `{first_list}`"
                problem(f"{where}/id", f"{requirement_id} is listed twice (first{also} at line {first_line})", line)
            seen.setdefault(requirement_id, (name, line))
            found[name].append(tuple(entry[f].strip() for f in fields))
    if problems:
        raise ContractError(problems)
    return Baseline(path, tuple(ExpectedFailure(*e) for e in found["expected_failures"]),
                    tuple(OutOfScope(*e) for e in found["out_of_scope"]), hashlib.sha256(text.encode()).hexdigest())
