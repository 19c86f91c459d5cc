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
    as a column break even in code, so it is written `\\|`); a line feed or tab in it is shown as its escape: a
    name is shown as it is."""
    flat = printable(str(value), line=True)
    if table:
        flat = flat.replace("|", "\\|")
    return span(flat)


def span(value: str) -> str:
    """A CommonMark code span holding `value` exactly: a fence of one backtick more than the longest run in it, a
    space inside each fence where it starts or ends with a backtick, starts and ends with a space, or is empty.
    The one way a message marks a name (``unknown field ``a`b`` ``): a reader of the text, a Markdown renderer and
    the HTML report (html_text.words) all find where the name starts and ends, whatever backticks it holds."""
    longest = max((len(run) for run in re.findall(r"`+", value)), default=0)
    fence = "`" * (longest + 1)
    spaced = value[:1] == value[-1:] == " " and value.strip()  # CommonMark takes one space off each end of those
    pad = " " if value[:1] == "`" or value[-1:] == "`" or spaced or not value else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def literal(text: str) -> str:
    """`text` (a value or name put into a message) as it is, or as a `span` when it holds a backtick: then every
    backtick of a message belongs to a span, and the HTML report (html_text.words) shows the value whole (a
    property named `x` was shown as <code>x</code>, its backticks gone)."""
    return span(text) if "`" in text else text


# a code span as `span` writes it (and CommonMark reads it): a backtick run, then the shortest text up to a run of
# the same length; a space inside each fence is padding when both are there
_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)


def spans(text: str) -> list[tuple[bool, str]]:
    """`text` cut into (is code, its text) parts at the code spans `span` writes: what the HTML report shows as
    <code>, the rest as words (a lone backtick is a word's)."""
    parts: list[tuple[bool, str]] = []
    end = 0
    for match in _SPAN.finditer(text):
        parts.append((False, text[end:match.start()]))
        inner = match[2]
        if inner[:1] == inner[-1:] == " " and inner.strip():
            inner = inner[1:-1]
        parts.append((True, inner))
        end = match.end()
    parts.append((False, text[end:]))
    return [part for part in parts if part[1]]
