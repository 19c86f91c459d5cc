"""The xopc fixture cases, per release: one constraint broken per invalid case, with its exact expected findings.

Written to fixtures/xopc/<version>/ by xopc_fixtures.py. Kind ids, pointers and codes here are the expectations;
the captures are built from the same helpers so that only the named constraint differs from a valid message.
"""

from __future__ import annotations

import json
from typing import Any

from xopc_build import (
    AGENT_API,
    BASE,
    RUNTIME_HEADERS,
    Case,
    at,
    command,
    discovery,
    discovery_document,
    event,
    exchange,
    heartbeat,
    lease,
    lease_empty,
    manifest,
    modified,
    raw_answer,
    renew,
    report,
    runtime,
    worker_run,
)
from xopc_sidechat import cases_0_0_251, sidechat_cases_0_0_253

W = "warning"
TERMINAL = "xopc.run.succeeded"


def run_with(cmd: dict[str, Any]) -> list[dict[str, Any]]:
    """A complete run around one (possibly broken) command, so only the command's constraint is at stake."""
    run, token = cmd.get("runId", "run-1"), cmd.get("leaseToken", "lease-1")
    return [
        lease(cmd),
        report(event("xopc.run.started", 1, run=run, n=1), token=token),
        report(event(TERMINAL, 2, run=run, n=2, payload={"output": None}), token=token),
    ]


def run_with_event(index: int, broken: dict[str, Any]) -> list[dict[str, Any]]:
    """A complete run whose event `index` (0 = started, 1 = terminal) is replaced."""
    events = [event("xopc.run.started", 1, n=1), event(TERMINAL, 2, n=2, payload={"output": None})]
    events[index] = broken
    return [lease(), *[report(e) for e in events]]


