"""stub/responses.py through stub/model.py: the scripted OpenAI Responses endpoint answers as the real service, member
for member as the `openai` npm SDK types each shape (openai@7.60.0 resources/responses/responses.d.ts, the lines in
RESPONSES_TYPES), and takes turns, errors and usage from the script."""

from __future__ import annotations

import orjson
import pytest

from .conftest import post, script, sse_events

# Each interface's members as openai@7.60.0 responses.d.ts declares them: (required, optional). `output_text`
# (Response, :782) is the SDK's own convenience, computed on the client: never on the wire.
RESPONSE = ({"id", "access_programs", "created_at", "error", "incomplete_details", "instructions", "metadata",
             "model", "object", "output", "parallel_tool_calls", "temperature", "tool_choice", "tools", "top_p"},
            {"background", "completed_at", "conversation", "image", "input_transformations", "max_output_tokens",
             "max_tool_calls", "moderation", "previous_response_id", "prompt", "prompt_cache_diagnostics",
             "prompt_cache_key", "prompt_cache_options", "prompt_cache_retention", "reasoning", "safety_identifier",
             "service_tier", "status", "text", "tool_usage", "top_logprobs", "truncation", "usage", "user"})
EVENTS = {  # event type → its interface's members (all required)
    "response.created": {"response", "sequence_number", "type"},                                    # :2370
    "response.in_progress": {"response", "sequence_number", "type"},                                # :3431
    "response.completed": {"response", "sequence_number", "type"},                                  # :1826
    "response.output_item.added": {"item", "output_index", "sequence_number", "type"},              # :5661
    "response.output_item.done": {"item", "output_index", "sequence_number", "type"},               # :5685
    "response.content_part.added": {"content_index", "item_id", "output_index", "part", "sequence_number",
                                    "type"},                                                        # :2273
    "response.content_part.done": {"content_index", "item_id", "output_index", "part", "sequence_number",
                                   "type"},                                                         # :2317
    "response.output_text.delta": {"content_index", "delta", "item_id", "logprobs", "output_index",
                                   "sequence_number", "type"},                                      # :7068
    "response.output_text.done": {"content_index", "item_id", "logprobs", "output_index", "sequence_number",
                                  "text", "type"},                                                  # :7134
    "response.function_call_arguments.delta": {"delta", "item_id", "output_index", "sequence_number",
                                               "type"},                                             # :2835
    "response.function_call_arguments.done": {"arguments", "item_id", "output_index", "sequence_number",
                                              "type"},                                              # :2860
}
MESSAGE = ({"id", "content", "role", "status", "type"}, {"phase"})                                  # :5706
OUTPUT_TEXT = ({"annotations", "text", "type"}, {"logprobs"})                                        # :5752
FUNCTION_CALL = ({"arguments", "call_id", "name", "type"}, {"id", "async", "caller", "namespace", "status"})  # :3096
USAGE = {"input_tokens", "input_tokens_details", "output_tokens", "output_tokens_details", "total_tokens"}  # :7655
INPUT_DETAILS = ({"cache_write_tokens", "cached_tokens"}, {"cache_write_tokens_details"})           # :7678
OUTPUT_DETAILS = {"reasoning_tokens"}                                                               # :7689

SCRIPT = """
api: openai-responses
turns:
  - text: I will create it.
    tool_call: {name: exec_command, input: {cmd: touch wirecheck.txt}}
    usage: {input: 120, output: 9, cached: 64, reasoning: 3}
  - request_contains: function_call_output
    text: Created wirecheck.txt.
"""


def typed(value, members, where):
    required, optional = members if isinstance(members, tuple) else (members, set())
    assert required <= set(value), f"{where}: missing {sorted(required - set(value))}"
    invented = set(value) - required - optional
    assert not invented, f"{where}: not in the SDK's type: {sorted(invented)}"


def typed_response(response, where):
    typed(response, RESPONSE, where)
    for index, item in enumerate(response["output"]):
        typed_item(item, f"{where}/output/{index}")
    if response["usage"] is not None:
        typed_usage(response["usage"], f"{where}/usage")


def typed_item(item, where):
    if item["type"] == "message":
        typed(item, MESSAGE, where)
        for index, part in enumerate(item["content"]):
            typed(part, OUTPUT_TEXT, f"{where}/content/{index}")
    else:
        assert item["type"] == "function_call"
        typed(item, FUNCTION_CALL, where)


