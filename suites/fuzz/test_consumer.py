"""Consumer fuzzing finds what a consumer gets wrong, in every category, with minimal examples."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from wirecheck.contracts.reference import reference_validator
from wirecheck.fuzz.consumer import (
    ACCEPT,
    CRASH,
    HANG,
    IGNORE,
    INVALID_ACCEPTED,
    REJECT,
    VALID_REJECTED,
    ProcessConsumer,
    PythonConsumer,
    fuzz_consumer,
)
from wirecheck.fuzz.consumer_report import render_markdown

LINE_CONSUMER = str(Path(__file__).parent / "data" / "line_consumer.py")
KINDS = ["event", "hello"]


def _strict(release):
    """A consumer that agrees with the contract: the reference validator decides."""
    validators = {k.id: reference_validator({"$ref": k.schema.uri}, release.resources) for k in release.kinds
                  if k.schema is not None}

    def consume(message):
        for kind_id in KINDS:
            if validators[kind_id].is_valid(message):
                return message
        raise ValueError("not a message I know")

    return consume


def _install(monkeypatch, name, function):
    module = type(sys)("wirecheck_test_consumers")
    setattr(module, name, function)
    monkeypatch.setitem(sys.modules, "wirecheck_test_consumers", module)
    return f"wirecheck_test_consumers:{name}"


def test_a_consumer_that_follows_the_contract_has_no_findings(demo, monkeypatch):
    target = _install(monkeypatch, "strict", _strict(demo))
    report = fuzz_consumer(demo, PythonConsumer(target), kinds=KINDS, count=15)
    assert not report.failed, [f.as_json() for f in report.failures]
    assert report.kinds["event"].valid.get(ACCEPT)


def test_a_consumer_that_accepts_everything_is_caught_with_minimal_mutants(demo, monkeypatch):
    target = _install(monkeypatch, "lax", lambda message: message)
    report = fuzz_consumer(demo, PythonConsumer(target), kinds=KINDS, count=15)
    accepted = [f for f in report.failures if f.category == INVALID_ACCEPTED]
    assert accepted and report.failed
    for failure in accepted:
        kind = demo.kind(failure.kind)
        validator = reference_validator({"$ref": kind.schema.uri}, demo.resources)
        assert not validator.is_valid(failure.example), failure  # the example is still a real mutant
        assert failure.label.startswith(failure.signature)
        assert failure.shrunk


def test_crashes_are_told_apart_from_rejections_and_shrunk(demo, monkeypatch):
    def fragile(message):
        if not isinstance(message, dict):
            raise ValueError("not an object")  # the declared rejection
        return message["type"].upper()  # KeyError / AttributeError: undeclared

    report = fuzz_consumer(demo, PythonConsumer(_install(monkeypatch, "fragile", fragile)), kinds=KINDS, count=15)
    crashes = [f for f in report.failures if f.category == CRASH]
    assert crashes
    assert all("at test_consumer.py:" in f.signature for f in crashes)
    assert any(f.signature.startswith(("KeyError", "AttributeError")) for f in crashes)


def test_valid_messages_rejected_are_reported_with_a_small_example(demo, monkeypatch):
    def picky(message):
        if isinstance(message, dict) and len(message) > 2:
            raise ValueError("too many fields")
        return message

    report = fuzz_consumer(demo, PythonConsumer(_install(monkeypatch, "picky", picky)), kinds=["hello"], count=30)
    rejected = [f for f in report.failures if f.category == VALID_REJECTED]
    assert rejected
    assert len(rejected[0].example) == 3  # shrunk to the smallest message that still has too many fields
    markdown = render_markdown(report)
    assert "Valid messages the consumer rejects" in markdown and "too many fields" in markdown


def test_python_consumer_timeout_is_a_hang(monkeypatch):
    def slow(message):
        while True:
            pass

    consumer = PythonConsumer(_install(monkeypatch, "slow", slow), timeout=0.2)
    assert consumer({"x": 1}).outcome == HANG


def test_python_consumer_none_means_ignored(monkeypatch):
    consumer = PythonConsumer(_install(monkeypatch, "skip", lambda message: None))
    assert consumer({}).outcome == IGNORE


@pytest.fixture
def process():
    consumer = ProcessConsumer([sys.executable, LINE_CONSUMER], timeout=1.0, startup=2.0)
    yield consumer
    consumer.close()


def test_line_protocol_answers(process):
    assert process({"a": 1}).outcome == ACCEPT
    verdict = process({"do": "reject"})
    assert (verdict.outcome, verdict.detail) == (REJECT, "because I was told to")
    assert process({"do": "ignore"}).outcome == IGNORE
    assert process({"do": "garble"}).outcome == CRASH


def test_line_protocol_hang_exit_and_restart(process):
    assert process({"do": "hang"}).outcome == HANG
    assert process({"a": 1}).outcome == ACCEPT  # restarted
    verdict = process({"do": "exit"})
    assert verdict.outcome == CRASH and "status 3" in verdict.detail and "consumer gives up" in verdict.detail
    assert process({"a": 1}).outcome == ACCEPT


def test_a_consumer_that_logs_a_lot_to_stderr_does_not_block(process):
    for _ in range(3):
        assert process({"do": "chatty"}).outcome == ACCEPT


def test_the_process_runs_with_a_scratch_home(process):
    assert process({"do": "home"}).outcome == ACCEPT


def test_no_shell_and_a_missing_program_is_a_clear_error():
    with pytest.raises(ValueError, match="no such executable"):
        ProcessConsumer(["definitely-not-a-program-wirecheck"])
