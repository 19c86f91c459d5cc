"""stub/gemini.py through stub/model.py: the scripted Gemini API answers as the real service does (@google/genai
1.30.0's types, the SDK @google/gemini-cli-core 0.61.0 pins), streamed or not, with Google's error envelope."""

from __future__ import annotations

import re

import orjson

from .conftest import post

# @google/genai 1.30.0 dist/node/index.mjs:11202: how the SDK cuts a stream into responses
RESPONSE_LINE = re.compile(r"^\s*data: (.*)(?:\n\n|\r\r|\r\n\r\n)")
# the members @google/genai 1.30.0 dist/genai.d.ts declares (GenerateContentResponse :3042, Candidate :904,
# GenerateContentResponseUsageMetadata :3202, ModalityTokenCount :5602, FunctionCall :2713): an answer naming
# another member is not what the real service sends
RESPONSE_MEMBERS = {"candidates", "createTime", "automaticFunctionCallingHistory", "modelVersion", "promptFeedback",
                    "responseId", "usageMetadata"}
CANDIDATE_MEMBERS = {"content", "citationMetadata", "finishMessage", "tokenCount", "finishReason", "avgLogprobs",
                     "groundingMetadata", "index", "logprobsResult", "safetyRatings", "urlContextMetadata"}
USAGE_MEMBERS = {"cacheTokensDetails", "cachedContentTokenCount", "candidatesTokenCount", "candidatesTokensDetails",
                 "promptTokenCount", "promptTokensDetails", "thoughtsTokenCount", "toolUsePromptTokenCount",
                 "toolUsePromptTokensDetails", "totalTokenCount", "trafficType"}
FUNCTION_CALL_MEMBERS = {"id", "args", "name", "partialArgs", "willContinue"}


def responses(body: bytes) -> list[dict]:
    """The GenerateContentResponses of a stream, cut as @google/genai cuts it; nothing may be left over."""
    text, out = body.decode(), []
    while (found := RESPONSE_LINE.match(text)) is not None:
        out.append(orjson.loads(found[1]))
        text = text[found.end():]
    assert text == "", f"left unread by the SDK: {text!r}"
    return out


def assert_as_typed(response: dict) -> None:
    assert set(response) <= RESPONSE_MEMBERS
    for candidate in response["candidates"]:
        assert set(candidate) <= CANDIDATE_MEMBERS and candidate["content"]["role"] == "model"
        for part in candidate["content"]["parts"]:
            if "functionCall" in part:
                assert set(part["functionCall"]) <= FUNCTION_CALL_MEMBERS
    usage = response["usageMetadata"]
    assert set(usage) <= USAGE_MEMBERS
    assert usage["totalTokenCount"] == usage["promptTokenCount"] + usage["candidatesTokenCount"]
    assert usage["promptTokensDetails"] == [{"modality": "TEXT", "tokenCount": usage["promptTokenCount"]}]


SCRIPT = """
api: gemini
turns:
  - text: Hello.
    usage: {input: 12, output: 3}
  - text: Reading it.
    tool_call: {name: read_file, input: {file_path: notes.txt}}
  - request_contains: functionResponse
    text: Done.
"""