def typed_usage(usage, where):
    typed(usage, USAGE, where)
    typed(usage["input_tokens_details"], INPUT_DETAILS, f"{where}/input_tokens_details")
    typed(usage["output_tokens_details"], OUTPUT_DETAILS, f"{where}/output_tokens_details")
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]


def test_a_streamed_turn_is_the_services_event_sequence_every_event_typed_as_the_sdk_types_it(served):
    app, server = served(SCRIPT)
    status, headers, body = post(f"{server.base_url}/v1/responses", {"model": "gpt-5.5", "stream": True,
                                                                     "input": [], "tools": [{"type": "function"}]})
    assert status == 200 and headers["content-type"] == "text/event-stream"
    events = sse_events(body)
    assert [name for name, _ in events] == [
        "response.created", "response.in_progress",
        "response.output_item.added", "response.content_part.added", "response.output_text.delta",
        "response.output_text.done", "response.content_part.done", "response.output_item.done",
        "response.output_item.added", "response.function_call_arguments.delta",
        "response.function_call_arguments.done", "response.output_item.done", "response.completed"]
    data = [orjson.loads(raw) for _, raw in events]
    for number, ((name, _), event) in enumerate(zip(events, data, strict=True)):
        assert event["type"] == name and event["sequence_number"] == number
        typed(event, EVENTS[name], name)
        if "response" in event:
            typed_response(event["response"], f"{name}/response")
        if "item" in event:
            typed_item(event["item"], f"{name}/item")
    created, completed = data[0]["response"], data[-1]["response"]
    assert created["status"] == "in_progress" and created["output"] == [] and created["usage"] is None
    assert created["model"] == "gpt-5.5" and created["tools"] == [{"type": "function"}]
    assert completed["status"] == "completed" and created["id"] == completed["id"]
    # the whole usage, the script's cached and reasoning counts where the SDK types them
    assert completed["usage"] == {"input_tokens": 120, "input_tokens_details": {"cached_tokens": 64,
                                                                               "cache_write_tokens": 0},
                                  "output_tokens": 9, "output_tokens_details": {"reasoning_tokens": 3},
                                  "total_tokens": 129}
    message, call = completed["output"]
    assert message["content"][0]["text"] == "I will create it." and data[4]["delta"] == "I will create it."
    assert data[2]["item"]["status"] == "in_progress" and data[2]["item"]["content"] == []
    assert call == {"id": "fc_wirecheck_1_1", "type": "function_call", "status": "completed", "call_id":
                    "call_wirecheck_1_1", "name": "exec_command", "arguments": '{"cmd":"touch wirecheck.txt"}'}
    assert data[8]["item"]["arguments"] == "" and data[10]["arguments"] == call["arguments"]
    assert {e["item_id"] for e in data[9:11]} == {call["id"]}

    # the next turn insists on the tool's output; one request without it is named as a problem
    status, _, body = post(f"{server.base_url}/v1/responses", {"model": "gpt-5.5", "input": []})
    response = orjson.loads(body)  # not streamed: one Response
    typed_response(response, "response")
    assert status == 200 and response["output"][0]["content"][0]["text"] == "Created wirecheck.txt."
    assert response["usage"]["input_tokens_details"] == {"cached_tokens": 0, "cache_write_tokens": 0}
    assert app.problems == ["model request 2 took turn 2, which expects a request containing "
                            "'function_call_output'; it did not"]


@pytest.mark.parametrize(("status", "kind", "code"), [(429, "requests", "rate_limit_exceeded"),
                                                      (500, "server_error", "server_error"),
                                                      (503, "server_error", "server_is_overloaded"),
                                                      (502, "server_error", None)])
def test_an_error_turn_is_openais_error_envelope_with_its_headers(served, status, kind, code):
    app, server = served(f"""
api: openai-responses
turns:
  - times: always
    error: {{status: {status}, message: slow down, headers: {{retry-after: "30"}}}}
""")
    for _ in range(2):
        answered, headers, body = post(f"{server.base_url}/v1/responses", {"stream": True})
        assert answered == status and headers["retry-after"] == "30"
        assert orjson.loads(body) == {"error": {"message": "slow down", "type": kind, "param": None, "code": code}}
    assert app.requests == 2


