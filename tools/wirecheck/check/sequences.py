"""Checks of a capture's messages as a sequence: requests and their answers, and the release's behaviour obligations
(behaviour.yaml, contracts/behaviour.py) over order, count, references between messages, the negotiated version and
what must follow what.

One mechanism: each obligation is a monitor of its form, fed every classified message of the kinds it speaks of in
capture order, keeping only what it must remember (a line, a value, a count per thing it follows, within bounds:
check/correlation.py's MAX_AWAITING) and reporting a breach where it shows. What can only be missing at the end (an
answer, a last message, a count not reached, a cancelled run that never ended) is judged on a whole capture: one a
recorder knows holds everything the program wrote (`whole`: a framed capture, one with the process's outcome, a HAR
the stub recorded). Correlation is the `answered` form's: the catalog pairs requests with answers (`answers`,
`correlate`), a `reply` schema checks each answer's payload, and a request still waiting at the end of a whole
capture was never answered — at the level its reader gives (behaviour.yaml), where the release says.
"""

from __future__ import annotations

import fnmatch
from array import array
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from wirecheck.check.correlation import MAX_AWAITING, Correlation, Request
from wirecheck.check.message import Message
from wirecheck.check.messages import MessageChecks
from wirecheck.contracts.behaviour import SEQUENCE_FORMS, Match, Obligation, Place
from wirecheck.contracts.model import PRESENT, ContractRelease, FieldConditions, MessageKind
from wirecheck.findings import Finding, Severity, short_repr
from wirecheck.pointer import MISSING, format_pointer, resolve

Emit = Callable[[Finding], None]

# The check id a breach of each form is reported under (rules/texts/behaviour.yaml); the obligation's own id rides
# on the finding (`Finding.obligation`), and its level sets the severity.
CODES = {"first": "ORDER", "last": "ORDER", "alternates": "ORDER", "count": "COUNT", "unique": "UNIQUE",
         "refers": "REFERENCE", "negotiated": "NEGOTIATED_VERSION", "leads_to": "LEADS_TO",
         "answered": "REQUEST_WITHOUT_RESPONSE"}


def breach(obligation: Obligation, text: str, *, message: Message | None = None, file: str = "",
           line: int | None = None, where: str | None = None, kind: str | None = None, pointer: str | None = None,
           expected: str | None = None, found: str | None = None, code: str | None = None) -> Finding:
    """A finding that breaks `obligation`, at a message or a place in the capture, at the obligation's level."""
    if message is not None:
        file, line, where = message.file, message.line, message.where
        kind = kind or (message.kind.id if message.kind else None)
    return Finding(code=code or CODES[obligation.form], severity=Severity(obligation.finding_severity),
                   message=f"{text} ({obligation.id}: {obligation.reader.consumer} {obligation.reader.reaction} "
                           f"this: {obligation.reader.cited})",
                   file=file, line=line, where=where, kind=kind, pointer=pointer, expected=expected, found=found,
                   sender=message.sender if message is not None else None, obligation=obligation.id)


def role_of(message: Message) -> str | None:
    """Who sent a message: its frame's `from`, else its kind's producer (None: a message of no kind, unframed)."""
    return message.sender or (message.kind.producer if message.kind is not None else None)


def _at(message: Message) -> str:
    return f"line {message.line}" if message.line is not None else f"{message.where or 'the capture'}"


_HASHABLE = frozenset((str, int, float, bool))


def _hashable(value: Any) -> bool:
    return type(value) in _HASHABLE or isinstance(value, str | int | float | bool)


def _id_key(value: Any) -> Any:
    """A request id as a dictionary key: JSON true is not the number 1 (nor false 0), as Python's True == 1 has it."""
    return ("bool", value) if isinstance(value, bool) else value


def _side(role: str | None) -> str | None:
    """Whose request ids: a role, or None where a kind names none (`any`)."""
    return None if role == "any" else role


class Bounded(OrderedDict):
    """A per-capture memory of things followed (keys, values seen): past MAX_AWAITING the oldest is forgotten, so
    memory does not grow with the capture's length. `forgotten` counts them (a finding that needed one is not made)."""

    def __init__(self) -> None:
        super().__init__()
        self.forgotten = 0

    def __setitem__(self, key: Any, value: Any) -> None:
        super().__setitem__(key, value)
        if len(self) > MAX_AWAITING:
            self.popitem(last=False)
            self.forgotten += 1


# -- keys: the things obligations follow across messages ------------------------------------------------------


def path_params(template: str, path: str) -> dict[str, str]:
    """The `{name}` segments of an HTTP path template in a path (percent-decoded, as the server reads them). The
    template is matched against the path's end: what comes before it is the base the kind's requests are under
    (`/agent` of `/agent/commands/{id}/renew`), as the classifier matches it."""
    names = template.strip("/").split("/")
    parts = path.split("?", 1)[0].strip("/").split("/")
    if len(names) > len(parts):
        return {}
    parts = parts[len(parts) - len(names):]
    return {name[1:-1]: unquote(part) for name, part in zip(names, parts, strict=True)
            if name.startswith("{") and name.endswith("}")}


class Identities:
    """What each message names (behaviour.yaml `keys`), and the ties between names: a message naming a command and
    its run ties them, so a later message naming only the command names the run too."""

    def __init__(self, keys: Mapping[str, Mapping[str, Place]]):
        self.by_kind: dict[str, list[tuple[str, Place]]] = {}
        for name, kinds in keys.items():
            for kind_id, place in kinds.items():
                self.by_kind.setdefault(kind_id, []).append((name, place))
        self.ties: Bounded = Bounded()  # (key name, value) → {key name: value} of the thing it names

    def names(self, message: Message) -> dict[str, Any]:
        kind = message.kind
        if kind is None or kind.id not in self.by_kind:
            return {}
        params = path_params(kind.http.path, message.http.path) if kind.http and message.http else None
        carried: dict[str, Any] = {}
        for name, place in self.by_kind[kind.id]:
            found = place.values(message.value, params)
            if found and _hashable(found[0]):
                carried[name] = _id_key(found[0])
        whole = dict(carried)
        for name, value in carried.items():
            tied = self.ties.get((name, value))
            if tied:
                whole = {**tied, **whole}
        if len(whole) > 1 or carried:
            for name, value in whole.items():
                self.ties[(name, value)] = whole
        return whole


# -- the monitors: one per form ---------------------------------------------------------------------------------


