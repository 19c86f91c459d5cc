"""Strings from ECMA-262 patterns: translate to Python `re`, generate with Hypothesis, re-check with `regress`.

JSON Schema patterns are ECMA-262 and unanchored. Generating with `fullmatch=True` yields strings the whole of
which match, so they also match anywhere; `re.ASCII` gives `\\d`, `\\w` and `\\b` their ECMA (ASCII) meaning.
Every string is re-checked with the ECMA engine the reference validator uses, so a translation gap can cost
speed (rejections) but never validity.
"""

from __future__ import annotations

import re
from functools import lru_cache

import regress
from hypothesis import strategies as st

# ECMA named groups `(?<name>` are Python's `(?P<name>`; lookbehind `(?<=`/`(?<!` are the same in both.
_NAMED_GROUP = re.compile(r"\(\?<(?![=!])")


class UnsupportedPattern(ValueError):
    """A pattern Python's `re` cannot express (e.g. `\\p{L}`); the caller falls back to filtering."""


@lru_cache(maxsize=4096)
def ecma(pattern: str) -> regress.Regex:
    return regress.Regex(pattern, flags="u")


def matches(pattern: str, text: str) -> bool:
    """JSON Schema `pattern`: ECMA-262 search semantics."""
    return ecma(pattern).find(text) is not None


@lru_cache(maxsize=4096)
def to_python(pattern: str) -> re.Pattern[str]:
    translated = _NAMED_GROUP.sub("(?P<", pattern)
    try:
        return re.compile(translated, re.ASCII)
    except re.error as exc:
        raise UnsupportedPattern(f"{pattern!r}: {exc}") from None


_TEXT = st.characters(codec="utf-8", exclude_categories=("Cs",))


def strings_matching(pattern: str) -> st.SearchStrategy[str]:
    """Strings that match the ECMA pattern `pattern` (search semantics)."""
    try:
        compiled = to_python(pattern)
    except UnsupportedPattern:
        return st.text(_TEXT, max_size=20).filter(lambda text: matches(pattern, text))
    return st.from_regex(compiled, fullmatch=True, alphabet=_TEXT).filter(lambda text: matches(pattern, text))


def strings_not_matching(pattern: str, like: str = "") -> list[str]:
    """A few candidate strings that the ECMA pattern rejects (for mutants), nearest to `like` first."""
    candidates = ["", "\u0000", " ", "!", "~~", "-", like + "\u0000!", "\u0000" + like, like[:-1], like + " "]
    seen: list[str] = []
    for text in candidates:
        if text not in seen and not matches(pattern, text):
            seen.append(text)
    return seen
