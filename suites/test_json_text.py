"""JSON syntax errors said in plain words: what was expected, where, what was found, and a YAML file named as such
(a YAML file given where JSON is expected said "invalid literal, expected 'true'")."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from wirecheck.cli.app import app
from wirecheck.json_text import parse_json


@pytest.mark.parametrize(("text", "said"), [
    (b"type: result", "expected a JSON value at column 1, found `type: result` (this looks like YAML; JSON is "
                      "expected here)"),
    (b"---\nkind: x\n", "found `---` (this looks like YAML"),
    (b"- a\n- b", "found `- a` (this looks like YAML"),
    (b'{"a":1,}', "expected a member name in double quotes at column 8, found `}`"),
    (b"[1,2", "expected a comma or the closing bracket at column 5, found the end of the text"),
    (b'{"a":1} x', "more text after the JSON value at column 9, found `x`"),
    (b'{\n"a": 1,\n}', "expected a member name in double quotes at line 3, column 1, found `}`"),
    (b"\xe2\x9a\xa0 claude.ai connectors are disabled", "expected a JSON value at column 1, found `⚠ claude.ai"),
])
def test_a_syntax_error_says_what_where_and_what_was_found(text, said):
    value, problem = parse_json(text)
    assert value is None and problem is not None and problem.code == "PARSE_ERROR"
    assert said in problem.message, problem.message
    assert "char " not in problem.message and "literal" not in problem.message  # neither orjson's nor json's words


def test_json_is_not_said_to_look_like_yaml():
    for text in (b'{"a": 1', b'"abc', b"tru", b"[1,,2]"):
        assert "YAML" not in parse_json(text)[1].message  # type: ignore[union-attr]


def test_the_line_of_a_value_that_starts_later_in_its_file():
    _, problem = parse_json(b'{\n"a": 1,\n}', line=10)
    assert problem is not None and "at line 12, column 1" in problem.message


def test_a_yaml_capture_and_a_yaml_schema_named_json(tmp_path):
    capture = tmp_path / "result.json"
    capture.write_text("type: result\nsubtype: success\n")
    result = CliRunner().invoke(app, ["validate", "claude-code-print@2.1.218", str(capture)])
    out = result.output
    # a warning: claude-code-print's reader may pass over lines that are not JSON (readers.yaml non_json_lines);
    # the run still recognises nothing
    assert "result.json:1  warning  PARSE_ERROR  not valid JSON: expected a JSON value at column 1, found " \
           "`type: result` (this looks like YAML; JSON is expected here)" in out
    assert "result.json:2  warning  PARSE_ERROR" in out and result.exit_code == 4  # each line where it is
    schema = tmp_path / "old.json"
    schema.write_text("type: object\n")
    result = CliRunner().invoke(app, ["diff-schemas", str(schema), str(schema)])
    assert result.exit_code == 2
    assert "looks like YAML" in result.output and "a file not named .json is read as YAML" in result.output


@pytest.mark.parametrize(("text", "said"), [
    (b'{"a":1,}', "expected a member name in double quotes at column 8, found `}`"),
    (b'{"a":1, \n }', "expected a member name in double quotes at line 2, column 2, found `}`"),
    (b"[1,2,]", "expected a JSON value at column 6, found `]`"),
])
def test_a_trailing_comma_is_said_the_same_on_every_python(text, said):
    """Python 3.13's reader names a trailing comma at the comma ("Illegal trailing comma before end of object"),
    3.11 and 3.12 what they expected at the bracket: the report says the same on each (3.13 failed the tests)."""
    import json

    from wirecheck.json_text import said as say

    assert said in parse_json(text)[1].message  # type: ignore[union-attr]
    comma = text.rindex(b",")
    for msg in ("Illegal trailing comma before end of object", "Illegal trailing comma before end of array"):
        if (msg.endswith("object")) == text.startswith(b"{"):
            assert said in say(json.JSONDecodeError(msg, text.decode(), comma), text.decode())
