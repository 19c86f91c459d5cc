"""Protocol rules of the xopc platform runtime API (texts in rules/texts/xopc.yaml).

The runtime worker (xopcai/xopc src/platform/worker.ts) leases a command, reports `xopc.run.started` at sequence 1,
renews the lease while it works, and reports exactly one terminal event at sequence 2, every call carrying the
command's lease token. These rules follow that conversation across the HTTP messages of a capture, in capture order.

Which message kinds play the lease, event and renewal parts is the catalog's choice (params `lease`, `event`,
`renew`: kind ids), so the rules name no kind themselves. The member layout inside those bodies — `{command}`,
`{event, leaseToken}`, `{leaseToken}` and the `/commands/{id}/renew` path — is the xopc protocol these rules exist
for. A run, a command or a token that the capture never leased is not judged: the capture may have begun mid-run.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import unquote

from wirecheck.check.message import Message
from wirecheck.contracts.model import ContractRelease, MessageKind
from wirecheck.findings import Finding, short_repr
from wirecheck.pointer import parse_pointer, replaced, resolve
from wirecheck.rules.registry import Edit, Needs, Params, Session, message_rule, rule, schema_at

DEFAULT_STARTED = "xopc.run.started"
DEFAULT_TERMINAL = ("xopc.run.succeeded", "xopc.run.failed", "xopc.run.cancelled")
_RENEW_PATH = re.compile(r"/commands/([^/]+)/renew/?$")
_ABSENT = object()  # an absent member (no JSON value is this object)


def _kind_id(message: Message) -> str | None:
    return message.kind.id if message.kind is not None else None


def _event_of(message: Message) -> dict[str, Any] | None:
    event = message.value.get("event") if isinstance(message.value, dict) else None
    return event if isinstance(event, dict) else None


def _taken_event(message: Message) -> dict[str, Any] | None:
    """The PlatformEvent of a request, as a step of its run: none when the platform never took it, its answer being the
    stub's own (a fault injected: a 503, a dropped connection). The run has not moved (a re-delivery is its first
    report of the event, and a terminal event refused so has not ended it); the request itself is still judged by
    every rule that reads what the runtime sent (its token, identity, time)."""
    if message.http is not None and message.http.stub_answer is not None:
        return None
    return _event_of(message)


def _run_id(event: dict[str, Any]) -> str | None:
    run_id = event.get("runId")
    return run_id if isinstance(run_id, str) and run_id else None


def _leased_command(message: Message) -> tuple[str, str, str] | None:
    """(command id, run id, lease token) of a lease response, when all three are strings."""
    command = message.value.get("command") if isinstance(message.value, dict) else None
    if not isinstance(command, dict):
        return None
    parts = command.get("id"), command.get("runId"), command.get("leaseToken")
    if not all(isinstance(part, str) for part in parts):
        return None
    return parts  # type: ignore[return-value]


def _renewed_command_id(message: Message) -> str | None:
    """The command id in `/commands/{id}/renew` (percent-decoded: the client sends encodeURIComponent(id))."""
    if message.http is None:
        return None
    match = _RENEW_PATH.search(message.http.path)
    return unquote(match.group(1)) if match else None


# JavaScript's falsy JSON values, and Python's (an empty array or object): the rule reads `event.get("runId")`
_FALSY: list[Any] = ["", 0, False, None, [], {}]


def _sequence_needed(params: Params, release: ContractRelease, kind: MessageKind) -> dict[str, Any]:
    has_run = {"required": ["runId"], "properties": {"runId": {"not": {"enum": _FALSY}}}}
    return schema_at(params.get("at", "/event"), {"if": has_run, "then": {"required": ["sequence"]}})


def _sequence_dropped(params: Params, message: Message) -> list[Edit]:
    at = params.get("at", "/event")
    event = resolve(message.value, parse_pointer(at), None)
    if not (isinstance(event, dict) and event.get("runId") and "sequence" in event):
        return []
    without = {k: v for k, v in event.items() if k != "sequence"}
    return [(replace(message, value=replaced(message.value, parse_pointer(at), without)), f"{at}/sequence",
             "a run event without its sequence")]


@message_rule("XOPC_RUN_EVENT_HAS_SEQUENCE", needs=Needs(schema=_sequence_needed, breaks=_sequence_dropped))
def run_event_has_sequence(message: Message, params: Mapping[str, Any]) -> Iterable[Finding]:
    """params: at (pointer to the PlatformEvent in the message; default `/event`)."""
    at = params.get("at", "/event")
    event = resolve(message.value, parse_pointer(at), None)
    # zod: `if (event.runId && event.sequence === undefined)`: a present, non-empty runId and no sequence member.
    if isinstance(event, dict) and event.get("runId") and "sequence" not in event:
        yield message.finding(
            "XOPC_RUN_EVENT_HAS_SEQUENCE",
            f"run event {short_repr(event.get('type'))} of run {short_repr(event['runId'])} has no sequence",
            pointer=f"{at}/sequence",
            expected="a sequence (integer >= 0)",
            found="no sequence",
        )


_WORKER_RUN = Session(off_streams="it follows a worker run over HTTP (lease, events, renewals)")


def _terminal_types(params: Mapping[str, Any]) -> frozenset[str]:
    return frozenset(params.get("terminal", DEFAULT_TERMINAL))


@rule("XOPC_RUN_LIFECYCLE", session=lambda params: _WORKER_RUN)
class RunLifecycle:
    """params: started (type of the first event), terminal (types that end a run). Sees PlatformEvents at /event.

    Position n of an event in its run decides what it must be: 1 → started at sequence 1, 2 → a terminal event at
    sequence 2, later → nothing may follow. At most one finding per event (the type first, then the sequence); a
    missing sequence is XOPC_RUN_EVENT_HAS_SEQUENCE's finding. An eventId seen before in the run is a re-delivery
    (the platform answers it `duplicate`) and is not counted again.
    """

    def __init__(self, params: Mapping[str, Any], release: ContractRelease):
        self._started = params.get("started", DEFAULT_STARTED)
        self._terminal = _terminal_types(params)
        self._events: dict[str, list[Any]] = {}  # run id → eventIds in order

    def on_message(self, message: Message) -> Iterable[Finding]:
        event = _taken_event(message)
        run_id = _run_id(event) if event else None
        if event is None or run_id is None:
            return
        seen = self._events.setdefault(run_id, [])
        event_id = event.get("eventId")
        if event_id is not None and event_id in seen:
            return
        seen.append(event_id)
        position, kind, sequence = len(seen), event.get("type"), event.get("sequence", _ABSENT)
        if position == 1:
            wanted_type, wanted_sequence = self._started, 1
            if kind != wanted_type:
                yield self._finding(message, run_id, "/event/type", f"the first event of a run must be {wanted_type}",
                                    wanted_type, kind)
                return
        elif position == 2:
            wanted_sequence = 2
            if kind not in self._terminal:
                yield self._finding(message, run_id, "/event/type",
                                    "the second event of a run must be its one terminal event",
                                    " | ".join(sorted(self._terminal)), kind)
                return
        else:
            yield self._finding(message, run_id, "/event/type", "no event may follow a run's terminal event",
                                "no further event", kind)
            return
        if sequence is not _ABSENT and sequence != wanted_sequence:
            yield self._finding(message, run_id, "/event/sequence",
                                f"{kind} must be sequence {wanted_sequence}", str(wanted_sequence), sequence)

    @staticmethod
    def _finding(message: Message, run_id: str, pointer: str, text: str, expected: str, found: Any) -> Finding:
        return message.finding(
            "XOPC_RUN_LIFECYCLE",
            f"run {short_repr(run_id)}: {text}",
            pointer=pointer,
            expected=expected,
            found=short_repr(found),
        )

    def finish(self) -> Iterable[Finding]:
        return ()


@dataclass
class _Run:
    first: Message  # where an unfinished run is reported
    terminated: bool = False


@rule("XOPC_RUN_TERMINATES", session=lambda params: _WORKER_RUN)
class RunTerminates:
    """params: lease, event (kind ids), terminal (types). Reported when the capture ends, at the run's lease."""

    def __init__(self, params: Mapping[str, Any], release: ContractRelease):
        self._lease, self._event = params["lease"], params["event"]
        self._terminal = _terminal_types(params)
        self._runs: dict[str, _Run] = {}

    def on_message(self, message: Message) -> Iterable[Finding]:
        kind = _kind_id(message)
        if kind == self._lease and (command := _leased_command(message)):
            self._runs.setdefault(command[1], _Run(message))
        elif kind == self._event and (event := _taken_event(message)) and (run_id := _run_id(event)):
            run = self._runs.setdefault(run_id, _Run(message))
            run.terminated = run.terminated or event.get("type") in self._terminal
        return ()

    def finish(self) -> Iterable[Finding]:
        for run_id, run in self._runs.items():
            if not run.terminated:
                yield run.first.finding(
                    "XOPC_RUN_TERMINATES",
                    f"run {short_repr(run_id)} never reports a terminal event",
                    expected=" | ".join(sorted(self._terminal)),
                    found="no terminal event before the capture ends",
                )


