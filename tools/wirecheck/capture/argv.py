"""Decode a recorded argv list into a JSON object, by the `argv_grammar` an argv kind declares.

A program's command line is not JSON, so an argv contract has two halves: a grammar (this module reads it) that
says which tokens are flags, which flags take a value and which positional arguments exist, and a JSON Schema
over the decoded object that says what a conforming invocation contains (required flags, allowed values, order).
The grammar format is documented in contracts/README.md ("argv contracts").

The decoded object:

    {"program": "opencode",                     # basename of argv[0]
     "arguments": {"command": "run", "prompt": "fix it", "rest": [...]},   # named positionals
     "options": {"format": "json", "printLogs": true,
                 "model": {"value": "p/m#high", "provider": "p", "model": "m", "variant": "high"},
                 "--agent": true},              # an undeclared flag keeps its spelling, so a closed schema names it
     "sequence": ["command", "prompt", "printLogs", "format", "model"]}   # names in argv order, for order checks

Decode problems are (JSON pointer into the decoded object, message) pairs: a flag missing its value, a boolean
flag given `=value`, a flag given twice where the consumer keeps only one, surplus positionals, a value that does
not fit the flag's `parse` pattern. Everything else (required flags, enums, order) is the schema's business.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from wirecheck.ecma_regex import RegexTimeout, full_match
from wirecheck.pointer import format_pointer

Problem = tuple[str, str]


@dataclass(frozen=True)
class _Flag:
    spelling: str  # the canonical spelling, e.g. --model
    name: str  # the key under /options
    takes_value: bool
    repeatable: bool
    parse: str | None  # the pattern as the catalog writes it (ECMA-262)


def _flags(grammar: Mapping[str, Any]) -> dict[str, _Flag]:
    table: dict[str, _Flag] = {}
    for entry in grammar.get("flags", ()):
        spelling = entry["flag"]
        flag = _Flag(
            spelling=spelling,
            name=entry.get("name", spelling.lstrip("-")),
            takes_value=bool(entry.get("value", False)),
            repeatable=bool(entry.get("repeatable", False)),
            parse=entry.get("parse"),
        )
        for alias in (spelling, *entry.get("aliases", ())):
            table[alias] = flag
    return table


def _positional_names(grammar: Mapping[str, Any]) -> list[str]:
    return [p if isinstance(p, str) else p["name"] for p in grammar.get("positionals", ())]


def _parsed_value(flag: _Flag, raw: str, pointer: str, problems: list[Problem]) -> Any:
    if flag.parse is None:
        return raw
    try:  # ECMA-262, as the catalog writes it, within the matcher's time budget: a value cannot hang the run
        parts = full_match(flag.parse, raw)
    except RegexTimeout as exc:  # out of time, or text the matcher cannot take: undecided, so not decoded
        problems.append((pointer, f"{flag.spelling} value not decoded: {exc}"))
        return {"value": raw}
    if parts is None:
        problems.append((pointer, f"{flag.spelling} value {raw!r} does not match {flag.parse!r}"))
        return {"value": raw}
    return {"value": raw, **parts}


def decode_argv(argv: list[str], grammar: Mapping[str, Any]) -> tuple[dict[str, Any], list[Problem]]:
    """Decode `argv` (argv[0] is the program) by `grammar`; returns (decoded object, decode problems)."""
    flags = _flags(grammar)
    positional_names = _positional_names(grammar)
    rest_name = grammar.get("rest")
    values_for_unknown = grammar.get("unknown_flags", "boolean") == "value"

    problems: list[Problem] = []
    arguments: dict[str, Any] = {}
    options: dict[str, Any] = {}
    sequence: list[str] = []
    positional_count = 0
    options_ended = False

    def add_positional(token: str, index: int) -> None:
        nonlocal positional_count
        if positional_count < len(positional_names):
            name = positional_names[positional_count]
            arguments[name] = token
            sequence.append(name)
        elif rest_name:
            arguments.setdefault(rest_name, []).append(token)
            if not sequence or sequence[-1] != rest_name:
                sequence.append(rest_name)
        else:
            problems.append(
                (format_pointer(["arguments"]), f"argv[{index}] {token!r}: unexpected positional argument")
            )
        positional_count += 1

    index = 1
    while index < len(argv):
        token = argv[index]
        if options_ended or token == "-" or not token.startswith("-"):
            add_positional(token, index)
            index += 1
            continue
        if token == "--":
            options_ended = True
            index += 1
            continue
        spelling, has_inline, inline = token.partition("=")
        flag = flags.get(spelling)
        if flag is None:
            pointer = format_pointer(["options", spelling])
            if has_inline:
                value: Any = inline
            elif values_for_unknown and index + 1 < len(argv) and not argv[index + 1].startswith("-"):
                index += 1
                value = argv[index]
            else:
                value = True
            options[spelling] = value
            sequence.append(spelling)
            index += 1
            continue
        pointer = format_pointer(["options", flag.name])
        if flag.takes_value:
            if has_inline:
                raw = inline
            elif index + 1 < len(argv):
                index += 1
                raw = argv[index]
            else:
                problems.append((pointer, f"argv[{index}] {token!r} takes a value, but argv ends"))
                index += 1
                continue
            value = _parsed_value(flag, raw, pointer, problems)
        else:
            if has_inline:
                problems.append((pointer, f"argv[{index}] {token!r}: {flag.spelling} takes no value"))
            value = True
        if flag.repeatable:
            options.setdefault(flag.name, []).append(value)
        else:
            if flag.name in options:
                problems.append(
                    (
                        pointer,
                        f"argv[{index}] {flag.spelling} is given more than once; the consumer keeps only one "
                        "value, so an operator's extra argument must replace the default, not repeat it",
                    )
                )
            options[flag.name] = value
        sequence.append(flag.name)
        index += 1

    program = posixpath.basename(argv[0].replace("\\", "/")) if argv else ""
    decoded = {"program": program, "arguments": arguments, "options": options, "sequence": sequence}
    return decoded, problems