class Monitor:
    """Judges one obligation over one capture. `kinds`: the kind ids it is shown; `unknown`: it is shown messages
    of no kind too. `judged` counts what it judged (the requirement's exercise). `reply`: it is shown the first
    answer to a request (`on_reply`, from the correlation) instead of every message of the answer's kind;
    `replies_to`: the request kinds whose answers it reads (every kind, for a Negotiated reply: `answers_read`)."""

    unknown = False
    reply = False
    replies_to: frozenset[str] = frozenset()
    roles: set[str | None]  # the capture's senders so far (SequenceRun's)

    def __init__(self, obligation: Obligation, release: ContractRelease):
        self.obligation = obligation
        self.params = obligation.params
        self.per = self.params.get("per")
        self.judged = 0
        self.kinds: frozenset[str] = frozenset().union(*(m.kinds for m in self.params.values()
                                                         if isinstance(m, Match)))

    def key(self, names: dict[str, Any]) -> Any:
        """The thing a message is about, by the obligation's `per` (the capture itself without one)."""
        return None if self.per is None else names.get(self.per, MISSING)

    def on_message(self, message: Message, names: dict[str, Any], emit: Emit) -> None:
        raise NotImplementedError

    def on_reply(self, request: Request, message: Message, emit: Emit) -> None:
        return None

    def finish(self, whole: bool, file: str, emit: Emit) -> None:
        return None

    def spoke(self, roles: set[str | None]) -> bool:
        """Did the subject send anything in the capture (a contract of many roles, Navarch's, judges a capture of
        one of them: what another role owes is no absence in it)?"""
        return self.obligation.subject in roles


class _OnChannel(Monitor):
    """A monitor of every message on the channels its `messages` are sent on (what comes first, what comes last),
    messages of no kind among them."""
    unknown = True

    def __init__(self, obligation: Obligation, release: ContractRelease):
        super().__init__(obligation, release)
        self.matches: Match = self.params["messages"]
        channels = {release.kind(k).channel for k in self.matches.kinds}
        self.kinds = frozenset(k.id for k in release.kinds if k.channel in channels)


class First(_OnChannel):
    def __init__(self, obligation: Obligation, release: ContractRelease):
        super().__init__(obligation, release)
        self.done = False

    def on_message(self, message: Message, names: dict[str, Any], emit: Emit) -> None:
        role = role_of(message)
        if self.done or (role is not None and role != self.obligation.subject):
            return
        self.done = True
        self.judged += 1
        kind = message.kind.id if message.kind else None
        if not self.matches.matches(kind, message.value):
            emit(breach(self.obligation, f"the first message from {self.obligation.subject} is "
                                         f"{kind or 'of no kind'}, not {self.matches.text}", message=message,
                        expected=self.matches.text, found=kind or MessageChecks.shape(message)))


class Last(_OnChannel):
    def __init__(self, obligation: Obligation, release: ContractRelease):
        super().__init__(obligation, release)
        self.ended: tuple[int | None, str | None, str] | None = None  # where the last message came, and its kind
        self.after = 0  # messages after it, reported at the first
        self.last: Message | None = None
        self.file = ""

    def on_message(self, message: Message, names: dict[str, Any], emit: Emit) -> None:
        role = role_of(message)
        if role is not None and role != self.obligation.subject:
            return
        kind = message.kind.id if message.kind else None
        self.last, self.file = _located(message), message.file
        if self.ended is not None:
            self.after += 1
            if self.after == 1:
                self.judged += 1
                emit(breach(self.obligation, f"{kind or 'a message of no kind'} after the "
                                             f"{self.ended[2]} on {_line_text(self.ended)}: nothing from "
                                             f"{self.obligation.subject} may follow it", message=message,
                            expected=f"nothing after {self.matches.text}", found=kind or MessageChecks.shape(message)))
            return
        if self.matches.matches(kind, message.value):
            self.judged += 1
            self.ended = (message.line, message.where, kind or "")

    def finish(self, whole: bool, file: str, emit: Emit) -> None:
        if not whole or self.last is None or self.ended is not None:
            return
        self.judged += 1
        last = self.last
        emit(breach(self.obligation, f"the last message from {self.obligation.subject} is "
                                     f"{last.kind.id if last.kind else 'of no kind'}, not {self.matches.text}",
                    message=last, expected=self.matches.text, found=last.kind.id if last.kind else None))


class Count(Monitor):
    def __init__(self, obligation: Obligation, release: ContractRelease):
        super().__init__(obligation, release)
        self.matches: Match = self.params["messages"]
        self.exactly = self.params.get("exactly")
        self.most = self.params.get("at_most", self.exactly)
        self.least = self.params.get("at_least", self.exactly)
        self.for_each: Match | None = self.params.get("for_each")
        self.counts: Bounded = Bounded()  # thing → [count, where its first message is, where the thing began]
        self.file = ""

    def on_message(self, message: Message, names: dict[str, Any], emit: Emit) -> None:
        self.file = message.file
        key = self.key(names)
        if key is MISSING:
            return
        kind = message.kind.id if message.kind else None
        entry = self.counts.get(key)
        if self.for_each is not None and self.for_each.matches(kind, message.value) and entry is None:
            entry = self.counts[key] = [0, None, _located(message)]
        if not self.matches.matches(kind, message.value):
            return
        if entry is None:
            entry = self.counts[key] = [0, None, None]
        entry[0] += 1
        self.judged += 1
        if entry[1] is None:
            entry[1] = _located(message)
        if self.most is not None and entry[0] == self.most + 1:
            first = entry[1]
            emit(breach(self.obligation, f"{_nth(entry[0])} {self.matches.text}{_of(self.per, key)} (the first "
                                         f"on {_at(first)}): at most {self.most}", message=message,
                        expected=f"at most {self.most}", found=f"{entry[0]} or more"))

    def finish(self, whole: bool, file: str, emit: Emit) -> None:
        if not whole or self.least is None or (self.per is None and not self.spoke(self.roles)):
            return
        if self.per is None and not self.counts:
            self.counts[None] = [0, None, None]
        for key, (count, first, began) in self.counts.items():
            if count >= self.least:
                continue
            self.judged += 1
            text = (f"{'no' if count == 0 else f'only {count}'} {self.matches.text}{_of(self.per, key)} before "
                    f"the capture ends: at least {self.least}")
            emit(breach(self.obligation, text, message=began or first, file=self.file or file,
                        expected=f"at least {self.least}", found=str(count)))


