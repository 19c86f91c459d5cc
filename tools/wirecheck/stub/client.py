"""wirecheck's HTTP client (the probe's): what it may do, decided in one place.

- It speaks http and https only (an announced `file://` is never opened), and every call has a deadline for the
  whole exchange: connecting, the request, the complete answer (a socket timeout bounds each read only, so a
  server dripping a byte a second would never trip it). Answers are read up to MAX_RESPONSE_BYTES.
- Redirects are followed by hand, each hop recorded as its own exchange, at most MAX_REDIRECTS of them, and only
  within the host the call went to (same scheme and port, or up to https on the same host). A Location anywhere
  else is not followed: the 3xx is the answer, and the call ends with a problem naming where it pointed. (Were it
  followed, a third party's answer would be recorded as the platform's, and the token would travel with it.)
- A bearer token goes only to the host of the base URL the user gave (and to hosts the user names, `token_hosts`,
  `--token-host`: an `agentApi` a platform announces elsewhere is another host, so the call is not made), and over
  plain http only to this machine (a loopback host: localhost, 127.0.0.0/8, ::1) unless the user allows it
  (`allow_insecure_token`, `--allow-insecure-token`). A call to a loopback host never goes through a proxy from the
  environment (`http_proxy`): the proxy would get the token in plain text, and cannot reach this machine's loopback.
  The token never reaches a report: the recorder cuts it from every entry, and the command from every text it
  prints or reports (`stub.redaction`, in every spelling).
"""

from __future__ import annotations

import contextlib
import functools
import http.client
import ipaddress
import socket
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit

from wirecheck.stub.har import Exchange, HarRecorder, now

MAX_RESPONSE_BYTES = 1 << 20
MAX_REDIRECTS = 5
REDIRECTS = (301, 302, 303, 307, 308)


class CallFailed(Exception):
    """A call that got no usable answer (or may not be made); `str()` says which call and why (secrets are cut where it
    is printed or reported: HarRecorder.scrub)."""


@dataclass
class Answer:
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None
    url: str = ""  # where the answer came from (after same-host redirects)


def origin(url: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) with the scheme's default port filled in; ValueError for a URL that has none."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    port = parts.port or {"http": 80, "https": 443}.get(scheme)
    return scheme, (parts.hostname or "").lower(), port


def is_loopback(host: str) -> bool:
    """Whether `host` (as urlsplit gives it: lower case, no brackets) names this machine's loopback."""
    if host == "localhost" or host.endswith(".localhost"):  # RFC 6761: always loopback
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def redirect_problem(source: str, target: str) -> str | None:
    """Why a redirect from `source` to `target` is not followed, or None when it may be: the same host, and the
    same scheme and port or an upgrade to https."""
    try:
        (scheme, host, port), (to_scheme, to_host, to_port) = origin(source), origin(target)
    except ValueError as error:
        return f"redirected to {target!r}, not a usable URL ({error})"
    if to_scheme not in ("http", "https"):
        return f"redirected to {target!r}, which is not http or https"
    if to_host != host:
        return f"redirected to another host ({target}); wirecheck does not follow it"
    if (to_scheme, to_port) != (scheme, port) and to_scheme != "https":
        return f"redirected to {target}, down from {scheme} or to another port; wirecheck does not follow it"
    return None


class _Deadline:
    """Bounds a whole HTTP exchange: when it passes, the exchange's sockets are shut down, which ends any read at
    once. `with deadline:` arms it; the connections of the exchange `attach` their sockets."""

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


def _opener(deadline: _Deadline, direct: bool) -> urllib.request.OpenerDirector:
    """urllib's opener for http and https only, without its redirect handler (redirects are this module's to
    follow, or not), its connections bound by `deadline`; `direct`: no proxy, whatever the environment says."""
    opener = urllib.request.OpenerDirector()
    for handler in (urllib.request.ProxyHandler({} if direct else None), urllib.request.UnknownHandler(),
                    urllib.request.HTTPDefaultErrorHandler(), urllib.request.HTTPErrorProcessor(),
                    _DeadlineHandler(deadline)):
        opener.add_handler(handler)
    return opener


