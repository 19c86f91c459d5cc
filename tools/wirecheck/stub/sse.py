"""Server-sent events as the scripted model endpoints write them (stub/model.py and one module per API): each event
an optional `event: <name>` line, a `data: <JSON>` line (or raw bytes, OpenAI's `[DONE]`), and a blank line. The
line end is `\\n`, except where a service is known to write `\\r\\n` (Google's: stub/gemini.py)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson

HEADERS = {"content-type": "text/event-stream", "cache-control": "no-cache"}


def body(events: Iterable[tuple[str | None, Any]], end: bytes = b"\n") -> bytes:
    """(event name or None, data: a JSON value, or bytes sent as they are) as one stream's bytes."""
    out = bytearray()
    for name, data in events:
        if name is not None:
            out += b"event: " + name.encode() + end
        out += b"data: " + (data if isinstance(data, bytes) else orjson.dumps(data)) + end + end
    return bytes(out)
