"""A reproducible fuzz corpus for a release: valid messages per kind, or labelled single-constraint mutants.

Same release, kinds, count and seed → the same entries in the same order (with the same Hypothesis version).
An entry is `{"kind", "expect": "accept"|"reject", "message", "http"?, "breaks"?: {"keyword", "pointer",
"description"}}` (`keyword` is a JSON Schema keyword, or a protocol rule id such as FIELDS_EQUAL for a rule mutant);
for an HTTP kind the message is the body and `http` its envelope: `{"method", "path", "status"?, "headers"}`.
A valid entry is valid to the whole engine (`Engine.judge_alone`: schema, headers, the single-message rules, the
consumers' contracts); a mutant is rejected by the engine for its one label and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from wirecheck.check.message import Message
from wirecheck.contracts.model import ContractRelease, MessageKind
from wirecheck.fuzz.mutants import RULE, Mutant, MutantFactory
from wirecheck.fuzz.rules import KindRules
from wirecheck.fuzz.sampling import CannotGenerate, draw_examples
from wirecheck.fuzz.strategies import compiler_for, kind_messages


@dataclass(frozen=True)
class Entry:
    kind: str
    message: Any
    mutant: Mutant | None = None
    http: Any = None  # an HTTP kind's envelope (check.message.HttpInfo)

    @property
    def expect(self) -> str:
        return "accept" if self.mutant is None else "reject"

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "expect": self.expect, "message": self.message}
        if self.http is not None:
            out["http"] = {"method": self.http.method, "path": self.http.path,
                           **({"status": self.http.status} if self.http.status is not None else {}),
                           "headers": dict(self.http.headers)}
        if self.mutant is not None:
            out["breaks"] = self.mutant.as_json()
        return out


def fuzzable_kinds(release: ContractRelease, only: Iterable[str] = ()) -> list[MessageKind]:
    """Kinds with a message schema (a bodiless request has nothing to generate), optionally narrowed."""
    wanted = set(only)
    unknown = wanted - {k.id for k in release.kinds}
    if unknown:
        raise KeyError(f"unknown kind(s) {', '.join(sorted(unknown))} in {release.name}")
    return [k for k in release.kinds if k.schema is not None and k.body == "json" and (not wanted or k.id in wanted)]


def _seed_for(seed: int, kind_index: int) -> int:
    return seed * 1_000_003 + kind_index


def valid_messages(release: ContractRelease, kind: MessageKind, count: int, seed: int) -> list[Message]:
    """Up to `count` distinct valid messages of `kind` (`strategies.kind_messages`), reproducibly."""
    assert kind.schema is not None
    index = [k.id for k in release.kinds].index(kind.id)
    unique: dict[bytes, Message] = {}  # a small value space repeats itself; each message once
    # the consumers' contracts compiled in; where that conjunction yields nothing, left to the engine's filter
    for consumers in (True, False):
        for message in draw_examples(kind_messages(release, kind.id, consumers=consumers), count,
                                     _seed_for(seed, index)):
            headers = message.http.headers if message.http is not None else None
            unique.setdefault(orjson.dumps([message.value, headers], option=orjson.OPT_SORT_KEYS), message)
        if unique or not release.consumers:
            break
    if not unique:
        raise CannotGenerate(_why_none(release, kind, _seed_for(seed, index)))
    return list(unique.values())


def _why_none(release: ContractRelease, kind: MessageKind, seed: int) -> str:
    """What the engine says about candidates, when none passes it: those drawn for the kind with everything its
    rules and consumers add, else (when those admit none at all) the kind's own schema's."""
    from wirecheck.findings import blocking
    from wirecheck.fuzz.rules import KindRules, message_of

    rules = KindRules(release, kind)
    candidates = draw_examples(kind_messages(release, kind.id, judged=False, consumers=False), 5, seed)
    alone = not candidates
    if alone and kind.schema is not None:
        candidates = [message_of(kind, value)
                      for value in draw_examples(compiler_for(release).for_uri(kind.schema.uri), 5, seed)]
    said: dict[str, int] = {}
    for message in candidates:
        for finding in blocking(rules.judge(message))[:1]:
            said[f"{finding.code} {finding.message}"] = said.get(f"{finding.code} {finding.message}", 0) + 1
    if not said:
        return "no candidate could be drawn from its schema"
    prefix = ("no candidate can be drawn for its rules; of the kind's own messages, the engine says" if alone
              else "no generated message passes the engine; it says")
    return f"{prefix}, e.g.: " + "; ".join(sorted(said, key=lambda text: said[text])[-2:])


def valid_entries(release: ContractRelease, kind: MessageKind, count: int, seed: int) -> list[Entry]:
    return [Entry(kind.id, m.value, http=m.http) for m in valid_messages(release, kind, count, seed)]


def mutant_entries(release: ContractRelease, kind: MessageKind, count: int, seed: int) -> list[Entry]:
    """`count` mutants, spread over labels: every distinct (keyword, place) before any repeats, protocol-rule
    labels first."""
    assert kind.schema is not None
    schemas = compiler_for(release).schemas
    factory = MutantFactory(schemas, kind.schema.uri, kind=kind.id, rules=KindRules(release, kind))
    by_label: dict[str, list[Mutant]] = {}
    for message in valid_messages(release, kind, max(count, 10), seed):
        for mutant in factory.mutants(message.value, message):
            by_label.setdefault(mutant.label, []).append(mutant)
    # protocol-rule mutants first: no schema validator catches them, so they are what a reader most likely lets by
    labels = sorted(by_label.values(), key=lambda ms: ms[0].via != RULE)
    chosen: list[Mutant] = []
    round_ = 0
    while len(chosen) < count and any(len(ms) > round_ for ms in labels):
        chosen += [ms[round_] for ms in labels if len(ms) > round_]
        round_ += 1
    return [Entry(kind.id, m.instance, m, m.http) for m in chosen[:count]]


def kind_corpus(
    release: ContractRelease, *, kinds: Iterable[str] = (), count: int = 10, seed: int = 0, valid: bool = True,
    invalid: bool = False, not_generated: Callable[[str, str], None] | None = None,
) -> Iterator[tuple[MessageKind, list[Entry]]]:
    """Each kind with its entries (`count` valid ones, then `count` mutants, as asked). A kind no generator can
    make messages for goes to `not_generated` (kind id, why) and the corpus goes on with the next, or, without that
    callback, ends in CannotGenerate."""
    for kind in fuzzable_kinds(release, kinds):
        try:
            entries = valid_entries(release, kind, count, seed) if valid else []
            if invalid:
                entries += mutant_entries(release, kind, count, seed)
        except (CannotGenerate, RecursionError) as exc:
            why = str(exc) if isinstance(exc, CannotGenerate) else (
                "the schema nests deeper, with its $refs followed, than the generator can walk")
            if not_generated is None:
                raise CannotGenerate(why) from None
            not_generated(kind.id, why)
            continue
        yield kind, entries


def corpus(
    release: ContractRelease, *, kinds: Iterable[str] = (), count: int = 10, seed: int = 0, invalid: bool = False,
    not_generated: Callable[[str, str], None] | None = None,
) -> Iterator[Entry]:
    """The valid (or, with `invalid`, the mutant) entries of every kind in turn (see kind_corpus)."""
    for _, entries in kind_corpus(release, kinds=kinds, count=count, seed=seed, valid=not invalid, invalid=invalid,
                                  not_generated=not_generated):
        yield from entries
