"""Frozen values describing one contract release, as loaded from `contracts/<package>/<version>/`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

Scalar = str | int | float | bool | None
# One way a message can match a selector: (pointer tokens, accepted values) pairs that must all hold.
FieldConditions = tuple[tuple[tuple[str, ...], frozenset[Any]], ...]


@dataclass(frozen=True)
class Source:
    id: str
    type: str  # seed-diff | published-release | upstream-source | upstream-docs | recording | inferred
    ref: str
    note: str | None = None


@dataclass(frozen=True)
class Provenance:
    sources: tuple[str, ...]
    note: str | None = None


@dataclass(frozen=True)
class HttpSelector:
    method: str
    path: str  # template, `{name}` matches one segment
    status: str | None  # "200", "2XX", or None for requests
    base: str | None

    @property
    def is_request(self) -> bool:
        return self.status is None


@dataclass(frozen=True)
class SchemaLink:
    ref: str  # as written in the catalog, relative to the release folder
    uri: str  # absolute: the file's $id plus fragment


@dataclass(frozen=True)
class Reply:
    at: tuple[str, ...]
    schema: SchemaLink


@dataclass(frozen=True)
class MessageKind:
    id: str
    title: str
    channel: str
    producer: str
    consumer: str
    provenance: Provenance
    schema: SchemaLink | None = None
    body: str = "json"  # json | empty | any
    headers: SchemaLink | None = None
    fields: tuple[FieldConditions, ...] = ()  # alternatives; empty for http/argv-only selectors
    http: HttpSelector | None = None
    path_glob: str | None = None
    program: str | None = None
    answers: str | None = None
    correlate: tuple[tuple[str, ...], tuple[str, ...]] | None = None  # (request pointer, response pointer)
    reply: Reply | None = None
    argv_grammar: MappingProxyType[str, Any] | None = None
    description: str | None = None
    deprecated: bool = False

    @property
    def specificity(self) -> int:
        """How many conditions the selector tests: the most specific match wins."""
        if self.http is not None:
            return 3 + (self.http.status is not None) + (self.http.path.count("{") == 0)
        return max((len(alt) for alt in self.fields), default=0) + (self.path_glob is not None)


@dataclass(frozen=True)
class RuleUse:
    id: str
    kinds: tuple[str, ...]
    params: MappingProxyType[str, Any]


@dataclass(frozen=True)
class Base:
    name: str
    kind: str
    pointer: tuple[str, ...]


@dataclass(frozen=True)
class Consumer:
    kind: str
    contract: str  # package@version
    as_kind: str
    note: str | None = None


@dataclass(frozen=True)
class ContractRelease:
    package: str
    version: str
    title: str
    root: Path
    kinds: tuple[MessageKind, ...]
    sources: MappingProxyType[str, Source]
    roles: tuple[str, ...]
    bases: MappingProxyType[str, Base]
    rules: tuple[RuleUse, ...]
    consumers: tuple[Consumer, ...]
    # Schema resources of the release, keyed by their `$id`, as authored (the strict view).
    resources: MappingProxyType[str, Any] = field(repr=False)
    wire_version: str | None = None
    description: str | None = None

    @property
    def name(self) -> str:
        return f"{self.package}@{self.version}"

    def kind(self, kind_id: str) -> MessageKind:
        for kind in self.kinds:
            if kind.id == kind_id:
                return kind
        raise KeyError(kind_id)

    def kinds_on(self, channel: str) -> tuple[MessageKind, ...]:
        return tuple(k for k in self.kinds if k.channel == channel)
