"""Schemas written for drafts 04, 06, 07 and 2019-09, translated faithfully into draft 2020-12.

Most JSON Schemas in the wild declare draft-07 (MCP's among them); wirecheck reasons about 2020-12 only. A draft-N
schema is rewritten into the 2020-12 schema that accepts exactly the same instances, and every rewrite is recorded
with the JSON pointer of the input it came from (`wirecheck diff-schemas --explain-input` prints them):

- `items: [..]` → `prefixItems`, and `additionalItems` → `items` (ignored, so dropped, when `items` is no array);
- `definitions` → `$defs`; `dependencies` → `dependentRequired` (arrays) / `dependentSchemas` (schemas);
- draft-04 `id` → `$id`, its boolean `exclusiveMaximum`/`exclusiveMinimum` → the numeric form;
- what the draft ignores and 2020-12 would apply is dropped: the siblings of a `$ref` (drafts ≤ 07 ignore them),
  keywords the draft does not have (`if` in draft-06, `const` in draft-04, `prefixItems` in draft-07), and formats
  the draft does not define (`uuid` in draft-07: its validators ignore it, 2020-12's check it);
- every `$ref` is resolved as the draft resolves it (base URIs from `id`/`$id`, anchors, embedded resources, via
  `referencing`) and rewritten as a JSON pointer into the file, so embedded `$id`s and anchors are dropped; a
  target the translation dropped (a `$ref` into an ignored keyword) is kept under `$defs`.

A 2020-12 schema goes through the same pass: `definitions` and `dependencies` are keywords the 2020-12 meta-schema
still describes ("keywords that have appeared in previous drafts ... as they remain in common use"), and
jsonschema-rs applies `dependencies` where python-jsonschema ignores it; rewritten to `dependentRequired` /
`dependentSchemas`, both validators apply it alike. What has no faithful translation is refused, naming the JSON
pointer and why (`Untranslatable`): another `$schema`, a `$ref` leading out of the file or to nothing,
`$dynamicRef`/`$recursiveRef`, an embedded resource in another draft, a schema its own draft's meta-schema rejects.

One difference no 2020-12 schema can express: draft-04 counts `1.0` as a number but not an integer (the draft-04
test suite says so); 2020-12 (and JavaScript validators reading draft-04) count it as an integer. It is read as
2020-12 reads it, and said so once per schema.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, unquote, urldefrag, urljoin

import jsonschema
import referencing
import referencing.exceptions
import referencing.jsonschema

from wirecheck.pointer import format_pointer, parse_pointer

DIALECT = "https://json-schema.org/draft/2020-12/schema"
DEFAULT_BASE = "https://schemas.wirecheck.invalid/input/schema.json"
MAX_DEPTH = 128  # JSON levels (python-jsonschema, which checks the meta-schema, recurses past ~200)

_DATA = frozenset({"const", "enum", "default", "examples"})  # values, never schemas
_ONE = frozenset({"additionalProperties", "contains", "propertyNames", "not", "if", "then", "else", "items",
                  "unevaluatedItems", "unevaluatedProperties", "contentSchema", "additionalItems"})
_MANY = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_MAP = frozenset({"properties", "patternProperties", "dependentSchemas"})
# 2020-12 keywords that decide what validates (or where a $ref leads): kept only when the source draft has them too
_ASSERTING = frozenset({
    "$ref", "$dynamicRef", "$dynamicAnchor", "$anchor", "$id", "$recursiveRef", "$recursiveAnchor",
    "prefixItems", "items", "contains", "additionalProperties", "properties", "patternProperties",
    "dependentSchemas", "propertyNames", "if", "then", "else", "allOf", "anyOf", "oneOf", "not",
    "unevaluatedItems", "unevaluatedProperties", "type", "const", "enum", "multipleOf", "maximum",
    "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems",
    "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties", "required", "dependentRequired",
    "format", "dependencies",
})
# what a draft ≤ 07 ignores beside a `$ref` and the translation would make apply (annotations stay: inert in both)
_BESIDE_REF = _ASSERTING | {"additionalItems", "id"}
_DRAFT4 = frozenset({
    "id", "$schema", "$ref", "definitions", "items", "additionalItems", "additionalProperties", "properties",
    "patternProperties", "dependencies", "allOf", "anyOf", "oneOf", "not", "type", "enum", "multipleOf", "maximum",
    "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems",
    "uniqueItems", "maxProperties", "minProperties", "required", "format", "title", "description", "default",
})
_DRAFT6 = (_DRAFT4 - {"id"}) | {"$id", "const", "contains", "propertyNames", "examples"}
_DRAFT7 = _DRAFT6 | {"if", "then", "else", "$comment", "readOnly", "writeOnly", "contentEncoding",
                     "contentMediaType"}
_DRAFT2019 = (_DRAFT7 - {"definitions", "dependencies"}) | {
    "$anchor", "$recursiveRef", "$recursiveAnchor", "$vocabulary", "$defs", "unevaluatedItems",
    "unevaluatedProperties", "dependentSchemas", "dependentRequired", "maxContains", "minContains", "deprecated",
    "contentSchema"}
_DRAFT2020 = (_DRAFT2019 - {"$recursiveRef", "$recursiveAnchor"}) | {"prefixItems", "$dynamicRef", "$dynamicAnchor"}
# The formats each draft's specification defines; 2020-12 validators check these, a draft's own validators
# ignore formats it does not define.
_FORMATS4 = frozenset({"date-time", "email", "hostname", "ipv4", "ipv6", "uri"})
_FORMATS6 = _FORMATS4 | {"uri-reference", "uri-template", "json-pointer"}
_FORMATS7 = _FORMATS6 | {"iri", "iri-reference", "idn-email", "idn-hostname", "relative-json-pointer", "regex",
                         "date", "time"}
_FORMATS2019 = _FORMATS7 | {"duration", "uuid"}


@dataclass(frozen=True)
class Draft:
    name: str  # "draft-07"
    uri: str  # the meta-schema URI its `$schema` names
    number: int  # 4, 6, 7, 2019, 2020: for "is this draft older than"
    keywords: frozenset[str]
    formats: frozenset[str]
    validator: Any  # the python-jsonschema validator class of the draft (meta-schema check, tests)
    specification: Any  # referencing's specification: how the draft finds `$id`s, anchors and subresources

    @property
    def id_keyword(self) -> str:
        return "id" if self.number == 4 else "$id"


DRAFTS = {
    "4": Draft("draft-04", "http://json-schema.org/draft-04/schema#", 4, _DRAFT4, _FORMATS4,
               jsonschema.Draft4Validator, referencing.jsonschema.DRAFT4),
    "6": Draft("draft-06", "http://json-schema.org/draft-06/schema#", 6, _DRAFT6, _FORMATS6,
               jsonschema.Draft6Validator, referencing.jsonschema.DRAFT6),
    "7": Draft("draft-07", "http://json-schema.org/draft-07/schema#", 7, _DRAFT7, _FORMATS7,
               jsonschema.Draft7Validator, referencing.jsonschema.DRAFT7),
    "2019-09": Draft("2019-09", "https://json-schema.org/draft/2019-09/schema", 2019, _DRAFT2019,
                     _FORMATS2019, jsonschema.Draft201909Validator, referencing.jsonschema.DRAFT201909),
    "2020-12": Draft("2020-12", DIALECT, 2020, _DRAFT2020, _FORMATS2019, jsonschema.Draft202012Validator,
                     referencing.jsonschema.DRAFT202012),
}
DRAFT_2020_12 = DRAFTS["2020-12"]
DRAFT_NAMES = ("4", "6", "7", "2019-09", "2020-12")


def _uri_key(uri: str) -> str:
    """`http://json-schema.org/draft-07/schema#` as written in the wild: with or without `#`, http or https."""
    return uri.strip().removesuffix("#").removeprefix("https://").removeprefix("http://")


_BY_URI = {_uri_key(d.uri): d for d in DRAFTS.values()}


def draft_named(name: str) -> Draft:
    """`--default-draft`: 4, 04, draft-04, 6, 7, draft-07, 2019-09, 2020-12, or a meta-schema URI."""
    key = name.strip().lower().removeprefix("draft").lstrip("-_ ")
    key = key.lstrip("0") if key.isdigit() else key
    if key in DRAFTS:
        return DRAFTS[key]
    if _uri_key(name) in _BY_URI:
        return _BY_URI[_uri_key(name)]
    raise ValueError(f"{name!r} is not a draft wirecheck reads (one of {', '.join(DRAFT_NAMES)}, or its "
                     "meta-schema URI)")


@dataclass(frozen=True)
class Rewrite:
    """One change the translation made: where in the input (a JSON pointer) and what, with why."""

    pointer: str
    change: str

    def __str__(self) -> str:
        return f"#{self.pointer}: {self.change}"


@dataclass(frozen=True)
class Translation:
    schema: Any  # the 2020-12 schema (a new object; the input is not modified)
    draft: Draft  # the draft the input was read as
    declared: bool  # by its `$schema` (else the default draft)
    rewrites: tuple[Rewrite, ...]
    # output path of each schema → its input path (for locations shown to the user, in the file they wrote)
    origins: Mapping[tuple[Any, ...], tuple[Any, ...]] = field(default_factory=dict, repr=False, compare=False)

    def source_pointer(self, pointer: str) -> str:
        """A JSON pointer into the translation → the same place in the input (`/$defs/A` → `/definitions/A`)."""
        tokens = tuple(parse_pointer(pointer))
        for cut in range(len(tokens), -1, -1):
            origin = self.origins.get(tokens[:cut])
            if origin is not None:
                return format_pointer((*origin, *tokens[cut:]))
        return pointer

    def translated_pointer(self, pointer: str) -> str:
        """A JSON pointer into the input → the same place in the translation (`/definitions/A` → `/$defs/A`): the
        inverse of source_pointer, for a place a user names in the file they wrote."""
        tokens = tuple(parse_pointer(pointer))
        inverse = {origin: out for out, origin in self.origins.items()}
        for cut in range(len(tokens), -1, -1):
            out = inverse.get(tokens[:cut])
            if out is not None:
                return format_pointer((*out, *tokens[cut:]))
        return pointer

    @property
    def summary(self) -> str:
        how = "declared by $schema" if self.declared else "no $schema: the default draft"
        if not self.rewrites:
            return f"read as {self.draft.name} ({how}); nothing to translate"
        return f"read as {self.draft.name} ({how}); {len(self.rewrites)} rewrite(s) into 2020-12"


class Untranslatable(ValueError):
    """The schema holds something with no faithful 2020-12 translation (or is no valid schema of its draft)."""

    def __init__(self, pointer: str, reason: str) -> None:
        super().__init__(f"{pointer}: {reason}")
        self.pointer = pointer
        self.reason = reason


def depth_problem(schema: Any, limit: int = MAX_DEPTH) -> str | None:
    """The JSON pointer of the first value nested deeper than `limit`, or None (iterative: hostile inputs nest
    100,000 levels deep, and everything after this check recurses)."""
    stack: list[tuple[Any, tuple[Any, ...]]] = [(schema, ())]
    while stack:
        node, path = stack.pop()
        if len(path) > limit:
            return format_pointer(path)
        if isinstance(node, dict):
            stack.extend((v, (*path, k)) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, (*path, i)) for i, v in enumerate(node))
    return None


def declared_draft(schema: Any, default: Draft = DRAFT_2020_12) -> tuple[Draft, bool]:
    """The draft a schema is read as: its root `$schema`, else `default`. Untranslatable for another `$schema`."""
    if not isinstance(schema, dict) or "$schema" not in schema:
        return default, False
    declared = schema["$schema"]
    if isinstance(declared, str) and _uri_key(declared) in _BY_URI:
        return _BY_URI[_uri_key(declared)], True
    raise Untranslatable("/$schema", f"declares {declared!r}, not a draft wirecheck reads (drafts 04, 06, 07, "
                                     f"2019-09 and 2020-12: {', '.join(d.uri for d in DRAFTS.values())})")


def translate(schema: Any, default: Draft = DRAFT_2020_12) -> Translation:
    """`schema` read as its declared draft (else `default`) → the 2020-12 schema accepting the same instances."""
    where = depth_problem(schema)
    if where is not None:
        raise Untranslatable(where, f"the schema nests more than {MAX_DEPTH} levels deep")
    draft, declared = declared_draft(schema, default)
    try:
        _check_meta_schema(schema, draft)
    except Untranslatable as exc:
        if not declared and draft is not DRAFTS["7"] and _valid_draft07(schema):
            raise Untranslatable(exc.pointer, f"{exc.reason} (no $schema: read as {draft.name}; it is a valid "
                                              "draft-07 schema: --default-draft 7 reads it so)") from None
        raise
    translator = _Translator(schema, draft)
    translated = translator.run()
    rewrites = sorted(translator.rewrites, key=lambda r: parse_pointer(r.pointer))  # stable: walk order per place
    origins = {tuple(str(t) for t in out): tuple(str(t) for t in source)
               for source, out in translator.placed.items()}
    return Translation(translated, draft, declared, tuple(rewrites), origins)


def _check_meta_schema(schema: Any, draft: Draft) -> None:
    from wirecheck.contracts.reference import FORMAT_CHECKER, meta_error, meta_validator  # ECMA-262 `regex`

    try:
        if meta_validator(draft.uri).is_valid(schema):  # the fast screen (milliseconds); the message comes from below
            return
    except ValueError:  # a string jsonschema-rs cannot take (a lone surrogate): python-jsonschema judges alone
        pass
    try:
        draft.validator.check_schema(schema, format_checker=FORMAT_CHECKER)
    except jsonschema.SchemaError as exc:
        path, message = meta_error(exc)
        raise Untranslatable(format_pointer(path), f"not a valid {draft.name} schema: {message}") from None


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def _join(base: str, ref: str) -> str:
    """`ref` resolved against `base`, as `referencing` does: a bare fragment keeps any base (urljoin drops a
    `urn:` base, which has no hierarchy)."""
    return urldefrag(base).url + ref if ref.startswith("#") else urljoin(base, ref)


def _valid_draft07(schema: Any) -> bool:
    try:
        _check_meta_schema(schema, DRAFTS["7"])
    except Untranslatable:
        return False
    return True


def _refuse_retrieval(uri: str) -> referencing.Resource:
    raise referencing.exceptions.NoSuchResource(ref=uri)  # type: ignore[call-arg]


def _all_paths(document: Any) -> dict[int, tuple[Any, ...]]:
    """id(object) → the path where it first occurs, for every object and array in the document."""
    paths: dict[int, tuple[Any, ...]] = {}
    stack: list[tuple[Any, tuple[Any, ...]]] = [(document, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict | list):
            if id(node) in paths and len(paths[id(node)]) <= len(path):
                continue  # YAML aliases share objects: any path to it holds the same schema
            paths[id(node)] = path
            items = node.items() if isinstance(node, dict) else enumerate(node)
            stack.extend((value, (*path, key)) for key, value in items)
    return paths


class _Translator:
    def __init__(self, document: Any, draft: Draft) -> None:
        self.document = document
        self.draft = draft
        self.rewrites: list[Rewrite] = []
        self.placed: dict[tuple[Any, ...], tuple[Any, ...]] = {}  # input path of a schema → its output path
        self.pending: list[tuple[dict[str, Any], tuple[Any, ...], tuple[Any, ...], str]] = []
        self.paths = _all_paths(document)
        root_id = draft.specification.id_of(document) if isinstance(document, dict) else None
        self.root_uri = urljoin(DEFAULT_BASE, root_id) if isinstance(root_id, str) else DEFAULT_BASE
        self.root_uri = urldefrag(self.root_uri).url
        registry: referencing.Registry = referencing.Registry(retrieve=_refuse_retrieval)  # type: ignore[call-arg]
        # crawled once here: a lookup of an embedded resource's `$id` in an uncrawled registry crawls the whole
        # document again and drops what it found (the registry is immutable), once per `$ref`: a 2 MB schema of
        # embedded resources spent 50 s of its 54 s translation there (issue 39, 5)
        # (a value where the draft expects a schema, `dependencies: {b: [a]}` in draft-04, stops referencing's
        # crawl: then the registry is left to crawl on a lookup, as before, which only an embedded `$id` needs)
        self.registry = registry.with_resource(self.root_uri, draft.specification.create_resource(document))
        with contextlib.suppress(AttributeError, TypeError, ValueError):
            self.registry = self.registry.crawl()
        self.hoisted: dict[str, Any] = {}
        self.saw_integer = False

    def note(self, path: tuple[Any, ...], change: str) -> None:
        self.rewrites.append(Rewrite(format_pointer(path), change))

    # -- the walk ---------------------------------------------------------------------------------------------

    def run(self) -> Any:
        out = self.schema(self.document, (), (), self.root_uri)
        while self.pending:
            self._link(out, *self.pending.pop(0))
        if self.hoisted:
            if not isinstance(out, dict):  # a boolean root cannot hold $defs; a $ref into it has none either
                out = {} if out else {"not": {}}
            out.setdefault("$defs", {}).update(self.hoisted)
        if self.saw_integer:
            self.note((), "draft-04 counts 1.0 as no integer; 2020-12 does, and nothing in 2020-12 can say "
                          "otherwise: `integer` is read as 2020-12 reads it (as JavaScript validators do)")
        return out

    def schema(self, node: Any, path: tuple[Any, ...], out_path: tuple[Any, ...], base: str) -> Any:
        """One schema of the input at `path`, written at `out_path` of the output."""
        self.placed.setdefault(path, out_path)
        if not isinstance(node, dict):
            return node  # a boolean schema (the meta-schema check refused anything else)
        draft = self.draft
        legacy_ref = draft.number <= 7 and "$ref" in node  # drafts ≤ 07 ignore everything beside a $ref
        own_id = draft.specification.id_of(node)
        if isinstance(own_id, str) and path:
            base = _join(base, own_id)
        out: dict[str, Any] = {}
        for key, value in node.items():
            here = (*path, key)
            if key == "$schema":
                self._dollar_schema(out, value, path)
            elif key == "$ref" and isinstance(value, str):
                out["$ref"] = value
                self.pending.append((out, here, out_path, _join(base, value)))
            elif key in ("definitions", "$defs") and isinstance(value, dict):
                self._definitions(out, key, value, path, out_path, base)
            elif legacy_ref and key in _BESIDE_REF:
                self.note(here, f"dropped: {draft.name} ignores what stands beside a $ref; 2020-12 would apply it")
            elif key in ("id", "$id") and key == draft.id_keyword:
                self._dollar_id(out, key, value, path)
            elif key in ("$anchor", "$dynamicAnchor", "$recursiveAnchor") and key in draft.keywords:
                self.note(here, f"dropped: {key}; every $ref is a JSON pointer now")
            elif key in ("$dynamicRef", "$recursiveRef") and key in draft.keywords:
                raise Untranslatable(format_pointer(here), f"{key} is resolved while validating (dynamic scope), "
                                                           "and has no JSON-pointer translation")
            elif key == "dependencies":
                self._dependencies(out, value, path, out_path, base)
            elif key in ("dependentRequired", "dependentSchemas") and key in draft.keywords:
                self._merge_dependent(out, key, value, path, out_path, base)
            elif key == "items" and isinstance(value, list) and draft.number <= 2019:
                out["prefixItems"] = [self.schema(v, (*here, i), (*out_path, "prefixItems", i), base)
                                      for i, v in enumerate(value)]
                self.note(here, "an items array → prefixItems")
            elif key == "additionalItems" and draft.number <= 2019:
                if isinstance(node.get("items"), list):
                    out["items"] = self.schema(value, here, (*out_path, "items"), base)
                    self.note(here, "additionalItems → items (beside an items array, now prefixItems)")
                else:
                    self.note(here, f"dropped: {draft.name} ignores additionalItems when items is not an array")
            elif key == "format" and isinstance(value, str) and value not in draft.formats \
                    and value in _FORMATS2019:
                self.note(here, f"dropped: {value!r} is not a {draft.name} format ({draft.name} validators "
                                "ignore it; 2020-12 ones check it)")
            elif key not in draft.keywords and key in _ASSERTING:
                self.note(here, f"dropped: {draft.name} has no {key} (its validators ignore it; 2020-12 would "
                                "apply it)")
            elif key in _DATA:
                out[key] = copy.deepcopy(value)
            elif key in _ONE:
                out[key] = self.schema(value, here, (*out_path, key), base)
            elif key in _MANY and isinstance(value, list):
                out[key] = [self.schema(v, (*here, i), (*out_path, key, i), base) for i, v in enumerate(value)]
            elif key in _MAP and isinstance(value, dict):
                out[key] = {k: self.schema(v, (*here, k), (*out_path, key, k), base) for k, v in value.items()}
            else:
                out[key] = copy.deepcopy(value)  # type, required, bounds, annotations, unknown keywords
        if draft.number == 4:
            self._draft4_exclusive(node, out, path)
            if "integer" in (out["type"] if isinstance(out.get("type"), list) else [out.get("type")]):
                self.saw_integer = True
        return out

    # -- keywords ---------------------------------------------------------------------------------------------

    def _dollar_schema(self, out: dict[str, Any], value: Any, path: tuple[Any, ...]) -> None:
        if not path:
            out["$schema"] = DIALECT
            if value != DIALECT:
                self.note(("$schema",), f"{value!r} → {DIALECT!r}")
            return
        try:
            draft, _ = declared_draft({"$schema": value})
        except Untranslatable:
            draft = None
        if draft is not self.draft:
            raise Untranslatable(format_pointer((*path, "$schema")),
                                 f"declares {value!r} inside a {self.draft.name} schema; an embedded resource in "
                                 "another draft is not translated")
        self.note((*path, "$schema"), "dropped: the same draft as the document's")

    def _dollar_id(self, out: dict[str, Any], key: str, value: Any, path: tuple[Any, ...]) -> None:
        here = (*path, key)
        if path or not isinstance(value, str):
            self.note(here, f"dropped: {key} {value!r}; the $refs that used it are JSON pointers into this file now")
            return
        url, fragment = urldefrag(value)
        if fragment:
            self.note(here, f"dropped: {key} {value!r} names an anchor; $refs to it are JSON pointers now")
        elif url:
            out["$id"] = url
            if key != "$id" or url != value:
                self.note(here, f"{key} {value!r} → $id {url!r}")

    def _definitions(self, out: dict[str, Any], key: str, value: dict[str, Any], path: tuple[Any, ...],
                     out_path: tuple[Any, ...], base: str) -> None:
        defs = out.setdefault("$defs", {})
        for name, sub in value.items():
            new_name = name
            if name in defs:
                new_name = f"{name} ({key})"  # both maps at one node, one name in each
            defs[new_name] = self.schema(sub, (*path, key, name), (*out_path, "$defs", new_name), base)
        if key == "definitions":
            self.note((*path, key), f"definitions → $defs ({_count(len(value), 'entry', 'entries')})")

    def _dependencies(self, out: dict[str, Any], value: Any, path: tuple[Any, ...], out_path: tuple[Any, ...],
                      base: str) -> None:
        here = (*path, "dependencies")
        if not isinstance(value, dict):
            self.note(here, "dropped: not an object, so no constraint")
            return
        required = {k: v for k, v in value.items() if isinstance(v, list)}
        schemas = {k: v for k, v in value.items() if not isinstance(v, list)}
        if required:
            self._merge_dependent(out, "dependentRequired", required, path, out_path, base, source="dependencies")
        if schemas:
            self._merge_dependent(out, "dependentSchemas", schemas, path, out_path, base, source="dependencies")
        parts = [f"{_count(len(required), 'list')} → dependentRequired"] * bool(required) + \
                [f"{_count(len(schemas), 'schema')} → dependentSchemas"] * bool(schemas)
        why = "" if self.draft.number <= 7 else " (a deprecated keyword the 2020-12 meta-schema keeps; " \
            "jsonschema-rs applies it, python-jsonschema ignores it: now both apply it)"
        self.note(here, "dependencies: " + ", ".join(parts) + why)

    def _merge_dependent(self, out: dict[str, Any], key: str, value: Any, path: tuple[Any, ...],
                         out_path: tuple[Any, ...], base: str, source: str | None = None) -> None:
        src = source or key
        if not isinstance(value, dict):
            out[key] = copy.deepcopy(value)
            return
        target = out.setdefault(key, {})
        for name, dep in value.items():
            if key == "dependentRequired":
                merged = list(target.get(name, []))
                target[name] = merged + [p for p in dep if p not in merged]
                continue
            translated = self.schema(dep, (*path, src, name), (*out_path, key, name), base)
            if name in target:  # both keywords constrain one property: both apply
                target[name] = {"allOf": [target[name], translated]}
                self.note((*path, src, name), f"merged with the other {key} entry for {name!r} (allOf)")
            else:
                target[name] = translated

    def _draft4_exclusive(self, node: dict[str, Any], out: dict[str, Any], path: tuple[Any, ...]) -> None:
        for exclusive, bound in (("exclusiveMaximum", "maximum"), ("exclusiveMinimum", "minimum")):
            if exclusive not in out:
                continue
            flag = out.pop(exclusive)
            here = (*path, exclusive)
            if flag is True and bound in out:
                out[exclusive] = out.pop(bound)
                self.note(here, f"{bound} {out[exclusive]} with {exclusive} true → {exclusive} {out[exclusive]}")
            elif flag is True:
                self.note(here, f"dropped: {exclusive} true without {bound} bounds nothing in draft-04")
            else:
                self.note(here, f"dropped: {exclusive} false (the default: {bound} is inclusive)")

    # -- references -------------------------------------------------------------------------------------------

    def _link(self, out_root: Any, node: dict[str, Any], where: tuple[Any, ...], out_path: tuple[Any, ...],
              uri: str) -> None:
        """Point the `$ref` written at `out_path` at the output place of its target."""
        pointer = format_pointer(where)
        ref = node["$ref"]
        target_path = self._target_path(ref, uri, pointer)
        new = self.placed.get(target_path)
        if new is None:  # the target is no schema the translation kept: keep it under $defs
            name = format_pointer(target_path) or "/"
            target = self._at(target_path)
            new = ("$defs", name)
            if name not in self.hoisted:
                self.hoisted[name] = None  # reserved before the walk, which may reach it again
                self.hoisted[name] = self.schema(target, target_path, new, self._base_at(target_path))
                self.note(target_path, f"kept under $defs as {name!r}: a $ref leads here, and the translation "
                                       "dropped the place it was")
        try:  # a URI fragment: non-ASCII, `%`, `"` and spaces percent-encoded as UTF-8
            written = "#" + quote(format_pointer(new), safe="/?:@!$&'()*+,;=")
        except UnicodeEncodeError:
            raise Untranslatable(format_pointer(where), f"{ref!r} leads to a name holding a lone surrogate, which no "
                                                        "URI (and so no $ref) can carry") from None
        node["$ref"] = written
        if written != ref:
            self.note(where, f"$ref {ref!r} → {written!r}")

    def _target_path(self, ref: str, uri: str, pointer: str) -> tuple[Any, ...]:
        """The input path of what `ref` (absolute: `uri`) leads to, resolved as the draft resolves it."""
        resolver = self.registry.resolver()
        resource_uri, fragment = urldefrag(uri)
        fragment = unquote(fragment)
        try:
            resource = resolver.lookup(resource_uri).contents
        except referencing.exceptions.Unresolvable:
            raise Untranslatable(pointer, f"{ref!r} is not a JSON pointer into this file: it leads to "
                                          f"{resource_uri!r}, which is never fetched") from None
        if fragment and not fragment.startswith("/"):  # an anchor: it names a schema object
            try:
                anchored = resolver.lookup(uri).contents
            except referencing.exceptions.Unresolvable:
                raise Untranslatable(pointer, f"{ref!r}: no anchor {fragment!r} in this file") from None
            return self.paths[id(anchored)]
        if resource is self.document:
            start: tuple[Any, ...] = ()
        elif isinstance(resource, dict | list) and id(resource) in self.paths:
            start = self.paths[id(resource)]
        else:
            raise Untranslatable(pointer, f"{ref!r} leads to a resource outside this file")
        path = list(start)
        node = resource
        try:
            for token in parse_pointer(fragment):
                step: Any = int(token) if isinstance(node, list) else token
                node = node[step]
                path.append(step)
        except (KeyError, IndexError, ValueError, TypeError):
            raise Untranslatable(pointer, f"{ref!r} points at nothing in this file") from None
        if isinstance(node, list) or not isinstance(node, dict | bool):
            raise Untranslatable(pointer, f"{ref!r} points at {type(node).__name__} {node!r:.60}, not a schema")
        return tuple(path)

    def _at(self, path: tuple[Any, ...]) -> Any:
        node = self.document
        for step in path:
            node = node[step]
        return node

    def _base_at(self, path: tuple[Any, ...]) -> str:
        base, node = self.root_uri, self.document
        for step in path:
            node = node[step]
            own_id = self.draft.specification.id_of(node) if isinstance(node, dict) else None
            if isinstance(own_id, str):
                base = _join(base, own_id)
        return base


def legacy_keywords(schema: Any) -> Iterator[tuple[str, str]]:
    """(JSON pointer, why) for each keyword of a 2020-12 contract that its validators read differently:
    `dependencies` (jsonschema-rs applies it, python-jsonschema does not)."""
    from wirecheck.contracts.views import subschemas

    for node, path in subschemas(schema):
        if isinstance(node.get("dependencies"), dict):
            yield (format_pointer((*path, "dependencies")),
                   "`dependencies` is no 2020-12 keyword: jsonschema-rs applies it and python-jsonschema ignores "
                   "it; write dependentRequired (property lists) or dependentSchemas (schemas)")