@dataclass
class _Lease:
    command_id: str
    run_id: str
    token: str


@dataclass
class _Leases:
    """Commands leased so far, by command id and by run id."""

    by_command: dict[str, _Lease] = field(default_factory=dict)
    by_run: dict[str, _Lease] = field(default_factory=dict)

    def record(self, message: Message) -> None:
        if command := _leased_command(message):
            lease = _Lease(*command)
            self.by_command[lease.command_id] = lease
            self.by_run[lease.run_id] = lease


@rule("XOPC_LEASE_TOKEN_MATCHES", session=lambda params: _WORKER_RUN)
class LeaseTokenMatches:
    """params: lease, event, renew (kind ids). Tokens are compared, never printed.

    A token and the command it was leased with belong together both ways: an event or renewal of a leased command
    carries its token, and a renewal carrying a leased command's token names that command in its path (the worker
    renews `command.id`, worker.ts:58, as `/commands/${encodeURIComponent(commandId)}/renew`, client.ts:123). A
    renewal naming an id the capture never leased, with no token of this capture's leases, is not judged (the
    capture may have begun mid-run)."""

    def __init__(self, params: Mapping[str, Any], release: ContractRelease):
        self._lease, self._event, self._renew = params["lease"], params["event"], params["renew"]
        self._leases = _Leases()

    def on_message(self, message: Message) -> Iterable[Finding]:
        kind = _kind_id(message)
        if kind == self._lease:
            self._leases.record(message)
        elif kind == self._event and (event := _event_of(message)) and (run_id := _run_id(event)):
            lease = self._leases.by_run.get(run_id)
            if lease is not None:
                yield from self._compare(message, lease, f"event {short_repr(event.get('type'))} of run")
        elif kind == self._renew and (command_id := _renewed_command_id(message)):
            lease = self._leases.by_command.get(command_id)
            if lease is not None:
                yield from self._compare(message, lease, "renewal of the command for run")
            else:
                yield from self._misnamed(message, command_id)

    def _misnamed(self, message: Message, command_id: str) -> Iterable[Finding]:
        """A renewal of an id no lease gave, carrying the token leased with another command."""
        token = message.value.get("leaseToken") if isinstance(message.value, dict) else None
        lease = next((lease for lease in self._leases.by_command.values() if lease.token == token), None)
        if lease is None:
            return
        named = f"its run id {short_repr(command_id)}" if command_id == lease.run_id else short_repr(command_id)
        yield message.finding(
            "XOPC_LEASE_TOKEN_MATCHES",
            f"a renewal carrying the leaseToken of command {short_repr(lease.command_id)} names {named}, which no "
            f"lease gave: the platform renews no such command",
            expected=f"POST .../commands/{lease.command_id}/renew",
            found=f"POST {message.http.path if message.http else '/commands/{id}/renew'}",
        )

    @staticmethod
    def _compare(message: Message, lease: _Lease, what: str) -> Iterable[Finding]:
        token = message.value.get("leaseToken", _ABSENT) if isinstance(message.value, dict) else _ABSENT
        if token == lease.token:
            return
        yield message.finding(
            "XOPC_LEASE_TOKEN_MATCHES",
            f"{what} {short_repr(lease.run_id)} must carry the leaseToken of command {short_repr(lease.command_id)}",
            pointer="/leaseToken",
            expected=f"the leaseToken leased with command {short_repr(lease.command_id)}",
            found="no leaseToken" if token is _ABSENT else "a different token",
        )

    def finish(self) -> Iterable[Finding]:
        return ()