class Alternates(Monitor):
    def __init__(self, obligation: Obligation, release: ContractRelease):
        super().__init__(obligation, release)
        self.open: Match = self.params["open"]
        self.close: Match = self.params["close"]
        self.state: Bounded = Bounded()  # thing → the open message not yet closed (None: closed)

    def on_message(self, message: Message, names: dict[str, Any], emit: Emit) -> None:
        key = self.key(names)
        if key is MISSING:
            return
        kind = message.kind.id if message.kind else None
        opened = self.state.get(key)
        if self.open.matches(kind, message.value):
            self.judged += 1
            if opened is not None:
                emit(breach(self.obligation, f"{kind}{_of(self.per, key)} while the one on {_at(opened)} is still "
                                             f"open: {self.close.text} comes first", message=message,
                            expected=self.close.text, found=kind))
            self.state[key] = _located(message)
        elif self.close.matches(kind, message.value):
            self.judged += 1
            if opened is None:
                emit(breach(self.obligation, f"{kind}{_of(self.per, key)} without an open {self.open.text} "
                                             "before it", message=message, expected=f"{self.open.text} first",
                            found=kind))
            self.state[key] = None

    def finish(self, whole: bool, file: str, emit: Emit) -> None:
        if not whole:
            return
        for key, opened in self.state.items():
            if opened is not None:
                self.judged += 1
                emit(breach(self.obligation, f"{opened.kind.id if opened.kind else 'the message'}{_of(self.per, key)}"
                                             f" is never followed by {self.close.text}", message=opened,
                            expected=self.close.text, found="end of capture"))


class Unique(Monitor):
    def __init__(self, obligation: Obligation, release: ContractRelease):
        super().__init__(obligation, release)
        self.matches: Match = self.params["messages"]
        self.place: Place = self.params["at"]
        self.seen: Bounded = Bounded()  # (thing, value) → where it was first sent

    def on_message(self, message: Message, names: dict[str, Any], emit: Emit) -> None:
        key = self.key(names)
        if key is MISSING or not self.matches.matches(message.kind.id if message.kind else None, message.value):
            return
        for value in _values(self.place, message):
            self.judged += 1
            earlier = self.seen.get((key, _id_key(value)))
            if earlier is not None:
                emit(breach(self.obligation, f"{self.place.text} {short_repr(value)}{_of(self.per, key)} was "
                                             f"already sent on {_at(earlier)}", message=message,
                            pointer=self.place.text if self.place.tokens and not self.place.each else None,
                            expected="a value not sent before", found=short_repr(value)))
            else:
                self.seen[(key, _id_key(value))] = _located(message)


class Refers(Monitor):
    def __init__(self, obligation: Obligation, release: ContractRelease):
        super().__init__(obligation, release)
        self.matches: Match = self.params["messages"]
        self.place: Place = self.params["at"]
        self.to: Match = self.params["to"]
        self.to_place: Place = self.params["to_at"]
        self.once = bool(self.params.get("once"))
        self.targets: Bounded = Bounded()  # (thing, value) → [where it was named, times referred to]

    def on_message(self, message: Message, names: dict[str, Any], emit: Emit) -> None:
        key = self.key(names)
        kind = message.kind.id if message.kind else None
        if self.to.matches(kind, message.value) and key is not MISSING:
            for value in _values(self.to_place, message):
                self.targets.setdefault((key, _id_key(value)), [_located(message), 0])
        if not self.matches.matches(kind, message.value):
            return
        for value in _values(self.place, message):
            self.judged += 1
            target = None if key is MISSING else self.targets.get((key, _id_key(value)))
            if target is None:
                if self.targets.forgotten:  # it may name one no longer remembered: not known to be wrong
                    continue
                emit(breach(self.obligation, f"{self.place.text} {short_repr(value)} names no {self.to.text} seen "
                                             f"before it{_of(self.per, key) if key is not MISSING else ''}",
                            message=message, expected=f"the {self.to_place.text} of an earlier {self.to.text}",
                            found=short_repr(value)))
                continue
            target[1] += 1
            if self.once and target[1] == 2:
                emit(breach(self.obligation, f"{self.place.text} {short_repr(value)} names the {self.to.text} on "
                                             f"{_at(target[0])} a second time", message=message,
                            expected="once", found="twice or more"))


class Negotiated(Monitor):
    def __init__(self, obligation: Obligation, release: ContractRelease):
        super().__init__(obligation, release)
        self.matches: Match = self.params["messages"]
        self.tokens: tuple[str, ...] = self.params["at"]
        self.allowed = tuple(self.params.get("equals") or (release.wire_version,))
        self.reply = bool(self.params.get("reply"))
        if self.reply:  # shown the answers to its requests (SequenceRun._correlate), not the requests
            self.kinds = frozenset()
            self.replies_to = frozenset(k.id for k in release.kinds)

    def on_message(self, message: Message, names: dict[str, Any], emit: Emit) -> None:
        if self.reply or not self.matches.matches(message.kind.id if message.kind else None, message.value):
            return
        self.judge(message, emit)

    def on_reply(self, request: Request, message: Message, emit: Emit) -> None:
        """The answer to a request of the release's (`reply: true`): judged when the request is one it names."""
        if self.reply and request.kind is not None and self.matches.matches(request.kind.id, None):
            self.judge(message, emit)

    def judge(self, message: Message, emit: Emit) -> None:
        found = resolve(message.value, self.tokens, MISSING)
        if found is MISSING:
            return  # absence is the schema's business
        self.judged += 1
        if found not in self.allowed:
            emit(breach(self.obligation, f"{format_pointer(self.tokens)} is {short_repr(found)}: the version "
                                         f"negotiated must be {' or '.join(map(short_repr, self.allowed))}",
                        message=message, pointer=format_pointer(self.tokens),
                        expected=" | ".join(self.allowed), found=short_repr(found)))


