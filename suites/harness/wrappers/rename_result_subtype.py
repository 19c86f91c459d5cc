#!/usr/bin/env python3
"""A `result` whose subtype `success` is renamed `succeeded` (a release renaming a member of the result's subtype
union, which the SDK's reader branches on)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corrupt import Corruption, main, message


class RenameSubtype(Corruption):
    def line(self, data: bytes) -> Iterable[bytes]:
        value = message(data)
        if value.get("type") == "result" and value.get("subtype") == "success":
            value["subtype"] = "succeeded"
            return [json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()]
        return [data]


if __name__ == "__main__":
    sys.exit(main(RenameSubtype()))
