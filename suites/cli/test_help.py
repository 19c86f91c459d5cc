"""`--help` shows every help text as written: the words of each command's and each option's help are in what it
prints, brackets (`[pack ...]`, `./wirecheck[dask]`), underscores and stars included (rich markup ate `[...]`)."""

from __future__ import annotations

import re
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from wirecheck.cli.app import app

_BOX = re.compile(r"[│╭╮╰╯─]")


def _commands() -> list[tuple[list[str], Any]]:
    found = []

    def walk(command: Any, path: list[str]) -> None:  # typer's own click: no isinstance against click's classes
        found.append((path, command))
        if hasattr(command, "commands"):
            for name, sub in command.commands.items():
                walk(sub, [*path, name])

    walk(typer.main.get_command(app), [])
    return found


def _texts(command: Any) -> list[str]:
    texts = [command.help or ""]
    texts += [getattr(param, "help", None) or "" for param in command.params]
    return [t for t in texts if t.strip()]


def _words(text: str) -> list[str]:
    """The words a reader must find, without the backticks Markdown renders as code."""
    return [word.replace("`", "") for word in text.replace("\b", " ").split() if word.strip("`")]


@pytest.mark.parametrize("path", [p for p, _ in _commands()], ids=lambda p: " ".join(p) or "wirecheck")
def test_every_help_word_is_shown(path: list[str]) -> None:
    command = dict((tuple(p), c) for p, c in _commands())[tuple(path)]
    result = _help([*path, "--help"])
    assert result.exit_code == 0, result.output
    shown = " ".join(_BOX.sub(" ", result.output).replace("`", "").split())
    for text in _texts(command):
        for word in _words(text):
            assert word in shown, (path, word, text)


def _help(argv: list[str]) -> Any:
    """`--help` on a wide terminal: no line breaks inside a word (`coding-agent`)."""
    return CliRunner().invoke(app, argv, env={"TERMINAL_WIDTH": "4000", "COLUMNS": "4000"}, terminal_width=4000,
                              max_content_width=4000)


def test_the_bracketed_texts_the_issue_names() -> None:
    assert "(marked [pack ...])" in " ".join(_help(["contracts", "--help"]).output.split())
    assert "'./wirecheck[dask]'" in _help(["validate", "--help"]).output


@pytest.mark.parametrize("argv", [
    ["validate", "xopc@0.0.253", "x.jsonl", "--format", "xml"],
    ["certify", "xopc@0.0.253", "x.jsonl", "--format", "xml"],
    ["diff", "xopc@0.0.251", "xopc@0.0.253", "--format", "xml"],
    ["diff-schemas", "a.json", "b.json", "--format", "xml"],
    ["rules", "--format", "xml"],
    ["stub", "xopc@0.0.253", "--format", "xml", "--", "true"],
])
def test_a_format_no_command_writes_is_said_one_way(argv):
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 2
    assert re.search(r"wirecheck: error: --format xml: expected one of [a-z]+(, [a-z]+)+\n", result.output), \
        result.output


@pytest.mark.parametrize("path", [p for p, _ in _commands()], ids=lambda p: " ".join(p) or "wirecheck")
def test_help_names_values_in_words_and_cites_no_source_file(path: list[str]) -> None:
    """Issue 42, 6: no Python type names (`<str>`, `<list[str]>`, `<int range>`), no doubled brackets in the usage
    line (`[[SPEC...]]...`), no `{REQUIRED}` braces, no path of a source file (`diff/gate.py`)."""
    output = _help([*path, "--help"]).output
    assert not re.search(r"<(str|int|float|bool|path|file|datetime|list\[)|\[\[|\]\]|\.\.\.\]\.\.\.|\{[A-Z]|\.py\b",
                         output), output
