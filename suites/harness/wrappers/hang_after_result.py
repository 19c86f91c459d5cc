#!/usr/bin/env python3
"""Everything the real CLI wrote, unchanged, and then no exit: the process stays after its result and the end of its
input (a reader waiting for the process, as Navarch's adapter does, waits until its own timeout)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corrupt import Hang, main

if __name__ == "__main__":
    sys.exit(main(Hang()))
