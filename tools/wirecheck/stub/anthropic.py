"""The Anthropic Messages API as a scripted model endpoint serves it (`api: anthropic-messages`, `POST /v1/messages`):
what Claude Code and the Claude Agent SDK's ACP adapter talk to. stub/model.py parses the script and picks the turn;
this module renders it, as every API module does (`route`, `reply`, `error_body`, `WANTED`, `NOT_FOUND_TYPE`).

Streamed as server-sent events when the request asks for `stream` (`message_start`, `content_block_start` /
`_delta` / `_stop` per block, `message_delta`, `message_stop`), else one JSON message; errors as
`{"type": "error", "error": {"type", "message"}}`.
"""

from __future__ import annotations

from typing import Any

import orjson

from wirecheck.stub import sse
from wirecheck.stub.server import Reply
from wirecheck.stub.turns import Turn

API = "anthropic-messages"
WANTED = "/messages"
JSON = {"content-type": "application/json"}
# the error `type` of a status when the script names none (Anthropic's documented error types)
ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
               404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error", 500: "api_error",
               529: "overloaded_error"}
NOT_FOUND_TYPE: str | None = "not_found_error"
# The Messages API's `usage`, every member the real service sends, as @anthropic-ai/sdk 1.17.0 types it
# (resources/messages/messages.d.ts:4809 Usage; :3893 MessageDeltaUsage, a stream's last count) and Claude Code
# 2.1.332 echoes it in its result (fixtures/live/claude-code@2.1.332): a reader that sums the cache counts (the
# Claude Agent SDK's ACP adapter) gets numbers, not NaN, from a scripted turn as from the real API.
DELTA_USAGE = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
               "server_tool_use")


def route(path: str) -> tuple[str | None, bool | None] | None:
    """What a request's path names of the answer (nothing: the body names the model and the streaming), None for a
    path this API does not serve."""
    return (None, None) if path.endswith(WANTED) else None


def usage(input_tokens: int, output_tokens: int) -> dict[str, Any]:
    return {"input_tokens": input_tokens, "output_tokens": output_tokens, "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0},
            "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0}, "service_tier": "standard"}


def reply(turn: Turn, model: str, number: int, stream: bool, request: dict[str, Any]) -> Reply:
    """Model request `number`'s scripted turn as the Messages API answers it: one message, or its stream."""
    blocks: list[dict[str, Any]] = []
    if turn.text is not None:
        blocks.append({"type": "text", "text": turn.text})
    for index, call in enumerate(turn.tool_calls):
        blocks.append({"type": "tool_use", "id": call.id or f"toolu_wirecheck_{number}_{index + 1}",
                       "name": call.name, "input": dict(call.input)})
    stop = "tool_use" if turn.tool_calls else "end_turn"
    counts = usage(turn.usage["input"], turn.usage["output"])
    message = {"id": f"msg_wirecheck_{number}", "type": "message", "role": "assistant", "model": model}
    if not stream:
        return Reply(200, orjson.dumps({**message, "content": blocks, "stop_reason": stop, "stop_sequence": None,
                                        "usage": counts}), dict(JSON))
    events: list[tuple[str | None, Any]] = [("message_start", {"type": "message_start", "message": {
        **message, "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {**counts, "output_tokens": 1}}})]
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
                                  "usage": {key: counts[key] for key in DELTA_USAGE}}),
               ("message_stop", {"type": "message_stop"})]
    return Reply(200, sse.body(events), dict(sse.HEADERS))


def error_body(status: int, kind: str | None, message: str) -> bytes:
    """Anthropic's error envelope (`kind`: the script's error type, else the status's documented one)."""
    return orjson.dumps({"type": "error", "error": {"type": kind or ERROR_TYPES.get(status, "api_error"),
                                                    "message": message}})
