"""validate's reports read in one glance: the coverage lists what was seen and counts the rest in one line, a
message missing fields gets one short finding per field, and schema errors are said in the report's words, not
python-jsonschema's (`Additional properties are not allowed ('x' was unexpected)`, `... is a required property`,
`... listed in the 'anyOf' keyword`)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import jsonschema_rs
import pytest

from wirecheck.capture import CaptureFile
from wirecheck.check.engine import CheckOptions, Engine
from wirecheck.contracts import load_registry
from wirecheck.contracts.errors import schema_error_text
from wirecheck.report import FORMATS

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = load_registry(ROOT / "contracts")
# words of python-jsonschema (and jsonschema-rs, which copies them) that must not reach a report
PYTHON_WORDS = re.compile(r"was unexpected|were unexpected|is a required property|listed in the '|False schema|"
                          r"is not of type|is not allowed for|branch \d|is less than|is greater than|does not match|"
                          r"is not one of|is shorter than|is longer than|is not a multiple|has non-unique")


def _report(spec: str, capture: Path, output_format: str = "text") -> str:
    release = REGISTRY.load(spec)
    result = Engine(release, CheckOptions(), REGISTRY.load).run([CaptureFile(str(capture))])
    out = io.StringIO()
    FORMATS[output_format](result, out)
    return out.getvalue()


def test_a_real_run_reads_in_a_dozen_lines():
    """qodercli's real capture exercises 5 of the release's 82 kinds: the report listed all 82 (93 lines)."""
    text = _report("qoder-agent-sdk@1.0.23", ROOT / "fixtures/qoder-agent-sdk/1.0.23/real/both.framed.ndjson")
    lines = text.rstrip("\n").split("\n")
    assert len(lines) <= 17, text  # the unknown request's owed answer names its response kind: one more line each
    assert "  · 76 other kinds not exercised (--all-kinds lists them)" in lines
    # the three requests the logged-out CLI never answers are errors: the SDK awaits them (CLI-ANSWERS-REQUESTS)
    assert lines[-1].startswith("FAILS: 6 messages (1 unclassified), 4 errors, 1 warning")
    assert "additionalProperties" not in text  # an unknown field's finding says so itself


def test_a_result_missing_fields_gets_one_short_finding_per_field(tmp_path):
    """The issue's Claude Code result: each of its 13 findings repeated the 175-character `required` list."""
    capture = tmp_path / "result.jsonl"
    capture.write_text('{"type":"result","subtype":"success","is_error":false,"result":"hi","session_id":"s"}\n')
    text = _report("claude-code-print@2.1.218", capture)
    missing = [line for line in text.split("\n") if "SCHEMA_VIOLATION" in line]
    assert len(missing) >= 8
    for line in missing:
        assert re.search(r"\[result\]  \(as Success\) missing required field `\w+`$", line), line
        assert len(line.split("  error  ", 1)[1]) < 85 and "required:" not in line
    assert not PYTHON_WORDS.search(text)
    assert not PYTHON_WORDS.search(_report("claude-code-print@2.1.218", capture, "markdown"))


@pytest.mark.parametrize(("schema", "instance", "said"), [
    ({"required": ["a"]}, {}, "missing required field `a`"),
    ({"properties": {"a": {}}, "additionalProperties": False}, {"a": 1, "kind": 2}, "unknown field `kind`"),
    ({"unevaluatedProperties": False}, {"b": 1, "c": 2}, "unknown fields `b`, `c`"),
    ({"type": "integer"}, "x", 'expected an integer, found the string "x"'),
    ({"type": ["string", "null"]}, {"a": 1}, "expected null or a string, found an object"),
    ({"anyOf": [{"type": "string"}, {"type": "null"}, {"type": "boolean"}]}, 1,
     "matches none of the 3 forms allowed here"),
    ({"oneOf": [{}, {}]}, 1, "matches more than one of the 2 forms allowed here (exactly one must match)"),
    ({"const": "a"}, "b", 'expected "a", found "b"'),
    ({"properties": {"a": False}}, {"a": 1}, "field `a` is not allowed here"),
    # every keyword: what was expected, then what was found (issue 42, 6: never python-jsonschema's sentences)
    ({"minimum": 0}, -1, "expected at least 0, found -1"),
    ({"exclusiveMaximum": 5}, 5, "expected less than 5, found 5"),
    ({"pattern": "^a"}, "b", 'expected a string matching the pattern "^a", found "b"'),
    ({"minLength": 2}, "a", "expected at least 2 characters, found 1"),
    ({"maxItems": 1}, [1, 2], "expected at most 1 item, found 2"),
    ({"minProperties": 1}, {}, "expected at least 1 field, found 0"),
    ({"enum": ["a", "b"]}, "c", 'expected one of "a", "b", found "c"'),
    ({"multipleOf": 2}, 3, "expected a multiple of 2, found 3"),
    ({"uniqueItems": True}, [1, 1], "expected every item to differ, found an item repeated"),
    ({"propertyNames": {"maxLength": 1}}, {"ab": 1}, "field name: expected at most 1 character, found 2"),
    # a `not` that says why in its title (opencode-config 2.0.0): its words, not its JSON
    ({"properties": {"plugins": {"not": {"title": "plugins is a V2 key: OpenCode V1 reads plugin"}}}}, {"plugins": []},
     "is not allowed here: plugins is a V2 key: OpenCode V1 reads plugin"),
])
def test_schema_errors_in_the_reports_words(schema, instance, said):
    (error,) = list(jsonschema_rs.validator_for(schema).iter_errors(instance))
    assert schema_error_text(error) == said
    assert not PYTHON_WORDS.search(said)
