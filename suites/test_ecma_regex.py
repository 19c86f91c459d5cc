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


def _child_matches(pipe, parents_pipes) -> None:
    """In a forked child: match, and say which helper answered and whether it still holds the parent's pipes."""
    answers = [search("^b+$", "bbb"), search("^b+$", "abc")]
    held = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            info = os.stat(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        held.add((info.st_dev, info.st_ino))
    pipe.send((answers, ecma_regex._helper._process.pid if ecma_regex._helper._process else None,
               bool(held & parents_pipes)))
    pipe.close()


def test_a_forked_child_starts_its_own_helper_and_leaves_the_parents_alone(short_budget):
    """-j's workers are forked (check/parallel.py) and inherit this module: a child that used the parent's pipe
    would read answers meant for the parent, one that kept it open would keep the parent's helper alive, and one
    forked while another thread held the helper's lock would wait for ever. The child drops the parent's pipe and
    starts its own helper; the parent's goes on answering."""
    import multiprocessing

    assert search("^a+$", "aaa")
    parent_helper = ecma_regex._helper._process.pid
    parents_pipes = {(info.st_dev, info.st_ino) for info in (
        os.fstat(ecma_regex._helper._send.fileno()), os.fstat(ecma_regex._helper._receive.fileno()))}
    receive, send = multiprocessing.Pipe(duplex=False)
    child = multiprocessing.get_context("fork").Process(target=_child_matches, args=(send, parents_pipes))
    with ecma_regex._helper._lock:  # another thread in the middle of a match when the fork happens
        child.start()
    try:
        assert receive.poll(30), "the child hangs on the parent's lock"
        answers, child_helper, holds_parents = receive.recv()
        child.join(30)
    finally:
        child.kill()
    assert child.exitcode == 0
    assert answers == [True, False]
    assert child_helper is not None and child_helper != parent_helper
    assert not holds_parents  # else the parent's helper would outlive the parent's close while the child lives
    assert ecma_regex._helper._process.pid == parent_helper
    assert search("^a+$", "aaa") and not search("^a+$", "ab")
