"""The jsonschema-rs meta-schema screen (contracts.reference.meta_validator) says what python-jsonschema's
check_schema says: it lets a schema through only where check_schema would, so it may stand in for it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from wirecheck.contracts.drafts import DRAFTS
from wirecheck.contracts.reference import FORMAT_CHECKER, meta_validator

REPO = Path(__file__).resolve().parents[2]
SCHEMAS = sorted([*REPO.glob("contracts/*/*/*.json"), *REPO.glob("fixtures/mcp-schema/*/*.json")])
BROKEN = [
    {"type": "strnig"}, {"type": 12}, {"required": "a"}, {"properties": {"a": 1}}, {"pattern": "(?P<n>a)"},
    {"patternProperties": {"(": {}}}, {"minLength": -1}, {"enum": "x"}, {"items": [1]}, {"allOf": []},
    {"$ref": 5}, {"multipleOf": 0}, {"maxItems": 1.5},
]
FINE = [{"pattern": "\\p{L}+"}, {"patternProperties": {"^x-": {}}}, {"type": ["string", "null"]}, {}, True]


def _python_accepts(schema: Any, draft: Any) -> bool:
    try:
        draft.validator.check_schema(schema, format_checker=FORMAT_CHECKER)
    except jsonschema.SchemaError:
        return False
    return True


@pytest.mark.parametrize("path", SCHEMAS, ids=lambda p: str(p.relative_to(REPO)))
def test_shipped_schemas_pass_both(path: Path) -> None:
    schema = json.loads(path.read_text(encoding="utf-8"))
    draft = next((d for d in DRAFTS.values() if schema.get("$schema", "").rstrip("#") == d.uri.rstrip("#")),
                 DRAFTS["2020-12"])
    assert meta_validator(draft.uri).is_valid(schema) and _python_accepts(schema, draft)


@pytest.mark.parametrize("name", sorted(DRAFTS))
@pytest.mark.parametrize("schema", BROKEN + FINE, ids=json.dumps)
def test_the_screen_agrees_with_check_schema(name: str, schema: Any) -> None:
    draft = DRAFTS[name]
    assert meta_validator(draft.uri).is_valid(schema) == _python_accepts(schema, draft)


def test_a_lone_surrogate_jsonschema_rs_cannot_take_is_judged_by_python_jsonschema() -> None:
    """jsonschema-rs refuses a string with a lone surrogate (UnicodeEncodeError) before validating: the screen
    steps aside instead of crashing, and python-jsonschema gives the verdict and the place."""
    from wirecheck.diff.inputs import DIALECT, not_a_schema

    assert not_a_schema({"$schema": DIALECT, "title": "a\ud800"}) is None
    found = not_a_schema({"$schema": DIALECT, "properties": {"a": {"type": "\ud800"}}})
    assert found is not None and found.startswith("/properties/a/type: ")
