"""The platform side of the xopc runtime API (xopc@0.0.253), for certifying a runtime client.

Serves discovery, heartbeat, leases of generated valid RuntimeCommands (then 204 when idle), event receipts
(`duplicate` for a repeated eventId), renewals, and cancellation on demand (`cancel()`, or after N renewals).
Every request is checked as it arrives (its kind's schema and headers; protocol rules run on the whole HAR at the
end); the problems are reported through `on_problem` and, with `strict`, answered with 400.

The platform lives under any base path the runtime is given: discovery answers at `<prefix>/.well-known/
xopc-platform` for any prefix, and the endpoints it announces keep that prefix (`agentApi` is
`<origin><prefix>/agent`), so a runtime configured with `{url}/tenant/a/` runs as one configured with `{url}`.
How it answers (the lease it grants, answers held back, faults) is a scenario (stub/scenario.py).
"""

from __future__ import annotations

import re
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import orjson

from wirecheck.check.classify import Classifier, base_prefix
from wirecheck.check.message import HttpInfo, Message
from wirecheck.check.validate import Validators
from wirecheck.contracts.model import ContractRelease
from wirecheck.json_text import parse_json
from wirecheck.stub.scenario import StubScenario
from wirecheck.stub.server import Reply

JSON = {"content-type": "application/json"}
AGENT_PATH = "/agent"
DISCOVERY_PATH = "/.well-known/xopc-platform"
_RENEW = re.compile(r"^/commands/([^/]+)/renew$")
TERMINAL = ("xopc.run.succeeded", "xopc.run.failed", "xopc.run.cancelled")


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _json(status: int, value: Any, own: dict[str, str] | None = None) -> Reply:
    return Reply(status, orjson.dumps(value), dict(JSON), own=own)


def _refused(status: int, text: str) -> Reply:
    """The stub's answer to a request it cannot act on (not the platform's: no contract says what it answers): an
    error naming why, its HAR entry marked so."""
    return _json(status, {"error": text}, {"refused": text})


def discovery_document(base: str) -> dict[str, Any]:
    """The discovery document of a platform whose base URL (origin and path prefix, no trailing slash) is `base`."""
    capabilities = dict.fromkeys(("models", "connectors", "tunnels", "shares", "managedRuntime", "runtimeFleet",
                                  "traceUpload", "a2a"), False)
    capabilities["runtimeFleet"] = True
    return {
        "schemaVersion": "1", "platformId": "wirecheck-stub", "displayName": "wirecheck xopc platform stub",
        "deploymentMode": "development", "region": "local",
        "endpoints": {"authorizationServer": base, "controlApi": f"{base}/control", "agentApi": f"{base}{AGENT_PATH}"},
        "capabilities": capabilities,
        "protocols": {"xopc": {"min": "0.0.253", "max": "0.0.253"}, "mcp": [], "a2a": []},
    }


def generate_commands(release: ContractRelease, count: int, seed: int = 0) -> list[dict[str, Any]]:
    """`count` RuntimeCommands drawn from the contract's own schema (the manifest and payload vary), with unique,
    readable identities; each re-validated before it is served."""
    from wirecheck.fuzz.corpus import valid_entries

    kind = release.kind("lease.response")
    assert kind.schema is not None
    pair = Validators(release).pair(kind.schema)
    commands: list[dict[str, Any]] = []
    attempt = 0
    while len(commands) < count and attempt < 10:
        for entry in valid_entries(release, kind, max(count * 3, 5), seed + attempt):
            command = entry.message["command"]
            n = len(commands) + 1
            command.update(id=f"wirecheck-command-{n}", runId=f"wirecheck-run-{n}", leaseToken=f"wirecheck-lease-{n}",
                           leaseExpiresAt=int(time.time() * 1000) + 30_000)
            command["payload"]["runId"] = command["runId"]
            try:
                orjson.dumps(command)  # drops strings with lone surrogates: no JSON encoder sends them
            except TypeError:
                continue
            if pair.problems({"command": command}):
                continue
            commands.append(command)
            if len(commands) == count:
                break
        attempt += 1
    if len(commands) < count:
        raise RuntimeError(f"could not generate {count} valid RuntimeCommands from {release.name}")
    return commands


@dataclass
class CommandState:
    command: dict[str, Any]
    renewals: int = 0
    cancel_requested: bool = False
    terminal: str | None = None
    events: list[str] = field(default_factory=list)


