"""A small HTTP server on 127.0.0.1 (stdlib http.server request handling) that hands each request to an application
object and records every exchange in HAR, hardened against clients that are slow, many or hostile:

- one thread reads every connection's request line and headers as they come (a selector over non-blocking
  sockets), and only a request whose head is whole goes to the bounded pool of WORKERS threads (concurrent.futures);
  a kept-alive connection goes back to that thread between requests. A client that drips its headers, or keeps a
  connection open and silent, holds no worker: 300 of them cost a real request nothing. At most MAX_CONNECTIONS are
  open at once; the rest wait in the kernel's listen queue (BACKLOG, as deep as `net.core.somaxconn` allows);
- a deadline for the whole of each phase of a request, not for each read (a client dripping a byte at a time gets
  no longer than one sending nothing): IDLE_TIMEOUT for the next request on a kept-alive connection to start,
  HEADER_TIMEOUT for its request line and headers once it has, BODY_TIMEOUT for the whole body, WRITE_TIMEOUT for
  the answer to be taken. A connection past its idle or header deadline is closed;
- bounded memory: a request head ≤ MAX_HEAD_BYTES (431 past it; http.server's own: a line ≤ 64 KiB, ≤ 100
  headers), a body ≤ MAX_BODY_BYTES, at most WORKERS requests in flight, and the HAR kept on disk
  (har.HarRecorder), not in memory.

Requests are read as RFC 9112 says a server must: a header line with whitespace before its colon, or folded onto the
next line, is a 400 (a lenient parser took `Content-Length : 67` for no header at all, and the body for the next
request); a request target is a path, or an absolute URL of the stub itself (`http://127.0.0.1:PORT/path`, served
as its path); an absolute URL of another host is a 421 (the stub is no proxy), any other target a 400. Request bodies
are framed by Content-Length only: a declared length over MAX_BODY_BYTES is answered 413 at once (then what the
client still sends is read and dropped for LINGER_SECONDS, so it gets the answer and not a reset), a Content-Length
that is not a whole number of bytes, or a body shorter than declared (the client stopped sending, or the whole body
did not arrive within BODY_TIMEOUT) 400, a chunked body 411; each with a JSON `{"error": ...}` body and the
connection closed. None of them reaches the application or the HAR. A client that goes away before its answer is
written costs one debug log line; the server keeps serving either way.
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
from urllib.parse import urlsplit

import orjson

from wirecheck.stub.har import Exchange, HarRecorder, now

MAX_BODY_BYTES = 1 << 20
ADMIN_PREFIX = "/_wirecheck/"
DRAIN_LIMIT_BYTES = 16 << 20
LINGER_SECONDS = 2.0  # after a 413 sent at once, what the client still sends is read and dropped for this long
WORKERS = 32  # requests served at once; more whole requests wait for a worker
MAX_CONNECTIONS = 512  # open at once (reading a head, waiting for a worker, served); more wait in the listen queue
MAX_HEAD_BYTES = 64 << 10  # a request line and headers, whole; past it, 431
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
    # the answer is the stub's own, not the platform's: {"fault": "events=503 once"} (its scenario injected it) or
    # {"refused": why} (a request it could not act on). The HAR marks its entry so (`_wirecheck`), and certification
    # judges the request but not this answer (capture/http.py)
    own: dict[str, str] | None = None


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
    """The connection as the handler reads it: first the bytes already read with its head, then the socket, each
    read waiting at most until the deadline of the phase the request is in (`phase(seconds)` starts one: the body).
    Past it, a read raises TimeoutError. Once `ended`, a read takes nothing more from the socket (what was read
    ahead of the request's end goes back to the reading thread with the connection)."""

    def __init__(self, sock: socket.socket, timeouts: Timeouts, head: bytes, deadline: float):
        super().__init__()
        self._sock = sock
        self.timeouts = timeouts
        self._head = memoryview(head)
        self.deadline = deadline
        self.ended = False

    def readable(self) -> bool:
        return True

    def phase(self, seconds: float) -> None:
        self.deadline = time.monotonic() + seconds

    def readinto(self, buffer: Any) -> int | None:
        if self._head:
            count = min(len(buffer), len(self._head))
            buffer[:count] = self._head[:count]
            self._head = self._head[count:]
            return count
        if self.ended:
            return None  # nothing ready: a buffered reader's peek gives back what it holds
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the deadline passed")
        self._sock.settimeout(left)
        return self._sock.recv_into(buffer)

    def unread(self) -> bytes:
        """What is left of the bytes read with the head."""
        rest, self._head = bytes(self._head), memoryview(b"")
        return rest


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass  # the HAR is the log

    def __init__(self, request: socket.socket, client_address: Any, server: _Server, head: bytes,
                 header_deadline: float):
        self._head, self._header_deadline = head, header_deadline
        self.leftover = b""  # read ahead of the request's end: the next request's first bytes
        super().__init__(request, client_address, server)

    def setup(self) -> None:
        super().setup()
        self.rfile.close()  # read through the phase deadlines instead
        self.deadline = _PhaseDeadline(self.connection, self.server.timeouts, self._head, self._header_deadline)
        self.rfile = self.reader = io.BufferedReader(self.deadline)  # typed as itself: handle() peeks into it

    def handle(self) -> None:
        """One request (its head is whole: the reading thread waited for it); a kept-alive connection then goes back
        to that thread with what was read ahead of it."""
        self.close_connection = True
        try:
            # MAX_HEAD_BYTES came and no end of the head, or the head ended past it (its last bytes came in the
            # same read as the bytes before the limit: how the client's writes were split decided it)
            if not 0 <= _head_end(self._head) <= MAX_HEAD_BYTES:
                self.request_version, self.requestline, self.command, self.path = "HTTP/1.1", "", "", ""
                self._refuse(_Refused(431, f"request head larger than {MAX_HEAD_BYTES} bytes (request line and "
                                           "headers, whole)"))
                return
            self.handle_one_request()
            if not self.close_connection:
                self.deadline.ended = True
                self.leftover = self.reader.peek(MAX_HEAD_BYTES) + self.deadline.unread()
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
        what = f"{self.command} {self.path}".strip() or "a request"
        log.warning("wirecheck stub: %s from %s:%s answered %s: %s", what, *self.client_address[:2], refused.status,
                    refused.message)
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

    def _linger(self, length: int) -> None:
        """After an answer sent at once (413) on a connection that will be closed: read and drop what the client
        still sends (up to DRAIN_LIMIT_BYTES, for LINGER_SECONDS at most), so a client still sending its body gets
        the answer instead of a reset; one that sends nothing more costs nothing past its own end."""
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_WR)  # the answer is whole: the client may read it now
        self.deadline.phase(LINGER_SECONDS)
        left = min(length, DRAIN_LIMIT_BYTES)
        with contextlib.suppress(TimeoutError, OSError):
            while left > 0 and (chunk := self.rfile.read1(min(left, 65536))):
                left -= len(chunk)

    def _check_head(self) -> None:
        """RFC 9112 section 5: a field line is `name: value`, with no whitespace before the colon and no line folded
        onto the next; a server must answer either with 400. (The parser keeps no such line as a header: the rest of
        the head would be read as a body.)"""
        if self.headers.defects or self.headers.get_payload():
            line = str(self.headers.get_payload()).splitlines()[0] if self.headers.get_payload() else ""
            raise _Refused(400, f"header line {line!r} is not `name: value` (no whitespace before the colon, RFC "
                                "9112 section 5.1)")
        folded = next((name for name, value in self.headers.items() if "\n" in value or "\r" in value), None)
        if folded is not None:
            raise _Refused(400, f"header {folded!r} is folded onto the next line (obsolete line folding, RFC 9112 "
                                "section 5.2)")

    def _origin_form(self, target: str) -> str:
        """The request target as a path and query: origin form as it is; an absolute URL of the stub itself (the
        form a client sends a proxy, which a server must accept: RFC 9112 section 3.2.2) as its path; an absolute
        URL of another host 421, anything else 400."""
        if target.startswith("/"):
            return target
        if target.lower().startswith(("http://", "https://")):
            try:
                parts = urlsplit(target)
                own = parts.scheme.lower() == "http" and parts.port == self.server.port
            except ValueError:
                raise _Refused(400, f"request target {target[:200]!r}: not a URL") from None
            if not own or (parts.hostname or "") not in (self.server.host, "localhost"):
                raise _Refused(421, f"request target {target[:200]!r} is for another host: the stub serves "
                                    f"http://{self.server.host}:{self.server.port} only (it is no proxy)")
            return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        raise _Refused(400, f"request target {target[:200]!r}: expected a path (/...) or an absolute URL of the stub")

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
            self._check_head()
            target = self._origin_form(self.path)
            length = self._content_length(headers)
            if length > MAX_BODY_BYTES:
                self._refuse(_Refused(413, f"body too large: content-length {headers.get('content-length')}, "
                                           f"the stub accepts at most {MAX_BODY_BYTES} bytes"))
                self._linger(length)
                return
            body = self._read_body(length) if length else None
        except _Refused as refused:
            self._refuse(refused)
            return
        url = f"http://{self.server.host}:{self.server.port}{target}"
        path = target.split("?", 1)[0]
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
            None if reply.drop else reply.body, started, (time.perf_counter() - clock) * 1000, reply.own,
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


