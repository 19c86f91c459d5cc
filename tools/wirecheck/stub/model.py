"""Scripted model endpoints: what an agent CLI under a live run talks to instead of its model provider.

A model script (the `model:` section of a scenario, harness/scenario.py) lists the model's turns in the order the CLI
asks for them: a text answer, tool calls, or an HTTP error with its headers (a 429 with `retry-after`). The same
script is served three ways:

- `anthropic-messages`: the Anthropic Messages API (`POST /v1/messages`), streamed as server-sent events
  (`message_start`, `content_block_start` / `_delta` / `_stop`, `message_delta`, `message_stop`) when the request asks
  for `stream`, else one JSON message; errors as `{"type": "error", "error": {"type", "message"}}`. Claude Code.
- `openai-chat`: the OpenAI-compatible chat completions API (`POST /v1/chat/completions`), streamed as
  `chat.completion.chunk` events ending in `data: [DONE]`, else one `chat.completion`; errors as
  `{"error": {"message", "type", "code"}}`. OpenCode's `@ai-sdk/openai-compatible` provider.
- `gemini`: the Gemini API (`POST …/models/<model>:streamGenerateContent?alt=sse`, `…:generateContent`), written by
  stub/gemini.py as @google/genai types it; errors in Google's `{"error": {"code", "message", "status"}}`. Gemini CLI.
- `openai-responses`: the OpenAI Responses API (`POST /v1/responses`), streamed as the service streams a response
  (`response.created` … `response.completed` with its whole usage), else one `response`; errors as
  `{"error": {"message", "type", "param", "code"}}`. The Codex CLI. Rendered by stub/responses.py, where each shape
  cites the `openai` npm SDK's type; a turn's `usage` there may also give `cached` and `reasoning` tokens, a turn
  may show `reasoning`, a `web_search` the service ran or a `tool_search` the caller runs, and a tool call may name
  its `namespace` (a tool the search loaded: Codex's MCP tools).
- `qoder-fake-responses`: not a server but a file: qodercli's test hook `--fake-responses FILE.jsonl` reads one
  line per model call (`{"method": "generateContentStream", "response": [{"candidates": [...]}]}`, Gemini's
  shape). It cannot answer with an HTTP error. `utility:` lists the answers of qodercli's side calls (prompt
  suggestions, session titles: `{"method": "utilityGenerateContent", "response": "text"}` lines), which it reads
  apart from the turns: with QODER_FAKE_STREAM_DELAY_MS set, each method has its own cursor in the file
  (qodercli 1.1.52 bundle/qodercli.js, getNextResponse: `perMethodCursors`).

Both HTTP endpoints are applications of the stub server (stub/server.py: 127.0.0.1, a bounded worker pool, phase
deadlines, HAR on disk), which records every exchange. Requests whose body contains a `side` answer's text (OpenCode
asks for a session title beside the turn) get that answer, as often as they come. Every other request is answered by
what it asks (stub/asked.py), not by the order requests come in: a request of another conversation than the
scripted one (Claude Code 2.0.77's "Warmup" calls; `conversation:` names the scripted one by the text its first user
message holds, else the first conversation heard is it) gets a short aside ("OK.") and takes no turn; a request of
the scripted conversation gets the turn at the place its history has reached (the model's answers it already holds:
the first answer turn for none, the second for one; error turns before an answer turn answer the first requests at
that place, so a retry then gets the answer; a repeated request gets its place's turn again). A request whose
history cannot be read takes the next turn in order. A turn can insist on what its request carries
(`request_contains: tool_result`: the CLI sent the tool's result back); a request that does not, or one past the
script's last turn, is a problem of the run (the CLI did not do what the script expected), and the second is
answered 500.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from wirecheck.stub import gemini, responses
from wirecheck.stub.asked import Asked, asked
from wirecheck.stub.server import Reply
from wirecheck.yaml_lines import LINE_KEY, strip_lines

APIS = ("anthropic-messages", "openai-chat", "qoder-fake-responses", gemini.API, "openai-responses")
HTTP_APIS = (*APIS[:2], gemini.API, "openai-responses")
ALWAYS = "always"
TURN_KEYS = ("text", "tool_call", "tool_calls", "error", "times", "request_contains", "usage",
             *responses.TURN_KEYS)
ERROR_KEYS = ("status", "headers", "type", "message", "body")
SCRIPT_KEYS = ("api", "turns", "side", "refused", "utility", "conversation")
MAX_TOKENS = (1 << 53) - 1  # a usage count the CLIs (JavaScript) read exactly; input + output stays within 64 bits
SSE = {"content-type": "text/event-stream", "cache-control": "no-cache"}
JSON = {"content-type": "application/json"}
# the error `type` each API gives a status when the script names none (Anthropic's documented error types; the
# OpenAI-compatible ones as OpenAI names them)
ANTHROPIC_ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
                         404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error",
                         500: "api_error", 529: "overloaded_error"}
OPENAI_ERROR_TYPES = {400: "invalid_request_error", 401: "invalid_api_key", 429: "rate_limit_exceeded",
                      500: "server_error", 503: "server_error"}


@dataclass(frozen=True)
class ToolCall:
    name: str
    input: Mapping[str, Any]
    id: str | None = None
    text: str | None = None  # a custom (freeform) tool's input, given as `input: text`: openai-responses only
    namespace: str | None = None  # openai-responses: the namespace of a tool a tool search loaded (Codex's MCP tools)


@dataclass(frozen=True)
class ErrorAnswer:
    status: int
    headers: Mapping[str, str] = field(default_factory=dict)
    type: str | None = None
    message: str = "wirecheck scripted model error"
    body: Any = None  # the whole body as given, instead of the API's error envelope


@dataclass(frozen=True)
class Turn:
    text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    error: ErrorAnswer | None = None
    times: int | None = 1  # None: always (every later request gets this turn)
    request_contains: str | None = None
    usage: Mapping[str, int] = field(default_factory=lambda: {"input": 10, "output": 5})
    line: int | None = None
    reasoning: str | None = None  # openai-responses: a reasoning summary before the answer
    web_search: str | None = None  # openai-responses: a web search the service ran (its query)
    tool_search: str | None = None  # openai-responses: a search of the caller's deferred tools (its query)


@dataclass(frozen=True)
class SideAnswer:
    when: str
    turn: Turn


@dataclass(frozen=True)
class ModelScript:
    api: str
    turns: tuple[Turn, ...] = ()
    side: tuple[SideAnswer, ...] = ()
    refused: bool = False  # nothing listens where the CLI is sent: its connection is refused
    utility: tuple[str, ...] = ()  # qoder-fake-responses: the answers of qodercli's side calls, in order
    conversation: str | None = None  # text the scripted conversation's first user message holds (None: the first's)


# -- the script as data ----------------------------------------------------------------------------------------

Problem = Callable[[str, str, "int | None"], None]


def _shown(value: Any) -> str:
    try:
        text = orjson.dumps(strip_lines(value), default=str).decode() if not isinstance(value, str) else repr(value)
    except orjson.JSONEncodeError:  # what orjson cannot write (an integer beyond 64 bits) is shown as Python has it
        text = repr(strip_lines(value))
    return text if len(text) <= 80 else text[:79] + "…"


def parse_model_script(raw: Any, problem: Problem, at: str = "/model") -> ModelScript | None:
    """The `model:` section as a ModelScript; each problem reported through `problem(pointer, message, line)` (None
    is returned when there was one)."""
    line = raw.get(LINE_KEY) if isinstance(raw, dict) else None
    if not isinstance(raw, dict):
        problem(at, f"expected {{api: {' | '.join(APIS)}, turns: [...]}}, found {_shown(raw)}", None)
        return None
    count = 0

    def bad(pointer: str, message: str, where: int | None = None) -> None:
        nonlocal count
        count += 1
        problem(pointer, message, where if where is not None else line)

    for key in raw:
        if key not in (*SCRIPT_KEYS, LINE_KEY):
            bad(f"{at}/{key}", f"unknown key {key!r}; a model script has {', '.join(SCRIPT_KEYS)}")
    api = raw.get("api")
    if api not in APIS:
        bad(f"{at}/api", f"expected one of {', '.join(APIS)}, found {_shown(api)}")
        return None
    refused = raw.get("refused", False)
    if not isinstance(refused, bool):
        bad(f"{at}/refused", f"expected true or false, found {_shown(refused)}")
    elif refused and api not in HTTP_APIS:
        bad(f"{at}/refused", f"{api} is a file, not a server: nothing can refuse a connection")
    turns = raw.get("turns", [])
    if not isinstance(turns, list) or (not turns and not refused):
        bad(f"{at}/turns", f"expected a non-empty list of turns, found {_shown(turns)}")
        turns = []
    parsed = [_turn(entry, f"{at}/turns/{i}", api, bad) for i, entry in enumerate(turns)]
    side_raw = raw.get("side", [])
    side: list[SideAnswer] = []
    if not isinstance(side_raw, list):
        bad(f"{at}/side", f"expected a list of {{when: text, ...a turn}}, found {_shown(side_raw)}")
        side_raw = []
    elif side_raw and api not in HTTP_APIS:
        bad(f"{at}/side", f"{api} answers every call in order: it has no side answers")
        side_raw = []
    for i, entry in enumerate(side_raw):
        where = f"{at}/side/{i}"
        when = entry.get("when") if isinstance(entry, dict) else None
        if not isinstance(when, str) or not when:
            bad(f"{where}/when", f"expected the text a request's body contains, found {_shown(when)}",
                entry.get(LINE_KEY) if isinstance(entry, dict) else None)
            continue
        turn = _turn({k: v for k, v in entry.items() if k != "when"}, where, api, bad)
        if turn is not None:
            side.append(SideAnswer(when, turn))
    utility = raw.get("utility", [])
    if not isinstance(utility, list) or not all(isinstance(u, str) for u in utility):
        bad(f"{at}/utility", f"expected a list of answer texts, found {_shown(utility)}")
        utility = []
    elif utility and api != "qoder-fake-responses":
        bad(f"{at}/utility", f"utility answers are qodercli's side calls in its fake-responses file, not {api}'s")
        utility = []
    conversation = raw.get("conversation")
    if conversation is not None and not (isinstance(conversation, str) and conversation):
        bad(f"{at}/conversation", f"expected the text the scripted conversation's first user message holds, found "
                                  f"{_shown(conversation)}")
    elif conversation is not None and api not in HTTP_APIS:
        bad(f"{at}/conversation", f"{api} answers every call in order: it reads no conversation")
    if count:
        return None
    return ModelScript(api, tuple(t for t in parsed if t is not None), tuple(side), bool(refused), tuple(utility),
                       conversation)


def _turn(raw: Any, at: str, api: str, bad: Callable[..., None]) -> Turn | None:
    if not isinstance(raw, dict):
        bad(at, f"expected a turn ({{text: ...}}, {{tool_call: ...}} or {{error: ...}}), found {_shown(raw)}")
        return None
    line = raw.get(LINE_KEY)
    before = _Counter(bad)
    for key in raw:
        if key not in (*TURN_KEYS, LINE_KEY):
            before(f"{at}/{key}", f"unknown key {key!r}; a turn has {', '.join(TURN_KEYS)}", line)
    text = raw.get("text")
    if text is not None and not isinstance(text, str):
        before(f"{at}/text", f"expected a string, found {_shown(text)}", line)
    calls: list[ToolCall] = []
    if "tool_call" in raw and "tool_calls" in raw:
        before(f"{at}/tool_calls", "give tool_call or tool_calls, not both", line)
    listed = raw.get("tool_calls", [raw["tool_call"]] if "tool_call" in raw else [])
    if not isinstance(listed, list):
        before(f"{at}/tool_calls", f"expected a list of {{name, input}}, found {_shown(listed)}", line)
        listed = []
    for i, call in enumerate(listed):
        where = f"{at}/tool_call" if "tool_call" in raw else f"{at}/tool_calls/{i}"
        ok = (isinstance(call, dict) and isinstance(call.get("name"), str) and call["name"]
              and (isinstance(call.get("input", {}), dict)
                   or (api == "openai-responses" and isinstance(call.get("input"), str)))
              and isinstance(call.get("id", ""), str)
              and ((isinstance(call.get("namespace"), str) and call["namespace"] and api == "openai-responses")
                   or "namespace" not in call)
              and not set(call) - {"name", "input", "id", "namespace", LINE_KEY})
        if not ok:
            namespace = ", namespace?: text" if api == "openai-responses" else ""
            before(where, f"expected {{name: text, input: {{...}}, id?: text{namespace}}}, found {_shown(call)}",
                   line)
            continue
        given = strip_lines(call.get("input", {}))
        calls.append(ToolCall(call["name"], {} if isinstance(given, str) else given, call.get("id"),
                              given if isinstance(given, str) else None, call.get("namespace")))
    for key in responses.TURN_KEYS:
        if key in raw and not (isinstance(raw[key], str) and raw[key]):
            before(f"{at}/{key}", f"expected a non-empty string, found {_shown(raw[key])}", line)
        elif key in raw and api != "openai-responses":
            before(f"{at}/{key}", f"{key} is an output item of openai-responses, not of {api}", line)
    error = None
    if "error" in raw:
        error = _error(raw["error"], f"{at}/error", before, line)
        if api not in HTTP_APIS:
            before(f"{at}/error", f"{api} cannot answer with an HTTP error (qodercli reads a file of answers; "
                                  "running out of them is its only failure)", line)
        if text is not None or calls:
            before(f"{at}/error", "an error turn has no text or tool calls", line)
    elif text is None and not calls and "tool_search" not in raw:
        before(at, f"a turn needs text, tool_call(s){', tool_search' if api == 'openai-responses' else ''} or error",
               line)
    times = raw.get("times", 1)
    if not (times == ALWAYS or (isinstance(times, int) and not isinstance(times, bool) and times >= 1)):
        before(f"{at}/times", f"expected a count of requests (1 or more) or {ALWAYS!r}, found {_shown(times)}",
               line)
    contains = raw.get("request_contains")
    if contains is not None and not (isinstance(contains, str) and contains):
        before(f"{at}/request_contains", f"expected the text the request's body must contain, found "
                                         f"{_shown(contains)}", line)
    usage = raw.get("usage", {"input": 10, "output": 5})
    counted = responses.USAGE_KEYS if api == "openai-responses" else ("input", "output")
    if not (isinstance(usage, dict) and set(usage) - {LINE_KEY} <= set(counted)
            and all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_TOKENS
                    for k, v in usage.items() if k != LINE_KEY)):
        shape = ", ".join(f"{key}: tokens" for key in counted)
        before(f"{at}/usage", f"expected {{{shape}}}, each from 0 to {MAX_TOKENS} (JavaScript's largest exact "
                              f"integer), found {_shown(usage)}", line)
    try:  # what the endpoint sends is this turn's values as JSON: one it cannot write must not fail mid-run
        orjson.dumps(strip_lines(raw))
    except orjson.JSONEncodeError as exc:
        before(at, f"holds a value the endpoint cannot send as JSON: {exc} (it writes integers within 64 bits, "
                   "nesting up to 254 levels)", line)
    if before.count:
        return None
    usage = {"input": 10, "output": 5, **strip_lines(usage)}
    return Turn(text, tuple(calls), error, None if times == ALWAYS else times, contains, usage, line,
                raw.get("reasoning"), raw.get("web_search"), raw.get("tool_search"))


class _Counter:
    def __init__(self, bad: Callable[..., None]):
        self.bad, self.count = bad, 0

    def __call__(self, pointer: str, message: str, line: int | None) -> None:
        self.count += 1
        self.bad(pointer, message, line)


def _error(raw: Any, at: str, bad: _Counter, line: int | None) -> ErrorAnswer | None:
    if not isinstance(raw, dict):
        bad(at, f"expected {{status: code, headers?, type?, message?, body?}}, found {_shown(raw)}", line)
        return None
    for key in raw:
        if key not in (*ERROR_KEYS, LINE_KEY):
            bad(f"{at}/{key}", f"unknown key {key!r}; an error has {', '.join(ERROR_KEYS)}", line)
    status = raw.get("status")
    if not (isinstance(status, int) and not isinstance(status, bool) and 400 <= status <= 599):
        bad(f"{at}/status", f"expected an HTTP error status (400-599), found {_shown(status)}", line)
        return None
    headers = raw.get("headers", {})
    if not (isinstance(headers, dict) and all(isinstance(k, str) and isinstance(v, str | int | float)
                                              and not isinstance(v, bool)
                                              for k, v in headers.items() if k != LINE_KEY)):
        bad(f"{at}/headers", f"expected {{name: value}} with text or number values, found {_shown(headers)}", line)
        return None
    for key in ("type", "message"):
        if key in raw and not isinstance(raw[key], str):
            bad(f"{at}/{key}", f"expected a string, found {_shown(raw[key])}", line)
            return None
    return ErrorAnswer(status, {k.lower(): str(v) for k, v in headers.items() if k != LINE_KEY}, raw.get("type"),
                       raw.get("message", ErrorAnswer.message), strip_lines(raw.get("body")))


# -- the endpoint --------------------------------------------------------------------------------------------------

# The answer to a request of another conversation than the scripted one (a CLI's warm-up or summary call)
ASIDE = Turn(text="OK.")


class _Schedule:
    """The script's turns by the place a request's history has reached: the answer turns (text, tool calls) in order,
    one place each (`times: N`: N places; `always`: every later place), each after the error turns that precede it,
    which the requests at that place get first (`times` of them each; `always`: every one). A CLI that repeats a
    request (a retry after an error, a second call for one answer) gets the same place's turn again."""

    def __init__(self, turns: tuple[Turn, ...]):
        self.places: list[tuple[tuple[tuple[int, Turn], ...], tuple[int, Turn] | None]] = []
        self.open_ended = False  # the last place's answer also answers every later place
        errors: list[tuple[int, Turn]] = []
        for index, turn in enumerate(turns):
            if turn.error is not None:
                errors.append((index, turn))
                if turn.times is None:
                    break  # every request at this place gets it: nothing after is ever reached
                continue
            self.places.append((tuple(errors), (index, turn)))
            errors = []
            if turn.times is None:
                self.open_ended = True
                break
            self.places += [((), (index, turn))] * (turn.times - 1)
        if errors:
            self.places.append((tuple(errors), None))
        self._seen: dict[int, int] = {}  # place → requests that came at it

    def at(self, place: int) -> tuple[Turn | None, int]:
        """The turn answering the next request at `place` (the model's answers its history holds), and its index."""
        if place >= len(self.places):
            if not (self.open_ended and self.places):
                return None, len(self.places)
            answer = self.places[-1][1]
            assert answer is not None
            return answer[1], answer[0]
        errors, answer = self.places[place]
        seen = self._seen.get(place, 0)
        self._seen[place] = seen + 1
        for index, turn in errors:
            if turn.times is None or seen < turn.times:
                return turn, index
            seen -= turn.times
        return (answer[1], answer[0]) if answer is not None else (None, errors[-1][0])


