"""ACP's kinds (importer/acp.py) and its bundled releases: the derivation, and that every committed release is what
`wirecheck import npm @agentclientprotocol/sdk@<version>` produces (offline: from the committed schema)."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path

import pytest
import yaml

from wirecheck.contracts import load_registry
from wirecheck.importer.acp import JSONRPC_DEFS, NoMethods, jsonrpc_kinds, kind_id, methods
from wirecheck.importer.profile import load_profile
from wirecheck.importer.shipped import Shipped, assemble
from wirecheck.importer.zod_urls import UrlRead, ZodSource
from wirecheck.pointer import parse_pointer, resolve

ROOT = Path(__file__).resolve().parents[2]
DIALECT = "https://json-schema.org/draft/2020-12/schema"
BASE = "https://contracts.wirecheck.invalid/acp/9.9.9"
ACP_RELEASES = load_registry(ROOT / "contracts").package("acp").releases

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
        "MessageMcpRequest": {"type": "object", "x-method": "mcp/message", "x-side": "both"},
        "MessageMcpResponse": {"type": "object", "x-method": "mcp/message", "x-side": "both"},
        "Plain": {"type": "string"},
    },
}


def derive(schema):
    return jsonrpc_kinds(schema, package="acp", version="9.9.9", base=BASE, source="sdk")


def test_kind_ids_are_catalog_ids():
    assert kind_id("agent", "session/new") == "agent.session.new"
    assert kind_id("client", "fs/read_text_file") == "client.fs.read_text_file"
    assert kind_id("protocol", "$/cancel_request") == "protocol.cancel_request"


def test_methods_pair_requests_with_responses_and_both_sides_receive_a_both_method():
    assert methods(TINY) == [
        {"method": "mcp/message", "side": "agent", "request": "MessageMcpRequest", "response": "MessageMcpResponse"},
        {"method": "session/new", "side": "agent", "request": "NewSessionRequest", "response": "NewSessionResponse"},
        {"method": "mcp/message", "side": "client", "request": "MessageMcpRequest",
         "response": "MessageMcpResponse"},
        {"method": "session/update", "side": "client", "notification": "SessionNotification"},
        {"method": "$/cancel_request", "side": "protocol", "notification": "CancelRequestNotification"},
    ]


def test_one_kind_per_method_with_envelope_reply_and_correlation():
    kinds_list, wire = derive(TINY)
    kinds = {k["id"]: k for k in kinds_list}
    assert set(kinds) == {"agent.session.new", "client.session.update", "protocol.cancel_request",
                          "agent.mcp.message", "client.mcp.message", "agent.response", "client.response"}
    new = kinds["agent.session.new"]
    assert new["producer"] == "client" and new["consumer"] == "agent"
    assert new["selector"] == {"fields": {"/jsonrpc": "2.0", "/method": "session/new"}}
    assert new["reply"] == {"at": "/result", "schema": "schema.json#/$defs/NewSessionResponse"}
    envelope = wire["$defs"]["agent.session.new"]
    assert envelope["required"] == ["jsonrpc", "id", "method"]
    assert envelope["properties"]["params"] == {"$ref": "schema.json#/$defs/NewSessionRequest"}
    assert envelope["properties"]["id"] == {"$ref": "schema.json#/$defs/RequestId"}
    assert "id" not in wire["$defs"]["client.session.update"]["properties"]
    assert kinds["agent.response"]["answers"] == "agent.*"
    assert kinds["agent.response"]["correlate"] == {"request": "/id", "response": "/id"}
    assert wire["$id"] == f"{BASE}/wire.json" and not set(JSONRPC_DEFS) & set(wire["$defs"])


def test_a_schema_without_request_id_or_error_gets_the_json_rpc_shapes():
    """0.4.x defines neither RequestId nor Error, 0.5.1 no RequestId: the envelopes used to point at nothing, and
    the releases written did not load."""
    early = {**TINY, "$defs": {k: v for k, v in TINY["$defs"].items() if k not in ("RequestId", "Error")}}
    _, wire = derive(early)
    assert wire["$defs"]["agent.session.new"]["properties"]["id"] == {"$ref": "#/$defs/jsonrpc.RequestId"}
    assert wire["$defs"]["agent.response"]["properties"]["error"] == {"$ref": "#/$defs/jsonrpc.Error"}
    assert wire["$defs"]["jsonrpc.RequestId"] == JSONRPC_DEFS["jsonrpc.RequestId"]


def test_a_schema_with_no_annotated_method_derives_no_kind():
    with pytest.raises(NoMethods, match="x-method and x-side"):
        derive({"$schema": DIALECT, "$defs": {"Plain": {"type": "string"}}})


def _published(committed: dict, zod_record: dict) -> dict:
    """The schema as npm ships it: the committed one without what the import added (its $id, x-imported-from,
    and each URL field's zod format, which import.yaml says it replaced)."""
    upstream = copy.deepcopy({"$schema": DIALECT, **{k: v for k, v in committed.items()
                                                     if k not in ("$schema", "$id", "x-imported-from")}})
    for entry in zod_record["fields"]:
        field = resolve(upstream, parse_pointer(entry["field"].removeprefix("#")))
        del field["x-provenance"]
        if entry["published_format"] is None:
            del field["format"]
        else:
            field["format"] = entry["published_format"]
    return upstream


def _zod_source(record: dict) -> ZodSource:
    dependency, _, zod_range = record["zod"].partition(" ")
    reads = tuple(UrlRead(f["definition"], f["property"], f["line"], f["code"]) for f in record["fields"])
    return ZodSource(record["source"], record["sha256"], record["module"], zod_range, dependency, reads)


@pytest.mark.parametrize("version", ACP_RELEASES)
def test_committed_release_is_what_the_importer_produces(version):
    """Offline: from the published schema (the committed one, the import's changes undone as import.yaml records
    them) and the zod source's URL reads as import.yaml records them. `wirecheck import npm ... --check` does the
    same from the registry."""
    folder = ROOT / "contracts" / "acp" / version
    committed = json.loads((folder / "schema.json").read_text(encoding="utf-8"))
    record = yaml.safe_load((folder / "import.yaml").read_text(encoding="utf-8"))
    source = committed["x-imported-from"]
    raw = json.dumps(_published(committed, record["zod_urls"])).encode()
    shipped = Shipped(source["package"], version, source["path"], raw, "Apache-2.0",
                      (folder / "LICENSE").read_text(encoding="utf-8"), record.get("integrity"),
                      record.get("shasum"), _zod_source(record["zod_urls"]))
    files = {name: text.replace(hashlib.sha256(raw).hexdigest(), source["sha256"])
             for name, text in assemble(load_profile("acp"), shipped).items()}
    for name, text in files.items():
        assert text == (folder / name).read_text(encoding="utf-8"), name
    assert "Apache License" in files["LICENSE"]
