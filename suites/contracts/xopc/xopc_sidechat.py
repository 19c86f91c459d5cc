"""Side chat, stream event and clarification fixture cases for xopc 0.0.251 and 0.0.253.

The same session is written for both releases; what differs (config.thinkingLevel, clarification.kind and
suggestedAnswer, /inputs attachments, the user_message shape, the main-session clarification routes) is where
the cases of the two releases differ.
"""

from __future__ import annotations

import copy
from typing import Any

from xopc_build import Case, at, exchange, modified

GATEWAY = "http://127.0.0.1:18790"
CLIENT = {"x-xopc-client-instance-id": "client-a"}
JSON_CLIENT = {**CLIENT, "content-type": "application/json"}
SIDE = "side_01HZX3"
W = "warning"
NEW = "0.0.253"


def view(version: str, **changes: Any) -> dict[str, Any]:
    value: dict[str, Any] = {
        "id": SIDE,
        "parentSessionKey": "agent:main:webchat:abc",
        "clientInstanceId": "client-a",
        "status": "idle",
        "createdAt": "2026-12-02T09:00:00.000Z",
        "lastActiveAt": "2026-12-02T09:00:00.000Z",
        "lastSeenAt": "2026-12-02T09:00:00.000Z",
        "expiresAt": "2026-12-02T09:10:00.000Z",
        "serverNow": "2026-12-02T09:00:00.000Z",
        "messageCount": 0,
        "context": {
            "parentSessionKey": "agent:main:webchat:abc",
            "parentSessionId": "sess-1",
            "parentMessageCount": 4,
            "createdAt": "2026-12-02T09:00:00.000Z",
            "selections": [{"id": "sel-1", "type": "text", "text": "why is this slow?"}],
            "contentHash": "9f2c",
        },
        "config": {"modelRef": "openai/gpt-5", "thinkingLevel": "medium"} if version == NEW
        else {"modelRef": "openai/gpt-5"},
    }
    value.update(changes)
    return value


def question(version: str, **changes: Any) -> dict[str, Any]:
    value: dict[str, Any] = {"requestId": "clarify-1", "question": "Which branch?", "choices": ["main", "dev"]}
    if version == NEW:
        value = {"requestId": "clarify-1", "kind": "input", "question": "Which branch?", "choices": ["main", "dev"],
                 "suggestedAnswer": "main"}
    value.update(changes)
    return value


def call(method: str, path: str, body: Any = None, status: int = 200, response: Any = None,
         headers: dict[str, str] | None = None) -> dict[str, Any]:
    if headers is None:
        headers = JSON_CLIENT if body is not None else CLIENT
    return exchange(method, f"{GATEWAY}{path}", body, status, response, headers=headers)


def ok_view(version: str, **changes: Any) -> dict[str, Any]:
    return {"ok": True, "sideChat": view(version, **changes)}


def error(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"ok": False, "error": message, "code": code, **extra}


def attachment(**changes: Any) -> dict[str, Any]:
    return {"type": "file", "name": "notes.txt", "mimeType": "text/plain", "data": "aGVsbG8=", **changes}


def inputs_body(version: str) -> dict[str, Any]:
    if version == NEW:
        return {"content": "", "attachments": [attachment()]}
    return {"content": "Look at the failing test"}


