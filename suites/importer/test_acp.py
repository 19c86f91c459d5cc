"""The ACP importer (importer/acp.py): the pure conversion, and that the committed contract is what it produces."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from wirecheck.importer.acp import DIALECT, convert, kind_id, methods

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "contracts" / "acp" / "2.4.0"

TINY = {
    "$schema": DIALECT,
    "title": "Agent Client Protocol",
    "$defs": {
        "RequestId": {"anyOf": [{"type": "null"}, {"type": "integer"}, {"type": "string"}]},
        "Error": {"type": "object", "required": ["code", "message"]},
        "NewSessionRequest": {"type": "object", "required": ["cwd"], "x-method": "session/new", "x-side": "agent"},
        "NewSessionResponse": {"type": "object", "required": ["sessionId"],
                               "x-method": "session/new", "x-side": "agent"},
        "SessionNotification": {"type": "object", "x-method": "session/update", "x-side": "client"},
        "CancelRequestNotification": {"type": "object", "x-method": "$/cancel_request", "x-side": "protocol"},
        "Plain": {"type": "string"},
    },
}


def test_kind_ids_are_catalog_ids():
    assert kind_id("agent", "session/new") == "agent.session.new"
    assert kind_id("client", "fs/read_text_file") == "client.fs.read_text_file"
    assert kind_id("protocol", "$/cancel_request") == "protocol.cancel_request"


def test_methods_pair_requests_with_responses_by_annotation():
    assert methods(TINY) == [
        {"method": "session/new", "side": "agent", "request": "NewSessionRequest", "response": "NewSessionResponse"},
        {"method": "session/update", "side": "client", "notification": "SessionNotification"},
        {"method": "$/cancel_request", "side": "protocol", "notification": "CancelRequestNotification"},
    ]


def test_convert_keeps_upstream_and_adds_id_and_provenance():
    files = convert(TINY, sdk_version="9.9.9", sha256="ab" * 32, license_name="Apache-2.0")
    upstream = files["schema.json"]
    assert upstream["$id"] == "https://contracts.wirecheck.invalid/acp/9.9.9/schema.json"
    assert upstream["$defs"] == TINY["$defs"]
    assert upstream["x-imported-from"]["version"] == "9.9.9"
    assert "LICENSE" in upstream["x-imported-from"]["license"]


def test_convert_makes_one_kind_per_method_with_envelope_reply_and_correlation():
    files = convert(TINY, sdk_version="9.9.9", sha256="ab" * 32, license_name="Apache-2.0")
    kinds = {k["id"]: k for k in files["catalog"]["kinds"]}
    assert set(kinds) == {"agent.session.new", "client.session.update", "protocol.cancel_request",
                          "agent.response", "client.response"}
    new = kinds["agent.session.new"]
    assert new["producer"] == "client" and new["consumer"] == "agent"
    assert new["selector"] == {"fields": {"/jsonrpc": "2.0", "/method": "session/new"}}
    assert new["reply"] == {"at": "/result", "schema": "schema.json#/$defs/NewSessionResponse"}
    envelope = files["wire.json"]["$defs"]["agent.session.new"]
    assert envelope["required"] == ["jsonrpc", "id", "method"]
    assert envelope["properties"]["params"] == {"$ref": "schema.json#/$defs/NewSessionRequest"}
    notification = files["wire.json"]["$defs"]["client.session.update"]
    assert "id" not in notification["properties"]
    assert kinds["agent.response"]["answers"] == "agent.*"
    assert kinds["agent.response"]["correlate"] == {"request": "/id", "response": "/id"}
    assert files["catalog"]["wire_version"] == "1"


def test_convert_refuses_another_dialect():
    with pytest.raises(ValueError, match="2020-12"):
        convert({**TINY, "$schema": "http://json-schema.org/draft-07/schema#"},
                sdk_version="1.0.0", sha256="", license_name="MIT")


def test_committed_contract_is_what_the_importer_produces():
    committed = json.loads((COMMITTED / "schema.json").read_text(encoding="utf-8"))
    source = committed["x-imported-from"]
    upstream = {k: v for k, v in committed.items() if k not in ("$id", "x-imported-from")}
    files = convert(upstream, sdk_version=source["version"], sha256=source["sha256"], license_name="Apache-2.0")
    assert files["schema.json"] == committed
    assert files["wire.json"] == json.loads((COMMITTED / "wire.json").read_text(encoding="utf-8"))
    assert files["catalog"] == yaml.safe_load((COMMITTED / "catalog.yaml").read_text(encoding="utf-8"))
    assert "Apache License" in (COMMITTED / "LICENSE").read_text(encoding="utf-8")