# event member → the leased command's payload member it copies (worker.ts `event()`)
_IDENTITY = (("organizationId", "organizationId"), ("workspaceId", "workspaceId"), ("traceId", "traceId"),
             ("producer", "runtimeId"))


@rule("XOPC_EVENT_IDENTITY_MATCHES_LEASE", session=lambda params: _WORKER_RUN)
class EventIdentityMatchesLease:
    """params: lease, event (kind ids). One finding per member that differs from the leased command's payload."""

    def __init__(self, params: Mapping[str, Any], release: ContractRelease):
        self._lease, self._event = params["lease"], params["event"]
        self._payloads: dict[str, tuple[str, dict[str, Any]]] = {}  # run id → (command id, payload)

    def on_message(self, message: Message) -> Iterable[Finding]:
        kind = _kind_id(message)
        if kind == self._lease and (command := _leased_command(message)):
            payload = message.value["command"].get("payload")
            if isinstance(payload, dict):
                self._payloads[command[1]] = (command[0], payload)
        elif kind == self._event and (event := _event_of(message)) and (run_id := _run_id(event)):
            if run_id not in self._payloads:
                return
            command_id, payload = self._payloads[run_id]
            for member, source in _IDENTITY:
                wanted = payload.get(source, _ABSENT)
                found = event.get(member, _ABSENT)
                if wanted is _ABSENT or found is _ABSENT or wanted == found:
                    continue  # absence is the schemas' business
                yield message.finding(
                    "XOPC_EVENT_IDENTITY_MATCHES_LEASE",
                    f"event of run {short_repr(run_id)}: {member} must be the leased command's payload.{source}",
                    pointer=f"/event/{member}",
                    expected=f"{short_repr(wanted)} (command {short_repr(command_id)})",
                    found=short_repr(found),
                )

    def finish(self) -> Iterable[Finding]:
        return ()