class LeadsTo(Monitor):
    def __init__(self, obligation: Obligation, release: ContractRelease):
        super().__init__(obligation, release)
        self.after: Match = self.params["after"]
        self.then: Match = self.params["then"]
        self.ends: Match = self.params["ends"]
        # `during`: an `after` message counts only while its thing is under way (a `during` message came, its
        # `ends` not yet): the things under way
        self.during: Match | None = self.params.get("during")
        self.under_way: Bounded = Bounded()
        self.armed: Bounded = Bounded()  # thing → the `after` message it follows
        self.file = ""
        # a thing under way from a request to its answer (ACP's prompt turn: session/prompt to the agent's response):
        # the monitor is shown the answer to each `during` request (on_reply), tied to the request's thing, not every
        # message of the answer's kind, so the answers to other requests stay the correlation's alone (settled by a
        # worker: check/parts.py) and an answer to another request that reuses an id ends nothing
        answers = {k.id for k in release.kinds if k.answers is not None and k.correlate is not None}
        if self.during is not None and self.ends.kinds and self.ends.kinds <= answers \
                and self.then.kinds <= answers:
            self.reply = True
            self.replies_to = frozenset(self.during.kinds)
            self.kinds = self.kinds - self.ends.kinds - self.then.kinds
            self.asked: Bounded = Bounded()  # (file, line) of a `during` request → its thing

    def on_message(self, message: Message, names: dict[str, Any], emit: Emit) -> None:
        key = self.key(names)
        if key is MISSING:
            return
        self.file = message.file
        kind = message.kind.id if message.kind else None
        if not self.reply:
            self._end(key, kind, message, emit)
        if self.during is not None and self.during.matches(kind, message.value):
            self.under_way[key] = True
            if self.reply:
                self.asked[(message.file, message.line)] = key
        if self.after.matches(kind, message.value) and key not in self.armed and (
                self.during is None or key in self.under_way):
            self.armed[key] = _located(message)

    def on_reply(self, request: Request, message: Message, emit: Emit) -> None:
        key = self.asked.pop((request.file, request.line), MISSING) if self.reply else MISSING
        if key is not MISSING:
            self.file = message.file
            self._end(key, message.kind.id if message.kind else None, message, emit)

    def _end(self, key: Any, kind: str | None, message: Message, emit: Emit) -> None:
        if not self.ends.matches(kind, message.value):
            return
        self.under_way.pop(key, None)
        since = self.armed.pop(key, None)
        if since is not None:
            self.judged += 1
            if not self.then.matches(kind, message.value):
                what = _of(self.per, key).strip().removeprefix("of ") or "the capture"
                emit(breach(self.obligation, f"{what} ends with {_value_text(message, self.ends)} after the "
                                             f"{_kind_text(since)} on {_at(since)}: it must end with "
                                             f"{self.then.text}",
                            message=message, expected=self.then.text, found=_value_text(message, self.ends)))

    def finish(self, whole: bool, file: str, emit: Emit) -> None:
        if not whole:
            return
        for key, since in self.armed.items():
            self.judged += 1
            emit(breach(self.obligation, f"{_of(self.per, key).strip().removeprefix('of ') or 'the capture'} never "
                                         f"ends after the "
                                         f"{_kind_text(since)} on {_at(since)}: it must "
                                         f"end with {self.then.text}", message=since, expected=self.then.text,
                        found="end of capture"))


MONITORS: dict[str, type[Monitor]] = {"first": First, "last": Last, "count": Count, "alternates": Alternates,
                                      "unique": Unique, "refers": Refers, "negotiated": Negotiated,
                                      "leads_to": LeadsTo}


def _located(message: Message) -> Message:
    """A message as a monitor keeps it: where it is and its kind, not its value."""
    return Message(value=None, file=message.file, line=message.line, where=message.where, sender=message.sender,
                   kind=message.kind)


def _kind_text(message: Message) -> str:
    return message.kind.id if message.kind is not None else "message"


def _values(place: Place, message: Message) -> list[Any]:
    kind = message.kind
    params = path_params(kind.http.path, message.http.path) if kind and kind.http and message.http else None
    return [v for v in place.values(message.value, params) if _hashable(v)]


def _value_text(message: Message, match: Match) -> str:
    kind = message.kind.id if message.kind else "a message"
    shown = [f"{format_pointer(t)}={short_repr(resolve(message.value, t, None))}" for t, _ in match.where]
    return kind + (f" ({', '.join(shown)})" if shown else "")


def _of(per: str | None, key: Any) -> str:
    if per is None:
        return ""
    shown = key[1] if isinstance(key, tuple) and key[:1] == ("bool",) else key
    return f" of {per} {short_repr(shown)}"


def _nth(count: int) -> str:
    return {2: "a second", 3: "a third"}.get(count, f"a {count}th")


def _line_text(where: tuple[int | None, str | None, str]) -> str:
    return f"line {where[0]}" if where[0] is not None else where[1] or "the capture"


# -- requests and answers ----------------------------------------------------------------------------------------


def jsonrpc_methods(release: ContractRelease) -> frozenset[str] | None:
    """The methods a JSON-RPC release defines: those its stream kinds select by `/method` beside `/jsonrpc`. None
    when no kind selects so (not a JSON-RPC release)."""
    methods: set[str] = set()
    jsonrpc = False
    for kind in release.kinds:
        if kind.channel != "stdio-ndjson":
            continue
        for alternative in kind.fields:
            tests = dict(alternative)
            method = tests.get(("method",))
            if ("jsonrpc",) in tests and method is not None and method is not PRESENT:
                jsonrpc = True
                methods.update(v for v in method if isinstance(v, str))
    return frozenset(methods) if jsonrpc else None


@dataclass(frozen=True)
class RequestFamily:
    """The requests some response kinds answer, as the release writes them (Qoder's control_request.*): the envelope
    every one of them shares (the selector conditions common to all), where each names what it asks for (the pointers
    its selectors tell them apart by) and the names the release defines there. A request in the envelope naming
    another member is a request the release lacks: its receiver's answer still correlates with it."""

    title: str  # how a request of the family is named in a finding: "control_request"
    envelope: FieldConditions
    names: tuple[tuple[str, ...], ...]
    known: frozenset[str]
    request_id: tuple[str, ...]
    answers: tuple[MessageKind, ...]

    def holds(self, value: dict[str, Any]) -> bool:
        for tokens, accepted in self.envelope:
            found = resolve(value, tokens, MISSING)
            if found is MISSING or isinstance(found, dict | list) or _id_key(found) not in map(_id_key, accepted):
                return False
        return resolve(value, self.request_id, None) is not None


def request_families(release: ContractRelease) -> tuple[RequestFamily, ...]:
    """The request families of a release's stream kinds: per response pattern (`answers:`) and request id pointer,
    the kinds it answers; a family needs an envelope (a condition every selector alternative of every member shares,
    so that an unknown member is still told apart from any other message) and names that tell its members apart."""
    groups: dict[tuple[str, tuple[str, ...]], list[MessageKind]] = {}
    for kind in release.kinds:
        if kind.answers is not None and kind.correlate is not None and kind.channel == "stdio-ndjson":
            groups.setdefault((kind.answers, kind.correlate[0]), []).append(kind)
    families = []
    for (pattern, request_id), answers in groups.items():
        members = [k for k in release.kinds if k.channel == "stdio-ndjson" and k.answers is None
                   and fnmatch.fnmatchcase(k.id, pattern) and k.fields]
        alternatives = [set(alternative) for k in members for alternative in k.fields]
        if not alternatives:
            continue
        envelope = set.intersection(*alternatives)
        names: list[tuple[str, ...]] = []
        known: set[str] = set()
        for alternative in alternatives:
            for tokens, accepted in sorted(alternative - envelope, key=lambda c: c[0]):
                if accepted is PRESENT or tokens in {t for t, _ in envelope}:
                    continue
                if tokens not in names:
                    names.append(tokens)
                known.update(v for v in accepted if isinstance(v, str))
        if not envelope or not names:
            continue
        title = "request" if len(envelope) != 1 else next(
            (f"{next(iter(values))}" for _, values in envelope if len(values) == 1 and values is not PRESENT),
            "request")
        families.append(RequestFamily(title, tuple(sorted(envelope, key=lambda c: c[0])), tuple(names),
                                      frozenset(known), request_id, tuple(answers)))
    return tuple(families)