def _head_end(data: bytes) -> int:
    """Where a request head ends in `data` (just after the blank line), or -1: lines end in CRLF or LF, as
    http.server reads them; a blank line before the request line counts as a (bad) head of its own."""
    ends = [found + 3 if sep == b"\n\r\n" else found + 2 for sep in (b"\n\r\n", b"\n\n")
            if (found := data.find(sep)) >= 0]
    if data.startswith((b"\r\n", b"\n")):
        ends.append(2 if data.startswith(b"\r\n") else 1)
    return min(ends) if ends else -1


@dataclass
class _Reading:
    """A connection whose next request head is being read: what came so far, and until when it may come."""

    connection: socket.socket
    address: Any
    data: bytes
    deadline: float
    begun: bool  # a byte of the head came: its deadline is the header one


class _Server(socketserver.TCPServer):
    """The listening socket, the reading thread (`serve`: accepts connections and reads request heads, a selector
    over them all) and a pool of WORKERS, each serving one whole request at a time."""

    allow_reuse_address = True
    request_queue_size = BACKLOG

    def __init__(self, port: int, app: App, recorder: HarRecorder, timeouts: Timeouts, workers: int):
        # TCPServer's own dispatch (finish_request) is never used: `serve` reads each request head and a worker
        # builds the _Handler with it (_serve_connection), so the base class stands in as the handler TCPServer needs
        super().__init__((LOOPBACK, port), socketserver.BaseRequestHandler)
        self.socket.setblocking(False)  # accepted only when ready: a client gone by then blocks nothing
        self.app = app
        self.recorder = recorder
        self.timeouts = timeouts
        self.in_flight = 0  # requests being handled: stop() lets them finish so the HAR is complete
        self.in_flight_lock = threading.Lock()
        self.host, self.port = str(self.server_address[0]), int(self.server_address[1])
        self._workers = ThreadPoolExecutor(workers, thread_name_prefix="wirecheck-stub")
        self._open: set[socket.socket] = set()  # accepted connections, closed at stop
        self._open_lock = threading.Lock()
        self._stopping = threading.Event()
        self._returned: list[tuple[socket.socket, Any, bytes]] = []  # kept-alive connections back from a worker
        self._wake_read, self._wake_write = socket.socketpair()
        for end in (self._wake_read, self._wake_write):
            end.setblocking(False)

    def serve(self) -> None:
        """Accept connections (while fewer than MAX_CONNECTIONS are open) and read their request heads; hand each
        whole head to a worker; close a connection past its idle or header deadline."""
        reading: dict[socket.socket, _Reading] = {}
        with selectors.DefaultSelector() as selector:
            selector.register(self._wake_read, selectors.EVENT_READ)
            listening = False
            while not self._stopping.is_set():
                with self._open_lock:
                    returned, self._returned = self._returned, []
                    room = len(self._open) < MAX_CONNECTIONS
                for connection, address, leftover in returned:
                    self._read(selector, reading, connection, address, leftover)
                if room != listening:
                    if room:
                        selector.register(self.socket, selectors.EVENT_READ)
                    else:
                        selector.unregister(self.socket)
                    listening = room
                now = time.monotonic()
                wait = min([0.5, *(r.deadline - now for r in reading.values())])
                for key, _ in selector.select(max(wait, 0.0)):
                    if key.fileobj is self.socket:
                        self._accept(selector, reading)
                    elif key.fileobj is self._wake_read:
                        with contextlib.suppress(OSError):
                            while self._wake_read.recv(4096):
                                pass
                    else:
                        self._receive(selector, reading, reading[key.fileobj])  # type: ignore[index]
                now = time.monotonic()
                for late in [r for r in reading.values() if r.deadline <= now]:
                    self._drop(selector, reading, late.connection)
            for connection in list(reading):
                self._drop(selector, reading, connection)

    def _accept(self, selector: selectors.BaseSelector, reading: dict[socket.socket, _Reading]) -> None:
        try:
            connection, address = self.socket.accept()
        except OSError:
            return
        with self._open_lock:
            self._open.add(connection)
        self._read(selector, reading, connection, address, b"")

    def _read(self, selector: selectors.BaseSelector, reading: dict[socket.socket, _Reading],
              connection: socket.socket, address: Any, data: bytes) -> None:
        """Wait for a request head on `connection` (`data`: its first bytes, read ahead by the last request)."""
        now = time.monotonic()
        begun = bool(data)
        state = _Reading(connection, address, data, now + (self.timeouts.header if begun else self.timeouts.idle),
                         begun)
        if _head_end(data) >= 0 or len(data) >= MAX_HEAD_BYTES:
            self._dispatch(state)
            return
        connection.setblocking(False)
        reading[connection] = state
        selector.register(connection, selectors.EVENT_READ)

    def _receive(self, selector: selectors.BaseSelector, reading: dict[socket.socket, _Reading],
                 state: _Reading) -> None:
        try:
            chunk = state.connection.recv(MAX_HEAD_BYTES)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            chunk = b""
        if not chunk:  # the client closed it (or reset it)
            self._drop(selector, reading, state.connection)
            return
        if not state.begun:
            state.begun, state.deadline = True, time.monotonic() + self.timeouts.header
        state.data += chunk
        if _head_end(state.data) >= 0 or len(state.data) >= MAX_HEAD_BYTES:
            selector.unregister(state.connection)
            del reading[state.connection]
            self._dispatch(state)

    def _drop(self, selector: selectors.BaseSelector, reading: dict[socket.socket, _Reading],
              connection: socket.socket) -> None:
        selector.unregister(connection)
        del reading[connection]
        self._close(connection)

    def _close(self, connection: socket.socket) -> None:
        self.shutdown_request(connection)
        with self._open_lock:
            self._open.discard(connection)
        self._wake()  # there may be room to accept again

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            self._wake_write.send(b"\0")

    def _dispatch(self, state: _Reading) -> None:
        state.connection.setblocking(True)
        try:
            self._workers.submit(self._serve_connection, state.connection, state.address, state.data, state.deadline)
        except RuntimeError:  # the pool is shut down: stopping
            self._close(state.connection)

    def _serve_connection(self, connection: socket.socket, address: Any, head: bytes, deadline: float) -> None:
        kept = False
        try:
            handler = _Handler(connection, address, self, head, deadline)
            kept = not handler.close_connection and not self._stopping.is_set()
            if kept:
                with self._open_lock:
                    self._returned.append((connection, address, handler.leftover))
                self._wake()
        except Exception:
            self.handle_error(connection, address)
        finally:
            if not kept:
                self._close(connection)

    def stop(self, grace: float) -> None:
        """Stop accepting; let the requests in flight finish (for `grace` seconds at most); close every connection
        (idle kept-alive ones are waiting for a next request that will not come); wait for the workers."""
        self._stopping.set()
        self._wake()
        deadline = time.monotonic() + grace
        while self.in_flight and time.monotonic() < deadline:
            time.sleep(0.01)
        with self._open_lock:
            for connection in self._open:
                with contextlib.suppress(OSError):
                    connection.shutdown(socket.SHUT_RDWR)
        self._workers.shutdown(wait=True, cancel_futures=True)
        with self._open_lock:
            returned, self._returned = self._returned, []
        for connection, _, _ in returned:
            self._close(connection)

    def server_close(self) -> None:
        super().server_close()
        for end in (self._wake_read, self._wake_write):
            end.close()

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
        self._thread = threading.Thread(target=self._server.serve, daemon=True, name="wirecheck-stub")
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
