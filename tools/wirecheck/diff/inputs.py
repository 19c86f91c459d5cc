"""What `diff-schemas` accepts: one self-contained schema per side, in drafts 04, 06, 07, 2019-09 or 2020-12.

The diff reasons about keywords as 2020-12 defines them and finds schemas by JSON pointer. So each input is first
translated into the 2020-12 schema that accepts the same instances (`contracts/drafts.py`: items arrays,
`definitions`, `dependencies`, draft-04's `id` and boolean exclusive bounds, `$ref`s resolved into JSON pointers,
what the draft ignores dropped); `--explain-input` lists every rewrite. A `$ref` to another file is bundled first
from files the user gives (diff/bundle.py). What has no faithful translation (another dialect, dynamic references, a
`$ref` out of the file nobody supplied, a `$ref` loop that reads nothing) would be compared under
the wrong meaning, and a breaking change could pass as safe: it is refused with the reason and where it is.
Locations in the report name the input's own places (`/definitions/A`, not `/$defs/A`: `in_input_terms`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

from wirecheck.contracts.drafts import DIALECT, DRAFT_2020_12, MAX_DEPTH, Draft, Translation, Untranslatable, translate
from wirecheck.contracts.views import count_values, ref_loops, subschemas
from wirecheck.json_types import json_type
from wirecheck.pointer import format_pointer, parse_pointer, resolve

__all__ = ["MAX_DEPTH", "MAX_SCHEMA_VALUES", "Read", "TooLarge", "in_input_terms", "not_json", "read_input",
           "read_schema", "too_many_values", "unsupported"]

# JSON values in one diff-schemas input. With the validators bounded (diff/side.py) the diff's memory still grows
# with the schema, about 4 KiB a value: two schemas of 1,900 $defs, 104,504 values each, peak at 487 MiB (237 s),
# two of 1,900 interlinked definitions, 69,171 values, at 405 MiB; a file within MAX_FILE_BYTES could hold three
# times what the README's 512 MiB allows. 1.5x a contract release's own limit (MAX_RELEASE_VALUES).
MAX_SCHEMA_VALUES = 75_000


def too_many_values(schema: Any) -> str | None:
    """Why `schema` is too large to compare (past MAX_SCHEMA_VALUES), or None; counted before anything is built."""
    if count_values(schema, MAX_SCHEMA_VALUES + 1) <= MAX_SCHEMA_VALUES:
        return None
    return (f"holds more than {MAX_SCHEMA_VALUES:,} JSON values, the most wirecheck compares of a schema "
            "(see Limits in the README)")
_UNSUPPORTED = {
    "$anchor": "a named anchor: refer to the schema by JSON pointer (#/$defs/...) instead",
    "$dynamicAnchor": "dynamic references are not compared",
    "$dynamicRef": "dynamic references are not compared",
    "$recursiveAnchor": "a draft 2019-09 keyword",
    "$recursiveRef": "a draft 2019-09 keyword",
}


def not_json(value: Any) -> str | None:
    """Why a value read from YAML cannot be a JSON document, as "<JSON pointer>: <why>" (a date, an integer key);
    None when it can. (What the YAML loader refuses in every file never gets here: an alias that contains itself,
    NaN and infinities, sets and binary data.)"""
    stack: list[tuple[Any, tuple[Any, ...]]] = [(value, ())]
    while stack:  # YAML has dates and integer keys: JSON has neither
        item, path = stack.pop()
        if isinstance(item, dict):
            for key, child in item.items():
                if not isinstance(key, str):
                    return f"{format_pointer(path)}: the key {key!r} is a YAML {type(key).__name__}, not a string " \
                           "(quote it)"
                stack.append((child, (*path, key)))
        elif isinstance(item, list):
            stack.extend((child, (*path, index)) for index, child in enumerate(item))
        elif item is not None and not isinstance(item, str | int | float):
            return f"{format_pointer(path)}: {item!r} is a YAML {type(item).__name__}, not a JSON value (quote it)"
    return None


def not_a_schema(schema: Any) -> str | None:
    """Why `schema` is not a valid 2020-12 schema, as "<JSON pointer>: <why>", or None (jsonschema-rs against the
    dialect's meta-schema, formats asserted: `contracts.reference.meta_validator`)."""
    from wirecheck.contracts.reference import meta_validator

    try:
        error = next(iter(meta_validator(DIALECT).iter_errors(schema)), None)
    except ValueError:  # a string jsonschema-rs cannot take (a lone surrogate): python-jsonschema judges alone
        import jsonschema

        from wirecheck.contracts.reference import FORMAT_CHECKER

        try:
            jsonschema.Draft202012Validator.check_schema(schema, format_checker=FORMAT_CHECKER)
        except jsonschema.SchemaError as exc:
            return f"{format_pointer(tuple(exc.absolute_path))}: {exc.message}"
        return None
    if error is None:
        return None
    path, message = list(error.instance_path), error.message
    if getattr(error.kind, "format", None) == "regex" or type(error.kind).__name__ == "PropertyNames":
        from wirecheck.contracts.reference import regex_problem

        pattern = error.instance if isinstance(error.instance, str) else next(
            (key for key in error.instance if regex_problem(key)), None) if isinstance(error.instance, dict) else None
        found = regex_problem(pattern) if isinstance(pattern, str) else None
        if found:  # a pattern, or a key of patternProperties (pointed at by its member)
            path, message = path + ([pattern] if isinstance(error.instance, dict) else []), found
    return f"{format_pointer(tuple(path))}: {message}"


def unsupported(schema: Any) -> str | None:
    """The first thing in `schema` the diff cannot compare soundly, as "<JSON pointer>: <why>", or None."""
    if isinstance(schema, dict) and "$schema" in schema and schema["$schema"] != DIALECT:
        return f"/$schema: declares {schema['$schema']!r}; read_input translates other drafts first"
    for node, path in subschemas(schema):
        if len(path) > MAX_DEPTH:
            return f"{format_pointer(path)}: the schema nests more than {MAX_DEPTH} levels deep"
        for key, value in node.items():
            if key in _UNSUPPORTED:
                return f"{format_pointer((*path, key))}: {key} is not supported ({_UNSUPPORTED[key]})"
            if key == "$id" and path:
                return f"{format_pointer((*path, key))}: an embedded resource ($id below the root) is not supported"
            if key == "$schema" and path:
                return f"{format_pointer((*path, key))}: a $schema below the root is not supported"
            if key == "$ref" and isinstance(value, str) and not (value == "#" or value.startswith("#/")):
                return f"{format_pointer((*path, key))}: {value!r} is not a JSON pointer into this file (#/...)"
            if key == "$ref" and isinstance(value, str):
                try:
                    resolve(schema, parse_pointer(unquote(value[1:])))
                except (KeyError, IndexError, ValueError):
                    return f"{format_pointer((*path, key))}: {value!r} points at nothing in this file"
    for _, path, loop in ref_loops({"": schema}):
        return f"{format_pointer((*path, '$ref'))}: a $ref loop that reads no part of the message: {loop}"
    return None


# Annotations: every validator ignores them when it validates an instance, so one of the wrong type (SchemaStore's
# `description: null`, `examples: "Yes"`) changes no verdict; its draft's meta-schema still refuses the schema
ANNOTATIONS = frozenset({"title", "description", "$comment", "examples", "readOnly", "writeOnly", "deprecated",
                         "contentMediaType", "contentEncoding"})
_MAX_DROPPED = 1000


def tolerated_annotations(schema: Any, default: Draft = DRAFT_2020_12) -> tuple[Any, list[str]]:
    """The schema without the annotations its draft's meta-schema refuses for their type, and a warning for each
    (its JSON pointer, the keyword, what it holds): they are dropped, read as no annotation, as validators read
    them. Anything else the meta-schema refuses is left for `read_input` to refuse."""
    from wirecheck.contracts.drafts import declared_draft, depth_problem
    from wirecheck.contracts.reference import meta_validator

    if depth_problem(schema) is not None:  # read_input refuses it, located; the meta-schema check would recurse
        return schema, []
    try:
        draft, _ = declared_draft(schema, default)
        if meta_validator(draft.uri).is_valid(schema):
            return schema, []
    except (Untranslatable, ValueError):  # another $schema, a lone surrogate: read_input says what
        return schema, []
    import copy

    from wirecheck.contracts.reference import FORMAT_CHECKER

    cleaned: Any = None
    notes: list[str] = []
    checker = draft.validator(draft.validator.META_SCHEMA, format_checker=FORMAT_CHECKER)
    while len(notes) < _MAX_DROPPED:
        if cleaned is not None and meta_validator(draft.uri).is_valid(cleaned):
            break  # all read (the fast screen: python-jsonschema takes seconds over a 1.5 MB schema)
        faults = [error for error in _with_causes(checker.iter_errors(cleaned or schema))
                  if (error.validator == "type" and error.absolute_path and error.absolute_path[-1] in ANNOTATIONS)
                  or _unencoded_ref(error)]
        if not faults:
            break
        cleaned = cleaned if cleaned is not None else copy.deepcopy(schema)
        before = len(notes)
        for error in faults:
            *parent_path, keyword = error.absolute_path
            parent = resolve(cleaned, tuple(str(step) for step in parent_path), None)  # list indexes are ints
            if not (isinstance(parent, dict) and keyword in parent):
                continue
            if keyword == "$ref":
                written = parent["$ref"]
                if not isinstance(written, str) or _uri_encoded(written) == written:
                    continue  # read already (one fault may be reported twice: itself and inside an anyOf)
                parent["$ref"] = encoded = _uri_encoded(written)
                notes.append(f"{format_pointer((*parent_path, keyword))}: $ref {written!r} is not a URI reference "
                             f"(RFC 3986 has no such characters unencoded): read as {encoded!r}, the place it "
                             "names, as python-jsonschema and ajv resolve it")
                continue
            found = parent.pop(keyword)
            notes.append(f"{format_pointer((*parent_path, keyword))}: {keyword} is {json_type(found)}, not "
                         f"{' or '.join(_as_list(error.validator_value))}: an annotation every validator "
                         "ignores, dropped")
        if len(notes) == before:
            break
    return (cleaned if cleaned is not None else schema), notes


def _with_causes(errors: Any) -> Any:
    """Each meta-schema error and, below it, what made each alternative of an `anyOf` fail: draft 2019-09's
    `items` is `anyOf: [schema, array of schemas]`, so a fault inside an `items` schema is reported there, at the
    `anyOf`, with the fault itself in its context."""
    for error in errors:
        yield error
        yield from _with_causes(error.context or ())


# What RFC 3986 lets a URI reference hold unencoded (reserved, unreserved, and `%` of a percent-encoding)
_URI_CHARACTERS = "!#$%&'()*+,/:;=?@[]~-._"


def _unencoded_ref(error: Any) -> bool:
    """A `$ref` its draft's meta-schema refuses only as no `uri-reference`, that percent-encoding makes one:
    SchemaStore's vector.json writes Rust type names (`#/definitions/core::option::Option<std::path::PathBuf>`),
    vega-lite.json TypeScript generics. Validators resolve the place it names: python-jsonschema 4.26.0 (a
    validator built from vector.json resolves it; only `check_schema`, which asserts formats, refuses) and ajv
    8.20.0 (`validateSchema` is true without ajv-formats: the format is not checked)."""
    if not (error.validator == "format" and error.validator_value == "uri-reference" and error.absolute_path
            and error.absolute_path[-1] == "$ref" and isinstance(error.instance, str)):
        return False
    encoded = _uri_encoded(error.instance)
    return encoded != error.instance and _is_uri_reference(encoded)


def _uri_encoded(ref: str) -> str:
    from urllib.parse import quote

    return quote(ref, safe=_URI_CHARACTERS)


def _is_uri_reference(value: str) -> bool:
    from wirecheck.contracts.reference import FORMAT_CHECKER

    return bool(FORMAT_CHECKER.conforms(value, "uri-reference"))


def _as_list(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


class TooLarge(ValueError):
    """A schema past MAX_SCHEMA_VALUES (the message says so): not compared."""


@dataclasses.dataclass(frozen=True)
class Read:
    """One side as `diff-schemas` reads it: the translation, a line per file its `$ref`s reached (bundled), a line
    per annotation dropped as validators tolerate it (`pointer: what`)."""

    translation: Translation
    bundled: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()


def read_schema(schema: Any, find: Callable[[str], Any | None] | None = None,
                default: Draft = DRAFT_2020_12) -> Read:
    """The reading pipeline of one side of `diff-schemas` (the CLI and the replay of the schema histories share
    it): the files its `$ref`s reach bundled in from `find` (diff/bundle.py), refused past MAX_SCHEMA_VALUES
    (TooLarge), the annotations validators tolerate dropped (`tolerated_annotations`), translated into 2020-12 and
    screened (`read_input`). Raises Untranslatable with the JSON pointer into the input and the reason."""
    from wirecheck.diff.bundle import bundle

    bundled: list[str] = []
    if find is not None:
        schema, bundled = bundle(schema, find, default)
    if (too_large := too_many_values(schema)) is not None:
        raise TooLarge(too_large)
    schema, dropped = tolerated_annotations(schema, default)
    return Read(read_input(schema, default), tuple(bundled), tuple(dropped))


def read_input(schema: Any, default: Draft = DRAFT_2020_12) -> Translation:
    """The schema as the diff reads it: translated into 2020-12, then screened (`unsupported`). Raises
    Untranslatable with the JSON pointer (into the input) and the reason."""
    translation = translate(schema, default)
    problem = unsupported(translation.schema)
    if problem:
        where, _, why = problem.partition(": ")
        raise Untranslatable(translation.source_pointer(where), why)
    return translation


def in_input_terms(result: Any, old: Translation, new: Translation) -> Any:
    """A diff-schemas result whose schema locations name the places of the files the user wrote."""
    def mapped(location: str | None, translation: Translation) -> str | None:
        if not location or "#" not in location:
            return location
        file, _, pointer = location.partition("#")
        return f"{file}#{translation.source_pointer(unquote(pointer))}"

    findings = tuple(_in_draft_words(dataclasses.replace(f, old_location=mapped(f.old_location, old),
                                                         new_location=mapped(f.new_location, new)), old, new)
                     for f in result.findings)
    return dataclasses.replace(result, findings=findings)


# draft-04 writes an exclusive bound as a boolean beside the inclusive one; the translation's numeric form
_DRAFT_04_BOUNDS = {"exclusiveMaximum": "maximum", "exclusiveMinimum": "minimum"}


def _in_draft_words(finding: Any, old: Translation, new: Translation) -> Any:
    """A finding about a numeric bound, said in the keywords of the draft each side was written in: draft-04's
    `maximum: 5, exclusiveMaximum: true` is `maximum 5 with exclusiveMaximum true`, not the translation's
    `exclusiveMaximum 5`."""
    params = dict(finding.params)
    if not str(params.get("keyword", "")).endswith(" bound"):
        return finding
    changed = False
    for name, translation in (("old", old), ("new", new)):
        if translation.draft.name != "draft-04" or not isinstance(params.get(name), str):
            continue
        words = []
        for part in params[name].split(" and "):
            keyword, _, value = part.partition(" ")
            words.append(f"{_DRAFT_04_BOUNDS[keyword]} {value} with {keyword} true" if keyword in _DRAFT_04_BOUNDS
                         else part)
        changed = changed or words != params[name].split(" and ")
        params[name] = " and ".join(words)
    if not changed:
        return finding
    from wirecheck.diff.catalogue import diff_rule_catalogue
    from wirecheck.diff.changes import SURFACE_WORDS

    message = diff_rule_catalogue()[finding.rule].render(
        {"path": finding.path or "/", "kind": finding.kind,
         "surface": SURFACE_WORDS.get(finding.surface, finding.surface), **params})
    return dataclasses.replace(finding, message=message, params=tuple(sorted(params.items())))