def session(version: str) -> list[dict[str, Any]]:
    """create → get → config → heartbeat → extend → inputs → running → waiting → clarify → abort → messages → delete"""
    v = version
    p = f"/api/side-chats/{SIDE}"
    running = {"status": "running", "runId": "run-sc-1", "expiresAt": None}
    return [
        call("POST", "/api/sessions/agent%3Amain%3Awebchat%3Aabc/side-chats",
             {"selections": [{"id": "sel-1", "type": "text", "text": "why is this slow?"}]}, 201, ok_view(v)),
        call("GET", p, response=ok_view(v)),
        call("PATCH", f"{p}/config", {"modelRef": "openai/gpt-5", "thinkingLevel": "high"},
             response=ok_view(v, config={"modelRef": "openai/gpt-5", "thinkingLevel": "high"})),
        call("POST", f"{p}/heartbeat", response=ok_view(v)),
        call("POST", f"{p}/extend", response=ok_view(v, expiresAt="2026-12-02T09:20:00.000Z")),
        call("POST", f"{p}/inputs", inputs_body(v), 202, {"ok": True, "payload": {"runId": "run-sc-1"}}),
        call("GET", p, response=ok_view(v, messageCount=1, **running)),
        call("GET", p, response=ok_view(v, messageCount=1, status="waiting-input", runId="run-sc-1",
                                        expiresAt="2026-12-02T09:30:00.000Z", clarification=question(v))),
        call("POST", f"{p}/clarify/clarify-1", {"answer": "main"}, response={"ok": True}),
        call("POST", f"{p}/abort", {"runId": "run-sc-1"}, response={"ok": True, "payload": {"aborted": True}}),
        call("GET", f"{p}/messages", response={"ok": True, "messages": [{"role": "user", "content": "hi"}]}),
        call("DELETE", p, response={"ok": True}),
    ]


# (kind, method, path, status, code, text): one error answer per error kind, with the status its code maps to.
def error_exchanges(version: str) -> list[tuple[str, dict[str, Any]]]:
    p = f"/api/side-chats/{SIDE}"
    return [
        ("sidechat.create.error", call("POST", "/api/sessions/gone/side-chats", {}, 404,
                                       error("PARENT_NOT_FOUND", "Parent session not found"))),
        ("sidechat.create.error", call("POST", "/api/sessions/main/side-chats", {}, 429,
                                       error("LIMIT_REACHED", "Too many side chats for this client"))),
        ("sidechat.create.unavailable", call("POST", "/api/sessions/main/side-chats", {}, 503,
                                             error("CAPACITY_REACHED", "Side chat capacity reached"))),
        ("sidechat.get.error", call("GET", p, status=404, response=error("NOT_FOUND", "Side chat not found"))),
        ("sidechat.messages.error", call("GET", f"{p}/messages", status=410,
                                         response=error("EXPIRED", "Side chat expired", reason="idle"))),
        ("sidechat.config.error", call("PATCH", f"{p}/config", {"modelRef": "nope/x"}, 400,
                                       error("INVALID_REQUEST", "Model unavailable: nope/x"))),
        ("sidechat.action.error", call("POST", f"{p}/heartbeat", status=410,
                                       response=error("EXPIRED", "Side chat expired", reason="waiting"))),
        ("sidechat.action.error", call("POST", f"{p}/inputs", {"content": "again"}, 409,
                                       error("CONFLICT", "A side chat run is already active"))),
        ("sidechat.clarify.error", call("POST", f"{p}/clarify/clarify-9", {"answer": "x"}, 404,
                                        error("NOT_FOUND", "Clarification request not found"))),
        ("sidechat.delete.error", call("DELETE", p, status=404, response=error("NOT_FOUND", "Side chat not found"))),
    ]


def stream_events(version: str) -> list[dict[str, Any]]:
    if version == NEW:
        user = {"type": "user_message", "content": "",
                "media": [{"type": "file", "name": "notes.txt", "mimeType": "text/plain"}], "timestamp": 1796202001000}
        ask = {"type": "clarify_request", "requestId": "clarify-1", "kind": "approval", "question": "Run the tests?",
               "choices": ["yes", "no"], "suggestedAnswer": "yes"}
    else:
        user = {"type": "user_message",
                "message": {"role": "user", "content": "Look at the failing test", "timestamp": 1796202001000}}
        ask = {"type": "clarify_request", "requestId": "clarify-1", "kind": "approval", "question": "Run the tests?",
               "choices": ["yes", "no"]}
    return [user, ask]


