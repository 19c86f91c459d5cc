"""A HAR 1.2 recorder for the stub and the probe: bodies kept as the raw text that crossed the wire, on disk.

Entries are written to a spool file as they are recorded, so memory does not grow with the requests (a 1 MiB body
costs its request's time, not a megabyte for the rest of the run); the HAR document is streamed from it. Bodies
beyond MAX_RECORDED_BODY_BYTES in all are not kept: their entry says so in a `comment`, and `omitted` counts them
(whoever certifies the HAR must report it: what was not kept was not checked)."""

from __future__ import annotations

import base64
import contextlib
import datetime as dt
import tempfile
import threading
from array import array
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

from wirecheck import __version__
from wirecheck.capture.http import STUB_MARK
from wirecheck.stub.redaction import MIN_SECRET_CHARS, Secrets, redact_token


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
    own: Mapping[str, str] | None = None  # the answer was the stub's own (stub/server.py Reply.own)


# The headers a credential travels in, from the services wirecheck serves or models and the programs that talk to
# them (header names are matched in any case):
# - authorization: xopc's runtime token (Bearer); OpenAI and OpenAI-compatible keys (openai 6.49.0 client.js:272,
#   `Authorization: Bearer ${apiKey}`; OpenCode's @ai-sdk/openai-compatible, fixtures/live/opencode@1.18.33/
#   *.model.har); Anthropic's auth tokens (@anthropic-ai/sdk 1.17.0 client.js:443-457); any scheme (Basic, AWS4-...);
# - proxy-authorization (RFC 9110 §11.7.1);
# - x-api-key: Anthropic's API key (Claude Code 2.1.332 sends it: fixtures/live/claude-code@2.1.332/
#   claude-print-plain.model.har; @anthropic-ai/sdk client.js:389 takes it as the credential);
# - x-goog-api-key: Gemini's (@google/genai 2.32.0 dist/node/index.cjs:20058);
# - api-key: Azure OpenAI's (openai 6.49.0 azure.js:85).
# Not openai-organization or openai-project (openai client.js:662-663): identifiers of an account, not credentials.
CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization", "x-api-key", "x-goog-api-key", "api-key"})
SECRET_HEADERS = CREDENTIAL_HEADERS | {"cookie", "set-cookie"}
_SCHEMED = frozenset({"authorization", "proxy-authorization"})  # `<scheme> <credentials>`


def redact(name: str, value: str) -> str:
    """A HAR is published with the report: secrets are cut, keeping what the contract checks (the scheme and a
    known token prefix) and the length, so a malformed credential still shows as malformed."""
    lowered = name.lower()
    if lowered not in SECRET_HEADERS or not value:
        return value
    scheme, sep, token = value.partition(" ") if lowered in _SCHEMED else ("", "", value)
    if not sep:
        scheme, token = "", value
    return f"{scheme}{sep}{redact_token(token)}"


def credentials(headers: Mapping[str, str]) -> list[str]:
    """The secrets a request's credential headers carry, long enough to be cut elsewhere: each header's value (without
    its scheme), and a Basic credential's password and `user:password` too (an echo may quote it decoded)."""
    found = []
    for name, value in headers.items():
        lowered = name.lower()
        if lowered not in CREDENTIAL_HEADERS:
            continue
        scheme, sep, token = value.strip().partition(" ") if lowered in _SCHEMED else ("", "", value)
        if not sep:  # no scheme: the whole value is the credential
            scheme, token = "", value
        token = token.strip()
        found.append(token)
        if scheme.lower() == "basic":
            with contextlib.suppress(ValueError, UnicodeDecodeError):
                pair = base64.b64decode(token, validate=True).decode("utf-8")
                found += [pair, pair.partition(":")[2]]
    return [secret for secret in found if len(secret.encode()) >= MIN_SECRET_CHARS]


def _headers(headers: Mapping[str, str]) -> list[dict[str, str]]:
    return [{"name": k, "value": redact(k, v)} for k, v in headers.items()]


def _text(data: bytes | None) -> str | None:
    if data is None or data == b"":
        return None
    return data.decode("utf-8", "replace")


