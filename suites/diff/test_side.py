"""Where a rejection is (diff/side.py `errors`, `related`): what ties a witness to the change that caused it."""

from __future__ import annotations

import json
from typing import Any

from wirecheck.diff.model import BACKWARD, FORWARD, STRICT
from wirecheck.diff.side import Side, related
from wirecheck.diff.witness import judge

D = "https://json-schema.org/draft/2020-12/schema"
URI = "https://contracts.wirecheck.invalid/pkg/1.0.0/wire.json"


def member(name: str, extra: dict | None = None) -> dict:
    return {"type": "object", "additionalProperties": False, "required": ["kind"],
            "properties": {"kind": {"const": name}, **(extra or {})}}


SCHEMA = {"$schema": D, "$id": URI, "$defs": {"Envelope": {
    "type": "object", "additionalProperties": False, "required": ["id", "body"],
    "properties": {
        "id": {"type": "string"},
        "body": {"type": "object", "properties": {
            "items": {"type": "array", "items": {"anyOf": [member("a"), member("b", {"x": {"type": "string"}})]}},
            "note": {"type": "string"},
        }},
    },
}}}
AT = URI + "#/$defs/Envelope"


def paths(payload: dict) -> list[tuple]:
    return [path for path, _ in Side("old", {URI: SCHEMA}).errors(AT, STRICT, payload)]


def test_a_missing_or_unexpected_property_is_about_its_own_path() -> None:
    assert paths({"body": {}}) == [("id",)]
    assert paths({"id": "1", "body": {}, "extra": 1, "more": 2}) == [("extra",), ("more",)]


def test_a_failed_union_is_about_what_its_closest_member_says() -> None:
    """The member whose tag the payload carries (`kind: b`), not member `a` (whose constant it fails); so a witness
    is tied to the change inside that member, not to every change under the union (issue 19: blame)."""
    found = paths({"id": "1", "body": {"items": [{"kind": "a"}, {"kind": "b", "x": 3, "y": 1}]}})
    assert found == [("body", "items", 1, "x"), ("body", "items", 1, "y")]


def test_a_failed_union_without_one_closest_member_is_about_its_own_path() -> None:
    # no tag, and both members fail alike: no member is the one meant
    found = paths({"id": "1", "body": {"items": [{"z": 1}]}})
    assert found == [("body", "items", 0)]


def test_related_compares_the_common_prefix_with_wildcards() -> None:
    assert related(("body", "items", 1), ("body", "items", "*", "x"))  # an error at a union holding the change
    assert related(("body", "items", 1, "x"), ("body", "items", "*"))  # an error under the changed value
    assert related(("body", "other"), ("body", "{name}"))
    assert not related(("body", "items", 1), ("body", "note"))
    assert not related(("id",), ("body",))


def test_a_union_rejection_is_credited_to_a_change_inside_the_union_only() -> None:
    # the new release narrows `x` to integers: an old payload with a string `x` in an item breaks new readers
    new = {**SCHEMA, "$defs": {"Envelope": {**SCHEMA["$defs"]["Envelope"], "properties": {
        **SCHEMA["$defs"]["Envelope"]["properties"],
        "body": {"type": "object", "properties": {
            "items": {"type": "array", "items": {"anyOf": [member("a"), member("b", {"x": {"type": "integer"}})]}},
            "note": {"type": "string"},
        }}}}}}
    old_end, new_end = (Side("old", {URI: SCHEMA}), AT), (Side("new", {URI: new}), AT)
    payload = {"id": "1", "body": {"items": [{"kind": "b", "x": "s"}]}}
    inside = judge([payload], old_end, new_end, about=("body", "items", "*", "x"), confirm=False)
    assert (BACKWARD, STRICT) in inside and (FORWARD, STRICT) not in inside
    elsewhere = judge([payload], old_end, new_end, about=("body", "note"), confirm=False)
    assert (BACKWARD, STRICT) not in elsewhere


def _chain(length: int, end: dict) -> dict:
    # each hop asserts something of its own, so the chain is not pointed at its end (Side: chains_shortened)
    defs = {f"s{i}": {"$ref": f"#/$defs/s{i + 1}", "minLength": 0} for i in range(length)}
    defs[f"s{length}"] = end
    return {"$schema": D, "$id": URI, "$defs": defs}


