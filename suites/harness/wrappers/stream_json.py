#!/usr/bin/env python3
"""Claude Code print mode, asked `--output-format json` (the single-JSON format claude-code-print models), writes
stream-json instead (`--output-format stream-json --verbose`: system/init, the turn's messages, then the result): a
capture of another format than the one the contract is for."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corrupt import Corruption, main


def stream_json(argv: Sequence[str]) -> list[str]:
    """The arguments with `--output-format json` replaced by stream-json (which print mode needs --verbose for)."""
    out = list(argv)
    at = out.index("--output-format")
    out[at + 1:at + 2] = ["stream-json", "--verbose"]
    return out


class StreamJson(Corruption):
    def argv(self, argv):
        return stream_json(argv)


if __name__ == "__main__":
    sys.exit(main(StreamJson()))