class ModelApp:
    """A stub server application answering an agent CLI's model requests from a script (see the module docstring).
    `problems` lists what the CLI did that the script did not expect; `served` counts the turns' requests; `asides`
    the requests of other conversations than the scripted one, answered ASIDE."""

    def __init__(self, script: ModelScript):
        if script.api not in HTTP_APIS:
            raise ValueError(f"{script.api} is not served over HTTP")
        self.script = script
        self.problems: list[str] = []
        self.requests = 0
        self.asides = 0
        self._next = 0  # the turn the next request takes, by order (a request whose history cannot be read)
        self._used = 0  # requests the current turn has answered
        self._opening: str | None = None  # the scripted conversation's first user message, once a request shows it
        self._schedule = _Schedule(script.turns)
        self._lock = threading.Lock()

    def handle(self, method: str, url: str, path: str, headers: Mapping[str, str], body: bytes | None) -> Reply:
        wanted = {"openai-chat": "/chat/completions", "openai-responses": "/responses",
                  gemini.API: gemini.WANTED}.get(self.script.api, "/messages")
        routed = gemini.route(path) if self.script.api == gemini.API else None
        known = routed is not None if self.script.api == gemini.API else path.endswith(wanted)
        if method != "POST" or not known:
            return self._error(ErrorAnswer(404, type=None if routed is None and self.script.api == gemini.API
                                           else "not_found_error",
                                           message=f"the scripted {self.script.api} endpoint answers POST "
                                                   f"…{wanted} only"))
        try:
            request = orjson.loads(body or b"")
        except orjson.JSONDecodeError:
            request = None
        if not isinstance(request, dict):
            return self._error(ErrorAnswer(400, message="the request body is not a JSON object"))
        text = (body or b"").decode("utf-8", "replace")
        with self._lock:
            self.requests += 1
            number = self.requests
            turn = self._turn(number, text, asked(self.script.api, request))
            if turn is None:
                return self._error(ErrorAnswer(500, message=f"wirecheck: the model script has no turn left for "
                                                            f"request {number}"))
        if turn.error is not None:
            return self._error(turn.error)
        asked_model = request.get("model")
        model = asked_model if isinstance(asked_model, str) else "wirecheck-model"
        stream = request.get("stream") is True
        if routed is not None:  # the Gemini API names the model and the streaming in the path, not the body
            return gemini.answer(turn.text, ((c.name, c.input, c.id) for c in turn.tool_calls), turn.usage,
                                 routed[0], number, routed[1])
        if self.script.api == "anthropic-messages":
            return _anthropic(turn, model, number, stream)
        if self.script.api == "openai-responses":
            if not stream:
                return Reply(200, responses.body(turn, model, number, request), dict(JSON))
            return Reply(200, _sse(list(responses.stream(turn, model, number, request))), dict(SSE))
        return _openai(turn, model, number, stream)

    def _turn(self, number: int, text: str, request: Asked | None) -> Turn | None:
        """The turn answering request `number` (its body `text`): a side answer whose text it holds; for a request of
        another conversation than the scripted one, ASIDE; else the turn at the place the request's history has
        reached (or, when its history cannot be read, the next turn in order)."""
        side = next((s for s in self.script.side if s.when in text), None)
        if side is not None:
            return side.turn
        if request is not None:
            if self._opening is None and (self.script.conversation is None
                                          or self.script.conversation in request.opening):
                self._opening = request.opening
            if request.opening != self._opening:
                self.asides += 1
                return ASIDE
            turn, index = self._schedule.at(request.answered)
            if turn is None:
                self.problems.append(f"model request {number} holds {request.answered} answer(s) of the model: the "
                                     f"script has no turn for it ({len(self.script.turns)} turn(s)): answered 500")
                return None
        else:
            turn, index = self._take(number), self._next
            if turn is None:
                return None
        if turn.request_contains is not None and turn.request_contains not in text:
            self.problems.append(
                f"model request {number} took turn {index + 1}, which expects a request containing "
                f"{turn.request_contains!r}; it did not")
        return turn

    def _take(self, number: int) -> Turn | None:
        turns = self.script.turns
        while self._next < len(turns):
            turn = turns[self._next]
            if turn.times is None or self._used < turn.times:
                self._used += 1
                return turn
            self._next, self._used = self._next + 1, 0
        self.problems.append(f"model request {number} came after the script's last turn ({len(turns)}): answered "
                             "500")
        return None

    def _error(self, error: ErrorAnswer) -> Reply:
        if error.body is not None:
            body = error.body if isinstance(error.body, str) else orjson.dumps(error.body).decode()
        elif self.script.api == gemini.API:
            body = gemini.error_body(error.status, error.type, error.message).decode()
        elif self.script.api == "anthropic-messages":
            kind = error.type or ANTHROPIC_ERROR_TYPES.get(error.status, "api_error")
            body = orjson.dumps({"type": "error", "error": {"type": kind, "message": error.message}}).decode()
        elif self.script.api == "openai-responses":
            body = responses.error_body(error.status, error.message, error.type).decode()
        else:
            kind = error.type or OPENAI_ERROR_TYPES.get(error.status, "server_error")
            body = orjson.dumps({"error": {"message": error.message, "type": kind, "code": kind}}).decode()
        return Reply(error.status, body.encode(), {**JSON, **error.headers})