def discovery_cases() -> list[Case]:
    doc = discovery_document()

    def broken(name: str, description: str, document: Any, pointer: str, severity: str = "error",
               code: str | None = None) -> Case:
        code = code or ("UNKNOWN_FIELD" if severity == W else "SCHEMA_VIOLATION")
        return Case(f"invalid/{name}", description, [discovery(document)],
                    [at(0, "response", code, pointer, "discovery.response", severity)])

    return [
        broken("discovery-schema-version", "schemaVersion is the literal '1'", {**doc, "schemaVersion": "2"},
               "/schemaVersion"),
        broken("discovery-platform-id-pattern", "an identifier starts with an ASCII letter or digit",
               {**doc, "platformId": "-xopc"}, "/platformId"),
        broken("discovery-platform-id-too-long", "an identifier has at most 128 characters",
               {**doc, "platformId": "p" * 129}, "/platformId"),
        broken("discovery-region-trailing-newline", "identifier patterns match the whole string: no trailing newline",
               {**doc, "region": "local\n"}, "/region"),
        broken("discovery-display-name-empty", "displayName has 1..120 characters", {**doc, "displayName": ""},
               "/displayName"),
        broken("discovery-display-name-too-long", "displayName has 1..120 characters",
               {**doc, "displayName": "x" * 121}, "/displayName"),
        broken("discovery-display-name-utf16", "displayName has at most 120 UTF-16 code units: zod 4.4.3, which "
               "^4.4.3 admits, counts units (61 emoji are too_big; zod 4.5 on would count 61)",
               {**doc, "displayName": "\U0001F600" * 61}, "/displayName"),
        Case("invalid/discovery-url-node-22", "endpoint URLs parse in every supported Node.js the engines range "
             "admits: Node 22 (ada 2.9.2) refuses these, which Node 24 (ada 4.0.0) accepts",
             [discovery({**doc, "endpoints": {**doc["endpoints"], "modelApi": "https://xn--a.test/",
                                               "storeApi": "https://xn--/", "shareApi": "https://a.test\u180e"}})],
             [at(0, "response", "SCHEMA_VIOLATION", f"/endpoints/{name}", "discovery.response")
              for name in ("modelApi", "shareApi", "storeApi")]),
        broken("discovery-deployment-mode", "deploymentMode is cloud, private or development",
               {**doc, "deploymentMode": "staging"}, "/deploymentMode"),
        broken("discovery-agent-api-not-url", "endpoint URLs are absolute URLs",
               modified(doc, "/endpoints/agentApi", "runtime.test/api/v1/runtime"), "/endpoints/agentApi"),
        broken("discovery-a2a-port-out-of-range", "endpoint URLs are what zod's .url() accepts (new URL(value.trim())),"
               " which refuses a port above 65535 that RFC 3986 (`format: uri`) would accept",
               modified(doc, "/endpoints/a2aApi", "https://platform.test:99999/api/v1/a2a"), "/endpoints/a2aApi"),
        Case("valid/discovery-whatwg-urls", "endpoint URLs zod's .url() accepts and RFC 3986 does not: an IDN host, "
             "a space and `%zz` in the path, backslashes, a tab in the host, a non-ASCII path, surrounding spaces",
             [discovery({**doc, "endpoints": {**doc["endpoints"], "a2aApi": "https://例え.jp/a2a",
                                               "modelApi": "https://platform.test/a b", "storeApi": "https://a.test/%zz",
                                               "tunnelApi": "https:\\\\a.test\\t", "shareApi": "https://a.\ttest/",
                                               "realtime": " https://a.test/ü/路径 "}})]),
        broken("discovery-missing-control-api", "endpoints.controlApi is required",
               modified(doc, "/endpoints/controlApi", delete=True), "/endpoints"),
        broken("discovery-unknown-endpoint", "endpoints is zod .strict() and the runtime parses the answer with it "
               "(readers.yaml): an unknown endpoint is an error", modified(doc, "/endpoints/billingApi",
                                                                            "https://platform.test/billing"),
               "/endpoints/billingApi", code="UNKNOWN_FIELD"),
        broken("discovery-capability-missing", "the capability record is exhaustive (zod v4 enum-keyed record)",
               modified(doc, "/capabilities/a2a", delete=True), "/capabilities"),
        broken("discovery-capability-extra", "a key outside the capability enum is an unknown field the runtime's "
               "strict parse rejects (an error)", modified(doc, "/capabilities/billing", True), "/capabilities/billing",
               code="UNKNOWN_FIELD"),
        broken("discovery-capability-not-boolean", "capability values are booleans",
               modified(doc, "/capabilities/runtimeFleet", "true"), "/capabilities/runtimeFleet"),
        broken("discovery-protocol-min-empty", "protocols.xopc.min is a non-empty string",
               modified(doc, "/protocols/xopc/min", ""), "/protocols/xopc/min"),
        broken("discovery-mcp-empty-string", "protocols.mcp items are non-empty strings",
               modified(doc, "/protocols/mcp", [""]), "/protocols/mcp/0"),
        Case("invalid/discovery-request-with-body", "the discovery GET carries no body",
             [exchange("GET", "https://platform.test/.well-known/xopc-platform", {"hello": 1}, 200, doc)],
             [at(0, "request", "UNEXPECTED_BODY", kind="discovery.request")]),
        Case("invalid/discovery-no-body", "a 2xx discovery answer must carry the document",
             [exchange("GET", "https://platform.test/.well-known/xopc-platform", None, 200, None)],
             [at(0, "response", "UNEXPECTED_BODY", kind="discovery.response")]),
    ]


