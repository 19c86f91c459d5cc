#!/usr/bin/env python3
"""The first line carrying a tool's result written twice: a qodercli `user` message whose content holds a
`tool_result` block (the same tool_use_id answered twice)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corrupt import main
from repeat_tool_use import Repeat


class RepeatResult(Repeat):
    block = "tool_result"


if __name__ == "__main__":
    sys.exit(main(RepeatResult()))
