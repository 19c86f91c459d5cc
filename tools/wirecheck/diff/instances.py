"""Minimal payloads for a schema location, with values planted at chosen instance paths.

This is how witnesses are built by construction: "the smallest message the new release accepts, with the added
enum value at /agent_type". Generation is best effort (a heuristic over common keywords); every payload is
re-validated by both validators before it is shown, so a wrong guess costs a witness, never a wrong claim.
"""

from __future__ import annotations

import dataclasses
from contextvars import ContextVar
from typing import Any

from wirecheck.contracts.formats import URL_FORMATS
from wirecheck.diff.flat import Flat, flatten, refining_alternatives, within
from wirecheck.diff.model import ABSENT, ITEM, STRICT
from wirecheck.diff.regex_example import regex_example, regex_examples
from wirecheck.diff.side import Side
from wirecheck.diff.vocabulary import is_annotation
from wirecheck.json_types import PAYLOAD_LIMIT

FORMAT_SAMPLES = {
    "date-time": "2026-01-01T00:00:00Z",
    "date": "2026-01-01",
    "time": "00:00:00Z",
    "duration": "P1D",
    "email": "a@example.com",
    "idn-email": "a@example.com",
    "hostname": "example.com",
    "idn-hostname": "example.com",
    "ipv4": "127.0.0.1",
    "ipv6": "::1",
    "uri": "https://example.com/",
    "uri-reference": "https://example.com/",
    "iri": "https://example.com/",
    "iri-reference": "https://example.com/",
    "url": "https://example.com/",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "json-pointer": "/a",
    "relative-json-pointer": "0",
    "regex": "a",
    "uri-template": "https://example.com/{a}",
    **{fmt: "https://example.com/" for fmt in URL_FORMATS},  # every URL reader of contracts/formats.py
}

_MAX_DEPTH = 64  # payload levels: a witness for a change as deep as the walk reaches


class NoExample(Exception):
    """No payload could be built (recursion too deep, contradictory keywords)."""


def example(side: Side, location: str, plants: dict[tuple[Any, ...], Any] | None = None,
            prefer: dict[tuple[Any, ...], tuple[str, ...]] | None = None) -> Any:
    """A small payload valid (we hope; callers re-check) against `location`, with `plants` at their paths.
    `prefer`: instance path → the members the unions there are built from first (the members a change was found
    in: AsyncAPI's message is a `oneOf` of a reference and a `oneOf` holding the message object, at one path)."""
    if not prefer:
        return _example(side, location, (), dict(plants or {}), 0)
    token = _PREFER.set(prefer)
    try:
        return _example(side, location, (), dict(plants or {}), 0)
    finally:
        _PREFER.reset(token)


# the members to build unions from, for the payload being built (example's `prefer`)
_PREFER: ContextVar[dict[tuple[Any, ...], tuple[str, ...]]] = ContextVar("prefer", default={})  # noqa: B039 (never mutated)


def _under(plants: dict[tuple[Any, ...], Any], path: tuple[Any, ...]) -> dict[tuple[Any, ...], Any]:
    n = len(path)
    return {p: v for p, v in plants.items() if len(p) > n and p[:n] == path}


def _example(side: Side, location: str, path: tuple[Any, ...], plants: dict, depth: int) -> Any:
    if path in plants:
        return plants[path]
    if (plants and _under(plants, path)) or (_PREFER.get() and any(p[:len(path)] == path for p in _PREFER.get())):
        return _build(side, location, path, plants, depth)
    # Nothing planted here or below: the subtree depends only on where it is written (and how deep, for the
    # nesting limit), so the probes of a diff share it. Payloads are built, validated and serialised, never
    # changed in place, so sharing a subtree between them is safe.
    key = ("example", location, depth)
    found = side.memo.get(key, _UNBUILT)
    if found is _UNBUILT:
        try:
            found = _build(side, location, path, {}, depth)
        except NoExample as exc:
            found = _Failed(str(exc))
        side.memo[key] = found
    if type(found) is _Failed:
        raise NoExample(found.reason)
    return found


