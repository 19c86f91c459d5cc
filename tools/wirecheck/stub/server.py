"""A small HTTP server on 127.0.0.1 (stdlib http.server request handling) that hands each request to an application
object and records every exchange in HAR, hardened against clients that are slow, many or hostile:

- a bounded pool of WORKERS threads (concurrent.futures): a connection is accepted only when a worker is free, so
  the rest wait in the kernel's listen queue (BACKLOG, as deep as `net.core.somaxconn` allows), not in memory;
- a deadline for the whole of each phase of a request, not for each read (a client dripping a byte at a time gets
  no longer than one sending nothing): IDLE_TIMEOUT for the next request on a kept-alive connection to start,
  HEADER_TIMEOUT for its request line and headers once it has, BODY_TIMEOUT for the whole body, WRITE_TIMEOUT for
  the answer to be taken. A connection past its idle or header deadline is closed;
- bounded memory: a header line ≤ 64 KiB and ≤ 100 headers (http.server's limits: 414/431 past them), a body ≤
  MAX_BODY_BYTES, at most WORKERS requests in flight, and the HAR kept on disk (har.HarRecorder), not in memory.

Request bodies are framed by Content-Length only: a declared length over MAX_BODY_BYTES is answered 413, a
Content-Length that is not a whole number of bytes, or a body shorter than declared (the client stopped sending, or
the whole body did not arrive within BODY_TIMEOUT) 400, a chunked body 411; each with a JSON `{"error": ...}` body and
the connection closed. None of them reaches the application or the HAR. A client that goes away before its answer
is written costs one debug log line; the server keeps serving either way.
"""

from __future__ import annotations

import contextlib
import io
import logging
import selectors
import socket
import socketserver
import sys
import threading
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any, Protocol

import orjson

from wirecheck.stub.har import Exchange, HarRecorder, now

MAX_BODY_BYTES = 1 << 20
ADMIN_PREFIX = "/_wirecheck/"
DRAIN_LIMIT_BYTES = 16 << 20
WORKERS = 32  # requests served at once; more connections wait in the listen queue
BACKLOG = 1024  # the listen queue asked for (the kernel caps it at net.core.somaxconn)
IDLE_TIMEOUT_SECONDS = 5.0  # a kept-alive connection with no next request is closed after this long
HEADER_TIMEOUT_SECONDS = 10.0  # request line and headers, whole, once their first byte came
BODY_TIMEOUT_SECONDS = 30.0  # a declared body not whole within this long (overall) is a 400, not a held worker
WRITE_TIMEOUT_SECONDS = 30.0  # an answer the client does not take within this long ends the connection
LOOPBACK = "127.0.0.1"
# the client went away (closed or reset its connection) while the stub was reading from or writing to it
DISCONNECTS = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError)

log = logging.getLogger("wirecheck.stub")


@dataclass(frozen=True)
class Timeouts:
    idle: float = IDLE_TIMEOUT_SECONDS
    header: float = HEADER_TIMEOUT_SECONDS
    body: float = BODY_TIMEOUT_SECONDS
    write: float = WRITE_TIMEOUT_SECONDS


@dataclass
class Reply:
    status: int
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    drop: bool = False  # no answer at all: the connection is closed (a fault a platform stub injects)


DROPPED = Reply(0, drop=True)


def _error(status: int, message: str) -> Reply:
    return Reply(status, orjson.dumps({"error": message}), {"content-type": "application/json"})


