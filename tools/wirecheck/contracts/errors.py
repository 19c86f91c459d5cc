"""Located contract problems: a malformed catalog or schema is reported, never raised as a traceback."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ContractProblem:
    file: str
    pointer: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}#{self.pointer}: {self.message}" if self.pointer else f"{self.file}: {self.message}"


class ContractError(Exception):
    """One or more problems in `contracts/`, or an unknown package/version asked for by a user."""

    def __init__(self, problems: list[ContractProblem] | ContractProblem | str):
        if isinstance(problems, str):
            problems = [ContractProblem("", "", problems)]
        elif isinstance(problems, ContractProblem):
            problems = [problems]
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))
