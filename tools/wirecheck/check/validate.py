"""Schema validation of one message: strict view first (fast path), tolerant view for the verdict.

- strict valid → nothing to report (the common case costs one `is_valid` call);
- strict invalid only because of closing keywords (unknown fields, also inside the matching `oneOf` branch)
  → one UNKNOWN_FIELD warning per unexpected field;
- otherwise → the tolerant view's errors, each a located error, plus the unknown-field warnings.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import jsonschema_rs

from wirecheck.contracts.errors import schema_error_text
from wirecheck.contracts.formats import fast_validator
from wirecheck.contracts.loader import DIALECT, ID_BASE
from wirecheck.contracts.model import ContractRelease, SchemaLink
from wirecheck.contracts.views import tolerant_view
from wirecheck.findings import short_repr
from wirecheck.json_types import json_text
from wirecheck.pointer import format_pointer, parse_pointer, resolve

_CLOSING = frozenset({"additionalProperties", "unevaluatedProperties"})
_UNIONS = frozenset({"oneOf", "anyOf"})


@dataclass(frozen=True, slots=True)
class Problem:
    """One schema problem, before it becomes a Finding (the caller knows the code and the message location)."""

    unknown_field: bool
    pointer: str
    message: str
    schema_location: str | None = None
    expected: str | None = None
    found: str | None = None


class SchemaPair:
    """The strict and tolerant validators of one schema reference. The tolerant one is compiled when first asked
    for (`tolerant`, a function that compiles it): only a message the strict view refuses needs it, and a capture
    of valid messages then compiles none (issue 43: compiling was a twentieth of a 100,000-line run's time)."""

    __slots__ = ("_compile_tolerant", "_files", "_resources", "_tolerant", "link", "strict")

    def __init__(self, link: SchemaLink, strict: Any, tolerant: Callable[[], Any], resources: Any,
                 files: tuple[str, str] | None = None):
        self.link, self.strict, self._resources = link, strict, resources
        self._compile_tolerant, self._tolerant = tolerant, None
        self._files = files  # (the release's $id base, its folder): schema locations said as files a user can open

    @property
    def tolerant(self) -> Any:
        if self._tolerant is None:
            self._tolerant = self._compile_tolerant()
        return self._tolerant

    def _where(self, location: str | None) -> str | None:
        """A schema location as the file it is in and a JSON pointer (`…/claude-code-print/2.1.218/result.json#/…`):
        the `$id`s (https://contracts.wirecheck.invalid/...) resolve nowhere (issue 42, 6)."""
        if location and self._files is not None and location.startswith(self._files[0]):
            return self._files[1] + location[len(self._files[0]):]
        return location

    def problems(self, value: Any, prefix: str = "") -> list[Problem]:
        if self.strict.is_valid(value):
            return []
        try:
            return self._problems(value, prefix)
        except ValueError as exc:  # jsonschema-rs hands each error its instance, and cannot past ~255 levels
            if "recursion limit" not in str(exc).lower():
                raise
            view = "strict" if self.tolerant.is_valid(value) else "tolerant"  # strict alone: a warning
            return [Problem(
                unknown_field=view == "strict",
                pointer=prefix,
                message=f"the message breaks the {view} view, and nests too deep for the validator to say where",
                expected="a message its validator can report on (at most about 250 levels deep)",
                found=short_repr(value),
            )]

    def _problems(self, value: Any, prefix: str) -> list[Problem]:
        strict_errors = list(self.strict.iter_errors(value))
        found: list[Problem] = []
        mixed = False
        for error in strict_errors:
            if _closing_only(error):
                found += self._unknown_fields(error, prefix)
            else:
                mixed = True
        # Closing keywords can be all the strict view objects to and still not be all that is wrong: opening an
        # object can make it match two `oneOf` branches. The tolerant view has the last word.
        if mixed or not self.tolerant.is_valid(value):
            found += [
                self._problem(leaf, prefix, note)
                for error in self.tolerant.iter_errors(value)
                for leaf, note in _best_leaves(error, "", self._form_name)
            ]
        return found

    def _form_name(self, union: Any, index: int, count: int) -> str:
        """What a union's member is called where the report says which one the message was read as: its `$ref`'s
        definition name, else its title, else its place (`form 2 of 3`)."""
        location = union.absolute_keyword_location
        if location:
            base, _, fragment = location.partition("#")
            members = resolve(self._resources.get(base), parse_pointer(fragment), None)
            member = members[index] if isinstance(members, list) and index < len(members) else None
            if isinstance(member, dict):
                ref, title = member.get("$ref"), member.get("title")
                if isinstance(ref, str) and "/" in ref:
                    return ref.rsplit("/", 1)[1]
                if isinstance(title, str) and title:
                    return title
                properties = member.get("properties")
                for name, sub in (properties.items() if isinstance(properties, dict) else ()):
                    if isinstance(sub, dict) and isinstance(sub.get("const"), str | int | bool):
                        return f"{name} {json_text(sub['const'])}"  # the tag it is told apart by: kind "count"
        return f"form {index + 1} of {count}"

    def _unknown_fields(self, error: Any, prefix: str) -> Iterator[Problem]:
        kind = error.kind
        if kind.name in _CLOSING:
            base = prefix + format_pointer(error.instance_path)
            for name in kind.unexpected:
                pointer = f"{base}/{format_pointer([name])[1:]}"
                yield Problem(
                    unknown_field=True,
                    pointer=pointer,
                    message=f"unknown field `{name}` at {pointer}",
                    schema_location=self._where(error.absolute_keyword_location),
                )
            return
        for branch in kind.context:
            if all(_closing_only(e) for e in branch):
                for inner in branch:
                    yield from self._unknown_fields(inner, prefix)
                return

    def _problem(self, error: Any, prefix: str, note: str = "") -> Problem:
        location = error.absolute_keyword_location
        keyword = error.kind.name
        pointer = prefix + format_pointer(error.instance_path)
        if keyword in ("required", "additionalProperties", "unevaluatedProperties"):  # the message names them all
            return Problem(unknown_field=False, pointer=pointer, message=note + schema_error_text(error),
                           schema_location=self._where(location))
        expected = keyword
        if location:
            base, _, fragment = location.partition("#")
            schema_value = resolve(self._resources.get(base), parse_pointer(fragment), None)
            if schema_value is not None:
                expected = f"{keyword}: {short_repr(schema_value, 160)}"
        return Problem(
            unknown_field=False,
            pointer=pointer,
            message=note + schema_error_text(error),
            schema_location=self._where(location),
            expected=expected,
            found=short_repr(error.instance),
        )


def _branch_rank(branch: list[Any]) -> tuple[int, int]:
    """Which failed union branch the message meant: the fewest discriminator (const/enum) misses, then errors."""
    return (sum(1 for e in branch if e.kind.name in ("const", "enum")), len(branch))


def _best_leaves(error: Any, note: str, name: Callable[[Any, int, int], str]) -> Iterator[tuple[Any, str]]:
    """Like python-jsonschema's best_match: a failed oneOf/anyOf is reported through its most likely branch, and the
    note says which (`(as ResultSuccess) `)."""
    kind = error.kind
    context = getattr(kind, "context", None) if kind.name in _UNIONS else None
    if context:
        index, branch = min(enumerate(context), key=lambda item: _branch_rank(item[1]))
        if branch:
            for inner in branch:
                yield from _best_leaves(inner, f"{note}(as {name(error, index, len(context))}) ", name)
            return
    yield error, note


def _closing_only(error: Any) -> bool:
    kind = error.kind
    if kind.name in _CLOSING:
        return True
    if kind.name in _UNIONS and getattr(kind, "context", None):
        return any(branch and all(_closing_only(e) for e in branch) for branch in kind.context)
    return False


class Validators:
    """Compiled validators for a release, built on first use and kept for the run."""

    def __init__(self, release: ContractRelease):
        self.release = release
        resources = dict(release.resources)
        self._resources = resources
        self._strict_registry = jsonschema_rs.Registry(list(resources.items()))
        self._tolerant_registry: Any = None  # built with the first tolerant validator (see SchemaPair)
        self._pairs: dict[str, SchemaPair] = {}
        base = f"{ID_BASE}/{release.package}/{release.version}/"
        self._files = (base, f"{release.root.as_posix()}/") if getattr(release, "root", None) else None

    def pair(self, link: SchemaLink) -> SchemaPair:
        pair = self._pairs.get(link.uri)
        if pair is None:
            root = {"$schema": DIALECT, "$ref": link.uri}
            pair = SchemaPair(
                link,
                fast_validator(root, self._strict_registry),
                lambda: fast_validator(root, self._tolerant()),
                self._resources,
                self._files,
            )
            self._pairs[link.uri] = pair
        return pair

    def _tolerant(self) -> Any:
        """The registry of the release's schemas in their tolerant view (contracts/views.py), built once."""
        if self._tolerant_registry is None:
            self._tolerant_registry = jsonschema_rs.Registry(
                [(uri, tolerant_view(schema)) for uri, schema in self._resources.items()])
        return self._tolerant_registry