class _Refused(Exception):
    """A request whose framing the stub cannot accept: answered `status` with a JSON error, connection closed."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


class App(Protocol):
    def handle(self, method: str, url: str, path: str, headers: Mapping[str, str], body: bytes | None) -> Reply: ...


class _PhaseDeadline(io.RawIOBase):
    """The connection as the handler reads it: every read waits at most until the deadline of the phase the request
    is in. Waiting for a request (`next_request`), the deadline is the idle one, and it becomes the header one as
    the first byte arrives; `phase(seconds)` starts another (the body). Past it, a read raises TimeoutError."""

    def __init__(self, sock: socket.socket, timeouts: Timeouts):
        super().__init__()
        self._sock = sock
        self.timeouts = timeouts
        self.deadline = 0.0
        self.waiting = False

    def readable(self) -> bool:
        return True

    def next_request(self) -> None:
        self.deadline, self.waiting = time.monotonic() + self.timeouts.idle, True

    def phase(self, seconds: float) -> None:
        self.deadline, self.waiting = time.monotonic() + seconds, False

    def readinto(self, buffer: Any) -> int:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the deadline passed")
        self._sock.settimeout(left)
        count = self._sock.recv_into(buffer)
        if self.waiting and count:
            self.phase(self.timeouts.header)
        return count


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass  # the HAR is the log

    def setup(self) -> None:
        super().setup()
        self.rfile.close()  # read through the phase deadlines instead
        self.deadline = _PhaseDeadline(self.connection, self.server.timeouts)
        self.rfile = io.BufferedReader(self.deadline)

    def handle_one_request(self) -> None:
        self.deadline.next_request()
        super().handle_one_request()

    def handle(self) -> None:
        try:
            super().handle()
        except DISCONNECTS as exc:  # nobody is left to answer: a debug line, no traceback, the server goes on
            self.close_connection = True
            log.debug("wirecheck stub: client %s:%s went away: %s", *self.client_address[:2], exc)

    def _serve(self) -> None:
        with self.server.in_flight_lock:
            self.server.in_flight += 1
        try:
            self._serve_one()
        finally:
            with self.server.in_flight_lock:
                self.server.in_flight -= 1

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
        """Up to `length` bytes of body within the body deadline for the whole body (not per read: a client dripping
        one byte at a time cannot hold the worker): (the chunks, if `keep`; bytes received; whether time ran out)."""
        chunks: list[bytes] = []
        received = 0
        self.deadline.phase(self.server.timeouts.body)
        try:
            while received < length:
                chunk = self.rfile.read1(min(length - received, 65536))  # read1: what arrived is counted
                if not chunk:
                    break
                if keep:
                    chunks.append(chunk)
                received += len(chunk)
        except TimeoutError:
            return chunks, received, True
        return chunks, received, False

    def _read_body(self, length: int) -> bytes:
        """Exactly `length` bytes of body, or _Refused (400) naming how many arrived."""
        chunks, received, timed_out = self._receive(length, keep=True)
        if timed_out:
            raise _Refused(400, f"body incomplete: content-length {length}, {received} bytes arrived within "
                                f"{self.server.timeouts.body:g} s")
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
        place = self.server.recorder.begin()  # its place in the HAR: the order requests began in
        try:
            self._serve_at(place, started, clock)
        finally:
            self.server.recorder.abandon(place)  # nothing if it was recorded

    def _serve_at(self, place: int, started: Any, clock: float) -> None:
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
        self.server.recorder.learn(headers)  # the token is a secret in whatever handling the request says
        try:
            reply = self.server.app.handle(self.command, url, path, headers, body)
        except Exception as exc:  # a bug in the stub must not kill the server; it is reported as a 500
            reply = _error(500, f"stub failure: {type(exc).__name__}")
        sent_headers = dict(reply.headers)
        if not reply.drop:
            sent_headers["content-length"] = str(len(reply.body or b""))
        # recorded before it is sent: once the client has the answer it may stop the server and read the HAR
        self.server.recorder.add(Exchange(
            self.command, url, headers, body, None if reply.drop else reply.status, sent_headers,
            None if reply.drop else reply.body, started, (time.perf_counter() - clock) * 1000,
        ), place)
        if reply.drop:  # the connection ends with no answer: the client sees it closed
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)
            return
        self._send(reply)

    def _send(self, reply: Reply) -> None:
        self.connection.settimeout(self.server.timeouts.write)  # for the whole answer (sendall counts it so)
        self.send_response(reply.status)
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.send_header("content-length", str(len(reply.body or b"")))
        self.end_headers()
        if reply.body:
            self.wfile.write(reply.body)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve


class _Server(socketserver.TCPServer):
    """The listening socket, a pool of WORKERS, and an accept loop that takes a connection only for a free worker."""

    allow_reuse_address = True
    request_queue_size = BACKLOG

    def __init__(self, port: int, app: App, recorder: HarRecorder, timeouts: Timeouts, workers: int):
        super().__init__((LOOPBACK, port), _Handler)
        self.app = app
        self.recorder = recorder
        self.timeouts = timeouts
        self.in_flight = 0  # requests being handled: stop() lets them finish so the HAR is complete
        self.in_flight_lock = threading.Lock()
        self.host, self.port = str(self.server_address[0]), int(self.server_address[1])
        self._workers = ThreadPoolExecutor(workers, thread_name_prefix="wirecheck-stub")
        self._free = threading.BoundedSemaphore(workers)
        self._open: set[socket.socket] = set()  # accepted connections, closed at stop
        self._open_lock = threading.Lock()
        self._stopping = threading.Event()

    def accept_loop(self) -> None:
        with selectors.DefaultSelector() as selector:
            selector.register(self.socket, selectors.EVENT_READ)
            while not self._stopping.is_set():
                if not self._free.acquire(timeout=0.05):
                    continue
                try:
                    connection, address = self.socket.accept() if selector.select(0.05) else (None, None)
                except OSError:
                    connection = None
                if connection is None:
                    self._free.release()
                    continue
                with self._open_lock:
                    self._open.add(connection)
                self._workers.submit(self._serve_connection, connection, address)

    def _serve_connection(self, connection: socket.socket, address: Any) -> None:
        try:
            self.finish_request(connection, address)
        except Exception:
            self.handle_error(connection, address)
        finally:
            self.shutdown_request(connection)
            with self._open_lock:
                self._open.discard(connection)
            self._free.release()

    def stop(self, grace: float) -> None:
        """Stop accepting; let the requests in flight finish (for `grace` seconds at most); close every connection
        (idle kept-alive ones are waiting for a next request that will not come); wait for the workers."""
        self._stopping.set()
        deadline = time.monotonic() + grace
        while self.in_flight and time.monotonic() < deadline:
            time.sleep(0.01)
        with self._open_lock:
            for connection in self._open:
                with contextlib.suppress(OSError):
                    connection.shutdown(socket.SHUT_RDWR)
        self._workers.shutdown(wait=True, cancel_futures=True)

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
                 timeouts: Timeouts | None = None, workers: int = WORKERS):
        self.recorder = recorder if recorder is not None else HarRecorder("wirecheck stub")
        self._server = _Server(port, app, self.recorder, timeouts or Timeouts(), workers)
        self._thread = threading.Thread(target=self._server.accept_loop, daemon=True, name="wirecheck-stub")
        self._stopped = False

    @property
    def base_url(self) -> str:
        return f"http://{self._server.host}:{self._server.port}"

    def start(self) -> StubServer:
        self._thread.start()
        return self

    def stop(self, grace: float = 5.0) -> None:
        if self._stopped:
            return
        self._stopped = True
        self._server.stop(grace)
        self._thread.join(timeout=5)
        self._server.server_close()

    def __enter__(self) -> StubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
