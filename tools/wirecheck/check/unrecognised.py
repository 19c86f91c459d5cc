"""What the messages no kind of the release recognised looked like, and which release would recognise them.

A capture in which nothing was recognised is usually the wrong file or the wrong release; its NOTHING_RECOGNISED
finding says which top-level fields, discriminator values and HTTP routes the capture held, and which bundled
release's classifier recognises the most of a bounded sample of those messages ("it looks like xopc@0.0.253").
Memory is bounded whatever the capture's length: a fixed number of names, values, routes and pruned samples.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from wirecheck.check.message import Message
from wirecheck.contracts.model import ContractRelease

MAX_NAMES = 24  # distinct field names, discriminator values per field, routes, artifact shapes kept
MAX_SAMPLES = 32  # messages kept (pruned, one per distinct shape) to try on other releases
# top-level members whose values name a message's kind in the protocols wirecheck knows (and in most others)
DISCRIMINATORS = ("type", "subtype", "kind", "method", "event", "jsonrpc")
_SHOWN = 12  # how many of each are named in the finding, in the order the capture first held them


def _prune(value: Any, depth: int = 4) -> Any:
    """A bounded copy that still classifies like the original: selectors test scalars at shallow pointers."""
    if isinstance(value, dict):
        if depth == 0:
            return {}
        return {k: _prune(v, depth - 1) for k, v in list(value.items())[:64]}
    if isinstance(value, list):
        return [_prune(v, depth - 1) for v in value[:4]] if depth else []
    if isinstance(value, str) and len(value) > 256:
        return value[:256] + "…"  # longer than any selector value: still equal to none of them
    return value


def _add(counter: Counter[Any], key: Any) -> None:
    if key in counter or len(counter) < MAX_NAMES:
        counter[key] += 1


@dataclass
class Unrecognised:
    """The unclassified messages of one capture, summarised."""

    count: int = 0
    fields: Counter[str] = field(default_factory=Counter)
    values: dict[str, Counter[Any]] = field(default_factory=dict)
    routes: Counter[str] = field(default_factory=Counter)
    artifacts: Counter[str] = field(default_factory=Counter)
    samples: dict[Any, Message] = field(default_factory=dict)  # shape → one pruned message of that shape
    first: Any = None  # the first message's value, whole: a capture of one is a document some file kind may be

    def add(self, message: Message) -> None:
        self.count += 1
        value = message.value
        if self.count == 1 and message.http is None and message.artifact is None:
            self.first = value
        shape: tuple[Any, ...]
        if message.http is not None:
            http = message.http
            route = f"{http.method} {http.path}" + (f" → {http.status}" if http.status is not None else "")
            _add(self.routes, route)
            shape = ("http", route)
        elif message.artifact is not None:
            artifact = message.artifact
            what = artifact.channel + (f" {artifact.path}" if artifact.path else "") + (
                f" {artifact.program}" if artifact.program else "")
            _add(self.artifacts, what)
            shape = ("artifact", what)
        else:
            shape = ("stream",)
        if isinstance(value, dict):
            for name in list(value)[:64]:
                _add(self.fields, name)
            picked = tuple((name, value[name]) for name in DISCRIMINATORS
                           if isinstance(value.get(name), str | int | bool) and name in value)
            for name, found in picked:
                _add(self.values.setdefault(name, Counter()), found)
            if message.http is None and message.artifact is None:
                shape = ("stream", picked, tuple(sorted(value)[:16]))
        if shape not in self.samples and len(self.samples) < MAX_SAMPLES:
            self.samples[shape] = replace(message, value=_prune(value), kind=None)

    def describe(self) -> str:
        """What the messages looked like: their fields, discriminator values, routes, artifacts."""
        parts = []
        if self.routes:
            parts.append("HTTP " + _listed(self.routes))
        if self.artifacts:
            parts.append("artifacts " + _listed(self.artifacts))
        for name, values in self.values.items():
            parts.append(f"{name} " + _listed(values, quote=True))
        if self.fields:
            parts.append("fields " + _listed(self.fields))
        return "; ".join(parts) or "no JSON objects"


def _listed(counter: Counter[Any], quote: bool = False) -> str:
    import orjson

    shown = [orjson.dumps(k).decode() if quote else str(k) for k in list(counter)[:_SHOWN]]
    more = len(counter) - len(shown)
    return ", ".join(shown) + (f" (+{more} more)" if more > 0 else "")


@dataclass(frozen=True)
class Match:
    release: str  # package@version
    recognised: int  # how many samples its classifier recognised
    sampled: int


def likely_releases(
    samples: Iterable[Message], releases: Iterable[ContractRelease], exclude: str
) -> list[Match]:
    """The releases (other than `exclude`) that recognise the most samples; ties all listed, in the order `releases`
    come (the registry's: packages in its order, each one's releases oldest first: acp@0.5.1 before acp@0.15.0)."""
    from wirecheck.check.classify import Classifier

    samples = list(samples)
    matches = []
    for release in releases:
        if release.name == exclude:
            continue
        classifier = Classifier(release)
        hits = sum(classifier.classify(sample, {}) is not None for sample in samples)
        if hits:
            matches.append(Match(release.name, hits, len(samples)))
    if not matches:
        return []
    best = max(m.recognised for m in matches)
    return [m for m in matches if m.recognised == best]


def bundled_releases(release: ContractRelease) -> Callable[[], list[ContractRelease]]:
    """Every release of the contracts folder `release` came from that loads (none when it is not a registry)."""

    def load() -> list[ContractRelease]:
        from wirecheck.contracts import ContractError, load_registry

        try:
            return load_registry(release.root.parent.parent).load_all()[0]
        except ContractError:
            return []

    return load


@dataclass(frozen=True)
class FileMatch:
    """A file kind whose schema a whole unrecognised document satisfies."""

    release: str  # package@version
    kind: str
    title: str
    path_glob: str | None  # the file name the release recognises such a file by


def whole_document_kinds(value: Any, releases: Iterable[ContractRelease]) -> list[FileMatch]:
    """The file kinds (`channel: file`) of `releases` that `value`, a whole document, is: every top-level member a
    name the kind's schema file declares, and strictly valid against the kind's schema. A file kind is recognised by
    its file name; a document saved under another name (OpenCode's `debug config` output) is not, so a capture of one
    unrecognised document is tried against them to say which `--as` reads it."""
    from wirecheck.check.validate import Validators
    from wirecheck.contracts.views import subschemas

    if not isinstance(value, dict) or not value:
        return []
    found = []
    for release in releases:
        validators = None
        for kind in release.kinds:
            if kind.channel != "file" or kind.argv_grammar is not None or kind.schema is None:
                continue
            document = release.resources.get(kind.schema.uri.split("#")[0])
            declared = {name for node, _ in subschemas(document) if isinstance(node.get("properties"), dict)
                        for name in node["properties"]}
            if not set(value) <= declared:
                continue
            validators = validators or Validators(release)
            if validators.pair(kind.schema).strict.is_valid(value):
                found.append(FileMatch(release.name, kind.id, kind.title, kind.path_glob))
    return found


def read_as(matches: list[FileMatch], release: str) -> str:
    """What to do with a document a file kind recognises: `--as KIND` (of this release, or of the one it is of)."""
    first = matches[0]
    if first.release == release:
        named = f" by its file name ({first.path_glob})" if first.path_glob else " by its file name"
        return (f"the whole document is a valid {first.kind} ({first.title}), which {release} recognises{named}: "
                f"read it with --as {first.kind}")
    return (f"the whole document is a valid {first.kind} ({first.title}) of {first.release}: read it with "
            f"wirecheck validate {first.release} --as {first.kind}")


def nothing_recognised(count: int, release: str) -> str:
    """The start of a NOTHING_RECOGNISED finding: how many messages the capture held, none of a kind of `release`."""
    if count == 1:
        return f"the one message of this capture is of no kind of {release}"
    return f"none of the {count:,} messages of this capture is of a kind of {release}"


def looks_like(matches: list[Match], count: int = 2) -> str:
    if not matches:
        return f"no bundled release recognises {'it' if count == 1 else 'them'} either"
    names = " or ".join(m.release for m in matches)
    first = matches[0]
    return f"it looks like {names} ({first.recognised} of {first.sampled} sampled messages recognised)"
