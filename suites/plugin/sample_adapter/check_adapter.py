"""The sample adapter's own tests: one of them records a worker run as exchange JSONL for the gate."""

from __future__ import annotations

import json
from pathlib import Path

import adapter

BASE = "https://platform.test"
AGENT = "https://runtime.test/agent"
COMMAND = {
    "id": "command-1", "runId": "run-1", "type": "run.start", "leaseToken": "lease-1", "leaseExpiresAt": 1796202030000,
    "payload": {
        "runId": "run-1", "traceId": "trace-1", "agentVersionId": "version-1", "organizationId": "org-1",
        "workspaceId": "workspace-1", "runtimeId": "runtime-1",
        "manifest": {
            "schemaVersion": "1", "agentId": "agent.test", "version": "1.0.0",
            "runtime": {"engine": "xopc", "requires": ">=0.1.0", "execution": ["enterprise"]},
            "entry": {"instructions": "agent.md"}, "models": {"intents": ["reasoning"], "allow": ["default"]},
            "dependencies": {"skills": [], "connectors": [], "extensions": []},
            "permissions": {"tools": [], "networkDomains": [], "filesystem": [], "effects": ["read"]},
            "data": {"classification": "internal", "memory": "local", "retentionPolicy": "default"}, "quality": {},
        },
    },
}
DISCOVERY = {
    "schemaVersion": "1", "platformId": "sample", "displayName": "Sample", "deploymentMode": "development",
    "region": "local",
    "endpoints": {"authorizationServer": BASE, "controlApi": f"{BASE}/control", "agentApi": AGENT},
    "capabilities": {"models": False, "connectors": False, "tunnels": False, "shares": False, "managedRuntime": False,
                     "runtimeFleet": True, "traceUpload": False, "a2a": False},
    "protocols": {"xopc": {"min": "0.0.253", "max": "0.0.253"}, "mcp": [], "a2a": []},
}
JSON = {"content-type": "application/json"}


def exchange(method, url, body, status, response=None, headers=None):
    request = {"method": method, "url": url, "headers": headers if headers is not None else adapter.HEADERS}
    if body is not None:
        request["body"] = body
    answer = {"status": status, "headers": JSON if response is not None else {}}
    if response is not None:
        answer["body"] = response
    return {"request": request, "response": answer}


def check_heartbeat_shape():
    assert adapter.heartbeat()["leaseSeconds"] == 30


def check_worker_run_is_recorded():
    lines = [
        exchange("GET", f"{BASE}/.well-known/xopc-platform", None, 200, DISCOVERY, {"accept": "application/json"}),
        exchange("POST", f"{AGENT}/heartbeat", adapter.heartbeat(), 200, {"ok": True}),
        exchange("POST", f"{AGENT}/lease", adapter.lease(), 200, {"command": COMMAND}),
        exchange("POST", f"{AGENT}/events", adapter.event(COMMAND, "xopc.run.started", 1, {}), 200,
                 {"status": "accepted"}),
        exchange("POST", f"{AGENT}/commands/command-1/renew", adapter.renew(COMMAND), 200,
                 {"leaseExpiresAt": 1796202040000, "cancelRequested": False}),
        exchange("POST", f"{AGENT}/events", adapter.event(COMMAND, "xopc.run.succeeded", 2, {"output": {}}), 200,
                 {"status": "accepted"}),
        exchange("POST", f"{AGENT}/lease", adapter.lease(), 204),
    ]
    out = Path("out")
    out.mkdir(exist_ok=True)
    (out / "run.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
