"""Certification fixtures: the harness's small Qoder-like contract (suites/harness/data/contracts) and framed
captures written from message lists."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from wirecheck.contracts import load_registry

CONTRACTS = Path(__file__).parents[1] / "harness" / "data" / "contracts"

INIT = {"type": "system", "subtype": "init", "session_id": "s", "protocol_version": "1.2.0"}
ASSISTANT = {"type": "assistant", "session_id": "s", "message": {}}
RESULT = {"type": "result", "subtype": "success", "is_error": False, "session_id": "s"}
INITIALIZE = {"type": "control_request", "request_id": "r1", "request": {"subtype": "initialize"}}
USAGE = {"type": "control_request", "request_id": "r2", "request": {"subtype": "get_context_usage"}}
USER = {"type": "user", "message": {"role": "user", "content": "hi"}}


def answer(request_id: str) -> dict:
    return {"type": "control_response", "response": {"subtype": "success", "request_id": request_id, "response": {}}}


GOOD_RUN = [("sdk", INITIALIZE), ("cli", INIT), ("cli", answer("r1")), ("sdk", USAGE), ("cli", answer("r2")),
            ("sdk", USER), ("cli", ASSISTANT), ("cli", RESULT)]


@pytest.fixture(scope="session")
def fake_registry():
    return load_registry(CONTRACTS)


@pytest.fixture(scope="session")
def fake(fake_registry):
    return fake_registry.load("fakeqoder@1.0.0")


@pytest.fixture
def framed(tmp_path):
    """Write (role, message-or-raw-bytes) pairs as a framed capture; returns the path."""

    def write(frames, name: str = "run.framed.ndjson") -> Path:
        path = tmp_path / name
        with path.open("wb") as out:
            out.write(b'{"wirecheck_capture": 1, "framing": "directed"}\n')
            for role, message in frames:
                body = message if isinstance(message, bytes) else orjson.dumps(message)
                out.write(b'{"from": "' + role.encode() + b'", "message": ' + body + b"}\n")
        return path

    return write
