"""Unit tests of the xopc protocol rules (tools/wirecheck/rules/xopc.py), message by message.

The fixtures (fixtures/xopc/) show each rule once through the whole engine; these tests pin the edges: what a
rule ignores, what it reports once, and what it must never print (lease tokens).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from wirecheck.check.message import HttpInfo, Message
from wirecheck.contracts import load_registry
from wirecheck.rules import xopc
from wirecheck.rules.registry import RULES, instantiate

ROOT = Path(__file__).resolve().parents[3]
RELEASE = load_registry(ROOT / "contracts").load("xopc@0.0.253")
OLD = load_registry(ROOT / "contracts").load("xopc@0.0.251")
API = "https://runtime.test/api/v1/runtime"
TERMINAL = ["xopc.run.succeeded", "xopc.run.failed", "xopc.run.cancelled"]


def rule(rule_id: str):
    return instantiate(next(use for use in RELEASE.rules if use.id == rule_id), RELEASE)


def message(kind: str, value: Any, path: str = "/", status: int | None = None, line: int = 1,
            headers: dict[str, str] | None = None, release=RELEASE) -> Message:
    method = "GET" if kind.endswith(("get.request", "messages.request")) else "POST"
    return Message(value=value, file="capture.jsonl", line=line, kind=release.kind(kind),
                   http=HttpInfo(method, f"{API}{path}", f"/api/v1/runtime{path}", status, headers or {}))


def lease(run: str = "run-1", cid: str = "command-1", token: str = "secret-lease-token-1", line: int = 1):
    command = {"id": cid, "runId": run, "leaseToken": token, "type": "run.start", "leaseExpiresAt": 1, "payload": {}}
    return message("lease.response", {"command": command}, "/lease", 200, line)


def event(type_: str, sequence: int | None = None, run: str | None = "run-1",
          token: str | None = "secret-lease-token-1", event_id: str | None = None, line: int = 1):
    ev: dict[str, Any] = {"type": type_, "eventId": event_id or f"event_{type_}_{sequence}"}
    if run is not None:
        ev["runId"] = run
    if sequence is not None:
        ev["sequence"] = sequence
    body: dict[str, Any] = {"event": ev}
    if token is not None:
        body["leaseToken"] = token
    return message("events.request", body, "/events", None, line)


def renew(cid: str = "command-1", token: Any = "secret-lease-token-1", line: int = 1):
    return message("renew.request", {"leaseToken": token, "leaseSeconds": 60}, f"/commands/{cid}/renew", None, line)


def run(rule_obj, *messages: Message):
    findings = [f for m in messages for f in rule_obj.on_message(m)]
    return findings + list(rule_obj.finish())


# ---- rule texts and registration --------------------------------------------------------------------

TEXTS = yaml.safe_load((ROOT / "tools/wirecheck/rules/texts/xopc.yaml").read_text(encoding="utf-8"))


def test_every_xopc_rule_has_its_text_and_every_text_its_rule():
    registered = {rule_id for rule_id in RULES if rule_id.startswith("XOPC_")}
    assert registered == set(TEXTS)


@pytest.mark.parametrize("rule_id", sorted(TEXTS))
def test_rule_text_follows_the_house_style(rule_id):
    text = TEXTS[rule_id]
    assert rule_id.startswith("XOPC_") and rule_id == rule_id.upper()
    assert text["purpose"].startswith("Checks that") and text["purpose"].endswith(".")
    assert text["level"] in {"error", "warning"} and text["group"] == "protocol" and text["rationale"]


@pytest.mark.parametrize("release", [OLD, RELEASE], ids=lambda r: r.version)
def test_catalog_rule_uses_name_kinds_of_their_release(release):
    ids = {k.id for k in release.kinds}
    for use in release.rules:
        for key in ("lease", "event", "renew"):
            if key in use.params:
                assert use.params[key] in ids, (use.id, key)
        assert set(use.params.get("header_only", ())) <= ids


# ---- XOPC_RUN_EVENT_HAS_SEQUENCE --------------------------------------------------------------------


def test_a_run_event_without_sequence_is_reported_at_the_sequence():
    [finding] = run(rule("XOPC_RUN_EVENT_HAS_SEQUENCE"), event("xopc.run.started"))
    assert (finding.code, finding.pointer, finding.kind) == ("XOPC_RUN_EVENT_HAS_SEQUENCE", "/event/sequence",
                                                             "events.request")


@pytest.mark.parametrize(
    "body",
    [
        {"event": {"type": "xopc.runtime.health"}},  # not a run event
        {"event": {"type": "xopc.run.started", "runId": "", "eventId": "e"}},  # zod: `event.runId &&` is falsy
        {"event": {"type": "xopc.run.started", "runId": "run-1", "sequence": None}},  # null is the schema's finding
        {"event": "not an object"},
        {},
    ],
)
def test_what_the_sequence_rule_leaves_to_the_schema(body):
    assert run(rule("XOPC_RUN_EVENT_HAS_SEQUENCE"), message("events.request", body, "/events")) == []


# ---- XOPC_RUN_LIFECYCLE -----------------------------------------------------------------------------


def lifecycle(*events: Message):
    return [(f.pointer, f.found) for f in run(rule("XOPC_RUN_LIFECYCLE"), *events)]


@pytest.mark.parametrize("terminal", TERMINAL)
def test_started_then_one_terminal_event_conforms(terminal):
    assert lifecycle(event("xopc.run.started", 1), event(terminal, 2)) == []


def test_a_second_terminal_event_is_reported_once():
    assert lifecycle(event("xopc.run.started", 1), event("xopc.run.succeeded", 2),
                     event("xopc.run.failed", 2)) == [("/event/type", '"xopc.run.failed"')]


def test_the_first_event_must_be_started_and_only_the_type_is_reported():
    assert lifecycle(event("xopc.run.succeeded", 2)) == [("/event/type", '"xopc.run.succeeded"')]


@pytest.mark.parametrize(("started", "terminal", "expected"), [(0, 2, [("/event/sequence", "0")]),
                                                                (1, 3, [("/event/sequence", "3")])])
def test_sequences_are_one_and_two(started, terminal, expected):
    assert lifecycle(event("xopc.run.started", started), event("xopc.run.cancelled", terminal)) == expected


def test_a_missing_sequence_is_left_to_the_sequence_rule():
    assert lifecycle(event("xopc.run.started", None), event("xopc.run.succeeded", 2)) == []


def test_an_intermediate_event_takes_the_terminal_events_place():
    assert lifecycle(event("xopc.run.started", 1), event("xopc.run.progress", 2),
                     event("xopc.run.succeeded", 3)) == [("/event/type", '"xopc.run.progress"'),
                                                         ("/event/type", '"xopc.run.succeeded"')]


def test_a_redelivered_event_is_counted_once():
    started = event("xopc.run.started", 1, event_id="event_a")
    assert lifecycle(started, event("xopc.run.started", 1, event_id="event_a"), event("xopc.run.failed", 2)) == []


def test_runs_are_followed_independently():
    assert lifecycle(event("xopc.run.started", 1, run="a"), event("xopc.run.started", 1, run="b"),
                     event("xopc.run.succeeded", 2, run="b"), event("xopc.run.failed", 2, run="a")) == []


def test_events_without_run_are_not_part_of_a_lifecycle():
    assert lifecycle(event("xopc.runtime.health", None, run=None), event("xopc.runtime.health", None, run=None)) == []


# ---- XOPC_RUN_TERMINATES ----------------------------------------------------------------------------


def test_a_leased_run_without_terminal_event_is_reported_at_its_lease_when_the_capture_ends():
    r = rule("XOPC_RUN_TERMINATES")
    assert list(r.on_message(lease(line=3))) == []
    assert list(r.on_message(event("xopc.run.started", 1, line=4))) == []
    [finding] = list(r.finish())
    assert (finding.code, finding.line, finding.kind, finding.severity.value) == (
        "XOPC_RUN_TERMINATES", 3, "lease.response", "warning")


def test_a_run_seen_only_through_its_events_is_reported_at_its_first_event():
    [finding] = run(rule("XOPC_RUN_TERMINATES"), event("xopc.run.started", 1, run="r9", line=7))
    assert finding.line == 7


def test_a_terminated_run_is_not_reported():
    assert run(rule("XOPC_RUN_TERMINATES"), lease(), event("xopc.run.started", 1), event("xopc.run.failed", 2)) == []


def refused_by_the_stub(request: Message, answer: str = "fault events=503 once") -> Message:
    """The request as capture/http.py reads it when the stub's HAR says the answer was its own."""
    assert request.http is not None
    return replace(request, http=replace(request.http, stub_answer=answer))


