"""A reproducible fuzz corpus for a release: valid messages per kind, or labelled single-constraint mutants.

Same release, kinds, count and seed → the same entries in the same order (with the same Hypothesis version).
An entry is `{"kind", "expect": "accept"|"reject", "message", "breaks"?: {"keyword", "pointer", "description"}}`
(`keyword` is a JSON Schema keyword, or a protocol rule id such as FIELDS_EQUAL for a rule mutant);
for an HTTP kind the message is the body.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from wirecheck.contracts.model import ContractRelease, MessageKind
from wirecheck.fuzz.mutants import Mutant, MutantFactory
from wirecheck.fuzz.rules import KindRules
from wirecheck.fuzz.sampling import CannotGenerate, draw_examples
from wirecheck.fuzz.strategies import compiler_for, kind_strategy


@dataclass(frozen=True)
class Entry:
    kind: str
    message: Any
    mutant: Mutant | None = None

    @property
    def expect(self) -> str:
        return "accept" if self.mutant is None else "reject"

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "expect": self.expect, "message": self.message}
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


def valid_entries(release: ContractRelease, kind: MessageKind, count: int, seed: int) -> list[Entry]:
    assert kind.schema is not None
    strategy = kind_strategy(release, kind.id)
    index = [k.id for k in release.kinds].index(kind.id)
    unique: dict[bytes, Any] = {}  # a small value space repeats itself; each message once
    for value in draw_examples(strategy, count, _seed_for(seed, index)):
        unique.setdefault(orjson.dumps(value, option=orjson.OPT_SORT_KEYS), value)
    return [Entry(kind.id, value) for value in unique.values()]


def mutant_entries(release: ContractRelease, kind: MessageKind, count: int, seed: int) -> list[Entry]:
    """`count` mutants, spread over labels: every distinct (keyword, place) before any repeats."""
    assert kind.schema is not None
    schemas = compiler_for(release).schemas
    factory = MutantFactory(schemas, kind.schema.uri, kind=kind.id, rules=KindRules(release, kind))
    by_label: dict[str, list[Mutant]] = {}
    for entry in valid_entries(release, kind, max(count, 10), seed):
        for mutant in factory.mutants(entry.message):
            by_label.setdefault(mutant.label, []).append(mutant)
    chosen: list[Mutant] = []
    round_ = 0
    while len(chosen) < count and any(len(ms) > round_ for ms in by_label.values()):
        chosen += [ms[round_] for ms in by_label.values() if len(ms) > round_]
        round_ += 1
    return [Entry(kind.id, m.instance, m) for m in chosen[:count]]


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
        except CannotGenerate as exc:
            if not_generated is None:
                raise
            not_generated(kind.id, str(exc))
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