def runtime_cases() -> list[Case]:
    def cmd_case(name: str, description: str, cmd: dict[str, Any], pointer: str, severity: str = "error",
                 code: str | None = None) -> Case:
        code = code or ("UNKNOWN_FIELD" if severity == W else "SCHEMA_VIOLATION")
        return Case(f"invalid/{name}", description, run_with(cmd),
                    [at(0, "response", code, pointer, "lease.response", severity)], options=BASE)

    no_auth = {k: v for k, v in RUNTIME_HEADERS.items() if k != "authorization"}
    return [
        Case("invalid/runtime-token-prefix", "runtime calls carry `Authorization: Bearer xopc_rt_…`",
             [lease_empty(headers={**RUNTIME_HEADERS, "authorization": "Bearer sk-live-123"})],
             [at(0, "request", "HEADER_VIOLATION", "/authorization", "lease.request")], options=BASE),
        Case("invalid/runtime-no-authorization", "runtime calls are authenticated",
             [heartbeat(headers=no_auth)],
             [at(0, "request", "HEADER_VIOLATION", "", "heartbeat.request")], options=BASE),
        Case("invalid/heartbeat-lease-seconds-string", "heartbeat leaseSeconds is a number",
             [heartbeat({"leaseSeconds": "30"})],
             [at(0, "request", "SCHEMA_VIOLATION", "/leaseSeconds", "heartbeat.request")], options=BASE),
        Case("valid/heartbeat-response-any-body", "a heartbeat answer may be any body: the client returns it "
             "unchecked (client.ts:104)", [heartbeat(response=["ok"]), heartbeat(response="alive")], options=BASE),
        Case("valid/heartbeat-response-not-json", "a heartbeat answer may be a body that is not JSON: the client "
             "reads it as null (client.ts:22, response.json().catch(() => null)) and returns it unchecked "
             "(client.ts:104)",
             [raw_answer(heartbeat(), "alive"), raw_answer(heartbeat(), "<html>ok</html>", "text/html"),
              raw_answer(heartbeat(), "{not json", "application/json")],
             forms=("jsonl", "har"), options=BASE),
        Case("invalid/lease-response-not-json", "a lease answer must be {command} (client.ts:109-111 parses it with "
             "runtimeLeaseResponseSchema; a body that is not JSON reads as null and fails it): still a PARSE_ERROR "
             "now that heartbeat answers take any body",
             [raw_answer(lease(), "{not json", "application/json")],
             [{"_at": 0, "_side": "response", "code": "PARSE_ERROR", "severity": "error"}], options=BASE),
        Case("valid/lease-response-bom", "a UTF-8 byte order mark before a lease answer: the runtime reads every "
             "answer with fetch's response.json() (client.ts:22), whose UTF-8 decode strips it (undici; Node 22.19.0 "
             "and 24.22.3 measured): info, and the answer is checked as the JSON after it",
             [raw_answer(lease(), "\ufeff" + json.dumps({"command": command()}), "application/json"),
              *run_with(command())[1:]],
             [{"_at": 0, "_side": "response", "code": "BYTE_ORDER_MARK", "severity": "info"}], options=BASE),
        Case("valid/lease-response-201", "a lease answered 201 is a lease: the client checks response.ok, not 200 "
             "(client.ts:109-111)", [lease(status=201), *run_with(command())[1:]], options=BASE),
        Case("invalid/lease-request-missing-seconds", "the lease request always carries leaseSeconds",
             [runtime("/lease", {}, status=204)],
             [at(0, "request", "SCHEMA_VIOLATION", "", "lease.request")], options=BASE),
        Case("invalid/lease-empty-with-body", "204 (no work) has no body",
             [runtime("/lease", {"leaseSeconds": 30}, status=204, response={"command": None})],
             [at(0, "response", "UNEXPECTED_BODY", kind="lease.empty")], options=BASE),
        Case("invalid/lease-response-no-command", "a 200 lease answer carries {command} (FIELDS_EQUAL leaves the "
             "missing members to the schema)",
             [runtime("/lease", {"leaseSeconds": 30}, response={})],
             [at(0, "response", "SCHEMA_VIOLATION", "", "lease.response")], options=BASE),
        cmd_case("command-lease-token-empty", "leaseToken has 1..512 characters", command(token=""),
                 "/command/leaseToken"),
        cmd_case("command-lease-token-too-long", "leaseToken has 1..512 characters", command(token="t" * 513),
                 "/command/leaseToken"),
        cmd_case("command-lease-token-utf16", "leaseToken has at most 512 UTF-16 code units (zod 4.4.3 counts units)",
                 command(token="\U0001F600" * 257), "/command/leaseToken"),
        cmd_case("command-lease-expires-zero", "leaseExpiresAt is a positive integer",
                 command(leaseExpiresAt=0), "/command/leaseExpiresAt"),
        cmd_case("command-lease-expires-fraction", "leaseExpiresAt is an integer",
                 command(leaseExpiresAt=1796202030000.5), "/command/leaseExpiresAt"),
        cmd_case("command-type", "type is the literal run.start", command(type="run.stop"), "/command/type"),
        cmd_case("command-id-pattern", "command ids are identifiers", command(cid="command 1"), "/command/id"),
        cmd_case("command-run-id-mismatch", "payload.runId must equal runId",
                 modified(command(), "/payload/runId", "run-other"), "/command/payload/runId",
                 code="FIELDS_EQUAL"),
        cmd_case("command-unknown-member",
                 "RuntimeCommand is .strict() and the runtime parses with it: an unknown member is an error",
                 command(priority=5), "/command/priority", code="UNKNOWN_FIELD"),
        cmd_case("manifest-schema-version", "the manifest schemaVersion is '1' (as in client.test.ts)",
                 modified(command(), "/payload/manifest/schemaVersion", "2"),
                 "/command/payload/manifest/schemaVersion"),
        cmd_case("manifest-execution-empty", "runtime.execution has at least one entry",
                 modified(command(), "/payload/manifest/runtime/execution", []),
                 "/command/payload/manifest/runtime/execution"),
        cmd_case("manifest-engine", "runtime.engine is the literal xopc",
                 modified(command(), "/payload/manifest/runtime/engine", "other"),
                 "/command/payload/manifest/runtime/engine"),
        cmd_case("manifest-version-build", "exactVersion has no build metadata",
                 modified(command(), "/payload/manifest/version", "1.0.0+build.1"),
                 "/command/payload/manifest/version"),
        cmd_case("manifest-sha256-uppercase", "sha256 is lower-case hex",
                 modified(command(), "/payload/manifest/dependencies/skills",
                          [{"id": "skill.a", "version": "1.2.3", "sha256": "A" * 64}]),
                 "/command/payload/manifest/dependencies/skills/0/sha256"),
        cmd_case("manifest-effect", "effects come from the effect enum",
                 modified(command(), "/payload/manifest/permissions/effects", ["destroy"]),
                 "/command/payload/manifest/permissions/effects/0"),
        cmd_case("manifest-dependency-unknown-member",
                 "a dependency is .strict() and the runtime parses with it: an unknown member is an error",
                 modified(command(), "/payload/manifest/dependencies/connectors",
                          [{"id": "conn.a", "version": "2.0.0", "url": "https://x.test"}]),
                 "/command/payload/manifest/dependencies/connectors/0/url", code="UNKNOWN_FIELD"),
        cmd_case("manifest-retention-policy", "data.retentionPolicy is an identifier",
                 modified(command(), "/payload/manifest/data/retentionPolicy", "30 days"),
                 "/command/payload/manifest/data/retentionPolicy"),
    ]


