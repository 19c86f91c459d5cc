#!/usr/bin/env python3
"""The `result` line printed twice: a turn has exactly one result (Claude Code and qodercli print mode write one;
a reader taking the first or the last would take either)."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corrupt import Corruption, main, message


class ResultTwice(Corruption):
    def line(self, data: bytes) -> Iterable[bytes]:
        return [data, data] if message(data).get("type") == "result" else [data]


if __name__ == "__main__":
    sys.exit(main(ResultTwice()))
