"""A `$ref` ring must not multiply work (issue 39, 5): each change inside a ring's definitions is witnessed once,
through the shortest path from a kind's root, and every kind reaching it still reports it with that verdict;
digests, sizes and proofs are made once per part of the ring, not once per location or per kind."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import jsonschema

from wirecheck.diff import diff_schemas
from wirecheck.diff.model import BREAKING, STRICT
from wirecheck.diff.side import Side

D = "https://json-schema.org/draft/2020-12/schema"
URI = "https://x.invalid/ring.json"
SCHEMA = Path(__file__).resolve().parents[2] / "tools" / "wirecheck" / "schemas" / "diff-report.schema.json"


def _ring(count: int, kinds: list[int], narrowed: int, helper: bool = True) -> tuple[dict[str, Any], dict[str, Any]]:
    """`count` definitions each referring to the next (the last to the first); the messages a union of `kinds`;
    the new side bounds `size` in definition `narrowed`. A `Shared` helper outside the ring, used by every
    definition, gains a required member (with `helper`)."""
    defs: dict[str, Any] = {f"R{i}": {"type": "object", "required": ["id"], "additionalProperties": False,
                                      "properties": {"id": {"type": "string"}, "size": {"type": "integer"},
                                                     "next": {"$ref": f"#/$defs/R{(i + 1) % count}"},
                                                     "tag": {"$ref": "#/$defs/Shared"}}}
                            for i in range(count)}
    defs["Shared"] = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}
    defs["Message"] = {"anyOf": [{"$ref": f"#/$defs/R{i}"} for i in kinds]}
    old = {"$schema": D, "$defs": defs, "$ref": "#/$defs/Message"}
    new = json.loads(json.dumps(old))
    new["$defs"][f"R{narrowed}"]["properties"]["size"]["maximum"] = 10
    if helper:
        new["$defs"]["Shared"]["required"] = ["b"]
    return old, new


def test_a_change_in_a_ring_is_witnessed_once_through_the_shortest_path_and_reported_in_every_kind(
        monkeypatch) -> None:
    from wirecheck.diff import engine

    witnessed: list[str] = []
    real = engine._witnesses

    def counted(pair: Any, change: Any, old_end: Any, new_end: Any) -> Any:
        witnessed.append(f"{change.rule} {old_end[1]}")
        return real(pair, change, old_end, new_end)

    monkeypatch.setattr(engine, "_witnesses", counted)
    old, new = _ring(8, [0, 2, 4], narrowed=5)
    result = diff_schemas(old, new)
    bounded = [f for f in result.findings if f.rule == "RANGE_NARROWED"]
    # every kind reaches R5 (R0 → … → R5, R2 → … → R5, R4 → R5): each reports it, breaking backward
    assert {f.kind for f in bounded} == {"R0", "R2", "R4"}
    assert all(f.breaks("backward") for f in bounded)
    # witnessed once, in R4, one step from R5: the other kinds name it and show no payload of their own
    assert sum(1 for w in witnessed if w.startswith("RANGE_NARROWED")) == 1
    owner = next(f for f in bounded if f.witnessed_in is None)
    assert owner.kind == "R4" and owner.path == "/next/size" and owner.witnesses
    assert {f.witnessed_in for f in bounded if f is not owner} == {("R4", "/next/size")}
    assert all(not f.witnesses for f in bounded if f is not owner)
    # `Shared` refers to nothing: it is in no ring, and each kind witnesses its change through its own message
    shared = [f for f in result.findings if f.rule == "PROPERTY_BECAME_REQUIRED"]
    assert {f.kind for f in shared} == {"R0", "R2", "R4"}
    assert all(f.witnessed_in is None and f.witnesses for f in shared)


def test_a_ring_change_keeps_its_verdicts_whatever_the_number_of_kinds() -> None:
    """The same break is reported, with the same verdicts, whether one kind or five reach it."""
    one = diff_schemas(*_ring(10, [0], narrowed=7))
    five = diff_schemas(*_ring(10, [0, 2, 4, 6, 8], narrowed=7))

    def verdicts(result: Any) -> set[Any]:
        return {f.verdicts for f in result.findings if f.rule == "RANGE_NARROWED"}

    assert verdicts(one) == verdicts(five) and any(v == BREAKING for vs in verdicts(one) for _, _, v in vs)
    assert len([f for f in five.findings if f.rule == "RANGE_NARROWED"]) == 5


def test_the_reports_say_where_a_ring_change_was_witnessed() -> None:
    from wirecheck.diff.run import DiffRun

    run_ = DiffRun((diff_schemas(*_ring(8, [0, 2, 4], narrowed=5)),))
    data = json.loads(_emitted(run_, "json"))
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(data)
    borrowed = [f for f in data["pairs"][0]["findings"] if "witnessed_in" in f]
    assert borrowed and all(f["witnessed_in"] == {"kind": "R4", "path": "/next/size"} and not f["witnesses"]
                            for f in borrowed)
    for fmt in ("sarif", "junit"):
        assert "witnessed in R4 at /next/size" in _emitted(run_, fmt)
    # the human formats list the change once, with the kinds it shows in and the owner's witness
    text = _emitted(run_, "text")
    assert all(kind in text for kind in ("R0", "R2", "R4")) and "witness backward" in text


def _emitted(run_: Any, fmt: str) -> str:
    from wirecheck.diff.report import write

    out = StringIO()
    write(fmt, run_, out)
    return out.getvalue()


def test_in_ring_is_about_the_definitions_around_a_location() -> None:
    old, _ = _ring(4, [0], narrowed=1)
    side = Side("old", {URI: {**old, "$id": URI}})
    assert side.in_ring(f"{URI}#/$defs/R2/properties/size")
    assert not side.in_ring(f"{URI}#/$defs/Shared/properties/a") and not side.in_ring(f"{URI}#")
    itself = Side("old", {URI: {"$schema": D, "$id": URI, "$defs": {"T": {"items": {"$ref": "#/$defs/T"}}}}})
    assert itself.in_ring(f"{URI}#/$defs/T/items")


def test_digests_of_a_ring_cost_its_size_not_its_size_squared(monkeypatch) -> None:
    """Every location of a ring reaches the whole ring: its closure was hashed once per location (a walk of a 4 MB
    ring spent 14 s there). Now each location's refs are read a bounded number of times, however long the ring."""
    calls: list[int] = []

    def counted(count: int) -> int:
        old, _ = _ring(count, [0], narrowed=1)
        side = Side("old", {URI: {**old, "$id": URI}})
        real = Side._text_and_refs
        calls.clear()
        monkeypatch.setattr(Side, "_text_and_refs", lambda self, at: calls.append(1) or real(self, at))
        tails = ("", "/properties", "/properties/next")
        locations = [f"{URI}#/$defs/R{i}{tail}" for i in range(count) for tail in tails]
        for at in locations:
            side.digest(at)
            side.source_size(at)
        monkeypatch.setattr(Side, "_text_and_refs", real)
        return len(calls)

    small, large = counted(20), counted(200)
    assert large <= 12 * small  # 10 × the ring: about 10 × the look-ups (it was 100 ×)


