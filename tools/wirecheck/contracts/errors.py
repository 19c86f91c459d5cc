"""Located contract problems: a malformed catalog or schema is reported, never raised as a traceback."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from wirecheck.pointer import parse_pointer
from wirecheck.yaml_lines import compose, line_at


@dataclass(frozen=True, slots=True)
class ContractProblem:
    file: str
    pointer: str
    message: str
    line: int | None = None  # where the pointer leads in the file (see `located`)

    def __str__(self) -> str:
        where = f"{self.file}#{self.pointer}" if self.pointer else self.file
        return f"{where}: {self.message}" + (f" (line {self.line})" if self.line else "")


def located(problems: Iterable[ContractProblem]) -> list[ContractProblem]:
    """The problems with the line their pointer leads to, where their file is YAML or JSON that can be read: found
    when a problem is shown, not while loading (each file is read again once, and only when something is wrong)."""
    trees: dict[str, Any] = {}  # file → its node tree, or None
    result = []
    for problem in problems:
        if problem.line is None and problem.file and problem.pointer.startswith("/"):
            if problem.file not in trees:
                try:
                    trees[problem.file] = compose(Path(problem.file).read_text(encoding="utf-8"))
                except (OSError, UnicodeDecodeError, ValueError):
                    trees[problem.file] = None
            tree = trees[problem.file]
            if tree is not None:
                problem = replace(problem, line=line_at(tree, parse_pointer(problem.pointer)))
        result.append(problem)
    return result


class ContractError(Exception):
    """One or more problems in `contracts/`, or an unknown package/version asked for by a user."""

    def __init__(self, problems: list[ContractProblem] | ContractProblem | str):
        if isinstance(problems, str):
            problems = [ContractProblem("", "", problems)]
        elif isinstance(problems, ContractProblem):
            problems = [problems]
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))
