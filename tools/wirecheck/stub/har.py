"""A HAR 1.2 recorder for the stub and the probe: bodies kept as the raw text that crossed the wire."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from wirecheck import __version__


@dataclass(frozen=True)
class Exchange:
    method: str
    url: str
    request_headers: Mapping[str, str]
    request_body: bytes | None
    status: int | None  # None: no response was received
    response_headers: Mapping[str, str]
    response_body: bytes | None
    started: dt.datetime
    elapsed_ms: float


SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})
KEPT_TOKEN_PREFIXES = ("xopc_rt_",)  # the part of a token its contract checks; the rest is a secret


def redact(name: str, value: str) -> str:
    """A HAR is published with the report: secrets are cut, keeping what the contract checks (the scheme and a
    known token prefix) and the length, so a malformed credential still shows as malformed."""
    if name.lower() not in SECRET_HEADERS or not value:
        return value
    scheme, sep, token = value.partition(" ")
    if not sep:
        scheme, token = "", value
    kept = next((p for p in KEPT_TOKEN_PREFIXES if token.startswith(p)), "")
    secret = token[len(kept):]
    if not secret:
        return value
    return f"{scheme}{sep}{kept}<redacted {len(secret)} chars>"


def _headers(headers: Mapping[str, str]) -> list[dict[str, str]]:
    return [{"name": k, "value": redact(k, v)} for k, v in headers.items()]


def _text(data: bytes | None) -> str | None:
    if data is None or data == b"":
        return None
    return data.decode("utf-8", "replace")


def har_entry(exchange: Exchange) -> dict[str, Any]:
    request: dict[str, Any] = {
        "method": exchange.method, "url": exchange.url, "httpVersion": "HTTP/1.1",
        "headers": _headers(exchange.request_headers), "queryString": [], "cookies": [], "headersSize": -1,
        "bodySize": len(exchange.request_body or b""),
    }
    text = _text(exchange.request_body)
    if text is not None:
        request["postData"] = {"mimeType": exchange.request_headers.get("content-type", ""), "text": text}
    content: dict[str, Any] = {"size": len(exchange.response_body or b""),
                               "mimeType": exchange.response_headers.get("content-type", "")}
    text = _text(exchange.response_body)
    if text is not None:
        content["text"] = text
    response = {
        "status": exchange.status or 0, "statusText": "", "httpVersion": "HTTP/1.1",
        "headers": _headers(exchange.response_headers), "cookies": [], "content": content, "redirectURL": "",
        "headersSize": -1, "bodySize": len(exchange.response_body or b"") if exchange.status else -1,
    }
    return {
        "startedDateTime": exchange.started.isoformat().replace("+00:00", "Z"),
        "time": round(exchange.elapsed_ms, 3), "request": request, "response": response, "cache": {},
        "timings": {"send": 0, "wait": round(exchange.elapsed_ms, 3), "receive": 0},
    }


class HarRecorder:
    def __init__(self, creator: str = "wirecheck"):
        self.creator = creator
        self._entries: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def add(self, exchange: Exchange) -> None:
        entry = har_entry(exchange)
        with self._lock:
            self._entries.append(entry)

    def __len__(self) -> int:
        return len(self._entries)

    def document(self) -> dict[str, Any]:
        with self._lock:
            entries = list(self._entries)
        return {"log": {"version": "1.2", "creator": {"name": self.creator, "version": __version__},
                        "entries": entries}}

    def encoded(self) -> bytes:
        return orjson.dumps(self.document(), option=orjson.OPT_INDENT_2) + b"\n"

    def write(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(self.encoded())
        return path


def now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)
