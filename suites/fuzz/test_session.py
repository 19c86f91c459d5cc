"""`wirecheck fuzz --messages-only` (fuzz/session.py): for every bundled release, a session `wirecheck validate`
judges CONFORMS with no finding at all, or — only for a release without stream kinds — a refusal saying why. Checked
twice: through the engine (many seeds under the `thorough` profile), and as a user runs it, the two commands joined
by a pipe."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from functools import cache
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wirecheck.capture import CaptureFile
from wirecheck.check.engine import Engine
from wirecheck.contracts import load_registry
from wirecheck.fuzz.session import STREAM, NoCleanSession, session

REGISTRY = load_registry()
THOROUGH = os.environ.get("HYPOTHESIS_PROFILE") == "thorough"


@cache
def _release(spec: str):
    return REGISTRY.load(spec)


def _streams(release):
    """The release's stream kinds with a schema: what a session is made of."""
    return [k for k in release.kinds if k.channel == STREAM and k.schema is not None]


SPECS = [f"{name}@{version}" for name, package in REGISTRY.packages.items() for version in package.releases]


def _validate(release, path: Path):
    """What `wirecheck validate` finds: the engine over the file as a capture, every finding kept."""
    found = []
    result = Engine(release).run([CaptureFile(str(path))], on_finding=found.append)
    return result, found


@pytest.mark.parametrize("spec", SPECS)
@settings(max_examples=10 if THOROUGH else 1, deadline=None)
@given(seed=st.integers(0, 2**16))
def test_every_release_gets_a_clean_session_or_says_why(spec, seed, tmp_path_factory) -> None:
    release = _release(spec)
    streams = _streams(release)
    try:
        built = session(release, count=3, seed=seed)
    except NoCleanSession as exc:
        assert not streams, f"{spec}: {exc}"  # only a release without stream kinds may refuse
        assert "no stdio-ndjson kinds" in str(exc)
        return
    path = tmp_path_factory.mktemp("session") / "session.ndjson"
    path.write_bytes(b"".join(built.ndjson()))
    result, findings = _validate(release, path)
    assert findings == [], [f"{f.line} {f.code} {f.message}" for f in findings[:5]]
    assert result.unclassified == 0 and result.messages == len(built.lines)
    seen = {kind for kind, coverage in result.coverage.items() if coverage.seen}
    # every stream kind is in it but a response nobody can be sent a request for (said so in left_out)
    assert {k.id for k in streams} - seen <= set(built.left_out), (spec, {k.id for k in streams} - seen)
    assert built.framed == (len({k.producer for k in streams if k.id in seen}) > 1)


def test_a_sequence_rule_no_session_can_satisfy_is_refused(demo) -> None:
    """A release that turns a rule about HTTP worker runs on for a stream kind gets no session, and is told why."""
    import dataclasses

    from wirecheck.contracts.model import RuleUse

    odd = dataclasses.replace(demo, rules=(*demo.rules, RuleUse("XOPC_RUN_LIFECYCLE", ("event",), {})))
    with pytest.raises(NoCleanSession, match="XOPC_RUN_LIFECYCLE is turned on for the stream kind"):
        session(odd, count=1)


# -- the same, as a user runs it: `wirecheck fuzz ... --messages-only | wirecheck validate ... -` ---------------------
PIPE_DEADLINE = 300  # seconds for the whole pipe; a hang fails the test instead of holding the run
NOTE = re.compile(r"^wirecheck fuzz: note: some (\S+) messages are not in the session", re.MULTILINE)


def _wirecheck(*args: str) -> list[str]:
    return [sys.executable, "-m", "wirecheck", *args]


