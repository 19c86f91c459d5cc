"""stub/asked.py: what a model request asks — its conversation (the first user message's text) and the model's answers
its history holds — read from each API's request body as the SDKs write it; None where a body has no history."""

from __future__ import annotations

import pytest

from wirecheck.stub.asked import Asked, asked

TOOL_USE = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}
TOOL_RESULT = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.txt"}


@pytest.mark.parametrize(("api", "body", "expected"), [
    # Anthropic Messages: Claude Code puts reminders before the prompt in the first user message's text blocks
    ("anthropic-messages", {"messages": [{"role": "user", "content": [
        {"type": "text", "text": "<system-reminder>x</system-reminder>"}, {"type": "text", "text": "List it."}]}]},
     Asked("<system-reminder>x</system-reminder>\nList it.", 0)),
    ("anthropic-messages", {"messages": [
        {"role": "user", "content": "List it."}, {"role": "assistant", "content": [TOOL_USE]},
        {"role": "user", "content": [TOOL_RESULT]}, {"role": "assistant", "content": "a.txt"},
        {"role": "user", "content": "Again."}]}, Asked("List it.", 2)),
    # OpenAI chat: system and tool messages are neither the opening nor answers
    ("openai-chat", {"messages": [
        {"role": "system", "content": "Be brief."}, {"role": "user", "content": [{"type": "text", "text": "Hi."}]},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c", "type": "function"}]},
        {"role": "tool", "tool_call_id": "c", "content": "ok"}]}, Asked("Hi.", 1)),
    # OpenAI Responses: one response's reasoning, message and call in a row are one answer
    ("openai-responses", {"input": "Hi."}, Asked("Hi.", 0)),
    ("openai-responses", {"input": [
        {"type": "message", "role": "developer", "content": "rules"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<env/>"}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "List it."}]},
        {"type": "reasoning", "summary": []},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "I will."}]},
        {"type": "function_call", "call_id": "c", "name": "shell", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c", "output": "a.txt"},
        {"type": "custom_tool_call", "call_id": "d", "name": "apply_patch", "input": "*** Begin Patch"},
        {"type": "custom_tool_call_output", "call_id": "d", "output": "done"}]}, Asked("<env/>", 2)),
    # Gemini: `model` contents are the model's
    ("gemini", {"contents": [
        {"role": "user", "parts": [{"text": "List it."}]},
        {"role": "model", "parts": [{"functionCall": {"name": "ls", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "ls", "response": {}}}]}]}, Asked("List it.", 1)),
    # nothing readable: the endpoint takes turns in order
    ("anthropic-messages", {"messages": []}, None),
    ("anthropic-messages", {"messages": "List it."}, None),
    ("openai-chat", {"messages": [{"role": "system", "content": "only this"}]}, None),
    ("openai-responses", {"input": {"role": "user"}}, None),
    ("gemini", {"contents": None}, None),
    ("qoder-fake-responses", {"messages": [{"role": "user", "content": "x"}]}, None),
])
def test_a_request_asks_its_conversation_at_the_place_its_history_has_reached(api, body, expected):
    assert asked(api, body) == expected
