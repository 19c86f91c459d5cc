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
- a union N = anyOf/oneOf(Ni) is contained when every Ni is; N ⊆ anyOf(Wj) when N ⊆ some Wj; N ⊆ oneOf(Wj)
  when N ⊆ some Wj and N shares no value with any other Wk (jsonschema-rs: `N ∩ Wk` is unsatisfiable);
- a union of `required` lists beside an object's properties refines it: each way N has of being present names
  all of one W list (anyOf), or of exactly one with a name of every other surely absent (oneOf);
- `patternProperties`: the same patterns on both sides, each narrow pattern's schema inside the wide one's;
- an intersection N = allOf(Ni) ⊆ W when every conjunct of W (its allOf parts, its unions and `not`, the rest
  of its keywords) contains N or one Ni;
- recursion is coinductive: a pair of locations being proven is assumed to hold when met again (sound because
  every instance is a finite tree and each step descends into a sub-instance); the assumptions of a failed
  attempt are dropped before anything else is tried.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jsonschema_rs
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
        try:
            proven = prover.sub(narrow_location, wide_location)
        except RecursionError:  # a `$ref` ring of a few hundred definitions is walked that deep: once more, deeper
            prover = _Prover(narrow, narrow_view, wide, wide_view)
            proven = _deeper(lambda: prover.sub(narrow_location, wide_location))
    except (_Budget, KeyError, TypeError, ValueError, RecursionError):
        return False
    if proven:  # every assumption left stands: each was checked, given the others (a coinductive proof)
        prover.proven.update(prover.assumed)
    return proven


DEEP_FRAMES = 40_000  # Python frames allowed to a proof retried deeper (a 560-definition ring needs about 2,300)
DEEP_STACK_BYTES = 512 * 2**20  # the thread's stack for it: reserved, touched only as deep as the proof goes


