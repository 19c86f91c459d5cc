"""The OpenAI Responses API as a scripted model endpoint answers it (`api: openai-responses`, `POST /v1/responses`):
what the Codex CLI talks to. stub/model.py parses the script and picks the turn; this module renders it.

Streamed (`"stream": true`, what Codex always asks for) as the real service streams a response: server-sent events,
each with its `event:` name and a `sequence_number` counting from 0:
`response.created`, `response.in_progress`, then per output item `response.output_item.added`, its parts
(`response.content_part.added`, `response.output_text.delta`, `response.output_text.done`,
`response.content_part.done` for a message; `response.function_call_arguments.delta` / `.done` for a function
call, `response.custom_tool_call_input.delta` / `.done` for a custom tool's (a tool call whose `input` is text:
Codex's apply_patch); `response.reasoning_summary_part.added`, `response.reasoning_summary_text.delta` / `.done`,
`response.reasoning_summary_part.done` for a reasoning summary (`reasoning:`); `response.web_search_call.in_progress`
/ `.searching` / `.completed` for a web search the service ran (`web_search:` its query); nothing between for a
search of the caller's deferred tools (`tool_search:` its query, a `tool_search_call` the caller runs: Codex's
tool_search, which loads its MCP tools)), `response.output_item.done`,
and last `response.completed` with the whole response and its usage. Otherwise one `response` object. An error is
OpenAI's envelope `{"error": {"message", "type", "param", "code"}}`.

Every shape is the `openai` npm SDK's, openai@7.60.0 `resources/responses/responses.d.ts` (the line of each
interface below, where RESPONSES_TYPES names it), field for field: the required members of `Response` (:779) all
present, and `usage` (ResponseUsage, :7655) with `input_tokens_details` {cached_tokens, cache_write_tokens} and
`output_tokens_details` {reasoning_tokens} (:7677-7690), as the real service always sends them. `output_text`
(:782) is the SDK's own convenience (it joins the output texts on the client), never sent: it is left out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from wirecheck.stub import sse
from wirecheck.stub.server import Reply
from wirecheck.stub.turns import Turn

# Where each rendered shape is typed: openai@7.60.0 resources/responses/responses.d.ts, line of the interface.
RESPONSES_TYPES = {
    "Response": 779, "ResponseCompletedEvent": 1826, "ResponseContentPartAddedEvent": 2273,
    "ResponseContentPartDoneEvent": 2317, "ResponseCreatedEvent": 2370, "ResponseFunctionCallArgumentsDeltaEvent": 2835,
    "ResponseFunctionCallArgumentsDoneEvent": 2860, "ResponseFunctionToolCall": 3096, "ResponseInProgressEvent": 3431,
    "ResponseOutputItemAddedEvent": 5661, "ResponseOutputItemDoneEvent": 5685, "ResponseOutputMessage": 5706,
    "ResponseOutputText": 5752, "ResponseTextDeltaEvent": 7068, "ResponseTextDoneEvent": 7134, "ResponseUsage": 7655,
    "ResponseCustomToolCall": 2387, "ResponseCustomToolCallInputDeltaEvent": 2436,
    "ResponseCustomToolCallInputDoneEvent": 2461, "ResponseFunctionWebSearch": 3230, "ResponseReasoningItem": 6052,
    "ResponseReasoningSummaryPartAddedEvent": 6117, "ResponseReasoningSummaryPartDoneEvent": 6161,
    "ResponseReasoningSummaryTextDeltaEvent": 6210, "ResponseReasoningSummaryTextDoneEvent": 6239,
    "ResponseWebSearchCallCompletedEvent": 7718, "ResponseWebSearchCallInProgressEvent": 7739,
    "ResponseWebSearchCallSearchingEvent": 7760, "ResponseToolSearchCall": 7197,
}
API = "openai-responses"
WANTED = "/responses"
JSON = {"content-type": "application/json"}
NOT_FOUND_TYPE: str | None = "invalid_request_error"  # OpenAI's answer to a path it does not serve ("Invalid URL")
TURN_KEYS = ("reasoning", "web_search", "tool_search")  # a turn's output items only this API has
# OpenAI's error `type` and `code` by status when the script names none (its documented error codes).
ERRORS = {400: ("invalid_request_error", None), 401: ("invalid_request_error", "invalid_api_key"),
          403: ("invalid_request_error", "unsupported_country_region_territory"),
          404: ("invalid_request_error", "model_not_found"), 429: ("requests", "rate_limit_exceeded"),
          500: ("server_error", "server_error"), 503: ("server_error", "server_is_overloaded")}
USAGE_KEYS = ("input", "output", "cached", "reasoning")  # a turn's usage: cached ⊆ input, reasoning ⊆ output


def usage(counts: Mapping[str, int]) -> dict[str, Any]:
    """ResponseUsage (responses.d.ts:7655-7690) from a turn's counts: every member the service sends."""
    inputs, outputs = counts["input"], counts["output"]
    return {"input_tokens": inputs,
            "input_tokens_details": {"cached_tokens": counts.get("cached", 0), "cache_write_tokens": 0},
            "output_tokens": outputs,
            "output_tokens_details": {"reasoning_tokens": counts.get("reasoning", 0)},
            "total_tokens": inputs + outputs}