class XopcPlatformStub:
    def __init__(
        self,
        release: ContractRelease,
        *,
        commands: int = 1,
        seed: int = 0,
        cancel_after_renewals: int | None = None,
        strict: bool = False,
        on_problem: Callable[[str], None] | None = None,
        scenario: StubScenario | None = None,
    ):
        self.release = release
        self.strict = strict
        self.scenario = scenario or StubScenario()
        if self.scenario.commands is not None:
            commands = self.scenario.commands
        self.cancel_after_renewals = cancel_after_renewals or self.scenario.cancel_after_renewals
        self.on_problem = on_problem or (lambda text: None)
        self.classifier = Classifier(release)
        self.validators = Validators(release)
        self.pending: deque[dict[str, Any]] = deque(generate_commands(release, commands, seed) if commands else [])
        self.leased: dict[str, CommandState] = {}
        self.event_ids: set[str] = set()
        self.problems: list[str] = []
        self.requests = 0
        self.done = threading.Event()  # every command served and finished, then an idle (204) lease
        self.stopping = threading.Event()  # set when the server stops: answers held back are sent at once
        self.prefixes: set[str] = {""}  # base paths the runtime discovered the platform under
        self._faults_left = {index: True for index in range(len(self.scenario.faults))}  # a `once` fault not yet used
        self._lock = threading.Lock()

    # -- on demand ------------------------------------------------------------------------------------

    def cancel(self, command_or_run_id: str) -> bool:
        with self._lock:
            for state in self.leased.values():
                if command_or_run_id in (state.command["id"], state.command["runId"]):
                    state.cancel_requested = True
                    return True
        return False

    def admin(self, method: str, route: str) -> Reply:
        """`POST /_wirecheck/cancel/<command or run id>`: the next renewal of that command asks for cancellation."""
        if method == "POST" and route.startswith("cancel/"):
            target = route[len("cancel/"):]
            if self.cancel(target):
                return _json(200, {"cancelRequested": target})
            return _json(404, {"error": f"no leased command or run {target}"})
        return _json(404, {"error": "admin routes: POST /_wirecheck/cancel/<command or run id>"})

    # -- live checking --------------------------------------------------------------------------------

    def check_request(self, method: str, url: str, path: str, headers: Mapping[str, str], value: Any,
                      base: str) -> list[str]:
        message = Message(value=value, file="live", http=HttpInfo(method, url, path, None, dict(headers)))
        kind = self.classifier.classify(message, {"agentApi": base_prefix(base + AGENT_PATH)})
        if kind is None:
            return [f"{method} {path}: no request kind of {self.release.name} matches"]
        problems = []
        if kind.body == "empty" and value is not None:
            problems.append(f"{kind.id}: this request must have no body")
        if kind.schema is not None:
            problems += [f"{kind.id} {p.pointer or '/'}: {p.message}"
                         for p in self.validators.pair(kind.schema).problems(value) if not p.unknown_field]
        if kind.headers is not None:
            problems += [f"{kind.id} header {p.pointer}: {p.message}"
                         for p in self.validators.pair(kind.headers).problems(dict(headers))]
        return problems

    # -- the routes -----------------------------------------------------------------------------------

    def handle(self, method: str, url: str, path: str, headers: Mapping[str, str], body: bytes | None) -> Reply:
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        self.requests += 1
        value: Any = None
        problems = []
        if body:
            value, problem = parse_json(body)  # read as a capture's message is (exact, and surrogate-safe)
            if value is None:
                return self._refuse(f"{method} {path}: the body is not JSON", 400)
            if problem is not None:
                problems.append(f"{method} {path} {problem.pointer or '/'}: {problem.message}")
        discovery_prefix = self._discovery_prefix(method, path)
        prefix = discovery_prefix if discovery_prefix is not None else self._prefix_of(path)
        problems += self.check_request(method, url, path, headers, value, origin + prefix)
        for text in problems:
            self._problem(text)
        if problems and self.strict:
            text = "request does not conform to " + self.release.name
            return _json(400, {"error": text, "problems": problems}, {"refused": text})
        body_value = value if isinstance(value, dict) else {}
        if discovery_prefix is not None:
            with self._lock:
                self.prefixes.add(discovery_prefix)
            return self._answer(("discovery",), lambda: _json(200, discovery_document(origin + discovery_prefix)))
        agent = prefix + AGENT_PATH
        if method != "POST" or not path.startswith(agent + "/"):
            return _refused(404, f"not found: {method} {path}")
        route = path[len(agent):]
        if route == "/heartbeat":
            return self._answer(("heartbeat",), lambda: _json(200, {"ok": True}))
        if route == "/lease":
            return self._answer(("lease",), self._lease)
        if route == "/events":
            event = _object(body_value.get("event"))
            routes = ("terminal", "events") if event.get("type") in TERMINAL else ("events",)
            return self._answer(routes, lambda: self._event(body_value))
        match = _RENEW.match(route)
        if match:
            return self._answer(("renew",), lambda: self._renew(match.group(1), body_value))
        return _refused(404, f"not found: {method} {path}")

    @staticmethod
    def _discovery_prefix(method: str, path: str) -> str | None:
        """The base path of a discovery request (`/tenant/a` for GET /tenant/a/.well-known/xopc-platform), or None
        for any other request. The client drops trailing slashes of its base URL; a stray one is tolerated."""
        trimmed = path.rstrip("/")
        if method != "GET" or not trimmed.endswith(DISCOVERY_PATH):
            return None
        return trimmed[: -len(DISCOVERY_PATH)].rstrip("/")

    def _prefix_of(self, path: str) -> str:
        """The longest discovered base path this request's path lies under ("" when none)."""
        with self._lock:
            known = sorted(self.prefixes, key=len, reverse=True)
        return next((p for p in known if path.startswith(p + AGENT_PATH + "/")), "")

    def _answer(self, routes: tuple[str, ...], act: Callable[[], Reply]) -> Reply:
        """The scenario's answer on `routes` (most specific first): a fault instead of acting, or the act's answer
        held back by the route's delay (the platform has acted: the runtime is the one kept waiting)."""
        fault = self._fault(routes)
        if fault is not None:
            return fault
        reply = act()
        seconds = self.scenario.delay_for(routes)
        if seconds > 0:
            self.stopping.wait(seconds)
        return reply

    def _fault(self, routes: tuple[str, ...]) -> Reply | None:
        with self._lock:
            for index, fault in enumerate(self.scenario.faults):
                if fault.route not in routes or not (fault.always or self._faults_left[index]):
                    continue
                self._faults_left[index] = False
                if fault.status is None:
                    return Reply(0, drop=True, own={"fault": fault.spec})
                return _json(fault.status, {"error": f"wirecheck stub: fault injected on {fault.route} "
                                                     f"(answer {fault.status})"}, {"fault": fault.spec})
        return None

    def _refuse(self, text: str, status: int) -> Reply:
        self._problem(text)
        return _refused(status, text)

    def _problem(self, text: str) -> None:
        self.problems.append(text)
        self.on_problem(text)

    def _lease(self) -> Reply:
        with self._lock:
            if self.pending:
                command = self.pending.popleft()
                command["leaseExpiresAt"] = self._expiry()
                self.leased[command["id"]] = CommandState(command)
                return _json(200, {"command": command})
            if all(state.terminal for state in self.leased.values()):
                self.done.set()
        return Reply(204)

    def _event(self, body: dict[str, Any]) -> Reply:
        event = _object(body.get("event"))
        event_id = event.get("eventId")
        with self._lock:
            if isinstance(event_id, str) and event_id in self.event_ids:
                return _json(200, {"status": "duplicate"})
            if isinstance(event_id, str):
                self.event_ids.add(event_id)
            for state in self.leased.values():
                if state.command["runId"] == event.get("runId"):
                    state.events.append(str(event.get("type")))
                    if event.get("type") in TERMINAL:
                        state.terminal = str(event.get("type"))
        return _json(200, {"status": "accepted"})

    def _renew(self, command_id: str, body: dict[str, Any]) -> Reply:
        with self._lock:
            state = self.leased.get(command_id)
            if state is None:
                return _refused(404, f"no leased command {command_id}")
            state.renewals += 1
            if self.cancel_after_renewals is not None and state.renewals >= self.cancel_after_renewals:
                state.cancel_requested = True
            asked = body.get("leaseSeconds")
            return _json(200, {"leaseExpiresAt": self._expiry(asked), "cancelRequested": state.cancel_requested})

    def _expiry(self, asked: Any = None) -> int:
        """When a lease granted now expires (epoch ms): the scenario's lease length, or less if less was asked (a
        platform grants at most what it chooses), never under a second."""
        seconds = self.scenario.lease_seconds
        if isinstance(asked, int | float) and not isinstance(asked, bool) and asked == asked:
            seconds = min(seconds, max(float(asked), 1.0))
        return int(time.time() * 1000 + seconds * 1000)