class HttpClient:
    """Calls recorded in `recorder` (each redirect hop its own exchange), `token` sent where the policy allows."""

    def __init__(self, base_url: str, *, token: str, timeout: float, recorder: HarRecorder,
                 token_hosts: tuple[str, ...] = (), allow_insecure_token: bool = False):
        self.base_host = origin(base_url)[1]
        self.token_hosts = frozenset({self.base_host, *(host.lower() for host in token_hosts)})
        self.token = token
        self.timeout = timeout
        self.recorder = recorder
        self.allow_insecure_token = allow_insecure_token

    def token_problem(self, url: str) -> str | None:
        """Why the token may not go to `url`, or None."""
        scheme, host, _ = origin(url)
        if host not in self.token_hosts:
            return (f"the runtime token is not sent to {host}, another host than the base URL's ({self.base_host}); "
                    f"--token-host {host} sends it there")
        if scheme != "https" and not is_loopback(host) and not self.allow_insecure_token:
            return (f"the runtime token is not sent over plain http to {host}, which is not this machine; "
                    "--allow-insecure-token sends it")
        return None

    def call(self, method: str, url: str, data: bytes | None, headers: dict[str, str], auth: bool) -> Answer:
        """One call, following same-host redirects. CallFailed when it gets no answer (or may not be made)."""
        for _ in range(MAX_REDIRECTS + 1):
            answer = self._exchange(method, url, data, headers, auth)
            location = answer.headers.get("location")
            if answer.status not in REDIRECTS or location is None:
                return answer
            target = urljoin(url, location.strip())
            problem = redirect_problem(url, target)
            if problem is not None:
                raise CallFailed(f"{method} {url}: answered {answer.status}, {problem}")
            if answer.status == 303 or (answer.status in (301, 302) and method == "POST"):
                method, data = "GET", None  # as fetch and browsers do
                headers = {k: v for k, v in headers.items() if k != "content-type"}
            url = target
        raise CallFailed(f"{method} {url}: more than {MAX_REDIRECTS} redirects")

    def _exchange(self, method: str, url: str, data: bytes | None, headers: dict[str, str], auth: bool) -> Answer:
        where = f"{method} {url}"
        try:
            scheme = urlsplit(url).scheme.lower()
            problem = self.token_problem(url) if auth else None
        except ValueError as error:  # a URL the platform announced that nothing can reach
            raise CallFailed(f"{where}: not a usable URL ({error})") from None
        if scheme not in ("http", "https"):  # the client speaks HTTP only; never open a file:// it was handed
            raise CallFailed(f"{where}: not a usable URL (expected http or https, not {scheme or 'no scheme'!r})")
        if problem is not None:
            raise CallFailed(f"{where}: not sent: {problem}")
        if auth:
            headers = {**headers, "authorization": f"Bearer {self.token}"}
        started, clock = now(), time.perf_counter()
        status: int | None = None
        response_headers: dict[str, str] = {}
        raw: bytes | None = None
        deadline = _Deadline(self.timeout)
        failure: str | None = None
        try:
            request = urllib.request.Request(url, data=data, method=method, headers=headers)
            with deadline:
                try:
                    with _opener(deadline, direct=is_loopback(origin(url)[1])).open(
                            request, timeout=self.timeout) as response:
                        status, response_headers = response.status, {k.lower(): v
                                                                     for k, v in response.headers.items()}
                        raw = response.read(MAX_RESPONSE_BYTES + 1)
                except urllib.error.HTTPError as error:
                    status, response_headers = error.code, {k.lower(): v for k, v in error.headers.items()}
                    raw = error.read(MAX_RESPONSE_BYTES + 1)
        except (ValueError, http.client.InvalidURL) as error:  # a URL the platform announced that nothing can reach
            if not deadline.expired:
                raise CallFailed(f"{where}: not a usable URL ({error})") from None
        except (urllib.error.URLError, TimeoutError, OSError) as error:
            failure = f"no response ({getattr(error, 'reason', error) or type(error).__name__})"
        except http.client.HTTPException as error:  # a bad status line, a header line past 64 KiB, a cut chunk
            failure = f"no HTTP answer ({type(error).__name__}: {str(error)[:200]!r})"
        if deadline.expired:  # whatever the shut socket made of the answer, it did not come within the deadline
            failure = f"no response (no complete answer within {self.timeout:g} s)"
        elapsed = (time.perf_counter() - clock) * 1000
        if failure is not None or status is None:
            self.recorder.add(Exchange(method, url, headers, data, None, {}, None, started, elapsed))
            raise CallFailed(f"{where}: {failure}")
        if raw is not None and len(raw) > MAX_RESPONSE_BYTES:
            raw = raw[:MAX_RESPONSE_BYTES]
        self.recorder.add(Exchange(method, url, headers, data, status, response_headers, raw, started, elapsed))
        return Answer(status, response_headers, raw, url)
