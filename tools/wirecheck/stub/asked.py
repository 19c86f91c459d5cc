"""What a model request asks, read from its body: which conversation it belongs to and how many of the model's
answers it already holds. The scripted endpoints (stub/model.py) answer by this, not by the order requests come in:
a CLI release that makes more or fewer model requests than the one a scenario was written against (Claude Code
2.0.77 sends "Warmup" requests beside the prompt's; a retry repeats a request) still gets the turn its conversation
is at.

A request is `Asked(opening, answered)`: `opening` the text of its conversation's first user message (the same in
every request of one conversation: the APIs are stateless, each request carries the whole history), `answered` the
model's answers in that history (a run of the model's items in a row is one answer: a reasoning item, a message and
a function call of one response). The APIs served over HTTP are read here:

- Anthropic Messages (`@anthropic-ai/sdk` MessageCreateParams): `messages: [{role: "user" | "assistant", content:
  string | [{type: "text", text}, ...]}]`;
- OpenAI chat completions: `messages: [{role: "system" | "developer" | "user" | "assistant" | "tool", content:
  string | [{type: "text", text}, ...] | null}]`;
- OpenAI Responses (`openai` ResponseCreateParams `input`): a string (the one user message), or items: messages
  `{role, content: string | [{type: "input_text" | "output_text", text}]}`, the model's `function_call`,
  `custom_tool_call`, `reasoning`, `…_call` items, and the caller's `…_call_output` items;
- Gemini (`@google/genai` GenerateContentParameters): `contents: [{role: "user" | "model", parts: [{text}, ...]}]`.

A body without such a history (nothing of the above, or no user message in it) asks nothing readable: None, and the
endpoint falls back to the order requests come in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Asked:
    opening: str  # the text of the conversation's first user message
    answered: int  # the model's answers already in the request's history


def _text(content: Any) -> str:
    """A message's text: the string itself, or its text parts joined (other parts, images or tool results, carry
    none)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(part["text"] for part in content
                         if isinstance(part, dict) and part.get("type", "text") in TEXT_PARTS
                         and isinstance(part.get("text"), str))
    return ""


TEXT_PARTS = ("text", "input_text", "output_text")


def _history(api: str, request: Mapping[str, Any]) -> list[tuple[bool, dict[str, Any]]] | None:
    """The request's history as (the model's?, item) pairs, in order; None when it has none."""
    if api in ("anthropic-messages", "openai-chat"):
        items = request.get("messages")
        if not isinstance(items, list):
            return None
        return [(item.get("role") == "assistant", item) for item in items if isinstance(item, dict)]
    if api == "openai-responses":
        items = request.get("input")
        if isinstance(items, str):
            return [(False, {"role": "user", "content": items})]
        if not isinstance(items, list):
            return None
        return [(_responses_model_item(item), item) for item in items if isinstance(item, dict)]
    if api == "gemini":
        items = request.get("contents")
        if not isinstance(items, list):
            return None
        return [(item.get("role") == "model", {"role": item.get("role"), "content": item.get("parts")})
                for item in items if isinstance(item, dict)]
    return None


def _responses_model_item(item: Mapping[str, Any]) -> bool:
    """A Responses input item the model wrote (an assistant message, a reasoning item, a call it made), not the
    caller (a user, system or developer message, a call's output)."""
    kind = item.get("type")
    if isinstance(kind, str) and kind != "message":
        return kind == "reasoning" or (kind.endswith("_call") and not kind.endswith("_output"))
    return item.get("role") == "assistant"


def asked(api: str, request: Mapping[str, Any]) -> Asked | None:
    """What `request` (a parsed body of `api`) asks; None when it carries no readable history."""
    history = _history(api, request)
    if history is None:
        return None
    opening = next((item for model, item in history if not model and item.get("role") == "user"), None)
    if opening is None:
        return None
    answers = sum(1 for index, (model, _) in enumerate(history) if model and (index == 0 or not history[index - 1][0]))
    return Asked(_text(opening.get("content")), answers)