def event_cases() -> list[Case]:
    def non_run(name: str, description: str, ev: dict[str, Any], pointer: str, severity: str = "error",
                code: str | None = None) -> Case:
        code = code or ("UNKNOWN_FIELD" if severity == W else "SCHEMA_VIOLATION")
        return Case(f"invalid/{name}", description, [report(ev, token=None)],
                    [at(0, "request", code, pointer, "events.request", severity)], options=BASE)

    health = event("xopc.runtime.health", None, run=None)
    started = event("xopc.run.started", 1, n=1)
    return [
        Case("invalid/event-time-offset", "event time is UTC with `Z`; offsets are rejected",
             run_with_event(0, {**started, "time": "2026-12-02T09:00:01+00:00"}),
             [at(1, "request", "SCHEMA_VIOLATION", "/event/time", "events.request")], options=BASE),
        Case("invalid/event-time-no-seconds", "event time has seconds (zod >= 4.5); both the pattern and "
             "format date-time reject `T09:00Z`",
             run_with_event(0, {**started, "time": "2026-12-02T09:00Z"}),
             [at(1, "request", "SCHEMA_VIOLATION", "/event/time", "events.request"),
              at(1, "request", "SCHEMA_VIOLATION", "/event/time", "events.request")], options=BASE),
        non_run("event-type-prefix", "event types start with `xopc.`", {**health, "type": "runtime.health"},
                "/event/type"),
        non_run("event-type-too-long", "event types have at most 160 characters",
                {**health, "type": "xopc." + "a" * 156}, "/event/type"),
        non_run("event-sequence-negative", "sequence is a non-negative integer", {**health, "sequence": -1},
                "/event/sequence"),
        non_run("event-payload-array", "payload is a JSON object", {**health, "payload": []}, "/event/payload"),
        non_run("event-unknown-member", "PlatformEvent is strict, and the platform's reader is taken as closed "
                "(not public: readers.yaml): an unknown member is an error",
                {**health, "severity": "info"}, "/event/severity", code="UNKNOWN_FIELD"),
        Case("invalid/event-missing-sequence", "a run event (with runId) carries a sequence",
             run_with_event(0, {k: v for k, v in started.items() if k != "sequence"}),
             [at(1, "request", "XOPC_RUN_EVENT_HAS_SEQUENCE", "/event/sequence", "events.request")], options=BASE),
        Case("invalid/events-response-status", "the event receipt status is accepted or duplicate",
             [runtime("/events", {"event": health}, response={"status": "ok"})],
             [at(0, "response", "SCHEMA_VIOLATION", "/status", "events.response")], options=BASE),
    ]


