"""HTTP captures: HAR 1.2 files and the exchange JSONL form, both turned into request/response Messages.

Exchange JSONL (one exchange per line; documented in capture/README.md):
    {"request": {"method": "POST", "url": "http://127.0.0.1:8080/agent/lease",
                 "headers": {"authorization": "Bearer xopc_rt_..."}, "body": {...}},
     "response": {"status": 200, "headers": {...}, "body": {...}}}
`body` is parsed JSON; `text` is a raw body (parsed as JSON when it is JSON); neither means no body.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any
from urllib.parse import urlsplit

from wirecheck.capture.ndjson import capture_finding
from wirecheck.check.message import HttpInfo, Message
from wirecheck.findings import Finding, short_repr
from wirecheck.json_text import parse_json
from wirecheck.pointer import format_pointer

STUB_MARK = "_wirecheck"  # a HAR entry's member for what in it was `wirecheck stub`'s own doing (stub/har.py)
STUB_ANSWERS = ("fault", "refused")  # its members: the answer was a fault injected, or a refusal of the stub's

NO_BODY: Any = None  # Message.value for a message without a body
EMPTY = object()
UNREADABLE = object()  # a body was there but is not JSON (reported as it was read)
UNKNOWN = object()  # the record left the body out (HAR): not checked, not taken for "no body"


class _Bad(Exception):
    def __init__(self, code: str, message: str, where: str):
        super().__init__(message)
        self.code, self.message, self.where = code, message, where


def _headers(raw: Any, where: str, har: bool) -> dict[str, str]:
    if raw is None:
        return {}
    headers: dict[str, str] = {}
    if isinstance(raw, dict) and har:
        raise _Bad("CAPTURE_FORMAT", 'HAR headers must be an array of {"name": "...", "value": "..."}', where)
    if isinstance(raw, dict):  # exchange form: {"name": "value"}; a number is written as its digits
        for name, value in raw.items():
            if isinstance(value, bool) or not isinstance(value, str | int | float):
                raise _Bad("CAPTURE_FORMAT", "a header value must be a string", where + format_pointer([name]))
            headers[name.lower()] = str(value)
        return headers
    if isinstance(raw, list):  # HAR form: [{"name", "value"}], both strings (HAR 1.2)
        for index, item in enumerate(raw):
            if not (isinstance(item, dict) and isinstance(item.get("name"), str)
                    and isinstance(item.get("value"), str)):
                raise _Bad("CAPTURE_FORMAT", 'a HAR header must be {"name": "...", "value": "..."}',
                           f"{where}/{index}")
            headers[item["name"].lower()] = item["value"]
        return headers
    raise _Bad("CAPTURE_FORMAT", "headers must be an object or a HAR header list", where)


def _body_from_text(text: Any, where: str, file: str, line: int | None) -> tuple[Any, list[Finding]]:
    if text is None or text == "":
        return EMPTY, []
    if not isinstance(text, str):
        raise _Bad("CAPTURE_FORMAT", "a body text must be a string", where)
    bom = text.startswith("\ufeff")
    value, problem = parse_json(text[bom:].encode("utf-8", "surrogatepass"))
    if bom and (problem is None or value is not None):  # how much a BOM matters is its reader's (json_bodies)
        findings = [capture_finding("BYTE_ORDER_MARK", "body starts with a UTF-8 byte order mark (U+FEFF), which RFC "
                                    "8259 §8.1 does not allow: a reader that does not strip it (JSON.parse of the "
                                    "text, Python's json.loads) refuses the body", file, line, where)]
        if problem is not None:
            findings.append(capture_finding(problem.code, f"body: {problem.message}", file, line, where,
                                            pointer=problem.pointer))
        return value, findings
    if problem is not None:
        finding = capture_finding(problem.code, f"body: {problem.message}", file, line, where, pointer=problem.pointer)
        return (value if value is not None else UNREADABLE), [finding]
    return value, []


def _path_of(url: str, where: str) -> str:
    try:
        path = urlsplit(url).path
    except ValueError as exc:  # e.g. an unclosed IPv6 bracket
        raise _Bad("CAPTURE_FORMAT", f"not a URL: {exc}", where) from None
    return normalise_path(path) or "/"


_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def normalise_path(path: str) -> str:
    """RFC 3986 §6.2.2: percent-encoded unreserved characters decoded (`/xopc%2Dplatform` is `/xopc-platform`) and
    the hex of the others upper-cased, so equal paths match one template. `%2F` stays: it is not a separator."""
    if "%" not in path:
        return path
    def one(match: re.Match[str]) -> str:
        char = chr(int(match[1], 16))
        return char if char in _UNRESERVED else "%" + match[1].upper()

    return re.sub(r"%([0-9A-Fa-f]{2})", one, path)


def _object(part: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    """An optional HAR member that must be an object when present."""
    value = part.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _Bad("CAPTURE_FORMAT", f"{key} must be an object", f"{where}/{key}")
    return value


def _har_text(part: dict[str, Any], side: str, where: str) -> tuple[Any, str]:
    """The raw body of a HAR request (postData.text) or response (content.text, maybe base64); UNKNOWN when the
    record leaves out a body it says was there, as HAR 1.2 lets a writer do (a response's `content.text` "Leave out
    this field if the information is not available"; browsers' exports leave bodies out): a response without
    `content.text` whose content.size (or bodySize) is not 0, a request without postData whose bodySize is more
    than 0 (a request records no body as bodySize 0 or, as many writers do, -1)."""
    if side == "request":
        post = _object(part, "postData", where)
        if "text" not in post and _size(part.get("bodySize")) > 0:
            return UNKNOWN, f"{where}/postData/text"
        return post.get("text"), f"{where}/postData/text"
    content = _object(part, "content", where)
    if "text" not in content and 0 not in (_size(content.get("size")), _size(part.get("bodySize"))):
        return UNKNOWN, f"{where}/content/text"
    text, encoding = content.get("text"), content.get("encoding")
    if encoding is None or encoding == "":
        return text, f"{where}/content/text"
    if not isinstance(encoding, str) or encoding.lower() != "base64":
        raise _Bad("CAPTURE_FORMAT", f"content.encoding {short_repr(encoding, 60)} cannot be read: give base64, or "
                   "leave encoding out for decoded text", f"{where}/content/encoding")
    if text is not None:
        try:  # validate: b64decode would otherwise drop every character outside the alphabet, and read "!!!!" as ""
            text = base64.b64decode("".join(text.split()), validate=True).decode("utf-8")
        except (binascii.Error, ValueError, TypeError, AttributeError):
            raise _Bad("CAPTURE_FORMAT", "content.text is not base64 of UTF-8", f"{where}/content/text") from None
    return text, f"{where}/content/text"


def _size(value: Any) -> int:
    """A HAR size: a number of bytes, or -1 when unknown (so is anything but an integer)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else -1


def _side(
    side: str,
    part: dict[str, Any],
    http: HttpInfo,
    exchange: int,
    file: str,
    line: int | None,
    where: str | None,
    har: bool,
) -> Iterator[Message | Finding]:
    """One message of an exchange: the request or the response, with its headers and body."""
    pwhere = f"{where}/{side}" if where is not None else None
    local = pwhere or f"/{side}"  # exchange JSONL: a pointer into the line
    headers = _headers(part.get("headers"), f"{local}/headers", har)
    if har:
        text, text_where = _har_text(part, side, local)
        body, problems = (UNKNOWN, []) if text is UNKNOWN else _body_from_text(text, text_where, file, line)
    elif "body" in part:
        body, problems = part["body"], []
    else:
        body, problems = _body_from_text(part.get("text"), f"{local}/text", file, line)
    yield Message(  # what reading the body found goes with it: whether it matters depends on its kind (engine)
        value=None if body is EMPTY or body is UNREADABLE or body is UNKNOWN else body,
        file=file,
        line=line,
        where=pwhere,
        http=HttpInfo(method=http.method, url=http.url, path=http.path, status=http.status, headers=headers,
                      body_unreadable=body is UNREADABLE, body_unknown=body is UNKNOWN,
                      body_problems=tuple(problems), stub_answer=http.stub_answer),
        exchange=exchange,
    )


_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")  # an HTTP method is a token (RFC 9110 §9.1)


def _messages(
    exchange: int,
    request: dict[str, Any],
    response: dict[str, Any] | None,
    file: str,
    line: int | None,
    where: str | None,
    har: bool,
    located: Callable[[_Bad], Finding],
    stub_answer: str | None = None,
) -> Iterator[Message | Finding]:
    """The request and the response of one exchange. A problem in one side is reported (`located`) and the other
    side is still read, so a malformed request does not hide its response's findings. A `stub_answer` is not read:
    the request is, marked as never taken by the platform."""
    at = where or ""
    method, url = request.get("method"), request.get("url")
    if not isinstance(method, str) or not isinstance(url, str):
        raise _Bad("CAPTURE_FORMAT", "a request needs a string method and url", f"{at}/request")
    if not _TOKEN.fullmatch(method):
        raise _Bad("CAPTURE_FORMAT", f"request method {short_repr(method, 60)} is not an HTTP method",
                   f"{at}/request/method")
    if not url.strip():
        raise _Bad("CAPTURE_FORMAT", "request url is empty", f"{at}/request/url")
    http = HttpInfo(method=method.upper(), url=url, path=_path_of(url, f"{at}/request/url"), status=None,
                    stub_answer=stub_answer)
    try:
        asked: list[Message | Finding] = list(_side("request", request, http, exchange, file, line, where, har))
    except _Bad as bad:
        asked = [located(bad)]
    jsonrpc = http.method == "POST" and any(
        isinstance(m, Message) and isinstance(m.value, dict) and m.value.get("jsonrpc") == "2.0"
        and isinstance(m.value.get("method"), str) for m in asked)
    if stub_answer is not None:  # the stub answered it itself: the request alone is the platform's to judge
        yield from asked
        return
    yield from _jsonrpc_over_http(iter(asked), response, exchange, file, line, where, har) if jsonrpc else asked
    if response is None:
        return
    status = response.get("status")
    lowest = 0 if har else 100  # HAR 1.2: status 0 when no response was received
    if not isinstance(status, int) or isinstance(status, bool) or not (status == lowest or 100 <= status <= 599):
        expected = "an integer status 100-599" + (" (0 when none was received)" if har else "")
        raise _Bad("CAPTURE_FORMAT", f"a response needs {expected}, found {short_repr(status, 60)}",
                   f"{at}/response/status")
    if har and status == 0:  # HAR: no response was received
        return
    http = HttpInfo(method=http.method, url=url, path=http.path, status=status)
    answered = _side("response", response, http, exchange, file, line, where, har)
    yield from _jsonrpc_over_http(answered, response, exchange, file, line, where, har) if jsonrpc else answered


def _jsonrpc_over_http(messages: Iterator[Message | Finding], response: dict[str, Any] | None, exchange: int,
                       file: str, line: int | None, where: str | None, har: bool) -> Iterator[Message | Finding]:
    """An exchange that carries JSON-RPC (A2A, MCP's Streamable HTTP: a POST whose body is a JSON-RPC request or
    notification) is read as the JSON-RPC messages it carries: the request body sent by the client, the answer by the
    server (JSON-RPC 2.0 section 1 names the two sides so), a `text/event-stream` answer as one response per Server-
    Sent Event's data (WHATWG HTML 9.2: `data:` lines joined by line feeds, an event ended by a blank line). Anything
    else of the exchange (a status without a JSON-RPC body) stays an HTTP message."""
    for item in messages:
        if not isinstance(item, Message) or item.http is None:
            yield item
            continue
        sender = "client" if item.http.status is None else "server"
        stream = sender == "server" and item.http.headers.get("content-type", "").split(";")[0].strip().lower() \
            == "text/event-stream"
        if stream and response is not None:
            yield from _events(response, item, file, line, where, har)
        elif isinstance(item.value, dict) and item.value.get("jsonrpc") == "2.0":
            yield from item.http.body_problems
            yield Message(value=item.value, file=file, line=line, where=item.where, sender=sender, exchange=exchange)
        else:
            yield item


def _events(response: dict[str, Any], answer: Message, file: str, line: int | None, where: str | None, har: bool
            ) -> Iterator[Message | Finding]:
    """Each Server-Sent Event of a streamed JSON-RPC answer, a response from the server."""
    text, text_where = _har_text(response, "response", f"{where}/response" if where is not None else "/response") \
        if har else (response.get("text"), "/response/text")
    if not isinstance(text, str):
        yield capture_finding("CAPTURE_FORMAT", "a text/event-stream answer without its text", file, line,
                              answer.where)
        return
    data: list[str] = []
    count = 0
    for raw in ([*text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), ""]):
        if raw:
            field_, _, value = raw.partition(":")
            if field_ == "data":
                data.append(value[1:] if value.startswith(" ") else value)
            continue
        if not data:
            continue
        event_where = f"{text_where}#event{count}"
        value, problems = _body_from_text("\n".join(data), event_where, file, line)
        yield from problems
        if value is not EMPTY and value is not UNREADABLE:
            yield Message(value=value, file=file, line=line, where=event_where, sender="server",
                          exchange=answer.exchange, stream_event=count)
        count, data = count + 1, []


