"""Consumer fuzzing finds what a consumer gets wrong, in every category, with minimal examples."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
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


class _Custom(BaseException):
    """A BaseException that is not an Exception, as some libraries define."""


def _exits(message):
    sys.exit(3)


def _exits_quietly(message):
    sys.exit()


def _generator_exit(message):
    raise GeneratorExit("closing")


def _custom(message):
    raise _Custom("escaped")


def _self_interrupt(message):
    raise KeyboardInterrupt("not the user")


@pytest.mark.parametrize(("function", "name"), [
    (_exits, "SystemExit"), (_exits_quietly, "SystemExit"), (_generator_exit, "GeneratorExit"),
    (_custom, "_Custom"), (_self_interrupt, "KeyboardInterrupt"),
])
def test_a_base_exception_from_the_consumer_is_its_crash_not_the_end_of_the_run(monkeypatch, function, name):
    consumer = PythonConsumer(_install(monkeypatch, function.__name__, function))
    try:
        verdict = consumer({"x": 1})
    except BaseException as exc:  # a KeyboardInterrupt escaping would end the pytest session, not fail this test
        pytest.fail(f"{type(exc).__name__} escaped from the consumer into the run")
    assert verdict.outcome == CRASH
    assert verdict.signature.startswith(f"{name} at test_consumer.py:"), verdict
    assert consumer({"x": 2}).outcome == CRASH  # and the next message is still fed


def test_a_consumer_calling_sys_exit_is_reported_as_a_crash_with_a_minimal_example(demo, monkeypatch):
    report = fuzz_consumer(demo, PythonConsumer(_install(monkeypatch, "exits", _exits)), kinds=["hello"], count=5)
    assert report.failed
    crashes = [f for f in report.failures if f.category == CRASH]
    assert [f.signature.split(" at ")[0] for f in crashes] == ["SystemExit"]
    assert crashes[0].verdict.detail.startswith("SystemExit: 3 at test_consumer.py:")
    assert crashes[0].shrunk and crashes[0].count == 10  # 5 valid messages and 5 mutants, all seen


def test_shrinking_survives_a_consumer_that_exits_on_messages_only_shrinking_feeds_it(demo, monkeypatch):
    """The shrinker runs the consumer on new messages: one of them calling sys.exit() is a different crash
    (not the one being shrunk), not the end of wirecheck."""
    state = {"shrinking": False, "exits": 0}

    def moody(message):
        if state["shrinking"] and isinstance(message, dict) and len(message) <= 2:
            state["exits"] += 1
            sys.exit(9)
        raise RuntimeError("always fails")

    def progress(text):
        state["shrinking"] = state["shrinking"] or text.startswith("shrinking")

    consumer = PythonConsumer(_install(monkeypatch, "moody", moody))
    report = fuzz_consumer(demo, consumer, kinds=["hello"], count=5, invalid=False, progress=progress)
    assert state["exits"] > 0  # the shrinker did meet the exiting branch
    (crash,) = report.failures
    assert crash.signature.startswith("RuntimeError at test_consumer.py:") and crash.shrunk
    assert crash.verdict.outcome == CRASH and len(crash.example) == 3  # the smallest that does not exit


@pytest.mark.parametrize("rejects", [(), ("builtins:BaseException",)])
def test_a_real_ctrl_c_still_stops_the_run(monkeypatch, rejects):
    """Even when every exception means "rejected" (`--reject-exception builtins:BaseException`)."""
    def interrupted(message):
        signal.raise_signal(signal.SIGINT)  # as if the user pressed Ctrl-C while the consumer ran
        return message

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        consumer = PythonConsumer(_install(monkeypatch, "interrupted", interrupted), rejects=rejects)
        with pytest.raises(KeyboardInterrupt):
            consumer({"x": 1})
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the handler is given back
    finally:
        signal.signal(signal.SIGINT, previous)


def test_python_consumer_that_cannot_be_loaded_is_a_clear_error(monkeypatch, tmp_path):
    (tmp_path / "wirecheck_exits_on_import.py").write_text("import sys\nsys.exit(4)\n")
    (tmp_path / "wirecheck_fails_on_import.py").write_text("raise RuntimeError('no config')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ImportError, match="importing 'wirecheck_exits_on_import' raised SystemExit: 4"):
        PythonConsumer("wirecheck_exits_on_import:f")
    with pytest.raises(ImportError, match="raised RuntimeError: no config"):
        PythonConsumer("wirecheck_fails_on_import:f")
    target = _install(monkeypatch, "strict", lambda message: message)
    with pytest.raises(ValueError, match="not callable"):
        PythonConsumer("os:sep")
    with pytest.raises(ValueError, match="os:sep: not an exception class"):
        PythonConsumer(target, rejects=["os:sep"])
    with pytest.raises(ValueError, match="KeyboardInterrupt cannot mean a rejection"):
        PythonConsumer(target, rejects=["builtins:KeyboardInterrupt"])


def test_fuzz_consumer_command_keeps_its_exit_code_when_the_consumer_calls_sys_exit(tmp_path):
    """`sys.exit(0)` in the consumer used to end wirecheck with status 0 and no report: a silent pass."""
    (tmp_path / "wirecheck_exit_zero.py").write_text("import sys\n\ndef consume(message):\n    sys.exit(0)\n")
    env = {**os.environ, "WIRECHECK_CONTRACTS": str(Path(__file__).resolve().parents[1] / "data" / "contracts"),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run(
        [sys.executable, "-m", "wirecheck", "fuzz-consumer", "demo@1.0.0", "--kind", "hello", "--count", "3",
         "--python", "wirecheck_exit_zero:consume"],
        capture_output=True, env=env, timeout=120, check=False,
    )
    out, err = proc.stdout.decode(), proc.stderr.decode()
    assert proc.returncode == 1, (out, err)
    assert "Traceback" not in err
    assert "SystemExit: 0 at wirecheck_exit_zero.py:4" in out


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
    with pytest.raises(ValueError, match="'definitely-not-a-program-wirecheck': not found on PATH"):
        ProcessConsumer(["definitely-not-a-program-wirecheck"])


def test_a_consumer_that_does_not_read_a_large_message_hangs_without_holding_the_run(tmp_path):
    """More than a pipe holds, to a consumer that never reads: the write gives up at the timeout."""
    consumer = ProcessConsumer([sys.executable, "-c", "import time; time.sleep(120)"], timeout=1.0, startup=1.0)
    try:
        verdict = consumer({"big": "x" * (1 << 20)})
    finally:
        consumer.close()
    assert verdict.outcome == HANG and "of the message's 1048587 bytes within 2 s" in verdict.detail, verdict


def test_a_consumer_that_answers_without_a_line_end_is_a_protocol_error_not_growing_memory():
    consumer = ProcessConsumer([sys.executable, "-c", "import sys\nwhile True: sys.stdout.write('a' * 65536)"],
                               timeout=30.0, startup=30.0)
    try:
        verdict = consumer({"a": 1})
    finally:
        consumer.close()
    assert verdict.outcome == CRASH and "an answer longer than 65536 bytes" in verdict.detail, verdict


def test_a_terminated_fuzz_consumer_ends_its_consumer(tmp_path):
    consumer = tmp_path / "consumer.py"
    pidfile = tmp_path / "consumer.pid"
    consumer.write_text("import os, sys, time\n"
                        f"open({str(pidfile)!r} + '.tmp', 'w').write(str(os.getpid()))\n"
                        f"os.rename({str(pidfile)!r} + '.tmp', {str(pidfile)!r})\n"
                        "time.sleep(120)\n")
    env = {**os.environ, "WIRECHECK_CONTRACTS": str(Path(__file__).resolve().parents[1] / "data" / "contracts")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "wirecheck", "fuzz-consumer", "demo@1.0.0", "--kind", "hello", "--count", "3",
         "--timeout", "100", "--", sys.executable, str(consumer)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        deadline = time.monotonic() + 60
        while not pidfile.is_file():
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 128 + signal.SIGTERM and b"Traceback" not in err, err
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 30
    while Path(f"/proc/{pid}").exists() and "Z" not in Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2][:3]:
        assert time.monotonic() < deadline, f"the consumer {pid} outlived fuzz-consumer"
        time.sleep(0.05)


def test_a_process_consumer_that_never_speaks_is_a_run_failure_quoting_its_words(tmp_path):
    """A consumer that exits before writing a byte (not logged in, the wrong program) gives no verdict on any
    message: exit 5, the report says the run failed and quotes its last stderr line."""
    import orjson

    words = "Not logged in · Please run /login"
    env = {**os.environ, "WIRECHECK_CONTRACTS": str(Path(__file__).resolve().parents[1] / "data" / "contracts")}
    proc = subprocess.run(
        [sys.executable, "-m", "wirecheck", "fuzz-consumer", "demo@1.0.0", "--kind", "hello", "--count", "2",
         "--valid-only", "--no-shrink", "--timeout", "1", "--json", str(tmp_path / "r.json"),
         "--markdown", str(tmp_path / "r.md"), "--", sys.executable, "-c",
         f"import sys; print({words!r}, file=sys.stderr); sys.exit(1)"],
        capture_output=True, env=env, timeout=120, check=False,
    )
    err = proc.stderr.decode()
    assert proc.returncode == 5, err
    assert "RUN FAILED" in err and words in err
    data = orjson.loads((tmp_path / "r.json").read_bytes())
    assert data["run"]["failed"] is True and data["run"]["program_said"] == words
    assert "RUN FAILED" in (tmp_path / "r.md").read_text() and words in (tmp_path / "r.md").read_text()
    import jsonschema
    import yaml

    import wirecheck.fuzz

    schemas = yaml.safe_load((Path(wirecheck.fuzz.__file__).parent / "outputs.schema.yaml").read_text())
    jsonschema.Draft202012Validator(schemas["consumer_report"]).validate(data)  # the run section is published


def test_a_process_consumer_that_floods_stderr_before_exiting_is_quoted_by_its_last_words(tmp_path):
    """The consumer's stderr is read through programs.tail (it used to go to a file in the scratch folder, growing
    with what the consumer wrote): its last words are quoted, the cut inside a character dropped."""
    import orjson

    words = "Not logged in · Please run /login"
    env = {**os.environ, "WIRECHECK_CONTRACTS": str(Path(__file__).resolve().parents[1] / "data" / "contracts")}
    proc = subprocess.run(
        [sys.executable, "-m", "wirecheck", "fuzz-consumer", "demo@1.0.0", "--kind", "hello", "--count", "2",
         "--valid-only", "--no-shrink", "--timeout", "1", "--json", str(tmp_path / "r.json"), "--", sys.executable,
         "-c", "import sys\nfor _ in range(1 << 12):\n    sys.stderr.write('€' * 1000 + '\\n')\n"
               f"print({words!r}, file=sys.stderr); sys.exit(1)"],
        capture_output=True, env=env, timeout=120, check=False,
    )
    assert proc.returncode == 5, proc.stderr[-2000:]
    said = orjson.loads((tmp_path / "r.json").read_bytes())["run"]["program_said"]
    assert said.endswith(f"€ / {words}") and "\ufffd" not in said
