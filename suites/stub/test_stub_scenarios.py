"""The stub's scenarios (stub/scenario.py): base paths, lease lengths, delays, faults, the shipped scenario files and
their errors, and the HAR's order (requests by when they began, as HAR prefers and the rules need)."""

from __future__ import annotations

import datetime as dt
import http.client
import json
import time
import urllib.error
import urllib.request
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from wirecheck.cli.app import app
from wirecheck.contracts import load_registry
from wirecheck.contracts.errors import ContractError
from wirecheck.stub import scenario as scenarios
from wirecheck.stub.har import Exchange, HarRecorder
from wirecheck.stub.server import StubServer
from wirecheck.stub.xopc import XopcPlatformStub

TOKEN = "xopc_rt_wirecheck_scenario_test_0000000000"


@pytest.fixture(scope="module")
def release():
    return load_registry().load("xopc@0.0.253")


def post(url: str, body: object, timeout: float = 10.0) -> tuple[int, object]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers={
        "authorization": f"Bearer {TOKEN}", "content-type": "application/json", "accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            data = response.read()
            return response.status, json.loads(data) if data else None
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


# -- base paths and leases -------------------------------------------------------------------------------


@pytest.mark.parametrize("prefix", ["", "/tenant/a", "/x/y/z"])
def test_discovery_and_every_endpoint_keep_the_base_path(release, prefix):
    with StubServer(XopcPlatformStub(release)) as server:
        document = get(f"{server.base_url}{prefix}/.well-known/xopc-platform")
        agent = document["endpoints"]["agentApi"]
        assert agent == f"{server.base_url}{prefix}/agent"
        assert all(url.startswith(server.base_url + prefix) for url in document["endpoints"].values())
        status, leased = post(f"{agent}/lease", {"leaseSeconds": 30})
        assert status == 200 and leased["command"]["id"]
        # the stub's routes do not answer under another base path
        assert post(f"{server.base_url}/elsewhere/agent/lease", {"leaseSeconds": 30})[0] == 404


def test_leases_and_renewals_last_the_scenarios_seconds(release):
    platform = XopcPlatformStub(release, scenario=scenarios.StubScenario(lease_seconds=7))
    with StubServer(platform) as server:
        agent = get(f"{server.base_url}/.well-known/xopc-platform")["endpoints"]["agentApi"]
        before = time.time() * 1000
        _, leased = post(f"{agent}/lease", {"leaseSeconds": 30})
        command = leased["command"]
        assert before + 6_000 < command["leaseExpiresAt"] <= time.time() * 1000 + 7_000
        _, renewal = post(f"{agent}/commands/{command['id']}/renew",
                          {"leaseToken": command["leaseToken"], "leaseSeconds": 60})
        assert renewal["leaseExpiresAt"] <= time.time() * 1000 + 7_000  # what the platform grants, not what is asked
        _, shorter = post(f"{agent}/commands/{command['id']}/renew",
                          {"leaseToken": command["leaseToken"], "leaseSeconds": 2})
        assert shorter["leaseExpiresAt"] <= time.time() * 1000 + 2_000  # less is granted when less is asked


def test_the_default_lease_makes_a_worker_renew_within_a_second():
    """worker.ts:54 renews every max(1 s, a third of the time left): the default lease gives the 1 s floor."""
    assert max(1.0, scenarios.StubScenario().lease_seconds / 3) == 1.0
    assert scenarios.load(scenarios.resolve("normal")).lease_seconds == scenarios.DEFAULT_LEASE_SECONDS


# -- delays and faults -----------------------------------------------------------------------------------


def test_a_delay_holds_only_its_routes_answer(release):
    scenario = scenarios.StubScenario().with_options(delays=["terminal=0.6"])
    platform = XopcPlatformStub(release, scenario=scenario)
    with StubServer(platform) as server:
        agent = get(f"{server.base_url}/.well-known/xopc-platform")["endpoints"]["agentApi"]
        command = post(f"{agent}/lease", {"leaseSeconds": 30})[1]["command"]
        timings = {}
        for kind in ("xopc.run.started", "xopc.run.succeeded"):
            started = time.monotonic()
            event = {"schemaVersion": "1", "eventId": f"event_{kind}", "type": kind, "time": "2026-01-01T00:00:00Z",
                     "organizationId": "o", "workspaceId": "w", "runId": command["runId"], "sequence": 1,
                     "producer": "p", "payload": {}}
            assert post(f"{agent}/events", {"event": event, "leaseToken": command["leaseToken"]})[0] == 200
            timings[kind] = time.monotonic() - started
        # the platform acted before it held the answer back: the run is known to have ended
        assert platform.leased[command["id"]].terminal == "xopc.run.succeeded"
    assert timings["xopc.run.succeeded"] >= 0.6 > timings["xopc.run.started"]


def test_a_fault_answers_a_status_once_or_always(release):
    scenario = scenarios.StubScenario().with_options(faults=["lease=503", "heartbeat=500:always"])
    with StubServer(XopcPlatformStub(release, scenario=scenario)) as server:
        agent = get(f"{server.base_url}/.well-known/xopc-platform")["endpoints"]["agentApi"]
        assert [post(f"{agent}/lease", {"leaseSeconds": 30})[0] for _ in range(2)] == [503, 200]
        assert [post(f"{agent}/heartbeat", {})[0] for _ in range(2)] == [500, 500]
        entries = server.recorder.document()["log"]["entries"]
    assert [e["response"]["status"] for e in entries[1:]] == [503, 200, 500, 500]
    # each injected answer is marked the stub's own (HAR 1.2 custom field); the platform's answers are not
    assert [e.get("_wirecheck") for e in entries] == [None, {"fault": "lease=503 once"}, None,
                                                      {"fault": "heartbeat=500 always"},
                                                      {"fault": "heartbeat=500 always"}]


def test_a_dropped_connection_gets_no_answer_and_is_recorded_as_none(release):
    scenario = scenarios.StubScenario().with_options(faults=["renew=drop"])
    with StubServer(XopcPlatformStub(release, scenario=scenario)) as server:
        agent = get(f"{server.base_url}/.well-known/xopc-platform")["endpoints"]["agentApi"]
        command = post(f"{agent}/lease", {"leaseSeconds": 30})[1]["command"]
        path = f"/agent/commands/{command['id']}/renew"
        connection = http.client.HTTPConnection(server.base_url.split("//")[1], timeout=10)
        connection.request("POST", path, json.dumps({"leaseToken": command["leaseToken"], "leaseSeconds": 60}),
                           {"authorization": f"Bearer {TOKEN}", "content-type": "application/json"})
        with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
            connection.getresponse()
        connection.close()
        # once: the next renewal is answered
        assert post(f"{server.base_url}{path}", {"leaseToken": command["leaseToken"], "leaseSeconds": 60})[0] == 200
        entries = server.recorder.document()["log"]["entries"]
    assert [e["response"]["status"] for e in entries[2:]] == [0, 200]  # HAR: 0 when no response was received
    assert [e.get("_wirecheck") for e in entries[2:]] == [{"fault": "renew=drop once"}, None]


def test_the_stubs_own_refusals_are_marked_and_a_scenario_can_ask_for_cancellation(release, tmp_path):
    """A renewal of a command the stub never leased is answered 404 by the stub (no contract says what a platform
    answers): marked its own, as a route it does not serve. A scenario's cancel_after_renewals asks from that
    renewal on; --cancel-after-renewals overrides it."""
    path = tmp_path / "cancel.yaml"
    path.write_text("stub_scenario: 1\nname: cancel-second\ndescription: cancel on the second renewal\n"
                    "cancel_after_renewals: 2\n")
    scenario = scenarios.load(path)
    assert scenario.cancel_after_renewals == 2 and "cancellation asked from renewal 2" in "\n".join(scenario.describe())
    assert scenario.with_options(cancel_after_renewals=1).cancel_after_renewals == 1
    assert scenarios.load(scenarios.resolve("cancel")).cancel_after_renewals == 1
    with StubServer(XopcPlatformStub(release, scenario=scenario)) as server:
        agent = get(f"{server.base_url}/.well-known/xopc-platform")["endpoints"]["agentApi"]
        command = post(f"{agent}/lease", {"leaseSeconds": 30})[1]["command"]
        body = {"leaseToken": command["leaseToken"], "leaseSeconds": 60}
        assert post(f"{agent}/commands/{command['runId']}/renew", body)[0] == 404
        asked = [post(f"{agent}/commands/{command['id']}/renew", body)[1]["cancelRequested"] for _ in range(3)]
        assert post(f"{agent}/nowhere", {})[0] == 404
        entries = server.recorder.document()["log"]["entries"]
    assert asked == [False, True, True]
    assert [e.get("_wirecheck") for e in entries[2:]] == [
        {"refused": f"no leased command {command['runId']}"}, None, None, None,
        {"refused": "not found: POST /agent/nowhere"}]


@pytest.mark.parametrize(("option", "text", "expected"), [
    ("--delay", "events", "expected ROUTE=SECONDS"),
    ("--delay", "events=soon", "expected a number of seconds from 0 to 120"),
    ("--delay", "events=-1", "expected a number of seconds"),
    ("--delay", "events=nan", "expected a number of seconds"),
    ("--delay", "leases=1", "unknown route 'leases'; expected one of discovery, heartbeat, lease, events"),
    ("--fault", "renew", "expected ROUTE=STATUS|drop"),
    ("--fault", "renew=99", "expected an HTTP status 100-599 or drop"),
    ("--fault", "renew=503:twice", "expected once or always"),
    ("--scenario", "no-such-scenario", "no such scenario; shipped: cancel, normal, race"),
])
def test_options_the_stub_cannot_read_are_usage_errors(tmp_path, option, text, expected):
    result = CliRunner().invoke(app, ["stub", "xopc@0.0.253", option, text, "--out-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert expected in result.output
    assert "Traceback" not in result.output


def test_a_broken_scenario_file_is_located(tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("stub_scenario: 1\nname: broken\ndescription: a broken scenario file\n"
                    "delays:\n  - {route: terminal, seconds: 500}\n  - {route: terminal, seconds: 1}\n")
    with pytest.raises(ContractError) as caught:
        scenarios.load(path)
    shown = [str(p) for p in caught.value.problems]
    assert any("#/delays/0/seconds" in p and "(line 5)" in p for p in shown), shown
    result = CliRunner().invoke(app, ["stub", "xopc@0.0.253", "--scenario", str(path), "--out-dir", str(tmp_path)])
    assert result.exit_code == 2 and "delays/0/seconds" in result.output


def test_the_shipped_scenarios_load_and_race_holds_the_terminal_answer_past_a_renewal():
    race = scenarios.load(scenarios.resolve("race"))
    # a renewal is due every max(1 s, lease / 3) (worker.ts:54): the terminal answer waits longer than that
    renewal_due = max(1.0, race.lease_seconds / 3)
    assert race.delays == {"terminal": 2.5} and race.delay_for(("terminal", "events")) > renewal_due
    assert race.delay_for(("events",)) == 0
    assert set(scenarios.shipped()) >= {"normal", "race"}


def test_the_stub_command_reports_its_scenario_in_the_certification(tmp_path):
    import sys

    runtime = str(Path(__file__).with_name("xopc_runtime.py"))
    result = CliRunner().invoke(app, ["stub", "xopc@0.0.253", "--scenario", "race", "--delay", "terminal=0.2",
                                      "--max-seconds", "60", "--out-dir", str(tmp_path), "--", sys.executable,
                                      runtime, "{url}"])
    assert result.exit_code == 0, result.output
    assert "scenario race: leases of 3 s" in result.output and "delay terminal: 0.2 s" in result.output
    header = orjson.loads((tmp_path / "certification.jsonl").read_text().splitlines()[0])
    assert header["identity"]["run"]["scenario"]["path"].endswith("race.yaml")


# -- the HAR's order -------------------------------------------------------------------------------------


def exchange(path: str) -> Exchange:
    return Exchange("POST", f"http://127.0.0.1/{path}", {}, None, 200, {}, None, dt.datetime.now(dt.UTC), 1.0)


def test_entries_are_in_the_order_their_requests_began():
    recorder = HarRecorder()
    slow, quick, dropped, later = recorder.begin(), recorder.begin(), recorder.begin(), recorder.begin()
    recorder.add(exchange("quick"), quick)
    recorder.add(exchange("later"), later)
    recorder.abandon(dropped)
    assert len(recorder) == 2  # waiting entries count
    recorder.add(exchange("slow"), slow)
    recorder.abandon(slow)  # a place already recorded stays recorded
    recorder.add(exchange("unplaced"))
    urls = [e["request"]["url"].rsplit("/", 1)[1] for e in recorder.document()["log"]["entries"]]
    assert urls == ["slow", "quick", "later", "unplaced"]


def test_a_request_still_open_when_the_har_is_written_does_not_hold_the_others_back():
    recorder = HarRecorder()
    open_place, done = recorder.begin(), recorder.begin()
    recorder.add(exchange("done"), done)
    first = [e["request"]["url"] for e in recorder.document()["log"]["entries"]]
    recorder.add(exchange("open"), open_place)  # it finished after the HAR was read: last
    second = [e["request"]["url"].rsplit("/", 1)[1] for e in recorder.document()["log"]["entries"]]
    assert len(first) == 1 and second == ["done", "open"]
