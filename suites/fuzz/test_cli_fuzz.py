"""`wirecheck fuzz` and `wirecheck fuzz-consumer` as a user runs them (a real subprocess)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from wirecheck.contracts import load_registry
from wirecheck.contracts.reference import reference_validator
from wirecheck.fuzz.mutants import explain_rejection

DEMO = str(Path(__file__).resolve().parents[1] / "data" / "contracts")
LINE_CONSUMER = str(Path(__file__).parent / "data" / "line_consumer.py")


def wirecheck(*args, cwd=None):
    env = {**os.environ, "WIRECHECK_CONTRACTS": DEMO}
    proc = subprocess.run([sys.executable, "-m", "wirecheck", *args], capture_output=True, env=env, timeout=120,
                          cwd=cwd)
    assert b"Traceback" not in proc.stderr, proc.stderr.decode()
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def _lines(text):
    return [orjson.loads(line) for line in text.split("\n") if line]  # not splitlines: \x1c-\x1e, \u2028 are text


def test_fuzz_corpus_is_reproducible_and_valid():
    code, first, _ = wirecheck("fuzz", "demo@1.0.0", "--count", "5", "--seed", "3")
    assert code == 0
    assert wirecheck("fuzz", "demo@1.0.0", "--count", "5", "--seed", "3")[1] == first
    assert wirecheck("fuzz", "demo@1.0.0", "--count", "5", "--seed", "4")[1] != first
    release = load_registry(Path(DEMO)).load("demo@1.0.0")
    entries = _lines(first)
    assert {e["kind"] for e in entries} >= {"hello", "event", "job"}
    for entry in entries:
        assert entry["expect"] == "accept"
        validator = reference_validator({"$ref": release.kind(entry["kind"]).schema.uri}, release.resources)
        assert validator.is_valid(entry["message"]), entry


def test_fuzz_invalid_entries_carry_the_broken_constraint():
    code, out, _ = wirecheck("fuzz", "demo@1.0.0", "--kind", "event", "--count", "12", "--invalid")
    assert code == 0
    release = load_registry(Path(DEMO)).load("demo@1.0.0")
    validator = reference_validator({"$ref": release.kind("event").schema.uri}, release.resources)
    entries = _lines(out)
    assert len(entries) == 12
    assert len({(e["breaks"]["keyword"], e["breaks"]["pointer"]) for e in entries}) > 5  # spread over labels
    for entry in entries:
        label = (entry["breaks"]["keyword"], entry["breaks"]["pointer"])
        assert entry["expect"] == "reject"
        assert explain_rejection(validator, entry["message"], label) == [label]


def _coverage(capture: Path) -> tuple[int, dict[str, int]]:
    code, out, err = wirecheck("validate", "demo@1.0.0", str(capture), "--format", "json")
    report = orjson.loads(out)
    assert code == 0 and report["findings"] == [], out + err  # CONFORMS, and not a warning either
    return code, {c["kind"]: c["seen"] for c in report["coverage"] if c["seen"]}


def test_fuzz_messages_only_is_a_session_the_checker_passes(tmp_path):
    """A protocol-clean session: the handshake first, every request answered after it under an id of its own,
    FIELDS_EQUAL held; `wirecheck validate` judges it CONFORMS with no finding at all."""
    capture = tmp_path / "session.ndjson"
    release = load_registry(Path(DEMO)).load("demo@1.0.0")
    stream = {k.id for k in release.kinds if k.channel == "stdio-ndjson"}
    assert stream != {k.id for k in release.kinds}
    code, _, err = wirecheck("fuzz", "demo@1.0.0", "--messages-only", "--count", "3", "--output", str(capture))
    assert code == 0, err
    lines = [orjson.loads(line) for line in capture.read_bytes().splitlines()]
    assert lines[0] == {"wirecheck_capture": 1, "framing": "directed"}  # client and server both speak: framed
    assert lines[1]["message"]["type"] == "hello"  # the handshake (FIRST_MESSAGE_IS) first
    _, seen = _coverage(capture)
    # every stream kind, nothing but stream kinds; but the client's response envelope: no request goes to the
    # client (demo's one request kind is the client's own ping), and the note says so
    assert set(seen) == stream - {"response.client"}
    assert "some response.client messages are not in the session: it answers no request" in err
    # --kind narrows what is generated; what the protocol needs around it (the handshake, a request for each
    # response) comes along
    code, _, err = wirecheck("fuzz", "demo@1.0.0", "--messages-only", "--kind", "response.server", "--kind", "event",
                             "--output", str(capture))
    assert code == 0, err
    _, seen = _coverage(capture)
    assert {"hello", "event", "response.server", "request.ping"} <= set(seen) and "job" not in seen
    # --skip-kind leaves a kind out
    code, _, _ = wirecheck("fuzz", "demo@1.0.0", "--messages-only", "--skip-kind", "job", "--output", str(capture))
    assert code == 0 and "job" not in _coverage(capture)[1]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--kind", "item.response"], "not a stream kind: item.response (http)"),
        (["--kind", "config.file"], "not a stream kind: config.file (file)"),
    ],
)
def test_fuzz_messages_only_says_why_no_session_can_be_written(tmp_path, args, message):
    capture = tmp_path / "none.ndjson"
    code, _, err = wirecheck("fuzz", "demo@1.0.0", "--messages-only", *args, "--output", str(capture))
    assert code == 2 and "no protocol-clean session of demo@1.0.0" in err and message in err, err
    assert not capture.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["fuzz", "demo@1.0.0", "--kind", "nope"], "--kind nope: matches no fuzzable kind"),
        (["fuzz", "demo@1.0.0", "--skip-kind", "*"], "no kinds left to fuzz"),
        (["fuzz", "demo@9.9.9"], "unknown release"),
        (["fuzz-consumer", "demo@1.0.0"], "exactly one consumer"),
        (["fuzz-consumer", "demo@1.0.0", "--python", "no_such_module_x:f"], "cannot load the consumer"),
        (["fuzz-consumer", "demo@1.0.0", "--role", "nobody", "--", "true"], "roles"),
        (["fuzz-consumer", "demo@1.0.0", "--kind", "zzz*", "--", "true"], "matches no fuzzable kind"),
    ],
)
def test_usage_errors_exit_2(args, message):
    code, _, err = wirecheck(*args)
    assert code == 2 and message in err, err


def test_fuzz_consumer_over_the_line_protocol(tmp_path):
    report = tmp_path / "report.json"
    code, out, _ = wirecheck(
        "fuzz-consumer", "demo@1.0.0", "--kind", "hello", "--count", "8", "--json", str(report),
        "--", sys.executable, LINE_CONSUMER,
    )
    assert code == 1  # it accepts everything, so it accepts the mutants
    data = orjson.loads(report.read_bytes())
    assert data["wirecheck_consumer_fuzz"] == 1 and data["totals"]["invalid-accepted"] > 0
    assert data["kinds"]["hello"]["valid"] == {"accept": 8}
    assert "Invalid messages the consumer accepts" in out


@pytest.fixture
def oversized(tmp_path):
    """The demo contracts with one kind (event) whose every message holds a 2^31-character string."""
    root = tmp_path / "contracts"
    shutil.copytree(DEMO, root)
    path = root / "demo/1.0.0/stream.json"
    schema = orjson.loads(path.read_bytes())
    for branch in schema["$defs"]["Event"]["properties"]["payload"]["oneOf"]:
        branch["properties"]["huge"] = {"type": "string", "minLength": 2_147_483_647}
        branch["required"].append("huge")
    path.write_bytes(orjson.dumps(schema))
    return root


def test_a_kind_no_generator_can_make_is_named_and_the_rest_still_written(oversized, tmp_path):
    env = ["--contracts", str(oversized)]
    code, out, err = wirecheck("fuzz", "demo@1.0.0", "--count", "2", *env)
    assert code == 2 and "demo@1.0.0 kind event: no message could be generated" in err, err
    kinds = {e["kind"] for e in _lines(out)}
    assert "hello" in kinds and "event" not in kinds
    code, out, err = wirecheck("fuzz", "demo@1.0.0", "--count", "2", "--invalid", "--skip-kind", "ev*", *env)
    assert code == 0 and "event" not in {e["kind"] for e in _lines(out)}, err
    report = tmp_path / "report.json"
    code, out, err = wirecheck("fuzz-consumer", "demo@1.0.0", "--kind", "hello", "--kind", "event", "--count", "3",
                               "--json", str(report), *env, "--", sys.executable, LINE_CONSUMER)
    data = orjson.loads(report.read_bytes())
    assert code == 2 and "kind event: no message could be generated" in err
    assert set(data["not_generated"]) == {"event"} and set(data["kinds"]) == {"hello"}
    assert "## Kinds not tested" in out and "- `event`:" in out