def renew_cases() -> list[Case]:
    def run_renewing(answer: Any = None, body: Any = None, cid: str = "command-1") -> list[dict[str, Any]]:
        return [lease(), report(event("xopc.run.started", 1, n=1)), renew(cid=cid, response=answer, body=body),
                report(event(TERMINAL, 2, n=2, payload={"output": None}))]

    return [
        Case("invalid/renew-response-expires-negative", "leaseExpiresAt is a positive integer",
             run_renewing({"leaseExpiresAt": -5, "cancelRequested": False}),
             [at(2, "response", "SCHEMA_VIOLATION", "/leaseExpiresAt", "renew.response")], options=BASE),
        Case("invalid/renew-response-cancel-string", "cancelRequested is a boolean",
             run_renewing({"leaseExpiresAt": 1796202090000, "cancelRequested": "false"}),
             [at(2, "response", "SCHEMA_VIOLATION", "/cancelRequested", "renew.response")], options=BASE),
        Case("invalid/renew-response-unknown-member", "the renewal answer is parsed .strict(): an unknown member is "
             "an error",
             run_renewing({"leaseExpiresAt": 1796202090000, "cancelRequested": False, "leaseToken": "lease-2"}),
             [at(2, "response", "UNKNOWN_FIELD", "/leaseToken", "renew.response")], options=BASE),
        Case("invalid/renew-request-token-number", "the renewal leaseToken is a string (command not leased here)",
             run_renewing(body={"leaseToken": 7, "leaseSeconds": 60}, cid="command-9"),
             [at(2, "request", "SCHEMA_VIOLATION", "/leaseToken", "renew.request")], options=BASE),
    ]


