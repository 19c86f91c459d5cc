"""The runtime client side of xopc@0.0.253, for certifying a platform server: discovery, heartbeat, then leases
until the platform is idle (204), running each leased command the way the 0.0.253 worker does (started at
sequence 1, one renewal, one terminal event at sequence 2; cancelled when the renewal says so).

Every exchange is recorded in HAR exactly as it crossed the wire (the bearer token cut); the HAR is then certified
for the role `platform`. HTTP goes through wirecheck's one client (stub/client.py: a deadline for every whole call,
same-host redirects only, the token only to the base URL's host and never over plain http off this machine
unless the user allows it), and every loop has a bound.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import orjson

from wirecheck.json_text import parse_json
from wirecheck.stub.client import CallFailed, HttpClient
from wirecheck.stub.har import HarRecorder

DEFAULT_TOKEN = "xopc_rt_wirecheck_probe_0000000000000000000000"


@dataclass
class ProbeOutcome:
    steps: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # why the probe could not go on (not protocol findings)
    commands: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems


class _Stop(Exception):
    pass


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def discovery_url(base_url: str) -> str:
    parts = urlsplit(base_url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/") + "/.well-known/xopc-platform", "", ""))


class XopcProbe:
    def __init__(self, base_url: str, *, token: str = DEFAULT_TOKEN, timeout: float = 10.0, max_leases: int = 10,
                 recorder: HarRecorder | None = None, on_step: Callable[[str], None] | None = None,
                 token_hosts: tuple[str, ...] = (), allow_insecure_token: bool = False):
        self.base_url = base_url
        self.token = token
        self.timeout = timeout
        self.max_leases = max_leases
        self.recorder = recorder if recorder is not None else HarRecorder("wirecheck probe")
        self.recorder.keep_secret(token)
        self.client = HttpClient(base_url, token=token, timeout=timeout, recorder=self.recorder,
                                 token_hosts=token_hosts, allow_insecure_token=allow_insecure_token)
        self.on_step = on_step or (lambda text: None)
        self.outcome = ProbeOutcome()

    # -- HTTP -----------------------------------------------------------------------------------------

    def _call(self, method: str, url: str, body: Any = None, auth: bool = True) -> tuple[int | None, Any]:
        headers = {"accept": "application/json"}
        data = None
        if body is not None:
            data = orjson.dumps(body)
            headers["content-type"] = "application/json"
        try:
            answer = self.client.call(method, url, data, headers, auth)
        except CallFailed as failed:
            raise _Stop(str(failed)) from None
        # read as the certification reads it (exact, and surrogate-safe): what is not JSON is None
        value = parse_json(answer.body)[0] if answer.body else None
        self._step(f"{method} {urlsplit(answer.url).path} → {answer.status}")
        return answer.status, value

    def _step(self, text: str) -> None:
        self.outcome.steps.append(text)
        self.on_step(text)

    # -- the run --------------------------------------------------------------------------------------

    def run(self) -> ProbeOutcome:
        try:
            self._run()
        except _Stop as stop:
            self.outcome.problems.append(str(stop))
        return self.outcome

    def _run(self) -> None:
        status, discovery = self._call("GET", discovery_url(self.base_url), auth=False)
        if status is None or not 200 <= status < 300 or not isinstance(discovery, dict):
            raise _Stop(f"discovery answered {status} without a JSON document; nothing else can be probed")
        endpoints = _object(discovery.get("endpoints"))
        capabilities = _object(discovery.get("capabilities"))
        agent_api = endpoints.get("agentApi")
        if capabilities.get("runtimeFleet") is not True or not isinstance(agent_api, str):
            raise _Stop("the platform announces no runtime fleet (capabilities.runtimeFleet, endpoints.agentApi); "
                        "the 0.0.253 client refuses to start")
        agent = agent_api.rstrip("/")
        self._call("POST", f"{agent}/heartbeat",
                   {"capabilities": {"engine": "xopc"}, "endpoint": "wirecheck-probe", "leaseSeconds": 30})
        for _ in range(self.max_leases):
            status, leased = self._call("POST", f"{agent}/lease", {"leaseSeconds": 30})
            if status == 204:
                return
            if status is None or not 200 <= status < 300:  # client.ts:109-110: 204 is no work, any other ok a lease
                raise _Stop(f"lease answered {status}; the client treats it as an error")
            command = leased.get("command") if isinstance(leased, dict) else None
            if not isinstance(command, dict):
                raise _Stop("a 200 lease without {command: ...}; the client cannot run it")
            self._run_command(agent, command)
        self._step(f"stopped after {self.max_leases} leases without an idle (204) answer")

    def _run_command(self, agent: str, command: dict[str, Any]) -> None:
        payload = _object(command.get("payload"))
        needed = ("id", "runId", "leaseToken")
        if not all(isinstance(command.get(k), str) for k in needed):
            raise _Stop("the leased command lacks id/runId/leaseToken; the client cannot report on it")
        self.outcome.commands += 1
        token = command["leaseToken"]

        def event(kind: str, sequence: int, body: dict[str, Any]) -> None:
            value: dict[str, Any] = {
                "schemaVersion": "1", "eventId": f"event_{uuid.uuid4()}", "type": kind,
                "time": dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                "organizationId": str(payload.get("organizationId", "unknown")),
                "workspaceId": str(payload.get("workspaceId", "unknown")),
                "runId": command["runId"], "sequence": sequence,
                "producer": str(payload.get("runtimeId", "wirecheck-probe")), "payload": body,
            }
            if isinstance(payload.get("traceId"), str):
                value["traceId"] = payload["traceId"]
            self._call("POST", f"{agent}/events", {"event": value, "leaseToken": token})

        event("xopc.run.started", 1, {})
        _, renewal = self._call("POST", f"{agent}/commands/{command['id']}/renew",
                                     {"leaseToken": token, "leaseSeconds": 60})
        cancelled = isinstance(renewal, dict) and renewal.get("cancelRequested") is True
        if cancelled:
            event("xopc.run.cancelled", 2, {})
        else:
            event("xopc.run.succeeded", 2, {"output": {"text": "wirecheck probe"}})
