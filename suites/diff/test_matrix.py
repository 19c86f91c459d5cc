"""A package's matrix shares work between its pairs (one side per release, surfaces compared once per pair of
digests); sharing must never change what a pair reports."""

from __future__ import annotations

import copy

import pytest

from wirecheck.contracts import load_registry
from wirecheck.diff import diff_releases
from wirecheck.diff.package import diff_matrix
from wirecheck.diff.side import Side

D = "https://json-schema.org/draft/2020-12/schema"
SCHEMA = {"$schema": D, "type": "object", "properties": {"a": {"$ref": "defs.json#/$defs/A"}},
          "additionalProperties": False}
DEFS = {"$schema": D, "$defs": {"A": {"type": "array", "items": {"$ref": "#/$defs/B"}}, "B": {"type": "string"}}}


def side(version: str, schema: dict, defs: dict) -> tuple[Side, str]:
    base = f"https://contracts.wirecheck.invalid/pkg/{version}/"
    resources = {base + "wire.json": {**schema, "$id": base + "wire.json"},
                 base + "defs.json": {**defs, "$id": base + "defs.json"}}
    return Side("release", resources), base + "wire.json#"


def test_digest_names_what_is_written_not_the_release() -> None:
    (one, at_one), (two, at_two) = side("1.0.0", SCHEMA, DEFS), side("2.0.0", SCHEMA, DEFS)
    assert one.digest(at_one) == two.digest(at_two)  # only the release's URIs differ
    deep = copy.deepcopy(DEFS)
    deep["$defs"]["B"]["minLength"] = 1  # two references away from the root
    (three, at_three) = side("3.0.0", SCHEMA, deep)
    assert three.digest(at_three) != one.digest(at_one)
    unused = copy.deepcopy(DEFS)
    unused["$defs"]["C"] = {"type": "integer"}  # not reachable from the root: not part of what it says
    (four, at_four) = side("4.0.0", SCHEMA, unused)
    assert four.digest(at_four + "/properties/a") == one.digest(at_one + "/properties/a")


def test_a_matrix_reports_each_pair_as_a_lone_diff_would() -> None:
    registry = load_registry()
    releases = [registry.load(f"qoder-agent-sdk@{v}") for v in ("1.0.13", "1.0.21", "1.0.23")]
    matrix = diff_matrix("qoder-agent-sdk", releases).matrix
    assert len(matrix) == 3
    reused = 0
    for (older, newer), shared in matrix.items():
        alone = diff_releases(*[r for r in releases if r.version in (older, newer)])
        assert [f.to_json() for f in shared.findings] == [f.to_json() for f in alone.findings]
        assert shared.kinds == alone.kinds
        assert all(f.old_version == older and f.new_version == newer for f in shared.findings)
        reused += len(shared.findings)
    assert reused > 100  # the pairs do have findings to get wrong


def test_cycle_collector_is_paused_for_a_diff_and_restored(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import gc

    from wirecheck.diff import diff_schemas, engine

    seen: list[bool] = []
    real = engine._compare_schemas

    def spy(*args):  # type: ignore[no-untyped-def]
        seen.append(gc.isenabled())
        return real(*args)

    monkeypatch.setattr(engine, "_compare_schemas", spy)
    old, new = {"$schema": D, "type": "string"}, {"$schema": D, "type": "integer"}
    assert gc.isenabled()
    assert diff_schemas(old, new).findings
    assert seen == [False] and gc.isenabled()  # off while comparing, on again after
    gc.disable()
    try:
        diff_schemas(old, new)
        assert not gc.isenabled()  # a caller's choice to run without it is kept
    finally:
        gc.enable()
    broken = {"$schema": D, "$ref": "#/nowhere"}  # the CLI refuses it first; the library raises
    with pytest.raises(KeyError):
        diff_schemas(broken, new)
    assert gc.isenabled()  # ... and the collector is back on all the same


def test_cycles_a_diff_makes_are_collected_when_it_ends(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """With the collector paused, garbage cycles would pile up over a matrix (140 MB more with witnesses): each
    diff collects the young generation it allocated before it returns, whatever the caller's setting."""
    import gc
    import weakref

    from wirecheck.diff import diff_schemas, engine

    refs = []
    real = engine._compare_schemas

    class Node:
        pass

    def spy(*args):  # type: ignore[no-untyped-def]
        node = Node()
        node.self = node  # type: ignore[attr-defined]  # a cycle, dropped at once: only the collector frees it
        refs.append(weakref.ref(node))
        return real(*args)

    monkeypatch.setattr(engine, "_compare_schemas", spy)
    gc.disable()
    try:
        diff_schemas({"$schema": D, "type": "string"}, {"$schema": D, "type": "integer"})
        assert refs and refs[0]() is None
    finally:
        gc.enable()
