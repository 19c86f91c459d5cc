#!/usr/bin/env python3
"""The last line without its line end: the result line of print mode is not terminated (a reader splitting on
newlines, or waiting for one, may never take it)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corrupt import Corruption, main


class NoFinalNewline(Corruption):
    final_newline = False


if __name__ == "__main__":
    sys.exit(main(NoFinalNewline()))
