"""Structural containment proofs: `narrow ⊆ wide`, shown keyword by keyword.

jsonschema-rs `covers` decides containment on canonical forms, but on large closed objects refined by unions
(Qoder's `anyOf: [{required: [type]}, {required: [subtype]}]`) it often spends 50–300 ms to answer UNKNOWN. Most
real changes are local: the two schemas are written alike except under a few properties. This prover walks both
schemas together and proves containment from the parts, and answers only "proven" or "not proven": a failed
proof falls back to `covers`, so it can make the diff faster and more decisive, never less sound.

The rules it uses, each sound on its own (narrow = N, wide = W):
- dropping a constraint from N, or an intersectand both sides share, keeps a true `N ⊆ W` true;
- a finite N (enum/const) is contained when each value validates against W (decided by jsonschema-rs);
- an object N ⊆ W when W requires no more, every property W constrains is contained, no property N allows is
  refused by W (closed models), and every other keyword of W is written identically in N;
- a union N = anyOf/oneOf(Ni) is contained when every Ni is; N ⊆ anyOf(Wj) when N ⊆ some Wj;
- recursion is coinductive: a pair of locations being proven is assumed to hold when met again (sound because
  every instance is a finite tree and each step descends into a sub-instance).
"""

from __future__ import annotations

from typing import Any

from regress import RegressError

from wirecheck.diff.shape import same_shape
from wirecheck.diff.side import Side, child, join
from wirecheck.diff.vocabulary import assertions, is_annotation, json_equal, required_alternatives
from wirecheck.ecma_regex import RegexTimeout, search

_APPLICATORS = {"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$ref", "dependentSchemas"}
_OBJECT = {"properties", "required", "additionalProperties", "patternProperties", "propertyNames", "minProperties",
           "maxProperties", "dependentRequired", "unevaluatedProperties"}
_ARRAY = {"items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains", "minContains", "maxContains",
          "unevaluatedItems"}
_STRING = {"minLength", "maxLength", "pattern", "format", "contentEncoding", "contentMediaType", "contentSchema"}
_NUMBER = {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}
_MAX_STEPS = 20000


class _Budget(Exception):
    pass


def prove_subset(narrow: Side, narrow_location: str, narrow_view: str, wide: Side, wide_location: str,
                 wide_view: str) -> bool:
    """True only when every value `narrow` (in its view) accepts is accepted by `wide` (in its view)."""
    prover = _Prover(narrow, narrow_view, wide, wide_view)
    try:
        return prover.sub(narrow_location, wide_location)
    except (_Budget, KeyError, TypeError, ValueError, RecursionError):
        return False


def _types(node: dict[str, Any]) -> set[str] | None:
    if "type" not in node:
        return None
    found = set(node["type"]) if isinstance(node["type"], list) else {node["type"]}
    return found | {"integer"} if "number" in found else found


