#!/usr/bin/env python3
"""qodercli never answers the SDK's `interrupt` control request: the CLI's `control_response` whose request_id ends
in `_interrupt` is dropped (in qoder-session-cancel the harness, as the SDK, sends req_2_interrupt and waits for the
turn's result, not for that answer; the Python SDK awaits every control request's response)."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corrupt import Corruption, main, message


class DropInterruptResponse(Corruption):
    def line(self, data: bytes) -> Iterable[bytes]:
        value = message(data)
        response = value.get("response") if isinstance(value.get("response"), dict) else {}
        if value.get("type") == "control_response" and str(response.get("request_id", "")).endswith("_interrupt"):
            return []
        return [data]


if __name__ == "__main__":
    sys.exit(main(DropInterruptResponse()))