def _deeper(prove: Callable[[], bool]) -> bool:
    """`prove()` in a thread of its own with a large stack and a higher recursion limit (the interpreter's, for
    that while: the calling thread waits), so a proof that walks a long `$ref` ring is not cut off at the default
    1,000 frames. A RecursionError past DEEP_FRAMES is raised again here."""
    import sys
    import threading

    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(prove())
        except BaseException as exc:  # handed to the caller, who decides
            outcome.append(exc)

    limit, size = sys.getrecursionlimit(), threading.stack_size()
    sys.setrecursionlimit(max(limit, DEEP_FRAMES))
    try:
        threading.stack_size(DEEP_STACK_BYTES)
        worker = threading.Thread(target=run, name="wirecheck-deep-proof")
        worker.start()
        worker.join()
    finally:
        threading.stack_size(size)
        sys.setrecursionlimit(limit)
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return bool(outcome[0])


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
        # pairs earlier proofs between these two sides and views established, kept on the narrow side: kinds that
        # reach the same definitions (every kind reaching a `$ref` ring reaches all of it) prove them once. Held
        # with the wide side itself, so an id reused by another side after this one is gone never matches
        key = ("proven", narrow_view, id(wide), wide_view)
        held = narrow.memo.get(key)
        if held is None or held[0] is not wide:
            held = narrow.memo[key] = (wide, set())
        self.proven: set[tuple[str, str]] = held[1]

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
        if key in self.assumed or key in self.proven:
            return True
        self.assumed.add(key)
        self.order.append(key)
        return self.objects(n, n_loc, w, w_loc)

    def objects(self, n: dict[str, Any], n_loc: str, w: dict[str, Any], w_loc: str) -> bool:
        """`n ⊆ w` by the rules below; else, when the narrow side is an intersection, part by part: every conjunct
        of the wide side (its `allOf` parts, its unions and `not`, the rest of its keywords) inside the narrow side
        as a whole or inside one of its conjuncts (dropping a constraint from N keeps N ⊆ W true): a kind's schema
        wraps its envelope in `allOf`, and SchemaStore's new `push` event is `allOf: [{type: object, properties…},
        {not: …}, …]` where the old one wrote `{type: object, allOf: [{not: …}, …]}` beside its properties."""
        mark = len(self.order)
        if self.keywords(n, n_loc, w, w_loc):
            return True
        parts = n.get("allOf")
        if not isinstance(parts, list) or not parts:
            return False
        self.undo(mark)
        narrow = [(*self.deref(self.narrow, self.narrow_view, child(n_loc, "allOf", i)), True)
                  for i in range(len(parts))]
        rest = {k: v for k, v in n.items() if k != "allOf"}
        if assertions(rest):
            narrow.append((rest, n_loc, False))
        wide = self.conjuncts(w, w_loc)
        if len(wide) > 1:
            narrow.append((n, n_loc, False))
        return all(any(self.inside(*part, *conjunct) for part in narrow) for conjunct in wide)

    def conjuncts(self, w: dict[str, Any], w_loc: str) -> list[tuple[Any, str, bool]]:
        """The wide node as an intersection: (node, location, whether it is the node written there) of its `allOf`
        parts, each union and `not` beside them, and the rest of its keywords (kept whole where an
        `unevaluated*` keyword reads what the others evaluate)."""
        out = [(*self.deref(self.wide, self.wide_view, child(w_loc, "allOf", i)), True)
               for i in range(len(w.get("allOf", [])))]
        rest = {k: v for k, v in w.items() if k != "allOf"}
        if not {"unevaluatedProperties", "unevaluatedItems"} & set(rest):
            for word in ("oneOf", "anyOf", "not"):
                if word in rest and not (word == "anyOf" and required_alternatives(rest)):
                    out.append(({word: rest.pop(word)}, w_loc, False))
        if assertions(rest):
            out.append((rest, w_loc, not out))
        return out

    def inside(self, n: Any, n_loc: str, n_whole: bool, w: Any, w_loc: str, w_whole: bool) -> bool:
        """One attempt at `n ⊆ w` where either may be a part of the node written at its location."""
        if n_whole and w_whole:
            return self.attempt(n_loc, w_loc)
        if w is True or (isinstance(w, dict) and not assertions(w)):
            return True
        if not isinstance(n, dict) or not isinstance(w, dict):
            return n is False
        mark = len(self.order)
        if self.keywords(n, n_loc, w, w_loc):
            return True
        self.undo(mark)
        return False

    def undo(self, mark: int) -> None:
        """Drop the coinductive assumptions made since `mark` (a failed attempt never discharged them)."""
        self.assumed.difference_update(self.order[mark:])
        del self.order[mark:]

    def keywords(self, n: dict[str, Any], n_loc: str, w: dict[str, Any], w_loc: str) -> bool:
        # a finite narrow side: check its values one by one against the wide side, exactly
        if "const" in n or "enum" in n:
            values = [n["const"]] if "const" in n else list(n["enum"])
            validator = self.wide.validator(w_loc, self.wide_view)
            return all(validator.is_valid(v) for v in values)
        n_word, n_alternatives = _alternatives(n)
        # a union on the narrow side that the wide side does not share: each member must be contained. (A union
        # of `required` lists only refines the object it sits in: it stays a constraint, matched below.)
        for word in ("anyOf", "oneOf"):
            if word in n and word != n_word and not self.shared(n, n_loc, w, w_loc, word):
                return all(self.sub(child(n_loc, word, i), w_loc) for i in range(len(n[word])))
        # the wide side's intersectands: each must contain the narrow side (unless both share it)
        for index in range(len(w.get("allOf", []))):
            if not self.shared(n, n_loc, w, w_loc, "allOf") and not self.sub(n_loc, child(w_loc, "allOf", index)):
                return False
        if ("$ref" in w and not self.shared(n, n_loc, w, w_loc, "$ref")
                and not self.sub(n_loc, join(w_loc, w["$ref"]))):
            return False
        if "oneOf" in w and not self.shared(n, n_loc, w, w_loc, "oneOf"):
            w_lists = required_alternatives(w, "oneOf")
            if w_lists and not self.exactly_one(n, n_loc, n_word, n_alternatives, w_lists):
                return False
            if not w_lists and not self.one_of(n_loc, w, w_loc):
                return False
            w = {k: v for k, v in w.items() if k != "oneOf"}
        for word in ("not", "if", "then", "else", "dependentSchemas"):
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

    def exactly_one(self, n: dict[str, Any], n_loc: str, n_word: str, n_lists: list[set[str]],
                    w_lists: list[set[str]]) -> bool:
        """Every way the narrow side has of being present (its `required`, with each of its own lists) names all of
        exactly one list of the wide side's `oneOf` of `required` lists, and some name of every other list is
        surely absent: one the narrow side never has (closed to it), or, where its own lists are a `oneOf`, the
        one name another of its lists still lacks (old step `oneOf [uses], [run]` inside new `oneOf [uses],
        [run], [wait], …`: a step with `uses` has no `run`, nor `wait`, which it does not declare)."""
        required = set(n.get("required", []))
        never = {name for names in w_lists for name in names if self.never_has(n, n_loc, name)}
        for index, own in enumerate(n_lists or [set()]):
            present = required | own
            absent = set(never)
            if n_word == "oneOf":
                absent |= {name for other, names in enumerate(n_lists) if other != index
                           for name in names - present if len(names - present) == 1}
            inside = [names for names in w_lists if names <= present]
            if len(inside) != 1 or not all(names & absent for names in w_lists if names is not inside[0]):
                return False
        return True

    def never_has(self, n: dict[str, Any], n_loc: str, name: str) -> bool:
        """Whether no object the narrow node accepts has member `name`: its property schema is `false`, or the node
        is closed and neither declares it nor has a pattern matching it."""
        if name in n.get("properties", {}):
            return self.deref(self.narrow, self.narrow_view, child(n_loc, "properties", name))[0] is False
        return _other_names(n) is False and _matching(n.get("patternProperties"), name) == ()

    def one_of(self, n_loc: str, w: dict[str, Any], w_loc: str) -> bool:
        """The narrow side inside exactly one member of the wide side's `oneOf`: inside that member, and sharing no
        value with any other (jsonschema-rs: their intersection is unsatisfiable), so nothing it accepts matches
        two members (SchemaStore's `jobs: oneOf [normalJob, reusableWorkflowCallJob]`, told apart by `runs-on`
        and `uses`)."""
        members = [child(w_loc, "oneOf", i) for i in range(len(w["oneOf"]))]
        marks = self.marks(self.narrow, self.narrow_view, n_loc)
        for index, member in enumerate(members):
            if _conflict(marks, self.marks(self.wide, self.wide_view, member)) or not self.attempt(n_loc, member):
                continue
            # (in this member and maybe another too: a value in both is refused by the oneOf)
            return all(local_disjoint(self.narrow, n_loc, self.narrow_view, self.wide, other, self.wide_view)
                       for other in members[:index] + members[index + 1:])
        return False

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
        self.undo(mark)
        return False

    def attempt_part(self, part: dict[str, Any], n_loc: str, w_loc: str) -> bool:
        """`attempt` for a part of the narrow node at `n_loc` (written there, but with fewer types)."""
        mark = len(self.order)
        w, w_ref = self.deref(self.wide, self.wide_view, w_loc)
        if w is True or (isinstance(w, dict) and not assertions(w)):
            return True
        if isinstance(w, dict) and self.objects(part, n_loc, w, w_ref):
            return True
        self.undo(mark)
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
        for word in ("propertyNames", "dependentRequired", "unevaluatedProperties"):
            if word in w and not (word in n and json_equal(n[word], w[word]) and _no_refs(w[word])):
                return False
        if not self.bounds(n, w, ("minProperties",), ("maxProperties",), ()):
            return False
        if not self.patterns(n, n_loc, w, w_loc):
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

    def patterns(self, n: dict[str, Any], n_loc: str, w: dict[str, Any], w_loc: str) -> bool:
        """The same `patternProperties` patterns on both sides (so every name meets the same ones, and the same
        names are left to the other names' schema), each narrow pattern's schema inside the wide one's: a value the
        narrow side lets a name have meets every wide pattern that name matches."""
        if "patternProperties" not in w and "patternProperties" not in n:
            return True
        n_patterns, w_patterns = n.get("patternProperties"), w.get("patternProperties")
        if not isinstance(n_patterns, dict) or not isinstance(w_patterns, dict) or set(n_patterns) != set(w_patterns):
            return False
        return all(self.sub(child(n_loc, "patternProperties", pattern), child(w_loc, "patternProperties", pattern))
                   for pattern in w_patterns)

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


