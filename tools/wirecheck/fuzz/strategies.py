"""JSON Schema 2020-12 → Hypothesis strategy: valid instances of a contract's message kinds.

One small function per schema shape (object, array, string, number, union, composition), like a validator's
keyword table, but producing values. Exact where our contracts need speed (closed objects, const-discriminated
unions, `$ref`, patterns, formats, `prefixItems`, `dependentRequired`), best effort with a rejection filter where
JSON Schema is not generative (`if`/`then`/`else`, `not`, `uniqueItems`, `contains`, unmergeable `allOf`).
Every value a kind strategy yields has passed the kind's jsonschema-rs validator.

Recursion is bounded: a `$ref` that can reach itself increases the depth; from `max_recursion` on, objects
carry only required keys and arrays only their minimum items, and past a hard limit the branch is dropped.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

import orjson
from hypothesis import strategies as st

from wirecheck.contracts.model import ABSENT, PRESENT
from wirecheck.contracts.reference import FORMAT_CHECKER
from wirecheck.fuzz import regex
from wirecheck.fuzz.formats import FORMATS, PROBES
from wirecheck.fuzz.memo import for_release
from wirecheck.fuzz.schemas import SchemaSet

EMPTY: st.SearchStrategy[Any] = st.nothing()
SAFE_INT = 2**53 - 1  # JSON numbers every consumer (JavaScript included) reads exactly
EXTRA_ITEMS = 3  # array lengths drawn from [minItems, minItems + EXTRA_ITEMS] unless maxItems is smaller
EXTRA_CHARS = 24

# Keywords that say nothing about validity: ignored when deciding whether a `$ref` has assertion siblings.
ANNOTATIONS = frozenset(
    {
        "$schema", "$id", "$defs", "$comment", "$anchor", "title", "description", "default", "examples",
        "deprecated", "readOnly", "writeOnly", "contentMediaType", "contentEncoding",
    }
)
OBJECT_KEYWORDS = frozenset(
    {
        "properties", "required", "additionalProperties", "unevaluatedProperties", "patternProperties",
        "minProperties", "maxProperties", "dependentRequired", "propertyNames", "dependentSchemas",
    }
)
ARRAY_KEYWORDS = frozenset(
    {"items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains", "unevaluatedItems"}
)
STRING_KEYWORDS = frozenset({"minLength", "maxLength", "pattern", "format"})
NUMBER_KEYWORDS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"})
ALL_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")
# Handled exactly by the typed generators below; anything else present in a node gets a validator filter.
EXACT = (
    ANNOTATIONS
    | {"type", "properties", "required", "additionalProperties", "unevaluatedProperties", "patternProperties"}
    | {"minProperties", "maxProperties", "dependentRequired", "items", "prefixItems", "minItems", "maxItems"}
    | STRING_KEYWORDS
    | {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}
)
_TEXT = st.characters(codec="utf-8")  # utf-8 excludes lone surrogates
# Invented keys (additionalProperties schemas, minProperties) look like identifiers: map keys on these wires are
# model names, tool names, paths; values keep the full Unicode range.
_KEY_CHARS = st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.:/")

ANY_JSON: st.SearchStrategy[Any] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-SAFE_INT, SAFE_INT)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(_TEXT, max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(_TEXT, max_size=8), inner, max_size=3),
    max_leaves=5,
)


class Unmergeable(Exception):
    """Two schemas whose conjunction is not a single schema the generators handle exactly."""

    def __init__(self, reason: str, *, impossible: bool = False):
        super().__init__(reason)
        self.impossible = impossible  # the conjunction provably has no instance (two consts, no common type)


def assertions(schema: dict[str, Any]) -> set[str]:
    """The keywords of a subschema that constrain values (annotations and `x-` extensions do not)."""
    return {k for k in schema if k not in ANNOTATIONS and not k.startswith("x-")}


def _types(schema: dict[str, Any]) -> tuple[str, ...] | None:
    declared = schema.get("type")
    if declared is None:
        return None
    return (declared,) if isinstance(declared, str) else tuple(declared)


def _same(a: Any, b: Any) -> bool:
    return orjson.dumps(a, option=orjson.OPT_SORT_KEYS) == orjson.dumps(b, option=orjson.OPT_SORT_KEYS)


def merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """The conjunction of two schemas as one schema (best effort; the caller re-validates); or Unmergeable."""
    if "if" in a and "if" in b:  # two conditionals: keep b's whole, nested, for the compiler to take in turn
        conditional = {k: b[k] for k in ("if", "then", "else") if k in b}
        b = {k: v for k, v in b.items() if k not in conditional}
        b["allOf"] = [*b.get("allOf", []), conditional]
    out = dict(a)
    for key, value in b.items():
        if key not in out or key in ANNOTATIONS:
            out.setdefault(key, value)
            continue
        mine = out[key]
        if _same(mine, value):
            continue
        if key == "type":
            ta, tb = _types(a) or (), _types(b) or ()
            # "integer" is a subset of "number"
            common = [t for t in ta if t in tb or (t == "integer" and "number" in tb)]
            common += [t for t in tb if t == "integer" and "number" in ta and t not in common]
            if not common:
                raise Unmergeable("no common type", impossible=True)
            out[key] = common
        elif key == "properties":
            merged = dict(mine)
            for name, sub in value.items():
                merged[name] = {"allOf": [merged[name], sub]} if name in merged else sub
            out[key] = merged
        elif key == "required":
            out[key] = list(dict.fromkeys([*mine, *value]))
        elif key in ("additionalProperties", "unevaluatedProperties") and False in (mine, value):
            out[key] = False
        elif key in ("minLength", "minItems", "minProperties", "minimum", "exclusiveMinimum", "minContains"):
            out[key] = max(mine, value)
        elif key in ("maxLength", "maxItems", "maxProperties", "maximum", "exclusiveMaximum", "maxContains"):
            out[key] = min(mine, value)
        elif key == "enum":
            out[key] = [v for v in mine if any(_same(v, w) for w in value)]
            if not out[key]:
                raise Unmergeable("no common enum value", impossible=True)
        elif key == "const":
            raise Unmergeable("different consts", impossible=True)
        elif key == "allOf":
            out[key] = [*mine, *value]
        elif key in ("items", "additionalProperties", "unevaluatedProperties", "contains"):
            out[key] = {"allOf": [mine, value]}
        elif key == "dependentRequired":
            merged = {k: list(v) for k, v in mine.items()}
            for k, v in value.items():
                merged[k] = list(dict.fromkeys([*merged.get(k, []), *v]))
            out[key] = merged
        elif key == "uniqueItems":
            out[key] = bool(mine or value)
        else:
            raise Unmergeable(f"both sides constrain {key!r} differently")
    if "const" in out and "enum" in out:
        if not any(_same(out["const"], v) for v in out["enum"]):
            raise Unmergeable("const outside enum", impossible=True)
        del out["enum"]
    return out


class Compiler:
    """Compiles subschemas of one release to strategies; results are cached per (subschema, depth)."""

    def __init__(self, schemas: SchemaSet, *, max_recursion: int = 2):
        self.schemas = schemas
        self.max_recursion = max_recursion
        self._cache: dict[tuple[bytes, int], st.SearchStrategy[Any]] = {}

    # -- entry points -------------------------------------------------------------------------------------
    def for_uri(self, uri: str) -> st.SearchStrategy[Any]:
        """Valid instances of the schema at `uri`; each one has passed the jsonschema-rs validator."""
        strategy = self.compile({"$ref": uri}, 0)
        if strategy is EMPTY:
            return EMPTY
        return strategy.filter(self.schemas.ref_validator(uri).is_valid)

    def compile(self, schema: Any, depth: int) -> st.SearchStrategy[Any]:
        if schema is True or schema == {}:
            return ANY_JSON
        if schema is False:
            return EMPTY
        key = (orjson.dumps(schema, option=orjson.OPT_SORT_KEYS), depth)
        found = self._cache.get(key)
        if found is None:
            found = self._compile(schema, depth)
            self._cache[key] = found
        return found

    # -- composition ----------------------------------------------------------------------------------------
    def _compile(self, schema: dict[str, Any], depth: int) -> st.SearchStrategy[Any]:
        if not assertions(schema):
            return ANY_JSON
        if "not" in schema and (schema["not"] is True or (isinstance(schema["not"], dict)
                                                          and not assertions(schema["not"]))):
            return EMPTY  # `not: {}`: nothing is valid here (a key the contract refuses)
        if "$ref" in schema:
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            if not assertions(rest):
                return self._ref(schema["$ref"], depth)
            return self._conjunction(rest, [{"$ref": schema["$ref"]}], depth, schema)
        if "if" in schema:  # before allOf: merging an allOf of conditionals nests them here, one per level
            return self._conditional(schema, depth)
        if "allOf" in schema:
            rest = {k: v for k, v in schema.items() if k != "allOf"}
            return self._conjunction(rest, schema["allOf"], depth, schema)
        for union in ("oneOf", "anyOf"):
            if union in schema:
                return self._union(schema, union, depth)
        if "not" in schema or "dependentSchemas" in schema:
            rest = {k: v for k, v in schema.items() if k not in ("not", "dependentSchemas")}
            return self._filtered(self.compile(rest, depth), schema)
        return self._typed(schema, depth)

    def _ref(self, uri: str, depth: int) -> st.SearchStrategy[Any]:
        if uri in self.schemas.recursive_refs:
            depth += 1
            if depth > self.max_recursion + 3:
                return EMPTY
        return self.compile(self.schemas.resolve(uri), depth)

    def _expand(self, schema: Any) -> Any:
        """A branch with its top-level `$ref` replaced by the target, so it can be merged."""
        while isinstance(schema, dict) and "$ref" in schema:
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            target = self.schemas.resolve(schema["$ref"])
            if target is True or target is False:
                return target if not rest else {"allOf": [target, rest]}
            schema = merge(target, rest) if rest else target
        return schema

    def _conjunction(
        self, rest: dict[str, Any], parts: Iterable[Any], depth: int, whole: dict[str, Any]
    ) -> st.SearchStrategy[Any]:
        merged: Any = rest
        try:
            for part in parts:
                part = self._expand(part)
                if part is False:
                    return EMPTY
                if part is True:
                    continue
                merged = merge(merged, part)
        except Unmergeable as exc:
            if exc.impossible:
                return EMPTY
            first = next(iter(parts), True)
            return self._filtered(self.compile(merge_or(rest, self._expand(first)), depth), whole)
        except RecursionError:  # a ref chain that only refers to itself
            return EMPTY
        return self._filtered(self.compile(merged, depth), whole)

    def _union(self, schema: dict[str, Any], keyword: str, depth: int) -> st.SearchStrategy[Any]:
        rest = {k: v for k, v in schema.items() if k != keyword}
        branches = []
        for branch in schema[keyword]:
            expanded = self._expand(branch)
            if expanded is False:
                continue
            try:
                combined = merge(rest, expanded) if isinstance(expanded, dict) else rest
            except Unmergeable:
                continue
            strategy = self.compile(combined, depth)
            if strategy is not EMPTY:
                branches.append(strategy)
        if not branches:
            return EMPTY
        return self._filtered(st.one_of(branches), schema)

    def _conditional(self, schema: dict[str, Any], depth: int) -> st.SearchStrategy[Any]:
        rest = {k: v for k, v in schema.items() if k not in ("if", "then", "else")}
        options = []
        otherwise = _negated_condition(schema["if"], rest)
        for parts in ([schema["if"], schema.get("then", True)], [otherwise, schema.get("else", True)]):
            try:
                merged = rest
                for part in parts:
                    part = self._expand(part)
                    if isinstance(part, dict):
                        merged = merge(merged, part)
                options.append(self.compile(merged, depth))
            except Unmergeable as exc:
                if not exc.impossible:
                    options.append(self.compile(rest, depth))
        options = [o for o in options if o is not EMPTY]
        return self._filtered(st.one_of(options), schema) if options else EMPTY

    def _filtered(self, strategy: st.SearchStrategy[Any], schema: Any) -> st.SearchStrategy[Any]:
        if strategy is EMPTY:
            return EMPTY
        return strategy.filter(self.schemas.validator(schema).is_valid)

    # -- typed values -------------------------------------------------------------------------------------------
    def _typed(self, schema: dict[str, Any], depth: int) -> st.SearchStrategy[Any]:
        if "const" in schema or "enum" in schema:
            values = [schema["const"]] if "const" in schema else list(schema["enum"])
            strategy: st.SearchStrategy[Any] = st.sampled_from(values) if values else EMPTY
            if assertions(schema) - {"const", "enum"}:
                strategy = self._filtered(strategy, schema)
            return strategy
        types = _types(schema) or self._inferred_types(schema)
        if not types:
            return self._filtered(ANY_JSON, schema) if assertions(schema) else ANY_JSON
        makers: dict[str, Callable[[dict[str, Any], int], st.SearchStrategy[Any]]] = {
            "null": lambda s, d: st.none(),
            "boolean": lambda s, d: st.booleans(),
            "integer": self._integer,
            "number": self._number,
            "string": self._string,
            "array": self._array,
            "object": self._object,
        }
        if "integer" in types and "number" in types:
            types = tuple(t for t in types if t != "integer")
        options = [makers[t](schema, depth) for t in types if t in makers]
        options = [o for o in options if o is not EMPTY]
        if not options:
            return EMPTY
        strategy = options[0] if len(options) == 1 else st.one_of(options)
        if assertions(schema) - EXACT:
            strategy = self._filtered(strategy, schema)
        return strategy

    @staticmethod
    def _inferred_types(schema: dict[str, Any]) -> tuple[str, ...]:
        keys = set(schema)
        found = []
        if keys & OBJECT_KEYWORDS:
            found.append("object")
        if keys & ARRAY_KEYWORDS:
            found.append("array")
        if keys & STRING_KEYWORDS:
            found.append("string")
        if keys & NUMBER_KEYWORDS:
            found.append("number")
        return tuple(found)

    def _integer(self, schema: dict[str, Any], depth: int) -> st.SearchStrategy[Any]:
        low, high = _bounds(schema)
        if low > high:
            return EMPTY
        step = schema.get("multipleOf")
        if isinstance(step, int) and step > 0:
            first, last = math.ceil(low / step), math.floor(high / step)
            return st.integers(first, last).map(lambda n: n * step) if first <= last else EMPTY
        return st.integers(low, high)

    def _number(self, schema: dict[str, Any], depth: int) -> st.SearchStrategy[Any]:
        integers = self._integer(schema, depth)
        if schema.get("format") in NUMERIC_FORMATS:
            return integers
        low, high = schema.get("minimum"), schema.get("maximum")
        xlow, xhigh = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
        floats = st.floats(
            min_value=xlow if xlow is not None else low,
            max_value=xhigh if xhigh is not None else high,
            exclude_min=xlow is not None,
            exclude_max=xhigh is not None,
            allow_nan=False,
            allow_infinity=False,
        )
        if "multipleOf" in schema:
            return integers
        return st.one_of(integers, floats) if integers is not EMPTY else floats

    def _string(self, schema: dict[str, Any], depth: int) -> st.SearchStrategy[Any]:
        low = schema.get("minLength", 0)
        high = schema.get("maxLength")
        pattern, fmt = schema.get("pattern"), schema.get("format")
        if high is not None and low > high:
            return EMPTY
        if pattern is not None and fmt in PROBES and all(regex.matches(pattern, p) for p in PROBES[fmt]):
            strategy = FORMATS[fmt].filter(lambda text: regex.matches(pattern, text))
        elif pattern is not None:
            strategy = regex.strings_matching(pattern, regex.URI_SAFE if fmt is not None else None)
            if fmt is not None:  # both checkers: they disagree on corner cases such as year 0000
                strategy = strategy.filter(lambda text: FORMAT_CHECKER.conforms(text, fmt))
        elif fmt in FORMATS:
            strategy = FORMATS[fmt]
        else:
            cap = low + EXTRA_CHARS if high is None else min(high, low + EXTRA_CHARS)
            return st.text(_TEXT, min_size=low, max_size=cap)
        if low or high is not None:
            strategy = strategy.filter(lambda text: low <= len(text) and (high is None or len(text) <= high))
        if pattern is not None and fmt is not None:
            strategy = self._filtered(strategy, {"format": fmt})
        return strategy

    def _array(self, schema: dict[str, Any], depth: int) -> st.SearchStrategy[Any]:
        minimal = depth >= self.max_recursion
        prefix = [self.compile(s, depth) for s in schema.get("prefixItems", [])]
        items_schema = schema.get("items", True)
        items = self.compile(items_schema, depth)
        low = schema.get("minItems", 0)
        high = schema.get("maxItems")
        for index, strategy in enumerate(prefix):
            if strategy is EMPTY:
                prefix = prefix[:index]
                high = index if high is None else min(high, index)
                break
        if items is EMPTY:
            high = len(prefix) if high is None else min(high, len(prefix))
        cap = low if minimal else low + EXTRA_ITEMS
        if "prefixItems" in schema and not minimal:
            cap = max(cap, len(prefix))
        high = cap if high is None else min(high, cap)
        if high < low:
            return EMPTY

        @st.composite
        def arrays(draw: Any) -> list[Any]:
            length = draw(st.integers(low, high))
            return [draw(prefix[i] if i < len(prefix) else items) for i in range(length)]

        return arrays()

    def _object(self, schema: dict[str, Any], depth: int) -> st.SearchStrategy[Any]:
        minimal = depth >= self.max_recursion
        properties: dict[str, Any] = schema.get("properties", {})
        required: list[str] = list(schema.get("required", []))
        closed = schema.get("additionalProperties") is False or schema.get("unevaluatedProperties") is False
        additional = schema.get("additionalProperties", True)
        patterns: dict[str, Any] = schema.get("patternProperties", {})
        dependent: dict[str, list[str]] = schema.get("dependentRequired", {})
        low, high = schema.get("minProperties", 0), schema.get("maxProperties")

        def value_schema(name: str) -> Any:
            if name in properties:
                return properties[name]
            for pattern, sub in patterns.items():
                if regex.matches(pattern, name):
                    return sub
            return False if closed else additional

        names = list(dict.fromkeys([*properties, *required, *[d for ds in dependent.values() for d in ds]]))
        values: dict[str, st.SearchStrategy[Any]] = {}
        for name in names:
            if minimal and name not in required and name not in dependent and len(values) >= low:
                continue
            strategy = self.compile(value_schema(name), depth)
            if strategy is EMPTY:
                if name in required:
                    return EMPTY
                continue
            values[name] = strategy
        optional = [n for n in values if n not in required]
        extras = self._extra_entries(schema, names, patterns, additional, closed, depth, minimal)
        if high is not None and len(required) > high:
            return EMPTY

        @st.composite
        def objects(draw: Any) -> dict[str, Any]:
            chosen = set(required)
            for name in optional:
                if (minimal and len(chosen) >= low) or (high is not None and len(chosen) >= high):
                    break
                if draw(st.booleans()):
                    chosen.add(name)
            pending = list(chosen)
            while pending:
                for dep in dependent.get(pending.pop(), ()):
                    if dep not in chosen and dep in values:
                        chosen.add(dep)
                        pending.append(dep)
            for name in optional:
                if len(chosen) >= low:
                    break
                chosen.add(name)
            result = {name: draw(values[name]) for name in values if name in chosen}
            if extras is not None and (len(result) < low or not minimal):
                wanted = max(low - len(result), 0)
                room = None if high is None else high - len(result)
                count = draw(st.integers(wanted, wanted + (0 if minimal else 2)))
                if room is not None:
                    count = min(count, room)
                for _ in range(count):
                    key, value = draw(extras)
                    if key not in result:
                        result[key] = value
            return result

        return objects()

    def _extra_entries(
        self,
        schema: dict[str, Any],
        names: list[str],
        patterns: dict[str, Any],
        additional: Any,
        closed: bool,
        depth: int,
        minimal: bool,
    ) -> st.SearchStrategy[tuple[str, Any]] | None:
        """(key, value) pairs beyond the named properties: from patternProperties, or an explicit
        additionalProperties schema. Open objects get no invented keys unless minProperties needs them."""
        options = []
        for pattern, sub in patterns.items():
            value = self.compile(sub, depth)
            if value is not EMPTY:
                keys = regex.strings_matching(pattern).filter(lambda k: k not in names)
                options.append(st.tuples(keys, value))
        if not closed and (isinstance(additional, dict) or schema.get("minProperties")):
            value = self.compile(additional, depth)
            if value is not EMPTY:
                keys = st.text(_KEY_CHARS, min_size=1, max_size=12).filter(
                    lambda k: k not in names and not any(regex.matches(p, k) for p in patterns)
                )
                options.append(st.tuples(keys, value))
        return st.one_of(options) if options else None


def _negated_condition(condition: Any, rest: dict[str, Any]) -> Any:
    """A schema under which `condition` fails, for the common `if: {properties: {p: {const: c}}}` form: `p`
    present with another value (an absent `p` makes such an `if` true). Other conditions: no hint (True), and
    the validator filter sorts the values out."""
    if not isinstance(condition, dict) or set(assertions(condition)) != {"properties"}:
        return True
    tests = condition["properties"]
    if len(tests) != 1:
        return True
    (name, test), = tests.items()
    if not isinstance(test, dict) or "const" not in test or set(assertions(test)) - {"const", "type"}:
        return True
    current = rest.get("properties", {}).get(name, {})
    narrowed: dict[str, Any]
    if isinstance(current, dict) and "enum" in current:
        narrowed = {"enum": [v for v in current["enum"] if not _same(v, test["const"])]}
    else:
        narrowed = {"not": {"const": test["const"]}}
    return {"required": [name], "properties": {name: narrowed}}


def merge_or(a: dict[str, Any], b: Any) -> Any:
    if not isinstance(b, dict):
        return a
    try:
        return merge(a, b)
    except Unmergeable:
        return b


# Numeric formats (from Rust/OpenAPI generators, e.g. ACP's schemars output): validators ignore them, but a
# consumer decodes into that type, so a "valid" uint32 of -5 would be a false valid-rejected finding.
NUMERIC_FORMATS: dict[str, tuple[int, int]] = {
    "int8": (-(2**7), 2**7 - 1), "uint8": (0, 2**8 - 1),
    "int16": (-(2**15), 2**15 - 1), "uint16": (0, 2**16 - 1),
    "int32": (-(2**31), 2**31 - 1), "uint32": (0, 2**32 - 1),
    "int64": (-SAFE_INT, SAFE_INT), "uint64": (0, SAFE_INT), "uint": (0, SAFE_INT),
}


def _bounds(schema: dict[str, Any]) -> tuple[int, int]:
    low, high = NUMERIC_FORMATS.get(schema.get("format", ""), (-SAFE_INT, SAFE_INT))
    if "minimum" in schema:
        low = max(low, math.ceil(schema["minimum"]))
    if "exclusiveMinimum" in schema:
        low = max(low, math.floor(schema["exclusiveMinimum"]) + 1)
    if "maximum" in schema:
        high = min(high, math.floor(schema["maximum"]))
    if "exclusiveMaximum" in schema:
        high = min(high, math.ceil(schema["exclusiveMaximum"]) - 1)
    return low, high


def kind_strategy(release: Any, kind_id: str, *, max_recursion: int = 2) -> st.SearchStrategy[Any]:
    """Valid messages of one kind of a `ContractRelease` (their bodies, for HTTP kinds): see `kind_messages`."""
    return kind_messages(release, kind_id, max_recursion=max_recursion).map(lambda message: message.value)


def kind_messages(release: Any, kind_id: str, *, max_recursion: int = 2, judged: bool = True,
                  consumers: bool = True) -> st.SearchStrategy[Any]:
    """Valid messages of one kind as the engine reads them (`check.message.Message`: the body and, for an HTTP kind,
    the envelope its selector gives with generated headers). The kind's schema with what its single-message rules
    add (rules/registry.py `Needs`: an extra schema for the body or the headers), repaired where JSON Schema cannot
    say it (two fields equal), kept only when the engine finds nothing above info in it (`Engine.judge_alone`):
    valid to the whole engine, not to the schema alone. `judged=False`: the candidates before that last filter
    (to say why none passes). `consumers=False`: the consumers' contracts are left to that filter alone, not
    compiled in (their conjunction with the kind's schema is sometimes more than the compiler can build)."""
    from wirecheck.fuzz.rules import KindRules, consumer_kinds, message_of

    kind = release.kind(kind_id)
    compiler = compiler_for(release, max_recursion=max_recursion)
    rules = KindRules(release, kind)
    # what the kind's consumers' contracts ask (a message must be valid to them too) and what its rules ask
    extra = [{"$ref": other.schema.uri} for _, other in consumer_kinds(release, kind)
             if other.schema is not None and consumers]
    extra += rules.body_schemas()
    body = (compiler.for_uri(kind.schema.uri) if not extra
            else compiler.compile({"allOf": [{"$ref": kind.schema.uri}, *extra]}, 0))
    if body is EMPTY:
        return EMPTY
    selected = _selected_as(release, kind)
    if selected is not None:  # a schema may allow what the selector does not pick (a discriminator left out)
        body = body.map(lambda value: value if selected(value) else _planted(value, kind.fields[0]))
    header_schemas = rules.header_schemas()
    if kind.http is not None and kind.headers is not None:
        header_schemas.insert(0, {"$ref": kind.headers.uri})
    headers = compiler.compile({"allOf": header_schemas}, 0) if header_schemas else st.just({})
    candidates = st.tuples(body, headers).map(lambda drawn: rules.repair(message_of(kind, *drawn)))
    if not judged:
        return candidates
    return candidates.filter(lambda message: (selected is None or selected(message.value)) and rules.holds(message))


def _selected_as(release: Any, kind: Any) -> Callable[[Any], bool] | None:
    """For a stream kind told apart by fields: whether a message is classified as that kind (sent by its
    producer). A generated message is one of its kind only if the checker would take it for one."""
    if kind.channel != "stdio-ndjson" or not kind.fields:
        return None
    from wirecheck.check.classify import Classifier
    from wirecheck.check.message import Message

    classify = for_release(release, "classifier", lambda: Classifier(release)).classify

    def selected(value: Any) -> bool:
        found = classify(Message(value=value, file="", sender=kind.producer))
        return found is not None and found.id == kind.id

    return selected


def _planted(value: Any, conditions: Any) -> Any:
    """`value` with the first accepted value of each selector condition set where it is missing (copied on the
    way down, the draw itself is left alone); a value of another shape is returned as it is."""
    if not isinstance(value, dict):
        return value
    out = dict(value)
    for tokens, accepted in conditions:
        if accepted is PRESENT or not tokens:  # nothing to plant: the draw has the member or is not of the kind
            continue
        node = out
        for token in tokens[:-1]:
            child = node.get(token)
            if not isinstance(child, dict):
                break
            node[token] = node = dict(child)
        else:
            if accepted == frozenset({ABSENT}):
                node.pop(tokens[-1], None)
            elif tokens[-1] not in node:
                node[tokens[-1]] = sorted((v for v in accepted if v is not ABSENT), key=orjson.dumps)[0]
    return out


def compiler_for(release: Any, *, max_recursion: int = 2) -> Compiler:
    """One compiler (and one prepared SchemaSet) per release; the resources of the contracts its `consumers:`
    name are in it too (their `$id`s are their own), so a kind can be generated valid to them as well."""
    def build() -> Compiler:
        from wirecheck.fuzz.rules import engine_for

        resources = dict(release.resources)
        for contract in sorted({c.contract for c in release.consumers}):
            resources.update(engine_for(release).consumer_release(contract).resources)
        return Compiler(SchemaSet(resources), max_recursion=max_recursion)

    return for_release(release, ("compiler", max_recursion), build)
