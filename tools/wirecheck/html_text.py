"""Text from captures, schemas, scope files and programs, safe in an HTML report: shown as written, never markup.

The one HTML escape of wirecheck's reports (certification and diff): `html.escape` (so no `<`, `&` or quote of a
value opens markup or leaves an attribute) after `findings.printable`, so a control character (ESC, BEL, `\\x01`,
a bidirectional override) is shown as its escape, as in every other report, and never reaches the page raw, where
a browser drops it or lets it reorder the line. Line feeds are kept (a <pre> block's lines; elsewhere HTML shows
one as a space, and a `code` element keeps it: the reports style it `white-space: pre-wrap`).
"""

from __future__ import annotations

from html import escape as _html_escape

from wirecheck.findings import printable
from wirecheck.markdown_text import spans


def escape(value: object) -> str:
    """`value` as HTML text or an attribute's value."""
    return _html_escape(printable(str(value)))


def words(text: str) -> str:
    """A message in HTML: escaped, its code spans (names, as `markdown_text.span` writes them in every message)
    as <code>; every other backtick shown as it is."""
    return "".join(f"<code>{escape(part)}</code>" if is_code else escape(part) for is_code, part in spans(text))