def lifecycle_cases() -> list[Case]:
    lease_ = lease()
    started = report(event("xopc.run.started", 1, n=1))
    done = report(event(TERMINAL, 2, n=2, payload={"output": {"text": "done"}}))

    def bad(name: str, description: str, exchanges: list[dict[str, Any]], *findings: dict[str, Any]) -> Case:
        return Case(f"invalid/{name}", description, exchanges, list(findings), options=BASE)

    return [
        bad("run-terminal-twice", "exactly one terminal event per run",
            [lease_, started, done, report(event("xopc.run.failed", 2, n=3, payload={"error": "late"}))],
            at(3, "request", "XOPC_RUN_LIFECYCLE", "/event/type", "events.request"),
            at(3, "request", "COUNT", kind="events.request", obligation="RUN-ENDS")),
        bad("run-without-started", "a run's first event is xopc.run.started",
            [lease_, done], at(1, "request", "XOPC_RUN_LIFECYCLE", "/event/type", "events.request")),
        bad("run-started-sequence", "xopc.run.started is sequence 1",
            [lease_, report(event("xopc.run.started", 0, n=1)), done],
            at(1, "request", "XOPC_RUN_LIFECYCLE", "/event/sequence", "events.request")),
        bad("run-terminal-sequence", "the terminal event is sequence 2",
            [lease_, started, report(event(TERMINAL, 3, n=2, payload={}))],
            at(2, "request", "XOPC_RUN_LIFECYCLE", "/event/sequence", "events.request")),
        bad("run-event-after-terminal", "nothing follows the terminal event",
            [lease_, started, done, report(event("xopc.run.progress", 3, n=3))],
            at(3, "request", "XOPC_RUN_LIFECYCLE", "/event/type", "events.request")),
        bad("run-lease-lapsed", "a run that outlives its lease renews it first (worker.ts:54-64): the terminal event "
            "is sent 40 s after a lease that expired at 30 s, with no renewal",
            [lease_, started, report(event(TERMINAL, 2, n=40, payload={}))],
            at(2, "request", "XOPC_LEASE_KEPT", "/event/time", "events.request")),
        Case("valid/run-lease-renewed", "a run that outlives its first lease renews it: the renewal's answer "
             "extends the lease past the terminal event",
             [lease_, started, renew(n=3), report(event(TERMINAL, 2, n=40, payload={}))], options=BASE),
        bad("run-event-token-mismatch", "events carry the leased command's token",
            [lease_, started, report(event(TERMINAL, 2, n=2, payload={}), token="lease-2")],
            at(2, "request", "XOPC_LEASE_TOKEN_MATCHES", "/leaseToken", "events.request")),
        bad("run-event-token-missing", "run events of a leased command carry its token",
            [lease_, report(event("xopc.run.started", 1, n=1), token=None), done],
            at(1, "request", "XOPC_LEASE_TOKEN_MATCHES", "/leaseToken", "events.request")),
        bad("run-renew-token-mismatch", "renewals carry the leased command's token",
            [lease_, started, renew(token="lease-9"), done],
            at(2, "request", "XOPC_LEASE_TOKEN_MATCHES", "/leaseToken", "renew.request")),
        bad("run-event-identity", "a run's events carry its command's tenant (payload.workspaceId)",
            [lease_, started, report(event(TERMINAL, 2, n=2, payload={}, workspaceId="workspace-2"))],
            at(2, "request", "XOPC_EVENT_IDENTITY_MATCHES_LEASE", "/event/workspaceId", "events.request")),
        bad("run-event-producer", "a run's events are produced by the command's payload.runtimeId",
            [lease_, report(event("xopc.run.started", 1, n=1, producer="runtime-2")), done],
            at(1, "request", "XOPC_EVENT_IDENTITY_MATCHES_LEASE", "/event/producer", "events.request")),
        bad("run-renew-after-terminal", "no renewal after the terminal event",
            [lease_, started, done, renew()],
            at(3, "request", "XOPC_NO_RENEW_AFTER_TERMINAL", kind="renew.request")),
        bad("run-unfinished", "a leased run that never ends is reported at its lease (warning)",
            [lease_, started, renew()],
            at(0, "response", "XOPC_RUN_TERMINATES", kind="lease.response", severity=W)),
        Case("invalid/broken-run",
             "a broken worker run: a renewal with another token, a terminal event with another token, a second "
             "terminal event without a sequence, a renewal after the end",
             [discovery(), lease_, started, renew(token="lease-2"),
              report(event(TERMINAL, 2, n=2, payload={}), token="lease-2"),
              report(event("xopc.run.failed", None, n=3, payload={"error": "again"})),
              renew(n=2)],
             [at(3, "request", "XOPC_LEASE_TOKEN_MATCHES", "/leaseToken", "renew.request"),
              at(4, "request", "XOPC_LEASE_TOKEN_MATCHES", "/leaseToken", "events.request"),
              at(5, "request", "XOPC_RUN_EVENT_HAS_SEQUENCE", "/event/sequence", "events.request"),
              at(5, "request", "XOPC_RUN_LIFECYCLE", "/event/type", "events.request"),
              at(5, "request", "COUNT", kind="events.request", obligation="RUN-ENDS"),
              at(6, "request", "XOPC_NO_RENEW_AFTER_TERMINAL", kind="renew.request")],
             forms=("har", "jsonl")),
    ]