class _Prover:
    def __init__(self, narrow: Side, narrow_view: str, wide: Side, wide_view: str):
        self.narrow, self.narrow_view, self.wide, self.wide_view = narrow, narrow_view, wide, wide_view
        self.assumed: set[tuple[str, str]] = set()
        self.order: list[tuple[str, str]] = []  # `assumed` in the order added, so a failed attempt can undo its own
        self.steps = 0

    def deref(self, side: Side, view: str, location: str) -> tuple[Any, str]:
        node = side.node(location, view)
        for _ in range(64):  # a bare $ref or a one-part allOf (annotations aside) is what it wraps
            said = assertions(node) if isinstance(node, dict) else None
            if said == {"$ref"}:
                location = join(location, node["$ref"])
            elif said == {"allOf"} and isinstance(node["allOf"], list) and len(node["allOf"]) == 1:
                location = child(location, "allOf", 0)
            else:
                break
            node = side.node(location, view)
        return node, location

    def sub(self, n_loc: str, w_loc: str) -> bool:
        self.steps += 1
        if self.steps > _MAX_STEPS:
            raise _Budget
        n, n_ref = self.deref(self.narrow, self.narrow_view, n_loc)
        w, w_ref = self.deref(self.wide, self.wide_view, w_loc)
        # both sides reached through a $ref (a union member, a named type): digests are cheap to ask there
        by_ref, n_loc, w_loc = n_ref != n_loc and w_ref != w_loc, n_ref, w_ref
        if w is True or (isinstance(w, dict) and not assertions(w)):
            return True
        if n is False:
            return True
        if w is False or n is True or not isinstance(n, dict) or not isinstance(w, dict):
            return False
        if by_ref and self.narrow.digest(n_loc) == self.wide.digest(w_loc):
            return True  # written identically, refs followed: every schema contains itself (and its tolerant view)
        key = (n_loc, w_loc)
        if key in self.assumed:
            return True
        self.assumed.add(key)
        self.order.append(key)
        return self.objects(n, n_loc, w, w_loc)

    def objects(self, n: dict[str, Any], n_loc: str, w: dict[str, Any], w_loc: str) -> bool:
        """`n ⊆ w` by the rules below; else, when the narrow side is an intersection, by one of its parts alone
        (dropping a constraint from N keeps N ⊆ W true): a kind's schema wraps its envelope in `allOf`."""
        mark = len(self.order)
        if self.keywords(n, n_loc, w, w_loc):
            return True
        parts = n.get("allOf")
        if not isinstance(parts, list) or not parts:
            return False
        self.assumed.difference_update(self.order[mark:])
        del self.order[mark:]
        return any(self.attempt(child(n_loc, "allOf", i), w_loc) for i in range(len(parts)))

    def keywords(self, n: dict[str, Any], n_loc: str, w: dict[str, Any], w_loc: str) -> bool:
        # a finite narrow side: check its values one by one against the wide side, exactly
        if "const" in n or "enum" in n:
            values = [n["const"]] if "const" in n else list(n["enum"])
            validator = self.wide.validator(w_loc, self.wide_view)
            return all(validator.is_valid(v) for v in values)
        n_alternatives = required_alternatives(n)
        # a union on the narrow side that the wide side does not share: each member must be contained. (An anyOf
        # of `required` lists only refines the object it sits in: it stays a constraint, matched below.)
        for word in ("anyOf", "oneOf"):
            if word in n and not (word == "anyOf" and n_alternatives) and not self.shared(n, n_loc, w, w_loc, word):
                return all(self.sub(child(n_loc, word, i), w_loc) for i in range(len(n[word])))
        # the wide side's intersectands: each must contain the narrow side (unless both share it)
        for index in range(len(w.get("allOf", []))):
            if not self.shared(n, n_loc, w, w_loc, "allOf") and not self.sub(n_loc, child(w_loc, "allOf", index)):
                return False
        if ("$ref" in w and not self.shared(n, n_loc, w, w_loc, "$ref")
                and not self.sub(n_loc, join(w_loc, w["$ref"]))):
            return False
        for word in ("oneOf", "not", "if", "then", "else", "dependentSchemas"):
            if word in w and not self.shared(n, n_loc, w, w_loc, word):
                return False
        if "anyOf" in w and not self.shared(n, n_loc, w, w_loc, "anyOf"):
            w_rest = {k: v for k, v in w.items() if k != "anyOf"}
            w_alternatives = required_alternatives(w)
            if w_alternatives:  # every way the narrow side has of being present names all of one wide list
                present = set(n.get("required", []))
                if not all(any(wide <= narrow | present for wide in w_alternatives)
                           for narrow in n_alternatives or [set()]):
                    return False
                return self.plain(n, n_loc, w_rest, w_loc)
            # the narrow side, without the wide union, inside one member of it; or, when it allows several types,
            # each of its one-type parts inside one member (`type: [string, null]` ⊆ `anyOf: [{$ref: String},
            # {type: null}]`): the parts together are the narrow side
            marks = self.marks(self.narrow, self.narrow_view, n_loc)
            members = [child(w_loc, "anyOf", i) for i in range(len(w["anyOf"]))
                       if not _conflict(marks, self.marks(self.wide, self.wide_view, child(w_loc, "anyOf", i)))]
            if not any(self.attempt(n_loc, member) for member in members):
                kinds = n.get("type")
                if not (isinstance(kinds, list) and len(kinds) > 1 and not {"anyOf", "oneOf"} & set(n)):
                    return False
                if not all(any(self.attempt_part({**n, "type": kind}, n_loc, member) for member in members)
                           for kind in kinds):
                    return False
            return self.plain(n, n_loc, w_rest, w_loc)
        return self.plain(n, n_loc, w, w_loc)

    def marks(self, side: Side, view: str, location: str) -> dict[str, Any]:
        """Property → the constant it is fixed to (a discriminator, usually), for the node at `location`."""
        key = ("marks", view, location)
        if key not in side.memo:
            node, at = self.deref(side, view, location)
            found = {}
            for name in node.get("properties", {}) if isinstance(node, dict) else ():
                prop, _ = self.deref(side, view, child(at, "properties", name))
                if isinstance(prop, dict) and "const" in prop:
                    found[name] = prop["const"]
            side.memo[key] = found
        marks: dict[str, Any] = side.memo[key]
        return marks

    def attempt(self, n_loc: str, w_loc: str) -> bool:
        """One alternative of several: its coinductive assumptions are kept only if it succeeds."""
        mark = len(self.order)
        if self.sub(n_loc, w_loc):
            return True
        self.assumed.difference_update(self.order[mark:])
        del self.order[mark:]
        return False

    def attempt_part(self, part: dict[str, Any], n_loc: str, w_loc: str) -> bool:
        """`attempt` for a part of the narrow node at `n_loc` (written there, but with fewer types)."""
        mark = len(self.order)
        w, w_ref = self.deref(self.wide, self.wide_view, w_loc)
        if w is True or (isinstance(w, dict) and not assertions(w)):
            return True
        if isinstance(w, dict) and self.objects(part, n_loc, w, w_ref):
            return True
        self.assumed.difference_update(self.order[mark:])
        del self.order[mark:]
        return False

    def shared(self, n: dict[str, Any], n_loc: str, w: dict[str, Any], w_loc: str, word: str) -> bool:
        """Both sides carry the same intersectand (`word`), written alike (refs followed). Compared as written
        (the strict view): the narrow side is always read strictly, and a tolerant reading of the wide side only
        accepts more, so an intersectand written alike is contained either way."""
        if word not in n or word not in w:
            return False
        x, y = n[word], w[word]
        if word == "$ref":  # compare what the references point to, never their text
            return same_shape(self.narrow, join(n_loc, x), self.wide, join(w_loc, y))
        if isinstance(x, dict) and isinstance(y, dict):
            return same_shape(self.narrow, child(n_loc, word), self.wide, child(w_loc, word))
        if isinstance(x, list) and isinstance(y, list) and all(isinstance(v, dict | bool) for v in x + y):
            return len(x) == len(y) and all(same_shape(self.narrow, child(n_loc, word, i), self.wide,
                                                       child(w_loc, word, i)) for i in range(len(x)))
        return json_equal(x, y) and _no_refs(x)

    def plain(self, n: dict[str, Any], n_loc: str, w: dict[str, Any], w_loc: str) -> bool:
        n_types, w_types = _types(n), _types(w)
        if w_types is not None and (n_types is None or not n_types <= w_types):
            return False
        kinds = n_types if n_types is not None else {"object", "array", "string", "number", "integer"}
        handled = _APPLICATORS | {"type"}
        if "object" in kinds and not self.object_keywords(n, n_loc, w, w_loc):
            return False
        if "array" in kinds and not self.array_keywords(n, n_loc, w, w_loc):
            return False
        if "string" in kinds and not self.bounds(n, w, ("minLength",), ("maxLength",), ("pattern", "format",
                                                                                       "contentEncoding",
                                                                                       "contentMediaType",
                                                                                       "contentSchema")):
            return False
        if kinds & {"number", "integer"} and not self.number_keywords(n, w):
            return False
        handled |= _OBJECT | _ARRAY | _STRING | _NUMBER
        # anything else the wide side says must be said identically by the narrow side
        return all(k in n and json_equal(n[k], v) for k, v in w.items() if k not in handled and not is_annotation(k))

    def object_keywords(self, n: dict[str, Any], n_loc: str, w: dict[str, Any], w_loc: str) -> bool:
        if not set(w.get("required", [])) <= set(n.get("required", [])):
            return False
        for word in ("patternProperties", "propertyNames", "minProperties", "maxProperties", "dependentRequired",
                     "unevaluatedProperties"):
            if word in w and not (word in n and json_equal(n[word], w[word]) and _no_refs(w[word])):
                return False
        n_props, w_props = n.get("properties", {}), w.get("properties", {})
        n_extra, w_extra = _other_names(n), _other_names(w)
        n_closed = n_extra is False and "patternProperties" not in n
        w_closed = w_extra is False
        for name in w_props:
            # what the narrow side lets a value under `name` be: its property, else the patterns the name matches
            # (any one of them is a weaker constraint than all), else its other names' schema
            matched = _matching(n.get("patternProperties"), name)
            if name in n_props:
                if not self.sub(child(n_loc, "properties", name), child(w_loc, "properties", name)):
                    return False
            elif matched:
                if matched is _UNDECIDED or not any(self.attempt(child(n_loc, "patternProperties", pattern),
                                                                 child(w_loc, "properties", name))
                                                    for pattern in matched):
                    return False
            elif n_closed or n_extra is False:
                continue
            elif isinstance(n_extra, dict):
                if not self.sub(_other_at(n, n_loc), child(w_loc, "properties", name)):
                    return False
            else:
                return False
        for name in n_props:
            if name in w_props:
                continue
            if _matching(w.get("patternProperties"), name) not in ((), _UNDECIDED):
                continue  # the wide side's patterns, which the narrow side shares (above), read it there too
            if w_closed:
                if self.narrow.node(child(n_loc, "properties", name)) is not False:
                    return False
            elif isinstance(w_extra, dict) and not self.sub(child(n_loc, "properties", name), _other_at(w, w_loc)):
                return False
        if w_closed or isinstance(w_extra, dict):
            # closed, or open only to the names of patterns the wide side shares (checked above)
            if n_closed or (n_extra is False and "patternProperties" in w):
                return True
            if isinstance(n_extra, dict) and isinstance(w_extra, dict):
                return self.sub(_other_at(n, n_loc), _other_at(w, w_loc))
            return False
        return True

    def array_keywords(self, n: dict[str, Any], n_loc: str, w: dict[str, Any], w_loc: str) -> bool:
        for word in ("prefixItems", "contains", "minContains", "maxContains", "unevaluatedItems"):
            if word in w and not (word in n and json_equal(n[word], w[word]) and _no_refs(w[word])):
                return False
        if "items" in w:
            if "items" not in n or "prefixItems" in n:
                return False
            if not self.sub(child(n_loc, "items"), child(w_loc, "items")):
                return False
        if w.get("uniqueItems") is True and n.get("uniqueItems") is not True:
            return False
        return self.bounds(n, w, ("minItems",), ("maxItems",), ())

    def bounds(self, n: dict[str, Any], w: dict[str, Any], lower: tuple[str, ...], upper: tuple[str, ...],
               equal: tuple[str, ...]) -> bool:
        for word in lower:
            if word in w and not (word in n and n[word] >= w[word]):
                return False
        for word in upper:
            if word in w and not (word in n and n[word] <= w[word]):
                return False
        return all(word not in w or (word in n and json_equal(n[word], w[word])) for word in equal)

    def number_keywords(self, n: dict[str, Any], w: dict[str, Any]) -> bool:
        if "multipleOf" in w and not ("multipleOf" in n and json_equal(n["multipleOf"], w["multipleOf"])):
            return False
        for word, tighter in (("minimum", lambda a, b: a >= b), ("exclusiveMinimum", lambda a, b: a >= b),
                              ("maximum", lambda a, b: a <= b), ("exclusiveMaximum", lambda a, b: a <= b)):
            if word in w and not (word in n and tighter(n[word], w[word])):
                return False
        return True


