"""A schema with its `$ref`s resolved: what `wirecheck show` prints, so a reader sees one self-contained schema.

Every `$ref` into the release's resources is replaced by what it points to, so the result needs none of the
release's files. A `$ref` that comes back to a schema it is already inside (a recursive type) cannot be inlined:
it points into the result's own `$defs`, where that schema is written out once. A `$ref` with sibling keywords
keeps its meaning: beside annotations only, the target takes them on; beside assertions, it becomes an `allOf`
member (an adjacent `additionalProperties` must not start seeing the target's `properties`). A `$ref` that leads
nowhere in the release (the loader reports those) is left as written, made absolute, and so is one more than
MAX_INLINED `$ref`s deep (a chain of thousands would be a page per level and exhaust Python's recursion).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote, urldefrag, urljoin

from wirecheck.contracts.views import DATA_KEYWORDS, SCHEMA_MAPS, subschemas
from wirecheck.pointer import parse_pointer, resolve

MAX_INLINED = 64  # $refs inlined within one another; deeper ones stay references (absolute)
_ANNOTATIONS = frozenset({"title", "description", "$comment", "examples", "default", "deprecated", "readOnly",
                          "writeOnly"})


def inline_refs(resources: Mapping[str, Any], uri: str) -> Any:
    """The schema at `uri` (`<resource $id>#<JSON pointer>`) with every `$ref` resolved (see the module's doc)."""
    return _Inliner(resources).top(uri)


class _Inliner:
    def __init__(self, resources: Mapping[str, Any]):
        self.resources = resources
        self.open: list[str] = []  # the targets being inlined, outermost first
        self.recursive: dict[str, str] = {}  # target → its name in the result's $defs
        self.root = ""

    def top(self, uri: str) -> Any:
        self.root = uri = _normal(uri)
        result = self.target(uri)
        if result is _UNRESOLVED:
            raise KeyError(uri)
        defs: dict[str, Any] = {}
        done: set[str] = set()
        while set(self.recursive) - done:  # a recursive target written out may reach another
            for target, name in list(self.recursive.items()):
                if target not in done:
                    done.add(target)
                    self.open = [target]
                    defs[name] = self.target(target)
        if defs and isinstance(result, dict):
            result = {**result, "$defs": {**result.get("$defs", {}), **defs}}
        return result

    def target(self, uri: str) -> Any:
        """The schema `uri` (normalised) points to, inlined, or _UNRESOLVED."""
        resource, fragment = urldefrag(uri)
        if resource not in self.resources:
            return _UNRESOLVED
        document = self.resources[resource]
        if fragment and not fragment.startswith("/"):  # a plain name: the `$anchor` of a schema in the resource
            found = [node for node, _ in subschemas(document) if node.get("$anchor") == fragment]
            return self.schema(found[0], resource) if found else _UNRESOLVED
        try:
            node = resolve(document, parse_pointer(fragment))
        except (KeyError, ValueError):
            return _UNRESOLVED
        return self.schema(node, resource)

    def schema(self, node: Any, base: str) -> Any:
        if isinstance(node, list):
            return [self.schema(item, base) for item in node]
        if not isinstance(node, dict):
            return node
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                continue
            if key in DATA_KEYWORDS or not isinstance(value, dict | list):
                out[key] = value
            elif key in SCHEMA_MAPS and isinstance(value, dict):
                out[key] = {name: self.schema(sub, base) for name, sub in value.items()}
            else:
                out[key] = self.schema(value, base)
        ref = node.get("$ref")
        return self.ref(_normal(urljoin(base, ref)), out) if isinstance(ref, str) else out

    def ref(self, uri: str, siblings: dict[str, Any]) -> Any:
        if uri == self.root:  # the schema being shown, from inside itself
            return _beside({"$ref": "#"}, siblings)
        if uri in self.open:  # recursive: a reference into the result's own $defs
            name = self.recursive.setdefault(uri, self._name(uri))
            return _beside({"$ref": f"#/$defs/{name}"}, siblings)
        if len(self.open) >= MAX_INLINED:
            return _beside({"$ref": uri}, siblings)
        self.open.append(uri)
        try:
            target = self.target(uri)
        finally:
            self.open.pop()
        return _beside({"$ref": uri} if target is _UNRESOLVED else target, siblings)

    def _name(self, uri: str) -> str:
        fragment = urldefrag(uri)[1]
        stem = fragment.rsplit("/", 1)[-1] or urldefrag(uri)[0].rsplit("/", 1)[-1] or "schema"
        taken = set(self.recursive.values())
        name, n = stem, 2
        while name in taken:
            name, n = f"{stem}{n}", n + 1
        return name


_UNRESOLVED = object()


def _normal(uri: str) -> str:
    """One spelling per target: the fragment percent-decoded (`#/$defs/a%20b` and `#/$defs/a b` are one place)."""
    resource, fragment = urldefrag(uri)
    return f"{resource}#{unquote(fragment)}"


def _beside(target: Any, siblings: dict[str, Any]) -> Any:
    """`target` in the place of a `$ref` that had `siblings`."""
    if not siblings:
        return target
    if isinstance(target, dict) and all(k in _ANNOTATIONS or k.startswith("x-") for k in siblings):
        return {**target, **siblings}
    return {**siblings, "allOf": [*siblings.get("allOf", []), target]}