class _Failed:
    __slots__ = ("reason",)

    def __init__(self, reason: str):
        self.reason = reason


_UNBUILT = object()


def _build(side: Side, location: str, path: tuple[Any, ...], plants: dict, depth: int) -> Any:
    if depth > _MAX_DEPTH:
        raise NoExample(f"schema nests deeper than {_MAX_DEPTH} at {location}")
    flat = flatten(side, location)
    if flat.false:
        raise NoExample(f"{location} admits nothing")
    if flat.union:
        alternatives = _alternatives(side, flat)
        if alternatives is not None:
            return _from_alternatives(side, flat, alternatives, path, plants, depth)
        return _from_union(side, flat, path, plants, depth)
    return _plain(side, flat, path, plants, depth)


def _plain(side: Side, flat: Flat, path: tuple[Any, ...], plants: dict, depth: int) -> Any:
    if flat.enum is not None:
        if not flat.enum:
            raise NoExample(f"{flat.location}: empty enum")
        return flat.enum[0]
    below = _under(plants, path)
    types = flat.types or (("object",) if below and not any(p[len(path)] == ITEM for p in below) else None)
    if types is None:
        types = ("array",) if below else ("null",)
    kind = _pick_type(types, below, path)
    return _of_type(side, flat, kind, path, plants, depth)


def _pick_type(types: tuple[str, ...], below: dict, path: tuple[Any, ...]) -> str:
    if below:
        first = next(iter(below))[len(path)]
        wanted = "array" if first == ITEM or isinstance(first, int) else "object"
        if wanted in types:
            return wanted
    for preferred in ("object", "string", "integer", "number", "boolean", "array", "null"):
        if preferred in types:
            return preferred
    return types[0]


def _from_union(side: Side, flat: Flat, path: tuple[Any, ...], plants: dict, depth: int) -> Any:
    first: Any = None
    found = False
    below = _under(plants, path)
    wanted = _PREFER.get().get(path, ())
    branches = sorted(flat.branches, key=lambda b: b not in wanted) if wanted else flat.branches
    for branch in branches:
        if found and below and _refuses(side, branch, below, len(path)):
            continue  # built, it would fail its own branch: only the first built branch is needed regardless
        try:
            candidate = _member(side, flat, branch, path, plants, depth + 1)
        except NoExample:
            continue
        if not found:
            first, found = candidate, True
        if below and not isinstance(candidate, _holder(below, len(path))):
            continue  # a member built as a scalar or a list holds no member planted below it (`on: "push"`, /on/x)
        # asked through the side's memo of answers: the same member is built alike for many probes (and, in a
        # `$ref` ring, each member's validator compiles the whole ring again once the budget dropped it)
        if side.accepts(branch, STRICT, candidate) and (
                _implies_union(side, flat.location, branch) or side.accepts(flat.location, STRICT, candidate)):
            return candidate
    if not found:
        raise NoExample(f"no branch of {flat.location} gives an example")
    return first


def _holder(below: dict[tuple[Any, ...], Any], at: int) -> type:
    """The container a value planted `below` (paths longer than `at`) needs at `at`: a list for an item, else a
    dict."""
    step = next(iter(below))[at]
    return list if step == ITEM or isinstance(step, int) else dict


def _implies_union(side: Side, location: str, branch: str) -> bool:
    """Whether `branch` accepting a payload means `location` accepts it, so the union's own validator (one more
    jsonschema-rs compile of all the branches reach) need not be asked: `location` is an `anyOf` and annotations
    (no other assertion, no `$id`/`$schema`), and `branch` is one of its members. ACP writes every optional
    capability so (`anyOf: [{$ref: ...}, {type: null}]`). Not a `oneOf`: another member accepting too refuses."""
    holder, keyword, _ = branch.rsplit("/", 2)
    if holder != location or keyword != "anyOf":
        return False
    node = side.node(location)
    return isinstance(node, dict) and all(
        key == "anyOf" or (is_annotation(key) and key not in ("$id", "$schema")) for key in node)