MAX_RECORDED_BODY_BYTES = 32 << 20  # request and response bodies kept in one HAR, in all
OMITTED = "body not kept: the HAR's {limit} MiB budget for bodies was spent"


def har_entry(exchange: Exchange, keep_bodies: bool = True) -> dict[str, Any]:
    request: dict[str, Any] = {
        "method": exchange.method, "url": exchange.url, "httpVersion": "HTTP/1.1",
        "headers": _headers(exchange.request_headers), "queryString": [], "cookies": [], "headersSize": -1,
        "bodySize": len(exchange.request_body or b""),
    }
    text = _text(exchange.request_body) if keep_bodies else None
    if text is not None:
        request["postData"] = {"mimeType": exchange.request_headers.get("content-type", ""), "text": text}
    content: dict[str, Any] = {"size": len(exchange.response_body or b""),
                               "mimeType": exchange.response_headers.get("content-type", "")}
    text = _text(exchange.response_body) if keep_bodies else None
    if text is not None:
        content["text"] = text
    response = {
        "status": exchange.status or 0, "statusText": "", "httpVersion": "HTTP/1.1",
        "headers": _headers(exchange.response_headers), "cookies": [], "content": content,
        "redirectURL": exchange.response_headers.get("location", ""),
        "headersSize": -1, "bodySize": len(exchange.response_body or b"") if exchange.status else -1,
    }
    entry = {
        "startedDateTime": exchange.started.isoformat().replace("+00:00", "Z"),
        "time": round(exchange.elapsed_ms, 3), "request": request, "response": response, "cache": {},
        "timings": {"send": 0, "wait": round(exchange.elapsed_ms, 3), "receive": 0},
    }
    if not keep_bodies and (exchange.request_body or exchange.response_body):
        entry["comment"] = OMITTED.format(limit=MAX_RECORDED_BODY_BYTES >> 20)
    if exchange.own is not None:  # HAR 1.2 custom fields start with an underscore
        entry[STUB_MARK] = dict(exchange.own)
    return entry