def _ndjson_case(name: str, description: str, events: list[dict[str, Any]],
                 findings: list[dict[str, Any]] | None = None) -> Case:
    return Case(name, description, events, findings or [], forms=("ndjson",))


def sidechat_cases(version: str) -> list[Case]:
    v = version
    p = f"/api/side-chats/{SIDE}"
    cases = [
        Case("valid/sidechat-session", f"a side chat's whole life on {v}: create, read, configure, keep alive, "
             "send a message, wait for and answer a question, abort, read the transcript, close",
             session(v), forms=("har", "jsonl")),
        Case("valid/sidechat-errors", "every side chat error kind, each code with the status the gateway maps it to",
             [x for _, x in error_exchanges(v)]),
        Case("valid/sidechat-client-id-in-body", "routes that read the body accept clientInstanceId there when the "
             "header is absent or blank (JavaScript trim)",
             [call("POST", f"{p}/inputs", {**inputs_body(v), "clientInstanceId": "client-a"}, 202,
                   {"ok": True, "payload": {"runId": "run-sc-2"}}, headers={"x-xopc-client-instance-id": ""}),
              call("POST", f"{p}/abort", {"clientInstanceId": "client-a"},
                   response={"ok": True, "payload": {"aborted": False}}, headers={})]),
        _ndjson_case("valid/stream-events", f"the {v} shapes of user_message and clarify_request", stream_events(v)),
    ]

    def bad(name: str, description: str, exchanges: list[dict[str, Any]], *findings: dict[str, Any]) -> Case:
        return Case(f"invalid/{name}", description, exchanges, list(findings))

    def bad_view(name: str, description: str, sc: dict[str, Any], pointer: str, severity: str = "error",
                 code: str | None = None) -> Case:
        code = code or ("UNKNOWN_FIELD" if severity == W else "SCHEMA_VIOLATION")
        return bad(name, description, [call("GET", p, response={"ok": True, "sideChat": sc})],
                   at(0, "response", code, pointer, "sidechat.get.response", severity))

    base = view(v)
    cases += [
        bad_view("sidechat-view-status", "status is one of the five side chat states", {**base, "status": "busy"},
                 "/sideChat/status"),
        bad_view("sidechat-view-created-offset", "view timestamps are toISOString() values (UTC `Z`)",
                 {**base, "createdAt": "2026-12-02T11:00:00.000+02:00"}, "/sideChat/createdAt"),
        bad_view("sidechat-view-missing-context", "the view always carries its context snapshot",
                 {k: x for k, x in base.items() if k != "context"}, "/sideChat"),
        bad_view("sidechat-view-expires-missing", "expiresAt is always present (null while running)",
                 {k: x for k, x in base.items() if k != "expiresAt"}, "/sideChat"),
        bad_view("sidechat-view-message-count-negative", "messageCount is a non-negative integer",
                 {**base, "messageCount": -1}, "/sideChat/messageCount"),
        bad_view("sidechat-view-unknown-member",
                 "SideChatView is closed, the client taken as closed (readers.yaml): an error",
                 {**base, "title": "Side chat"}, "/sideChat/title", code="UNKNOWN_FIELD"),
        bad("sidechat-create-answer-not-ok", "a 201 carries ok: true",
            [call("POST", "/api/sessions/main/side-chats", {}, 201, {"ok": False, "sideChat": view(v)})],
            at(0, "response", "SCHEMA_VIOLATION", "/ok", "sidechat.create.response")),
        bad("sidechat-create-thinking-level-empty", "thinkingLevel is a non-empty string",
            [call("POST", "/api/sessions/main/side-chats", {"thinkingLevel": ""}, 201, ok_view(v))],
            at(0, "request", "SCHEMA_VIOLATION", "/thinkingLevel", "sidechat.create.request")),
        bad("sidechat-create-selection-incomplete", "a file-range selection names its lines and text",
            [call("POST", "/api/sessions/main/side-chats",
                  {"selections": [{"id": "sel-2", "type": "file-range", "path": "src/a.ts", "startLine": 1,
                                   "endLine": 9}]}, 201, ok_view(v))],
            at(0, "request", "SCHEMA_VIOLATION", "/selections/0", "sidechat.create.request")),
        bad("sidechat-config-model-ref-number", "modelRef is a string",
            [call("PATCH", f"{p}/config", {"modelRef": 5}, response=ok_view(v))],
            at(0, "request", "SCHEMA_VIOLATION", "/modelRef", "sidechat.config.request")),
        bad("sidechat-config-answer-model-ref", "config.modelRef is a string",
            [call("PATCH", f"{p}/config", {"thinkingLevel": "low"},
                  response=ok_view(v, config={**view(v)["config"], "modelRef": None}))],
            at(0, "response", "SCHEMA_VIOLATION", "/sideChat/config/modelRef", "sidechat.config.response")),
        bad("sidechat-heartbeat-answer-expires", "expiresAt is a UTC date-time or null",
            [call("POST", f"{p}/heartbeat", response=ok_view(v, expiresAt="soon"))],
            at(0, "response", "SCHEMA_VIOLATION", "/sideChat/expiresAt", "sidechat.heartbeat.response")),
        bad("sidechat-extend-answer-missing-view", "the extend answer carries the side chat",
            [call("POST", f"{p}/extend", response={"ok": True})],
            at(0, "response", "SCHEMA_VIOLATION", "", "sidechat.extend.response")),
        bad("sidechat-inputs-answer-missing-run", "202 names the run it started",
            [call("POST", f"{p}/inputs", inputs_body(v), 202, {"ok": True, "payload": {}})],
            at(0, "response", "SCHEMA_VIOLATION", "/payload", "sidechat.inputs.response")),
        bad("sidechat-abort-answer-aborted-string", "payload.aborted is a boolean",
            [call("POST", f"{p}/abort", {}, response={"ok": True, "payload": {"aborted": "yes"}})],
            at(0, "response", "SCHEMA_VIOLATION", "/payload/aborted", "sidechat.abort.response")),
        bad("sidechat-abort-run-id-number", "abort's runId is a string",
            [call("POST", f"{p}/abort", {"runId": 7}, response={"ok": True, "payload": {"aborted": False}})],
            at(0, "request", "SCHEMA_VIOLATION", "/runId", "sidechat.abort.request")),
        bad("sidechat-clarify-blank-answer", "an answer is non-blank (or skip: true)",
            [call("POST", f"{p}/clarify/clarify-1", {"answer": " \n "}, response={"ok": True})],
            at(0, "request", "SCHEMA_VIOLATION", "/answer", "sidechat.clarify.request")),
        bad("sidechat-clarify-bom-answer", "U+FEFF is whitespace to JavaScript's trim: a BOM-only answer is blank",
            [call("POST", f"{p}/clarify/clarify-1", {"answer": "\ufeff"}, response={"ok": True})],
            at(0, "request", "SCHEMA_VIOLATION", "/answer", "sidechat.clarify.request")),
        bad("sidechat-clarify-answer-not-ok", "the clarify answer is {ok: true}",
            [call("POST", f"{p}/clarify/clarify-1", {"skip": True}, response={"ok": True, "handled": True})],
            at(0, "response", "UNKNOWN_FIELD", "/handled", "sidechat.clarify.response"),
            ),
        bad("sidechat-clarify-answer-false", "the clarify answer is {ok: true}",
            [call("POST", f"{p}/clarify/clarify-1", {"skip": True}, response={"ok": "true"})],
            at(0, "response", "SCHEMA_VIOLATION", "/ok", "sidechat.clarify.response")),
        bad("sidechat-messages-not-array", "messages is an array",
            [call("GET", f"{p}/messages", response={"ok": True, "messages": {}})],
            at(0, "response", "SCHEMA_VIOLATION", "/messages", "sidechat.messages.response")),
        bad("sidechat-get-with-body", "GET carries no body",
            [call("GET", p, {"clientInstanceId": "client-a"}, response=ok_view(v))],
            at(0, "request", "UNEXPECTED_BODY", kind="sidechat.get.request")),
        bad("sidechat-messages-with-body", "GET carries no body",
            [call("GET", f"{p}/messages", {}, response={"ok": True, "messages": []})],
            at(0, "request", "UNEXPECTED_BODY", kind="sidechat.messages.request")),
        bad("sidechat-delete-with-body", "DELETE carries no body",
            [call("DELETE", p, {}, response={"ok": True})],
            at(0, "request", "UNEXPECTED_BODY", kind="sidechat.delete.request")),
        bad("sidechat-delete-answer-not-ok", "the delete answer is {ok: true}",
            [call("DELETE", p, response={"ok": False})],
            at(0, "response", "SCHEMA_VIOLATION", "/ok", "sidechat.delete.response")),
        bad("sidechat-client-id-missing", "side chat requests name their client",
            [call("GET", p, response=ok_view(v), headers={})],
            at(0, "request", "XOPC_CLIENT_INSTANCE_ID", kind="sidechat.get.request")),
        bad("sidechat-client-id-header-only", "heartbeat reads no body: the client id must be in the header",
            [call("POST", f"{p}/heartbeat", {"clientInstanceId": "client-a"}, response=ok_view(v),
                  headers={"content-type": "application/json"})],
            at(0, "request", "XOPC_CLIENT_INSTANCE_ID", kind="sidechat.heartbeat.request")),
        bad("sidechat-client-id-extend", "extend reads no body: the client id must be in the header",
            [call("POST", f"{p}/extend", response=ok_view(v), headers={"x-xopc-client-instance-id": ""})],
            at(0, "request", "XOPC_CLIENT_INSTANCE_ID", kind="sidechat.extend.request")),
        bad("sidechat-error-code-status", "EXPIRED is sent with 410, not 404",
            [call("POST", f"{p}/extend", status=404, response=error("EXPIRED", "Side chat expired", reason="idle"))],
            at(0, "response", "XOPC_ERROR_CODE_STATUS", "/code", "sidechat.action.error")),
        bad("sidechat-error-unknown-member", "the error envelope is closed, the client taken as closed: an error",
            [call("GET", p, status=404, response=error("NOT_FOUND", "Side chat not found", retry=False))],
            at(0, "response", "UNKNOWN_FIELD", "/retry", "sidechat.get.error")),
        bad("sidechat-inputs-blank", "a blank message is refused: the request breaks the contract, the 400 "
            "answer is the gateway's (its text changed in 0.0.253)",
            [call("POST", f"{p}/inputs", {"content": " \t "}, 400,
                  error("INVALID_REQUEST", "content or attachments are required" if v == NEW
                        else "content is required"))],
            at(0, "request", "SCHEMA_VIOLATION", "/content", "sidechat.inputs.request")),
        bad("sidechat-inputs-request-content-number", "content is a string",
            [call("POST", f"{p}/inputs", {"content": 42}, 202, {"ok": True, "payload": {"runId": "r"}})],
            at(0, "request", "SCHEMA_VIOLATION", "/content", "sidechat.inputs.request")),
    ]
    # every error kind: a code outside the enum (lower case), on the first error of that kind
    seen: set[str] = set()
    for kind, x in error_exchanges(v):
        if kind in seen:
            continue
        seen.add(kind)
        broken = copy.deepcopy(x)
        broken["response"]["body"]["code"] = broken["response"]["body"]["code"].lower()
        cases.append(bad(f"sidechat-error-code-{kind.split('.', 1)[1].replace('.', '-')}",
                         "error codes are the SideChatError codes (upper case)", [broken],
                         at(0, "response", "SCHEMA_VIOLATION", "/code", kind)))
    cases += version_cases(v)
    return cases


