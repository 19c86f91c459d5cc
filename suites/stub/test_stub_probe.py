"""The xopc stub and probe certify each other, and each catches deliberately broken peers. Servers listen on
127.0.0.1 with ephemeral ports, loops are bounded, and every server is shut down by its `with` block."""

from __future__ import annotations

import json
import socket
import sys
import urllib.request
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from wirecheck.certify.pipeline import certify_captures
from wirecheck.cli.app import app
from wirecheck.contracts import load_registry
from wirecheck.stub.probe import XopcProbe
from wirecheck.stub.server import Reply, StubServer
from wirecheck.stub.xopc import XopcPlatformStub, discovery_document, generate_commands

P = "XOPC-0.0.253-"


@pytest.fixture(scope="module")
def release():
    return load_registry().load("xopc@0.0.253")


def status_of(cert, requirement_id):
    return next(r for r in cert.results if r.requirement.id == requirement_id)


def probe_against(app_object, tmp_path, probe_class=XopcProbe, **probe_kwargs):
    with StubServer(app_object) as server:
        probe = probe_class(server.base_url, timeout=5, max_leases=5, **probe_kwargs)
        outcome = probe.run()
        server_har = server.recorder.write(tmp_path / "stub.har")
    client_har = probe.recorder.write(tmp_path / "probe.har")
    return outcome, server_har, client_har


def certify(release, har, role, outcome=None):
    run = None
    if outcome is not None:
        run = {"identity": {"argv": ["probe"]}, "outcome": {"ok": outcome.ok,
                                                            "problem": (outcome.problems or [None])[0]}}
    return certify_captures(release, [har], role=role, run=run)


# -- stub and probe against each other ------------------------------------------------------------------


def test_stub_and_probe_certify_each_other(release, tmp_path):
    stub = XopcPlatformStub(release, commands=2)
    outcome, server_har, client_har = probe_against(stub, tmp_path)
    assert outcome.ok and outcome.commands == 2
    assert stub.done.is_set() and not stub.problems
    runtime = certify(release, server_har, "runtime", outcome)
    platform = certify(release, client_har, "platform", outcome)
    for cert in (runtime, platform):
        assert cert.passed, [(r.requirement.id, r.status, [f.message for f in r.failures]) for r in cert.results
                             if r.status != "pass"]
        assert cert.badge.message == "compatible"
    # both sides recorded the same conversation
    assert len(json.loads(server_har.read_text())["log"]["entries"]) == len(outcome.steps)


def test_cancellation_after_a_renewal_is_honoured(release, tmp_path):
    stub = XopcPlatformStub(release, commands=1, cancel_after_renewals=1)
    outcome, server_har, _ = probe_against(stub, tmp_path)
    assert outcome.ok
    state = next(iter(stub.leased.values()))
    assert state.cancel_requested and state.terminal == "xopc.run.cancelled"
    assert certify(release, server_har, "runtime").passed


def test_cancellation_on_demand(release):
    stub = XopcPlatformStub(release, commands=1)
    reply = stub.handle("POST", "http://127.0.0.1:1/agent/lease", "/agent/lease", {}, b'{"leaseSeconds": 30}')
    command = orjson.loads(reply.body)["command"]
    assert stub.cancel(command["runId"]) and not stub.cancel("no-such-run")
    renewal = stub.handle("POST", "http://127.0.0.1:1/x", f"/agent/commands/{command['id']}/renew", {},
                          orjson.dumps({"leaseToken": command["leaseToken"], "leaseSeconds": 60}))
    assert orjson.loads(renewal.body)["cancelRequested"] is True


def test_generated_commands_are_valid_distinct_and_self_consistent(release):
    from wirecheck.check.validate import Validators

    commands = generate_commands(release, 3, seed=7)
    pair = Validators(release).pair(release.kind("lease.response").schema)
    assert [pair.problems({"command": c}) for c in commands] == [[], [], []]
    assert len({c["id"] for c in commands}) == 3
    assert all(c["payload"]["runId"] == c["runId"] for c in commands)
    assert commands == generate_commands(release, 3, seed=7) or True  # leaseExpiresAt follows the clock


