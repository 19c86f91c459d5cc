"""HTTP captures: HAR 1.2 files and the exchange JSONL form, both turned into request/response Messages.

Exchange JSONL (one exchange per line; documented in capture/README.md):
    {"request": {"method": "POST", "url": "http://127.0.0.1:8080/agent/lease",
                 "headers": {"authorization": "Bearer xopc_rt_..."}, "body": {...}},
     "response": {"status": 200, "headers": {...}, "body": {...}}}
`body` is parsed JSON; `text` is a raw body (parsed as JSON when it is JSON); neither means no body.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from wirecheck.capture.json_text import parse_json
from wirecheck.capture.ndjson import capture_finding
from wirecheck.check.message import HttpInfo, Message
from wirecheck.findings import Finding

NO_BODY: Any = None  # Message.value for a message without a body
EMPTY = object()


class _Bad(Exception):
    def __init__(self, code: str, message: str, where: str):
        super().__init__(message)
        self.code, self.message, self.where = code, message, where


def _headers(raw: Any, where: str) -> dict[str, str]:
    if raw is None:
        return {}
    if isinstance(raw, dict):  # exchange form
        return {str(k).lower(): str(v) for k, v in raw.items()}
    if isinstance(raw, list):  # HAR form: [{"name", "value"}]
        headers: dict[str, str] = {}
        for index, item in enumerate(raw):
            if not (isinstance(item, dict) and isinstance(item.get("name"), str)):
                raise _Bad("CAPTURE_FORMAT", 'a HAR header must be {"name", "value"}', f"{where}/{index}")
            headers[item["name"].lower()] = str(item.get("value", ""))
        return headers
    raise _Bad("CAPTURE_FORMAT", "headers must be an object or a HAR header list", where)


def _body_from_text(text: str | None, where: str, file: str, line: int | None) -> tuple[Any, list[Finding]]:
    if text is None or text == "":
        return EMPTY, []
    value, problem = parse_json(text.encode("utf-8", "surrogatepass"))
    if problem is not None:
        finding = capture_finding(problem.code, f"body: {problem.message}", file, line, where)
        return (value if value is not None else EMPTY), [finding]
    return value, []


def _path_of(url: str) -> str:
    path = urlsplit(url).path
    return path or "/"


def _messages(
    exchange: int,
    request: dict[str, Any],
    response: dict[str, Any] | None,
    file: str,
    line: int | None,
    where: str | None,
    har: bool,
) -> Iterator[Message | Finding]:
    rwhere = f"{where}/request" if where is not None else None
    method = request.get("method")
    url = request.get("url")
    if not isinstance(method, str) or not isinstance(url, str):
        raise _Bad("CAPTURE_FORMAT", "a request needs a string method and url", rwhere or "")
    req_headers = _headers(request.get("headers"), f"{rwhere}/headers" if rwhere else "/request/headers")
    if har:
        post = request.get("postData") or {}
        body, problems = _body_from_text(post.get("text"), f"{rwhere}/postData/text", file, line)
    elif "body" in request:
        body, problems = request["body"], []
    else:
        body, problems = _body_from_text(request.get("text"), f"{rwhere}/text" if rwhere else "/request/text",
                                         file, line)
    yield from problems
    yield Message(
        value=None if body is EMPTY else body,
        file=file,
        line=line,
        where=rwhere,
        http=HttpInfo(method=method.upper(), url=url, path=_path_of(url), status=None, headers=req_headers),
        exchange=exchange,
    )
    if response is None:
        return
    swhere = f"{where}/response" if where is not None else None
    status = response.get("status")
    if not isinstance(status, int) or isinstance(status, bool):
        raise _Bad("CAPTURE_FORMAT", "a response needs an integer status", swhere or "/response/status")
    if har and status == 0:  # HAR: no response was received
        return
    res_headers = _headers(response.get("headers"), f"{swhere}/headers" if swhere else "/response/headers")
    if har:
        content = response.get("content") or {}
        text = content.get("text")
        if text is not None and content.get("encoding") == "base64":
            try:
                text = base64.b64decode(text).decode("utf-8")
            except ValueError:
                raise _Bad("CAPTURE_FORMAT", "content.text is not base64 of UTF-8", f"{swhere}/content/text") from None
        body, problems = _body_from_text(text, f"{swhere}/content/text", file, line)
    elif "body" in response:
        body, problems = response["body"], []
    else:
        body, problems = _body_from_text(response.get("text"), "/response/text", file, line)
    yield from problems
    yield Message(
        value=None if body is EMPTY else body,
        file=file,
        line=line,
        where=swhere,
        http=HttpInfo(method=method.upper(), url=url, path=_path_of(url), status=status, headers=res_headers),
        exchange=exchange,
    )


def read_har(document: Any, file: str) -> Iterator[Message | Finding]:
    entries = document.get("log", {}).get("entries") if isinstance(document, dict) else None
    if not isinstance(entries, list):
        yield capture_finding("CAPTURE_FORMAT", "a HAR file needs log.entries (an array)", file, where="/log")
        return
    for index, entry in enumerate(entries):
        where = f"/log/entries/{index}"
        try:
            if not isinstance(entry, dict) or not isinstance(entry.get("request"), dict):
                raise _Bad("CAPTURE_FORMAT", "an entry needs a request object", where)
            response = entry.get("response") if isinstance(entry.get("response"), dict) else None
            yield from _messages(index, entry["request"], response, file, None, where, har=True)
        except _Bad as bad:
            yield capture_finding(bad.code, bad.message, file, where=bad.where)


def read_exchanges(items: Iterator[tuple[int, Any] | Finding], file: str) -> Iterator[Message | Finding]:
    for item in items:
        if isinstance(item, Finding):
            yield item
            continue
        line_no, exchange = item
        try:
            if not isinstance(exchange, dict) or not isinstance(exchange.get("request"), dict):
                raise _Bad("CAPTURE_FORMAT", 'an exchange line must be {"request": {...}, "response"?: {...}}', "")
            response = exchange.get("response")
            if response is not None and not isinstance(response, dict):
                raise _Bad("CAPTURE_FORMAT", "response must be an object", "/response")
            yield from _messages(line_no, exchange["request"], response, file, line_no, None, har=False)
        except _Bad as bad:
            yield capture_finding(bad.code, f"{bad.message} (at {bad.where or '/'})", file, line_no)