def _response(number: int, model: str, request: Mapping[str, Any], status: str, output: list[dict[str, Any]],
              counts: Mapping[str, int] | None) -> dict[str, Any]:
    """A `Response` (responses.d.ts:779): its required members, and those the service fills from the request."""
    tools = request.get("tools")
    return {
        "id": f"resp_wirecheck_{number}", "object": "response", "created_at": 1_700_000_000 + number,
        "status": status, "completed_at": 1_700_000_001 + number if status == "completed" else None,
        "access_programs": None, "background": False, "error": None, "incomplete_details": None,
        "instructions": request.get("instructions"), "max_output_tokens": None, "max_tool_calls": None,
        "model": model, "output": output, "parallel_tool_calls": request.get("parallel_tool_calls", True) is True,
        "previous_response_id": None, "prompt_cache_key": request.get("prompt_cache_key"),
        "reasoning": {"effort": None, "summary": None}, "safety_identifier": None, "service_tier": "default",
        "temperature": 1.0,
        "text": {"format": {"type": "text"}, "verbosity": "medium"},
        "tool_choice": request.get("tool_choice", "auto"), "tools": tools if isinstance(tools, list) else [],
        "top_logprobs": 0, "top_p": 1.0, "truncation": "disabled",
        "usage": usage(counts) if counts is not None else None, "user": None, "metadata": {},
    }


def _output(turn: Turn, number: int) -> list[dict[str, Any]]:
    """The turn's output items, completed: a ResponseReasoningItem (:6052) with its summary, a
    ResponseFunctionWebSearch (:3230), a ResponseToolSearchCall (:7197) the caller runs (`execution: client`, its
    `arguments` the tool_search parameters {query}), a ResponseOutputMessage (:5706) with one ResponseOutputText
    (:5752), then a ResponseFunctionToolCall (:3096) per tool call, or a ResponseCustomToolCall (:2387) where its
    input is text; either names the call's `namespace` where the script gives one (a tool a tool search loaded)."""
    items: list[dict[str, Any]] = []
    if turn.reasoning is not None:
        items.append({"id": f"rs_wirecheck_{number}", "type": "reasoning", "status": "completed",
                      "summary": [{"type": "summary_text", "text": turn.reasoning}], "encrypted_content": None})
    if turn.web_search is not None:
        items.append({"id": f"ws_wirecheck_{number}", "type": "web_search_call", "status": "completed",
                      "action": {"type": "search", "query": turn.web_search}})
    if turn.tool_search is not None:
        items.append({"id": f"tsc_wirecheck_{number}", "type": "tool_search_call", "status": "completed",
                      "execution": "client", "call_id": f"call_wirecheck_{number}_search",
                      "arguments": {"query": turn.tool_search}})
    if turn.text is not None:
        items.append({"id": f"msg_wirecheck_{number}", "type": "message", "status": "completed", "role": "assistant",
                      "content": [{"type": "output_text", "annotations": [], "logprobs": [], "text": turn.text}]})
    for index, call in enumerate(turn.tool_calls):
        call_id = call.id or f"call_wirecheck_{number}_{index + 1}"
        namespace = {"namespace": call.namespace} if call.namespace is not None else {}
        if call.text is not None:
            items.append({"id": f"ctc_wirecheck_{number}_{index + 1}", "type": "custom_tool_call",
                          "call_id": call_id, "name": call.name, **namespace, "input": call.text})
        else:
            items.append({"id": f"fc_wirecheck_{number}_{index + 1}", "type": "function_call", "status": "completed",
                          "arguments": orjson.dumps(dict(call.input)).decode(), "call_id": call_id,
                          "name": call.name, **namespace})
    return items


