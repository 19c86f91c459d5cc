"""argv decoding (capture/argv.py): every grammar feature, each with the case that would fail if it were wrong."""

from __future__ import annotations

import pytest

from wirecheck.capture.argv import decode_argv

OPENCODE = {
    "positionals": ["command", "prompt"],
    "rest": "message",
    "flags": [
        {"flag": "--format", "name": "format", "value": True, "default": "json", "replaceable": True},
        {"flag": "--print-logs", "name": "printLogs", "default": True, "replaceable": True},
        {"flag": "--log-level", "name": "logLevel", "value": True, "default": "ERROR", "replaceable": True},
        {
            "flag": "--model",
            "aliases": ["-m"],
            "name": "model",
            "value": True,
            "parse": "^(?<provider>[^/]+)/(?<model>[^#]+)(?:#(?<variant>.+))?$",
        },
        {"flag": "--mcp-config", "name": "mcpConfig", "value": True, "repeatable": True},
    ],
}


def test_navarch_0_1_53_opencode_invocation_decodes_with_variant_folded_into_model():
    argv = ["/usr/bin/opencode", "run", "fix the bug", "--print-logs", "--log-level", "ERROR", "--format", "json",
            "--model", "anthropic/claude-opus-5#high"]
    decoded, problems = decode_argv(argv, OPENCODE)
    assert problems == []
    assert decoded == {
        "program": "opencode",
        "arguments": {"command": "run", "prompt": "fix the bug"},
        "options": {
            "printLogs": True,
            "logLevel": "ERROR",
            "format": "json",
            "model": {"value": "anthropic/claude-opus-5#high", "provider": "anthropic", "model": "claude-opus-5",
                      "variant": "high"},
        },
        "sequence": ["command", "prompt", "printLogs", "logLevel", "format", "model"],
    }


def test_model_without_variant_has_no_variant_key():
    decoded, problems = decode_argv(["opencode", "run", "p", "-m", "openai/gpt-6"], OPENCODE)
    assert problems == []
    assert decoded["options"]["model"] == {"value": "openai/gpt-6", "provider": "openai", "model": "gpt-6"}


def test_model_value_not_matching_parse_pattern_is_a_problem_and_keeps_the_raw_value():
    decoded, problems = decode_argv(["opencode", "run", "p", "--model", "gpt-6"], OPENCODE)
    assert decoded["options"]["model"] == {"value": "gpt-6"}
    assert [p[0] for p in problems] == ["/options/model"]
    assert "does not match" in problems[0][1]


def test_inline_equals_form():
    decoded, problems = decode_argv(["opencode", "run", "p", "--format=default", "--model=a/b#low"], OPENCODE)
    assert problems == []
    assert decoded["options"]["format"] == "default"
    assert decoded["options"]["model"]["variant"] == "low"


def test_operator_extra_arg_replacing_the_default_decodes_once():
    # NAVARCH_OPENCODE_EXTRA_ARGS=--format,default: Navarch then omits its own --format json.
    decoded, problems = decode_argv(["opencode", "run", "p", "--print-logs", "--log-level", "ERROR",
                                     "--format", "default"], OPENCODE)
    assert problems == []
    assert decoded["options"]["format"] == "default"


def test_extra_arg_repeating_a_defaulted_flag_is_a_problem():
    # What a runtime that appended the operator's --format after its own default would produce.
    decoded, problems = decode_argv(["opencode", "run", "p", "--format", "json", "--format", "default"], OPENCODE)
    assert decoded["options"]["format"] == "default"  # the consumer keeps the last one
    assert decoded["sequence"] == ["command", "prompt", "format", "format"]
    assert len(problems) == 1
    assert problems[0][0] == "/options/format"
    assert "more than once" in problems[0][1]


def test_repeatable_flag_collects_a_list():
    decoded, problems = decode_argv(["opencode", "run", "p", "--mcp-config", "a", "--mcp-config=b"], OPENCODE)
    assert problems == []
    assert decoded["options"]["mcpConfig"] == ["a", "b"]


def test_value_flag_at_the_end_is_a_problem():
    decoded, problems = decode_argv(["opencode", "run", "p", "--log-level"], OPENCODE)
    assert "logLevel" not in decoded["options"]
    assert problems == [("/options/logLevel", "argv[3] '--log-level' takes a value, but argv ends")]


def test_value_flag_takes_the_next_token_even_when_it_is_empty_or_dashed():
    grammar = {"flags": [{"flag": "--setting-sources", "name": "settingSources", "value": True},
                         {"flag": "--x", "name": "x", "value": True}]}
    decoded, problems = decode_argv(["qoder", "--setting-sources", "", "--x", "-1"], grammar)
    assert problems == []
    assert decoded["options"] == {"settingSources": "", "x": "-1"}


def test_boolean_flag_with_inline_value_is_a_problem():
    _, problems = decode_argv(["opencode", "run", "p", "--print-logs=yes"], OPENCODE)
    assert problems[0][0] == "/options/printLogs"
    assert "takes no value" in problems[0][1]


