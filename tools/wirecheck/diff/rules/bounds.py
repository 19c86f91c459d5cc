"""Facets: length, range, item-count, member-count and `contains`-count bounds, patterns and formats."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from wirecheck.contracts.formats import URL_CASES, URL_FORMATS
from wirecheck.diff.instances import FORMAT_SAMPLES, NoExample, example
from wirecheck.diff.model import Change, Probe
from wirecheck.diff.regex_example import regex_example, regex_examples
from wirecheck.diff.rules import Pair, node_rule
from wirecheck.json_types import PAYLOAD_LIMIT

# formats a URL may be asserted by: a change between two of them is judged on the URL edge cases
URL_LIKE = URL_FORMATS | {"uri", "uri-reference", "iri", "iri-reference", "url"}

# keyword → (lower bound?, facet family)
_BOUNDS = {
    "minLength": (True, "LENGTH"),
    "maxLength": (False, "LENGTH"),
    "minimum": (True, "RANGE"),
    "exclusiveMinimum": (True, "RANGE"),
    "maximum": (False, "RANGE"),
    "exclusiveMaximum": (False, "RANGE"),
    "minItems": (True, "ITEMS"),
    "maxItems": (False, "ITEMS"),
    "minProperties": (True, "PROPERTY_COUNT"),
    "maxProperties": (False, "PROPERTY_COUNT"),
    "minContains": (True, "CONTAINS"),
    "maxContains": (False, "CONTAINS"),
}


def _narrowed(keyword: str, old: Any, new: Any) -> bool:
    lower, _ = _BOUNDS[keyword]
    if old is None:
        return True
    if new is None:
        return False
    return new > old if lower else new < old


def _probe_values(family: str, values: list[Any], pair: Pair, side: str) -> list[Any]:
    out: list[Any] = []
    for n in values:
        if n is None:
            continue
        if family == "RANGE":
            out += [n, n - 1, n + 1]
            if isinstance(n, float) and n + 1 == n:  # 1e20 + 1 == 1e20: step to the neighbouring double instead
                out += [math.nextafter(n, -math.inf), math.nextafter(n, math.inf)]
            continue
        sizes = [int(k) for k in (n, n - 1, n + 1) if 0 <= k <= PAYLOAD_LIMIT]
        flat = pair.old if side == "old" else pair.new
        schemas = pair.old_side if side == "old" else pair.new_side
        if family == "LENGTH":
            out += ["a" * k for k in sizes]
        elif family == "PROPERTY_COUNT":
            out += [_object_of(schemas, flat, k) for k in sizes]
        else:  # ITEMS: arrays of the items' example; CONTAINS: of what `contains` matches
            item: Any = None
            where = flat.items if family == "ITEMS" else flat.contains
            if where is not None:
                try:
                    item = example(schemas, where)
                except NoExample:
                    item = None
            out += [[item] * k for k in sizes]
    return out


def _object_of(side: Any, flat: Any, size: int) -> dict[str, Any]:
    """An object of `size` members as the node at `flat` may hold them: its required members first, then its
    other declared ones, then fresh names (`a`, `b`, …) under what its other names admit."""
    out: dict[str, Any] = {}
    names = sorted(flat.properties, key=lambda n: (n not in flat.required, n))
    for name in names[:size]:
        try:
            out[name] = example(side, flat.properties[name])
        except NoExample:
            out[name] = None
    other: Any = 0
    if flat.additional is not None:
        try:
            other = example(side, flat.additional)
        except NoExample:
            other = None
    fresh = (chr(ord("a") + i % 26) + str(i // 26 or "") for i in range(PAYLOAD_LIMIT))
    while len(out) < size:
        name = next(fresh)
        if name not in flat.properties:
            out[name] = other
    return out


_RULE = {"LENGTH": "LENGTH_RANGE", "RANGE": "RANGE", "ITEMS": "ITEMS_RANGE", "PROPERTY_COUNT": "PROPERTY_COUNT",
         "CONTAINS": "CONTAINS_RANGE"}


# a numeric bound's two spellings: (inclusive keyword, exclusive keyword)
_NUMERIC = {"lower": ("minimum", "exclusiveMinimum"), "upper": ("maximum", "exclusiveMaximum")}


def _numeric(keywords: dict[str, Any], which: str) -> tuple[Any, bool] | None:
    """A node's lower or upper numeric bound as (value, exclusive), the tighter of its two spellings; None if none."""
    inclusive, exclusive = _NUMERIC[which]
    found = [(keywords[inclusive], False)] if isinstance(keywords.get(inclusive), int | float) else []
    found += [(keywords[exclusive], True)] if isinstance(keywords.get(exclusive), int | float) else []
    if not found:
        return None
    # the tighter: for a lower bound the larger value (exclusive when equal), for an upper one the smaller
    return max(found) if which == "lower" else min(found, key=lambda b: (b[0], not b[1]))


def _spelled(keywords: dict[str, Any], which: str) -> str:
    """A bound as the node writes it: `maximum 5`, `exclusiveMaximum 5`, both, or `none`."""
    words = [f"{k} {show_number(keywords[k])}" for k in _NUMERIC[which] if isinstance(keywords.get(k), int | float)]
    return " and ".join(words) or "none"


def show_number(value: Any) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() and abs(value) < 2**53 else str(value)


def _rank(bound: tuple[Any, bool] | None, sign: int) -> tuple[float, int]:
    """How narrow a bound is (larger: narrower); `sign` -1 for an upper bound."""
    if bound is None:
        return (-math.inf, 0)
    return (sign * bound[0], int(bound[1]))