def test_a_terminal_event_the_platform_never_took_does_not_end_its_run():
    """The stub answered the terminal report with an injected 503 and the runtime gave up: the run is still open."""
    [finding] = run(rule("XOPC_RUN_TERMINATES"), lease(), event("xopc.run.started", 1),
                    refused_by_the_stub(event("xopc.run.succeeded", 2)))
    assert finding.code == "XOPC_RUN_TERMINATES" and finding.kind == "lease.response"
    assert run(rule("XOPC_RUN_TERMINATES"), lease(), event("xopc.run.started", 1),
               refused_by_the_stub(event("xopc.run.succeeded", 2)), event("xopc.run.succeeded", 2)) == []


def test_an_event_the_platform_never_took_is_no_step_of_its_run():
    """A report refused by the stub's fault and sent again as a new event (a new eventId) is the run's first report
    of it; the refused one is still judged for what it carries (its token)."""
    refused = refused_by_the_stub(event("xopc.run.started", 1, event_id="event_1"))
    assert lifecycle(refused, event("xopc.run.started", 1, event_id="event_2"), event("xopc.run.failed", 2)) == []
    assert len(run(rule("XOPC_LEASE_TOKEN_MATCHES"), lease(),
                   refused_by_the_stub(event("xopc.run.started", 1, token="secret-other-token")))) == 1