class Sequences:
    """What a release's sequence checks need, built once per release: which requests which answers answer, the
    JSON-RPC methods and request families it defines, and its obligations' monitors (per capture: `start`)."""

    def __init__(self, release: ContractRelease, reply_problems: Callable[..., Iterable[Any]],
                 reply_finding: Callable[..., Finding]):
        self.release = release
        self.reply_problems, self.reply_finding = reply_problems, reply_finding
        self.answered_kinds = self._answered_kinds()
        self.correlated = frozenset(self.answered_kinds) | {k.id for k in release.kinds if k.correlate is not None}
        self.methods = jsonrpc_methods(release)  # None: the release is not JSON-RPC
        # requests of a family whose member the release lacks (Qoder's control_request subtypes): JSON-RPC's have
        # their own reading above
        self.families = request_families(release) if self.methods is None else ()
        self.obligations = tuple(o for o in release.obligations if o.form in SEQUENCE_FORMS)
        self.answered = tuple(o for o in self.obligations if o.form == "answered")
        self._answering: dict[tuple[str | None, str | None], Obligation | None] = {}  # (kind id, sender) → it
        monitored = [o for o in self.obligations if o.form != "answered"]
        monitors = [MONITORS[o.form](o, release) for o in monitored]
        self.watched = frozenset().union(*(m.kinds for m in monitors))
        # request kinds whose answers a monitor reads (Monitor.replies_to): a worker keeps those answers' values
        self.replies_read = frozenset().union(*(m.replies_to for m in monitors))

    def _answered_kinds(self) -> dict[str, MessageKind]:
        """request kind id → the response kind that answers it (by `answers`, a kind id or a glob)."""
        requests: dict[str, MessageKind] = {}
        for response in self.release.kinds:
            if response.answers is None or response.correlate is None:
                continue
            for kind in self.release.kinds:
                if kind is not response and fnmatch.fnmatchcase(kind.id, response.answers):
                    requests[kind.id] = response
        return requests

    def answered_by(self, request: Request) -> Obligation | None:
        """The `answered` obligation that covers a request (by its kind; a request of no kind by any that names no
        kinds), if the release states one."""
        sender = request.sender or (request.kind.producer if request.kind is not None else None)
        key = (request.kind.id if request.kind is not None else None, sender)
        if key not in self._answering:
            self._answering[key] = self._answered_by(request.kind, sender)
        return self._answering[key]

    def _answered_by(self, kind: MessageKind | None, sender: str | None) -> Obligation | None:
        for obligation in self.answered:
            kinds: Match | None = obligation.params.get("kinds")
            if kinds is not None and (kind is None or kind.id not in kinds.kinds):
                continue
            if "from" in obligation.params and sender != obligation.params["from"]:
                continue
            return obligation
        return None

    def start(self, capture: Any) -> SequenceRun:
        return SequenceRun(self, capture)


