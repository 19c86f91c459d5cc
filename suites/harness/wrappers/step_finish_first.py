#!/usr/bin/env python3
"""OpenCode (`opencode run --format json`) writes each step's `step_finish` before its `step_start` (and the
step's parts): a step ends before it began."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corrupt import Corruption, main, message


class StepFinishFirst(Corruption):
    def __init__(self) -> None:
        self.step: list[bytes] | None = None  # the open step's lines, from its step_start

    def line(self, data: bytes) -> Iterable[bytes]:
        kind = message(data).get("type")
        if kind == "step_start":
            self.step = [data]
            return []
        if self.step is not None and kind == "step_finish":
            lines, self.step = [data, *self.step], None
            return lines
        if self.step is not None:
            self.step.append(data)
            return []
        return [data]

    def end(self) -> Iterable[bytes]:
        return self.step or []


if __name__ == "__main__":
    sys.exit(main(StepFinishFirst()))