def test_a_proof_is_kept_for_the_next_kind_and_a_failed_one_is_not(monkeypatch) -> None:
    from wirecheck.diff import prove

    steps: list[int] = []
    real = prove._Prover.sub

    def counted(self: Any, n_loc: str, w_loc: str) -> bool:
        steps.append(1)
        return real(self, n_loc, w_loc)

    monkeypatch.setattr(prove._Prover, "sub", counted)
    old, new = _ring(30, [0], narrowed=7, helper=False)
    old_side = Side("old", {URI: {**old, "$id": URI}})
    new_side = Side("new", {URI: {**new, "$id": URI}})
    first = [f"{URI}#/$defs/R0", f"{URI}#/$defs/R15"]
    # new ⊆ old (the new side only narrows): proven; the second proof reuses the first one's pairs
    assert prove.prove_subset(new_side, first[0], "strict", old_side, first[0], "strict")
    cold = len(steps)
    steps.clear()
    assert prove.prove_subset(new_side, first[1], "strict", old_side, first[1], "strict")
    assert len(steps) < cold / 5
    # old ⊆ new fails (R7's size is bounded now): nothing of the failed proof is kept, so from R15 (whose ring
    # reaches R0 before R7) it fails again
    assert not prove.prove_subset(old_side, first[0], "strict", new_side, first[0], "strict")
    assert not prove.prove_subset(old_side, first[1], "strict", new_side, first[1], "strict")



def test_a_proof_along_a_ring_longer_than_the_default_recursion_limit_is_completed() -> None:
    """A proof walks a ring depth first (a few frames a definition): past ~250 definitions it hit Python's default
    1,000 frames and said "not proven", so every kind's forward direction was undecided and drew the safety net's
    set difference (13 SCHEMA_CHANGE_UNDECIDED warnings and 12 s of a 4 MB ring). It is retried in a thread with a
    deeper stack."""
    import sys

    from wirecheck.diff import prove

    old, new = _ring(600, [0], narrowed=7, helper=False)
    old_side = Side("old", {URI: {**old, "$id": URI}})
    new_side = Side("new", {URI: {**new, "$id": URI}})
    limit = sys.getrecursionlimit()
    assert prove.prove_subset(new_side, f"{URI}#/$defs/R0", "strict", old_side, f"{URI}#/$defs/R0", "strict")
    assert not prove.prove_subset(old_side, f"{URI}#/$defs/R0", "strict", new_side, f"{URI}#/$defs/R0", "strict")
    assert sys.getrecursionlimit() == limit