class SequenceRun:
    """One capture's sequence state: requests awaiting their answers, what messages named, every monitor."""

    def __init__(self, sequences: Sequences, capture: Any):
        self.sequences = sequences
        self.release = sequences.release
        self.capture = capture  # its form, once reading has begun: answers are owed where both directions are
        self.requests = Correlation()
        self.identities = Identities(self.release.obligation_keys)
        self.monitors = [MONITORS[o.form](o, self.release) for o in sequences.obligations if o.form != "answered"]
        self.by_kind: dict[str, list[Monitor]] = {}
        for monitor in self.monitors:
            for kind_id in monitor.kinds:
                self.by_kind.setdefault(kind_id, []).append(monitor)
        self.unknown = [m for m in self.monitors if m.unknown]
        self.roles: set[str | None] = set()  # who sent the capture's messages (an absence is owed by them alone)
        for monitor in self.monitors:
            monitor.roles = self.roles
        self.replies = [m for m in self.monitors if m.reply]
        # the shapes of a part's runs of settled pairs (SettledPairs.shapes, shared by its runs), and what each is
        # here: see settled_pairs
        self._shapes_of: list[tuple[str, str | None, str]] = []
        self._shapes: list[tuple[MessageKind, str | None, str | None, str | None, MessageKind] | None] = []
        self.judged: dict[str, int] = {o.id: 0 for o in sequences.obligations}
        self.file = ""

    @property
    def both_directions(self) -> bool:
        return self.capture.form == "framed"

    def on_message(self, message: Message, kind: MessageKind, emit: Emit, noted: Noted | None = None) -> None:
        """A classified message, in capture order (`noted`: what a worker settled of its correlation, PartAnswers)."""
        self.file = message.file
        self.roles.add(message.sender or kind.producer)  # role_of, inlined: once per message
        if kind.id in self.sequences.correlated:
            self._correlate(message, kind, emit, noted)
        monitors = self.by_kind.get(kind.id)
        if monitors:
            names = self.identities.names(message)
            # a request the platform never took (the stub's injected fault or refusal: capture/http.py) is no step
            # of what it was sent for (a refused terminal event ends no run, a retried one is no repeat); what it
            # names is still the sender's to answer for (`refers`)
            undelivered = message.http is not None and message.http.stub_answer is not None
            for monitor in monitors:
                if not undelivered or isinstance(monitor, Refers):
                    monitor.on_message(message, names, emit)

    def on_unknown(self, message: Message, emit: Emit) -> None:
        """A message of no kind (after its UNKNOWN_* finding): the monitors that follow every message see it."""
        self.file = message.file
        self.roles.add(role_of(message))
        for monitor in self.unknown:
            monitor.on_message(message, {}, emit)

    def finish(self, whole: bool, file: str, emit: Emit) -> None:
        whole = whole or self.both_directions
        file = self.file or file
        if self.both_directions:
            methods = self.sequences.methods
            for pending in self.requests.unanswered():
                method = "" if pending.method is None else (
                    f" (method {short_repr(pending.method)}, which {self.release.name} does not define: JSON-RPC asks "
                    "for an answer all the same, an error -32601 Method not found)") if methods is not None else (
                    f" ({short_repr(pending.method)}, which {self.release.name} does not define: its receiver owes "
                    "an answer all the same, an error response)")
                text = f"request {short_repr(pending.request_id)}{method} got no response"
                obligation = self.sequences.answered_by(pending)
                if obligation is None:
                    emit(pending.finding("REQUEST_WITHOUT_RESPONSE", text))
                else:
                    kind = pending.kind or pending.answer
                    emit(breach(obligation, text, file=pending.file, line=pending.line, where=pending.where,
                                kind=kind.id if kind is not None else None))
        note = self.requests.limit_note(file)
        if note is not None:
            emit(note)
        for monitor in self.monitors:
            monitor.finish(whole, file, emit)
            self.judged[monitor.obligation.id] += monitor.judged

    # -- correlation (the `answered` form) -------------------------------------------------------------------

    def remember(self, message: Message, request: Request, answer: MessageKind, emit: Emit,
                 requester: str | None) -> None:
        """A request awaits its answer, under its requester's ids: in JSON-RPC each side numbers its own requests,
        so a client's id 0 and an agent's id 0 are two requests (the answer is looked up under its reader's)."""
        assert answer.correlate is not None
        earlier = self.requests.request((_side(requester), _id_key(request.request_id)), request)
        answering = self.sequences.answered_by(request)
        if answering is not None:
            self.judged[answering.id] += 1
        # both directions in the capture: an id still waiting for its response cannot name a second request
        if earlier is not None and self.both_directions:
            emit(message.finding(
                "DUPLICATE_REQUEST_ID",
                f"request id {short_repr(request.request_id)} is still waiting for the response to the request at "
                f"{earlier.location}",
                pointer=format_pointer(answer.correlate[0]), found=short_repr(request.request_id)))

    def settled_request(self, kind: MessageKind, request_id: Any, file: str, line: int, sender: str | None,
                        emit: Emit) -> None:
        """A request a worker saw answered within its part (PartAnswers, check/parts.py), in its place: remembered
        as `_correlate` remembers it, with no message built unless its id is still awaiting an answer."""
        response_kind = self.sequences.answered_kinds[kind.id]
        request = Request(kind, request_id, file, line, None, sender)
        key = (_side(kind.producer), _id_key(request_id))
        if key in self.requests.awaiting:  # DUPLICATE_REQUEST_ID, located at the message (framed captures)
            self.remember(Message(value=None, file=file, line=line, sender=sender, kind=kind), request,
                          response_kind, emit, kind.producer)
            return
        self.requests.request(key, request)
        answering = self.sequences.answered_by(request)
        if answering is not None:
            self.judged[answering.id] += 1

    def settled_pairs(self, pairs: SettledPairs, kinds: Mapping[str, MessageKind], file: str, offset: int,
                      emit: Emit) -> None:
        """`settled_request` and `settled_answer` at once, for each request of a run answered by the very next
        message (lines moved by `offset`), in order: the request goes straight to those answered
        (Correlation.answered_at_once), counted by the `answered` obligation that covers it (looked up once per
        shape of a part's runs, not per pair), unless its id is still awaiting an answer or the bound on those
        awaiting is reached (remembering it would drop the oldest): then both steps are taken one by one."""
        requests, judged = self.requests, self.judged
        at_once = requests.answered_at_once
        if self._shapes_of is not pairs.shapes:  # the first run of another part
            self._shapes_of, self._shapes = pairs.shapes, []
        shapes = self._shapes
        if len(shapes) < len(pairs.shapes):
            shapes.extend([None] * (len(pairs.shapes) - len(shapes)))
        for line, code, request_id in zip(pairs.lines, pairs.codes, pairs.ids, strict=True):
            shape = shapes[code]
            if shape is None:
                kind_id, sender, answer_id = pairs.shapes[code]
                kind = kinds[kind_id]
                answering = self.sequences.answered_by(Request(kind, request_id, file, None, None, sender))
                shape = shapes[code] = (kind, sender, _side(kind.producer),
                                        answering.id if answering is not None else None, kinds[answer_id])
            kind, sender, side, answering_id, answer = shape
            request = Request(kind, request_id, file, line + offset, None, sender, 1)
            if not at_once((side, ("bool", request_id) if type(request_id) is bool else request_id), request):
                self.settled_request(kind, request_id, file, line + offset, sender, emit)
                self.settled_answer(answer, request_id)
            elif answering_id is not None:
                judged[answering_id] += 1

    def settled_answer(self, kind: MessageKind, request_id: Any) -> None:
        """The answer to a `settled_request` of the same part, in its place: the request it answers is the one
        awaiting under its id (nothing between them in the part touched that id, and fewer requests came between
        them than the bound that would drop it), answered for the first time, its reply checked by the worker."""
        assert kind.correlate is not None
        pending = self.requests.response((_side(kind.consumer), _id_key(request_id)))
        assert pending is not None and pending.answered == 1, "a settled answer's request was not awaiting it"

    def _correlate(self, message: Message, kind: MessageKind, emit: Emit, noted: Noted | None = None) -> None:
        response_kind = self.sequences.answered_kinds.get(kind.id)
        if response_kind is not None and response_kind.correlate is not None:
            request_id = noted[0] if noted is not None else resolve(message.value, response_kind.correlate[0], None)
            if request_id is not None and _hashable(request_id):
                self.remember(message, Request(kind, request_id, message.file, message.line, message.where,
                                               message.sender), response_kind, emit, kind.producer)
            return
        if kind.correlate is None:
            return
        request_id = noted[0] if noted is not None else resolve(message.value, kind.correlate[1], None)
        if request_id is None or not _hashable(request_id):
            return
        requests = self.requests
        pending = requests.response((_side(kind.consumer), _id_key(request_id)))
        if pending is None:
            if not self.both_directions:
                return
            if requests.dropped:  # it may answer a request no longer tracked: not known to be wrong
                requests.unmatched += 1
                return
            emit(message.finding("RESPONSE_WITHOUT_REQUEST", requests.no_request_text(short_repr(request_id)),
                                 pointer=format_pointer(kind.correlate[1]), found=short_repr(request_id)))
            return
        if pending.answered > 1 and not message.stream_event:  # a streamed answer's later events answer it too
            emit(message.finding("DUPLICATE_RESPONSE",
                                 f"request {short_repr(request_id)} already has a response",
                                 pointer=format_pointer(kind.correlate[1]), found=short_repr(request_id)))
            return
        for monitor in self.replies:
            monitor.on_reply(pending, message, emit)
        if pending.kind is None or pending.kind.reply is None:  # a method of no kind: no result type to check
            return
        if noted is not None and noted[1] is not None and noted[1][0] == pending.kind.id:
            for finding in noted[1][1]:  # checked by the worker that saw the request too
                emit(finding)
            return
        if message.value is None:  # a worker leaves the value out only of an answer whose reply it checked
            return
        reply = pending.kind.reply
        payload = resolve(message.value, reply.at, MISSING)
        if payload is not MISSING:
            for problem in self.sequences.reply_problems(reply.schema, payload, format_pointer(reply.at)):
                emit(self.sequences.reply_finding(message, problem, "REPLY_VIOLATION",
                                                  prefix_note=f"reply to {pending.kind.id}: "))

    # -- requests the release does not define -------------------------------------------------------------------

    def unknown_method(self, message: Message) -> str | None:
        """The method of an unclassified JSON-RPC request or notification that the release does not define (a
        JSON-RPC 2.0 object with a string `method`, jsonrpc.org/specification §4); None for anything else."""
        return unknown_method(self.sequences, message)

    def on_unknown_method(self, message: Message, method: str, reading: Any, emit: Emit) -> None:
        """One UNKNOWN_METHOD finding naming the method, at the severity its receiver's reader gives it
        (readers.yaml: reject → error, ignore → warning, extension → info); a request is remembered, so the
        peer's answer (an error -32601, as JSON-RPC asks) correlates with it."""
        value = message.value
        request = "id" in value
        what = f"{'request' if request else 'notification'} for method {short_repr(method)}, which " \
               f"{self.release.name} does not define"
        severity = None
        if reading is not None:
            if reading.extension:
                what += f"; the protocol reserves such methods for extensions ({reading.cited}): sending one is " \
                        "allowed"
                severity = Severity.INFO
            elif reading.reject:
                what += f"; {reading.consumer} rejects it ({reading.cited})"
                severity = Severity.ERROR
            else:
                what += f"; {reading.consumer} ignores it ({reading.cited})"
        emit(message.finding("UNKNOWN_METHOD", what, pointer="/method", found=method, severity=severity))
        answer = self._answer_kind(message.sender) if request else None
        if answer is None or answer.correlate is None:
            return
        request_id = resolve(value, answer.correlate[0], None)
        if request_id is not None and _hashable(request_id):
            self.remember(message, Request(None, request_id, message.file, message.line, message.where,
                                           message.sender, method=method, answer=answer), answer, emit,
                          answer.consumer)

    def unknown_request(self, message: Message) -> tuple[RequestFamily, str, tuple[str, ...]] | None:
        """An unclassified request of a family the release defines (its envelope and a request id) naming a member
        the release lacks: (family, the name it asks for, where it names it); None for anything else."""
        value = message.value
        if not self.sequences.families or message.http is not None or message.artifact is not None \
                or not isinstance(value, dict):
            return None
        for family in self.sequences.families:
            if not family.holds(value):
                continue
            for tokens in family.names:
                name = resolve(value, tokens, None)
                if isinstance(name, str) and name not in family.known:
                    return family, name, tokens
        return None

    def on_unknown_request(self, message: Message, family: RequestFamily, name: str, tokens: tuple[str, ...],
                           reading: Any, emit: Emit) -> None:
        """As a JSON-RPC method the release lacks: one UNKNOWN_METHOD finding naming what the request asks for, at
        its receiver's severity (readers.yaml), and the request is remembered, so the receiver's answer (Qoder's
        readers answer an unknown subtype with an error response) correlates with it instead of answering nothing."""
        where = format_pointer(tokens)
        what = f"{family.title} {short_repr(name)} (at {where}), which {self.release.name} does not define"
        severity = None
        if reading is not None:
            what += (f"; {reading.consumer} rejects it ({reading.cited})" if reading.reject
                     else f"; {reading.consumer} ignores it ({reading.cited})")
            severity = Severity.ERROR if reading.reject else None
        emit(message.finding("UNKNOWN_METHOD", what, pointer=where, found=name, severity=severity))
        answers = [k for k in family.answers if message.sender is None or k.consumer == message.sender]
        if len({(k.consumer, k.correlate) for k in answers}) != 1:  # nobody, or several sides, could answer it
            return
        answer = answers[0]
        request_id = resolve(message.value, family.request_id, None)
        if request_id is not None and _hashable(request_id):
            self.remember(message, Request(None, request_id, message.file, message.line, message.where,
                                           message.sender, method=name, answer=answer), answer, emit,
                          answer.consumer)

    def _answer_kind(self, sender: str | None) -> MessageKind | None:
        """The response kind that answers a request from `sender`: the one correlated response kind its consumer
        is `sender` (the one of the release, when the sender is not known)."""
        responses = [k for k in self.release.kinds if k.answers is not None and k.correlate is not None
                     and k.channel == "stdio-ndjson"]
        if sender is not None:
            responses = [k for k in responses if k.consumer == sender]
        return responses[0] if len(responses) == 1 else None


