"""A small HTTP server on 127.0.0.1 (stdlib http.server) that hands each request to an application object and
records every exchange in HAR. Bodies are bounded; the server runs on a thread and stops cleanly."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Protocol

from wirecheck.stub.har import Exchange, HarRecorder, now

MAX_BODY_BYTES = 1 << 20
ADMIN_PREFIX = "/_wirecheck/"
DRAIN_LIMIT_BYTES = 16 << 20
LOOPBACK = "127.0.0.1"


@dataclass
class Reply:
    status: int
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)


class App(Protocol):
    def handle(self, method: str, url: str, path: str, headers: Mapping[str, str], body: bytes | None) -> Reply: ...


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass  # the HAR is the log

    def _serve(self) -> None:
        with self.server.in_flight_lock:
            self.server.in_flight += 1
        try:
            self._serve_one()
        finally:
            with self.server.in_flight_lock:
                self.server.in_flight -= 1

    def _serve_one(self) -> None:
        started, clock = now(), time.perf_counter()
        headers = {k.lower(): v for k, v in self.headers.items()}
        length = int(headers.get("content-length") or 0)
        if length > MAX_BODY_BYTES:
            # read (and drop) a bounded amount so the client gets the 413 instead of a broken pipe
            remaining = min(length, DRAIN_LIMIT_BYTES)
            while remaining > 0:
                chunk = self.rfile.read(min(remaining, 65536))
                if not chunk:
                    break
                remaining -= len(chunk)
            self._send(Reply(413, b'{"error":"body too large"}', {"content-type": "application/json"}))
            self.close_connection = True
            return
        body = self.rfile.read(length) if length else None
        url = f"http://{self.server.host}:{self.server.port}{self.path}"
        path = self.path.split("?", 1)[0]
        if path.startswith(ADMIN_PREFIX):
            # the stub's own control routes (e.g. cancel on demand): answered, never recorded or certified
            admin = getattr(self.server.app, "admin", None)
            self._send(admin(self.command, path[len(ADMIN_PREFIX):]) if admin else Reply(404))
            return
        try:
            reply = self.server.app.handle(self.command, url, path, headers, body)
        except Exception as exc:  # a bug in the stub must not kill the server; it is reported as a 500
            reply = Reply(500, f'{{"error": "stub failure: {type(exc).__name__}"}}'.encode(),
                          {"content-type": "application/json"})
        sent_headers = dict(reply.headers)
        sent_headers["content-length"] = str(len(reply.body or b""))
        # recorded before it is sent: once the client has the answer it may stop the server and read the HAR
        self.server.recorder.add(Exchange(
            self.command, url, headers, body, reply.status, sent_headers, reply.body, started,
            (time.perf_counter() - clock) * 1000,
        ))
        self._send(reply)

    def _send(self, reply: Reply) -> None:
        self.send_response(reply.status)
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.send_header("content-length", str(len(reply.body or b"")))
        self.end_headers()
        if reply.body:
            self.wfile.write(reply.body)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, port: int, app: App, recorder: HarRecorder):
        super().__init__((LOOPBACK, port), _Handler)
        self.app = app
        self.recorder = recorder
        self.in_flight = 0  # requests being handled: stop() lets them finish so the HAR is complete
        self.in_flight_lock = threading.Lock()
        self.host, self.port = str(self.server_address[0]), int(self.server_address[1])


class StubServer:
    """`with StubServer(app) as server: ... server.base_url ...` — listens on 127.0.0.1 only (port 0: any free)."""

    def __init__(self, app: App, port: int = 0, recorder: HarRecorder | None = None):
        self.recorder = recorder or HarRecorder("wirecheck stub")
        self._server = _Server(port, app, self.recorder)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True, name="wirecheck-stub")

    @property
    def base_url(self) -> str:
        return f"http://{self._server.host}:{self._server.port}"

    def start(self) -> StubServer:
        self._thread.start()
        return self

    def stop(self, grace: float = 5.0) -> None:
        deadline = time.monotonic() + grace
        while self._server.in_flight and time.monotonic() < deadline:
            time.sleep(0.01)
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> StubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
