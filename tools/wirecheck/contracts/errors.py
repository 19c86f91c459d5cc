"""Located contract problems: a malformed catalog or schema is reported, never raised as a traceback."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from wirecheck.json_types import json_bytes, json_type, shown
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


_TYPE_WORDS = {"object": "an object (a mapping)", "array": "a list", "string": "a string", "integer": "an integer",
               "number": "a number", "boolean": "true or false", "null": "null"}


def for_people(error: Any) -> str:
    """A python-jsonschema error about a user's file (a waivers file, a catalog, a requirement set) in words and
    JSON syntax: `expected a string, found the number 3`, never `3 is not of type 'string'` or a Python repr."""

    keyword, expected, value = error.validator, error.validator_value, error.instance

    def found() -> str:
        text = json_bytes(value).decode() if value is not None else "null"
        text = text if len(text) <= 60 else text[:59] + "…"
        return f"found {text} ({_TYPE_WORDS.get(json_type(value), json_type(value)).split(' (')[0]})"

    if keyword == "type":
        wanted = [expected] if isinstance(expected, str) else list(expected)
        return f"expected {' or '.join(_TYPE_WORDS.get(t, t) for t in wanted)}, {found()}"
    if keyword == "required":
        missing = [name for name in expected if isinstance(value, dict) and name not in value]
        return f"missing required member{'s' if len(missing) > 1 else ''} {', '.join(missing)}"
    if keyword == "additionalProperties" and isinstance(value, dict):
        known = set(error.schema.get("properties", {}))
        extra = sorted(name for name in value if name not in known)
        return f"unknown member{'s' if len(extra) > 1 else ''} {', '.join(extra)}" + (
            f" (expected {', '.join(sorted(known))})" if known else "")
    if keyword in ("enum", "const"):
        options = expected if keyword == "enum" else [expected]
        listed = [json_bytes(o).decode() for o in options]
        listed = listed if len(listed) <= 8 else [*listed[:8], f"… ({len(listed) - 8} more)"]
        return f"expected {' or '.join(listed)}, {found()}"
    if keyword == "pattern":
        return f"expected a string matching {expected}, {found()}"
    if keyword in ("minLength", "maxLength", "minItems", "maxItems", "minimum", "maximum"):
        return f"expected {keyword} {shown(expected)}, {found()}"
    return f"{keyword} {shown(expected)} not met, {found()}"