@rule("XOPC_NO_RENEW_AFTER_TERMINAL", session=lambda params: _WORKER_RUN)
class NoRenewAfterTerminal:
    """params: lease, event, renew (kind ids), terminal (types)."""

    def __init__(self, params: Mapping[str, Any], release: ContractRelease):
        self._lease, self._event, self._renew = params["lease"], params["event"], params["renew"]
        self._terminal = _terminal_types(params)
        self._leases = _Leases()
        self._ended: dict[str, str] = {}  # run id → its terminal event type

    def on_message(self, message: Message) -> Iterable[Finding]:
        kind = _kind_id(message)
        if kind == self._lease:
            self._leases.record(message)
        elif kind == self._event and (event := _taken_event(message)) and (run_id := _run_id(event)):
            if event.get("type") in self._terminal:
                self._ended.setdefault(run_id, event["type"])
        elif kind == self._renew and (command_id := _renewed_command_id(message)):
            lease = self._leases.by_command.get(command_id)
            if lease is not None and lease.run_id in self._ended:
                yield message.finding(
                    "XOPC_NO_RENEW_AFTER_TERMINAL",
                    f"command {short_repr(command_id)} is renewed after its run {short_repr(lease.run_id)} "
                    f"reported {self._ended[lease.run_id]}",
                    expected="no renewal after the terminal event",
                    found=f"POST {message.http.path if message.http else '/commands/{id}/renew'}",
                )

    def finish(self) -> Iterable[Finding]:
        return ()