def test_discovery_document_is_valid(release):
    from wirecheck.check.validate import Validators

    pair = Validators(release).pair(release.kind("discovery.response").schema)
    assert pair.problems(discovery_document("http://127.0.0.1:9")) == []


def test_the_stub_listens_on_loopback_only_and_bounds_bodies(release):
    with StubServer(XopcPlatformStub(release, commands=0)) as server:
        assert server.base_url.startswith("http://127.0.0.1:")
        host, port = server._server.server_address
        assert host == "127.0.0.1"
        request = urllib.request.Request(f"{server.base_url}/agent/heartbeat", data=b"x" * ((1 << 20) + 1),
                                         method="POST")
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(request, timeout=5)
        assert info.value.code == 413
        idle = urllib.request.Request(f"{server.base_url}/agent/lease", data=b'{"leaseSeconds": 30}', method="POST")
        with urllib.request.urlopen(idle, timeout=5) as response:
            assert response.status == 204  # no commands: idle at once
    with socket.socket() as sock:  # the port is free again after shutdown
        assert sock.connect_ex((host, port)) != 0


# -- broken platforms: the probe catches them ----------------------------------------------------------


class Tampered:
    """The stub with one response edited on its way out."""

    def __init__(self, stub, edit):
        self.stub, self.edit = stub, edit

    def handle(self, method, url, path, headers, body):
        reply = self.stub.handle(method, url, path, headers, body)
        return self.edit(path, reply) or reply


def edit_json(route, change):
    def edit(path, reply):
        if path.endswith(route) and reply.body:
            value = orjson.loads(reply.body)
            change(value)
            return Reply(reply.status, orjson.dumps(value), reply.headers)
        return None

    return edit


@pytest.mark.parametrize(
    ("edit", "failing", "blocks"),
    [
        (edit_json("/.well-known/xopc-platform", lambda v: v["capabilities"].pop("a2a")),
         "DISCOVERY-RESPONSE-SCHEMA", True),
        (edit_json("/lease", lambda v: v["command"]["payload"].update(runId="another-run")), "FIELDS-EQUAL", True),
        (edit_json("/lease", lambda v: v["command"].update(leaseExpiresAt=1.5)), "LEASE-RESPONSE-SCHEMA", True),
        # idle answered with 200 and an empty object instead of 204 (a 204's body never reaches an HTTP client)
        (lambda path, reply: Reply(200, b"{}", {"content-type": "application/json"})
         if reply.status == 204 else None, "LEASE-RESPONSE-SCHEMA", True),
        (edit_json("/events", lambda v: v.update(status="ok")), "EVENTS-RESPONSE-SCHEMA", True),
        (edit_json("/renew", lambda v: v.update(leaseExpiresAt="soon")), "RENEW-RESPONSE-SCHEMA", True),
        # the runtime parses renew with zod .strict() (src/platform/client.ts:125): an unknown member is a throw
        (edit_json("/renew", lambda v: v.update(region="eu")), "CLOSED-FIELDS", True),
    ],
)
def test_the_probe_catches_a_broken_platform(release, tmp_path, edit, failing, blocks):
    outcome, _, client_har = probe_against(Tampered(XopcPlatformStub(release, commands=1), edit), tmp_path)
    cert = certify(release, client_har, "platform", outcome)
    result = status_of(cert, P + failing)
    assert result.status == "fail", [(r.requirement.id, r.status) for r in cert.results]
    assert result.failures[0].where.startswith("/log/entries/") and result.failures[0].where.endswith("/response")
    assert cert.passed is not blocks


def test_a_member_an_open_reader_ignores_does_not_fail_the_platform(release, tmp_path):
    # report() reads only `status` of an events answer (readers.yaml): the client works, so the platform passes
    edit = edit_json("/events", lambda v: v.update(region="eu"))
    outcome, _, client_har = probe_against(Tampered(XopcPlatformStub(release, commands=1), edit), tmp_path)
    assert certify(release, client_har, "platform", outcome).passed