def test_a_ring_change_the_nearest_kind_cannot_witness_is_witnessed_by_the_next(monkeypatch) -> None:
    """A payload built along one kind's path may fail where another kind's holds (a 4 MB ring: six breaks the
    nearest kind could not witness were warnings for every kind): the kinds try in order of their path until
    one answers every direction the rule breaks."""
    from wirecheck.diff import engine

    real = engine._witnesses

    def not_along_one_step(pair: Any, change: Any, old_end: Any, new_end: Any) -> Any:
        # R4 reaches R5 in one step (/next/size): its payloads fail here, R2's (/next/next/size) do not
        return {} if len(change.path) == 2 else real(pair, change, old_end, new_end)

    monkeypatch.setattr(engine, "_witnesses", not_along_one_step)
    bounded = [f for f in diff_schemas(*_ring(8, [0, 2, 4], narrowed=5)).findings if f.rule == "RANGE_NARROWED"]
    assert {f.kind for f in bounded} == {"R0", "R2", "R4"} and all(f.breaks("backward") for f in bounded)
    owner = next(f for f in bounded if f.witnessed_in is None)
    assert owner.kind == "R2" and owner.witnesses  # R2 → R3 → R4 → R5: the next nearest
    assert {f.witnessed_in for f in bounded if f is not owner} == {("R2", owner.path)}


def _compiles_of_ring(monkeypatch: Any, count: int) -> int:
    """jsonschema-rs validators the diff of a ring of `count` definitions compiles (cost_inputs.ring: every tenth
    definition narrowed, every seventh requires another member: the changes, and the locations asked about, grow
    with the ring)."""
    import wirecheck.diff.side as side_module
    from wirecheck.diff.cost_inputs import ring

    compiled: list[Any] = []
    real = side_module.fast_validator

    def counted(schema: Any, registry: Any = None) -> Any:
        compiled.append(schema)
        return real(schema, registry)

    monkeypatch.setattr(side_module, "fast_validator", counted)
    old, new = ring(count, 4, kinds=4)
    result = diff_schemas(old, new)
    assert any(f.rule == "RANGE_NARROWED" and f.breaks("backward") for f in result.findings)
    return len(compiled)


def test_a_ring_compiles_a_bounded_number_of_validators_however_long_it_is(monkeypatch) -> None:
    """Every location of a `$ref` ring reaches the whole ring, so a validator per location asked about compiles the
    ring once per location: 570 compiles of 4 MB for the 4.2 MB ring (issue 39, 5). A view's dispatcher answers for
    every location once its own validators have reached four times the schema: five times the ring's definitions ask
    about five times the locations, and compile no more validators (without the dispatcher: 20, then 38)."""
    short, long = _compiles_of_ring(monkeypatch, 30), _compiles_of_ring(monkeypatch, 150)
    assert long <= short + 2, (short, long)


def test_a_dispatcher_judges_each_location_as_its_own_validator_does(monkeypatch) -> None:
    """The dispatcher sends the payload as one member of an object: what it accepts, the errors (their instance
    paths, a union's closest member's included) and the members no schema names must be the location's own."""
    import wirecheck.diff.side as side_module

    uri = "https://schemas.wirecheck.invalid/d"
    schema = {"$schema": D, "$id": uri, "$defs": {
        "T": {"type": "object", "required": ["id"], "additionalProperties": False,
              "properties": {"id": {"type": "string"}, "n": {"type": "integer", "maximum": 3},
                             "kids": {"type": "array", "items": {"$ref": "#/$defs/T"}},
                             "u": {"anyOf": [{"type": "object", "properties": {"t": {"const": "a"}},
                                              "required": ["t", "x"]},
                                             {"type": "object", "properties": {"t": {"const": "b"}},
                                              "required": ["t", "y"]}]}}},
        "Open": {"type": "object", "properties": {"a": {"type": "string"}, "m": {"additionalProperties": {
            "type": "integer"}}}, "required": ["q"]}}}
    locations = [f"{uri}#/$defs/T", f"{uri}#/$defs/T/properties/kids", f"{uri}#/$defs/T/properties/u",
                 f"{uri}#/$defs/Open"]
    payloads: list[Any] = [{"id": "a"}, {"id": 1, "n": 9}, {"kids": [{"id": "x", "zz": 1}, 3]},
                           {"id": "a", "u": {"t": "a"}}, {"t": "b", "x": 1}, [{"id": "k"}, {}], "s", None,
                           {"a": "x", "b": {"c": 1}, "m": {"k": 1}, "q": 2}, {"a/~": {}, "q": 1}]
    answers = []
    for after in (10**9, 0):  # never a dispatcher; one from the first validator on
        monkeypatch.setattr(side_module, "DISPATCH_AFTER", after)
        side = Side("old", {uri: schema})
        answers.append([(side.accepts(at, STRICT, p), side.errors(at, STRICT, p), side.undeclared(at, p))
                        for at in locations for p in payloads])
        assert (side._dispatchers.get(STRICT) is not None) == (after == 0)
    assert answers[0] == answers[1]
    assert any(errors for _, errors, _ in answers[0]) and any(undeclared for _, _, undeclared in answers[0])