def valid_platform_cases() -> list[Case]:
    minimal = discovery_document(
        endpoints={"authorizationServer": "https://platform.test", "controlApi": "https://platform.test/api",
                   "agentApi": "http://127.0.0.1:8080/agent/"},
        protocols={"xopc": {"min": "0.0.1", "max": "0.x"}},
    )
    m = manifest()
    del m["dependencies"]["extensions"]  # zod default: optional on input
    m["entry"]["workflow"] = "flow.yaml"
    m["dependencies"]["skills"] = [{"id": "skill.a", "version": "1.2.3-rc.1", "sha256": "0" * 64}]
    m["quality"] = {"evaluationSuite": "suite.a", "releaseGate": "gate:1"}
    cmd = command(run="run-2", cid="command:2", token="lease-2")
    cmd["payload"]["manifest"] = m
    cmd["payload"]["priority"] = "high"  # the payload is passthrough: extra keys are fine
    local = "http://127.0.0.1:8080/agent"
    started = event("xopc.run.started", 1, run="run-2", n=1)
    return [
        Case("valid/worker-run", "discovery, heartbeat, an empty lease, then a full run: lease → started (1) → "
             "two renewals → succeeded (2); the runtime base comes from the discovery document",
             [discovery(), heartbeat(), lease_empty(), *worker_run()], forms=("har", "jsonl")),
        Case("valid/discovery-under-prefix", "discovery served under a tenant path prefix (the client keeps the "
             "base URL's path); the runtime base is still learned from it",
             [discovery(base="https://platform.test/tenants/acme"), *worker_run()], forms=("har",)),
        Case("valid/worker-run-base-url", "the same run without the discovery exchange: --base-url agentApi=…",
             worker_run(), forms=("har", "jsonl"), options=BASE),
        Case("valid/worker-run-cancelled", "a renewal answers cancelRequested, the run ends xopc.run.cancelled; "
             "no discovery and no base URL: the templates match the end of the path",
             worker_run("xopc.run.cancelled", payload={}, renewals=1)),
        Case("valid/worker-run-minimal", "a minimal discovery (no mcp/a2a defaults), agentApi with a trailing "
             "slash, a manifest without the defaulted extensions, an extra payload key, an encoded command id, "
             "a re-delivered started event answered duplicate, a non-run event without sequence, a failed run",
             [discovery(minimal), lease(cmd, api=local),
              report(started, token="lease-2", api=local),
              report(started, token="lease-2", status="duplicate", api=local),
              report(event("xopc.runtime.health", None, run=None, n=5), token=None, api=local),
              renew(cid="command%3A2", token="lease-2", api=local),
              report(event("xopc.run.failed", 2, run="run-2", n=2, payload={"error": "boom"}), token="lease-2",
                     api=local)],
             forms=("har",)),
    ]


def platform_cases() -> list[Case]:
    return [*valid_platform_cases(), *discovery_cases(), *runtime_cases(), *event_cases(), *renew_cases(),
            *lifecycle_cases()]


VERSIONS = {
    "0.0.251": cases_0_0_251,
    "0.0.253": lambda: [*platform_cases(), *sidechat_cases_0_0_253()],
}

__all__ = ["AGENT_API", "VERSIONS"]