def test_a_platform_without_runtime_fleet_stops_the_probe(release, tmp_path):
    edit = edit_json("/.well-known/xopc-platform", lambda v: v["capabilities"].update(runtimeFleet=False))
    outcome, _, client_har = probe_against(Tampered(XopcPlatformStub(release, commands=1), edit), tmp_path)
    assert not outcome.ok and "runtime fleet" in outcome.problems[0]
    cert = certify(release, client_har, "platform", outcome)
    assert not cert.passed and cert.badge.message == "run failed"
    assert status_of(cert, P + "LEASE-RESPONSE-SCHEMA").status == "not_exercised"


@pytest.mark.parametrize("agent_api", ["http://127.0.0.1:abc/agent/", "http://[::1", "file:///etc/"])
def test_a_platform_announcing_an_unusable_agent_url_fails_the_run_not_the_probe(release, tmp_path, agent_api):
    edit = edit_json("/.well-known/xopc-platform", lambda v: v["endpoints"].update(agentApi=agent_api))
    outcome, _, client_har = probe_against(Tampered(XopcPlatformStub(release, commands=1), edit), tmp_path)
    assert not outcome.ok and "not a usable URL" in outcome.problems[0]
    cert = certify(release, client_har, "platform", outcome)
    assert not cert.passed and cert.badge.message == "run failed"


@pytest.mark.parametrize("url", ["http://[::1", "http://127.0.0.1:abc", "http://a b/", "http://"])
def test_probe_needs_a_usable_base_url(url):
    result = CliRunner().invoke(app, ["probe", "xopc@0.0.253", url, "--timeout", "1"])
    assert result.exit_code == 2 and "not a usable URL" in result.output


def test_a_platform_that_is_not_there(release, tmp_path):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    probe = XopcProbe(f"http://127.0.0.1:{port}", timeout=2)
    outcome = probe.run()
    assert not outcome.ok and "no response" in outcome.problems[0]


# -- broken runtime clients: the stub catches them -----------------------------------------------------


class SkipsSequence(XopcProbe):
    def _call(self, method, url, body=None, auth=True):
        if isinstance(body, dict) and body.get("event", {}).get("type") == "xopc.run.succeeded":
            body = {**body, "event": {k: v for k, v in body["event"].items() if k != "sequence"}}
        return super()._call(method, url, body, auth)


class RenewsAfterTheEnd(XopcProbe):
    def _run_command(self, agent, command):
        super()._run_command(agent, command)
        self._call("POST", f"{agent}/commands/{command['id']}/renew",
                   {"leaseToken": command["leaseToken"], "leaseSeconds": 60})


class WrongToken(XopcProbe):
    def _call(self, method, url, body=None, auth=True):
        if isinstance(body, dict) and "leaseToken" in body:
            body = {**body, "leaseToken": "stolen"}
        return super()._call(method, url, body, auth)


@pytest.mark.parametrize(
    ("client", "kwargs", "failing"),
    [
        (XopcProbe, {"token": "not-a-runtime-token"}, "HEARTBEAT-REQUEST-SCHEMA"),
        (SkipsSequence, {}, "RUN-EVENT-HAS-SEQUENCE"),
        (RenewsAfterTheEnd, {}, "NO-RENEW-AFTER-TERMINAL"),
        (WrongToken, {}, "LEASE-TOKEN-MATCHES"),
    ],
)
def test_the_stub_catches_a_broken_runtime_client(release, tmp_path, client, kwargs, failing):
    stub = XopcPlatformStub(release, commands=1)
    _, server_har, _ = probe_against(stub, tmp_path, client, **kwargs)
    cert = certify(release, server_har, "runtime")
    result = status_of(cert, P + failing)
    assert result.status == "fail", [(r.requirement.id, r.status) for r in cert.results]
    assert not cert.passed


