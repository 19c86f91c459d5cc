"""contracts.views.subschemas: every schema object with its path, in document order (the contract loader's checks,
the diff's inputs and the inliner walk with it), against a plain recursive walk that says the same in few words."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from wirecheck.contracts.views import DATA_KEYWORDS, SCHEMA_MAPS, subschemas

ROOT = Path(__file__).resolve().parents[2]


def reference(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, tuple[Any, ...]]]:
    if isinstance(node, list):
        return [found for i, item in enumerate(node) for found in reference(item, (*path, i))]
    if not isinstance(node, dict):
        return []
    out = [(node, path)]
    for key, value in node.items():
        if key in DATA_KEYWORDS:
            continue
        if key in SCHEMA_MAPS and isinstance(value, dict):
            out += [found for name, sub in value.items() for found in reference(sub, (*path, key, name))]
        else:
            out += reference(value, (*path, key))
    return out


CASES = [
    {"properties": {"enum": {"type": "string"}, "x": 1, "y": [{"a": {}}]}, "enum": [{"type": "x"}], "const": {"k": {}},
     "items": [{}, [{"z": {}}], 3], "$defs": {"A": {"oneOf": [{"$ref": "#"}, True]}}, "default": {"properties": {}}},
    [{"a": 1}, [{"b": {}}], "s"], {"properties": []}, {"dependentSchemas": {"p": {"not": {}}}}, {}, [], 1, "x", None,
]


@pytest.mark.parametrize("schema", CASES)
def test_the_walk_is_the_reference_walk(schema):
    walked = list(subschemas(schema))
    expected = reference(schema)
    assert [path for _, path in walked] == [path for _, path in expected]
    assert all(a is b for (a, _), (b, _) in zip(walked, expected, strict=True))


def test_real_schemas_walk_as_the_reference_does():
    files = sorted(ROOT.glob("contracts/*/*/schema.json")) + sorted(ROOT.glob("fixtures/mcp-schema/*/schema.json"))
    assert len(files) > 10
    for file in files:
        schema = json.loads(file.read_text())
        assert [p for _, p in subschemas(schema)] == [p for _, p in reference(schema)], file


def test_deeper_than_recursion_goes():
    schema: dict[str, Any] = {}
    node = schema
    for _ in range(5000):
        node["not"] = {}
        node = node["not"]
    assert len(list(subschemas(schema))) == 5001
