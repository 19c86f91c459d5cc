#!/usr/bin/env python3
"""Everything the real CLI wrote, unchanged, then exit status 1 where it exited 0: a print-mode run that succeeded
and says it failed (Navarch records the exit code as the run's exitStatus)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corrupt import Corruption, main


class ExitOne(Corruption):
    def exit(self, code: int) -> int:
        return 1 if code == 0 else code


if __name__ == "__main__":
    sys.exit(main(ExitOne()))