def _numeric_bounds(pair: Pair) -> Iterator[Change]:
    """A numeric bound that changed its spelling (`maximum` ↔ `exclusiveMaximum`, or both written) is one bound:
    `upper bound at / changed from maximum 5 to exclusiveMaximum 5`, narrowed or widened as the values say."""
    for which in _NUMERIC:
        old, new = _numeric(pair.old.keywords, which), _numeric(pair.new.keywords, which)
        if old == new:
            continue
        sign = 1 if which == "lower" else -1  # a larger lower bound, a smaller upper one: narrower
        narrowed = _rank(new, sign) > _rank(old, sign)
        values = [b[0] for b in (old, new) if b is not None]
        side = "old" if narrowed else "new"
        probes = [Probe(side, pair.path, v, True) for v in _probe_values("RANGE", values, pair, side)]
        yield pair.change("RANGE_NARROWED" if narrowed else "RANGE_WIDENED", probes=probes, keyword=f"{which} bound",
                          key=f"{which} bound", old=_spelled(pair.old.keywords, which),
                          new=_spelled(pair.new.keywords, which))


@node_rule("LENGTH_RANGE_NARROWED", "LENGTH_RANGE_WIDENED", "RANGE_NARROWED", "RANGE_WIDENED",
           "ITEMS_RANGE_NARROWED", "ITEMS_RANGE_WIDENED", "PROPERTY_COUNT_NARROWED", "PROPERTY_COUNT_WIDENED",
           "CONTAINS_RANGE_NARROWED", "CONTAINS_RANGE_WIDENED")
def bounds(pair: Pair) -> Iterator[Change]:
    respelled = {which for which, words in _NUMERIC.items()
                 if any(k in pair.old.keywords or k in pair.new.keywords for k in words[1:])
                 or sum(k in pair.old.keywords for k in words) > 1 or sum(k in pair.new.keywords for k in words) > 1}
    if respelled:  # an exclusive bound on either side: the bound as one (below); plain ones keyword by keyword
        yield from (c for c in _numeric_bounds(pair) if c.key.split()[0] in respelled)
    for keyword, (_, family) in _BOUNDS.items():
        if family == "RANGE" and any(keyword in _NUMERIC[which] for which in respelled):
            continue
        before, after = pair.old.keywords.get(keyword), pair.new.keywords.get(keyword)
        if before == after:
            continue
        if family == "CONTAINS" and (pair.old.contains is None or pair.new.contains is None):
            continue  # minContains and maxContains mean nothing without a `contains`
        values = [before, after]
        if _narrowed(keyword, before, after):
            rule = _RULE[family] + "_NARROWED"
            probes = [Probe("old", pair.path, v, True) for v in _probe_values(family, values, pair, "old")]
        else:
            rule = _RULE[family] + "_WIDENED"
            probes = [Probe("new", pair.path, v, True) for v in _probe_values(family, values, pair, "new")]
        yield pair.change(rule, probes=probes, keyword=keyword, key=keyword,  # an absent bound is "none", not "null"
                          old="none" if before is None else before, new="none" if after is None else after)


@node_rule("MULTIPLE_OF_ADDED", "MULTIPLE_OF_REMOVED", "MULTIPLE_OF_CHANGED")
def multiple_of(pair: Pair) -> Iterator[Change]:
    before, after = pair.old.keywords.get("multipleOf"), pair.new.keywords.get("multipleOf")
    if before == after:
        return
    samples: list[Any] = [0.5, 1, 3]
    for step in (before, after):
        if isinstance(step, int | float) and not isinstance(step, bool) and step > 0:
            samples += [step, step / 2, step * 3]  # a multiple, and numbers only the other step may divide
    probes = [Probe(side, pair.path, n, True) for n in dict.fromkeys(samples) for side in ("old", "new")]
    rule = ("MULTIPLE_OF_ADDED" if before is None else "MULTIPLE_OF_REMOVED" if after is None
            else "MULTIPLE_OF_CHANGED")
    yield pair.change(rule, probes=probes, old=before, new=after)


@node_rule("PATTERN_CHANGED", "PATTERN_ADDED", "PATTERN_REMOVED")
def patterns(pair: Pair) -> Iterator[Change]:
    before, after = pair.old.keywords.get("pattern"), pair.new.keywords.get("pattern")
    if before == after:
        return
    probes: list[Probe] = []
    samples: list[str] = []
    for pattern in (before, after):
        if pattern is not None:
            samples += regex_examples(pattern)
            for low in (0, 1, 8):
                text = regex_example(pattern, low)
                if text is not None:
                    samples.append(text)
    samples += ["", "a", "A", "0", "-", "a b", "x" * 200]
    for text in dict.fromkeys(samples):
        probes += [Probe("old", pair.path, text, True), Probe("new", pair.path, text, True)]
    rule = "PATTERN_ADDED" if before is None else "PATTERN_REMOVED" if after is None else "PATTERN_CHANGED"
    yield pair.change(rule, probes=probes, old=before, new=after)


@node_rule("FORMAT_ADDED", "FORMAT_REMOVED", "FORMAT_CHANGED")
def formats(pair: Pair) -> Iterator[Change]:
    before, after = pair.old.keywords.get("format"), pair.new.keywords.get("format")
    if before == after:
        return
    samples = ["not a formatted value", FORMAT_SAMPLES.get(before or "", ""), FORMAT_SAMPLES.get(after or "", "")]
    if {before, after} & URL_LIKE:  # where RFC 3986 and the WHATWG parser (or two WHATWG readers) disagree
        samples += [case.text for case in URL_CASES]
    probes = [Probe(side, pair.path, s, True) for s in dict.fromkeys(samples) for side in ("old", "new")]
    rule = "FORMAT_ADDED" if before is None else "FORMAT_REMOVED" if after is None else "FORMAT_CHANGED"
    yield pair.change(rule, probes=probes, old=before, new=after)
