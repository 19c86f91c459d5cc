"""The stub server and the probe against misbehaving peers: bad request framing gets a JSON 400/411/413, a client
that goes away costs no traceback, and a platform that drip-feeds its answer hits the probe's per-call deadline.
Every server listens on 127.0.0.1 with an ephemeral port and is stopped (or joined) before the test ends."""

from __future__ import annotations

import contextlib
import logging
import socket
import struct
import threading
import time
import urllib.request
from collections.abc import Iterator

import orjson
import pytest
from typer.testing import CliRunner

from wirecheck.cli.app import app
from wirecheck.contracts import load_registry
from wirecheck.stub.probe import XopcProbe
from wirecheck.stub.server import MAX_BODY_BYTES, Reply, StubServer, Timeouts
from wirecheck.stub.xopc import XopcPlatformStub


@pytest.fixture(scope="module")
def release():
    return load_registry().load("xopc@0.0.253")


def raw_exchange(base_url: str, request: bytes, *, half_close: bool = True) -> tuple[int, dict[str, str], bytes]:
    """Send `request` as is and read the answer until the server closes (every refusal closes the connection)."""
    host, port = base_url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(request)
        if half_close:
            sock.shutdown(socket.SHUT_WR)  # nothing more is coming, yet the answer can still be read
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:] if ": " in line)
    return int(lines[0].split()[1]), headers, body


def post(length_headers: str, body: bytes = b"") -> bytes:
    return (f"POST /agent/heartbeat HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\n"
            f"{length_headers}\r\n").encode() + body


def still_serving(server: StubServer) -> None:
    idle = urllib.request.Request(f"{server.base_url}/agent/lease", data=b'{"leaseSeconds": 30}', method="POST")
    with urllib.request.urlopen(idle, timeout=10) as response:
        assert response.status == 204


# -- 1. request framing ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("length_headers", "body", "status", "says"),
    [
        ("Content-Length: abc\r\n", b"{}", 400, "content-length 'abc': expected a whole number of bytes"),
        ("Content-Length: -1\r\n", b"{}", 400, "content-length '-1': expected a whole number of bytes"),
        ("Content-Length: +2\r\n", b"{}", 400, "content-length '+2'"),
        ("Content-Length: 1_0\r\n", b"{}", 400, "content-length '1_0'"),
        ("Content-Length: \r\n", b"", 400, "content-length '': expected a whole number of bytes"),
        ("Content-Length: 2\r\nContent-Length: 3\r\n", b"{}", 400, "conflicting content-length headers"),
        ("Content-Length: 100\r\n", b'{"leaseSeconds"', 400,
         "body incomplete: content-length 100, the client stopped sending after 15 bytes"),
        (f"Content-Length: {MAX_BODY_BYTES + 1}\r\n", b"", 413, f"the stub accepts at most {MAX_BODY_BYTES} bytes"),
        ("Content-Length: 99999999999999999999999999\r\n", b"", 413, "body too large"),
        (f"Content-Length: {'9' * 5000}\r\n", b"", 413, "body too large"),  # int() refuses 5000 digits
        ("Transfer-Encoding: chunked\r\n", b"2\r\n{}\r\n0\r\n\r\n", 411, "transfer-encoding chunked"),
    ],
)
def test_bad_content_length_is_a_json_error_not_a_traceback(release, capsys, length_headers, body, status, says):
    platform = XopcPlatformStub(release, commands=0)
    with StubServer(platform) as server:
        answer, headers, text = raw_exchange(server.base_url, post(length_headers, body))
        assert answer == status
        assert headers["content-type"] == "application/json" and headers["connection"] == "close"
        assert says in orjson.loads(text)["error"]
        still_serving(server)
        assert len(server.recorder) == 1  # the refused request never reached the application or the HAR
    assert "Traceback" not in capsys.readouterr().err


