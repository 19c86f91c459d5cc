"""A shell-quoted command line split into its words, as `shlex.split(text, comments=False, posix=True)` splits it
(suites/capture/test_shell_words.py holds it to shlex on random text), in time linear in the text.

shlex builds each word a character at a time (`self.token = self.token + nextchar`), so one long word costs time in
the square of its length: a 1 MB argument took 14 s, a 5 MB one more than a minute. Here each word is one match of
a regular expression with possessive repetition (no backtracking: bounded memory), then its pieces unquoted:
outside quotes a backslash escapes any character; single quotes keep everything; inside double quotes a backslash
escapes only `\\` and `"` (shlex's posix mode, not a POSIX shell's `$` and backquote)."""

from __future__ import annotations

import re

_WHITESPACE = " \t\r\n"  # shlex's: not every Unicode space
_WORD = re.compile(r"""(?:[^ \t\r\n'"\\]++|'[^']*+'|"(?:[^"\\]++|\\.)*+"|\\.)++""", re.S)
_PIECE = re.compile(r"""[^ \t\r\n'"\\]++|'([^']*+)'|"((?:[^"\\]++|\\.)*+)"|\\(.)""", re.S)
_ESCAPED_IN_DOUBLE = re.compile(r"""\\([\\"])""")


def shell_words(text: str) -> list[str]:
    """The words of `text`; ValueError with shlex's words ("No closing quotation", "No escaped character")."""
    words: list[str] = []
    at, end = 0, len(text)
    while True:
        while at < end and text[at] in _WHITESPACE:
            at += 1
        if at >= end:
            return words
        match = _WORD.match(text, at)
        stop = match.end() if match is not None else at
        if stop < end and text[stop] not in _WHITESPACE:  # a quote never closed, or a backslash at the very end
            raise ValueError(_unfinished(text, stop))
        assert match is not None
        pieces = []
        for piece in _PIECE.finditer(match.group()):
            single, double, escaped = piece.groups()
            if single is not None:
                pieces.append(single)
            elif double is not None:
                pieces.append(_ESCAPED_IN_DOUBLE.sub(r"\1", double))
            elif escaped is not None:
                pieces.append(escaped)
            else:
                pieces.append(piece.group())
        words.append("".join(pieces))
        at = stop


def _unfinished(text: str, at: int) -> str:
    """shlex's words for text from `at` (outside any quote) to its end, which never finishes a word."""
    quote, escaped = "", False
    for char in text[at:]:
        if escaped:
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif not quote and char in "'\"":
            quote = char
        elif char == quote:
            quote = ""
    return "No escaped character" if escaped else "No closing quotation"