def test_a_schema_too_deep_for_the_canonicaliser_is_never_handed_to_it(monkeypatch) -> None:
    """jsonschema-rs canonicalises by native recursion: a $ref chain 2,500 long overflowed its stack (SIGSEGV).
    Past CANONICAL_DEPTH_LIMIT the side refuses, and containment is unknown, never safe."""
    from wirecheck.diff import side as side_module
    from wirecheck.diff.model import TOLERANT, UNKNOWN
    from wirecheck.diff.semantic import contained

    monkeypatch.setattr(side_module, "CANONICAL_DEPTH_LIMIT", 40)
    old, new = Side("old", {URI: _chain(50, {"type": "string"})}), Side("new", {URI: _chain(50, {"type": "integer"})})
    start = URI + "#/$defs/s0"
    assert old.depth(start) == 51 and old.depth(URI + "#/$defs/s45") == 6
    try:
        old.canonical(start, STRICT)
    except side_module.TooDeepToCanonicalise as exc:
        assert "51 levels deep" in str(exc)
    else:
        raise AssertionError("a schema past the limit was canonicalised")
    assert contained(new, start, old, start, TOLERANT) == UNKNOWN
    looping = Side("old", {URI: {"$schema": D, "$id": URI, "$defs": {"T": {
        "type": "object", "properties": {"child": {"$ref": "#/$defs/T"}}}}}})
    assert looping.depth(URI + "#/$defs/T") == 3  # a loop is kept as a reference by canonical forms: counted once


def test_the_validators_kept_are_bounded_by_the_json_they_reach(monkeypatch) -> None:
    """A validator compiles every node its `$ref`s reach; keeping one per location of a schema whose definitions
    all refer to each other took 2.4 GiB (issue 31, 5). The kept ones are bounded by the bytes they reach, the
    least recently asked for dropped first, and one dropped is built again when asked for."""
    import wirecheck.diff.side as side_module

    uri = "https://schemas.wirecheck.invalid/s"
    defs = {f"D{i}": {"type": "object", "properties": {"n": {"type": "integer"},
                                                       **({"prev": {"$ref": f"#/$defs/D{i - 1}"}} if i else {})}}
            for i in range(6)}
    side = Side("old", {uri: {"$schema": D, "$id": uri, "$defs": defs}})
    locations = [f"{uri}#/$defs/D{i}" for i in range(6)]
    budget = side.source_size(locations[-1]) + side.source_size(locations[-2])
    monkeypatch.setattr(side_module, "VALIDATOR_SOURCE_BUDGET", budget)
    # the locations' own validators, kept as they are until the view's dispatcher answers for them
    monkeypatch.setattr(side_module, "DISPATCH_AFTER", 10**9)
    for location in locations:
        assert side.validator(location).is_valid({"n": 1}) and not side.validator(location).is_valid({"n": "x"})
    kept = [location for location, _ in side._validators]
    assert kept == locations[-2:] and sum(side.source_size(k) for k in kept) <= budget
    side.validator(locations[-2])  # asked for again: the most recent, so D5 is dropped for D0
    assert not side.validator(locations[0]).is_valid({"n": "x"})
    assert [location for location, _ in side._validators] == [locations[-2], locations[0]]


def test_python_jsonschema_confirms_the_best_candidate_only(monkeypatch) -> None:
    """The witness search screens every candidate with jsonschema-rs and asks python-jsonschema (20 times slower)
    about the best first: it asked about every candidate that was the shortest so far (MCP 2025-11-25 →
    2026-07-28: two thirds of the diff's time). The witness chosen is the same: declared, then shortest."""
    uri_old, uri_new = "https://schemas.wirecheck.invalid/o", "https://schemas.wirecheck.invalid/n"
    old = Side("old", {uri_old: {"$schema": D, "$id": uri_old, "type": "object",
                                 "properties": {"a": {"type": "string"}}}})
    new = Side("new", {uri_new: {"$schema": D, "$id": uri_new, "type": "object",
                                 "properties": {"a": {"type": "string", "maxLength": 1}}}})
    asked: list[str] = []
    confirms = Side.confirms
    monkeypatch.setattr(Side, "confirms", lambda self, *a: asked.append(self.name) or confirms(self, *a))
    longest_first = [{"a": "x" * n} for n in range(9, 1, -1)]
    found = judge(longest_first, (old, uri_old + "#"), (new, uri_new + "#"))
    assert {dv: w.payload for dv, w in found.items()} == {(BACKWARD, "strict"): {"a": "xx"},
                                                            (BACKWARD, "tolerant"): {"a": "xx"}}
    assert len(asked) == 4  # writer and reader, per view: once each


