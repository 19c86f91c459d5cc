"""The one ECMA-262 matcher every re-check of a payload uses (ecma_regex.py): exact regress semantics, within a time
budget; over the budget the answer is RegexTimeout ("unknown"), never "does not match"."""

from __future__ import annotations

import os
import time

import pytest
import regress

from wirecheck import ecma_regex
from wirecheck.contracts.reference import reference_validator
from wirecheck.ecma_regex import RegexTimeout, search, surely_does_not_match, surely_matches

REDOS = "^(a+)+$"
NEAR_MISS = "a" * 40 + "!"  # minutes of backtracking for regress


@pytest.fixture
def short_budget(monkeypatch):
    monkeypatch.setattr(ecma_regex, "MATCH_SECONDS", 0.3)
    monkeypatch.setattr(ecma_regex, "_timed_out", {})


def test_ecma_semantics(short_budget):
    assert search("^a$", "a") and not search("^a$", "a\n")  # `$` never before a trailing newline
    assert not search(r"^\d$", "\u0663") and search(r"^\p{L}+$", "é")  # ASCII \d; Unicode property escapes
    with pytest.raises(regress.RegressError):
        search("(?P<name>a)", "a")  # Python's syntax is not ECMA's


def test_a_catastrophic_match_is_undecided_within_the_budget(short_budget):
    started = time.monotonic()
    with pytest.raises(RegexTimeout):
        search(REDOS, NEAR_MISS)
    assert not surely_matches(REDOS, NEAR_MISS) and not surely_does_not_match(REDOS, NEAR_MISS)
    assert time.monotonic() - started < 60  # generous: the point is minutes → a bounded wait, not a speed
    assert search(REDOS, "aaaa") and not search(REDOS, "ab")  # the helper was replaced and answers again


def test_no_helper_outlives_close(short_budget):
    search("a", "a")
    helper = ecma_regex._helper
    process = helper._process
    assert process is not None and process.poll() is None
    helper.close()
    assert process.poll() is not None
    with pytest.raises(ProcessLookupError):
        os.kill(process.pid, 0)


def test_the_reference_validator_keeps_ecma_patterns_through_a_ref_to_a_resource_naming_its_dialect(short_budget):
    """python-jsonschema swaps in its stock validator (Python `re`) for a `$ref`'d resource with `$schema`: every
    contract file has one, so the second judge matched patterns with Python semantics."""
    resources = {"https://x/s.json": {"$schema": "https://json-schema.org/draft/2020-12/schema",
                                      "$id": "https://x/s.json", "type": "string", "pattern": "^a$"}}
    validator = reference_validator({"$ref": "https://x/s.json"}, resources)
    assert validator.is_valid("a") and not validator.is_valid("a\n")


def test_the_reference_validator_is_time_bounded(short_budget):
    validator = reference_validator({"type": "string", "pattern": REDOS}, {})
    with pytest.raises(RegexTimeout):
        validator.is_valid(NEAR_MISS)


FORKED_CHILD = """import json, multiprocessing, os, sys
from wirecheck import ecma_regex
from wirecheck.ecma_regex import search


def held_pipes():
    held = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            info = os.stat(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        held.add((info.st_dev, info.st_ino))
    return held


def child(pipe, parents_pipes):
    answers = [search("^b+$", "bbb"), search("^b+$", "abc")]
    pipe.send((answers, ecma_regex._helper._process.pid if ecma_regex._helper._process else None,
               bool(held_pipes() & parents_pipes)))
    pipe.close()


if __name__ == "__main__":
    assert search("^a+$", "aaa")
    parent_helper = ecma_regex._helper._process.pid
    parents_pipes = {(info.st_dev, info.st_ino) for info in (
        os.fstat(ecma_regex._helper._send.fileno()), os.fstat(ecma_regex._helper._receive.fileno()))}
    receive, send = multiprocessing.Pipe(duplex=False)
    forked = multiprocessing.get_context("fork").Process(target=child, args=(send, parents_pipes))
    with ecma_regex._helper._lock:  # held at the fork, as if in the middle of a match
        forked.start()
    try:
        if not receive.poll(30):
            sys.exit("the child hangs on the parent's lock")
        answers, child_helper, holds_parents = receive.recv()
        forked.join(30)
    finally:
        forked.kill()
    print(json.dumps({"exitcode": forked.exitcode, "answers": answers,
                      "own_helper": child_helper is not None and child_helper != parent_helper,
                      "holds_parents": holds_parents, "parent_kept": ecma_regex._helper._process.pid == parent_helper,
                      "parent_answers": [search("^a+$", "aaa"), search("^a+$", "ab")]}))
"""


def test_a_forked_child_starts_its_own_helper_and_leaves_the_parents_alone(tmp_path):
    """-j's workers are forked (check/parallel.py, from a process of one thread) and inherit this module: a child
    that used the parent's pipe would read answers meant for the parent, one that kept it open would keep the
    parent's helper alive, and one forked while the helper's lock was held would wait for ever. The child drops the
    parent's pipe and starts its own helper; the parent's goes on answering. Run in a fresh process, of one thread
    as the CLI is (a test process has others: no fork there, suites/conftest.py)."""
    import subprocess
    import sys

    import orjson

    script = tmp_path / "forked_child.py"
    script.write_text(FORKED_CHILD)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    facts = orjson.loads(done.stdout)
    assert facts["exitcode"] == 0 and facts["answers"] == [True, False]
    assert facts["own_helper"]
    assert not facts["holds_parents"]  # else the parent's helper would outlive the parent's close while the child lives
    assert facts["parent_kept"] and facts["parent_answers"] == [True, False]