def test_other_routes_are_refused_and_only_this_api_takes_cached_and_reasoning_usage(served):
    _, server = served("api: openai-responses\nturns: [{text: hi}]")
    status, _, body = post(f"{server.base_url}/v1/chat/completions", {})
    assert status == 404 and b"POST \xe2\x80\xa6/responses only" in body
    parsed, problems = script("api: openai-chat\nturns: [{text: hi, usage: {input: 1, output: 1, cached: 1}}]")
    assert parsed is None and problems[0][0] == "/model/turns/0/usage"
    assert "expected {input: tokens, output: tokens}" in problems[0][1]
    parsed, problems = script("api: openai-responses\nturns: [{text: hi, usage: {input: 1, cached: -1}}]")
    assert parsed is None and "{input: tokens, output: tokens, cached: tokens, reasoning: tokens}" in problems[0][1]



REASONING = ({"id", "summary", "type"}, {"content", "encrypted_content", "status"})                 # :6052
WEB_SEARCH = {"id", "action", "status", "type"}                                                     # :3230
CUSTOM_CALL = ({"call_id", "input", "name", "type"}, {"id", "async", "caller", "namespace"})         # :2387
ITEM_EVENTS = {
    "response.reasoning_summary_part.added": {"item_id", "output_index", "part", "sequence_number", "summary_index",
                                              "type"},                                              # :6117
    "response.reasoning_summary_text.delta": {"delta", "item_id", "output_index", "sequence_number", "summary_index",
                                              "type"},                                              # :6210
    "response.reasoning_summary_text.done": {"item_id", "output_index", "sequence_number", "summary_index", "text",
                                             "type"},                                               # :6239
    "response.reasoning_summary_part.done": ({"item_id", "output_index", "part", "sequence_number", "summary_index",
                                              "type"}, {"status"}),                                 # :6161
    "response.web_search_call.in_progress": {"item_id", "output_index", "sequence_number", "type"},  # :7739
    "response.web_search_call.searching": {"item_id", "output_index", "sequence_number", "type"},    # :7760
    "response.web_search_call.completed": {"item_id", "output_index", "sequence_number", "type"},    # :7718
    "response.custom_tool_call_input.delta": {"delta", "item_id", "output_index", "sequence_number", "type"},  # :2436
    "response.custom_tool_call_input.done": {"input", "item_id", "output_index", "sequence_number", "type"},   # :2461
}
PATCH = "*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n"


def test_reasoning_a_web_search_and_a_custom_tool_call_stream_as_their_own_items(served):
    """What the Codex live tier's items scenario scripts: a reasoning summary, a web search the service ran, and a
    call of a custom (freeform) tool, whose input is text (Codex's apply_patch)."""
    _, server = served(f"""
api: openai-responses
turns:
  - reasoning: Planning the file
    web_search: wirecheck codex
    tool_call: {{name: apply_patch, input: {orjson.dumps(PATCH).decode()}}}
""")
    status, _, body = post(f"{server.base_url}/v1/responses", {"model": "gpt-5.5", "stream": True})
    events = sse_events(body)
    names = [name for name, _ in events]
    assert status == 200 and names == [
        "response.created", "response.in_progress",
        "response.output_item.added", "response.reasoning_summary_part.added",
        "response.reasoning_summary_text.delta", "response.reasoning_summary_text.done",
        "response.reasoning_summary_part.done", "response.output_item.done",
        "response.output_item.added", "response.web_search_call.in_progress", "response.web_search_call.searching",
        "response.web_search_call.completed", "response.output_item.done",
        "response.output_item.added", "response.custom_tool_call_input.delta", "response.custom_tool_call_input.done",
        "response.output_item.done", "response.completed"]
    data = [orjson.loads(raw) for _, raw in events]
    for number, ((name, _), event) in enumerate(zip(events, data, strict=True)):
        assert event["type"] == name and event["sequence_number"] == number
        typed(event, {**EVENTS, **ITEM_EVENTS}[name], name)
    reasoning, search, call = data[-1]["response"]["output"]
    typed(reasoning, REASONING, "reasoning")
    typed(search, WEB_SEARCH, "web_search_call")
    typed(call, CUSTOM_CALL, "custom_tool_call")
    assert reasoning["summary"] == [{"type": "summary_text", "text": "Planning the file"}]
    assert data[4]["delta"] == "Planning the file" and data[2]["item"]["summary"] == []
    assert search["action"] == {"type": "search", "query": "wirecheck codex"} and search["status"] == "completed"
    assert {e["item_id"] for e in data[9:12]} == {search["id"]}
    assert call["input"] == PATCH and data[15]["input"] == PATCH and data[13]["item"]["input"] == ""
    assert call["name"] == "apply_patch" and call["call_id"] == "call_wirecheck_1_1"