def route(path: str) -> tuple[str | None, bool | None] | None:
    """What a request's path names of the answer (nothing: the body names the model and the streaming), None for a
    path this API does not serve."""
    return (None, None) if path.endswith(WANTED) else None


def reply(turn: Turn, model: str, number: int, stream: bool, request: dict[str, Any]) -> Reply:
    """Model request `number`'s scripted turn as the Responses API answers it: one `response`, or its stream."""
    if not stream:
        return Reply(200, body(turn, model, number, request), dict(JSON))
    return Reply(200, sse.body(stream_events(turn, model, number, request)), dict(sse.HEADERS))


def body(turn: Turn, model: str, number: int, request: Mapping[str, Any]) -> bytes:
    """The answer to a request without `stream`: one Response, completed."""
    return orjson.dumps(_response(number, model, request, "completed", _output(turn, number), turn.usage))


def stream_events(turn: Turn, model: str, number: int,
                  request: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The answer to a streamed request: (event name, data) in the order the service sends them."""
    events: list[tuple[str, dict[str, Any]]] = []

    def send(kind: str, **data: Any) -> None:
        events.append((kind, {"type": kind, "sequence_number": len(events), **data}))

    send("response.created", response=_response(number, model, request, "in_progress", [], None))
    send("response.in_progress", response=_response(number, model, request, "in_progress", [], None))
    output = _output(turn, number)
    for index, item in enumerate(output):
        at = {"output_index": index}
        if item["type"] == "message":
            part = item["content"][0]
            send("response.output_item.added", item={**item, "status": "in_progress", "content": []}, **at)
            place = {"item_id": item["id"], **at, "content_index": 0}
            send("response.content_part.added", part={**part, "text": ""}, **place)
            send("response.output_text.delta", delta=part["text"], logprobs=[], **place)
            send("response.output_text.done", text=part["text"], logprobs=[], **place)
            send("response.content_part.done", part=part, **place)
        elif item["type"] == "reasoning":
            text = item["summary"][0]["text"]
            send("response.output_item.added", item={**item, "status": "in_progress", "summary": []}, **at)
            place = {"item_id": item["id"], **at, "summary_index": 0}
            send("response.reasoning_summary_part.added", part={"type": "summary_text", "text": ""}, **place)
            send("response.reasoning_summary_text.delta", delta=text, **place)
            send("response.reasoning_summary_text.done", text=text, **place)
            send("response.reasoning_summary_part.done", part={"type": "summary_text", "text": text}, **place)
        elif item["type"] == "web_search_call":
            send("response.output_item.added", item={**item, "status": "in_progress"}, **at)
            for phase in ("in_progress", "searching", "completed"):
                send(f"response.web_search_call.{phase}", item_id=item["id"], **at)
        elif item["type"] == "tool_search_call":  # no events of its own between added and done
            send("response.output_item.added", item={**item, "status": "in_progress"}, **at)
        elif item["type"] == "custom_tool_call":
            send("response.output_item.added", item={**item, "input": ""}, **at)
            send("response.custom_tool_call_input.delta", item_id=item["id"], delta=item["input"], **at)
            send("response.custom_tool_call_input.done", item_id=item["id"], input=item["input"], **at)
        else:
            send("response.output_item.added", item={**item, "status": "in_progress", "arguments": ""}, **at)
            send("response.function_call_arguments.delta", item_id=item["id"], delta=item["arguments"], **at)
            send("response.function_call_arguments.done", item_id=item["id"], arguments=item["arguments"], **at)
        send("response.output_item.done", item=item, **at)
    send("response.completed", response=_response(number, model, request, "completed", output, turn.usage))
    return events


def error_body(status: int, kind: str | None, message: str) -> bytes:
    """OpenAI's error envelope: {"error": {"message", "type", "param", "code"}}."""
    default_type, code = ERRORS.get(status, ("server_error" if status >= 500 else "invalid_request_error", None))
    return orjson.dumps({"error": {"message": message, "type": kind or default_type, "param": None, "code": code}})