def member_example(side: Side, union: Flat, branch: str) -> Any:
    """A small payload of one member of the union in `union` (merged with the object beside it, if any)."""
    return _member(side, union, branch, (), {}, 0)


def _member(side: Side, flat: Flat, branch: str, path: tuple[Any, ...], plants: dict, depth: int) -> Any:
    """A payload of one member of `flat`'s union. Beside the object's own properties, the member only refines that
    object (ACP's `jsonrpc` + request | response, xopc's `content` or `attachments`): it is built merged with it,
    since built alone it would lack what the object requires."""
    if not (flat.properties or flat.required or flat.closed):
        return _example(side, branch, path, plants, depth)
    merged = within(flat, flatten(side, branch))
    if merged.false:
        raise NoExample(f"{branch} admits nothing")
    if merged.union:
        return _from_union(side, merged, path, plants, depth)
    return _plain(side, merged, path, plants, depth)


def _refuses(side: Side, branch: str, below: dict[tuple[Any, ...], Any], at: int) -> bool:
    """Whether the payload built from `branch` with the plants `below` (paths longer than `at`) fails the branch
    itself: it is built as an object holding a planted property that the branch's own `additionalProperties:
    false` (no `patternProperties`) does not name. additionalProperties judges a name by the `properties` of its
    own schema object alone, whatever else applies there."""
    tokens = [p[at] for p in below]
    if any(not isinstance(token, str) or token == ITEM for token in tokens):
        return False  # an array index: the branch may be built as an array
    flat = flatten(side, branch)
    if ((flat.union and _alternatives(side, flat) is None)  # a refining anyOf still builds the object itself
            or flat.enum is not None or flat.false or (flat.types is not None and "object" not in flat.types)):
        return False
    node = side.node(flat.location)
    if not isinstance(node, dict) or node.get("additionalProperties") is not False or "patternProperties" in node:
        return False
    declared = node.get("properties", {})
    inserted = {p[at] for p, value in below.items() if len(p) > at + 1 or value is not ABSENT}
    return any(name not in declared for name in inserted)


def _alternatives(side: Side, flat: Flat) -> list[set[str]] | None:
    """The property sets the node's own `anyOf` asks for one of, when it stands beside the object's properties
    (`flat.refining_alternatives`), or None for a union of alternative shapes. Such a union only refines the
    object: its example is the object with one set required, not a member built alone (`{"type": null}`)."""
    return refining_alternatives(side, flat, ("anyOf",)) or None


def refined_objects(side: Side, flat: Flat) -> list[Any]:
    """Small objects of `flat`, a node whose own union of `required` lists refines it (or an object with none):
    one per property set the union asks for, each with that set present beside what the node requires, and
    nothing else (no other set's names): the objects a change of those sets is judged on."""
    out = []
    for names in refining_alternatives(side, flat) or [set()]:
        plain = dataclasses.replace(flat, union=None, branches=[], required=flat.required | names)
        try:
            out.append(_plain(side, plain, (), {}, 0))
        except NoExample:
            continue
    return out


def _from_alternatives(side: Side, flat: Flat, alternatives: list[set[str]], path: tuple[Any, ...], plants: dict,
                       depth: int) -> Any:
    first: Any = None
    for index, required in enumerate(alternatives):
        key = ("alternative", flat.location, index)
        merged = side.memo.get(key)
        if merged is None:
            merged = side.memo[key] = dataclasses.replace(flat, union=None, branches=[],
                                                          required=flat.required | required)
        candidate = _plain(side, merged, path, plants, depth)
        if side.accepts(flat.location, STRICT, candidate):
            return candidate
        if index == 0:
            first = candidate
    return first


