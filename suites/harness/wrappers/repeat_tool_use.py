#!/usr/bin/env python3
"""The first line carrying a tool call written twice: OpenCode's `tool_use` line (`opencode run --format json`), or
a qodercli `assistant` message whose content holds a `tool_use` block: the same tool id twice."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corrupt import Corruption, main, message


def holds(value: dict, block: str) -> bool:
    """Whether a line is of type `block`, or its message's content holds a block of that type."""
    content = value.get("message", {}).get("content") if isinstance(value.get("message"), dict) else None
    return value.get("type") == block or (isinstance(content, list) and any(
        isinstance(part, dict) and part.get("type") == block for part in content))


class Repeat(Corruption):
    block = "tool_use"

    def __init__(self) -> None:
        self.done = False

    def line(self, data: bytes) -> Iterable[bytes]:
        if not self.done and holds(message(data), self.block):
            self.done = True
            return [data, data]
        return [data]


if __name__ == "__main__":
    sys.exit(main(Repeat()))
