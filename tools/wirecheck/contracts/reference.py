"""The reference validator (python-jsonschema + `referencing`), configured to mean what the contracts say.

jsonschema-rs is the fast validator used by the checker; this one is the oracle in tests and the tool that
locates unknown fields inside unions. Both must agree on patterns: ECMA-262 semantics (via `regress`), so `$`
never matches before a trailing newline and `\\d` is ASCII only, like zod and like jsonschema-rs. Patterns are
matched by `ecma_regex.search`, within a time budget: a match over it raises `ecma_regex.RegexTimeout` out of
`is_valid`/`iter_errors`, and the caller reads that as "unknown", never as a verdict.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any, NamedTuple
from urllib.parse import urldefrag, urljoin

import jsonschema
import orjson
import referencing
import regress
from jsonschema import validators
from jsonschema_specifications import REGISTRY as SPECIFICATIONS
from referencing.jsonschema import DRAFT202012

from wirecheck.contracts.formats import FORMATS, UTF16_MAX_LENGTH, utf16_too_long
from wirecheck.ecma_regex import compile_ecma, search
from wirecheck.json_types import json_text


def _ecma_pattern(validator: Any, pattern: str, instance: Any, schema: Any):
    if validator.is_type(instance, "string") and not search(pattern, instance):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


def _ecma_pattern_properties(validator: Any, patterns: dict, instance: Any, schema: Any):
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _utf16_max_length(validator: Any, limit: Any, instance: Any, schema: Any):
    problem = utf16_too_long(limit, instance)
    if problem is not None:
        yield jsonschema.ValidationError(problem)


ReferenceValidator = validators.extend(
    validators.Draft202012Validator,
    {"pattern": _ecma_pattern, "patternProperties": _ecma_pattern_properties, UTF16_MAX_LENGTH: _utf16_max_length},
)

def _format_checker() -> jsonschema.FormatChecker:
    """2020-12's format checks, with `regex` meaning an ECMA-262 pattern (what the dialect says, and what
    jsonschema-rs checks), not a Python one: `\\p{L}` is a regex, `(?P<name>...)` is not; and wirecheck's own
    formats (`whatwg-url`, `zod-url`: contracts/formats.py), the predicates jsonschema-rs is given too."""
    checker = jsonschema.FormatChecker()
    checker.checkers = dict(jsonschema.Draft202012Validator.FORMAT_CHECKER.checkers)
    for name, conforms in FORMATS.items():
        checker.checks(name)(conforms)

    @checker.checks("regex", raises=regress.RegressError)
    def _is_ecma_regex(instance: object) -> bool:
        if isinstance(instance, str):
            compile_ecma(instance)
        return True

    return checker


FORMAT_CHECKER = _format_checker()


def regex_problem(pattern: str) -> str | None:
    """Why `pattern` is not a JSON Schema pattern, in words, or None. A pattern is ECMA-262 compiled with the `u`
    flag, as ajv compiles it (ajv 8.20.0, lib/vocabularies/code.ts:96 `const u = opts.unicodeRegExp ? "u" : ""`,
    `unicodeRegExp` true unless turned off: lib/core.ts:264) and as wirecheck matches it (`ecma_regex`). zod's
    `fromJSONSchema` compiles it without the flag (zod 4.6.7, v4/classic/from-json-schema.js:546
    `new RegExp(schema.pattern)`), a looser grammar (Annex B: `[[:alpha:]]`, `\\x{41}`, `\\pL` pass there):
    every pattern valid with `u` is valid without it, so `u` is the one that decides."""
    try:
        compile_ecma(pattern)
    except regress.RegressError as exc:
        return (f"{json_text(pattern)} is not an ECMA-262 regular expression as JSON Schema readers compile it "
                f"(`new RegExp(pattern, \"u\")`: {exc})")
    return None


def meta_error(error: Any) -> tuple[list[Any], str]:
    """A python-jsonschema error about a schema (against its meta-schema) as (path, message): a pattern that is
    not ECMA-262 in the words of `regex_problem`, at the `pattern`, or at the `patternProperties` member whose key
    it is. The one wording of the contract loader and `diff-schemas`."""
    path, message = list(error.absolute_path), error.message
    if error.validator == "format" and error.validator_value == "regex" and isinstance(error.instance, str):
        message = regex_problem(error.instance) or message
        if path and path[-1] == "patternProperties":  # a key of the map (propertyNames): point at its member
            path.append(error.instance)
    return path, message


@lru_cache(maxsize=8)
def meta_validator(meta_schema_uri: str) -> Any:
    """A jsonschema-rs validator of schemas against the meta-schema at `meta_schema_uri` (drafts 04 to 2020-12, as
    `jsonschema_specifications` ships them), formats asserted and `regex` read as ECMA-262 as FORMAT_CHECKER reads
    it. python-jsonschema's `check_schema` takes 0.57 s of CPU for ACP's 256 KB schema; this takes milliseconds,
    so it screens, and python-jsonschema (whose messages the CLI shows) runs only on what it refuses."""
    import jsonschema_rs
    import jsonschema_specifications

    def ecma_regex(text: str) -> bool:
        try:
            compile_ecma(text)
        except regress.RegressError:
            return False
        return True

    registry = jsonschema_rs.Registry([(uri, r.contents) for uri, r in jsonschema_specifications.REGISTRY.items()])
    uri = meta_schema_uri.removesuffix("#") if "/draft/20" in meta_schema_uri else meta_schema_uri
    return jsonschema_rs.validator_for(jsonschema_specifications.REGISTRY.contents(uri), registry=registry,
                                       validate_formats=True, formats={"regex": ecma_regex})


def _refuse_retrieval(uri: str) -> referencing.Resource:
    raise referencing.exceptions.NoSuchResource(ref=uri)  # type: ignore[call-arg]


def build_registry(resources: Mapping[str, Any]) -> referencing.Registry:
    """An offline registry of the given `$id` → schema resources; any other URI is an error, never a fetch."""
    registry: referencing.Registry = referencing.Registry(retrieve=_refuse_retrieval)  # type: ignore[call-arg]
    return registry.with_resources(
        (uri, DRAFT202012.create_resource(_without_dialect(schema))) for uri, schema in resources.items()
    )


def _without_dialect(schema: Any) -> Any:
    """A resource without its `$schema` (2020-12 is said by the resource's type): python-jsonschema's `evolve`
    swaps in the stock validator class for a `$ref`'d resource that names its dialect, and that class matches
    `pattern` with Python's `re` (`$` before a trailing newline), not ECMA-262 as ReferenceValidator does."""
    return {k: v for k, v in schema.items() if k != "$schema"} if isinstance(schema, dict) else schema


def reference_validator(schema: Any, resources: Mapping[str, Any]) -> Any:
    return ReferenceValidator(schema, registry=build_registry(resources), format_checker=FORMAT_CHECKER)


# Keywords whose resolution reads the dynamic scope (the `$ref`s followed to get where they are): a resource holding
# one (anywhere, even as data: that only costs the memo) is validated without remembered resolutions.
_DYNAMIC = (b'"$dynamicRef"', b'"$dynamicAnchor"', b'"$recursiveRef"', b'"$recursiveAnchor"')


class ReferenceValidators:
    """python-jsonschema validators of schemas over one set of resources (a diff side's view): one registry for all
    of them (with the meta-schemas combined in, as python-jsonschema combines them for each validator it makes),
    and one memo of what a `$ref` resolves to, `(base URI, $ref)` → `referencing` Resolved, shared by every
    validator and every `is_valid`. referencing resolves a `$ref` afresh each time it is met (urljoin, the JSON
    pointer walked, a resolver per step): a quarter of a diff's confirmations. What a `$ref` resolves to depends on
    the base URI and the registry (the same here) and, for `$dynamicRef`/`$recursiveRef` alone, on the dynamic
    scope, the resolver's `previous` URIs, which a remembered resolution does not carry over. So it is remembered
    only where nothing can read the scope: no resource here holds a dynamic keyword, and the `$ref` lands in one of
    these resources (the meta-schemas use `$dynamicRef`: a resolution into them is never remembered, and the scope
    inside them gets no URI of ours that has a dynamic anchor). The validators each subschema is validated with
    (python-jsonschema's `evolve`) are remembered too (`_remembered_evolve`). Relies on python-jsonschema's
    `_resolver` argument and `evolve` and on how they are used, and on referencing's Resolver `_base_uri`: the
    tests in suites/contracts/test_reference.py pin them (passing with python-jsonschema 4.23 and 4.26, referencing
    0.35 and 0.37); a release without them gets plain validators (`_internals_as_tested`)."""

    def __init__(self, resources: Mapping[str, Any]):
        self._registry = build_registry(resources)
        self.memo: dict[tuple[str, str], _Resolved] | None = (
            None if written_holds(resources, _DYNAMIC) or not _internals_as_tested() else {})
        self._combined = SPECIFICATIONS.combine(self._registry) if self.memo is not None else None
        self.made: dict[tuple[int, int], Any] = {}  # (id(schema), id(resolver)) → validator (_remembered_evolve)
        self._own = frozenset(uri.rstrip("#") for uri in resources)

    def validator(self, schema: Any) -> Any:
        if self.memo is None or self._combined is None:
            return ReferenceValidator(schema, registry=self._registry, format_checker=FORMAT_CHECKER)
        # the resolver python-jsonschema's Validator.__attrs_post_init__ makes, made once for all
        resolver = self._combined.resolver_with_root(DRAFT202012.create_resource(schema))
        return ReferenceValidator(schema, registry=self._registry, format_checker=FORMAT_CHECKER,
                                  _resolver=_RememberingResolver(resolver, self.memo, self._own, self.made))


@lru_cache(maxsize=1)
def _internals_as_tested() -> bool:
    """Whether python-jsonschema and referencing still have the private parts the memo relies on (python-jsonschema
    4.23-4.26's `_resolver` argument, referencing 0.35-0.37's Resolver `_base_uri`, checked in the tests on both
    ends of that range). A release without them is not guessed at: its validators are made plainly (slower, the
    same answers), never broken by a name that moved."""
    import attrs

    try:
        aliases = {field.alias for field in attrs.fields(ReferenceValidator)}
        names = {field.name for field in attrs.fields(referencing._core.Resolver)}  # type: ignore[arg-type]
    except (TypeError, AttributeError, attrs.exceptions.NotAnAttrsClassError):
        return False
    return "_resolver" in aliases and "_base_uri" in names


def written_holds(resources: Mapping[str, Any], words: tuple[bytes, ...]) -> bool:
    """Whether the JSON text of a resource, as orjson writes it, holds one of `words` (a keyword, `"$dynamicRef"`,
    or a keyword and its value, `"additionalProperties":false`; also inside a value, which only costs a cheap
    answer declined). True when a resource cannot be written (nested too deep for orjson, a number beyond 64 bits):
    not known, so maybe."""
    try:
        texts = [orjson.dumps(schema) for schema in resources.values()]
    except (TypeError, RecursionError):
        return True
    return any(word in text for text in texts for word in words)


class _Resolved(NamedTuple):
    """What python-jsonschema reads of a `referencing` Resolved."""

    contents: Any
    resolver: Any


class _RememberingResolver:
    """Stands in for a referencing Resolver (which may not be subclassed) where python-jsonschema holds one: its
    `lookup` remembers what a `$ref` into `own` resolves to (see ReferenceValidators); `in_subresource` and the
    rest are the Resolver's. Every resolver python-jsonschema gets from it is one too, so the memo follows the
    validation down. Reads the Resolver's `_base_uri` (referencing 0.37; pinned by the tests)."""

    __slots__ = ("_inner", "_memo", "_own", "made")

    def __init__(self, inner: Any, memo: dict[tuple[str, str], _Resolved], own: frozenset[str],
                 made: dict[tuple[int, int], Any]):
        self._inner, self._memo, self._own, self.made = inner, memo, own, made

    def lookup(self, ref: str) -> _Resolved:
        base = self._inner._base_uri
        found = self._memo.get((base, ref))
        if found is None:
            resolved = self._inner.lookup(ref)
            found = _Resolved(resolved.contents,
                              _RememberingResolver(resolved.resolver, self._memo, self._own, self.made))
            if (base if ref.startswith("#") else urldefrag(urljoin(base, ref))[0]) in self._own:
                self._memo[(base, ref)] = found
        return found

    def in_subresource(self, subresource: Any) -> Any:
        inner = self._inner.in_subresource(subresource)
        return self if inner is self._inner else _RememberingResolver(inner, self._memo, self._own, self.made)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


_stock_evolve = ReferenceValidator.evolve


def _remembered_evolve(self: Any, **changes: Any) -> Any:
    """python-jsonschema's `descend` makes a validator for every subschema it enters, `evolve(schema=...,
    _resolver=...)`: 6,067 for an ACP pair's confirmations, over a few hundred subschemas. What it makes depends on
    that schema and resolver and on what `self` carries, the same for every validator of one ReferenceValidators
    (its format checker and registry; the class, chosen by the schema's `$schema` or else `self`'s), so the one
    made for a (schema, resolver) is remembered there (`made`). Keyed by identity: the validator remembered holds
    both, so neither id is reused while it is. Anything else asked of `evolve` (a validator that is not one of a
    ReferenceValidators': `reference_validator`'s) is made afresh, as python-jsonschema makes it. (ReferenceValidator's
    own `evolve` is replaced, not a subclass made: a validator class costs 0.7 ms to create, a one-keyword diff's
    start-up pays that.)"""
    resolver = changes.get("_resolver")
    if type(resolver) is _RememberingResolver and len(changes) == 2 and "schema" in changes:
        key = (id(changes["schema"]), id(resolver))
        found = resolver.made.get(key)
        if found is None:
            found = resolver.made[key] = _stock_evolve(self, **changes)
        return found
    return _stock_evolve(self, **changes)


ReferenceValidator.evolve = _remembered_evolve
