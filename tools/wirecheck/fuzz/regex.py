"""Strings from ECMA-262 patterns: translate to Python `re`, generate with Hypothesis, re-check with `regress`.

JSON Schema patterns are ECMA-262 and unanchored. Generating with `fullmatch=True` yields strings the whole of
which match, so they also match anywhere; `re.ASCII` gives `\\d`, `\\w` and `\\b` their ECMA (ASCII) meaning.
Every string is re-checked with the ECMA engine the reference validator uses (`ecma_regex.search`, time-bounded),
so a translation gap can cost speed (rejections) but never validity; a re-check that runs out of time counts as
"not known to match" and as "not known not to match" alike: the string is not used.
"""

from __future__ import annotations

import re
import string
from functools import lru_cache

from hypothesis import strategies as st

from wirecheck.ecma_regex import surely_does_not_match
from wirecheck.ecma_regex import surely_matches as matches

# ECMA named groups `(?<name>` are Python's `(?P<name>`; lookbehind `(?<=`/`(?<!` are the same in both.
_NAMED_GROUP = re.compile(r"\(\?<(?![=!])")


class UnsupportedPattern(ValueError):
    """A pattern Python's `re` cannot express (e.g. `\\p{L}`); the caller falls back to filtering."""


@lru_cache(maxsize=4096)
def to_python(pattern: str) -> re.Pattern[str]:
    translated = _NAMED_GROUP.sub("(?P<", pattern)
    try:
        return re.compile(translated, re.ASCII)
    except re.error as exc:
        raise UnsupportedPattern(f"{pattern!r}: {exc}") from None


_TEXT = st.characters(codec="utf-8")  # utf-8 excludes lone surrogates


# For a pattern beside a `format` (uri, email, ...): characters a URI may carry literally, so that `[^/?#]+`
# does not spend every draw on code points the format check then refuses.
URI_SAFE = st.sampled_from(string.ascii_letters + string.digits + "-._~:/?#[]@!$&'()*+,;=")


def strings_matching(pattern: str, alphabet: st.SearchStrategy[str] | None = None) -> st.SearchStrategy[str]:
    """Strings that match the ECMA pattern `pattern` (search semantics)."""
    chars = alphabet if alphabet is not None else _TEXT
    try:
        compiled = to_python(pattern)
    except UnsupportedPattern:
        return st.text(chars, max_size=20).filter(lambda text: matches(pattern, text))
    return st.from_regex(compiled, fullmatch=True, alphabet=chars).filter(lambda text: matches(pattern, text))


def strings_not_matching(pattern: str, like: str = "") -> list[str]:
    """A few candidate strings that the ECMA pattern rejects (for mutants), nearest to `like` first."""
    candidates = ["", "\u0000", " ", "!", "~~", "-", like + "\u0000!", "\u0000" + like, like[:-1], like + " "]
    seen: list[str] = []
    for text in candidates:
        if text not in seen and surely_does_not_match(pattern, text):
            seen.append(text)
    return seen