def version_cases(v: str) -> list[Case]:
    p = f"/api/side-chats/{SIDE}"

    def bad(name: str, description: str, exchanges: list[dict[str, Any]], *findings: dict[str, Any]) -> Case:
        return Case(f"invalid/{name}", description, exchanges, list(findings))

    if v == NEW:
        state = {"sessionKey": "agent:main:webchat:abc", "pending": {"id": "clar-1", "version": 3}}
        respond = {"action": "answer", "expectedVersion": 3, "idempotencyKey": "idem-1", "answer": "main"}
        resp_path = "/api/clarifications/clar-1/responses"
        state_path = "/api/sessions/agent%3Amain/clarification"
        events = stream_events(v)
        return [
            Case("valid/clarification-routes", "0.0.253 main-session clarification: read the state, answer, "
                 "let the agent decide (queued), cancel after a version conflict",
                 [call("GET", state_path, response=state),
                  call("POST", resp_path, respond, response={"ok": True, "status": "resolved"}),
                  call("POST", resp_path, {"action": "agent_decide", "expectedVersion": 4,
                                           "idempotencyKey": "idem-2"}, 202, {"ok": True, "status": "queued"}),
                  call("POST", resp_path, {"action": "cancel", "expectedVersion": 3, "idempotencyKey": "idem-3"},
                       409, {"ok": False, "error": "Clarification version changed", "code": "CONFLICT"}),
                  call("GET", "/api/sessions/gone/clarification", status=404,
                       response={"ok": False, "error": "Session not found"})],
                 forms=("har", "jsonl")),
            bad("clarification-action", "action is answer, agent_decide or cancel",
                [call("POST", resp_path, {**respond, "action": "skip"}, response={"ok": True})],
                at(0, "request", "SCHEMA_VIOLATION", "/action", "clarification.respond.request")),
            bad("clarification-expected-version-string", "expectedVersion is an integer",
                [call("POST", resp_path, {**respond, "expectedVersion": "3"}, response={"ok": True})],
                at(0, "request", "SCHEMA_VIOLATION", "/expectedVersion", "clarification.respond.request")),
            bad("clarification-idempotency-key-missing", "every response carries an idempotencyKey",
                [call("POST", resp_path, {k: x for k, x in respond.items() if k != "idempotencyKey"},
                      response={"ok": True})],
                at(0, "request", "SCHEMA_VIOLATION", "", "clarification.respond.request")),
            bad("clarification-answer-missing", "an `answer` action carries the answer (inferred)",
                [call("POST", resp_path, {k: x for k, x in respond.items() if k != "answer"}, response={"ok": True})],
                at(0, "request", "SCHEMA_VIOLATION", "", "clarification.respond.request")),
            bad("clarification-state-with-body", "the state GET carries no body",
                [call("GET", state_path, {"x": 1}, response=state)],
                at(0, "request", "UNEXPECTED_BODY", kind="clarification.state.request")),
            bad("clarification-state-not-object", "the state is a JSON object",
                [call("GET", state_path, response=[state])],
                at(0, "response", "SCHEMA_VIOLATION", "", "clarification.state.response")),
            bad("clarification-state-error-not-envelope", "a 4xx carries {ok: false, error}",
                [call("GET", state_path, status=404, response={"ok": False})],
                at(0, "response", "SCHEMA_VIOLATION", "", "clarification.state.error")),
            bad("clarification-result-not-object", "the 200 answer is a JSON object",
                [call("POST", resp_path, respond, response="resolved")],
                at(0, "response", "SCHEMA_VIOLATION", "", "clarification.respond.response")),
            bad("clarification-queued-not-object", "the 202 answer is a JSON object",
                [call("POST", resp_path, respond, 202, ["queued"])],
                at(0, "response", "SCHEMA_VIOLATION", "", "clarification.respond.queued")),
            bad("clarification-error-ok-true", "a 4xx is not ok",
                [call("POST", resp_path, respond, 410, {"ok": True, "error": "gone"})],
                at(0, "response", "SCHEMA_VIOLATION", "/ok", "clarification.respond.error")),
            bad("clarify-removed-route", "0.0.253 has no POST /api/clarify/{requestId}: the 0.0.251 route is "
                "unknown: the gateway answers it 404 (errors), beside a route it knows (a capture of nothing else "
                "recognises nothing)",
                [call("GET", p, response=ok_view(v)),
                 call("POST", "/api/clarify/clarify-1", {"answer": "main"}, response={"ok": True})],
                at(1, "request", "UNKNOWN_MESSAGE_KIND"),
                at(1, "response", "UNKNOWN_MESSAGE_KIND")),
            bad("sidechat-thinking-level-missing", "0.0.253 always fills config.thinkingLevel",
                [call("GET", p, response=ok_view(v, config={"modelRef": "openai/gpt-5"}))],
                at(0, "response", "SCHEMA_VIOLATION", "/sideChat/config", "sidechat.get.response")),
            bad("sidechat-clarification-kind-missing", "0.0.253 clarifications carry kind",
                [call("GET", p, response=ok_view(v, status="waiting-input", clarification={
                    k: x for k, x in question(v).items() if k != "kind"}))],
                at(0, "response", "SCHEMA_VIOLATION", "/sideChat/clarification", "sidechat.get.response")),
            bad("sidechat-clarification-kind", "clarification.kind is input or approval",
                [call("GET", p, response=ok_view(v, status="waiting-approval",
                                                 clarification=question(v, kind="confirm")))],
                at(0, "response", "SCHEMA_VIOLATION", "/sideChat/clarification/kind", "sidechat.get.response")),
            bad("sidechat-inputs-too-many-attachments", "at most 10 attachments",
                [call("POST", f"{p}/inputs", {"content": "see files", "attachments": [attachment()] * 11}, 202,
                      {"ok": True, "payload": {"runId": "r"}})],
                at(0, "request", "SCHEMA_VIOLATION", "/attachments", "sidechat.inputs.request")),
            bad("sidechat-inputs-empty", "0.0.253: non-blank content or at least one attachment",
                [call("POST", f"{p}/inputs", {"content": "  ", "attachments": []}, 202,
                      {"ok": True, "payload": {"runId": "r"}})],
                at(0, "request", "SCHEMA_VIOLATION", "/content", "sidechat.inputs.request")),
            bad("sidechat-inputs-attachment-without-type", "an attachment has a type",
                [call("POST", f"{p}/inputs", {"content": "", "attachments": [{"name": "a.png"}]}, 202,
                      {"ok": True, "payload": {"runId": "r"}})],
                at(0, "request", "SCHEMA_VIOLATION", "/attachments/0", "sidechat.inputs.request")),
            _ndjson_case("invalid/stream-user-message-old-shape", "the 0.0.251 user_message shape is not 0.0.253's",
                         [{"type": "user_message", "message": {"role": "user", "content": "hi",
                                                               "timestamp": 1796202001000}}],
                         [at(0, "line", "SCHEMA_VIOLATION", "", "stream.user_message"),
                          at(0, "line", "SCHEMA_VIOLATION", "", "stream.user_message")]),
            _ndjson_case("invalid/stream-media-with-data", "stream media are attachments without their data",
                         [{**events[0], "media": [attachment()]}],
                         [at(0, "line", "SCHEMA_VIOLATION", "/media/0", "stream.user_message")]),
            _ndjson_case("invalid/stream-clarify-kind-missing", "0.0.253 clarify_request carries kind (inferred)",
                         [{k: x for k, x in events[1].items() if k != "kind"}],
                         [at(0, "line", "SCHEMA_VIOLATION", "", "stream.clarify_request")]),
        ]
    return [
        Case("valid/clarify-route", "0.0.251 main-session clarification: answer, skip, unknown request",
             [call("POST", "/api/clarify/clarify-1", {"answer": "main"}, response={"ok": True}),
              call("POST", "/api/clarify/clarify-2", {"skip": True}, response={"ok": True}),
              call("POST", "/api/clarify/clarify-9", {"answer": "x"}, 404,
                   {"ok": False, "error": "Clarification request not found"})],
             forms=("har", "jsonl")),
        bad("clarify-empty", "an answer or skip: true",
            [call("POST", "/api/clarify/clarify-1", {}, response={"ok": True})],
            at(0, "request", "SCHEMA_VIOLATION", "", "clarify.request")),
        bad("clarify-skip-false", "skip must be true to skip",
            [call("POST", "/api/clarify/clarify-1", {"skip": False}, response={"ok": True})],
            at(0, "request", "SCHEMA_VIOLATION", "", "clarify.request")),
        bad("clarify-answer-not-object", "the answer is a JSON object (inferred)",
            [call("POST", "/api/clarify/clarify-1", {"answer": "main"}, response="ok")],
            at(0, "response", "SCHEMA_VIOLATION", "", "clarify.response")),
        bad("clarify-error-not-envelope", "a 4xx carries {ok: false, error} (inferred)",
            [call("POST", "/api/clarify/clarify-1", {"answer": "main"}, 404, {"ok": False})],
            at(0, "response", "SCHEMA_VIOLATION", "", "clarify.error")),
        bad("clarification-new-route",
            "0.0.251 has no /api/clarifications/{id}/responses: the gateway answers it 404 (errors), beside a route it "
            "knows (a capture of nothing else recognises nothing)",
            [call("GET", p, response=ok_view(v)),
             call("POST", "/api/clarifications/clar-1/responses",
                  {"action": "cancel", "expectedVersion": 1, "idempotencyKey": "k"}, response={"ok": True})],
            at(1, "request", "UNKNOWN_MESSAGE_KIND"),
            at(1, "response", "UNKNOWN_MESSAGE_KIND")),
        bad("sidechat-clarification-kind-unknown",
            "0.0.251 clarifications have no kind: an error for the client, taken as closed",
            [call("GET", p, response=ok_view(v, status="waiting-input", clarification=question(v, kind="input")))],
            at(0, "response", "UNKNOWN_FIELD", "/sideChat/clarification/kind", "sidechat.get.response")),
        bad("sidechat-inputs-attachments-only", "0.0.251 needs a non-blank content: attachments alone are refused",
            [call("POST", f"{p}/inputs", {"content": "", "attachments": [attachment()]}, 202,
                  {"ok": True, "payload": {"runId": "r"}})],
            at(0, "request", "SCHEMA_VIOLATION", "/content", "sidechat.inputs.request")),
        bad("sidechat-inputs-content-missing", "0.0.251 needs content",
            [call("POST", f"{p}/inputs", {}, 202, {"ok": True, "payload": {"runId": "r"}})],
            at(0, "request", "SCHEMA_VIOLATION", "", "sidechat.inputs.request")),
        _ndjson_case("invalid/stream-user-message-new-shape", "the 0.0.253 user_message shape is not 0.0.251's",
                     [stream_events(NEW)[0]],
                     [at(0, "line", "SCHEMA_VIOLATION", "", "stream.user_message")]),
        _ndjson_case("invalid/stream-user-message-role", "the echoed message's role is user",
                     [modified(stream_events(v)[0], "/message/role", "assistant")],
                     [at(0, "line", "SCHEMA_VIOLATION", "/message/role", "stream.user_message")]),
        _ndjson_case("invalid/stream-clarify-question-missing", "clarify_request carries its question",
                     [{k: x for k, x in stream_events(v)[1].items() if k != "question"}],
                     [at(0, "line", "SCHEMA_VIOLATION", "", "stream.clarify_request")]),
    ]


def cases_0_0_251() -> list[Case]:
    return sidechat_cases("0.0.251")


def sidechat_cases_0_0_253() -> list[Case]:
    return sidechat_cases(NEW)
