#!/usr/bin/env python3
"""Claude Code print mode, asked `--output-format json` (one result line, as Navarch runs it), answers in
stream-json instead and prints its `result` line first, before `system`/`init` and the turn: Navarch 0.1.53's
parseClaudeJsonResult reads the last JSON line (dist/adapter-capacity.cjs:15), which is now not the result."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corrupt import Corruption, main, message
from stream_json import stream_json


class ResultFirst(Corruption):
    def __init__(self) -> None:
        self.before: list[bytes] = []

    def argv(self, argv):
        return stream_json(argv)

    def line(self, data: bytes) -> Iterable[bytes]:
        if message(data).get("type") == "result":
            lines, self.before = [data, *self.before], []
            return lines
        self.before.append(data)
        return []

    def end(self) -> Iterable[bytes]:
        return self.before


if __name__ == "__main__":
    sys.exit(main(ResultFirst()))