def test_errors_and_undeclared_are_asked_about_no_candidate_past_the_winner(monkeypatch) -> None:
    """The reader's errors (what ties a candidate to the change) and the writer's undeclared members (what makes it
    latent) were asked about every screened candidate before sorting (ACP 0.5.1 → 0.8.0: 982 each, for 160
    witnesses); now in the winner's order, declared shortest first, up to the confirmed one. A shorter latent
    candidate is still passed over for a declared one, and is the witness when no declared one is left."""
    uri_old, uri_new = "https://schemas.wirecheck.invalid/o", "https://schemas.wirecheck.invalid/n"
    old = Side("old", {uri_old: {"$schema": D, "$id": uri_old, "type": "object",
                                 "properties": {"a": {"type": "string"}}}})
    new = Side("new", {uri_new: {"$schema": D, "$id": uri_new, "type": "object",
                                 "properties": {"a": {"type": "string", "maxLength": 1}}}})
    asked: dict[str, list[Any]] = {"errors": [], "undeclared": []}
    errors, undeclared = Side.errors, Side.undeclared
    monkeypatch.setattr(Side, "errors", lambda self, at, view, payload: asked["errors"].append(payload)
                        or errors(self, at, view, payload))
    monkeypatch.setattr(Side, "undeclared", lambda self, at, payload: asked["undeclared"].append(payload)
                        or undeclared(self, at, payload))
    ends = (old, uri_old + "#"), (new, uri_new + "#")
    latent = {"a": "xx", "z": 0}  # shorter than the longest declared ones, and `z` is named by nobody
    longest_first = [{"a": "x" * n} for n in range(9, 2, -1)]
    found = judge([*longest_first, latent], *ends, about=("a",))
    assert {dv: w.payload for dv, w in found.items()} == {(BACKWARD, "strict"): {"a": "xxx"},
                                                            (BACKWARD, "tolerant"): {"a": "xxx"}}
    assert {json.dumps(p) for p in asked["errors"] + asked["undeclared"]} == {json.dumps({"a": "xxx"})}
    found = judge([*longest_first[:1], latent], *ends, about=("a",))  # the declared one, though longer
    assert found[(BACKWARD, "tolerant")].payload == {"a": "x" * 9}
    found = judge([latent], *ends, about=("a",))
    assert found[(BACKWARD, "tolerant")].payload == latent and found[(BACKWARD, "tolerant")].undeclared == ("/z",)


def test_a_tolerant_view_that_is_the_strict_one_is_asked_once(monkeypatch) -> None:
    """The tolerant view drops `additionalProperties: false` / `unevaluatedProperties: false`; where no node a
    location reaches holds one, both views are the same schema, and python-jsonschema was asked every question
    twice (ACP 0.5.1 → 0.8.0: 107 of its 323 confirmations). A closing keyword reached through a `$ref` keeps
    the views apart, and their answers differ."""
    uri = "https://schemas.wirecheck.invalid/s"
    side = Side("old", {uri: {"$schema": D, "$id": uri, "$defs": {
        "Open": {"type": "object", "properties": {"a": {"type": "string"}}},
        "Closed": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False},
        "UsesClosed": {"type": "object", "properties": {"inner": {"$ref": "#/$defs/Closed"}}},
        "Named": {"type": "object", "properties": {"a": {"const": {"additionalProperties": False}}}}}}})
    asked: list[tuple[str, str]] = []
    reference = Side.reference
    monkeypatch.setattr(Side, "reference", lambda self, at, view: asked.append((at.rsplit("/", 1)[-1], view))
                        or reference(self, at, view))
    payload = {"a": 1}  # refused in both views (a string is wanted)
    for view in ("strict", "tolerant"):
        assert side.confirms(f"{uri}#/$defs/Open", view, payload, False)
        assert not side.accepts(f"{uri}#/$defs/Open", view, payload)
    assert asked == [("Open", "strict")]
    assert side.errors(f"{uri}#/$defs/Open", "tolerant", payload) == side.errors(f"{uri}#/$defs/Open", "strict",
                                                                                  payload)
    assert side.view_of(f"{uri}#/$defs/Named", "tolerant") == "strict"  # a constant's members are data
    extra = {"inner": {"z": 0}}  # a member the closed object does not name, one `$ref` away
    assert side.view_of(f"{uri}#/$defs/UsesClosed", "tolerant") == "tolerant"
    assert not side.accepts(f"{uri}#/$defs/UsesClosed", "strict", extra)
    assert side.accepts(f"{uri}#/$defs/UsesClosed", "tolerant", extra)
    assert side.confirms(f"{uri}#/$defs/UsesClosed", "strict", extra, False)
    assert side.confirms(f"{uri}#/$defs/UsesClosed", "tolerant", extra, True)
    assert asked[1:] == [("UsesClosed", "strict"), ("UsesClosed", "tolerant")]


