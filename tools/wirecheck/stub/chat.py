"""The OpenAI-compatible chat completions API as a scripted model endpoint serves it (`api: openai-chat`,
`POST /v1/chat/completions`): what OpenCode's `@ai-sdk/openai-compatible` provider talks to. stub/model.py parses
the script and picks the turn; this module renders it, as every API module does (`route`, `reply`, `error_body`,
`WANTED`, `NOT_FOUND_TYPE`).

Streamed as `chat.completion.chunk` events ending in `data: [DONE]` when the request asks for `stream`, else one
`chat.completion`; errors as `{"error": {"message", "type", "code"}}`.
"""

from __future__ import annotations

from typing import Any

import orjson

from wirecheck.stub import sse
from wirecheck.stub.server import Reply
from wirecheck.stub.turns import Turn

API = "openai-chat"
WANTED = "/chat/completions"
JSON = {"content-type": "application/json"}
# the error `type` of a status when the script names none, as OpenAI names them
ERROR_TYPES = {400: "invalid_request_error", 401: "invalid_api_key", 429: "rate_limit_exceeded",
               500: "server_error", 503: "server_error"}
NOT_FOUND_TYPE: str | None = "invalid_request_error"  # OpenAI's answer to a path it does not serve ("Invalid URL")


def route(path: str) -> tuple[str | None, bool | None] | None:
    """What a request's path names of the answer (nothing: the body names the model and the streaming), None for a
    path this API does not serve."""
    return (None, None) if path.endswith(WANTED) else None


def reply(turn: Turn, model: str, number: int, stream: bool, request: dict[str, Any]) -> Reply:
    """Model request `number`'s scripted turn as chat completions answer it: one completion, or its chunks."""
    calls = [{"id": call.id or f"call_wirecheck_{number}_{index + 1}", "type": "function",
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
    return Reply(200, sse.body(events), dict(sse.HEADERS))


def error_body(status: int, kind: str | None, message: str) -> bytes:
    """The OpenAI-compatible error envelope (`kind`: the script's error type, else the status's)."""
    kind = kind or ERROR_TYPES.get(status, "server_error")
    return orjson.dumps({"error": {"message": message, "type": kind, "code": kind}})
