"""The schema resources of one release, prepared for generation: absolute `$ref`s, resolution, validators.

Every `$ref` is rewritten to an absolute URI once, so a subschema means the same thing wherever it ends up
(the compiler merges `allOf` branches and union siblings from different files). Validators for any subschema
are then jsonschema-rs validators over that subschema with the release's resources as the registry; they are
the rejection filter of last resort and the check that every generated value is valid.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from functools import cached_property
from typing import Any
from urllib.parse import unquote, urldefrag, urljoin

import jsonschema_rs
import orjson

from wirecheck.contracts.formats import fast_validator
from wirecheck.pointer import parse_pointer

DIALECT = "https://json-schema.org/draft/2020-12/schema"


def _absolutize(node: Any, base: str) -> Any:
    if isinstance(node, dict):
        if isinstance(node.get("$id"), str):
            base = urljoin(base, node["$id"])
        out = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                out[key] = urljoin(base, value)
            elif key in ("const", "enum", "examples", "default"):
                out[key] = copy.deepcopy(value)
            else:
                out[key] = _absolutize(value, base)
        return out
    if isinstance(node, list):
        return [_absolutize(item, base) for item in node]
    return node


def _refs_in(node: Any) -> set[str]:
    found: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            for key, value in current.items():
                if key == "$ref" and isinstance(value, str):
                    found.add(value)
                elif key not in ("const", "enum", "examples", "default"):
                    stack.append(value)
        elif isinstance(current, list):
            stack.extend(current)
    return found


class SchemaSet:
    """The resources of one release (`$id` → schema), with absolute refs; input is not modified."""

    def __init__(self, resources: Mapping[str, Any]):
        self.original = resources
        self.resources: dict[str, Any] = {
            uri: _absolutize(schema, uri) for uri, schema in resources.items()
        }
        self.registry = jsonschema_rs.Registry(list(self.resources.items()))
        self._validators: dict[bytes, Any] = {}

    def resolve(self, uri: str) -> Any:
        """The subschema an absolute URI (with optional JSON-pointer fragment) names."""
        base, fragment = urldefrag(uri)
        if base not in self.resources:
            raise KeyError(f"{uri}: no such schema resource in the release")
        node = self.resources[base]
        for token in parse_pointer(unquote(fragment)) if fragment else ():
            node = node[int(token)] if isinstance(node, list) else node[token]
        return node

    def validator(self, schema: Any) -> Any:
        """A jsonschema-rs validator (formats asserted) for a subschema; cached by content."""
        key = orjson.dumps(schema, option=orjson.OPT_SORT_KEYS)
        found = self._validators.get(key)
        if found is None:
            root = dict(schema) if isinstance(schema, dict) else {"allOf": [schema]}
            root.setdefault("$schema", DIALECT)
            found = fast_validator(root, self.registry)
            self._validators[key] = found
        return found

    def ref_validator(self, uri: str) -> Any:
        return self.validator({"$ref": uri})

    @cached_property
    def recursive_refs(self) -> frozenset[str]:
        """The ref targets that can reach themselves: the only ones whose depth must be bounded."""
        edges: dict[str, set[str]] = {}
        pending = [ref for schema in self.resources.values() for ref in _refs_in(schema)]
        while pending:
            uri = pending.pop()
            if uri in edges:
                continue
            try:
                edges[uri] = _refs_in(self.resolve(uri))
            except (KeyError, IndexError, ValueError):
                edges[uri] = set()
            pending.extend(edges[uri] - edges.keys())
        recursive = set()
        for start in edges:
            seen: set[str] = set()
            stack = list(edges[start])
            while stack:
                uri = stack.pop()
                if uri == start:
                    recursive.add(start)
                    break
                if uri in seen:
                    continue
                seen.add(uri)
                stack.extend(edges.get(uri, ()))
        return frozenset(recursive)