# ---- XOPC_LEASE_TOKEN_MATCHES -----------------------------------------------------------------------


def test_events_and_renewals_with_the_leased_token_conform():
    assert run(rule("XOPC_LEASE_TOKEN_MATCHES"), lease(), event("xopc.run.started", 1), renew(),
               event("xopc.run.succeeded", 2)) == []


@pytest.mark.parametrize(
    ("offender", "found"),
    [
        (event("xopc.run.started", 1, token="secret-other-token"), "a different token"),
        (event("xopc.run.started", 1, token=None), "no leaseToken"),
        (renew(token="secret-other-token"), "a different token"),
        (renew(token=7), "a different token"),
    ],
)
def test_another_or_no_token_is_reported_without_printing_tokens(offender, found):
    [finding] = run(rule("XOPC_LEASE_TOKEN_MATCHES"), lease(), offender)
    assert (finding.pointer, finding.found) == ("/leaseToken", found)
    shown = " ".join(str(x) for x in (finding.message, finding.expected, finding.found))
    assert "secret" not in shown


def test_a_renewal_path_is_percent_decoded_like_encodeURIComponent():
    leased = lease(cid="command:2")
    assert run(rule("XOPC_LEASE_TOKEN_MATCHES"), leased, renew(cid="command%3A2")) == []
    assert len(run(rule("XOPC_LEASE_TOKEN_MATCHES"), leased, renew(cid="command%3A2", token="x"))) == 1


def test_runs_and_commands_never_leased_in_the_capture_are_not_judged():
    assert run(rule("XOPC_LEASE_TOKEN_MATCHES"), event("xopc.run.started", 1, token="x"), renew(token="y")) == []
    # an id no lease gave, with a token of none either: the capture may have begun mid-run
    assert run(rule("XOPC_LEASE_TOKEN_MATCHES"), lease(), renew(cid="command-0", token="y")) == []


@pytest.mark.parametrize(("cid", "named"), [("run-1", 'its run id "run-1"'), ("command-9", '"command-9"')])
def test_a_renewal_naming_another_id_with_a_leased_token_is_the_runtimes_defect(cid, named):
    """The run id instead of the command id (or any id no lease gave) with the command's token: the platform renews
    nothing (the stub answers 404); the finding is at the runtime's request, and prints no token."""
    [finding] = run(rule("XOPC_LEASE_TOKEN_MATCHES"), lease(), event("xopc.run.started", 1), renew(cid=cid, line=4))
    assert (finding.code, finding.line, finding.kind) == ("XOPC_LEASE_TOKEN_MATCHES", 4, "renew.request")
    assert named in finding.message and 'command "command-1"' in finding.message
    assert finding.expected == "POST .../commands/command-1/renew"
    assert finding.found == f"POST /api/v1/runtime/commands/{cid}/renew"
    assert "secret" not in " ".join(str(x) for x in (finding.message, finding.expected, finding.found))


