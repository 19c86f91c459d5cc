"""The probe's redirect and token policy (stub/client.py): redirects within the host are followed hop by hop,
redirects to another host are not, the runtime token goes only to the base URL's host (or hosts the user names)
and over plain http only to this machine unless the user allows it, and the token appears in no report, HAR or
log line. Every server is a 127.0.0.1 StubServer; "another host" is the same machine under another name
(localhost), which is all a client can tell apart, and a host off this machine is reached through a proxy that is
such a server."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import orjson
import pytest
from typer.testing import CliRunner

from wirecheck.certify.pipeline import certify_captures
from wirecheck.cli.app import app
from wirecheck.contracts import load_registry
from wirecheck.stub.client import CallFailed, HttpClient
from wirecheck.stub.har import HarRecorder
from wirecheck.stub.probe import XopcProbe
from wirecheck.stub.redaction import Secrets
from wirecheck.stub.server import Reply, StubServer
from wirecheck.stub.xopc import XopcPlatformStub

TOKEN = "xopc_rt_s3cr3t-probe-token-0123456789abcdef"
SECRET = TOKEN.removeprefix("xopc_rt_")


@pytest.fixture(scope="module")
def release():
    return load_registry().load("xopc@0.0.253")


class ThirdParty:
    """Another host: answers 200 to everything and remembers what it was sent."""

    def __init__(self):
        self.requests: list[tuple[str, str, dict]] = []

    def handle(self, method, url, path, headers, body):
        self.requests.append((method, path, dict(headers)))
        return Reply(200, b'{"ok": true, "status": "accepted"}', {"content-type": "application/json"})


class Platform:
    """The stub as a platform, with `route(method, path, base) -> Reply | None` answering first."""

    def __init__(self, release, route):
        self.stub, self.route = XopcPlatformStub(release, commands=1), route

    def handle(self, method, url, path, headers, body):
        base = url[:url.index("/", len("http://"))]
        return self.route(method, path, base, headers) or self.stub.handle(method, url, path, headers, body)


def discovery_with(release, base, agent_api):
    from wirecheck.stub.xopc import discovery_document

    document = discovery_document(base)
    document["endpoints"]["agentApi"] = agent_api
    return Reply(200, orjson.dumps(document), {"content-type": "application/json"})


def elsewhere(server: StubServer) -> str:
    """The third party's base URL under another host name than the probe's base URL uses."""
    return server.base_url.replace("127.0.0.1", "localhost")


@pytest.mark.parametrize("status", [302, 307])
def test_a_redirect_to_another_host_is_not_followed_and_fails_the_run(release, tmp_path, status):
    third = ThirdParty()
    with StubServer(third) as other:
        def route(method, path, base, headers):
            if path == "/agent/heartbeat":
                return Reply(status, None, {"location": f"{elsewhere(other)}/agent/heartbeat"})
            return None

        with StubServer(Platform(release, route)) as server:
            probe = XopcProbe(server.base_url, token=TOKEN, timeout=10)
            outcome = probe.run()
    assert third.requests == []  # neither the request nor the token went there
    assert len(outcome.problems) == 1 and f"answered {status}, redirected to another host" in outcome.problems[0]
    entries = probe.recorder.document()["log"]["entries"]
    assert [e["response"]["status"] for e in entries] == [200, status]  # the redirect is the answer recorded
    cert = certify_captures(release, [probe.recorder.write(tmp_path / "probe.har")], role="platform",
                            run={"identity": {"argv": ["probe"]},
                                 "outcome": {"ok": outcome.ok, "problem": outcome.problems[0]}})
    assert not cert.passed


def test_a_redirect_within_the_host_is_followed_hop_by_hop(release):
    def route(method, path, base, headers):
        if path == "/.well-known/xopc-platform":
            return Reply(302, None, {"location": "/.well-known/xopc-platform/"})
        return None

    with StubServer(Platform(release, route)) as server:
        probe = XopcProbe(server.base_url, token=TOKEN, timeout=10)
        outcome = probe.run()
    assert outcome.ok, outcome.problems
    entries = probe.recorder.document()["log"]["entries"]
    assert [(e["request"]["url"].removeprefix(server.base_url), e["response"]["status"]) for e in entries[:2]] == [
        ("/.well-known/xopc-platform", 302), ("/.well-known/xopc-platform/", 200)]
    assert entries[0]["response"]["redirectURL"] == "/.well-known/xopc-platform/"


def port_of(server: StubServer) -> str:
    return server.base_url.rsplit(":", 1)[1]


@pytest.mark.parametrize("scheme", ["http", "https"])
@pytest.mark.parametrize("named", [False, True])
def test_the_token_goes_to_an_announced_agent_api_on_another_host_only_when_named(release, scheme, named):
    third = ThirdParty()
    with StubServer(third) as other:
        agent_api = f"{scheme}://localhost:{port_of(other)}/agent"

        def route(method, path, base, headers):
            if path == "/.well-known/xopc-platform":
                return discovery_with(release, base, agent_api)
            return None

        with StubServer(Platform(release, route)) as server:
            outcome = XopcProbe(server.base_url, token=TOKEN, timeout=10, max_leases=1,
                                token_hosts=("LocalHost",) if named else ()).run()
    if named and scheme == "http":  # a loopback host: plain http is fine
        assert third.requests[0][:2] == ("POST", "/agent/heartbeat")
        assert third.requests[0][2]["authorization"] == f"Bearer {TOKEN}"
    elif named:  # allowed, made, and failed at the TLS handshake (the third party speaks plain http)
        assert third.requests == [] and outcome.problems[0].startswith(f"POST {agent_api}/heartbeat: no response")
    else:
        assert third.requests == []
        assert outcome.problems == [f"POST {agent_api}/heartbeat: not sent: the runtime token is not sent to "
                                    "localhost, another host than the base URL's (127.0.0.1); --token-host "
                                    "localhost sends it there"]


def test_the_token_goes_over_plain_http_off_this_machine_only_when_allowed():
    # 192.0.2.0/24 (TEST-NET-1) is not this machine's loopback: the call is refused before anything connects
    recorder = HarRecorder(secrets=(TOKEN,))
    client = HttpClient("http://192.0.2.10:8080/", token=TOKEN, timeout=0.5, recorder=recorder)
    with pytest.raises(CallFailed) as refused:
        client.call("POST", "http://192.0.2.10:8080/agent/heartbeat", b"{}", {}, auth=True)
    assert str(refused.value) == ("POST http://192.0.2.10:8080/agent/heartbeat: not sent: the runtime token is not "
                                  "sent over plain http to 192.0.2.10, which is not this machine; "
                                  "--allow-insecure-token sends it")
    assert len(recorder) == 0
    assert client.token_problem("https://192.0.2.10/agent") is None
    for loopback in ("http://127.0.0.1:1/", "http://127.8.9.10/", "http://[::1]:8/", "http://localhost/"):
        assert HttpClient(loopback, token=TOKEN, timeout=1, recorder=recorder).token_problem(loopback) is None
    allowed = HttpClient("http://192.0.2.10:8080/", token=TOKEN, timeout=1, recorder=recorder,
                         allow_insecure_token=True)
    assert allowed.token_problem("http://192.0.2.10:9/agent") is None
    assert allowed.token_problem("http://192.0.2.11/agent") is not None  # allowed over http, not to another host


class Proxied:
    """A platform at http://platform.invalid reached through an http proxy (the proxy and the platform are one
    127.0.0.1 server): a host off this machine, as the client sees it, with nothing leaving it. (Not the stub: it
    serves only its own URLs, and answers a request for another host 421.)"""

    def __init__(self, release):
        self.stub, self.authorizations = XopcPlatformStub(release, commands=1), []
        stub, authorizations = self.stub, self.authorizations

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _serve(self):
                headers = {k.lower(): v for k, v in self.headers.items()}
                authorizations.append(headers.get("authorization"))
                body = self.rfile.read(int(headers.get("content-length") or 0)) or None
                reply = stub.handle(self.command, self.path, urlsplit(self.path).path, headers, body)
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(reply.body or b"")))
                self.end_headers()
                self.wfile.write(reply.body or b"")

            do_GET = do_POST = _serve

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.parametrize("allowed", [False, True])
def test_probe_over_plain_http_to_a_host_off_loopback_sends_no_token_unless_allowed(release, tmp_path, monkeypatch,
                                                                                    allowed):
    with Proxied(release) as platform:
        proxy = platform
        monkeypatch.setenv("http_proxy", proxy.base_url)
        monkeypatch.delenv("no_proxy", raising=False)
        monkeypatch.delenv("NO_PROXY", raising=False)
        result = CliRunner().invoke(app, ["probe", "xopc@0.0.253", "http://platform.invalid", "--token", TOKEN,
                                          "--max-leases", "2", "--out-dir", str(tmp_path),
                                          *(["--allow-insecure-token"] if allowed else [])])
    if allowed:
        assert f"Bearer {TOKEN}" in platform.authorizations and result.exit_code == 0, result.output
    else:
        assert platform.authorizations == [None]  # discovery (sent without a token), then nothing
        assert "platform.invalid, which is not this machine; --allow-insecure-token sends it" in result.output
        assert result.exit_code not in (0, 2)


def test_a_loopback_platform_is_called_directly_whatever_http_proxy_says(release, monkeypatch):
    proxy = ThirdParty()
    with StubServer(proxy) as other:
        monkeypatch.setenv("http_proxy", other.base_url)
        monkeypatch.setenv("https_proxy", other.base_url)
        monkeypatch.delenv("no_proxy", raising=False)
        monkeypatch.delenv("NO_PROXY", raising=False)
        with StubServer(Platform(release, lambda *_: None)) as server:
            outcome = XopcProbe(server.base_url, token=TOKEN, timeout=10, max_leases=1).run()
    assert proxy.requests == [] and outcome.ok, outcome.problems


def test_the_token_is_in_no_report_har_or_log_line(release, tmp_path):
    """A platform that echoes the token it was sent, in a body, a header and a redirect's Location, and spelled
    with JSON escapes in a value the certification quotes (it is not a date)."""

    def route(method, path, base, headers):
        token = headers.get("authorization", "").removeprefix("Bearer ")
        if path.endswith("/renew"):
            escaped = "".join(f"\\u{ord(c):04x}" for c in token)
            return Reply(200, b'{"leaseExpiresAt": "%s", "cancelRequested": false}' % escaped.encode(),
                         {"content-type": "application/json"})
        if path == "/agent/heartbeat":
            return Reply(302, None, {"location": f"/agent/heartbeat/again?t={token}", "x-echo": token})
        if path.startswith("/agent/heartbeat/again"):
            return Reply(200, orjson.dumps({"ok": True, "you": token}), {"content-type": "application/json"})
        return None

    with StubServer(Platform(release, route)) as server:
        result = CliRunner().invoke(app, ["probe", "xopc@0.0.253", server.base_url, "--token", TOKEN, "--out-dir",
                                          str(tmp_path), "--format", "jsonl"])
        server_har = server.recorder.write(tmp_path / "platform-side.har")  # the stub's HAR learns it too
    written = {path.name: path.read_bytes() for path in tmp_path.iterdir()}
    leaked = [name for name, data in written.items() if SECRET.encode() in data]
    assert leaked == [] and SECRET not in result.output
    assert len(written) >= 6 and server_har.name in written
    assert result.exit_code in (0, 1), result.output
    assert "/agent/heartbeat/again" in (tmp_path / "probe.har").read_text()  # the redirect was followed


def test_a_base_url_with_credentials_is_refused_without_repeating_them():
    result = CliRunner().invoke(app, ["probe", "xopc@0.0.253", f"https://runtime:{SECRET}@platform.example/"])
    assert result.exit_code == 2 and "holds credentials" in result.output
    assert SECRET not in result.output


def test_redirects_within_the_host_end_after_five(release):
    def route(method, path, base, headers):
        if path.startswith("/.well-known/xopc-platform"):
            return Reply(302, None, {"location": path + "x"})
        return None

    with StubServer(Platform(release, route)) as server:
        probe = XopcProbe(server.base_url, token=TOKEN, timeout=10)
        outcome = probe.run()
    assert outcome.problems == [f"GET {server.base_url}/.well-known/xopc-platformxxxxxx: more than 5 redirects"]
    assert len(probe.recorder) == 6  # each hop recorded


def test_a_token_spelled_with_escapes_is_cut_and_the_rest_of_the_body_kept_as_it_was():
    escaped = "".join(f"\\u{ord(c):04x}" for c in SECRET)
    body = '{"n": 1.50, "other": "caf\\u00e9", "t": "xopc_rt_' + escaped + '!", "k": "\\ud800"}'
    cut = Secrets([TOKEN]).cut(body)
    assert SECRET not in json.dumps(json.loads(cut), ensure_ascii=False)
    assert cut == '{"n": 1.50, "other": "caf\\u00e9", "t": "xopc_rt_<redacted 35 chars>!", "k": "\\ud800"}'
    unclosed = '"' + '\\"' * 1000 + "xopc_rt_" + escaped + "\\"  # not JSON: cut all the same
    assert Secrets([TOKEN]).cut(unclosed) == '"' + '\\"' * 1000 + "xopc_rt_<redacted 35 chars>\\"


def test_a_recorder_given_empty_is_the_one_used_and_learns_the_token():
    # an empty HarRecorder is falsy (it has a length): `recorder or HarRecorder()` replaced it
    given = HarRecorder()
    probe = XopcProbe("http://127.0.0.1:9", token=TOKEN, recorder=given)
    assert probe.recorder is given and SECRET not in given.scrub(TOKEN)
    server_recorder = HarRecorder()
    with StubServer(ThirdParty(), recorder=server_recorder) as server:
        assert server.recorder is server_recorder
