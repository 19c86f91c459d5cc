"""What a model request asks, read from its body: which conversation it belongs to and how many of the model's
answers it already holds. The scripted endpoints (stub/model.py) answer by this, not by the order requests come in:
a CLI release that makes more or fewer model requests than the one a scenario was written against (Claude Code
2.0.77 sends "Warmup" requests beside the prompt's; a retry repeats a request) still gets the turn its conversation
is at.

A request is `Asked(opening, answered)`: `opening` the text of its conversation's first user message (the same in
every request of one conversation: the APIs are stateless, each request carries the whole history), `answered` the
model's messages in that history. Both APIs served over HTTP are read here:

- Anthropic Messages (`@anthropic-ai/sdk` MessageCreateParams): `messages: [{role: "user" | "assistant", content:
  string | [{type: "text", text}, ...]}]`;
- OpenAI chat completions: `messages: [{role: "system" | "developer" | "user" | "assistant" | "tool", content:
  string | [{type: "text", text}, ...] | null}]`.

A body without such a history (no `messages` list, or no user message in it) asks nothing readable: None, and the
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
                         if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str))
    return ""


def asked(api: str, request: Mapping[str, Any]) -> Asked | None:
    """What `request` (a parsed body of `api`, anthropic-messages or openai-chat) asks; None when it carries no
    readable history."""
    if api not in ("anthropic-messages", "openai-chat"):
        return None
    messages = request.get("messages")
    if not isinstance(messages, list):
        return None
    said = [m for m in messages if isinstance(m, dict)]
    opening = next((m for m in said if m.get("role") == "user"), None)
    if opening is None:
        return None
    return Asked(_text(opening.get("content")), sum(1 for m in said if m.get("role") == "assistant"))
