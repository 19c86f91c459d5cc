"""The Gemini API as a scripted model endpoint serves it (`api: gemini`, registered in stub/model.py).

Gemini CLI (through @google/genai) asks `POST <base>/v1beta/models/<model>:streamGenerateContent?alt=sse` for a
turn and `POST <base>/v1beta/models/<model>:generateContent` for its side calls (next-speaker checks, routing,
summaries). The answers are written as the real service writes them, field for field, as @google/genai 1.30.0 (the
version @google/gemini-cli-core 0.61.0 pins) types them in dist/genai.d.ts:

- a GenerateContentResponse (:3042): `candidates`, `usageMetadata`, `modelVersion`, `responseId`;
- each Candidate (:904): `content` {role: "model", parts}, `finishReason` (FinishReason, :2649: "STOP" ends a turn,
  a function call's too), `index`;
- a Part (:6290) is `{text}` or `{functionCall: {name, args}}` (FunctionCall, :2713; the Gemini Developer API sends
  no `id`, so one is written only where the script gives it);
- `usageMetadata` (GenerateContentResponseUsageMetadata, :3202): `promptTokenCount`, `candidatesTokenCount`,
  `totalTokenCount` and `promptTokensDetails` (ModalityTokenCount, :5602: `{modality: "TEXT", tokenCount}`), in
  every chunk of a stream as the service sends it, the last with the turn's final counts.

A stream is server-sent events, each `data: <JSON>` ended by a blank line written `\\r\\n\\r\\n` as Google's
servers write it (@google/genai reads `^\\s*data: (.*)(?:\\n\\n|\\r\\r|\\r\\n\\r\\n)`: dist/node/index.mjs:11202). An
error is the Google API error envelope `{"error": {"code", "message", "status"}}` (a 429 is RESOURCE_EXHAUSTED); a
scenario that needs the `details` Gemini CLI classifies (RetryInfo, QuotaFailure) gives the whole `body`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from wirecheck.stub import sse
from wirecheck.stub.server import Reply
from wirecheck.stub.turns import Turn

API = "gemini"
ROUTE = re.compile(r"/models/(?P<model>[^/:]+):(?P<method>streamGenerateContent|generateContent)$")
JSON = {"content-type": "application/json; charset=UTF-8"}
# google.rpc.Code names of the HTTP statuses (the `status` of Google's API error envelope)
STATUS_NAMES = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
                409: "ABORTED", 429: "RESOURCE_EXHAUSTED", 499: "CANCELLED", 500: "INTERNAL", 501: "NOT_IMPLEMENTED",
                503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"}
WANTED = "…/models/<model>:streamGenerateContent or …:generateContent"
NOT_FOUND_TYPE: str | None = None  # a path it does not serve: the status's name, NOT_FOUND


def route(path: str) -> tuple[str | None, bool | None] | None:
    """(model, streamed) of a Gemini API content request's path (the Gemini API names both in the path, not the
    body), None for any other path."""
    found = ROUTE.search(path)
    if found is None:
        return None
    return found["model"], found["method"] == "streamGenerateContent"


def reply(turn: Turn, model: str, number: int, stream: bool, request: dict[str, Any]) -> Reply:
    """Model request `number`'s scripted turn as the Gemini API answers it (see `answer`)."""
    return answer(turn.text, ((c.name, c.input, c.id) for c in turn.tool_calls), turn.usage, model, number, stream)


def usage_metadata(prompt: int, candidates: int) -> dict[str, Any]:
    return {"promptTokenCount": prompt, "candidatesTokenCount": candidates, "totalTokenCount": prompt + candidates,
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": prompt}]}


def _response(parts: list[dict[str, Any]], finish: str | None, usage: dict[str, Any], model: str,
              number: int) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}}
    if finish is not None:
        candidate["finishReason"] = finish
    candidate["index"] = 0
    return {"candidates": [candidate], "usageMetadata": usage, "modelVersion": model,
            "responseId": f"wirecheck-{number}"}


def answer(text: str | None, calls: Iterable[tuple[str, Mapping[str, Any], str | None]], tokens: Mapping[str, int],
           model: str, number: int, stream: bool) -> Reply:
    """A scripted turn (its text, its tool calls as (name, input, id), its input and output token counts) as the
    Gemini API answers it: one GenerateContentResponse, or a stream of them."""
    text_parts = [{"text": text}] if text is not None else []
    call_parts = []
    for name, arguments, call_id in calls:
        function: dict[str, Any] = {"name": name, "args": dict(arguments)}
        if call_id is not None:
            function["id"] = call_id
        call_parts.append({"functionCall": function})
    usage = usage_metadata(tokens["input"], tokens["output"])
    if not stream:
        return Reply(200, orjson.dumps(_response(text_parts + call_parts, "STOP", usage, model, number)), dict(JSON))
    chunks = []
    if text_parts and call_parts:  # the text streams first, the calls end the turn
        chunks.append(_response(text_parts, None, usage_metadata(tokens["input"], 0), model, number))
        chunks.append(_response(call_parts, "STOP", usage, model, number))
    else:
        chunks.append(_response(text_parts + call_parts, "STOP", usage, model, number))
    return Reply(200, sse.body(((None, chunk) for chunk in chunks), end=b"\r\n"), dict(sse.HEADERS))


def error_body(status: int, kind: str | None, message: str) -> bytes:
    """Google's API error envelope for a scripted error without a whole `body` (`kind`: the script's error type,
    written as the envelope's `status`; else the google.rpc.Code name of the HTTP status)."""
    return orjson.dumps({"error": {"code": status, "message": message,
                                   "status": kind or STATUS_NAMES.get(status, "UNKNOWN")}})