def read_har(document: Any, file: str) -> Iterator[Message | Finding]:
    """A HAR document held whole (one whose `log` is not its first key; others are read entry by entry)."""
    log = document.get("log") if isinstance(document, dict) else None
    entries = log.get("entries") if isinstance(log, dict) else None
    if not isinstance(entries, list):
        yield capture_finding("CAPTURE_FORMAT", "a HAR file needs log.entries (an array)", file, where="/log")
        return
    yield from read_har_entries(enumerate(entries), file)


def _stub_answer(entry: dict[str, Any], where: str) -> str | None:
    """What `wirecheck stub` says of its own answer to this entry's request (a HAR 1.2 custom field, stub/har.py
    writes it): `_wirecheck: {"fault": "events=503 once"}`, a fault its scenario injected, or `{"refused": "no
    leased command x"}`, a request it could not act on. None for an answer of the platform's."""
    mark = entry.get(STUB_MARK)
    if mark is None:
        return None
    said = [f"{key} {mark[key]}" for key in STUB_ANSWERS if isinstance(mark, dict) and isinstance(mark.get(key), str)]
    if not said:
        raise _Bad("CAPTURE_FORMAT", f'{STUB_MARK} must be {{"fault": "<what the stub injected>"}} or '
                   f'{{"refused": "<why the stub could not act on the request>"}}', f"{where}/{STUB_MARK}")
    return said[0]