def test_a_body_that_stops_arriving_is_a_400_after_the_body_timeout(release, capsys):
    with StubServer(XopcPlatformStub(release, commands=0), timeouts=Timeouts(body=0.3)) as server:
        # the connection stays open: only the body timeout ends the wait
        answer, _, text = raw_exchange(server.base_url, post("Content-Length: 100\r\n", b'{"endp'), half_close=False)
        assert answer == 400
        assert "content-length 100, 6 bytes arrived within 0.3 s" in orjson.loads(text)["error"]
        still_serving(server)
    assert "Traceback" not in capsys.readouterr().err


def _drip(server: StubServer, head: bytes, stop: threading.Event) -> tuple[int, bytes, float]:
    """Send `head`, then one body byte every 0.1 s until the answer comes (or `stop`); (status, body, seconds)."""
    host, port = server.base_url.removeprefix("http://").split(":")
    started = time.monotonic()
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(head)

        def drip() -> None:
            with contextlib.suppress(OSError):
                while not stop.wait(0.1):
                    sock.sendall(b" ")

        dripper = threading.Thread(target=drip, daemon=True)
        dripper.start()
        data = b""
        try:
            while chunk := sock.recv(65536):
                data += chunk
        finally:
            stop.set()
            dripper.join()
    head_part, _, body = data.partition(b"\r\n\r\n")
    return int(head_part.split()[1]), body, time.monotonic() - started


@pytest.mark.parametrize(("length", "status"), [(5000, 400), (MAX_BODY_BYTES + 1, 413)])
def test_a_dripping_body_is_refused_at_the_deadline_of_the_whole_body(release, length, status):
    stop = threading.Event()
    with StubServer(XopcPlatformStub(release, commands=0), timeouts=Timeouts(body=0.5)) as server:
        # a byte every 0.1 s: each read gets something well within the timeout, yet the body never completes
        answer, text, seconds = _drip(server, post(f"Content-Length: {length}\r\n"), stop)
        assert answer == status, text
        assert seconds < 3, seconds  # the whole body had 0.5 s, not 0.5 s per byte
        if status == 400:
            assert "bytes arrived within 0.5 s" in orjson.loads(text)["error"]
        still_serving(server)
        assert len(server.recorder) == 1  # only still_serving's request is in the HAR


# -- 2. a client that goes away --------------------------------------------------------------------------


class SlowBigAnswers:
    """Holds /slow until released, then answers with more than any socket buffer takes: the write must fail."""

    def __init__(self):
        self.release = threading.Event()

    def handle(self, method, url, path, headers, body):
        if path == "/slow":
            self.release.wait(10)
            return Reply(200, b"x" * (8 << 20), {"content-type": "text/plain"})
        return Reply(204)


def reset_connection(sock: socket.socket) -> None:
    """Close with an RST (linger 0), as a killed client's kernel does."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def wait_until_idle(server: StubServer) -> None:
    deadline = time.monotonic() + 10
    while server._server.in_flight and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not server._server.in_flight


@pytest.mark.parametrize("when", ["before reading the answer", "while sending the body"])
def test_a_client_that_goes_away_costs_one_debug_line_not_a_traceback(capsys, caplog, when):
    caplog.set_level(logging.DEBUG, logger="wirecheck.stub")
    app_object = SlowBigAnswers()
    with StubServer(app_object) as server:
        host, port = server.base_url.removeprefix("http://").split(":")
        sock = socket.create_connection((host, int(port)), timeout=10)
        if when == "before reading the answer":
            sock.sendall(b"GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            while not server._server.in_flight:  # the handler holds the request
                time.sleep(0.01)
            reset_connection(sock)
            app_object.release.set()  # now it writes 8 MiB to a connection that is gone
        else:
            sock.sendall(post("Content-Length: 1000\r\n", b'{"endpoint"'))
            while not server._server.in_flight:  # the handler is waiting for the rest of the body
                time.sleep(0.01)
            reset_connection(sock)
        wait_until_idle(server)
        still_serving(server)
    went_away = [r for r in caplog.records if r.name == "wirecheck.stub" and "went away" in r.getMessage()]
    assert len(went_away) == 1 and went_away[0].levelno == logging.DEBUG
    assert "Traceback" not in capsys.readouterr().err


# -- 3. the probe's deadline per call --------------------------------------------------------------------

DRIP_EVERY = 0.2
DRIP_BYTES = 25  # 5 s of dripping: far past the 0.5 s deadline


@contextlib.contextmanager
def dripping_platform(head: bytes, drip: bytes) -> Iterator[str]:
    """A 127.0.0.1 server that answers one request with `head` at once, then `drip` a byte every DRIP_EVERY."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(10)
    done = threading.Event()

    def serve() -> None:
        with contextlib.suppress(OSError), listener.accept()[0] as conn:
            conn.settimeout(10)
            request = b""
            while b"\r\n\r\n" not in request and (chunk := conn.recv(4096)):
                request += chunk
            conn.sendall(head)
            for byte in drip[:DRIP_BYTES]:
                if done.wait(DRIP_EVERY):
                    break
                conn.sendall(bytes([byte]))

    thread = threading.Thread(target=serve, daemon=True, name="dripping-platform")
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        done.set()
        thread.join(10)
        listener.close()


