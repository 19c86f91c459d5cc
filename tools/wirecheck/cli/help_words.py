"""What `--help` calls a parameter's value: the words click-based tools use (`TEXT`, `INTEGER`, `PATH`, the metavar
a parameter names), not typer 0.29's Python type names (`<str>`, `<list[str]>`, `<int range>`), and a usage line
that brackets an optional argument once (`[SPEC]...`, not `[[SPEC...]]...`) and leaves a required one bare
(`PACKAGE@VERSION`, not `{PACKAGE@VERSION}`).

typer renders these in `TyperArgument` / `TyperOption` (`display_type`, `display_type_rich`, `_usage_display_name`,
typer/core.py); when those are not there (another typer), nothing is replaced and `suites/cli/test_help.py` says so.
"""

from __future__ import annotations

import re
from typing import Any

WORDS = {"str": "TEXT", "int": "INTEGER", "float": "NUMBER", "bool": "BOOLEAN", "path": "PATH", "file": "PATH",
         "datetime": "DATETIME", "int range": "INTEGER", "float range": "NUMBER"}


def word(label: str) -> str:
    """typer's `<label>` as a word: a type name translated, a list by its items, choices (`a|b`) kept."""
    label = label.strip("<>")
    if (items := re.fullmatch(r"list\[(.*)\]", label)) is not None:
        label = items.group(1)
    return WORDS.get(label, label if "|" in label else label.upper())


def install() -> None:
    try:
        from typer.core import TyperArgument, TyperOption
    except ImportError:
        return
    names = ("display_type", "display_type_rich", "_usage_display_name")
    if not all(hasattr(TyperArgument, n) for n in names) or not hasattr(TyperOption, "display_type"):
        return
    if getattr(TyperOption.display_type, "wirecheck_words", False):
        return  # installed already
    typer_type = TyperOption.display_type

    def option_type(self: Any, ctx: Any) -> str:
        return word(typer_type(self, ctx))

    def argument_type(self: Any, ctx: Any) -> str | None:
        return None if self.metavar is not None else word(typer_type(self, ctx))

    def argument_usage(self: Any) -> str:
        name = self.display_name_raw
        if self.nargs != 1 and not name.endswith("..."):
            name += "..."
        return name if self.required else f"[{name}]"

    option_type.wirecheck_words = True  # type: ignore[attr-defined]
    TyperOption.display_type = option_type  # type: ignore[method-assign]
    TyperArgument.display_type = option_type  # type: ignore[method-assign]
    TyperArgument.display_type_rich = argument_type  # type: ignore[method-assign]
    TyperArgument._usage_display_name = argument_usage  # type: ignore[method-assign]
