"""Message kinds of the Agent Client Protocol (ACP) v1, from the JSON Schema its npm SDK ships: `jsonrpc-methods`.

    wirecheck import npm @agentclientprotocol/sdk@2.4.0       # profile importer/profiles/acp.yaml → contracts/acp/2.4.0
    python -m wirecheck.importer.shipped --profile acp --package-dir ./package   # an extracted tarball, offline

The SDK ships `schema/v1/schema.json` (2.0.0 and later) or `schema/schema.json` (0.4.5 – 1.9.0): one `$defs` entry
per type, each method's request, response and notification type marked with `x-method` and `x-side` (the side
that receives it). The shipped-schema importer (`shipped.py`) keeps that schema as `schema.json`; this module adds
`wire.json`, which wraps each method's params in its JSON-RPC envelope so every method is its own message kind
(selected by `/method`), with the typed result checked against the method's response type (`reply:`).

Schemas before 0.7.0 define no `RequestId` (0.4.x no `Error` either): the envelopes then use the JSON-RPC 2.0
shapes kept in `wire.json` itself (`jsonrpc.RequestId`, `jsonrpc.Error`), as the later schemas define them.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

OTHER_SIDE = {"agent": "client", "client": "agent"}
BOTH_SIDES = ("agent", "client")  # `x-side: both` (0.22.0 – 1.5.1 mcp/message): a kind for each receiver
# JSON-RPC 2.0 (jsonrpc.org/specification §4, §5.1) as ACP's own schemas spell it from 0.7.0 (RequestId) and
# 0.5.1 (Error): for the early schemas that leave these types out, so no envelope refers to nothing.
JSONRPC_DEFS: dict[str, Any] = {
    "jsonrpc.RequestId": {
        "description": "JSON-RPC 2.0 §4: a String, Number, or Null (the shape ACP's RequestId has from 0.7.0; "
                       "this schema defines none)",
        "anyOf": [{"type": "null"}, {"type": "integer", "format": "int64"}, {"type": "string"}],
    },
    "jsonrpc.Error": {
        "description": "JSON-RPC 2.0 §5.1: the error object (the shape ACP's Error has from 0.5.1; this schema "
                       "defines none)",
        "type": "object",
        "required": ["code", "message"],
        "properties": {"code": {"type": "integer", "format": "int32"}, "message": {"type": "string"}, "data": {}},
    },
}


# JSON-RPC 2.0 §5: a response has `id` and exactly one of `result` and `error`; it has no `method` (§4: requests
# and notifications have one). The selector says so, so a request for an unknown method is never taken for one.
RESPONSE_SELECTOR: dict[str, Any] = {
    "absent": ["/method"],
    "any": [{"fields": {"/jsonrpc": "2.0"}, "present": ["/id", "/result"]},
            {"fields": {"/jsonrpc": "2.0"}, "present": ["/id", "/error"]}],
}


def kind_id(side: str, method: str) -> str:
    """`session/new` received by the agent → `agent.session.new`; `$/cancel_request` → `protocol.cancel_request`."""
    return f"{side}.{re.sub(r'[^a-z0-9_]+', '.', method.lower()).strip('.')}"


def methods(schema: Mapping[str, Any]) -> list[dict[str, str]]:
    """Every method of the protocol, from the `x-method`/`x-side` annotations of the upstream `$defs`.

    Returns [{method, side, request?, response?, notification?}] sorted by side and method, where the values are
    `$defs` names. A type ending in Request with a matching Response is a request; one ending in Notification is
    a notification. A method annotated `x-side: both` is received by either side: it is listed once per side.
    """
    table: dict[tuple[str, str], dict[str, str]] = {}
    for name, definition in schema.get("$defs", {}).items():
        if not isinstance(definition, dict):
            continue
        method, side = definition.get("x-method"), definition.get("x-side")
        if not (isinstance(method, str) and isinstance(side, str)):
            continue
        for receiver in BOTH_SIDES if side == "both" else (side,):  # "both": either side receives it
            entry = table.setdefault((receiver, method), {"method": method, "side": receiver})
            for suffix, role in (("Request", "request"), ("Response", "response"),
                                 ("Notification", "notification")):
                if name.endswith(suffix):
                    entry[role] = name
    return [table[key] for key in sorted(table)]


def _jsonrpc_refs(schema: Mapping[str, Any]) -> tuple[str, str]:
    defs = schema.get("$defs", {})
    request_id = "schema.json#/$defs/RequestId" if "RequestId" in defs else "#/$defs/jsonrpc.RequestId"
    error = "schema.json#/$defs/Error" if "Error" in defs else "#/$defs/jsonrpc.Error"
    return request_id, error


def _envelope(entry: Mapping[str, str], request_id: str) -> dict[str, Any]:
    is_request = "request" in entry
    params = entry["request"] if is_request else entry["notification"]
    properties: dict[str, Any] = {
        "jsonrpc": {"const": "2.0"},
        "method": {"const": entry["method"]},
        "params": {"$ref": f"schema.json#/$defs/{params}"},
    }
    required = ["jsonrpc", "method"]
    if is_request:
        properties["id"] = {"$ref": request_id}
        required.insert(1, "id")
    return {
        "description": f"JSON-RPC {'request' if is_request else 'notification'} `{entry['method']}` "
        f"({entry['side']} receives it); params: {params}",
        "type": "object",
        "required": required,
        "properties": properties,
    }


def _response_envelope(side: str, request_id: str, error: str) -> dict[str, Any]:
    return {
        "description": f"A JSON-RPC response sent by the {side}: a result (checked against the type of the request "
        "it answers, matched by id) or an error.",
        "type": "object",
        "required": ["jsonrpc", "id"],
        "properties": {
            "jsonrpc": {"const": "2.0"},
            "id": {"$ref": request_id},
            "result": True,
            "error": {"$ref": error},
        },
        "oneOf": [{"required": ["result"]}, {"required": ["error"]}],
    }


class NoMethods(ValueError):
    """The schema names no method (no `x-method`/`x-side` annotations): no kind can be derived from it."""


def jsonrpc_kinds(schema: Mapping[str, Any], *, package: str, version: str, base: str, source: str
                  ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(catalog kinds, the `wire.json` resource) for one release: one kind per method the schema annotates, one per
    responding side. Pure; `schema` is the 2020-12 schema as `schema.json` holds it."""
    table = methods(schema)
    if not any("request" in e or "notification" in e for e in table):
        raise NoMethods("no $defs entry carries x-method and x-side annotations, so no message kind can be "
                        "derived (profile kinds: jsonrpc-methods)")
    request_id, error = _jsonrpc_refs(schema)
    wire_defs: dict[str, Any] = {}
    kinds: list[dict[str, Any]] = []
    for entry in table:
        if "request" not in entry and "notification" not in entry:
            continue
        kid = kind_id(entry["side"], entry["method"])
        wire_defs[kid] = _envelope(entry, request_id)
        sender = OTHER_SIDE.get(entry["side"], "any")
        kind: dict[str, Any] = {
            "id": kid,
            "title": f"{entry['method']} ({'request' if 'request' in entry else 'notification'})",
            "channel": "stdio-ndjson",
            "producer": sender,
            "consumer": entry["side"] if entry["side"] in OTHER_SIDE else "any",
            "selector": {"fields": {"/jsonrpc": "2.0", "/method": entry["method"]}},
            "schema": f"wire.json#/$defs/{kid}",
        }
        if "request" in entry and "response" in entry:
            kind["reply"] = {"at": "/result", "schema": f"schema.json#/$defs/{entry['response']}"}
        kind["provenance"] = {"source": source, "note": f"$defs/{entry.get('request') or entry.get('notification')}"}
        kinds.append(kind)
    for side in ("agent", "client"):
        rid = f"{side}.response"
        wire_defs[rid] = _response_envelope(side, request_id, error)
        kinds.append({
            "id": rid,
            "title": f"Response from the {side}",
            "channel": "stdio-ndjson",
            "producer": side,
            "consumer": OTHER_SIDE[side],
            "description": "A JSON-RPC 2.0 response (jsonrpc.org/specification section 5): an id and a result or an "
            "error, and no method (a message with a method the release lacks is a request or notification, "
            "reported as an unknown method); a framed capture's sender tells the two directions apart.",
            "selector": copy.deepcopy(RESPONSE_SELECTOR),  # a copy each: YAML would write one as an alias
            "schema": f"wire.json#/$defs/{rid}",
            "answers": f"{side}.*",
            "correlate": {"request": "/id", "response": "/id"},
            "provenance": {"source": source, "note": "$defs/AgentResponse, $defs/ClientResponse"},
        })
    wire_defs.update({name: JSONRPC_DEFS[name] for name in sorted(JSONRPC_DEFS)
                      if f"#/$defs/{name}" in (request_id, error)})
    wire = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"{base}/wire.json",
        "title": "ACP v1 JSON-RPC envelopes, one per method (generated by tools/wirecheck/importer/acp.py)",
        "$defs": wire_defs,
    }
    return kinds, wire