def _epoch_ms(text: Any) -> int | None:
    """An event's `time` (ISO 8601, `Z`) as epoch milliseconds, or None when it is not one."""
    if not isinstance(text, str) or not text.endswith("Z"):
        return None
    try:
        moment = dt.datetime.fromisoformat(text[:-1] + "+00:00")
    except ValueError:
        return None
    return int(moment.timestamp() * 1000)


@rule("XOPC_LEASE_KEPT", session=lambda params: _WORKER_RUN)
class LeaseKept:
    """params: lease, event (kind ids), renewed (the renewal answer's kind), grace_ms (default 0).

    A run holds its command's lease until `leaseExpiresAt` (epoch ms: the lease's, then each renewal answer's); an
    event of the run whose `time` is past it was sent by a runtime that worked on after its lease lapsed: it had to
    renew first. So a run that ends before its lease would expire needs no renewal at any speed, and one that works
    longer is judged by whether it renewed in time. Times are compared as the capture has them (the event's `time`
    is the runtime's clock, `leaseExpiresAt` the platform's: one machine's clock under `wirecheck stub`). One finding
    per run, at its first late event.
    """

    def __init__(self, params: Mapping[str, Any], release: ContractRelease):
        self._lease, self._event, self._renewed = params["lease"], params["event"], params["renewed"]
        self._grace = int(params.get("grace_ms", 0))
        self._expiry: dict[str, int] = {}  # run id → when its lease expires
        self._runs: dict[str, str] = {}  # command id → run id
        self._late: set[str] = set()

    def on_message(self, message: Message) -> Iterable[Finding]:
        kind = _kind_id(message)
        if kind == self._lease and (command := _leased_command(message)):
            expires = message.value["command"].get("leaseExpiresAt")
            if isinstance(expires, int) and not isinstance(expires, bool) and expires > 0:  # else: the schema's
                self._runs[command[0]] = command[1]
                self._expiry[command[1]] = expires
        elif kind == self._renewed and (command_id := _renewed_command_id(message)):
            run_id = self._runs.get(command_id)
            expires = message.value.get("leaseExpiresAt") if isinstance(message.value, dict) else None
            if run_id is not None and isinstance(expires, int) and not isinstance(expires, bool):
                self._expiry[run_id] = max(self._expiry[run_id], expires)
        elif kind == self._event and (event := _event_of(message)) and (run_id := _run_id(event)):
            expires = self._expiry.get(run_id)
            sent = _epoch_ms(event.get("time"))
            if expires is None or sent is None or run_id in self._late or sent <= expires + self._grace:
                return
            self._late.add(run_id)
            late = dt.datetime.fromtimestamp(expires / 1000, dt.UTC).isoformat(timespec="milliseconds")
            yield message.finding(
                "XOPC_LEASE_KEPT",
                f"run {short_repr(run_id)} reports {short_repr(event.get('type'))} {sent - expires} ms after its "
                f"lease expired: it had to renew the lease before then",
                pointer="/event/time",
                expected=f"an event no later than the lease's expiry, {late.replace('+00:00', 'Z')}",
                found=short_repr(event.get("time")),
            )

    def finish(self) -> Iterable[Finding]:
        return ()


# ---- side chat routes --------------------------------------------------------------------------------

# What JavaScript's String#trim removes (ECMA-262 WhiteSpace and LineTerminator); Python's str.strip differs
# (it strips U+001C..U+001F, keeps U+FEFF), and the gateway trims with JavaScript.
_JS_WHITESPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
                 "\u2028\u2029\u202f\u205f\u3000\ufeff"


def js_trim(text: str) -> str:
    return text.strip(_JS_WHITESPACE)


def _status_matches(status: int, selected: str | None) -> bool:
    """Whether `status` fits a kind's selector status ("404", "4XX", or None: any)."""
    if selected is None:
        return True
    return str(status) == selected if selected.isdigit() else str(status)[0] == selected[0]


def _codes_for_kind(params: Params, release: ContractRelease, kind: MessageKind) -> dict[str, Any] | None:
    """A code whose status the kind's selector cannot have is refused; an unknown code is the schema's business."""
    selected = kind.http.status if kind.http is not None else None
    if kind.http is None or selected is None:
        return None
    elsewhere = sorted(code for code, status in params["statuses"].items() if not _status_matches(status, selected))
    return schema_at(params.get("code", "/code"), {"not": {"enum": elsewhere}}) if elsewhere else None