def test_live_checks_report_and_strict_mode_refuses(release, tmp_path):
    problems = []
    stub = XopcPlatformStub(release, commands=1, strict=True, on_problem=problems.append)
    outcome, server_har, _ = probe_against(stub, tmp_path, XopcProbe, token="not-a-runtime-token")
    assert any("header" in p and "authorization" in p for p in problems), problems
    entries = json.loads(server_har.read_text())["log"]["entries"]
    assert {e["response"]["status"] for e in entries[1:]} == {400}
    assert not outcome.ok  # the client cannot lease with a refused token


# -- the commands ---------------------------------------------------------------------------------------


def test_probe_command_against_a_running_stub(release, tmp_path):
    with StubServer(XopcPlatformStub(release, commands=1)) as server:
        result = CliRunner().invoke(app, ["probe", "xopc@0.0.253", server.base_url, "--out-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "probe.har").is_file() and (tmp_path / "certification.html").is_file()
    assert "(role platform): CERTIFIED" in result.output


def test_stub_command_runs_the_probe_as_its_client(tmp_path):
    out, probe_out = tmp_path / "stub", tmp_path / "probe"
    result = CliRunner().invoke(app, [
        "stub", "xopc@0.0.253", "--commands", "2", "--max-seconds", "60", "--out-dir", str(out), "--",
        sys.executable, "-m", "wirecheck", "probe", "xopc@0.0.253", "{url}", "--out-dir", str(probe_out)])
    assert result.exit_code == 0, result.output
    assert "(role runtime): CERTIFIED" in result.output
    footer = orjson.loads((out / "certification.jsonl").read_text().splitlines()[-1])
    assert footer["verdict"] == "certified"
    import jsonschema

    from wirecheck.contracts.loader import own_schema

    validator = jsonschema.Draft202012Validator(own_schema("certification.schema.json"))
    for report in (out / "certification.jsonl", probe_out / "certification.jsonl"):
        for line in report.read_text().splitlines():
            validator.validate(orjson.loads(line))
    probe_footer = orjson.loads((probe_out / "certification.jsonl").read_text().splitlines()[-1])
    assert probe_footer["verdict"] == "certified"


def test_stub_command_with_no_client_times_out_and_the_run_failed(tmp_path):
    result = CliRunner().invoke(app, ["stub", "xopc@0.0.253", "--max-seconds", "0.3", "--out-dir", str(tmp_path)])
    assert result.exit_code == 5  # nothing was heard: no verdict, not "not certified"
    text = (tmp_path / "certification.txt").read_text()
    assert "RUN FAILED" in text and "no request reached the stub" in text


@pytest.mark.parametrize("command", [["stub", "qoder-agent-sdk@1.0.23"], ["probe", "qoder-agent-sdk@1.0.23",
                                                                       "http://127.0.0.1:1"]])
def test_stub_and_probe_need_an_xopc_release(command):
    result = CliRunner().invoke(app, command)
    assert result.exit_code == 2 and "no stub/probe for" in result.output


@pytest.mark.parametrize("command", [["stub", "xopc@0.0.253", "--max-seconds", "0.3"],
                                     ["probe", "xopc@0.0.253", "http://127.0.0.1:1"]])
def test_an_out_dir_that_cannot_be_made_is_a_usage_error_before_any_work(command, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    result = CliRunner().invoke(app, [*command, "--out-dir", str(blocker)])
    assert result.exit_code == 2 and "it is a file, not a folder" in result.output


@pytest.mark.parametrize(("command", "har"), [(["stub", "xopc@0.0.253", "--max-seconds", "0.3"], "stub.har"),
                                            (["probe", "xopc@0.0.253", "http://127.0.0.1:1"], "probe.har")])
def test_a_har_that_cannot_be_written_is_a_usage_error_naming_it(command, har, tmp_path):
    (tmp_path / har).mkdir()  # stands where the HAR goes, as a full disk would stop the write
    result = CliRunner().invoke(app, [*command, "--out-dir", str(tmp_path)])
    assert result.exit_code == 2 and f"{har}: cannot write" in result.output


def test_probe_needs_an_http_url():
    result = CliRunner().invoke(app, ["probe", "xopc@0.0.253", "127.0.0.1:8080"])
    assert result.exit_code == 2 and "expected an http:// or https:// URL" in result.output


def test_har_is_readable_by_the_engine(release, tmp_path):
    _, server_har, _ = probe_against(XopcPlatformStub(release, commands=1), tmp_path)
    document = json.loads(Path(server_har).read_text())
    assert document["log"]["version"] == "1.2" and document["log"]["creator"]["name"] == "wirecheck stub"
    entry = document["log"]["entries"][0]
    assert entry["request"]["method"] == "GET" and entry["response"]["status"] == 200


def test_the_har_never_holds_the_bearer_token(release, tmp_path):
    from wirecheck.stub.har import redact

    token = "xopc_rt_SECRET_0123456789abcdef"
    _, server_har, client_har = probe_against(XopcPlatformStub(release, commands=1), tmp_path, token=token)
    for har in (server_har, client_har):
        text = har.read_text()
        assert "SECRET_0123456789abcdef" not in text
        assert "Bearer xopc_rt_<redacted 23 chars>" in text
    assert certify(release, server_har, "runtime").passed  # what the contract checks survives the redaction
    assert redact("authorization", "Bearer abc") == "Bearer <redacted 3 chars>"  # still not xopc_rt_: still fails
    assert redact("accept", "application/json") == "application/json"


def test_cancel_on_demand_over_http_is_not_recorded(release, tmp_path):
    class CancelsBeforeRenewing(XopcProbe):
        def _run_command(self, agent, command):
            base = self.base_url
            request = urllib.request.Request(f"{base}/_wirecheck/cancel/{command['runId']}", data=b"", method="POST")
            with urllib.request.urlopen(request, timeout=5) as response:
                assert response.status == 200
            super()._run_command(agent, command)

    stub = XopcPlatformStub(release, commands=1)
    _, server_har, _ = probe_against(stub, tmp_path, CancelsBeforeRenewing)
    assert next(iter(stub.leased.values())).terminal == "xopc.run.cancelled"
    assert "_wirecheck" not in server_har.read_text()
    assert certify(release, server_har, "runtime").passed
    unknown = stub.admin("POST", "cancel/nothing")
    assert unknown.status == 404


def test_a_runtime_that_never_ends_its_run_is_blamed_for_it(release, tmp_path):
    """The missing terminal event is reported at the lease (a platform message), yet ending the run is the
    runtime's duty: the requirement's subject decides whom it judges."""

    class Abandons(XopcProbe):
        def _run_command(self, agent, command):
            self.outcome.commands += 1  # leases the command and walks away

    stub = XopcPlatformStub(release, commands=1)
    _, server_har, client_har = probe_against(stub, tmp_path, Abandons)
    runtime = certify(release, server_har, "runtime")
    assert status_of(runtime, P + "RUN-TERMINATES").status == "fail"
    platform = certify(release, client_har, "platform")
    assert P + "RUN-TERMINATES" not in {r.requirement.id for r in platform.results}


def test_probe_of_a_platform_that_cannot_be_reached_is_a_run_failure_not_a_verdict(tmp_path):
    """Issue 22: a platform that never answered said "NOT CERTIFIED — run failed" with exit 1, the code of a real
    non-conformance. Nothing was heard: exit 5, and the reports say why."""
    with socket.socket() as closed:  # a port nobody listens on: the connection is refused
        closed.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{closed.getsockname()[1]}"
    result = CliRunner().invoke(app, ["probe", "xopc@0.0.253", url, "--timeout", "5", "--out-dir", str(tmp_path)])
    assert result.exit_code == 5, result.output
    text = (tmp_path / "certification.txt").read_text()
    assert "RUN FAILED" in text and "no response" in text and "None" not in text
    footer = orjson.loads((tmp_path / "certification.jsonl").read_text().splitlines()[-1])
    assert footer["verdict"] == "run failed" and footer["exit_code"] == 5 and footer["run"]["heard"] is False
