"""The xopc fixture builders: messages, HTTP exchanges, and a case with its expected findings (`Case`, `at`).

xopc_cases.py and xopc_sidechat.py describe the cases with these; xopc_fixtures.py writes them. Imports go one
way: xopc_fixtures → xopc_cases → xopc_sidechat → xopc_build.

A finding is written as `at(i, side, code, ...)`: exchange `i` (0-based), the request or the response; it becomes
`line: i+1` in JSONL and `where: /log/entries/i/<side>` in HAR.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

PLATFORM = "https://platform.test"
AGENT_API = "https://runtime.test/api/v1/runtime"  # endpoints.agentApi: a base with a path prefix
TOKEN = "xopc_rt_" + "a" * 43
JSON_HEADERS = {"content-type": "application/json"}
RUNTIME_HEADERS = {"authorization": f"Bearer {TOKEN}", "content-type": "application/json", "accept": "application/json"}
T0 = 1796202000000  # 2026-12-02T09:00:00Z in epoch ms

Exchange = dict[str, Any]


# ---- message builders --------------------------------------------------------------------------------


def discovery_document(**changes: Any) -> dict[str, Any]:
    document = {
        "schemaVersion": "1",
        "platformId": "xopc-test",
        "displayName": "XOPC Test",
        "deploymentMode": "private",
        "region": "local",
        "endpoints": {
            "authorizationServer": PLATFORM,
            "controlApi": f"{PLATFORM}/api/v1/platform",
            "agentApi": AGENT_API,
            "a2aApi": f"{PLATFORM}/api/v1/a2a",
        },
        "capabilities": {
            "models": False, "connectors": False, "tunnels": False, "shares": False,
            "managedRuntime": False, "runtimeFleet": True, "traceUpload": False, "a2a": True,
        },
        "protocols": {"xopc": {"min": "0.0.1", "max": "0.x"}, "mcp": [], "a2a": ["1.0"]},
    }
    document.update(changes)
    return document


def manifest(**changes: Any) -> dict[str, Any]:
    value = {
        "schemaVersion": "1",
        "agentId": "agent.test",
        "version": "1.0.0",
        "runtime": {"engine": "xopc", "requires": ">=0.1.0", "execution": ["enterprise"]},
        "entry": {"instructions": "agent.md"},
        "models": {"intents": ["reasoning"], "allow": ["workspace-default"]},
        "dependencies": {"skills": [], "connectors": [], "extensions": []},
        "permissions": {"tools": [], "networkDomains": [], "filesystem": [], "effects": ["read"]},
        "data": {"classification": "internal", "memory": "local", "retentionPolicy": "default"},
        "quality": {},
    }
    value.update(changes)
    return value


def command(run: str = "run-1", cid: str = "command-1", token: str = "lease-1", **changes: Any) -> dict[str, Any]:
    value = {
        "id": cid,
        "runId": run,
        "type": "run.start",
        "leaseToken": token,
        "leaseExpiresAt": T0 + 30_000,
        "payload": {
            "runId": run, "traceId": "trace-1", "agentVersionId": "version-1", "organizationId": "org-1",
            "workspaceId": "workspace-1", "runtimeId": "runtime-1", "manifest": manifest(),
        },
    }
    value.update(changes)
    return value


def event(type_: str, sequence: int | None, run: str | None = "run-1", n: int = 1, **changes: Any) -> dict[str, Any]:
    value: dict[str, Any] = {
        "schemaVersion": "1",
        "eventId": f"event_00000000-0000-4000-8000-{n:012d}",
        "type": type_,
        "time": f"2026-12-02T09:00:{n:02d}.000Z",
        "organizationId": "org-1",
        "workspaceId": "workspace-1",
    }
    if run is not None:
        value["runId"] = run
        value["traceId"] = "trace-1"
    if sequence is not None:
        value["sequence"] = sequence
    value["producer"] = "runtime-1"
    value["payload"] = {}
    value.update(changes)
    return value


def exchange(method: str, url: str, body: Any = None, status: int | None = 200, response: Any = None,
             headers: dict[str, str] | None = None, response_headers: dict[str, str] | None = None) -> Exchange:
    request: dict[str, Any] = {"method": method, "url": url, "headers": dict(headers or {})}
    if body is not None:
        request["body"] = body
    result: Exchange = {"request": request}
    if status is not None:
        result["response"] = {"status": status, "headers": dict(JSON_HEADERS if response is not None else {})}
        if response_headers is not None:
            result["response"]["headers"] = response_headers
        if response is not None:
            result["response"]["body"] = response
    return result


def raw_answer(x: Exchange, text: str, content_type: str = "text/plain") -> Exchange:
    """The exchange answered with a body written as it came (`text`, which a HAR keeps as content.text), not JSON."""
    response = x["response"]
    response.pop("body", None)
    response["text"] = text
    response["headers"] = {"content-type": content_type}
    return x


def discovery(document: Any = None, base: str = PLATFORM, status: int = 200) -> Exchange:
    return exchange("GET", f"{base}/.well-known/xopc-platform", None, status,
                    discovery_document() if document is None else document, headers={"accept": "application/json"})


def runtime(path: str, body: Any, status: int = 200, response: Any = None, api: str = AGENT_API,
            headers: dict[str, str] | None = None) -> Exchange:
    return exchange("POST", f"{api}{path}", body, status, response,
                    headers=RUNTIME_HEADERS if headers is None else headers)


def heartbeat(body: Any = None, response: Any = None, **kw: Any) -> Exchange:
    body = {"capabilities": {"engine": "xopc"}, "endpoint": "local", "leaseSeconds": 30} if body is None else body
    return runtime("/heartbeat", body, response={"ok": True} if response is None else response, **kw)


def lease(cmd: Any = None, body: Any = None, **kw: Any) -> Exchange:
    response = {"command": command() if cmd is None else cmd}
    return runtime("/lease", {"leaseSeconds": 30} if body is None else body, response=response, **kw)


def lease_empty(**kw: Any) -> Exchange:
    return runtime("/lease", {"leaseSeconds": 30}, status=204, **kw)


def report(ev: dict[str, Any], token: str | None = "lease-1", status: str = "accepted", **kw: Any) -> Exchange:
    body: dict[str, Any] = {"event": ev}
    if token is not None:
        body["leaseToken"] = token
    return runtime("/events", body, response={"status": status}, **kw)


def renew(cid: str = "command-1", token: Any = "lease-1", cancel: bool = False, n: int = 1,
          response: Any = None, body: Any = None, **kw: Any) -> Exchange:
    body = {"leaseToken": token, "leaseSeconds": 60} if body is None else body
    answer = {"leaseExpiresAt": T0 + 30_000 + n * 10_000, "cancelRequested": cancel} if response is None else response
    return runtime(f"/commands/{cid}/renew", body, response=answer, **kw)


def worker_run(terminal: str = "xopc.run.succeeded", payload: Any = None, renewals: int = 2) -> list[Exchange]:
    """lease → started (1) → renewals → terminal (2), as the 0.0.253 worker does it."""
    payload = {"output": {"text": "done"}} if payload is None else payload
    return [
        lease(),
        report(event("xopc.run.started", 1, n=1)),
        *[renew(n=i + 1, cancel=terminal == "xopc.run.cancelled" and i == renewals - 1) for i in range(renewals)],
        report(event(terminal, 2, n=2, payload=payload)),
    ]


def modified(value: Any, path: str, new: Any = ..., delete: bool = False) -> Any:
    """A deep copy of `value` with the member at `/a/b` replaced (or deleted)."""
    value = copy.deepcopy(value)
    parts = path.strip("/").split("/")
    node = value
    for part in parts[:-1]:
        node = node[int(part)] if isinstance(node, list) else node[part]
    if delete:
        del node[parts[-1]]
    else:
        node[parts[-1]] = new
    return value


# ---- cases -------------------------------------------------------------------------------------------


@dataclass
class Case:
    name: str  # capture path without suffix, relative to the version folder: valid/x, invalid/y
    # exchanges: HTTP exchanges for the forms har and jsonl (exchange JSONL); stream events for ndjson
    description: str
    exchanges: list[Exchange]
    findings: list[dict[str, Any]] = field(default_factory=list)
    forms: tuple[str, ...] = ("jsonl",)  # har | jsonl | ndjson
    options: dict[str, Any] | None = None

    @property
    def verdict(self) -> str:
        return "fails" if any(f.get("severity", "error") == "error" for f in self.findings) else "conforms"


def at(index: int, side: str, code: str, pointer: str | None = None, kind: str | None = None,
       severity: str = "error", obligation: str | None = None) -> dict[str, Any]:
    finding = {"_at": index, "_side": side, "code": code, "severity": severity}
    if pointer is not None:
        finding["pointer"] = pointer
    if kind is not None:
        finding["kind"] = kind
    if obligation is not None:  # behaviour.yaml's obligation the finding breaks
        finding["obligation"] = obligation
    return finding


BASE = {"base_url": {"agentApi": AGENT_API}}