def test_a_streamed_turn_is_server_sent_generate_content_responses_the_sdk_reads(served):
    app, server = served(SCRIPT)
    url = f"{server.base_url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    asking = {"role": "user", "parts": [{"text": "Say hello."}]}
    status, headers, body = post(url, {"contents": [asking]})
    assert status == 200 and headers["content-type"] == "text/event-stream"
    assert body.endswith(b"\r\n\r\n")  # Google's servers end each event so
    [only] = responses(body)
    assert_as_typed(only)
    assert only["modelVersion"] == "gemini-2.5-flash"  # the model the path names
    assert only["candidates"] == [{"content": {"parts": [{"text": "Hello."}], "role": "model"},
                                   "finishReason": "STOP", "index": 0}]
    assert only["usageMetadata"]["promptTokenCount"] == 12 and only["usageMetadata"]["candidatesTokenCount"] == 3

    # text, then the call that ends the turn: the first chunk has no finishReason (the model has not stopped)
    # a request is answered by the place its history has reached (stub/asked.py reads Gemini's `contents`)
    hello = {"role": "model", "parts": [{"text": "Hello."}]}
    status, _, body = post(url, {"contents": [asking, hello, asking]})
    first, last = responses(body)
    for response in (first, last):
        assert_as_typed(response)
    assert "finishReason" not in first["candidates"][0]
    assert first["candidates"][0]["content"]["parts"] == [{"text": "Reading it."}]
    assert last["candidates"][0]["finishReason"] == "STOP"  # a function call's turn ends STOP too (FinishReason)
    # the Gemini Developer API sends no call id: the CLI makes its own
    assert last["candidates"][0]["content"]["parts"] == [{"functionCall": {"name": "read_file",
                                                                           "args": {"file_path": "notes.txt"}}}]
    assert first["usageMetadata"]["candidatesTokenCount"] == 0 and last["usageMetadata"]["totalTokenCount"] == 15
    assert app.problems == []

    # the third turn insists on the tool's result: a request without a functionResponse is served and named
    call = {"role": "model", "parts": [{"functionCall": {"name": "read_file", "args": {"file_path": "notes.txt"}}}]}
    no_result = {"role": "user", "parts": [{"text": "no result"}]}
    status, _, body = post(url, {"contents": [asking, hello, asking, call, no_result]})
    assert status == 200 and responses(body)[0]["candidates"][0]["content"]["parts"] == [{"text": "Done."}]
    assert app.problems == ["model request 3 took turn 3, which expects a request containing 'functionResponse'; "
                            "it did not"]


def test_generate_content_is_one_response_and_a_call_id_is_sent_only_where_the_script_gives_one(served):
    _, server = served("""
api: gemini
turns:
  - tool_call: {name: list_directory, input: {dir_path: .}, id: call-1}
""")
    status, headers, body = post(f"{server.base_url}/v1beta/models/gemini-2.5-pro:generateContent", {})
    assert status == 200 and headers["content-type"].startswith("application/json")
    response = orjson.loads(body)
    assert_as_typed(response)
    assert response["candidates"][0]["content"]["parts"] == [
        {"functionCall": {"name": "list_directory", "args": {"dir_path": "."}, "id": "call-1"}}]
    assert response["candidates"][0]["finishReason"] == "STOP" and response["modelVersion"] == "gemini-2.5-pro"


def test_errors_are_googles_envelope_or_the_whole_body_the_script_gives(served):
    _, server = served("""
api: gemini
turns:
  - error: {status: 429, message: Resource has been exhausted (e.g. check quota)., headers: {retry-after: "1"}}
  - error: {status: 503, message: The model is overloaded.}
  - error:
      status: 429
      body: {error: {code: 429, message: quota, status: RESOURCE_EXHAUSTED,
                     details: [{"@type": type.googleapis.com/google.rpc.RetryInfo, retryDelay: 1s}]}}
""")
    url = f"{server.base_url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    status, headers, body = post(url, {})
    assert status == 429 and headers["retry-after"] == "1"
    assert orjson.loads(body) == {"error": {"code": 429, "message": "Resource has been exhausted (e.g. check quota).",
                                            "status": "RESOURCE_EXHAUSTED"}}
    status, _, body = post(url, {})
    assert status == 503 and orjson.loads(body)["error"]["status"] == "UNAVAILABLE"
    status, _, body = post(url, {})
    assert status == 429 and orjson.loads(body)["error"]["details"][0]["retryDelay"] == "1s"


def test_other_routes_are_not_found_in_googles_envelope_and_take_no_turn(served):
    app, server = served(SCRIPT)
    for path in ("/v1beta/models/gemini-2.5-flash:countTokens", "/v1/messages", "/v1beta/models"):
        status, _, body = post(f"{server.base_url}{path}", {})
        assert status == 404 and orjson.loads(body)["error"]["status"] == "NOT_FOUND", path
    assert app.requests == 0
