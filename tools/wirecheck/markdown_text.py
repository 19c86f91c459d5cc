"""Text from captures and schemas, safe in a Markdown report: shown as written, never rendered as HTML or markup.

A capture's field can hold `<script>` or `<img src=x onerror=...>`; a Markdown renderer (a pull request comment, a
README) passes raw HTML through. Outside code spans every character Markdown or HTML would interpret is escaped
(`text`); inside a code span nothing is interpreted, so only a backtick run long enough to close the span early, a
table's `|` and line breaks need care (`code`). Control characters are escaped first (`findings.printable`).
"""

from __future__ import annotations

import re

from wirecheck.findings import printable

# markup (emphasis, links, code, table cells, strike-through) escaped with a backslash; HTML as entities
_SPECIAL = re.compile(r"[\\`*_\[\]|~<>&]")
_ENTITIES = {"<": "&lt;", ">": "&gt;", "&": "&amp;"}


def text(value: object) -> str:
    """`value` as literal Markdown text (one line: a table cell or a list item)."""
    flat = printable(str(value)).replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
    return _SPECIAL.sub(lambda m: _ENTITIES.get(m[0], "\\" + m[0]), flat)


def code(value: object, table: bool = True) -> str:
    """`value` as an inline code span that holds it literally (`table`: inside a table cell, where GitHub reads `|`
    as a column break even in code, so it is written `\\|`)."""
    flat = printable(str(value)).replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
    if table:
        flat = flat.replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", flat)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") or not flat.strip() else ""
    return f"{fence}{pad}{flat}{pad}{fence}"
