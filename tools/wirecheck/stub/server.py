"""A small HTTP server on 127.0.0.1 (stdlib http.server) that hands each request to an application object and
records every exchange in HAR. The server runs on a thread and stops cleanly.

Request bodies are framed by Content-Length only and bounded by MAX_BODY_BYTES (1 MiB): a declared length over
it is answered 413, a Content-Length that is not a whole number of bytes, a body shorter than declared (the client
stopped sending, or the whole body did not arrive within BODY_TIMEOUT_SECONDS) 400, a chunked body 411; each with a JSON
`{"error": ...}` body and the connection closed. None of them reaches the application or the HAR. A client that
goes away before its answer is written costs one debug log line; the server keeps serving either way.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Protocol

import orjson

from wirecheck.stub.har import Exchange, HarRecorder, now

MAX_BODY_BYTES = 1 << 20
ADMIN_PREFIX = "/_wirecheck/"
DRAIN_LIMIT_BYTES = 16 << 20
BODY_TIMEOUT_SECONDS = 30.0  # a declared body not whole within this long (overall) is a 400, not a hung thread
LOOPBACK = "127.0.0.1"
# the client went away (closed or reset its connection) while the stub was reading from or writing to it
DISCONNECTS = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError)

log = logging.getLogger("wirecheck.stub")


@dataclass
class Reply:
    status: int
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)


def _error(status: int, message: str) -> Reply:
    return Reply(status, orjson.dumps({"error": message}), {"content-type": "application/json"})


class _Refused(Exception):
    """A request whose framing the stub cannot accept: answered `status` with a JSON error, connection closed."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


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

    def handle(self) -> None:
        try:
            super().handle()
        except DISCONNECTS as exc:  # nobody is left to answer: a debug line, no traceback, the server goes on
            self.close_connection = True
            log.debug("wirecheck stub: client %s:%s went away: %s", *self.client_address[:2], exc)

    def _refuse(self, refused: _Refused) -> None:
        """Answer a request the stub cannot read and close the connection: what follows on it cannot be framed."""
        self.close_connection = True
        log.warning("wirecheck stub: %s %s from %s:%s answered %s: %s", self.command, self.path,
                    *self.client_address[:2], refused.status, refused.message)
        reply = _error(refused.status, refused.message)
        self._send(Reply(reply.status, reply.body, {**reply.headers, "connection": "close"}))

    def _content_length(self, headers: Mapping[str, str]) -> int:
        if "chunked" in headers.get("transfer-encoding", "").lower():
            raise _Refused(411, "transfer-encoding chunked is not supported: send a content-length")
        declared = self.headers.get_all("content-length") or []
        if len(set(declared)) > 1:
            raise _Refused(400, f"conflicting content-length headers: {', '.join(map(repr, declared))}")
        raw = headers.get("content-length")
        if raw is None:
            return 0
        text = raw.strip()
        if not text or not text.isascii() or not text.isdigit():
            raise _Refused(400, f"content-length {raw!r}: expected a whole number of bytes")
        return int(text) if len(text) <= 18 else DRAIN_LIMIT_BYTES + 1  # past any limit; int() of 5000 digits raises

    def _receive(self, length: int, keep: bool) -> tuple[list[bytes], int, bool]:
        """Up to `length` bytes of body within body_timeout for the whole body (not per read: a client dripping one
        byte at a time cannot hold the handler): (the chunks, if `keep`; bytes received; whether time ran out)."""
        chunks: list[bytes] = []
        received = 0
        deadline = time.monotonic() + self.server.body_timeout
        try:
            while received < length:
                left = deadline - time.monotonic()
                if left <= 0:
                    return chunks, received, True
                self.connection.settimeout(left)
                chunk = self.rfile.read1(min(length - received, 65536))  # read1: what arrived is counted
                if not chunk:
                    break
                if keep:
                    chunks.append(chunk)
                received += len(chunk)
        except TimeoutError:
            return chunks, received, True
        finally:
            self.connection.settimeout(None)
        return chunks, received, False

    def _read_body(self, length: int) -> bytes:
        """Exactly `length` bytes of body, or _Refused (400) naming how many arrived."""
        chunks, received, timed_out = self._receive(length, keep=True)
        if timed_out:
            raise _Refused(400, f"body incomplete: content-length {length}, {received} bytes arrived within "
                                f"{self.server.body_timeout:g} s")
        if received < length:
            raise _Refused(400, f"body incomplete: content-length {length}, the client stopped sending "
                                f"after {received} bytes")
        return b"".join(chunks)

    def _drain(self, length: int) -> None:
        """Read (and drop) a bounded amount so a client still sending gets the 413 instead of a broken pipe; a
        client that stops sending (or drips) gets it all the same once the body deadline has passed."""
        self._receive(min(length, DRAIN_LIMIT_BYTES), keep=False)

    def _serve_one(self) -> None:
        started, clock = now(), time.perf_counter()
        headers = {k.lower(): v for k, v in self.headers.items()}
        try:
            length = self._content_length(headers)
            if length > MAX_BODY_BYTES:
                self._drain(length)
                raise _Refused(413, f"body too large: content-length {headers.get('content-length')}, "
                                     f"the stub accepts at most {MAX_BODY_BYTES} bytes")
            body = self._read_body(length) if length else None
        except _Refused as refused:
            self._refuse(refused)
            return
        url = f"http://{self.server.host}:{self.server.port}{self.path}"
        path = self.path.split("?", 1)[0]
        if path.startswith(ADMIN_PREFIX):
            # the stub's own control routes (e.g. cancel on demand): answered, never recorded or certified
            admin = getattr(self.server.app, "admin", None)
            try:
                answer = admin(self.command, path[len(ADMIN_PREFIX):]) if admin else Reply(404)
            except Exception as exc:  # as below: a 500, not a dead connection
                answer = _error(500, f"stub failure: {type(exc).__name__}")
            self._send(answer)
            return
        try:
            reply = self.server.app.handle(self.command, url, path, headers, body)
        except Exception as exc:  # a bug in the stub must not kill the server; it is reported as a 500
            reply = _error(500, f"stub failure: {type(exc).__name__}")
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

    def __init__(self, port: int, app: App, recorder: HarRecorder, body_timeout: float = BODY_TIMEOUT_SECONDS):
        super().__init__((LOOPBACK, port), _Handler)
        self.app = app
        self.recorder = recorder
        self.in_flight = 0  # requests being handled: stop() lets them finish so the HAR is complete
        self.in_flight_lock = threading.Lock()
        self.body_timeout = body_timeout
        self.host, self.port = str(self.server_address[0]), int(self.server_address[1])

    def handle_error(self, request: object, client_address: object) -> None:
        """socketserver prints a traceback here; the stub logs one line (debug for a client that went away)."""
        exc = sys.exc_info()[1]
        where = ":".join(map(str, client_address)) if isinstance(client_address, tuple) else str(client_address)
        if isinstance(exc, DISCONNECTS):
            log.debug("wirecheck stub: client %s went away: %s", where, exc)
        else:
            log.error("wirecheck stub: request from %s failed: %s: %s", where, type(exc).__name__, exc)


class StubServer:
    """`with StubServer(app) as server: ... server.base_url ...` — listens on 127.0.0.1 only (port 0: any free)."""

    def __init__(self, app: App, port: int = 0, recorder: HarRecorder | None = None,
                 body_timeout: float = BODY_TIMEOUT_SECONDS):
        self.recorder = recorder or HarRecorder("wirecheck stub")
        self._server = _Server(port, app, self.recorder, body_timeout)
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
