"""What the API modules (stub/anthropic.py, chat.py, gemini.py, responses.py) read of a scripted turn: stub/model.py's
Turn and ToolCall, named here as protocols because model.py imports those modules (and the package keeps no import
cycle, suites/test_imports.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol


class ToolCall(Protocol):
    """What an API module reads of a scripted tool call (stub/model.py ToolCall)."""

    @property
    def name(self) -> str: ...
    @property
    def input(self) -> Mapping[str, Any]: ...
    @property
    def id(self) -> str | None: ...
    @property
    def text(self) -> str | None: ...
    @property
    def namespace(self) -> str | None: ...


class Turn(Protocol):
    """What an API module reads of a scripted turn (stub/model.py Turn)."""

    @property
    def text(self) -> str | None: ...
    @property
    def tool_calls(self) -> Sequence[ToolCall]: ...
    @property
    def usage(self) -> Mapping[str, int]: ...
    @property
    def reasoning(self) -> str | None: ...
    @property
    def web_search(self) -> str | None: ...
    @property
    def tool_search(self) -> str | None: ...