DISCOVERY = b'{"capabilities": {}}    '
RESPONSE = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n" % len(DISCOVERY)


@pytest.mark.parametrize(("head", "drip"), [(b"", RESPONSE + DISCOVERY), (RESPONSE, DISCOVERY.ljust(DRIP_BYTES))],
                         ids=["drips the status line", "drips the body"])
def test_a_dripping_platform_hits_the_deadline_of_the_whole_call(head, drip):
    with dripping_platform(head, drip) as url:
        probe = XopcProbe(url, timeout=0.5)
        clock = time.monotonic()
        outcome = probe.run()
        elapsed = time.monotonic() - clock
    assert outcome.problems == [f"GET {url}/.well-known/xopc-platform: no response "
                                f"(no complete answer within 0.5 s)"]
    assert elapsed < 3.5  # ~0.5 s; without a deadline per call it is the whole 5 s of dripping
    entries = probe.recorder.document()["log"]["entries"]
    assert len(entries) == 1 and entries[0]["response"]["status"] == 0  # recorded as: no response


def test_probe_command_reports_the_dripping_call_and_still_writes_its_reports(tmp_path):
    with dripping_platform(b"", RESPONSE + DISCOVERY) as url:
        result = CliRunner().invoke(app, ["probe", "xopc@0.0.253", url, "--timeout", "0.5",
                                          "--out-dir", str(tmp_path)])
    assert result.exit_code == 5, result.output  # no answer within the deadline: nothing heard, the run failed
    assert f"stopped: GET {url}/.well-known/xopc-platform: no response (no complete answer within 0.5 s)" \
        in result.output
    assert (tmp_path / "probe.har").is_file() and (tmp_path / "certification.txt").is_file()


def test_a_platform_that_does_not_speak_http_is_a_located_problem_not_a_traceback():
    with dripping_platform(b"HELLO\r\n\r\n", b"") as url:
        outcome = XopcProbe(url, timeout=5).run()
    assert outcome.problems == [f"GET {url}/.well-known/xopc-platform: no HTTP answer (BadStatusLine: 'HELLO\\r\\n')"]


def test_a_bad_scenario_file_is_said_once_as_a_scenario_error(tmp_path):
    """Issue 42, 6: each missing member was listed three times (one schema error per member, each naming them all)
    under "contract error"; a scenario is not a contract."""
    import subprocess
    import sys

    scenario = tmp_path / "bad.yaml"
    scenario.write_text('lease_seconds: "x"\nfoo: 1\n')
    proc = subprocess.run([sys.executable, "-m", "wirecheck", "stub", "xopc@0.0.253", "--scenario", str(scenario),
                           "--", "true"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    lines = proc.stderr.splitlines()
    assert lines[0] == "wirecheck: stub scenario error:" and "contract" not in proc.stderr
    assert len(lines) == len(set(lines)) == 4, lines
    assert sum("missing required members stub_scenario, name, description" in line for line in lines) == 1