def read_paths(release: ContractRelease, obligations: Iterable[Obligation]) -> tuple[tuple[str, ...], ...]:
    """Every place in a message the obligations (their monitors; a process obligation's `when`, of the last
    message) and the release's keys read (`*`: each item of an array): their matches' conditions, their places, a
    negotiated version's pointer. A message projected to these (`Projection`) is judged by them as the whole message
    is."""
    paths: list[tuple[str, ...]] = []

    def place(at: Place) -> None:
        if at.each is not None:
            paths.append((*at.each, "*", *(at.tokens or ())))
            paths.extend((*at.each, "*", *tokens) for tokens, _ in at.each_where)
        elif at.tokens is not None:
            paths.append(tuple(at.tokens))

    for obligation in obligations:
        for value in obligation.params.values():
            if isinstance(value, Match):
                paths.extend(tuple(tokens) for tokens, _ in value.where)
            elif isinstance(value, Place):
                place(value)
            elif isinstance(value, tuple) and all(isinstance(token, str) for token in value):
                paths.append(value)
    for kinds in release.obligation_keys.values():
        for at in kinds.values():
            place(at)
    return tuple(dict.fromkeys(paths))


# A projection compiled (Projection): per key of an object, None to keep what it holds whole, else the projection of
# it; and whether an array is projected item by item (every path goes on with `*`), else kept whole.
_Tree = tuple[dict[str, "_Tree | None"], bool]


class Projection:
    """`value` with only what lies on `paths` (a leaf kept whole; an array met by a token that is not `*`, whole),
    the paths compiled once: a worker projects every message of a kind only the monitors read (check/parts.py), and
    grouping the paths again at every level of every message was a sixth of a worker's CPU on a stream of them."""

    __slots__ = ("_tree",)

    def __init__(self, paths: tuple[tuple[str, ...], ...]):
        self._tree = _tree(paths) if paths else None

    def __call__(self, value: Any) -> Any:
        if self._tree is None:
            return {} if isinstance(value, dict) else value
        return _project(value, self._tree)