def _status_of_code(params: Params, message: Message) -> Message:
    """The status the gateway sends with the message's code (within the kind's selector: checked above)."""
    code = resolve(message.value, parse_pointer(params.get("code", "/code")), None)
    status = params["statuses"].get(code) if isinstance(code, str) else None
    if message.http is None or status is None or message.http.status == status:
        return message
    return replace(message, http=replace(message.http, status=status))


def _other_code(params: Params, message: Message) -> list[Edit]:
    at = params.get("code", "/code")
    code = resolve(message.value, parse_pointer(at), None)
    if message.http is None or not isinstance(code, str) or code not in params["statuses"]:
        return []
    others = [c for c, status in params["statuses"].items() if status != message.http.status]
    return [(replace(message, value=replaced(message.value, parse_pointer(at), other)), at,
             f"code {other} sent with HTTP {message.http.status}") for other in others[:2]]


@message_rule("XOPC_ERROR_CODE_STATUS",
              needs=Needs(schema=_codes_for_kind, repair=_status_of_code, breaks=_other_code))
def error_code_status(message: Message, params: Mapping[str, Any]) -> Iterable[Finding]:
    """params: code (pointer to the error code; default /code), statuses (code → HTTP status)."""
    if message.http is None or message.http.status is None:
        return
    at = params.get("code", "/code")
    code = resolve(message.value, parse_pointer(at), None)
    statuses = params["statuses"]
    if not isinstance(code, str) or code not in statuses or statuses[code] == message.http.status:
        return  # an unknown code is the schema's finding
    yield message.finding(
        "XOPC_ERROR_CODE_STATUS",
        f"error code {code} is sent with HTTP {message.http.status}; the gateway sends it with {statuses[code]}",
        pointer=at,
        expected=f"HTTP {statuses[code]}",
        found=f"HTTP {message.http.status}",
    )


def _client_header(params: Params, release: ContractRelease, kind: MessageKind) -> dict[str, Any]:
    # ECMA-262 \\S is neither WhiteSpace nor LineTerminator: what String#trim removes (js_trim)
    return {"type": "object", "required": [params["header"]],
            "properties": {params["header"]: {"type": "string", "pattern": "\\S"}}}


def _client_unnamed(params: Params, message: Message) -> list[Edit]:
    """The header dropped (and the body's fallback with it, where the kind reads one)."""
    if message.http is None or params["header"] not in message.http.headers:
        return []
    headers = {k: v for k, v in message.http.headers.items() if k != params["header"]}
    value = message.value
    if isinstance(resolve(value, parse_pointer(params["body"]), None), str):
        tokens = parse_pointer(params["body"])
        parent = resolve(value, tokens[:-1], None)
        value = replaced(value, tokens[:-1], {k: v for k, v in parent.items() if k != tokens[-1]})
    return [(replace(message, value=value, http=replace(message.http, headers=headers)), "",
             f"no {params['header']} header")]


@message_rule("XOPC_CLIENT_INSTANCE_ID", needs=Needs(headers=_client_header, breaks=_client_unnamed))
def client_instance_id(message: Message, params: Mapping[str, Any]) -> Iterable[Finding]:
    """params: header (name, lower case), body (pointer of the body fallback), header_only (kind ids without it)."""
    if message.http is None:
        return
    header = params["header"]
    if js_trim(message.http.headers.get(header, "")):
        return
    body_allowed = message.kind is None or message.kind.id not in params.get("header_only", ())
    if body_allowed:
        value = resolve(message.value, parse_pointer(params["body"]), None)
        if isinstance(value, str) and js_trim(value):
            return
    where = f"header {header}" + (f" or body {params['body']}" if body_allowed else "")
    yield message.finding(
        "XOPC_CLIENT_INSTANCE_ID",
        f"this side chat request does not name its client ({where})",
        expected=f"a non-blank {where}",
        found="none" if header not in message.http.headers else "a blank header",
    )
