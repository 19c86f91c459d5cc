"""classify_message: which message kind of a release a raw message is, from its selector alone.

Field selectors are indexed as a decision tree over the pointers kinds share (usually `/type`, then a subtype), so
classifying a stream message is a few dictionary lookups. HTTP selectors match method, path template (under a base URL
prefix) and status. The most specific match wins; ties between kinds of different producers are broken by the
message's sender when the capture says who sent it.
"""

from __future__ import annotations

import fnmatch
import re
from collections import Counter
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from wirecheck.capture.http import normalise_path
from wirecheck.check.message import Message
from wirecheck.contracts.model import ABSENT, PRESENT, ContractRelease, FieldConditions, MessageKind

_ABSENT = ABSENT  # what a pointer finds where there is no member: a selector's `absent:` asks for it
Candidate = tuple[int, MessageKind, FieldConditions]  # (specificity, kind, conditions still to test)
_SUFFIX_MATCH_PENALTY = 100  # larger than any selector's specificity


class _Bool:
    """JSON true and false as selector keys: Python's True == 1 == 1.0 would let `"isReplay": 1` select a kind
    that wants `true`. Selector values and looked-up values are both passed through _key."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


_TRUE, _FALSE = _Bool("true"), _Bool("false")


class _Ask:
    def __repr__(self) -> str:
        return "ASK"


# Stream routes (Classifier.stream_routes): the top of the decision tree as plain data, for a caller that walks it
# inline. A route is a kind id; or (key, {value: route}), a step on a top-level field; or ASK, where the tree needs
# more than that (nested pointers, further tests, JSON true/false, null) and stream_kind decides. A value missing
# from a step's dict has no kind.
ASK = _Ask()
Route = str | tuple[str, dict[Any, "Route"]] | _Ask


def _key(value: Any) -> Any:
    return _TRUE if value is True else _FALSE if value is False else value


def _keyed(conditions: FieldConditions) -> FieldConditions:
    return tuple((tokens, values if values is PRESENT else frozenset(map(_key, values)))
                 for tokens, values in conditions)


def _lookup(value: Any, tokens: tuple[str, ...]) -> Any:
    for token in tokens:
        if type(value) is dict:
            value = value.get(token, _ABSENT)
        elif type(value) is list and token.isdigit() and int(token) < len(value):
            value = value[int(token)]
        else:
            return _ABSENT
    return value


def _holds(value: Any, conditions: FieldConditions) -> bool:
    for tokens, accepted in conditions:
        found = _key(_lookup(value, tokens))
        try:
            if found not in accepted:  # ABSENT is accepted where a selector asks for it; PRESENT takes the rest
                return False
        except TypeError:  # an object or array where a scalar was expected
            return False
    return True


_OTHER = _Bool("other")  # a value no test at a pointer accepts (or one that cannot be looked up in a set)
_DECIDED_MAX = 4096  # combinations remembered per leaf (there are rarely more than a few dozen)


def _signature(value: Any, tested: tuple[tuple[tuple[str, ...], frozenset[Any] | None], ...]) -> tuple[Any, ...]:
    """What decides every test at a leaf: per pointer the leaf's conditions read, ABSENT, or (where they only ask
    for presence) PRESENT, or the value found when one of them accepts it, else _OTHER (which no condition there
    accepts: `found not in accepted` holds for each, or raises TypeError for an object or an array, which _holds
    takes as not accepted too)."""
    classes = []
    for tokens, values in tested:
        found = _lookup(value, tokens)
        if found is _ABSENT:
            classes.append(_ABSENT)
        elif values is None:
            classes.append(PRESENT)
        else:
            found = _key(found)
            try:
                classes.append(found if found in values else _OTHER)
            except TypeError:  # an object or array: no condition accepts it
                classes.append(_OTHER)
    return tuple(classes)


class _FieldIndex:
    """A decision tree over selector conditions: each node tests the pointer most of its candidates share.

    A message walks one path (usually `/type`, then `/subtype` or `/request/subtype`), so classifying costs a
    few dictionary lookups however many kinds a release has.
    """

    def __init__(self, candidates: list[Candidate]):
        self.done = [c for c in candidates if not c[2]]  # no conditions left: matched on the way here
        pending = [c for c in candidates if c[2]]
        self.pointer: tuple[str, ...] | None = None
        self.branches: dict[Any, _FieldIndex] = {}
        self.rest: list[Candidate] = []
        self.others: _FieldIndex | None = None
        # `present:` conditions hold no value to branch on: they are tested at the leaf (rest, checks)
        counts = Counter(tokens for c in pending for tokens, values in c[2] if values is not PRESENT)
        if not counts or counts.most_common(1)[0][1] < 2:  # no pointer two candidates share: test them in turn
            self.rest = pending
            self._finish_node()
            return
        self.pointer = counts.most_common(1)[0][0]
        groups: dict[Any, list[Candidate]] = {}
        for specificity, kind, conditions in pending:
            accepted = [values for tokens, values in conditions if tokens == self.pointer and values is not PRESENT]
            if not accepted:
                self.rest.append((specificity, kind, conditions))
                continue
            remaining = tuple(c for c in conditions if c[0] != self.pointer or c[1] is PRESENT)
            for value in accepted[0]:
                groups.setdefault(value, []).append((specificity, kind, remaining))
        self.branches = {value: _FieldIndex(group) for value, group in groups.items()}
        # Candidates without this pointer (e.g. requests discriminated by `type` instead of `subtype`) get a
        # tree of their own; each level removes a pointer, so this ends.
        self.others = _FieldIndex(self.rest) if len(self.rest) > 2 else None
        if self.others is not None:
            self.rest = []
        self._finish_node()

    def _finish_node(self) -> None:
        # a node that only routes (one pointer, no other candidates) is walked without building lists
        self.routes_only = self.pointer is not None and not self.done and not self.rest and self.others is None
        # a leaf whose candidates need no more tests: its kind when the sender is unknown, decided once
        self.resolved = pick_candidate(self.done, None) if self.pointer is None and not self.rest else None
        self.key = self.pointer[0] if self.pointer is not None and len(self.pointer) == 1 else None
        # a routing step on a top-level field, as one tuple: the hot loop in kind_of reads one attribute per level;
        # the flag says whether looked-up values need _key: when a branch is JSON true/false, or a number that
        # Python's True == 1 and False == 0 would let a boolean select
        booleans = any(isinstance(k, _Bool) or (type(k) in (int, float) and k in (0, 1)) for k in self.branches)
        self.step = (self.key, self.branches, booleans) if self.routes_only and self.key is not None else None
        self.single = self.done if len(self.done) == 1 and self.pointer is None and not self.rest else None
        # a leaf whose candidates still have tests (e.g. `user` and `user.replay`, told apart by /isReplay): what
        # it resolves to when no test holds, and when exactly one does, each decided once
        leaf = self.pointer is None and bool(self.rest)
        self.default = pick_candidate(self.done, None) if leaf else None
        self.checks = tuple((c[2], pick_candidate([*self.done, c], None)) for c in self.rest) if leaf else ()
        # A leaf's tests as classes of what each pointer they read finds (see _signature): which of its candidates
        # hold is a function of those classes, so it is decided once per combination, not per message. (JSON-RPC
        # answers: every response kind of a release, told apart by /id, /result, /error present and the sender,
        # half of the messages of request/reply traffic: issue 43.)
        self.tested: tuple[tuple[tuple[str, ...], frozenset[Any] | None], ...] = ()
        self.decided: dict[tuple[Any, ...], tuple[list[Candidate], MessageKind | None]] = {}
        if leaf:
            pointers: dict[tuple[str, ...], set[Any] | None] = {}
            for c in self.rest:
                for tokens, accepted in c[2]:
                    values = pointers.setdefault(tokens, None)
                    if accepted is not PRESENT:
                        pointers[tokens] = (values or set()) | set(accepted)
            self.tested = tuple((tokens, None if values is None else frozenset(values))
                                for tokens, values in pointers.items())

    def routes(self) -> Route:
        """This node as a stream route (see ASK)."""
        if self.resolved is not None:
            return self.resolved.id
        if self.step is None or self.step[2] or None in self.step[1] or _ABSENT in self.step[1]:
            return ASK  # _key needed, null would match absent, or a kind asks for a member to be absent
        return (self.step[0], {value: node.routes() for value, node in self.step[1].items()})

    @classmethod
    def of(cls, kinds: list[MessageKind]) -> _FieldIndex:
        return cls([(len(alt), kind, _keyed(alt)) for kind in kinds for alt in kind.fields])

    def kind_of(self, value: dict[str, Any]) -> MessageKind | None:
        """The kind of a message whose sender is unknown (a plain stream): the engine's fast path, so the common
        routing step (a top-level discriminator such as /type) is inlined rather than a call to _route."""
        node = self
        step = node.step
        while step is not None:
            found = value.get(step[0], _ABSENT)
            try:
                node = step[1].get(_key(found) if step[2] else found)  # type: ignore[assignment]
            except TypeError:  # an object or array where a discriminator value was expected
                return None
            if node is None:
                return None
            step = node.step
        if node.routes_only:
            node = node._route(value)  # type: ignore[assignment]
            if node is None:
                return None
        if node.resolved is not None:
            return node.resolved
        if node.checks:
            return node._leaf(value)[1]
        return pick_candidate(node.matches(value), None)

    def _leaf(self, value: Any) -> tuple[list[Candidate], MessageKind | None]:
        """At a leaf with tests: the candidates that hold (those matched on the way here first) and the kind when
        the sender is unknown, decided once per signature of the message (see _signature)."""
        signature = _signature(value, self.tested)
        decided = self.decided.get(signature)
        if decided is None:
            holding = [c for c in self.rest if _holds(value, c[2])]
            hit = None
            for conditions, kind in self.checks:
                if _holds(value, conditions):
                    if hit is not None:  # several hold: the general rule picks
                        hit = pick_candidate([*self.done, *holding], None)
                        break
                    hit = kind
            decided = [*self.done, *holding], hit if hit is not None else self.default
            if len(self.decided) < _DECIDED_MAX:
                self.decided[signature] = decided
        return decided

    def _route(self, value: Any) -> _FieldIndex | None:
        node = self
        while node.routes_only:
            key = node.key
            try:
                if key is not None and type(value) is dict:  # a top-level discriminator such as /type
                    node = node.branches.get(_key(value.get(key, _ABSENT)))  # type: ignore[assignment]
                else:
                    node = node.branches.get(_key(_lookup(value, node.pointer)))  # type: ignore[arg-type,assignment]
            except TypeError:  # an object or array where a discriminator value was expected
                return None
            if node is None:
                return None
        return node

    def walk(self, value: Any) -> list[Candidate]:
        """All matching candidates (for a caller that knows the sender and picks among them)."""
        node = self._route(value)
        if node is None:
            return []
        return node.single if node.single is not None else node.matches(value)

    def matches(self, value: Any, found: list[Candidate] | None = None) -> list[Candidate]:
        found = [] if found is None else found
        found += self.done
        if self.pointer is not None:
            key = _key(_lookup(value, self.pointer))
            try:
                branch = self.branches.get(key)
            except TypeError:  # an object or array where a discriminator value was expected
                branch = None
            if branch is not None:
                branch.matches(value, found)
            if self.others is not None:
                self.others.matches(value, found)
        if self.tested:  # a leaf with tests
            found += self._leaf(value)[0][len(self.done):]
            return found
        for candidate in self.rest:
            if _holds(value, candidate[2]):
                found.append(candidate)
        return found


def pick_candidate(candidates: list[Candidate], sender: str | None) -> MessageKind | None:
    if len(candidates) == 1:
        return candidates[0][1]
    if not candidates:
        return None
    best = max(c[0] for c in candidates)
    top = [c[1] for c in candidates if c[0] == best]
    if len(top) > 1 and sender is not None:
        top = [k for k in top if k.producer == sender] or top
    return top[0]


def _template_regex(template: str) -> str:
    parts = re.split(r"(\{[^}]*\})", template)
    return "".join("[^/]+" if p.startswith("{") else re.escape(p) for p in parts)


def _status_matches(pattern: str | None, status: int | None) -> bool:
    if pattern is None or status is None:
        return pattern is None and status is None
    if pattern.endswith("XX"):
        return str(status)[0] == pattern[0]
    return str(status) == pattern


class Classifier:
    """Built once per release; `classify(message, bases)` is the hot path."""

    def __init__(self, release: ContractRelease):
        self.release = release
        self._stream = _FieldIndex.of([k for k in release.kinds if k.channel == "stdio-ndjson"])
        self.stream_kind = self._stream.kind_of  # a plain stream message's kind
        self.stream_routes = self._stream.routes()  # its top as data: the engine's fast path walks it inline
        self._artifacts = {  # each kind with its selector alternatives keyed once (see _key), not per message
            channel: [(k, [_keyed(alt) for alt in k.fields]) for k in release.kinds if k.channel == channel]
            for channel in ("file", "argv", "env")
        }
        self._http = [
            (kind, re.compile(_template_regex(kind.http.path) + "/?"))
            for kind in release.kinds
            if kind.http is not None
        ]

    def stream_message_kind(self, value: Any, sender: str | None) -> MessageKind | None:
        """The kind of a stream message (a framed one's sender breaks a tie), as `classify` has it: the fast
        `stream_kind` when the kind it picks is the sender's (a tie broken by the sender keeps the first of the
        sender's, which that one is), else every candidate weighed with the sender."""
        kind = self.stream_kind(value)
        if kind is None or kind.producer == sender:
            return kind
        return pick_candidate(self._stream.walk(value), sender)

    def classify(self, message: Message, bases: Mapping[str, str] | None = None) -> MessageKind | None:
        if message.http is not None:
            return self._classify_http(message, bases or {})
        if message.artifact is not None:
            return self._classify_artifact(message)
        if type(message.value) is dict:  # the inlined walk of stream_kind first: what pick_candidate would pick
            return self.stream_message_kind(message.value, message.sender)
        return pick_candidate(self._stream.walk(message.value), message.sender)

    def _classify_http(self, message: Message, bases: Mapping[str, str]) -> MessageKind | None:
        http = message.http
        assert http is not None
        candidates: list[Candidate] = []
        for kind, regex in self._http:
            selector = kind.http
            assert selector is not None
            if selector.method != http.method or not _status_matches(selector.status, http.status):
                continue
            path = http.path
            if selector.base is not None:
                prefix = None if selector.base == "*" else bases.get(selector.base)
                if prefix is None:
                    # base unknown: the template may sit under any prefix. Such a suffix match ranks below every
                    # whole-path match, so `/api/side-chats/x/heartbeat` is not taken for a runtime `/heartbeat`.
                    if not re.fullmatch(r"(?:/.*)?" + regex.pattern, path):
                        continue
                    candidates.append((kind.specificity - _SUFFIX_MATCH_PENALTY, kind, ()))
                    continue
                if not path.startswith(prefix):
                    continue
                path = path[len(prefix):]
            if regex.fullmatch(path):
                candidates.append((kind.specificity, kind, ()))
        return pick_candidate(candidates, message.sender)

    def _classify_artifact(self, message: Message) -> MessageKind | None:
        artifact = message.artifact
        assert artifact is not None
        candidates: list[Candidate] = []
        for kind, alternatives in self._artifacts[artifact.channel]:
            if kind.path_glob is not None and not (
                artifact.path and fnmatch.fnmatch(artifact.path.replace("\\", "/"), kind.path_glob)
            ):
                continue
            if kind.program is not None and kind.program != artifact.program:
                continue
            if alternatives and not any(_holds(message.value, alt) for alt in alternatives):
                continue
            candidates.append((kind.specificity, kind, ()))
        return pick_candidate(candidates, message.sender)


def base_prefix(url: str) -> str:
    """The path prefix of a base URL, without a trailing slash: what is removed before templates match."""
    return normalise_path(urlsplit(url).path).rstrip("/")