class HarRecorder:
    """Exchanges recorded in the order their requests began (from any thread), kept in a spool file until the HAR is
    written. HAR's own preferred order (entries by startedDateTime) is the order of the conversation: a request whose
    answer is slow (a delayed terminal event) comes before the requests sent while it waited, as it did on the wire.
    A server takes a place in that order as a request begins (`begin`) and fills it when the exchange is whole
    (`add`) or gives it up (`abandon`); entries finished while an earlier one is still open wait for it, at most
    one per request in flight.

    Credentials are secrets wherever they appear: every credential header is redacted (CREDENTIAL_HEADERS), and each
    secret given (`secrets`: a token, the values a live run handed its program) or seen in a request's credential
    header is cut (`redaction.Secrets`: in every spelling an echo may use) from every string of the entry too (a URL,
    a body, a header that echoes it), as from the texts `scrub` is given (the steps, problems and stderr quotes a
    report or the terminal shows). `secrets` may be a Secrets another part of the run shares: what each learns, the
    other cuts."""

    def __init__(self, creator: str = "wirecheck", body_budget: int = MAX_RECORDED_BODY_BYTES,
                 secrets: Iterable[str] | Secrets = ()):
        self.creator = creator
        self.body_budget = body_budget
        self.body_bytes = 0  # kept so far
        self.omitted = 0  # exchanges whose bodies were not kept
        self.secrets = secrets if isinstance(secrets, Secrets) else Secrets(secrets)
        self._spool = tempfile.TemporaryFile(prefix="wirecheck-har-")  # noqa: SIM115 (lives as long as this)
        self._count = 0
        self._cut_with = array("I")  # per spooled entry: how many secrets were known when it was cut
        self._next_place = 0  # the place the next request to begin takes
        self._next_written = 0  # the place whose entry is written next
        # finished (None: abandoned) places after an open one: the entry, and how many secrets it was cut with
        self._waiting: dict[int, tuple[bytes, int] | None] = {}
        self.answered = 0  # exchanges that got a response (a probe that heard nothing has nothing to certify)
        self._lock = threading.Lock()

    def keep_secret(self, secret: str) -> None:
        self.secrets.add(secret)

    def learn(self, headers: Mapping[str, str]) -> None:
        """Take the credentials of a request (every credential header's, together) as secrets before the request is
        handled (what its handling says is scrubbed too); `add` learns them all the same."""
        self.secrets.add(*credentials(headers))

    def scrub(self, text: str) -> str:
        return self.secrets.cut(text)

    def begin(self) -> int:
        """A place in the HAR for a request that has begun; `add(exchange, place)` or `abandon(place)` ends it."""
        with self._lock:
            place = self._next_place
            self._next_place += 1
            return place

    def abandon(self, place: int) -> None:
        """The request at `place` will not be recorded (refused before it was read, a control route); a place
        already recorded stays as it is."""
        with self._lock:
            if place not in self._waiting and place >= self._next_written:
                self._settle(place, None)

    def _settle(self, place: int, line: tuple[bytes, int] | None) -> None:
        """Write the entries from the oldest open place on that are finished (caller holds the lock)."""
        if place < self._next_written:  # an entry that outlived the writing of the HAR (`_release`): last
            self._settle_now(line)
            return
        self._waiting[place] = line
        while self._next_written in self._waiting:
            self._settle_now(self._waiting.pop(self._next_written))
            self._next_written += 1

    def add(self, exchange: Exchange, place: int | None = None) -> None:
        """Record an exchange at its place (`begin`), or, without one, after every request begun so far."""
        size = len(exchange.request_body or b"") + len(exchange.response_body or b"")
        with self._lock:
            keep = self.body_bytes + size <= self.body_budget
            if keep:
                self.body_bytes += size
            else:
                self.omitted += 1
        self.learn(exchange.request_headers)
        known = len(self.secrets)
        line = orjson.dumps(self.secrets.cut_all(har_entry(exchange, keep)))
        with self._lock:
            if place is None:
                place = self._next_place
                self._next_place += 1
            self._settle(place, (line, known))
            self.answered += exchange.status is not None

    def __len__(self) -> int:
        with self._lock:
            return self._count + sum(line is not None for line in self._waiting.values())

    def _release(self) -> None:
        """Write the finished entries still waiting for an open one (the HAR is being written: a request that has
        not finished by now is not in it). Caller holds the lock."""
        for place in sorted(self._waiting):
            self._settle_now(self._waiting.pop(place))
            self._next_written = place + 1

    def _settle_now(self, entry: tuple[bytes, int] | None) -> None:
        if entry is not None:
            self._spool.write(entry[0] + b"\n")
            self._cut_with.append(entry[1])
            self._count += 1

    def _lines(self) -> Iterator[bytes]:
        """The recorded entries, one JSON line each, as they are at the call; one recorded before a secret it holds
        was learnt (a runtime echoing a key before it sends it in a credential header) is cut again, with every
        secret known now (a cut leaves JSON text JSON: nothing it writes needs escaping)."""
        with self._lock:
            self._release()
            self._spool.flush()
            cut_with = self._cut_with[:]  # one per entry spooled so far
        known = len(self.secrets)
        with open(self._spool.fileno(), "rb", closefd=False) as spool:  # its own position: recording goes on
            spool.seek(0)
            for secrets_then in cut_with:
                line = spool.readline().rstrip(b"\n")
                yield self.secrets.cut(line.decode()).encode() if secrets_then < known else line

    def document(self) -> dict[str, Any]:
        """The HAR as a value (whole, in memory: for tests and small runs)."""
        return {"log": {**self._log_head(), "entries": [orjson.loads(line) for line in self._lines()]}}

    def _log_head(self) -> dict[str, Any]:
        return {"version": "1.2", "creator": {"name": self.creator, "version": __version__}}

    def write_to(self, stream: IO[bytes]) -> None:
        """The HAR document, entry by entry: memory holds one entry at a time."""
        head = orjson.dumps({"log": {**self._log_head(), "entries": []}})
        stream.write(head[:-len(b"]}}")] + b"\n")
        for index, line in enumerate(self._lines()):
            stream.write((b",\n" if index else b"") + line)
        stream.write(b"\n]}}\n")

    def write(self, path: Path) -> Path:
        """The HAR written to `path` (output_files: in place once whole)."""
        from wirecheck.output_files import writing

        with writing(path, binary=True) as stream:
            self.write_to(stream)
        return path


def now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)
