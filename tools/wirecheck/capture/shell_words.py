"""A shell-quoted command line split into its words, as `shlex.split(text, comments=False, posix=True)` splits it
(suites/capture/test_shell_words.py holds it to shlex on random text), in time linear in the text.

shlex builds each word a character at a time (`self.token = self.token + nextchar`), so one long word costs time in
the square of its length: a 1 MB argument took 14 s, a 5 MB one more than a minute. Here a word is read piece by
piece, each piece found with str.find or a one-character-class pattern (no nested repetition, which Python 3.11.2's
possessive quantifiers get wrong): outside quotes a backslash escapes any character; single quotes keep everything;
inside double quotes a backslash escapes only `\\` and `"` (shlex's posix mode, not a POSIX shell's `$` and
backquote)."""

from __future__ import annotations

import re

_WHITESPACE = " \t\r\n"  # shlex's: not every Unicode space
_PLAIN = re.compile(r"""[^ \t\r\n'"\\]+""")
_UNCLOSED, _UNESCAPED = "No closing quotation", "No escaped character"  # shlex's words


def shell_words(text: str) -> list[str]:
    """The words of `text`; ValueError with shlex's words where a quote is never closed or a backslash ends it."""
    words: list[str] = []
    at, end = 0, len(text)
    while True:
        while at < end and text[at] in _WHITESPACE:
            at += 1
        if at >= end:
            return words
        pieces: list[str] = []
        while at < end and text[at] not in _WHITESPACE:
            char = text[at]
            if char == "'":
                close = text.find("'", at + 1)
                if close < 0:
                    raise ValueError(_UNCLOSED)
                pieces.append(text[at + 1:close])
                at = close + 1
            elif char == '"':
                at = _double_quoted(text, at + 1, pieces)
            elif char == "\\":
                if at + 1 >= end:
                    raise ValueError(_UNESCAPED)
                pieces.append(text[at + 1])
                at += 2
            else:
                match = _PLAIN.match(text, at)
                assert match is not None
                pieces.append(match.group())
                at = match.end()
        words.append("".join(pieces))


def _double_quoted(text: str, at: int, pieces: list[str]) -> int:
    """The inside of a double-quoted piece from `at` into `pieces`; where it ends, past its closing quote. Each
    escape is looked for only up to the next quote, and each quote found once: linear however many escapes."""
    end = len(text)
    quote = text.find('"', at)
    while True:
        escape = text.find("\\", at, quote if quote >= 0 else end)
        if escape < 0:
            if quote < 0:
                raise ValueError(_UNCLOSED)
            pieces.append(text[at:quote])
            return quote + 1
        pieces.append(text[at:escape])
        if escape + 1 >= end:
            raise ValueError(_UNESCAPED)
        following = text[escape + 1]
        pieces.append(following if following in '\\"' else "\\" + following)
        at = escape + 2
        if quote >= 0 and at > quote:  # the escape took that quote: the next one closes
            quote = text.find('"', at)
