"""Schemas as people publish them: a `$ref` to another file, resolved from files the user gives, never fetched.

SchemaStore's `package.json` refers to `https://json.schemastore.org/eslintrc.json` and six other files, which refer
to more (`partial-eslint-plugins.json`). `diff-schemas --ref-map URL=FILE` (a file published at URL) and
`--schemas-dir DIR` (a folder of such files under their published names: SchemaStore's own layout) say where each
is; `bundle` copies every file reached, transitively, into the schema's own definitions under the file's name
(`/definitions/eslintrc.json`), and points each `$ref` there, so that the rest of the diff reads one self-contained
schema (the file's own `#/...` references, and references between the files, rewritten alike). Nothing is fetched:
a `$ref` to a file neither option supplies is refused, naming the URL and both options. A file in another draft than
the schema that refers to it is refused too (bundled, its keywords would be read in the wrong draft).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import quote, urldefrag, urljoin, urlsplit

from wirecheck.contracts.drafts import DRAFT_2020_12, MAX_DEPTH, Draft, Untranslatable, declared_draft, depth_problem
from wirecheck.pointer import format_pointer

# keywords whose values are data, not schemas: a `$ref` key inside one is a value like any other
_DATA = frozenset({"enum", "const", "examples", "default"})
MAX_BUNDLED = 256  # files one schema may reach


def external_refs(schema: Any) -> bool:
    """Does the schema hold a `$ref` to another file (anything but a `#` fragment)?"""
    return any(not ref.startswith("#") for ref, _ in _refs(schema))


def bundle(schema: Any, find: Callable[[str], Any | None], default: Draft = DRAFT_2020_12) -> tuple[Any, list[str]]:
    """The schema with every file its `$ref`s reach copied into its definitions and the `$ref`s pointed there; and
    a line per file bundled (what, from where, to where). `find(url)`: the parsed file published at `url` (no
    fragment), None when the user supplied none. Raises Untranslatable (pointer into the input, reason)."""
    if not isinstance(schema, dict) or depth_problem(schema) is not None or not external_refs(schema):
        return schema, []  # (a schema nested too deep: its translation says where, never copied here)
    draft, _ = declared_draft(schema, default)
    root_base: str = schema["$id"] if isinstance(schema.get("$id"), str) else ""
    word = "$defs" if draft.number >= 2019 else "definitions"
    out = _copy(schema)
    home = out.setdefault(word, {})
    if not isinstance(home, dict):
        raise Untranslatable(f"/{word}", f"{word} is not an object: no place to bundle referenced files")
    names: dict[str, str] = {}  # URL → its key under `word`
    notes: list[str] = []
    # resources the schema embeds under their own `$id` (AsyncAPI's bundled schemas): a `$ref` to one stays
    embedded = {urldefrag(base)[0] for _, _, base in _schema_nodes(out, root_base) if base}
    todo: list[tuple[Any, str, tuple[Any, ...]]] = [(out, root_base, ())]  # (a document, its base, where it is)
    while todo:
        document, document_base, at = todo.pop()
        for node, path, base in _schema_nodes(document, document_base):
            ref = node.get("$ref")
            if not isinstance(ref, str):
                continue
            where = format_pointer((*at, *path, "$ref"))
            target, fragment = urldefrag(urljoin(base, ref) if base else ref)
            if not at and target in embedded:  # a resource the schema holds itself: read where it is
                continue
            if fragment and not fragment.startswith("/"):
                raise Untranslatable(where, f"{ref!r} names an anchor ({fragment!r}): refer to it by JSON pointer")
            if not target or (root_base and target == urldefrag(root_base)[0]):  # the schema's own file
                if at:
                    node["$ref"] = "#" + fragment
                continue
            if at and target == urldefrag(document_base)[0]:  # a bundled file referring to a place in itself
                node["$ref"] = "#" + _fragment(at) + fragment
                continue
            if target not in names:
                if len(names) >= MAX_BUNDLED:
                    raise Untranslatable(where, f"the schema reaches more than {MAX_BUNDLED} other files")
                found = find(target)
                if found is None:
                    raise Untranslatable(where, f"{ref!r} leads to {target}, another file: give it with --ref-map "
                                                f"{target}=FILE or --schemas-dir DIR (a $ref is never fetched)")
                if (deep := depth_problem(found)) is not None:
                    raise Untranslatable(where, f"{target} nests more than {MAX_DEPTH} levels deep (at {deep})")
                names[target] = key = _key(target, home)
                external_draft, _ = declared_draft(found, draft)
                if external_draft is not draft:
                    raise Untranslatable(where, f"{target} is {external_draft.name}, the schema that refers to it "
                                                f"{draft.name}: its keywords would be read in the wrong draft")
                copied = {k: v for k, v in _copy(found).items() if k not in ("$id", "$schema")} \
                    if isinstance(found, dict) else _copy(found)
                home[key] = copied
                notes.append(f"{target} bundled at /{word}/{key}")
                todo.append((copied, target, (word, key)))
            node["$ref"] = "#" + _fragment((word, names[target])) + fragment
    return out, notes


def from_map_and_dirs(ref_map: dict[str, Any], folders: list[Any], read: Callable[[Any], Any]) -> Callable[
        [str], Any | None]:
    """`find` for `bundle`: a URL given in `ref_map` (URL → path), else a file of the URL's last path segment in one
    of `folders` (in order); `read(path)` parses it."""

    def find(url: str) -> Any | None:
        if url in ref_map:
            return read(ref_map[url])
        name = PurePosixPath(urlsplit(url).path).name
        for folder in folders:
            path = folder / name
            if name and path.is_file():
                return read(path)
        return None

    return find


def _key(url: str, home: dict[str, Any]) -> str:
    """A definition name for a bundled file: its published name (`eslintrc.json`), made unique."""
    name = PurePosixPath(urlsplit(url).path).name or urlsplit(url).netloc or "bundled"
    key, n = name, 1
    while key in home:
        n += 1
        key = f"{name}-{n}"
    return key


def _fragment(path: tuple[Any, ...]) -> str:
    """A JSON pointer as a URI fragment (RFC 6901 section 6: percent-encoded where a URI needs it)."""
    return quote(format_pointer(path), safe="/~!$&'()*+,;=:@-._")


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _schema_nodes(document: Any, base: str = "") -> list[tuple[dict[str, Any], tuple[Any, ...], str]]:
    """Every object in schema position (not inside `enum`, `const`, `examples`, `default`), with its path and the
    base URI its `$ref`s resolve against (`base`, changed by each `$id` on the way)."""
    out = []
    stack: list[tuple[Any, tuple[Any, ...], str]] = [(document, (), base)]
    while stack:
        node, path, here = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("$id"), str):
                here = urljoin(here, node["$id"]) if here else node["$id"]
            out.append((node, path, here))
            stack.extend((v, (*path, k), here) for k, v in node.items() if k not in _DATA)
        elif isinstance(node, list):
            stack.extend((v, (*path, i), here) for i, v in enumerate(node))
    return out


def _refs(document: Any) -> list[tuple[str, tuple[Any, ...]]]:
    return [(node["$ref"], path) for node, path, _ in _schema_nodes(document) if isinstance(node.get("$ref"), str)]
