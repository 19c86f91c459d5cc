"""Scripted model endpoints: what an agent CLI under a live run talks to instead of its model provider.

A model script (the `model:` section of a scenario, harness/scenario.py) lists the model's turns in the order the CLI
asks for them: a text answer, tool calls, or an HTTP error with its headers (a 429 with `retry-after`). The same
script is served as any of four HTTP APIs, one module each that writes a turn as its service would (`Endpoint`:
`route`, `reply`, `error_body`):

- `anthropic-messages` (stub/anthropic.py): the Anthropic Messages API (`POST /v1/messages`), streamed as server-sent
  events when the request asks for `stream`, else one JSON message. Claude Code, the Claude Agent SDK's ACP adapter.
- `openai-chat` (stub/chat.py): the OpenAI-compatible chat completions API (`POST /v1/chat/completions`), streamed
  as `chat.completion.chunk` events ending in `data: [DONE]`, else one `chat.completion`. OpenCode's
  `@ai-sdk/openai-compatible` provider.
- `gemini` (stub/gemini.py): the Gemini API (`POST …/models/<model>:streamGenerateContent?alt=sse`,
  `…:generateContent`), as @google/genai types it. Gemini CLI.
- `openai-responses` (stub/responses.py): the OpenAI Responses API (`POST /v1/responses`), streamed as the service
  streams a response (`response.created` … `response.completed` with its whole usage), else one `response`; a
  turn's `usage` there may also give `cached` and `reasoning` tokens, a turn may show `reasoning`, a `web_search` the
  service ran or a `tool_search` the caller runs, and a tool call may name its `namespace` (a tool the search loaded:
  Codex's MCP tools). The Codex CLI.

Server-sent events are written by stub/sse.py; each API's error envelope by its module. And one file:

- `qoder-fake-responses`: not a server but a file: qodercli's test hook `--fake-responses FILE.jsonl` reads one
  line per model call (`{"method": "generateContentStream", "response": [{"candidates": [...]}]}`, Gemini's
  shape). It cannot answer with an HTTP error. `utility:` lists the answers of qodercli's side calls (prompt
  suggestions, session titles: `{"method": "utilityGenerateContent", "response": "text"}` lines), which it reads
  apart from the turns: with QODER_FAKE_STREAM_DELAY_MS set, each method has its own cursor in the file
  (qodercli 1.1.52 bundle/qodercli.js, getNextResponse: `perMethodCursors`).

The HTTP endpoints are applications of the stub server (stub/server.py: 127.0.0.1, a bounded worker pool, phase
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
from typing import Any, Protocol

import orjson

from wirecheck.stub import anthropic, chat, gemini, responses
from wirecheck.stub.asked import Asked, asked
from wirecheck.stub.server import Reply
from wirecheck.yaml_lines import LINE_KEY, strip_lines


class Endpoint(Protocol):
    """An HTTP model API as the scripted endpoint serves it: one module each (stub/anthropic.py, chat.py, gemini.py,
    responses.py), ModelApp choosing the turn, the module writing it as its service would."""

    WANTED: str  # the path it serves, as a 404 names it
    NOT_FOUND_TYPE: str | None  # the error type of its answer to another path (None: its status's own)

    def route(self, path: str) -> tuple[str | None, bool | None] | None:
        """(model, streamed) as the path names them (None each where the body does), None: a path not served."""

    def reply(self, turn: Turn, model: str, number: int, stream: bool, request: dict[str, Any]) -> Reply:
        """Model request `number`'s turn."""

    def error_body(self, status: int, kind: str | None, message: str) -> bytes:
        """Its service's error envelope (`kind`: the script's error type, else the status's)."""


ENDPOINTS: dict[str, Endpoint] = {anthropic.API: anthropic, chat.API: chat, gemini.API: gemini,
                                  responses.API: responses}
FAKE_RESPONSES = "qoder-fake-responses"  # not a server: a file qodercli reads (see `fake_responses`)
APIS = (anthropic.API, chat.API, FAKE_RESPONSES, gemini.API, responses.API)
HTTP_APIS = tuple(ENDPOINTS)
ALWAYS = "always"
TURN_KEYS = ("text", "tool_call", "tool_calls", "error", "times", "request_contains", "usage",
             *responses.TURN_KEYS)
ERROR_KEYS = ("status", "headers", "type", "message", "body")
SCRIPT_KEYS = ("api", "turns", "side", "refused", "utility", "conversation")
MAX_TOKENS = (1 << 53) - 1  # a usage count the CLIs (JavaScript) read exactly; input + output stays within 64 bits
JSON = {"content-type": "application/json"}


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
    elif utility and api != FAKE_RESPONSES:
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
        self.endpoint = ENDPOINTS[script.api]
        self.problems: list[str] = []
        self.requests = 0
        self.asides = 0
        self._next = 0  # the turn the next request takes, by order (a request whose history cannot be read)
        self._used = 0  # requests the current turn has answered
        self._opening: str | None = None  # the scripted conversation's first user message, once a request shows it
        self._schedule = _Schedule(script.turns)
        self._lock = threading.Lock()

    def handle(self, method: str, url: str, path: str, headers: Mapping[str, str], body: bytes | None) -> Reply:
        endpoint = self.endpoint
        routed = endpoint.route(path)
        if method != "POST" or routed is None:
            return self._error(ErrorAnswer(404, type=endpoint.NOT_FOUND_TYPE, message=f"the scripted "
                                           f"{self.script.api} endpoint answers POST …{endpoint.WANTED} only"))
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
        named, streamed = routed  # what the path names (the Gemini API's model and streaming), else the body's
        model = named or (request["model"] if isinstance(request.get("model"), str) else "wirecheck-model")
        stream = streamed if streamed is not None else request.get("stream") is True
        return endpoint.reply(turn, model, number, stream, request)

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
            body = error.body.encode() if isinstance(error.body, str) else orjson.dumps(error.body)
        else:
            body = self.endpoint.error_body(error.status, error.type, error.message)
        return Reply(error.status, body, {**JSON, **error.headers})


# -- qodercli's --fake-responses file ------------------------------------------------------------------------------


def fake_responses(script: ModelScript) -> bytes:
    """The script as qodercli's `--fake-responses` JSONL: one `generateContentStream` line per model call (a turn
    with `times: N` is N lines; `always` is written once: the file cannot repeat)."""
    if script.api != FAKE_RESPONSES:
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
