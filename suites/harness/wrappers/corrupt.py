"""What every corruption wrapper shares: run the real CLI as it was asked (the wrapper's own arguments, its stdin and
stderr handed over as they are), and pass its stdout on line by line through one corruption, flushed per line so an
interactive session goes on as with the real CLI. The real CLI's path is in $WIRECHECK_REAL_CLI (give the live tier
`--pass-env WIRECHECK_REAL_CLI`). Each wrapper beside this file is one regression a CLI release could make; its own
docstring says which. Test data of suites/harness (fixtures/live/corruptions/README.md), never imported by wirecheck.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence

REAL = "WIRECHECK_REAL_CLI"


class Corruption:
    """The real CLI's behaviour, unchanged; a wrapper overrides what it corrupts."""

    final_newline = True  # whether the last line written ends with one

    def argv(self, argv: Sequence[str]) -> list[str]:
        return list(argv)

    def line(self, data: bytes) -> Iterable[bytes]:
        """What to write for one line the CLI wrote (without its line end)."""
        return [data]

    def end(self) -> Iterable[bytes]:
        """What to write once the CLI's output has ended."""
        return []

    def exit(self, code: int) -> int:
        """The wrapper's exit status, once the CLI exited with `code` and everything was written."""
        return code


def message(data: bytes) -> dict:
    """A line as JSON, or {} when it is not a JSON object."""
    try:
        value = json.loads(data)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def main(corruption: Corruption) -> int:
    real = os.environ.get(REAL)
    if not real:
        print(f"{sys.argv[0]}: set {REAL} to the real CLI's path", file=sys.stderr)
        return 2
    child = subprocess.Popen([real, *corruption.argv(sys.argv[1:])], stdout=subprocess.PIPE)  # stdin, stderr: ours
    assert child.stdout is not None
    out = sys.stdout.buffer
    held: bytes | None = None  # without a final newline: the last line is written once the next one comes

    def write(lines: Iterable[bytes]) -> None:
        nonlocal held
        for data in lines:
            if corruption.final_newline:
                out.write(data + b"\n")
            else:
                if held is not None:
                    out.write(held + b"\n")
                held = data
            out.flush()

    for raw in iter(child.stdout.readline, b""):
        write(corruption.line(raw.rstrip(b"\n")))
    write(corruption.end())
    if held is not None:
        out.write(held)
        out.flush()
    return corruption.exit(child.wait())


class Hang(Corruption):
    """After the CLI has written everything and exited: stay, as a CLI that never exits after its result."""

    def exit(self, code: int) -> int:
        time.sleep(3600)
        return code
