"""Located contract problems: a malformed catalog or schema is reported, never raised as a traceback."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from wirecheck.input_files import Unreadable, read_text
from wirecheck.json_types import json_bytes, json_type, shown
from wirecheck.markdown_text import literal, span
from wirecheck.pointer import parse_pointer


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
    from wirecheck.yaml_lines import compose, line_at  # PyYAML: only when a problem is shown

    trees: dict[str, Any] = {}  # file → its node tree, or None
    result = []
    for problem in problems:
        if problem.line is None and problem.file and problem.pointer.startswith("/"):
            if problem.file not in trees:
                try:
                    trees[problem.file] = compose(read_text(problem.file, "file"))
                except (Unreadable, ValueError):
                    trees[problem.file] = None
            tree = trees[problem.file]
            if tree is not None:
                problem = replace(problem, line=line_at(tree, parse_pointer(problem.pointer)))
        result.append(problem)
    return result


class ContractError(Exception):
    """One or more problems in `contracts/` (or in another file wirecheck reads: `what` names it, "stub scenario"),
    or an unknown package/version asked for by a user. A problem said twice (a schema's `required` reports each
    missing member, and each report names them all) is kept once."""

    def __init__(self, problems: list[ContractProblem] | ContractProblem | str, what: str = "contract"):
        if isinstance(problems, str):
            problems = [ContractProblem("", "", problems)]
        elif isinstance(problems, ContractProblem):
            problems = [problems]
        self.problems = list(dict.fromkeys(problems))
        self.what = what
        super().__init__("\n".join(str(p) for p in problems))


def not_the_format(document: Any, schema: dict[str, Any], file: str) -> ContractProblem | None:
    """The one problem of a YAML or JSON file that is not the file it claims to be, or None: its top level is not
    the type its format's `schema` asks (`catalog.yaml` holding a string), or a mapping none of whose members the
    format has (`registry.yaml` holding /etc/shadow's lines as keys). Said without quoting anything in it: a file
    that is not what it claims may be anything (a credentials file a symbolic link or a mistake put there), and
    its content is no one's to see in an error; a file that is one is checked member by member (`for_people`)."""
    kind, wanted = json_type(document), schema.get("type")
    what = f"is not a {schema.get('title', 'file')}"
    if isinstance(wanted, str) and kind != wanted and not (wanted == "number" and kind == "integer"):
        found, expected = (_TYPE_WORDS.get(t, t).split(" (")[0] for t in (kind, wanted))
        return ContractProblem(file, "", f"{what}: its top level is {found}, not {expected} (nothing of it is quoted)")
    known = schema.get("properties")
    if kind == "object" and isinstance(known, dict) and document and not any(name in known for name in document):
        return ContractProblem(file, "", f"{what}: none of its {len(document):,} top-level members is one it has "
                               f"({', '.join(known)}; nothing of it is quoted)")
    return None


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


def _value_text(value: Any, limit: int = 60) -> str:
    """A value in JSON syntax, cut to `limit`; a code span when it holds a backtick (`markdown_text.span`: every
    backtick in a message then belongs to a span, which the HTML report reads as one)."""
    text = json_bytes(value).decode()
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    return literal(text)


def _described(value: Any) -> str:
    """`the string "x"`, `the number 3`, `an object`, `a list`, `true`, `null`."""
    kind = json_type(value)
    if kind in ("object", "array"):
        return _TYPE_WORDS[kind].split(" (")[0]
    if kind in ("boolean", "null"):
        return _value_text(value)
    return f"the {'number' if kind in ('integer', 'number') else kind} {_value_text(value)}"


def _fields(names: Any) -> str:
    listed = [span(name) for name in names]
    return ", ".join(listed[:8]) + (f" and {len(listed) - 8} more" if len(listed) > 8 else "")


def schema_error_text(error: Any) -> str:
    """What a jsonschema-rs error says, in this project's words: jsonschema-rs copies python-jsonschema's messages
    (`Additional properties are not allowed ('kind' was unexpected)`, `"x" is a required property`, `... is not
    valid under any of the schemas listed in the 'anyOf' keyword`), which read as Python. Said from the error's parts:
    "unknown field `kind`", "missing required field `x`", `expected an integer, found the string "x"`,
    `matches none of the 3 forms allowed here`, `expected at least 0, found -1`, `expected a string matching the
    pattern "^a", found "b"`: what was expected, then what was found, for every keyword (issue 42, 6); only a
    keyword this does not know keeps jsonschema-rs's own message."""
    kind = error.kind
    name = kind.name
    if name == "required":
        return f"missing required field {span(kind.property)}"
    if name in ("additionalProperties", "unevaluatedProperties"):
        unexpected = list(kind.unexpected)
        return f"unknown field{'s' if len(unexpected) > 1 else ''} {_fields(unexpected)}"
    if name == "type":
        wanted = list(kind.types) if hasattr(kind, "types") else [kind.value]
        return f"expected {' or '.join(_TYPE_WORDS.get(t, t).split(' (')[0] for t in wanted)}, " \
               f"found {_described(error.instance)}"
    if name == "const":
        return f"expected {_value_text(kind.expected_value)}, found {_value_text(error.instance)}"
    if name in ("anyOf", "oneOf"):
        count = len(kind.value) if isinstance(getattr(kind, "value", None), list) else 0
        forms = f"the {count} forms" if count else "the forms"
        if type(kind).__name__ == "OneOfMultipleValid":
            return f"matches more than one of {forms} allowed here (exactly one must match)"
        return f"matches none of {forms} allowed here"
    if name == "falseSchema":
        schema_path = list(error.schema_path)
        if schema_path and schema_path[-1] in ("additionalProperties", "unevaluatedProperties"):
            return "an unknown field (this object takes no fields)"
        if len(schema_path) >= 2 and schema_path[-2] == "properties":
            return f"field {span(str(schema_path[-1]))} is not allowed here"
        return "no value is allowed here"
    if name == "not":  # a `not` with a title says why in its own words; else the schema it must not match
        title = kind.schema.get("title") if isinstance(kind.schema, dict) else None
        return f"is not allowed here: {title}" if isinstance(title, str) else \
            f"must not match {_value_text(kind.schema, 80)}"
    if name == "contains":
        return "no item matches what the list must contain"
    if (bound := _BOUNDS.get(name)) is not None:
        limit = getattr(kind, "limit", kind.value)
        return f"expected {bound} {_value_text(limit)}, found {_value_text(error.instance)}"
    if (word := _COUNTED.get(name)) is not None:
        limit, found = getattr(kind, "limit", kind.value), len(error.instance)
        at = "at least" if name.startswith("min") else "at most"
        return f"expected {at} {_value_text(limit)} {word}{'' if limit == 1 else 's'}, found {found}"
    if name == "pattern":
        return f"expected a string matching the pattern {_value_text(kind.value, 120)}, found " \
               f"{_value_text(error.instance)}"
    if name == "enum":
        options = kind.value if isinstance(kind.value, list) else [kind.value]
        listed = [_value_text(o) for o in options[:8]] + ([f"… ({len(options) - 8} more)"] if len(options) > 8 else [])
        return f"expected one of {', '.join(listed)}, found {_value_text(error.instance)}"
    if name == "multipleOf":
        return f"expected a multiple of {_value_text(kind.value)}, found {_value_text(error.instance)}"
    if name == "uniqueItems":
        return "expected every item to differ, found an item repeated"
    if name == "format":
        return f"expected a {kind.value} string (format), found {_value_text(error.instance)}"
    if name == "propertyNames" and hasattr(kind, "error"):
        return f"field name: {schema_error_text(kind.error)}"
    return literal(str(error.message))  # jsonschema-rs's words, quoting the value: one code span


_BOUNDS = {"minimum": "at least", "exclusiveMinimum": "more than", "maximum": "at most",
           "exclusiveMaximum": "less than"}
_COUNTED = {"minLength": "character", "maxLength": "character", "minItems": "item", "maxItems": "item",
            "minProperties": "field", "maxProperties": "field"}