def _of_type(side: Side, flat: Flat, kind: str, path: tuple[Any, ...], plants: dict, depth: int) -> Any:
    kw = flat.keywords
    if kind == "object":
        value: dict[str, Any] = {}
        below = _under(plants, path)
        names = sorted(flat.required) + sorted(
            {p[len(path)] for p in below} - set(flat.required), key=str
        )
        required = set(flat.required)
        for name, deps in (kw.get("dependentRequired") or {}).items():
            if name in names:
                required |= set(deps)
                names += [d for d in deps if d not in names]
        minimum = kw.get("minProperties", 0)
        for name in flat.properties:
            if len(names) >= minimum:
                break
            if name not in names:
                names.append(name)
        extra = _extra_members(side, flat, set(names), minimum - len(names)) if len(names) < minimum else {}
        names += list(extra)
        for name in names:
            child = (*path, name)
            if plants.get(child) is ABSENT:
                continue
            if name in extra:  # a member minProperties asks for, beyond the declared ones
                location = extra[name]
                value[name] = _example(side, location, child, plants, depth + 1) if location else None
            elif name in flat.also and child not in plants:  # declared by a member and by its object: both apply
                value[name] = _both(side, flat.also[name], flat.properties[name], child, plants, depth + 1)
            elif name in flat.properties:
                value[name] = _example(side, flat.properties[name], child, plants, depth + 1)
            elif (pattern := _pattern_of(flat, name)) is not None:  # a name a patternProperties entry reads
                value[name] = _example(side, pattern, child, plants, depth + 1)
            elif flat.additional is not None:
                value[name] = _example(side, flat.additional, child, plants, depth + 1)
            elif child in plants:
                value[name] = plants[child]
            else:
                value[name] = _planted_or_default(child, plants)
        return value
    if kind == "array":
        below = _under(plants, path)
        count = max(kw.get("minItems", 0), len(flat.prefix_items) if kw.get("minItems", 0) > 0 else 0)
        if below:
            count = max(count, 1, *(p[len(path)] + 1 for p in below if isinstance(p[len(path)], int)))
        if count > PAYLOAD_LIMIT:
            raise NoExample(f"{flat.location} needs {count} items, more than a readable example holds")
        items = []
        for index in range(count):
            location = flat.prefix_items[index] if index < len(flat.prefix_items) else flat.items
            child = (*path, index) if (*path, index) in plants or _under(plants, (*path, index)) else (*path, ITEM)
            if location is None:
                items.append(_planted_or_default(child, plants))
            else:
                items.append(_example(side, location, child, plants, depth + 1))
        return items
    if kind == "string":
        fmt = kw.get("format")
        low, high = kw.get("minLength", 0), kw.get("maxLength")
        if low > PAYLOAD_LIMIT:
            raise NoExample(f"{flat.location} needs {low} characters, more than a readable example holds")
        if "pattern" in kw:
            return _patterned(kw["pattern"], fmt, low, high)
        if fmt in FORMAT_SAMPLES:
            return FORMAT_SAMPLES[fmt]
        if kw.get("contentEncoding") == "base64":
            return "AAAA"[: max(low, 4)] if low <= 4 else "A" * (low + (-low) % 4)
        return "a" * low if low else ""
    if kind in ("integer", "number"):
        return _number(kw, kind)
    if kind == "boolean":
        return False
    return None


def _pattern_of(flat: Flat, name: Any) -> str | None:
    """The schema of the first `patternProperties` entry whose pattern matches `name`, or None."""
    if not flat.patterns or not isinstance(name, str):
        return None
    from wirecheck.ecma_regex import surely_matches

    return next((at for pattern, at in flat.patterns.items() if surely_matches(pattern, name)), None)


