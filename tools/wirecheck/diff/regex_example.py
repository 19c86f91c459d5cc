"""The shortest string a regex accepts, read off the parse tree (fast path), else found by Hypothesis.

Contract patterns are ECMA-262; the result is always re-checked with `regress` (ECMA semantics), so a pattern the
Python parser reads differently can only cost a witness, never produce a wrong one.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import regress

from wirecheck.ecma_regex import compile_ecma, surely_matches
from wirecheck.json_types import PAYLOAD_LIMIT

try:  # Python ≥ 3.11
    from re import _constants as C  # type: ignore[attr-defined]
    from re import _parser as P  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover
    import sre_constants as C
    import sre_parse as P

_CATEGORY_SAMPLE = {
    C.CATEGORY_DIGIT: "0",
    C.CATEGORY_NOT_DIGIT: "a",
    C.CATEGORY_SPACE: " ",
    C.CATEGORY_NOT_SPACE: "a",
    C.CATEGORY_WORD: "a",
    C.CATEGORY_NOT_WORD: "-",
}


def _from_in(items: list[tuple[Any, Any]]) -> str | None:
    negate = any(op is C.NEGATE for op, _ in items)
    if negate:
        excluded = set()
        for op, arg in items:
            if op is C.LITERAL:
                excluded.add(chr(arg))
            elif op is C.RANGE:
                excluded |= {chr(c) for c in range(arg[0], min(arg[1], arg[0] + 200) + 1)}
        return next((c for c in "a0A-_ .x" if c not in excluded), None)
    for op, arg in items:
        if op is C.LITERAL:
            return chr(arg)
        if op is C.RANGE:
            return chr(arg[0])
        if op is C.CATEGORY:
            return _CATEGORY_SAMPLE.get(arg)
    return None


def _walk(parsed: Any) -> str | None:
    out = []
    for op, arg in parsed:
        if op is C.LITERAL:
            out.append(chr(arg))
        elif op is C.NOT_LITERAL:
            out.append("a" if chr(arg) != "a" else "b")
        elif op is C.ANY:
            out.append("a")
        elif op is C.IN:
            char = _from_in(arg)
            if char is None:
                return None
            out.append(char)
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", None)):
            low, _high, sub = arg
            part = _walk(sub)
            if part is None or len(part) * low > PAYLOAD_LIMIT:
                return None
            out.append(part * low)
        elif op is C.SUBPATTERN:
            part = _walk(arg[-1])
            if part is None:
                return None
            out.append(part)
        elif op is C.BRANCH:
            found = [o for o in (_walk(b) for b in arg[1]) if o is not None]
            if not found:
                return None
            out.append(min(found, key=len))
        elif op is C.AT:
            continue
        else:
            return None
    return "".join(out)


@lru_cache(maxsize=2048)
def regex_example(pattern: str, min_length: int = 0, max_length: int | None = None) -> str | None:
    """A short string matching `pattern` (ECMA search semantics) within the length bounds, or None."""
    if min_length > PAYLOAD_LIMIT:
        return None
    compile_ecma(pattern)  # RegressError when it is not ECMA-262

    def ok(text: str) -> bool:
        return (
            len(text) >= min_length
            and (max_length is None or len(text) <= max_length)
            and surely_matches(pattern, text)
        )

    candidate = None
    try:
        candidate = _walk(P.parse(pattern))
    except (re.error, TypeError, ValueError, OverflowError):
        candidate = None
    if candidate is not None:
        if ok(candidate):
            return candidate
        padded = candidate + "a" * max(0, min_length - len(candidate))
        if ok(padded):
            return padded
        # anchored patterns: grow the last repeatable character
        for filler in "a0A-":
            padded = candidate + filler * max(0, min_length - len(candidate))
            if ok(padded):
                return padded
    return _hypothesis_example(pattern, min_length, max_length, ok)


def _hypothesis_example(pattern: str, min_length: int, max_length: int | None, ok: Any) -> str | None:
    from wirecheck.lazy import hypothesis_home

    hypothesis_home()
    from hypothesis import HealthCheck, find, settings
    from hypothesis import strategies as st
    from hypothesis.errors import NoSuchExample, Unsatisfiable

    try:
        return find(
            st.from_regex(pattern, fullmatch=False),
            ok,
            settings=settings(database=None, max_examples=200, suppress_health_check=list(HealthCheck)),
        )
    except (NoSuchExample, Unsatisfiable, re.error, Exception):
        return None


def _walk_all(parsed: Any, limit: int) -> list[str] | None:
    """Several short matches: every alternative of every branch, zero and one repetition (capped at `limit`)."""
    results = [""]
    for op, arg in parsed:
        if op is C.LITERAL:
            options = [chr(arg)]
        elif op is C.NOT_LITERAL:
            options = ["a" if chr(arg) != "a" else "b"]
        elif op is C.ANY:
            options = ["a"]
        elif op is C.IN:
            char = _from_in(arg)
            if char is None:
                return None
            options = [char]
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", None)):
            low, _high, sub = arg
            parts = _walk_all(sub, limit)
            if parts is None or any(len(p) * low > PAYLOAD_LIMIT for p in parts):
                return None
            options = [p * low for p in parts]
            if low == 0:
                options += parts
        elif op is C.SUBPATTERN:
            inner = _walk_all(arg[-1], limit)
            if inner is None:
                return None
            options = inner
        elif op is C.BRANCH:
            options = []
            for branch in arg[1]:
                options += _walk_all(branch, limit) or []
            if not options:
                return None
        elif op is C.AT:
            continue
        else:
            return None
        results = [r + o for r in results for o in dict.fromkeys(options)][:limit]
    return results


@lru_cache(maxsize=2048)
def regex_examples(pattern: str, limit: int = 24) -> tuple[str, ...]:
    """Distinct short strings matching `pattern` (ECMA-checked), covering its alternatives; may be empty."""
    try:
        compile_ecma(pattern)
    except regress.RegressError:  # not an ECMA-262 pattern (e.g. Python's `(?P<name>...)`): nothing matches it
        return ()
    try:
        found = _walk_all(P.parse(pattern), limit) or []
    except (re.error, TypeError, ValueError, OverflowError, RecursionError):
        found = []
    return tuple(t for t in dict.fromkeys(found) if surely_matches(pattern, t))
