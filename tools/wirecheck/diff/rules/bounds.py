"""Facets of scalars and arrays: length, range and item-count bounds, patterns and formats."""

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
        if family == "LENGTH":
            out += ["a" * k for k in sizes]
        else:
            flat = pair.old if side == "old" else pair.new
            item: Any = None
            if flat.items is not None:
                try:
                    item = example(pair.old_side if side == "old" else pair.new_side, flat.items)
                except NoExample:
                    item = None
            out += [[item] * k for k in sizes]
    return out


@node_rule("LENGTH_RANGE_NARROWED", "LENGTH_RANGE_WIDENED", "RANGE_NARROWED", "RANGE_WIDENED",
           "ITEMS_RANGE_NARROWED", "ITEMS_RANGE_WIDENED")
def bounds(pair: Pair) -> Iterator[Change]:
    for keyword, (_, family) in _BOUNDS.items():
        before, after = pair.old.keywords.get(keyword), pair.new.keywords.get(keyword)
        if before == after:
            continue
        values = [before, after]
        if _narrowed(keyword, before, after):
            rule = f"{family}_RANGE_NARROWED" if family != "RANGE" else "RANGE_NARROWED"
            probes = [Probe("old", pair.path, v, True) for v in _probe_values(family, values, pair, "old")]
        else:
            rule = f"{family}_RANGE_WIDENED" if family != "RANGE" else "RANGE_WIDENED"
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