def test_a_contract_that_closes_nothing_is_one_view_without_a_walk(monkeypatch) -> None:
    """No resource's text holds `"additionalProperties":false`, `"unevaluatedProperties":false` or `$dynamicRef`
    (ACP, MCP): every location's tolerant view is its strict one, known without walking what each reaches. Any of
    them anywhere (in a value too), or a resource orjson cannot write, and each location is looked at as before."""
    uri = "https://schemas.wirecheck.invalid/s"
    walked: list[str] = []
    component = Side._component  # what a location reaches, as view_of reads it

    def counted(self: Side, at: str) -> Any:
        walked.append(at)
        return component(self, at)

    monkeypatch.setattr(Side, "_component", counted)
    open_defs = {"A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}},
                 "B": {"type": "object", "additionalProperties": {"type": "string"}}}
    side = Side("old", {uri: {"$schema": D, "$id": uri, "$defs": open_defs}})
    assert side.view_of(f"{uri}#/$defs/A", "tolerant") == "strict" and walked == []
    deep: Any = {"type": "object"}
    for _ in range(300):  # deeper than orjson writes
        deep = {"properties": {"a": deep}}
    for extra in ({"C": {"const": {"unevaluatedProperties": False}}}, {"C": {"$dynamicRef": "#x"}}, {"C": deep}):
        side = Side("old", {uri: {"$schema": D, "$id": uri, "$defs": {**open_defs, **extra}}})
        walked.clear()
        assert side.view_of(f"{uri}#/$defs/A", "tolerant") == "strict" and walked == [f"{uri}#/$defs/A"]


