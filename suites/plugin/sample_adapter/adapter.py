"""A toy xopc runtime adapter: builds the requests a 0.0.253 runtime sends. WIRECHECK_SAMPLE_BROKEN=1 injects the
bug the gate must catch (a run event without its sequence)."""

from __future__ import annotations

import os
import uuid

TOKEN = "xopc_rt_sample_adapter_000000000000000000000"
HEADERS = {"authorization": f"Bearer {TOKEN}", "content-type": "application/json", "accept": "application/json"}


def heartbeat() -> dict:
    return {"capabilities": {"engine": "xopc"}, "endpoint": "sample", "leaseSeconds": 30}


def lease() -> dict:
    return {"leaseSeconds": 30}


def event(command: dict, kind: str, sequence: int, payload: dict) -> dict:
    body = {
        "schemaVersion": "1", "eventId": f"event_{uuid.uuid4()}", "type": kind, "time": "2026-12-02T09:00:01.000Z",
        "organizationId": command["payload"]["organizationId"], "workspaceId": command["payload"]["workspaceId"],
        "runId": command["runId"], "sequence": sequence, "producer": command["payload"]["runtimeId"],
        "payload": payload,
    }
    if os.environ.get("WIRECHECK_SAMPLE_BROKEN") == "1" and sequence == 2:
        del body["sequence"]
    return {"event": body, "leaseToken": command["leaseToken"]}


def renew(command: dict) -> dict:
    return {"leaseToken": command["leaseToken"], "leaseSeconds": 60}