def test_a_later_lease_of_the_same_run_replaces_the_token():
    assert run(rule("XOPC_LEASE_TOKEN_MATCHES"), lease(token="t1"), lease(cid="command-2", token="t2"),
               event("xopc.run.started", 1, token="t2")) == []


# ---- XOPC_NO_RENEW_AFTER_TERMINAL -------------------------------------------------------------------


def test_a_renewal_after_the_terminal_event_is_reported():
    findings = run(rule("XOPC_NO_RENEW_AFTER_TERMINAL"), lease(), event("xopc.run.started", 1), renew(line=3),
                   event("xopc.run.cancelled", 2), renew(line=5))
    assert [(f.code, f.line) for f in findings] == [("XOPC_NO_RENEW_AFTER_TERMINAL", 5)]


def test_another_commands_renewal_is_not_affected():
    assert run(rule("XOPC_NO_RENEW_AFTER_TERMINAL"), lease(), lease(run="run-2", cid="command-2"),
               event("xopc.run.succeeded", 2), renew(cid="command-2")) == []


# ---- XOPC_LEASE_KEPT ----------------------------------------------------------------------------------

T0 = 1_800_000_000_000  # epoch ms


def iso(ms: int) -> str:
    import datetime as dt

    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def leased_until(expires: int, run_id: str = "run-1", cid: str = "command-1"):
    value = lease(run=run_id, cid=cid).value
    value["command"]["leaseExpiresAt"] = expires
    return message("lease.response", value, "/lease", 200)


def timed_event(type_: str, sequence: int, at: int, run_id: str = "run-1", line: int = 1):
    ev = event(type_, sequence, run=run_id, line=line)
    ev.value["event"]["time"] = iso(at)
    return ev


def renewed(expires: int, cid: str = "command-1"):
    return message("renew.response", {"leaseExpiresAt": expires, "cancelRequested": False},
                   f"/commands/{cid}/renew", 200)


def test_a_run_that_ends_within_its_lease_needs_no_renewal():
    assert run(rule("XOPC_LEASE_KEPT"), leased_until(T0 + 3000), timed_event("xopc.run.started", 1, T0 + 10),
               timed_event("xopc.run.succeeded", 2, T0 + 2999)) == []


def test_an_event_after_the_lease_expired_is_reported_once_per_run():
    findings = run(rule("XOPC_LEASE_KEPT"), leased_until(T0 + 3000), timed_event("xopc.run.started", 1, T0 + 10),
                   timed_event("xopc.run.succeeded", 2, T0 + 4000, line=3),
                   timed_event("xopc.run.failed", 3, T0 + 5000, line=4))
    assert [(f.code, f.line, f.pointer) for f in findings] == [("XOPC_LEASE_KEPT", 3, "/event/time")]
    assert "1000 ms after its lease expired" in findings[0].message


def test_a_renewal_answer_extends_the_lease():
    assert run(rule("XOPC_LEASE_KEPT"), leased_until(T0 + 3000), timed_event("xopc.run.started", 1, T0 + 10),
               renewed(T0 + 6000), timed_event("xopc.run.succeeded", 2, T0 + 5000)) == []
    # another command's renewal does not
    findings = run(rule("XOPC_LEASE_KEPT"), leased_until(T0 + 3000), leased_until(T0 + 3000, "run-2", "command-2"),
                   renewed(T0 + 9000, cid="command-2"), timed_event("xopc.run.succeeded", 2, T0 + 5000))
    assert [f.code for f in findings] == ["XOPC_LEASE_KEPT"]


@pytest.mark.parametrize("time_value", ["not a time", "2027-01-15T08:00:00+01:00", 17, None])
def test_an_event_whose_time_cannot_be_read_is_left_to_the_schema(time_value):
    ev = timed_event("xopc.run.succeeded", 2, T0 + 9000)
    ev.value["event"]["time"] = time_value
    assert run(rule("XOPC_LEASE_KEPT"), leased_until(T0 + 3000), ev) == []


# ---- XOPC_EVENT_IDENTITY_MATCHES_LEASE ---------------------------------------------------------------