def test_set_reasoning_asks_once_for_a_tolerant_view_that_is_the_strict_one(monkeypatch) -> None:
    """The safety net drew witnesses from a jsonschema-rs `subtract` per open view (6 ms each on ACP's prompts),
    and `compare` proved containment per view, twice over the same schema when nothing is closed. Once now; the
    findings (a witness per view) are the same, and a closed reader is still asked about in both views."""
    from wirecheck.diff import diff_schemas, engine, semantic

    asked: list[str] = []
    contained, difference = semantic.contained, semantic.difference
    monkeypatch.setattr(semantic, "contained", lambda *a: asked.append(f"contained {a[-1]}") or contained(*a))
    monkeypatch.setattr(engine.semantic, "difference", lambda *a: asked.append(f"difference {a[-1]}")
                        or difference(*a))
    result = diff_schemas({"type": "integer"}, {"type": "integer", "not": {"const": 3}})
    assert "contained strict" in asked and "contained tolerant" not in asked
    assert [a for a in asked if a.startswith("difference")] == ["difference strict"]
    (finding,) = result.findings
    assert finding.rule == "SCHEMA_NARROWED" and [(w.view, w.payload) for w in finding.witnesses] == [
        ("strict", 3), ("tolerant", 3)]
    asked.clear()
    closed = {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": False}
    diff_schemas(closed, {**closed, "properties": {"a": {"type": "integer", "not": {"const": 3}}}})
    assert asked.count("difference strict") == 1 and asked.count("difference tolerant") == 1


def _message_chain(length: int, end: dict, hop: dict | None = None) -> dict:
    defs = {f"S{i}": {"$ref": f"#/$defs/S{i + 1}", **(hop or {})} for i in range(length)}
    defs[f"S{length}"] = end
    defs["Msg"] = {"type": "object", "properties": {"value": {"$ref": "#/$defs/S0"}}, "required": ["value"]}
    return {"$schema": D, "$defs": defs, "$ref": "#/$defs/Msg"}


def test_a_change_at_the_end_of_a_long_ref_chain_is_a_witnessed_break(tmp_path) -> None:
    """Issue 31: a `$ref` chain of 500+ hops was undecided (a warning) and the default gate passed an object →
    string change at its end; 40 hops already were (the walk follows 32). Now the change is found at any length,
    written as `{"$ref"}` or with a description beside each hop, and the gate fails."""
    import json

    from typer.testing import CliRunner

    from wirecheck.cli.app import app
    from wirecheck.diff import diff_schemas

    for length, hop in ((40, None), (600, None), (600, {"description": "a hop"})):
        old, new = _message_chain(length, {"type": "object"}, hop), _message_chain(length, {"type": "string"}, hop)
        (finding,) = diff_schemas(old, new).findings
        assert finding.rule == "TYPE_CHANGED" and finding.path == "/value", (length, finding)
        assert {(w.direction, json.dumps(w.payload)) for w in finding.witnesses if w.view == "tolerant"} == {
            (FORWARD, '{"value": "x"}'), (BACKWARD, '{"value": {}}')}
    (tmp_path / "old.json").write_text(json.dumps(_message_chain(600, {"type": "object"})))
    (tmp_path / "new.json").write_text(json.dumps(_message_chain(600, {"type": "string"})))
    run = CliRunner().invoke(app, ["diff-schemas", str(tmp_path / "old.json"), str(tmp_path / "new.json")])
    assert run.exit_code == 1 and "gate --fail-on breaking: fail" in run.stdout, run.stdout


def test_ref_chains_point_at_their_end_and_nothing_else_changes() -> None:
    from wirecheck.diff.side import chains_shortened

    uri, other = "https://schemas.wirecheck.invalid/a", "https://schemas.wirecheck.invalid/b"
    written = {uri: {"$defs": {"A": {"$ref": "#/$defs/B", "title": "A"}, "B": {"$ref": "#/$defs/C"},
                               "C": {"$ref": f"{other}#/$defs/D"}, "one": {"$ref": "#/$defs/C", "minimum": 1},
                               "L1": {"$ref": "#/$defs/L2"}, "L2": {"$ref": "#/$defs/L1"},
                               "data": {"const": {"$ref": "#/$defs/B"}},
                               "U": {"anyOf": [{"type": "null"}, {"properties": {"p": {"$ref": "#/$defs/A"}}}]}}},
               other: {"$defs": {"D": {"type": "string"}}}}
    before = repr(written)
    shortened = chains_shortened(written)
    assert repr(written) == before  # copied, not changed
    defs = shortened[uri]["$defs"]
    assert defs["A"] == {"$ref": f"{other}#/$defs/D", "title": "A"} and defs["B"] == {"$ref": f"{other}#/$defs/D"}
    assert defs["C"] == {"$ref": f"{other}#/$defs/D"}  # one hop: as written
    assert defs["one"] == {"$ref": "#/$defs/C", "minimum": 1}  # not only a $ref: a schema of its own
    assert defs["L1"] == {"$ref": "#/$defs/L2"} and defs["L2"] == {"$ref": "#/$defs/L1"}  # a loop: as written
    assert defs["data"] == {"const": {"$ref": "#/$defs/B"}}  # a value, not a schema
    assert defs["U"]["anyOf"][1]["properties"]["p"] == {"$ref": f"{other}#/$defs/D"}  # found at any depth
    assert shortened[other] is written[other]
    assert chains_shortened(shortened) == shortened


def test_a_ref_is_joined_once_per_resource() -> None:
    """`join` was remembered per (holding node, `$ref`): every node of a resource missed, and urljoin ran for each
    (MCP's derived kinds: 1,015 times, 1.8 % of that diff-schemas). urljoin reads nothing of the base's fragment
    for a non-empty reference, so it is asked per (resource, `$ref`); the answers are urljoin's, fragment and all."""
    from urllib.parse import urljoin

    from wirecheck.diff import side as side_module
    from wirecheck.diff.side import join, location_of

    base = "https://schemas.wirecheck.invalid/once/a.json"
    side_module._joined.cache_clear()
    assert join(f"{base}#/$defs/A/properties/x", "b.json#/$defs/B") == "https://schemas.wirecheck.invalid/once/b.json#/$defs/B"
    assert join(f"{base}#/$defs/C", "b.json#/$defs/B") == "https://schemas.wirecheck.invalid/once/b.json#/$defs/B"
    assert side_module._joined.cache_info().misses == 1
    for holder in (f"{base}#/p", base, "https://h/x/", "urn:x:y#/a", "y.json#/a", "#/a", ""):
        for ref in ("", "#", "#/a%20b", "b.json", "../b.json#/c", "/b", "https://c/d#/e", "https://c/d?", "?q",
                    "//h/p"):
            written = location_of(holder.partition("#")[0] + ref if ref.startswith("#") else urljoin(holder, ref))
            assert join(holder, ref) == written, (holder, ref)


def _digest_as_written(side: Side, location: str) -> tuple[frozenset[bytes], int]:
    """What a digest stands for, computed afresh with nothing of `Side`'s memos or shortcuts: a location's text is
    `file#pointer ` and its node (but for `$id`, `$defs`, `definitions`) with sorted keys; its `$ref`s are found by
    walking that node (data keywords' values are not schemas); the set of the texts of every location the refs
    reach, transitively (as their SHA-256), and their bytes."""
    import hashlib

    from wirecheck.contracts.views import DATA_KEYWORDS
    from wirecheck.diff.side import join
    from wirecheck.json_types import json_bytes

    def text_and_refs(at: str) -> tuple[bytes, list[str]]:
        node = side.node(at)
        if isinstance(node, dict):
            node = {k: v for k, v in node.items() if k not in ("$id", "$defs", "definitions")}
        refs, stack = [], [node]
        while stack:
            value = stack.pop()
            if isinstance(value, dict):
                if isinstance(value.get("$ref"), str):
                    refs.append(value["$ref"])
                stack += [v for k, v in value.items() if k not in DATA_KEYWORDS and isinstance(v, dict | list)]
            elif isinstance(value, list):
                stack += [v for v in value if isinstance(v, dict | list)]
        base, _, fragment = at.partition("#")
        return f"{base.rsplit('/', 1)[-1]}#{fragment} ".encode() + json_bytes(node, sort_keys=True), \
            [join(at, ref) for ref in refs]

    text, refs = text_and_refs(location)
    parts, seen, todo = [text], {location}, list(refs)
    while todo:
        at = todo.pop()
        if at not in seen:
            seen.add(at)
            text, refs = text_and_refs(at)
            parts.append(text)
            todo += refs
    return frozenset(hashlib.sha256(p).digest() for p in parts), sum(map(len, parts))


def test_digests_share_the_closures_of_their_refs_and_say_what_they_said() -> None:
    """`digest`/`source_size`, with their memos, the no-`"$ref"`-in-the-text shortcut and the digests made per
    component of locations that reach each other, say for every node of a real contract (and of schemas whose
    definitions refer to each other in a loop, with `"$ref"` in descriptions and enums) what the definition
    computed afresh says: two digests are equal exactly when the sets of texts reached are, within one side and
    across sides; the size is the bytes of those texts."""
    from pathlib import Path

    from wirecheck.contracts.views import DATA_KEYWORDS
    from wirecheck.diff.side import child

    mcp = json.loads(Path("fixtures/mcp-schema/2025-11-25/schema.json").read_text())
    loop = {"$schema": D, "$id": URI, "$defs": {
        "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}, "n": {"type": "string"}}},
        "C": {"description": 'not a reference: {"$ref": "#/$defs/A"}', "enum": [{"$ref": "#/$defs/A"}]},
        "D": {"description": '"$ref"', "items": [{"$ref": "#/$defs/C"}, True], "$defs": {"E": {"$ref": "#"}}},
        "B": {"anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#"}, {"type": "null"}]},
    }, "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"$ref": "#/$defs/B"}, "c": {"$ref": "#/$defs/A"}}}
    said: dict[frozenset[bytes], set[str]] = {}  # texts reached → the digests given for them, over all sides
    digests: set[str] = set()
    for uri, schema in (("https://x.invalid/mcp.json", mcp), (URI, loop), (URI, {**loop, "$ref": "#/$defs/D"})):
        side, fresh = Side("old", {uri: schema}), Side("old", {uri: schema})
        locations, stack = [], [(schema, f"{uri}#")]
        while stack:
            node, at = stack.pop()
            locations.append(at)
            items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
            stack += [(v, child(at, k)) for k, v in items if k not in DATA_KEYWORDS and isinstance(v, dict | list)]
        assert len(locations) > (1000 if schema is mcp else 10)
        for at in locations:
            texts, size = _digest_as_written(fresh, at)
            assert side.source_size(at) == size, at
            said.setdefault(texts, set()).add(side.digest(at))
            digests.add(side.digest(at))
        assert len({side.digest(at) for at in locations}) > len(locations) // 2
    assert all(len(found) == 1 for found in said.values())  # equal texts reached: one digest
    assert len(digests) == len(said)  # other texts reached: another digest


