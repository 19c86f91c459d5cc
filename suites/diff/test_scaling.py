"""diff-schemas grows about linearly with the schema (issue 20: 1,000 added properties took 21 s and 432 MB, 2,000
past 120 s; an enum of 16,000 values past 120 s). Measured structurally, never by the clock: the bytes of payload
the validators are asked about (each question's cost grows with the schema: an enum of n values is checked in
n steps) and their bytes, for a schema of size n and of size 4n."""

from __future__ import annotations

from typing import Any

import pytest

from wirecheck.diff import diff_schemas
from wirecheck.diff.model import Change, Several
from wirecheck.diff.side import Side, related
from wirecheck.diff.walk import GROUP_LIMIT, grouped
from wirecheck.json_types import json_bytes


def _properties(n: int, kind: str) -> dict[str, Any]:
    return {f"p{i}": {"type": kind} for i in range(n)}


def _nested(n: int, kind: str) -> dict[str, Any]:
    inner = {"type": "object", "properties": {"a": {"type": kind}}, "required": ["a"]}
    return {"type": "object", "properties": {f"p{i}": inner for i in range(n)}, "required": [f"p{i}" for i in range(n)]}


CASES = {
    "required properties added": lambda n: (
        {"type": "object", "properties": {}},
        {"type": "object", "properties": _properties(n, "string"), "required": [f"p{i}" for i in range(n)]}),
    "every property retyped": lambda n: (
        {"type": "object", "properties": _properties(n, "string"), "additionalProperties": False},
        {"type": "object", "properties": _properties(n, "integer"), "additionalProperties": False}),
    "enum values added": lambda n: ({"enum": [0]}, {"enum": list(range(8 * n))}),
    "enum values removed": lambda n: ({"enum": list(range(8 * n))}, {"enum": [0]}),
    "the same change under every property": lambda n: (_nested(n, "string"), _nested(n, "integer")),
}


def _work(old: Any, new: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int, Any]:
    """Payloads jsonschema-rs and python-jsonschema were asked about (each distinct question once), their bytes."""
    asked: list[int] = []
    remembered = Side._remembered

    def counting(self: Side, what: str, location: str, view: str, payload: Any, ask: Any) -> Any:
        def counted() -> Any:
            asked.append(len(json_bytes(payload)))
            return ask()
        return remembered(self, what, location, view, payload, counted)

    monkeypatch.setattr(Side, "_remembered", counting)
    result = diff_schemas(old, new)
    monkeypatch.undo()
    return len(asked), sum(asked), result


@pytest.mark.parametrize("case", sorted(CASES))
def test_work_grows_linearly_with_the_schema(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    questions, size, small_result = _work(*CASES[case](50), monkeypatch)
    more_questions, more_size, large_result = _work(*CASES[case](200), monkeypatch)
    assert small_result.findings and large_result.findings
    assert all(f.witnesses for f in large_result.findings if f.breaks())  # still proven, with witnesses
    assert more_questions <= questions + 4, f"{case}: {questions} → {more_questions} questions for 4 × the schema"
    assert more_size <= 4 * 1.5 * size, f"{case}: {size} → {more_size} bytes asked about for 4 × the schema"


def test_many_changes_of_one_rule_are_one_finding_naming_them() -> None:
    old, new = CASES["required properties added"](40)
    (finding,) = diff_schemas(old, new).findings
    assert finding.rule == "REQUIRED_PROPERTY_ADDED"
    assert finding.message == ("required property p0, p1, p10, … (40 in all) added at "
                               "/{p0, p1, p10, … (40 in all)}")
    assert finding.witnesses and all(w.payload == {} for w in finding.witnesses)
    assert diff_schemas(*CASES["required properties added"](GROUP_LIMIT)).findings.__len__() == GROUP_LIMIT


def test_grouping_widens_only_as_far_as_needed() -> None:
    def change(*path: Any, **params: Any) -> Change:
        return Change("TYPE_CHANGED", tuple(path), None, None, params, key="/".join(map(str, path)))

    one_place = [change("a", value=i) for i in range(GROUP_LIMIT + 1)]
    siblings = [change("b", f"n{i}") for i in range(GROUP_LIMIT + 1)]
    few = [change("c", "x"), change("c", "y")]
    out = grouped(one_place + siblings + few)
    assert len(out) == 4
    assert out[0].path == ("a",) and out[0].params["value"].endswith(f"({GROUP_LIMIT + 1} in all)")
    assert out[1].path[0] == "b" and isinstance(out[1].path[1], Several)
    assert out[2:] == few  # two changes stay two
    assert related(("b", "n3"), out[1].path) and not related(("b", "other"), out[1].path)
