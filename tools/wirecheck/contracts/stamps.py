"""Version stamps: a `const` that is the release's own version (the runtime manifest's `sdkVersion`), marked with
the annotation `x-wirecheck-version-stamp: true` beside it.

A stamp holds exactly one value per release, so validating a message still asks for that value; but it is
expected to change with every release, and a consumer of one release that reads another's stamp reads a version,
not a broken contract. The diff therefore compares a stamp by its type (`generalised`) and reports a changed value
as VERSION_STAMP_CHANGED, info, never breaking. Loading checks that the annotation is `true` and sits beside a
`const` (`stamp_problems`).
"""

from __future__ import annotations

from typing import Any

from wirecheck.contracts.views import DATA_KEYWORDS, SCHEMA_MAPS, subschemas
from wirecheck.json_types import json_bytes, json_type

VERSION_STAMP = "x-wirecheck-version-stamp"
STAMP_VALUE = "x-wirecheck-stamp-value"  # where `generalised` keeps the stamp's value (diff sides only)
_MARK = VERSION_STAMP.encode()


def stamp_problems(schema: Any) -> list[tuple[tuple[Any, ...], str]]:
    """(path of the annotation, what is wrong) for each misused version-stamp annotation in `schema`."""
    if _MARK not in json_bytes(schema):
        return []
    problems = []
    for node, path in subschemas(schema):
        if VERSION_STAMP not in node:
            continue
        if node[VERSION_STAMP] is not True:
            problems.append(((*path, VERSION_STAMP), "must be true"))
        elif "const" not in node:
            problems.append(((*path, VERSION_STAMP), "marks a version stamp, which is a `const` beside it"))
    return problems


def generalised(schema: Any) -> Any:
    """`schema` with each version stamp's `const` replaced by its JSON type (the value kept under STAMP_VALUE),
    or `schema` itself when it has no stamp: two releases whose stamps differ only in value compare equal."""
    if _MARK not in json_bytes(schema):
        return schema
    return _generalise(schema)


def _generalise(value: Any) -> Any:
    if isinstance(value, list):
        return [_generalise(item) for item in value]
    if not isinstance(value, dict):
        return value
    if value.get(VERSION_STAMP) is True and "const" in value:
        out = {k: v for k, v in value.items() if k != "const"}
        out[STAMP_VALUE] = value["const"]
        out.setdefault("type", json_type(value["const"]))
        return out
    out = {}
    for key, item in value.items():
        if key in DATA_KEYWORDS:
            out[key] = item
        elif key in SCHEMA_MAPS and isinstance(item, dict):  # names are data, their values schemas
            out[key] = {name: _generalise(sub) for name, sub in item.items()}
        else:
            out[key] = _generalise(item)
    return out