def _pipe(spec: str, stderr_file: Path) -> tuple[int, int, dict, str]:
    """`wirecheck fuzz SPEC --messages-only | wirecheck validate SPEC - --format json` as a shell runs it: two
    processes joined by an OS pipe (no shell), the bundled contracts, each in a session of its own, both killed
    with everything they started if the pipe is not done by the deadline. (fuzz rc, validate rc, the report, fuzz's
    stderr)."""
    env = {k: v for k, v in os.environ.items() if k != "WIRECHECK_CONTRACTS"}
    started: list[subprocess.Popen] = []
    try:
        with stderr_file.open("wb") as fuzz_err:
            fuzz = subprocess.Popen(_wirecheck("fuzz", spec, "--messages-only", "--count", "2", "--seed", "1"),
                                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=fuzz_err, env=env,
                                    start_new_session=True)
            started.append(fuzz)
            validate = subprocess.Popen(_wirecheck("validate", spec, "-", "--format", "json"), stdin=fuzz.stdout,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                        start_new_session=True)
            started.append(validate)
            assert fuzz.stdout is not None
            fuzz.stdout.close()  # validate holds the reading end now, as in a shell
            end = time.monotonic() + PIPE_DEADLINE  # for the whole pipe
            out, err = validate.communicate(timeout=PIPE_DEADLINE)
            fuzz.wait(timeout=max(0.0, end - time.monotonic()))
    finally:
        for process in started:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
    fuzz_stderr = stderr_file.read_text()
    assert "Traceback" not in fuzz_stderr and b"Traceback" not in err, fuzz_stderr + err.decode()
    return fuzz.returncode, validate.returncode, orjson.loads(out), fuzz_stderr


@pytest.mark.parametrize("spec", SPECS)
def test_fuzz_messages_only_piped_into_validate_conforms(spec, tmp_path) -> None:
    """Every bundled release with stream kinds: the pipe exits 0 on both sides, and validate says CONFORMS with no
    finding at all (no info either), every message classified, every stream kind seen but a response no request
    of the session can be sent for (which fuzz names on stderr), and each sequence rule's handshake there. (Issue
    18's example was `qoder-agent-sdk@1.0.23`: first message not system.init, duplicate responses,
    protocol_version not semver.) A release without stream kinds: fuzz refuses with its reason and writes nothing,
    and validate, reading nothing, does not pass either (exit 4): a pipe without `pipefail` is not green."""
    release = _release(spec)
    streams = {k.id for k in _streams(release)}
    fuzz_code, validate_code, report, fuzz_stderr = _pipe(spec, tmp_path / "fuzz.stderr")
    summary = report["summary"]
    if not streams:
        assert fuzz_code == 2, fuzz_stderr
        assert f"no protocol-clean session of {spec}" in fuzz_stderr and "has no stdio-ndjson kinds" in fuzz_stderr
        assert validate_code == 4 and summary["messages"] == 0, summary
        assert [f["code"] for f in report["findings"]] == ["EMPTY_CAPTURE"]
        return
    assert fuzz_code == 0, fuzz_stderr
    assert report["findings"] == [], report["findings"][:3]
    assert validate_code == 0 and summary["verdict"] == "conforms", summary
    assert summary["messages"] > 0 and summary["unclassified"] == 0, summary
    seen = {c["kind"] for c in report["coverage"] if c["seen"]}
    assert streams - seen <= set(NOTE.findall(fuzz_stderr)), (streams - seen, fuzz_stderr)
    handshakes = {use.params["kind"] for use in release.rules if use.id == "FIRST_MESSAGE_IS"}
    assert handshakes <= seen, handshakes - seen


def test_a_session_sends_no_message_a_leads_to_starts_from_and_says_so() -> None:
    """acp@2.4.0's cancel obligations (leads_to after session/cancel): the session sends no session/cancel, so no
    turn is owed a cancelled end, and left_out says why (before, such a release got no session at all)."""
    built = session(_release("acp@2.4.0"), count=3, seed=1)
    assert "agent.session.cancel" in built.left_out
    assert "so nothing is owed after one" in built.left_out["agent.session.cancel"]
    assert not [line for line in built.ndjson() if b'"session/cancel"' in line]
