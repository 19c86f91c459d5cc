"""capture/shell_words.py splits a command line as shlex.split(posix=True) does, in linear time (attack-input F7:
shlex took 14 s on a 1 MB argument), and `--as` env reads a value continued over many lines in linear time, keeping
the first of a name given twice as getenv does (F8)."""

from __future__ import annotations

import shlex

from hypothesis import given, settings
from hypothesis import strategies as st

from wirecheck.capture.documents import bare_env
from wirecheck.capture.shell_words import shell_words

ALPHABET = st.sampled_from(list("ab '\"\\\t\n\r$é\x0b#=-"))


def _either(split, text):  # type: ignore[no-untyped-def]
    try:
        return split(text)
    except ValueError as exc:
        return ("refused", str(exc))


@settings(max_examples=3000, deadline=None)
@given(st.text(ALPHABET, max_size=40))
def test_words_are_shlex_words(text):
    assert _either(shell_words, text) == _either(lambda t: shlex.split(t, comments=False, posix=True), text)


def test_long_words_and_their_refusals():
    long = "x" * 3_000_000
    assert shell_words(f"prog '{long}' \"a\\\"{long}\" {long}\\ b") == ["prog", long, f'a"{long}', f"{long} b"]
    for text, said in ((f"prog '{long}", "No closing quotation"), (f"prog {long}\\", "No escaped character")):
        assert _either(shell_words, text) == ("refused", said)


def test_an_env_value_over_many_lines_and_a_name_given_twice():
    lines = ["A=1", "B=first", *(f"line {i}" for i in range(200_000)), "B=second", "more of the second", "C=3"]
    *findings, message = bare_env("\n".join(lines).encode(), "env.txt", None)
    assert message.value == {"A": "1", "B": "first\n" + "\n".join(f"line {i}" for i in range(200_000)), "C": "3"}
    assert [(f.code, f.line) for f in findings] == [("DUPLICATE_KEY", 200_003)]