@pytest.mark.parametrize(("turn", "pointer", "message"), [
    ("{text: hi, reasoning: thinking}", "/model/turns/0/reasoning", "item of openai-responses, not of openai-chat"),
    ("{text: hi, web_search: ''}", "/model/turns/0/web_search", "expected a non-empty string"),
    ("{tool_call: {name: apply_patch, input: patch}}", "/model/turns/0/tool_call", "expected {name: text, input"),
])
def test_items_only_the_responses_api_has_are_refused_elsewhere(turn, pointer, message):
    api = "openai-responses" if "web_search" in turn else "openai-chat"
    parsed, problems = script(f"api: {api}\nturns: [{turn}]")
    assert parsed is None and problems[0][0] == pointer and message in problems[0][1]


TOOL_SEARCH_CALL = ({"id", "arguments", "call_id", "execution", "status", "type"}, {"created_by"})  # :7197


def test_a_tool_search_and_a_namespaced_call_stream_as_the_sdk_types_them(served):
    """What the Codex live tier's MCP scenario scripts: a search of the caller's deferred tools (Codex's tool_search,
    run by the client), then a call of a tool the search loaded, named by its namespace."""
    _, server = served("""
api: openai-responses
turns:
  - tool_search: echo text
  - request_contains: tool_search_output
    tool_call: {name: echo, namespace: mcp__echo, input: {text: hi}}
""")
    status, _, body = post(f"{server.base_url}/v1/responses", {"model": "gpt-5.5", "stream": True})
    events = sse_events(body)
    assert status == 200 and [name for name, _ in events] == [
        "response.created", "response.in_progress", "response.output_item.added", "response.output_item.done",
        "response.completed"]
    data = [orjson.loads(raw) for _, raw in events]
    for number, ((name, _), event) in enumerate(zip(events, data, strict=True)):
        assert event["type"] == name and event["sequence_number"] == number
        typed(event, EVENTS[name], name)
    (search,) = data[-1]["response"]["output"]
    typed(search, TOOL_SEARCH_CALL, "tool_search_call")
    typed(data[2]["item"], TOOL_SEARCH_CALL, "added/tool_search_call")
    assert search == {"id": "tsc_wirecheck_1", "type": "tool_search_call", "status": "completed",
                      "execution": "client", "call_id": "call_wirecheck_1_search", "arguments": {"query": "echo text"}}
    assert data[2]["item"]["status"] == "in_progress" and data[3]["item"] == search

    history = [{"role": "user", "content": "Echo hi."}, search,
               {"type": "tool_search_output", "call_id": search["call_id"], "execution": "client",
                "status": "completed", "tools": []}]
    status, _, body = post(f"{server.base_url}/v1/responses", {"model": "gpt-5.5", "input": history})
    (call,) = orjson.loads(body)["output"]
    typed(call, FUNCTION_CALL, "function_call")
    assert status == 200 and call["namespace"] == "mcp__echo" and call["name"] == "echo"
    assert call["arguments"] == '{"text":"hi"}'


@pytest.mark.parametrize(("api", "turn", "pointer", "message"), [
    ("openai-chat", "{tool_search: echo}", "/model/turns/0/tool_search",
     "item of openai-responses, not of openai-chat"),
    ("openai-chat", "{tool_call: {name: echo, namespace: mcp__echo}}", "/model/turns/0/tool_call",
     "expected {name: text, input: {...}, id?: text}"),
    ("openai-responses", "{tool_call: {name: echo, namespace: ''}}", "/model/turns/0/tool_call",
     "expected {name: text, input: {...}, id?: text, namespace?: text}"),
    ("openai-responses", "{times: 2}", "/model/turns/0", "needs text, tool_call(s), tool_search or error"),
])
def test_a_tool_search_and_a_namespace_are_the_responses_apis_only(api, turn, pointer, message):
    parsed, problems = script(f"api: {api}\nturns: [{turn}]")
    assert parsed is None and problems[0][0] == pointer and message in problems[0][1]