def _extra_members(side: Side, flat: Flat, taken: set[str], count: int) -> dict[str, str | None]:
    """`count` more member names for an object whose `minProperties` its declared properties do not reach, each
    with the schema its value is built from (None: any value): first a name each `patternProperties` pattern
    matches (SchemaStore's `jobs: {patternProperties: {^[_a-zA-Z]…: job}, minProperties: 1}`: no witness of a
    workflow could be built without one), then, where the object is open, fresh names its `additionalProperties`
    (or nothing) reads. A name that `propertyNames` refuses is not used. (issue 39: a `minProperties` on a
    required sibling stopped every witness.)"""
    from wirecheck.ecma_regex import surely_matches

    names_ok = side.validator(flat.names) if flat.names else None
    out: dict[str, str | None] = {}

    def fits(name: str | None) -> bool:
        return (name is not None and name not in taken and name not in out
                and (names_ok is None or names_ok.is_valid(name)))

    for pattern, location in flat.patterns.items():
        if len(out) >= count:
            break
        for name in (regex_example(pattern, 1, None), *regex_examples(pattern)):
            if name is not None and fits(name) and surely_matches(pattern, name):
                out[name] = location
                break
    fresh = (f"{letter}{index or ''}" for index in range(count + 1) for letter in "abcdefgh")
    while len(out) < count and not flat.closed:
        name = next(fresh)
        if fits(name) and not any(surely_matches(p, name) for p in flat.patterns):
            out[name] = flat.additional
    return out


def _both(side: Side, first: str, second: str, path: tuple[Any, ...], plants: dict, depth: int) -> Any:
    """A value of two schemas that both apply at one place (merged as `within` merges a member with its object)."""
    merged = within(flatten(side, first), flatten(side, second))
    if merged.false:
        raise NoExample(f"{second} admits nothing")
    if merged.union:
        return _example(side, second, path, plants, depth)
    return _plain(side, merged, path, plants, depth)


def _patterned(pattern: str, fmt: str | None, low: int, high: int | None) -> str:
    """A string matching `pattern`, the length bounds and, when given, the asserted format."""
    from wirecheck.contracts.reference import FORMAT_CHECKER
    from wirecheck.ecma_regex import compile_ecma, surely_matches

    compile_ecma(pattern)  # RegressError when it is not ECMA-262
    candidates = [FORMAT_SAMPLES.get(fmt or ""), regex_example(pattern, low, high), *regex_examples(pattern)]
    for text in candidates:
        if (isinstance(text, str) and len(text) >= low and (high is None or len(text) <= high)
                and surely_matches(pattern, text) and (fmt is None or FORMAT_CHECKER.conforms(text, fmt))):
            return text
    first = regex_example(pattern, low, high)
    if first is None:
        raise NoExample(f"no string matches {pattern!r}")
    return first


def _planted_or_default(child: tuple[Any, ...], plants: dict) -> Any:
    below = _under(plants, child)
    if not below:
        return plants.get(child)
    first = next(iter(below))[len(child)]
    if first == ITEM or isinstance(first, int):
        return [_planted_or_default((*child, ITEM), plants)]
    result = {}
    for p in below:
        name = p[len(child)]
        key = (*child, name)
        result[name] = plants[key] if key in plants else _planted_or_default(key, plants)
    return {k: v for k, v in result.items() if v is not ABSENT}


def _number(kw: dict[str, Any], kind: str) -> Any:
    low = kw.get("minimum")
    if "exclusiveMinimum" in kw:
        ex = kw["exclusiveMinimum"]
        low = max(low, ex + 1) if low is not None else ex + 1
        if kind == "number" and isinstance(ex, float):
            low = ex + 0.5
    high = kw.get("maximum")
    if "exclusiveMaximum" in kw:
        ex = kw["exclusiveMaximum"]
        high = min(high, ex - 1) if high is not None else ex - 1
    value = 0 if (low is None or low <= 0) and (high is None or high >= 0) else (low if low is not None else high)
    step = kw.get("multipleOf")
    if step:
        import math

        value = math.ceil(value / step) * step
        if isinstance(step, int) and kind == "integer":
            value = int(value)
    if kind == "integer":
        import math

        value = math.ceil(value) if low is not None and value == low else int(value or 0)
    return value