def test_unknown_flags_keep_their_spelling_so_a_closed_schema_names_them():
    decoded, problems = decode_argv(["opencode", "run", "p", "--variant", "high"], OPENCODE)
    assert problems == []
    # boolean by default: the following token is a positional and lands in the rest list
    assert decoded["options"] == {"--variant": True}
    assert decoded["arguments"]["message"] == ["high"]


def test_unknown_flags_may_take_values_when_the_grammar_says_so():
    decoded, _ = decode_argv(["opencode", "run", "p", "--agent", "build", "--dry"],
                             {**OPENCODE, "unknown_flags": "value"})
    assert decoded["options"] == {"--agent": "build", "--dry": True}


def test_surplus_positionals_without_rest_are_a_problem():
    grammar = {"positionals": ["prompt"]}
    decoded, problems = decode_argv(["gemini", "a", "b"], grammar)
    assert decoded["arguments"] == {"prompt": "a"}
    assert problems == [("/arguments", "argv[2] 'b': unexpected positional argument")]


def test_double_dash_ends_options():
    decoded, problems = decode_argv(["opencode", "run", "--", "--format"], OPENCODE)
    assert problems == []
    assert decoded["arguments"] == {"command": "run", "prompt": "--format"}
    assert decoded["options"] == {}


def test_positionals_may_be_objects_with_a_name():
    decoded, _ = decode_argv(["qoder", "-x", "hi"], {"positionals": [{"name": "prompt"}]})
    assert decoded["arguments"] == {"prompt": "hi"}


@pytest.mark.parametrize("argv0, program", [("opencode", "opencode"), ("/opt/bin/qoder", "qoder"),
                                             ("C:\\tools\\dsh", "dsh")])
def test_program_is_the_basename(argv0, program):
    assert decode_argv([argv0], {})[0]["program"] == program


def test_a_parse_pattern_is_ecma_262_as_the_catalog_writes_it():
    """Decoded by the one ECMA-262 matcher (ecma_regex.full_match), not Python's `re`: a backreference `\\k<name>`
    works (Python's `re` refuses that syntax), and non-ASCII text comes back whole in its groups."""
    grammar = {"flags": [{"flag": "--model", "name": "model", "value": True,
                          "parse": "^(?<provider>[^/]+)/(?<model>[^#]+)$"},
                         {"flag": "--pair", "name": "pair", "value": True, "parse": "^(?<a>[a-z]+)-\\k<a>$"}]}
    decoded, problems = decode_argv(["x", "--model", "é😀x/mø", "--pair", "ab-ab"], grammar)
    assert problems == []
    assert decoded["options"]["model"] == {"value": "é😀x/mø", "provider": "é😀x", "model": "mø"}
    assert decoded["options"]["pair"] == {"value": "ab-ab", "a": "ab"}
    _, problems = decode_argv(["x", "--pair", "ab-ba"], grammar)
    assert [p[0] for p in problems] == ["/options/pair"] and "does not match" in problems[0][1]


def test_a_value_that_would_backtrack_for_minutes_is_a_problem_within_the_budget():
    """`^(a+)+$` against 40 `a`s and a `!` backtracks for minutes in any backtracking engine (Python's `re` too):
    the match runs in the matcher's helper within MATCH_SECONDS, and the value is a decode problem, not a hang."""
    import time

    from wirecheck.ecma_regex import MATCH_SECONDS

    grammar = {"flags": [{"flag": "--x", "name": "x", "value": True, "parse": "^(?<all>(a+)+)$"}]}
    started = time.monotonic()
    decoded, problems = decode_argv(["p", "--x", "a" * 40 + "!"], grammar)
    assert time.monotonic() - started < MATCH_SECONDS * 10
    assert decoded["options"]["x"] == {"value": "a" * 40 + "!"}
    assert [p[0] for p in problems] == ["/options/x"] and "took longer than" in problems[0][1]


def test_a_value_holding_a_lone_surrogate_is_a_problem_not_a_crash_of_the_matcher():
    """JSON text may hold a lone surrogate (`"\\ud800"`); the ECMA-262 matcher cannot take one: the value is left
    undecoded with a problem that says why, at once, and the matcher's helper is not taken down by it."""
    from wirecheck.ecma_regex import search

    grammar = {"flags": [{"flag": "--m", "name": "m", "value": True, "parse": "^(?<a>[^/]+)/(?<b>.+)$"}]}
    decoded, problems = decode_argv(["x", "--m", "a\ud800/b"], grammar)
    assert decoded["options"]["m"] == {"value": "a\ud800/b"}
    assert [p[0] for p in problems] == ["/options/m"] and "lone surrogate" in problems[0][1]
    assert decode_argv(["x", "--m", "a/b"], grammar)[0]["options"]["m"] == {"value": "a/b", "a": "a", "b": "b"}
    assert search("b", "ab")