def _tool_id(call: ToolCall, number: int, index: int, prefix: str) -> str:
    return call.id or f"{prefix}wirecheck_{number}_{index + 1}"


def _sse(events: list[tuple[str | None, Any]]) -> bytes:
    out = bytearray()
    for name, data in events:
        if name is not None:
            out += b"event: " + name.encode() + b"\n"
        out += b"data: " + (data if isinstance(data, bytes) else orjson.dumps(data)) + b"\n\n"
    return bytes(out)


# The Messages API's `usage`, every member the real service sends, as @anthropic-ai/sdk 1.17.0 types it
# (resources/messages/messages.d.ts:4809 Usage; :3893 MessageDeltaUsage, a stream's last count) and Claude Code
# 2.1.332 echoes it in its result (fixtures/live/claude-code@2.1.332): a reader that sums the cache counts (the
# Claude Agent SDK's ACP adapter) gets numbers, not NaN, from a scripted turn as from the real API.
ANTHROPIC_DELTA_USAGE = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
                         "server_tool_use")


def _anthropic_usage(input_tokens: int, output_tokens: int) -> dict[str, Any]:
    return {"input_tokens": input_tokens, "output_tokens": output_tokens, "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0},
            "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0}, "service_tier": "standard"}


def _anthropic(turn: Turn, model: str, number: int, stream: bool) -> Reply:
    blocks: list[dict[str, Any]] = []
    if turn.text is not None:
        blocks.append({"type": "text", "text": turn.text})
    for index, call in enumerate(turn.tool_calls):
        blocks.append({"type": "tool_use", "id": _tool_id(call, number, index, "toolu_"), "name": call.name,
                       "input": dict(call.input)})
    stop = "tool_use" if turn.tool_calls else "end_turn"
    usage = _anthropic_usage(turn.usage["input"], turn.usage["output"])
    message = {"id": f"msg_wirecheck_{number}", "type": "message", "role": "assistant", "model": model}
    if not stream:
        return Reply(200, orjson.dumps({**message, "content": blocks, "stop_reason": stop, "stop_sequence": None,
                                        "usage": usage}), dict(JSON))
    events: list[tuple[str | None, Any]] = [("message_start", {"type": "message_start", "message": {
        **message, "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {**usage, "output_tokens": 1}}})]
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            start: dict[str, Any] = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            start = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": orjson.dumps(block["input"]).decode()}
        events += [("content_block_start", {"type": "content_block_start", "index": index, "content_block": start}),
                   ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}),
                   ("content_block_stop", {"type": "content_block_stop", "index": index})]
    events += [("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                  "usage": {key: usage[key] for key in ANTHROPIC_DELTA_USAGE}}),
               ("message_stop", {"type": "message_stop"})]
    return Reply(200, _sse(events), dict(SSE))


def _openai(turn: Turn, model: str, number: int, stream: bool) -> Reply:
    calls = [{"id": _tool_id(call, number, index, "call_"), "type": "function",
              "function": {"name": call.name, "arguments": orjson.dumps(dict(call.input)).decode()}}
             for index, call in enumerate(turn.tool_calls)]
    finish = "tool_calls" if calls else "stop"
    usage = {"prompt_tokens": turn.usage["input"], "completion_tokens": turn.usage["output"],
             "total_tokens": turn.usage["input"] + turn.usage["output"]}
    head = {"id": f"chatcmpl-wirecheck-{number}", "created": 0, "model": model}
    if not stream:
        message: dict[str, Any] = {"role": "assistant", "content": turn.text}
        if calls:
            message["tool_calls"] = calls
        return Reply(200, orjson.dumps({**head, "object": "chat.completion", "choices": [
            {"index": 0, "message": message, "finish_reason": finish}], "usage": usage}), dict(JSON))

    def chunk(delta: dict[str, Any], reason: str | None = None, **extra: Any) -> tuple[str | None, Any]:
        return None, {**head, "object": "chat.completion.chunk",
                      "choices": [{"index": 0, "delta": delta, "finish_reason": reason}], **extra}

    events = [chunk({"role": "assistant", "content": ""})]
    if turn.text is not None:
        events.append(chunk({"content": turn.text}))
    for index, call in enumerate(calls):
        events.append(chunk({"tool_calls": [{"index": index, **call}]}))
    events += [chunk({}, finish, usage=usage), (None, b"[DONE]")]
    return Reply(200, _sse(events), dict(SSE))


# -- qodercli's --fake-responses file ------------------------------------------------------------------------------


def fake_responses(script: ModelScript) -> bytes:
    """The script as qodercli's `--fake-responses` JSONL: one `generateContentStream` line per model call (a turn
    with `times: N` is N lines; `always` is written once: the file cannot repeat)."""
    if script.api != "qoder-fake-responses":
        raise ValueError(f"{script.api} is served over HTTP, not written as fake responses")
    lines = []
    for turn in script.turns:
        parts: list[dict[str, Any]] = []
        if turn.text is not None:
            parts.append({"text": turn.text})
        parts += [{"functionCall": {"name": call.name, "args": dict(call.input)}} for call in turn.tool_calls]
        usage = {"promptTokenCount": turn.usage["input"], "candidatesTokenCount": turn.usage["output"],
                 "totalTokenCount": turn.usage["input"] + turn.usage["output"]}
        line = orjson.dumps({"method": "generateContentStream", "response": [{
            "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": usage}]})
        lines += [line] * (turn.times or 1)
    lines += [orjson.dumps({"method": "utilityGenerateContent", "response": text}) for text in script.utility]
    return b"".join(line + b"\n" for line in lines)