def read_har_entries(entries: Iterable[tuple[int, Any]], file: str) -> Iterator[Message | Finding]:
    """HAR entries (index, value), each turned into its request and response (or its request alone, when the
    answer was the stub's own: not the platform's, so it is judged against neither side)."""
    def located(bad: _Bad) -> Finding:
        return capture_finding(bad.code, bad.message, file, where=bad.where)

    for index, entry in entries:
        where = f"/log/entries/{index}"
        try:
            if not isinstance(entry, dict) or not isinstance(entry.get("request"), dict):
                raise _Bad("CAPTURE_FORMAT", "an entry needs a request object", where)
            response = entry.get("response")
            if response is not None and not isinstance(response, dict):
                raise _Bad("CAPTURE_FORMAT", "response must be an object", f"{where}/response")
            try:
                stub_answer = _stub_answer(entry, where)
            except _Bad as bad:  # reported; the entry is read as the platform's
                yield located(bad)
                stub_answer = None
            yield from _messages(index, entry["request"], response, file, None, where, True, located, stub_answer)
            if response is None:  # the request was still checked
                raise _Bad("CAPTURE_FORMAT", "a HAR entry needs a response (status 0 when none was received)",
                           f"{where}/response")
        except _Bad as bad:
            yield located(bad)
        except (AttributeError, TypeError, ValueError) as exc:  # a shape no check above foresaw: still located
            yield capture_finding("CAPTURE_FORMAT", f"malformed entry: {exc}", file, where=where)


def read_exchanges(items: Iterator[tuple[int, Any] | Finding], file: str) -> Iterator[Message | Finding]:
    for item in items:
        if isinstance(item, Finding):
            yield item
            continue
        line_no, exchange = item

        def located(bad: _Bad, line_no: int = line_no) -> Finding:
            return capture_finding(bad.code, f"{bad.message} (at {bad.where or '/'})", file, line_no)

        try:
            if not isinstance(exchange, dict) or not isinstance(exchange.get("request"), dict):
                raise _Bad("CAPTURE_FORMAT", 'an exchange line must be {"request": {...}, "response"?: {...}}', "")
            response = exchange.get("response")
            if response is not None and not isinstance(response, dict):
                raise _Bad("CAPTURE_FORMAT", "response must be an object", "/response")
            yield from _messages(line_no, exchange["request"], response, file, line_no, None, False, located)
        except _Bad as bad:
            yield located(bad)
        except (AttributeError, TypeError, ValueError) as exc:  # a shape no check above foresaw: still located
            yield capture_finding("CAPTURE_FORMAT", f"malformed exchange: {exc}", file, line_no)
