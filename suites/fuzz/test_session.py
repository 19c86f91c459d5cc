"""`wirecheck fuzz --messages-only` (fuzz/session.py): for every bundled release, a session `wirecheck validate`
judges CONFORMS with no finding at all, or — only for a release without stream kinds — a refusal saying why."""

from __future__ import annotations

import os
import subprocess
import sys
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
    streams = [k for k in release.kinds if k.channel == STREAM and k.schema is not None]
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


def test_the_issue_example_pipes_into_validate_and_conforms() -> None:
    """Issue 18: `wirecheck fuzz qoder-agent-sdk@1.0.23 --messages-only | wirecheck validate ... -` FAILED (first
    message not system.init, duplicate responses, protocol_version not semver)."""
    fuzz = subprocess.run([sys.executable, "-m", "wirecheck", "fuzz", "qoder-agent-sdk@1.0.23", "--messages-only",
                           "--count", "3"], capture_output=True, timeout=600, check=False)
    assert fuzz.returncode == 0, fuzz.stderr.decode()
    validate = subprocess.run([sys.executable, "-m", "wirecheck", "validate", "qoder-agent-sdk@1.0.23", "-",
                               "--format", "json"], input=fuzz.stdout, capture_output=True, timeout=600, check=False)
    report = orjson.loads(validate.stdout)
    assert validate.returncode == 0 and report["findings"] == [], report["findings"][:3]
    lines = [orjson.loads(line) for line in fuzz.stdout.splitlines()]
    first_cli = next(line["message"] for line in lines[1:] if line["from"] == "cli")
    assert first_cli["type"] == "system" and first_cli["subtype"] == "init"
    versions = [line["message"].get("protocol_version") for line in lines[1:]
                if line["message"].get("subtype") == "init" and line["from"] == "cli"]
    assert versions and all(v is None or v.split(".")[0] == release_major("qoder-agent-sdk@1.0.23") for v in versions)


def release_major(spec: str) -> str:
    return str(_release(spec).wire_version).split(".")[0]


def test_a_sequence_rule_no_session_can_satisfy_is_refused(demo) -> None:
    """A release that turns a rule about HTTP worker runs on for a stream kind gets no session, and is told why."""
    import dataclasses

    from wirecheck.contracts.model import RuleUse

    odd = dataclasses.replace(demo, rules=(*demo.rules, RuleUse("XOPC_RUN_LIFECYCLE", ("event",), {})))
    with pytest.raises(NoCleanSession, match="XOPC_RUN_LIFECYCLE is turned on for the stream kind"):
        session(odd, count=1)
