"""The corpus self-test over every bundled release: the corpus `wirecheck fuzz` writes (valid entries and labelled
mutants), read back by `wirecheck validate`'s engine, has no finding at all: every valid entry conforms and every
mutant is refused for its label and for nothing else (check/labels.py; CORPUS_MISMATCH otherwise).

Mutants are costly to make (each candidate is judged by both validators and the engine), so the default run makes
them for a fixed sample of each release's kinds (all of the kinds of the smaller releases) and valid entries for
every kind; HYPOTHESIS_PROFILE=thorough makes them for every kind, with more entries per kind."""

from __future__ import annotations

import os
import random
from functools import cache

import orjson
import pytest

from wirecheck.capture import CaptureFile
from wirecheck.check.engine import Engine
from wirecheck.contracts import load_registry
from wirecheck.fuzz.corpus import fuzzable_kinds, kind_corpus

REGISTRY = load_registry()
THOROUGH = os.environ.get("HYPOTHESIS_PROFILE") == "thorough"
COUNT = 5 if THOROUGH else 2
MUTATED_KINDS = None if THOROUGH else 12  # kinds per release that get mutants in the default run
SPECS = [f"{name}@{version}" for name, package in REGISTRY.packages.items() for version in package.releases]
# what generation may leave out, and why (suites/fuzz/test_contracts.py NO_VALID_MESSAGE checks the reason)
NOT_GENERATED = {("navarch-runtime@0.1.53", "file.opencode-config")}


@cache
def _release(spec: str):
    return REGISTRY.load(spec)


def _mutated(spec: str) -> set[str]:
    kinds = sorted(k.id for k in fuzzable_kinds(_release(spec)))
    if MUTATED_KINDS is None or len(kinds) <= MUTATED_KINDS:
        return set(kinds)
    return set(random.Random(spec).sample(kinds, MUTATED_KINDS))


@pytest.mark.parametrize("spec", SPECS)
def test_every_release_corpus_self_tests_clean(spec, tmp_path):
    release = _release(spec)
    skipped: dict[str, str] = {}
    mutated = _mutated(spec)
    lines: list[bytes] = []
    mutants: set[tuple[str, str, str]] = set()
    for invalid, kinds in ((False, ()), (True, sorted(mutated))):
        for _, entries in kind_corpus(release, kinds=kinds, count=COUNT, seed=1, valid=not invalid,
                                      invalid=invalid, not_generated=skipped.__setitem__):
            for entry in entries:
                data = entry.as_json()
                lines.append(orjson.dumps(data) + b"\n")
                if invalid:
                    mutants.add((entry.kind, data["breaks"]["keyword"], data["breaks"]["pointer"]))
    assert {(spec, kind) for kind in skipped} <= NOT_GENERATED, skipped
    # every sampled kind that can be made got mutants: a release whose mutants all vanished would test nothing
    assert {kind for kind, _, _ in mutants} == mutated - set(skipped), mutated - {k for k, _, _ in mutants}
    path = tmp_path / "corpus.jsonl"
    path.write_bytes(b"".join(lines))
    found = []
    result = Engine(release).run([CaptureFile(str(path))], on_finding=found.append)
    assert [f"{f.line} {f.code} {f.message} (expected {f.expected}, found {f.found})" for f in found] == []
    assert result.messages == len(lines) and result.unclassified == 0
