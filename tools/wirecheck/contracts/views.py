"""Strict and tolerant views of a schema.

Contracts are authored closed where the types are closed (the strict view). The tolerant view is derived by
dropping `additionalProperties: false` and `unevaluatedProperties: false` everywhere, so a message that carries
fields the published types lack still validates: those fields become warnings, not errors.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping
from functools import lru_cache
from typing import Any
from urllib.parse import unquote, urljoin

from wirecheck.pointer import format_pointer, parse_pointer

# `$ref`s resolved against their resource's URI: the same few thousand pairs again and again in a contract load
# (urljoin parses both each time; a pure function of two strings)
ref_target = lru_cache(maxsize=8192)(urljoin)

_CLOSING_KEYWORDS = ("additionalProperties", "unevaluatedProperties")


DATA_KEYWORDS = frozenset({"const", "enum", "default", "examples"})  # values, not schemas: copied as written
# Subschemas whose failing is what matters (`not`), or both outcomes (`if`): opening them would narrow the schema, so
# they are copied as written and the tolerant view accepts everything the strict view does.
_NEGATED = frozenset({"not", "if"})
# keywords whose value maps names (data, never rewritten) to subschemas; the diff's same_shape uses it too
SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
# keywords whose value is one subschema, or a list of subschemas (the diff's walk and the fuzz label matcher use them)
SCHEMA_VALUES = frozenset({"items", "additionalProperties", "unevaluatedProperties", "unevaluatedItems", "not", "if",
                           "then", "else", "contains", "propertyNames", "additionalItems"})
SCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})


def tolerant_view(schema: Any) -> Any:
    """A copy of `schema` with every closing keyword removed; the input is not modified. Only schema objects
    lose them: a property *named* `additionalProperties`, or a `const` object holding one, is left as written, and
    so are `not` and `if` subschemas, where opening an object would reject more, not less."""
    if type(schema) is dict:
        out = {}
        for key, value in schema.items():
            if value is False and key in _CLOSING_KEYWORDS:
                continue
            if key in DATA_KEYWORDS or key in _NEGATED or not isinstance(value, dict | list):
                out[key] = value
            elif key in SCHEMA_MAPS and type(value) is dict:
                out[key] = {name: tolerant_view(sub) for name, sub in value.items()}
            else:
                out[key] = tolerant_view(value)
        return out
    if type(schema) is list:
        return [tolerant_view(item) for item in schema]
    return schema


def subschemas(schema: Any) -> Iterator[tuple[dict[str, Any], tuple[Any, ...]]]:
    """Every schema object in `schema` with its path, in document order. Iterative (a schema may nest deeper than
    Python recursion goes); values of data keywords are not entered, names in schema maps are not keywords.
    (Children are pushed last-first, so they pop in document order; only objects and lists are pushed. Every
    contract load walks each schema several times with it: kept lean.)"""
    if not isinstance(schema, dict | list):
        return
    stack: list[tuple[Any, tuple[Any, ...]]] = [(schema, ())]
    push, pop = stack.append, stack.pop
    while stack:
        node, path = pop()
        if isinstance(node, list):
            for i in range(len(node) - 1, -1, -1):
                item = node[i]
                if isinstance(item, dict | list):
                    push((item, (*path, i)))
            continue
        yield node, path
        for key, value in reversed(node.items()):
            if key in DATA_KEYWORDS:
                continue
            if key in SCHEMA_MAPS and isinstance(value, dict):
                for name, sub in reversed(value.items()):
                    if isinstance(sub, dict | list):
                        push((sub, (*path, key, name)))
            elif isinstance(value, dict | list):
                push((value, (*path, key)))


def schema_children(node: dict[str, Any], skip: frozenset[str] = frozenset()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """The subschemas (or lists of them) directly inside a schema object, but under its keywords in `skip`, each
    with its keys from the node: `(keyword,)`, or `(keyword, name)` for an entry of a schema map — a property
    *named* `examples`, `enum` or `default` is a schema (AsyncAPI's message examples, server variables), while the
    value of such a keyword is data."""
    for key, value in node.items():
        if key in DATA_KEYWORDS or key in skip or not isinstance(value, dict | list):
            continue
        if key in SCHEMA_MAPS and isinstance(value, dict):
            for name, sub in value.items():
                if isinstance(sub, dict | list):
                    yield (key, name), sub
        else:
            yield (key,), value


_IN_PLACE = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas")


def _walked(document: Any, tokens: Iterable[str]) -> tuple[Any, ...]:
    """A pointer's tokens as `subschemas` writes paths: an array index as an int, a member name as a string."""
    path: list[Any] = []
    for token in tokens:
        step: Any = int(token) if isinstance(document, list) else token
        document = document[step]
        path.append(step)
    return tuple(path)


def ref_loops(resources: Mapping[str, Any]) -> list[tuple[str, tuple[Any, ...], str]]:
    """Each `$ref` that closes a loop reading no part of the instance (`M: oneOf [{$ref: M}, ...]`), as (resource
    URI, path of the schema holding it, the loop as pointers): 2020-12 calls such a schema invalid, and validators
    either never finish or accept anything. Loops through `properties` or `items` descend into the instance and
    are ordinary recursion. Only pointer references are followed (a missing target is someone else's report)."""
    Node = tuple[str, tuple[Any, ...]]
    edges: dict[Node, list[Node]] = {}
    for uri, schema in resources.items():
        for node, path in subschemas(schema):
            out = edges.setdefault((uri, path), [])
            for key in _IN_PLACE:
                value = node.get(key)
                if isinstance(value, list):
                    out += [(uri, (*path, key, i)) for i in range(len(value))]
                elif key == "dependentSchemas" and isinstance(value, dict):
                    out += [(uri, (*path, key, name)) for name in value]
                elif isinstance(value, dict):
                    out.append((uri, (*path, key)))
            ref = node.get("$ref")
            if isinstance(ref, str):
                target, _, fragment = ref_target(uri, ref).partition("#")
                if target in resources and (not fragment or fragment.startswith("/")):
                    with contextlib.suppress(ValueError, KeyError, IndexError):  # a bad pointer: reported elsewhere
                        out.append((target, _walked(resources[target], parse_pointer(unquote(fragment)))))
    loops = []
    state: dict[Node, int] = {}  # 1 on the current path, 2 finished
    for start in edges:
        if start in state:
            continue
        state[start] = 1
        stack = [(start, iter(edges[start]))]
        while stack:  # iterative depth-first search: a schema may nest deeper than Python recursion goes
            here, todo = stack[-1]
            step = next(todo, None)
            if step is None:
                state[here] = 2
                stack.pop()
            elif step not in edges or state.get(step) == 2:
                continue
            elif state.get(step) == 1:
                on_path = [node for node, _ in stack]
                loop = " → ".join(format_pointer(p) or "/" for _, p in (*on_path[on_path.index(step):], step))
                loops.append((here[0], here[1], loop))
            else:
                state[step] = 1
                stack.append((step, iter(edges[step])))
    return loops


def count_values(value: Any, stop: int) -> int:
    """How many JSON values `value` holds (itself, every member and item, at any depth), counted up to `stop`."""
    count = 0
    stack = [value]
    while stack and count < stop:
        item = stack.pop()
        count += 1
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return count