# Whether two subschemas share a value is asked of jsonschema-rs (`intersect`, then `satisfiability`) for schemas
# written in at most this, refs followed. Measured on SchemaStore's github-workflow.json: a job of 26 KB against
# another of 11 KB, 0.3 ms, decided; far cheaper than `covers` (semantic.py budgets that at 16 KB).
DISJOINT_BUDGET_BYTES = 64 * 1024


def local_disjoint(one: Side, one_location: str, one_view: str, other: Side, other_location: str,
                   other_view: str) -> bool:
    """True only when no value is accepted by both subschemas (jsonschema-rs: their intersection is proven
    unsatisfiable), within DISJOINT_BUDGET_BYTES."""
    key = ("disjoint", id(one), one_location, one_view, other_location, other_view)
    found = other.memo.get(key)
    if found is None:
        found = other.memo[key] = (one, _disjoint(one, one_location, one_view, other, other_location, other_view))
    return bool(found[1])


def _disjoint(one: Side, one_location: str, one_view: str, other: Side, other_location: str,
              other_view: str) -> bool:
    if max(one.source_size(one_location), other.source_size(other_location)) > DISJOINT_BUDGET_BYTES:
        return False
    try:
        both = one.canonical(one_location, one_view).intersect(other.canonical(other_location, other_view))
        return bool(both.satisfiability().value == "no")
    except (jsonschema_rs.canonical.CanonicalizationError, ValueError, jsonschema_rs.ValidationError):
        return False


def _alternatives(node: dict[str, Any]) -> tuple[str, list[set[str]]]:
    """The node's union of `required` lists (vocabulary.required_alternatives) and its keyword, or ("", [])."""
    for word in ("anyOf", "oneOf"):
        if found := required_alternatives(node, word):
            return word, found
    return "", []


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