def _other_names(node: dict[str, Any]) -> Any:
    """The schema of the names an object's `properties` and `patternProperties` leave: its `additionalProperties`,
    else its `unevaluatedProperties` where nothing else evaluates names (no in-place applicator beside it)."""
    found = node.get("additionalProperties") if "additionalProperties" in node else node.get(
        "unevaluatedProperties") if _APPLICATORS.isdisjoint(node) else None
    if found is True or (isinstance(found, dict) and not assertions(found)):
        return None  # `{}` or `true`: as open as no keyword at all
    return found


def _other_at(node: dict[str, Any], location: str) -> str:
    """Where `_other_names` of the node at `location` is written."""
    return child(location, "additionalProperties" if "additionalProperties" in node else "unevaluatedProperties")


_UNDECIDED: Any = ("<undecided>",)


def _matching(patterns: Any, name: str) -> Any:
    """The patterns of a `patternProperties` that match `name` (ECMA-262), () for none, or _UNDECIDED when one
    cannot be decided (not ECMA-262, or out of time)."""
    if not isinstance(patterns, dict):
        return ()
    try:
        return tuple(pattern for pattern in patterns if search(pattern, name))
    except (RegexTimeout, RegressError):
        return _UNDECIDED


def _conflict(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Both fix one property to different constants: no member of one can be in the other (skipped unproven)."""
    return any(name in b and not json_equal(value, b[name]) for name, value in a.items())


def _no_refs(value: Any) -> bool:
    """Compared as raw JSON, a `$ref` would be compared by its text, not by what it points to: refuse."""
    if isinstance(value, dict):
        return "$ref" not in value and all(_no_refs(v) for v in value.values())
    if isinstance(value, list):
        return all(_no_refs(v) for v in value)
    return True
