"""The probe's redirect and token policy (stub/client.py): redirects within the host are followed hop by hop,
redirects to another host are not, the runtime token goes over plain http only to the base URL's origin unless
the user allows it, and the token appears in no report, HAR or log line. Every server is a 127.0.0.1 StubServer;
"another host" is the same machine under another name (localhost), which is all a client can tell apart."""

from __future__ import annotations

import orjson
import pytest
from typer.testing import CliRunner

from wirecheck.certify.pipeline import certify_captures
from wirecheck.cli.app import app
from wirecheck.contracts import load_registry
from wirecheck.stub.probe import XopcProbe
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


@pytest.mark.parametrize("allowed", [False, True])
def test_the_token_goes_over_plain_http_to_another_origin_only_when_allowed(release, allowed):
    third = ThirdParty()
    with StubServer(third) as other:
        def route(method, path, base, headers):
            if path == "/.well-known/xopc-platform":
                return discovery_with(release, base, f"{elsewhere(other)}/agent")
            return None

        with StubServer(Platform(release, route)) as server:
            outcome = XopcProbe(server.base_url, token=TOKEN, timeout=10, max_leases=1,
                                allow_insecure_token=allowed).run()
    if allowed:
        assert third.requests[0][:2] == ("POST", "/agent/heartbeat")
        assert third.requests[0][2]["authorization"] == f"Bearer {TOKEN}"
    else:
        assert third.requests == []
        assert outcome.problems == [f"POST {elsewhere(other)}/agent/heartbeat: not sent: the runtime token is not "
                                    f"sent over plain http to http://localhost:{other.base_url.rsplit(':', 1)[1]}, "
                                    "another origin than the base URL's (http://127.0.0.1:"
                                    f"{server.base_url.rsplit(':', 1)[1]}); --allow-insecure-token sends it"]


def test_the_token_is_in_no_report_har_or_log_line(release, tmp_path):
    """A platform that echoes the token it was sent, in a body, a header and a redirect's Location."""

    def route(method, path, base, headers):
        token = headers.get("authorization", "").removeprefix("Bearer ")
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