def test_a_property_named_like_a_data_keyword_is_a_schema() -> None:
    """A property named `examples`, `enum`, `const` or `default` (AsyncAPI's message examples, server variables)
    is a schema like any other: its `$ref`s are part of the digest, and a closed object under it makes the
    tolerant view differ. Before, a changed definition behind such a property was reported nowhere (the two
    digests agreed), and a tolerant reader was judged as strict there (issue 39)."""
    from wirecheck.diff import diff_schemas

    for name in ("examples", "enum", "const", "default"):
        old = {"$schema": D, "type": "object", "properties": {name: {"$ref": "#/$defs/E"}},
               "$defs": {"E": {"type": "string"}}}
        new = {**old, "$defs": {"E": {"type": "integer"}}}
        assert [(f.rule, f.path) for f in diff_schemas(old, new).findings] == [("TYPE_CHANGED", f"/{name}")]
        closed = {"$schema": D, "type": "object", "properties": {name: {
            "type": "object", "additionalProperties": False}}}
        side = Side("old", {URI: closed})
        assert side.view_of(URI + "#", "tolerant") == "tolerant"
        assert side.accepts(URI + "#", "tolerant", {name: {"x": 1}})
        assert side.digest(URI + "#") != Side("new", {URI: {**old, "$id": URI}}).digest(URI + "#")