def _tree(paths: tuple[tuple[str, ...], ...]) -> _Tree:
    heads: dict[str, list[tuple[str, ...]]] = {}
    for path in paths:
        if path:
            heads.setdefault(path[0], []).append(path[1:])
    keys = {key: None if any(not rest for rest in rests) else _tree(tuple(rests)) for key, rests in heads.items()}
    return keys, all(path and path[0] == "*" for path in paths)


def _project(value: Any, tree: _Tree) -> Any:
    keys, each = tree
    if isinstance(value, dict):
        out = {}
        for key, inner in keys.items():
            if key in value:
                out[key] = value[key] if inner is None else _project(value[key], inner)
        return out
    if isinstance(value, list) and each:
        inner = keys["*"]
        return value if inner is None else [_project(item, inner) for item in value]
    return value

# What a worker settled of a message's correlation (PartAnswers.note): the id it carries, and for an answer whose
# request it saw, (the request's kind id, the findings of the reply checked against that kind's reply schema).
Noted = tuple[Any, "tuple[str, tuple[Finding, ...]] | None"]


class SettledPairs:
    """Requests a worker saw answered by the very next message of its part, in a row (check/parts.py
    PartChecks._settle): each pair as `SequenceRun.settled_pairs` takes it, packed so that a run of thousands crosses
    between processes and reaches the capture's correlation as one item (`SequenceRun.settled_pairs`). Pair i: its
    request's line (within its part), `shapes[codes[i]]` (request kind id, sender, answer kind id; a part's runs
    share one list of them) and its request id `ids[i]`."""

    __slots__ = ("codes", "ids", "lines", "shapes")

    def __init__(self, shapes: list[tuple[str, str | None, str]]):
        self.shapes = shapes
        self.lines = array("q")
        self.codes = array("I")
        self.ids: list[Any] = []

    def add(self, line: int, code: int, request_id: Any) -> None:
        self.lines.append(line)
        self.codes.append(code)
        self.ids.append(request_id)

    def __len__(self) -> int:
        return len(self.ids)

    def __reduce__(self) -> tuple[Any, ...]:  # pickled as its four fields (no __dict__ to rebuild)
        return _settled_pairs, (self.shapes, self.lines, self.codes, self.ids)


def _settled_pairs(shapes: list[tuple[str, str | None, str]], lines: array[int], codes: array[int],
                   ids: list[Any]) -> SettledPairs:
    pairs = SettledPairs(shapes)
    pairs.lines, pairs.codes, pairs.ids = lines, codes, ids
    return pairs


class PartAnswers:
    """What a worker reading a later part of a capture (check/parallel.py) settles of its requests and answers
    without the parts before it: the id each carries, and an answer's reply, checked against the request it answers
    when that request came earlier in the same part (as the capture's SequenceRun will pair them: the latest request
    with that id). The capture's engine then correlates them in order without their values."""

    def __init__(self, sequences: Sequences):
        self.sequences = sequences
        # (requester, id) → the kind of the latest request in this part; past MAX_AWAITING the oldest is forgotten
        # (as Bounded forgets, without a Python call per request)
        self.asked: OrderedDict[Any, MessageKind] = OrderedDict()
        # a monitor that reads answers (`negotiated` with `reply`) needs their values
        self.answers_read = any(o.form == "negotiated" and o.params.get("reply") for o in sequences.obligations)
        # what the last `note` told the capture's correlation: (a request?, its key), None when it touches nothing
        self.event: tuple[bool, Any] | None = None
        self._ways: dict[str, tuple[bool | None, tuple[str, ...], str | None]] = {}  # kind id → `_way`
        self._replies: dict[str, str] = {}  # request kind id → where its reply is (a pointer, for its findings)

    def _way(self, kind: MessageKind) -> tuple[bool | None, tuple[str, ...], str | None]:
        """How a kind's messages are noted: (a request: True, an answer: False, where its id is, whose ids they
        are); (None, (), None) for a kind whose value the capture's engine needs (neither, or answers read)."""
        response_kind = self.sequences.answered_kinds.get(kind.id)
        if response_kind is not None and response_kind.correlate is not None:
            return True, response_kind.correlate[0], _side(kind.producer)
        if kind.correlate is None or self.answers_read:
            return None, (), None
        return False, kind.correlate[1], _side(kind.consumer)

    def note(self, value: Any, kind: MessageKind, located: Callable[[], Message]) -> Noted | None:
        """What the capture's engine needs of a request or an answer instead of its value; None when it needs the
        value (an answer whose request is not in this part, or is of no kind). `located()`: the message, for a
        finding on its reply."""
        self.event = None
        way = self._ways.get(kind.id)
        if way is None:
            way = self._ways[kind.id] = self._way(kind)
        asks, tokens, side = way
        if asks is None:
            return None
        request_id = resolve(value, tokens, None)
        if request_id is None or not _hashable(request_id):
            return request_id, None
        key = (side, ("bool", request_id) if type(request_id) is bool else request_id)  # _id_key
        asked = self.asked
        if asks:
            asked[key] = kind
            if len(asked) > MAX_AWAITING:
                asked.popitem(last=False)
            self.event = True, key
            return request_id, None
        self.event = False, key
        request = asked.pop(key, None)
        if request is None or request.id in self.sequences.replies_read:  # a monitor reads this answer: its value
            return None
        reply = request.reply
        payload = MISSING if reply is None else resolve(value, reply.at, MISSING)
        if reply is None or payload is MISSING:
            return request_id, (request.id, ())
        at = self._replies.get(request.id)
        if at is None:
            at = self._replies[request.id] = format_pointer(reply.at)
        sequences = self.sequences
        return request_id, (request.id, tuple(
            sequences.reply_finding(located(), problem, "REPLY_VIOLATION", prefix_note=f"reply to {request.id}: ")
            for problem in sequences.reply_problems(reply.schema, payload, at)))


def unknown_method(sequences: Sequences, message: Message) -> str | None:
    """The method of an unclassified JSON-RPC request or notification that the release does not define (a JSON-RPC
    2.0 object with a string `method`, jsonrpc.org/specification §4); None for anything else."""
    value = message.value
    if sequences.methods is None or message.http is not None or message.artifact is not None:
        return None
    if not isinstance(value, dict) or value.get("jsonrpc") != "2.0":
        return None
    method = value.get("method")
    return method if isinstance(method, str) and method not in sequences.methods else None