IDENTITY = {"organizationId": "org-1", "workspaceId": "ws-1", "traceId": "trace-1", "runtimeId": "rt-1"}


def leased_with_identity():
    value = lease().value
    value["command"]["payload"] = dict(IDENTITY)
    return message("lease.response", value, "/lease", 200)


def identified_event(**changes: str):
    ev = event("xopc.run.started", 1)
    ev.value["event"].update({"organizationId": "org-1", "workspaceId": "ws-1", "traceId": "trace-1",
                              "producer": "rt-1", **changes})
    return ev


def test_events_stamped_with_the_commands_identity_conform():
    assert run(rule("XOPC_EVENT_IDENTITY_MATCHES_LEASE"), leased_with_identity(), identified_event()) == []


@pytest.mark.parametrize("member", ["organizationId", "workspaceId", "traceId", "producer"])
def test_each_identity_member_is_compared(member):
    findings = run(rule("XOPC_EVENT_IDENTITY_MATCHES_LEASE"), leased_with_identity(),
                   identified_event(**{member: "other"}))
    assert [(f.pointer, f.found) for f in findings] == [(f"/event/{member}", '"other"')]


def test_an_event_of_a_run_not_leased_here_is_not_judged():
    assert run(rule("XOPC_EVENT_IDENTITY_MATCHES_LEASE"), identified_event(workspaceId="x")) == []


# ---- side chat rules --------------------------------------------------------------------------------

STATUSES = {"EXPIRED": 410, "NOT_FOUND": 404, "PARENT_NOT_FOUND": 404, "CONFLICT": 409, "LIMIT_REACHED": 429,
            "CAPACITY_REACHED": 503, "INVALID_REQUEST": 400, "INTERNAL_ERROR": 500}


@pytest.mark.parametrize(("code", "status"), sorted(STATUSES.items()))
def test_each_error_code_with_its_status_conforms_and_with_another_is_reported(code, status):
    r = rule("XOPC_ERROR_CODE_STATUS")
    body = {"ok": False, "error": "x", "code": code}
    assert list(r.on_message(message("sidechat.action.error", body, "/x", status))) == []
    [finding] = r.on_message(message("sidechat.action.error", body, "/x", 418))
    assert (finding.pointer, finding.expected, finding.found) == ("/code", f"HTTP {status}", "HTTP 418")


def test_the_catalog_mapping_is_the_notes():
    use = next(u for u in RELEASE.rules if u.id == "XOPC_ERROR_CODE_STATUS")
    assert dict(use.params["statuses"]) == STATUSES


def test_an_unknown_error_code_is_left_to_the_schema():
    body = {"ok": False, "error": "x", "code": "GONE"}
    assert list(rule("XOPC_ERROR_CODE_STATUS").on_message(message("sidechat.action.error", body, "/x", 410))) == []


@pytest.mark.parametrize(
    ("kind", "headers", "body", "reported"),
    [
        ("sidechat.inputs.request", {"x-xopc-client-instance-id": "client-a"}, {}, False),
        ("sidechat.inputs.request", {}, {"clientInstanceId": "client-a"}, False),
        ("sidechat.inputs.request", {"x-xopc-client-instance-id": "\ufeff\u3000"}, {}, True),  # JS trim: blank
        ("sidechat.inputs.request", {"x-xopc-client-instance-id": "\x1c"}, {}, False),  # JS trim keeps U+001C
        ("sidechat.inputs.request", {}, {"clientInstanceId": " "}, True),
        ("sidechat.inputs.request", {}, {"clientInstanceId": 7}, True),
        ("sidechat.heartbeat.request", {}, {"clientInstanceId": "client-a"}, True),  # header only
        ("sidechat.get.request", {}, None, True),
    ],
)
def test_client_instance_id(kind, headers, body, reported):
    findings = list(rule("XOPC_CLIENT_INSTANCE_ID").on_message(message(kind, body, "/x", None, headers=headers)))
    assert bool(findings) is reported


@pytest.mark.parametrize(("text", "trimmed"), [(" a ", "a"), ("\ufeffa\u2029", "a"), ("\x1ca", "\x1ca"),
                                               ("\u00a0\u1680\u202f\u205fa", "a"), ("\u200ba", "\u200ba")])
def test_js_trim_is_javascripts_not_pythons(text, trimmed):
    assert xopc.js_trim(text) == trimmed