def test_a_witness_refused_only_for_another_change_is_not_this_changes() -> None:
    """Blame (issue 39, 4), as AsyncAPI 2.6 → 3.0: a server's tag keeps its `description`, but the server now
    needs `host` instead of `url`, behind a union. A 2.6 server with a tag description is refused by 3.0 at the
    union, above the tag: without the planted `description` it is refused the same, so it is no witness of a
    change at the description. A payload refused because of what was planted still is."""
    from wirecheck.diff.model import TOLERANT
    from wirecheck.diff.witness import Blame

    tag = {"type": "object", "additionalProperties": False,
           "properties": {"name": {"type": "string"}, "description": {"type": "string"}}}
    old = {"$schema": D, "$id": URI, "type": "object", "properties": {"s": {
        "type": "object", "required": ["url"], "additionalProperties": False,
        "properties": {"url": {"type": "string"}, "tags": {"type": "array", "items": tag}}}}}
    server = {"type": "object", "required": ["host"], "additionalProperties": False,
              "properties": {"host": {"type": "string"}, "tags": {"type": "array", "items": tag}}}
    new = {**old, "properties": {"s": {"oneOf": [
        {"type": "object", "required": ["$ref"], "properties": {"$ref": {"type": "string"}}}, server]}}}
    ends = (Side("old", {URI: old}), URI + "#"), (Side("new", {URI: new}), URI + "#")
    about = ("s", "tags", "*", "description")
    payload = {"s": {"url": "", "tags": [{"name": "", "description": ""}]}}
    from wirecheck.json_types import json_bytes

    assert (BACKWARD, TOLERANT) in judge([payload], *ends, about=about)  # refused at /s, "related" to the change
    assert judge([payload], *ends, about=about, blame=Blame({json_bytes(payload, sort_keys=True): about})) == {}
    # planted where the reader refuses it: its own
    refused = {"s": {"url": "", "tags": [{"name": "", "description": 5}]}}
    old_typed = {**old, "properties": {"s": {**old["properties"]["s"], "properties": {
        "url": {"type": "string"}, "tags": {"type": "array", "items": {**tag, "properties": {
            "name": {"type": "string"}, "description": {}}}}}}}}
    ends = (Side("old", {URI: old_typed}), URI + "#"), (Side("new", {URI: old}), URI + "#")
    assert (BACKWARD, STRICT) in judge([refused], *ends, about=about,
                                       blame=Blame({json_bytes(refused, sort_keys=True): about}))
