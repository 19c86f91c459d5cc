"""The runtime client side of xopc@0.0.253, for certifying a platform server: discovery, heartbeat, then leases
until the platform is idle (204), running each leased command the way the 0.0.253 worker does (started at
sequence 1, one renewal, one terminal event at sequence 2; cancelled when the renewal says so).

Every exchange is recorded in HAR exactly as it crossed the wire; the HAR is then certified for the role
`platform`. Uses only urllib; every call has a deadline (the whole exchange: connect, request, response, redirects)
and every loop a bound.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import http.client
import socket
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import orjson

from wirecheck.stub.har import Exchange, HarRecorder, now

MAX_RESPONSE_BYTES = 1 << 20
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


class _Deadline:
    """Bounds a whole HTTP exchange. A socket timeout bounds each read only, so a server dripping a byte a second
    never trips it; when the deadline passes this shuts the exchange's socket down, which ends any read at once.
    `with deadline:` arms it; the connections of the exchange `attach` their sockets."""

    def __init__(self, seconds: float):
        self.expired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def attach(self, sock: socket.socket | None) -> None:
        if sock is None:
            return
        with self._lock:
            self._sockets.append(sock)
            if self.expired:
                self._shut(sock)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                self._shut(sock)

    @staticmethod
    def _shut(sock: socket.socket) -> None:
        with contextlib.suppress(OSError):
            # the plain socket's shutdown, also for a TLS socket: only the file descriptor is touched
            socket.socket.shutdown(sock, socket.SHUT_RDWR)

    def __enter__(self) -> _Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()


class _Attached:
    """A connection that hands its socket to the exchange's deadline once connected (for https: after the TLS
    handshake, so the socket attached is the one the exchange reads)."""

    sock: socket.socket | None

    def __init__(self, *args: Any, deadline: _Deadline, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._deadline = deadline

    def connect(self) -> None:
        super().connect()  # type: ignore[misc]
        self._deadline.attach(self.sock)


class _HTTPConnection(_Attached, http.client.HTTPConnection):
    pass


class _HTTPSConnection(_Attached, http.client.HTTPSConnection):
    pass


class _DeadlineHandler(urllib.request.HTTPSHandler):
    """urllib's http and https handling, every connection bound by one deadline."""

    http_request = urllib.request.AbstractHTTPHandler.do_request_

    def __init__(self, deadline: _Deadline):
        super().__init__()
        self._deadline = deadline

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(functools.partial(_HTTPConnection, deadline=self._deadline), req)

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(functools.partial(_HTTPSConnection, deadline=self._deadline), req)


def _opener(deadline: _Deadline) -> urllib.request.OpenerDirector:
    """urllib's opener for http and https only (an announced file:// URL must not read local files), its
    connections bound by `deadline`."""
    opener = urllib.request.OpenerDirector()
    for handler in (urllib.request.ProxyHandler(), urllib.request.UnknownHandler(),
                    urllib.request.HTTPDefaultErrorHandler(), urllib.request.HTTPRedirectHandler(),
                    urllib.request.HTTPErrorProcessor(), _DeadlineHandler(deadline)):
        opener.add_handler(handler)
    return opener


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def discovery_url(base_url: str) -> str:
    parts = urlsplit(base_url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/") + "/.well-known/xopc-platform", "", ""))


class XopcProbe:
    def __init__(self, base_url: str, *, token: str = DEFAULT_TOKEN, timeout: float = 10.0, max_leases: int = 10,
                 recorder: HarRecorder | None = None, on_step: Callable[[str], None] | None = None):
        self.base_url = base_url
        self.token = token
        self.timeout = timeout
        self.max_leases = max_leases
        self.recorder = recorder or HarRecorder("wirecheck probe")
        self.on_step = on_step or (lambda text: None)
        self.outcome = ProbeOutcome()

    # -- HTTP -----------------------------------------------------------------------------------------

    def _call(self, method: str, url: str, body: Any = None, auth: bool = True) -> tuple[int | None, Any]:
        headers = {"accept": "application/json"}
        data = None
        if body is not None:
            data = orjson.dumps(body)
            headers["content-type"] = "application/json"
        if auth:
            headers["authorization"] = f"Bearer {self.token}"
        try:
            scheme = urlsplit(url).scheme.lower()
        except ValueError as error:  # a URL the platform announced that nothing can reach
            raise _Stop(f"{method} {url}: not a usable URL ({error})") from None
        if scheme not in ("http", "https"):  # the client speaks HTTP only; never open a file:// it was handed
            raise _Stop(f"{method} {url}: not a usable URL (expected http or https, not {scheme or 'no scheme'!r})")
        started, clock = now(), time.perf_counter()
        status: int | None = None
        response_headers: dict[str, str] = {}
        raw: bytes | None = None
        deadline = _Deadline(self.timeout)
        problem: str | None = None
        try:
            request = urllib.request.Request(url, data=data, method=method, headers=headers)
            with deadline:
                try:
                    with _opener(deadline).open(request, timeout=self.timeout) as response:
                        status, response_headers = response.status, {k.lower(): v
                                                                     for k, v in response.headers.items()}
                        raw = response.read(MAX_RESPONSE_BYTES + 1)
                except urllib.error.HTTPError as error:
                    status, response_headers = error.code, {k.lower(): v for k, v in error.headers.items()}
                    raw = error.read(MAX_RESPONSE_BYTES + 1)
        except (ValueError, http.client.InvalidURL) as error:  # a URL the platform announced that nothing can reach
            if not deadline.expired:
                raise _Stop(f"{method} {url}: not a usable URL ({error})") from None
        except (urllib.error.URLError, TimeoutError, OSError) as error:
            problem = f"no response ({getattr(error, 'reason', error) or type(error).__name__})"
        except http.client.HTTPException as error:  # a bad status line, a header line past 64 KiB, a cut chunk
            problem = f"no HTTP answer ({type(error).__name__}: {str(error)[:200]!r})"
        if deadline.expired:  # whatever the shut socket made of the answer, it did not come within the deadline
            problem = f"no response (no complete answer within {self.timeout:g} s)"
        if problem is not None:
            self.recorder.add(Exchange(method, url, headers, data, None, {}, None, started,
                                       (time.perf_counter() - clock) * 1000))
            raise _Stop(f"{method} {url}: {problem}")
        if raw is not None and len(raw) > MAX_RESPONSE_BYTES:
            raw = raw[:MAX_RESPONSE_BYTES]
        self.recorder.add(Exchange(method, url, headers, data, status, response_headers, raw, started,
                                   (time.perf_counter() - clock) * 1000))
        value = None
        if raw:
            try:
                value = orjson.loads(raw)
            except orjson.JSONDecodeError:
                value = None
        self._step(f"{method} {urlsplit(url).path} → {status}")
        return status, value

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
            if status != 200:
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
