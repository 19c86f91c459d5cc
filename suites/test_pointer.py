from __future__ import annotations

import pytest

from wirecheck.pointer import MISSING, format_pointer, parse_pointer, resolve

DOC = {"a": {"b/c": [10, {"~x": 1}]}}


def test_round_trip_with_escapes():
    tokens = parse_pointer("/a/b~1c/1/~0x")
    assert tokens == ("a", "b/c", "1", "~x")
    assert format_pointer(tokens) == "/a/b~1c/1/~0x"
    assert resolve(DOC, tokens) == 1


def test_missing_with_and_without_default():
    assert resolve(DOC, ("a", "nope"), None) is None
    assert resolve(DOC, ("a", "nope"), MISSING) is MISSING  # MISSING as a default is returned, not raised
    assert resolve(DOC, ("a", "b/c", "7"), MISSING) is MISSING
    with pytest.raises(KeyError, match="/a/nope"):
        resolve(DOC, ("a", "nope"))


def test_bad_pointer():
    with pytest.raises(ValueError, match="must be empty or start with '/'"):
        parse_pointer("a/b")


@pytest.mark.parametrize(
    ("value", "name"),
    [(None, "null"), (True, "boolean"), (3, "integer"), (3.0, "number"), ("x", "string"), ([], "array"),
     ({}, "object")],
)
def test_json_type(value, name):
    from wirecheck.json_types import json_type

    assert json_type(value) == name


def test_yaml_keeps_and_strips_lines():
    from wirecheck.yaml_lines import load_with_lines, strip_lines

    data = load_with_lines("a: 1\nitems:\n  - b: 2\n")
    assert data["__line__"] == 1 and data["items"][0]["__line__"] == 3
    assert strip_lines(data) == {"a": 1, "items": [{"b": 2}]}


def test_replaced_copies_the_way_and_leaves_the_original_alone() -> None:
    from wirecheck.pointer import replaced

    document = {"a": {"b": [1, {"c": 2}]}, "d": {"e": 3}}
    out = replaced(document, ("a", "b", "1", "c"), 9)
    assert out == {"a": {"b": [1, {"c": 9}]}, "d": {"e": 3}}
    assert document["a"]["b"][1]["c"] == 2 and out["d"] is document["d"]  # untouched, the rest shared
    assert replaced(document, ("a", "new"), 1)["a"]["new"] == 1  # an absent last member is added
    assert replaced(document, (), 5) == 5
    with pytest.raises(KeyError):
        replaced(document, ("nope", "x"), 1)
    with pytest.raises(KeyError):
        replaced(document, ("a", "b", "7"), 1)


@pytest.mark.parametrize("seed", range(3))
def test_a_compiled_getter_reads_what_resolve_reads(seed):
    """pointer.getter (compiled once, read in every message by the behaviour monitors) gives what
    `resolve(document, tokens, MISSING)` gives, on random values and pointers of 0 to 4 tokens: member names,
    indices in and out of range, names that are digits on an object, tokens met by a scalar."""
    import random

    from wirecheck.pointer import getter

    rng = random.Random(seed)
    tokens = ["a", "b", "0", "1", "10", ""]

    def value(depth: int):
        if depth > 3 or rng.random() < 0.2:
            return rng.choice([1, "x", None, True, 2.5, [], {}])
        if rng.random() < 0.5:
            return [value(depth + 1) for _ in range(rng.randrange(4))]
        return {rng.choice(tokens): value(depth + 1) for _ in range(rng.randrange(5))}

    found = 0
    for _ in range(400):
        path = tuple(rng.choice(tokens) for _ in range(rng.randrange(5)))
        get = getter(path)
        for _ in range(5):
            sample = value(0)
            expected = resolve(sample, path, MISSING)
            assert get(sample) is expected, (path, sample)
            found += expected is not MISSING
    assert found > 300  # the values were not all missed
