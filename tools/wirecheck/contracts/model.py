"""Frozen values describing one contract release, as loaded from `contracts/<package>/<version>/`."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

Scalar = str | int | float | bool | None


class _Absent:
    """What a pointer finds where the message has no such member: a value a selector can ask for (`absent:`)."""

    def __repr__(self) -> str:
        return "(absent)"

    def __reduce__(self) -> str:  # one object, in every process (-j workers unpickle the release)
        return "ABSENT"


ABSENT = _Absent()


class _Present(frozenset):
    """The accepted values of a `present:` condition: anything but ABSENT (null too). It holds no value to branch
    on, so the classifier's decision tree tests it at the leaf."""

    def __contains__(self, value: object) -> bool:
        return value is not ABSENT

    def __repr__(self) -> str:
        return "(present)"

    def __reduce__(self) -> str:
        return "PRESENT"

    def __hash__(self) -> int:
        return hash("wirecheck.PRESENT")

    def __eq__(self, other: object) -> bool:
        return other is self


PRESENT = _Present()
# One way a message can match a selector: (pointer tokens, accepted values) pairs that must all hold. The accepted
# values are scalars, may include ABSENT (the member must be missing), or are PRESENT (it must be there).
FieldConditions = tuple[tuple[tuple[str, ...], frozenset[Any]], ...]


def condition_text(tokens: tuple[str, ...], accepted: frozenset[Any]) -> str:
    """One selector condition for people: `/jsonrpc=2.0`, `/method absent`, `/result present`, `/type=a|b`."""
    from wirecheck.pointer import format_pointer

    where = format_pointer(tokens) or "(the whole message)"
    if accepted is PRESENT:
        return f"{where} present"
    if accepted == frozenset({ABSENT}):
        return f"{where} absent"
    # values as JSON writes them (true, null, 1.5), a string bare: the text is for people reading a JSON message
    return f"{where}={'|'.join(sorted(v if isinstance(v, str) else json.dumps(v) for v in accepted))}"


@dataclass(frozen=True)
class Source:
    id: str
    type: str  # seed-diff | published-release | upstream-source | upstream-docs | recording | inferred
    ref: str  # what a user can open (a package, a URL), or words saying the source is not published
    note: str | None = None
    local: str | None = None  # the project's own copy (shared/seeds/..., shared/notes/...): for developers


@dataclass(frozen=True)
class Provenance:
    sources: tuple[str, ...]
    note: str | None = None
    at: tuple[str, ...] = ()  # exact places a user can open (package file:line, URL) that show it (readers.yaml)
    local: tuple[str, ...] = ()  # the same lines in this project's own copies (shared/seeds/...): for developers


def _matches_pattern(pattern: tuple[str, ...], tokens: tuple[str, ...]) -> bool:
    return len(pattern) == len(tokens) and all(p in ("*", t) for p, t in zip(pattern, tokens, strict=True))


@dataclass(frozen=True)
class MemberReading:
    """How a kind's real consumer reads object members its contract does not declare (readers.yaml): closed
    readers reject them (wherever the contract is closed, or only at `closed_at`), open readers ignore them."""

    closed: bool
    closed_at: tuple[tuple[str, ...], ...] | None  # instance pointers (`*`: any token); None: wherever closed
    provenance: Provenance

    def rejects_at(self, parent: tuple[str, ...]) -> bool:
        """Does an unknown member of the object at `parent` (pointer tokens) make this reader reject?"""
        if not self.closed:
            return False
        return self.closed_at is None or any(_matches_pattern(p, parent) for p in self.closed_at)

    def rejects_under(self, path: tuple[str, ...]) -> bool:
        """Does the reader reject unknown members of the object at `path` or of its parent (a change at `path`
        adds or removes a member of one of the two)?"""
        return self.rejects_at(path) or (bool(path) and self.rejects_at(path[:-1]))

    @property
    def cited(self) -> str:
        return ", ".join(self.provenance.at) or ", ".join(self.provenance.sources)


@dataclass(frozen=True)
class UnknownKindReading:
    """What a message of no kind of the release meets at one consumer on one channel (readers.yaml)."""

    channel: str
    consumer: str
    reject: bool  # True: the consumer rejects it (an error); False: it ignores it (a warning) or it is an extension
    fields: FieldConditions  # `when: fields:` equality tests (empty: always)
    present: tuple[tuple[str, ...], ...]  # `when: present:` pointers that must exist
    provenance: Provenance
    absent: tuple[tuple[str, ...], ...] = ()  # `when: absent:` pointers that must not exist
    prefix: tuple[tuple[tuple[str, ...], str], ...] = ()  # `when: prefix:` a string member that starts so
    # `reads: extension`: the protocol reserves such messages for extensions: sending one is allowed (info), whatever
    # a reader that does not know the extension answers
    extension: bool = False

    @property
    def conditional(self) -> bool:
        return bool(self.fields or self.present or self.absent or self.prefix)

    @property
    def cited(self) -> str:
        return ", ".join(self.provenance.at) or ", ".join(self.provenance.sources)


@dataclass(frozen=True)
class JsonBodyReading:
    """How one consumer on one channel turns a body's bytes into JSON (readers.yaml `json_bodies`): `reader` names
    it in messages (`fetch's response.json()`); `bom`: `strip` (a UTF-8 byte order mark before the JSON is removed,
    as the WHATWG Encoding standard's UTF-8 decode does) or `reject` (the reader's JSON.parse of the raw text, or
    Python's json.loads, refuses it)."""

    channel: str
    consumer: str
    reader: str
    bom: str  # strip | reject
    provenance: Provenance

    @property
    def cited(self) -> str:
        return ", ".join(self.provenance.at) or ", ".join(self.provenance.sources)


@dataclass(frozen=True)
class NonJsonReading:
    """What a line of a stream that is not JSON meets at one consumer on one channel (readers.yaml
    `non_json_lines`): `skip` (info), `reject` (an error, the default without an entry), or `unknown` (a warning:
    the source at hand does not show how the reader parses the stream)."""

    channel: str
    consumer: str
    reads: str  # skip | reject | unknown
    provenance: Provenance

    @property
    def cited(self) -> str:
        return ", ".join(self.provenance.at) or ", ".join(self.provenance.sources)


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
        """How many conditions the selector tests: the most specific match wins. For HTTP, between selectors that
        test as many, an exact status beats a class of them (204 beats 2XX: the xopc lease's no-work answer)."""
        if self.http is not None:
            status = self.http.status
            tested = 3 + (status is not None) + (self.http.path.count("{") == 0)
            return 2 * tested + (status is not None and not status.endswith("XX"))
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
    # readers.yaml: kind id → how its real consumer reads unknown members; what unknown kinds meet, in order
    readers: MappingProxyType[str, MemberReading] = field(default_factory=lambda: MappingProxyType({}))
    unknown_kinds: tuple[UnknownKindReading, ...] = ()
    non_json_lines: tuple[NonJsonReading, ...] = ()  # readers.yaml: a line that is not JSON, per consumer
    json_bodies: tuple[JsonBodyReading, ...] = ()  # readers.yaml: how a body's bytes are read as JSON, per consumer
    tolerated: MappingProxyType[str, Provenance] = field(  # readers.yaml `rules`: rule id → why readers go on
        default_factory=lambda: MappingProxyType({}))
    # behaviour.yaml (contracts/behaviour.py): what the readers depend on beyond each message, and the keys by which
    # its obligations follow a run, a command, a session across messages
    obligations: tuple[Any, ...] = ()
    obligation_keys: MappingProxyType[str, Any] = field(default_factory=lambda: MappingProxyType({}))

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
