"""classify_message: which message kind of a release a raw message is, from its selector alone.

Field selectors are indexed by the pointer most kinds share (usually `/type`), so classifying a stream message is
one dictionary lookup plus a few equality tests. HTTP selectors match method, path template (under a base URL
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

from wirecheck.check.message import Message
from wirecheck.contracts.model import ContractRelease, FieldConditions, MessageKind

_ABSENT = object()
Candidate = tuple[int, MessageKind, FieldConditions]  # (specificity, kind, conditions still to test)
_SUFFIX_MATCH_PENALTY = 10  # larger than any selector's specificity


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
        found = _lookup(value, tokens)
        try:
            if found is _ABSENT or found not in accepted:
                return False
        except TypeError:  # an object or array where a scalar was expected
            return False
    return True


class _FieldIndex:
    def __init__(self, kinds: list[MessageKind]):
        alternatives = [(kind, alt) for kind in kinds for alt in kind.fields]
        counts = Counter(tokens for _, alt in alternatives for tokens, _ in alt)
        self.primary: tuple[str, ...] | None = counts.most_common(1)[0][0] if counts else None
        self.by_value: dict[Any, list[Candidate]] = {}
        self.others: list[Candidate] = []
        for kind, alt in alternatives:
            specificity = len(alt)
            primary = [values for tokens, values in alt if tokens == self.primary]
            if primary:
                rest = tuple(c for c in alt if c[0] != self.primary)
                for value in primary[0]:
                    self.by_value.setdefault(value, []).append((specificity, kind, rest))
            else:
                self.others.append((specificity, kind, alt))
        for bucket in self.by_value.values():
            bucket.sort(key=lambda c: -c[0])
        self.others.sort(key=lambda c: -c[0])

    def matches(self, value: Any) -> list[Candidate]:
        found: list[Candidate] = []
        if self.primary is not None:
            key = _lookup(value, self.primary)
            try:
                bucket = self.by_value.get(key, ())
            except TypeError:
                bucket = ()
            found = [c for c in bucket if _holds(value, c[2])]
        if self.others:
            found += [c for c in self.others if _holds(value, c[2])]
        return found


def _pick(candidates: list[Candidate], sender: str | None) -> MessageKind | None:
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
        self._stream = _FieldIndex([k for k in release.kinds if k.channel == "stdio-ndjson"])
        self._artifacts = {
            channel: [k for k in release.kinds if k.channel == channel] for channel in ("file", "argv", "env")
        }
        self._http = [
            (kind, re.compile(_template_regex(kind.http.path) + "/?"))
            for kind in release.kinds
            if kind.http is not None
        ]

    def classify(self, message: Message, bases: Mapping[str, str] | None = None) -> MessageKind | None:
        if message.http is not None:
            return self._classify_http(message, bases or {})
        if message.artifact is not None:
            return self._classify_artifact(message)
        return _pick(self._stream.matches(message.value), message.sender)

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
        return _pick(candidates, message.sender)

    def _classify_artifact(self, message: Message) -> MessageKind | None:
        artifact = message.artifact
        assert artifact is not None
        candidates: list[Candidate] = []
        for kind in self._artifacts[artifact.channel]:
            if kind.path_glob is not None and not (
                artifact.path and fnmatch.fnmatch(artifact.path.replace("\\", "/"), kind.path_glob)
            ):
                continue
            if kind.program is not None and kind.program != artifact.program:
                continue
            if kind.fields and not any(_holds(message.value, alt) for alt in kind.fields):
                continue
            candidates.append((kind.specificity, kind, ()))
        return _pick(candidates, message.sender)


def base_prefix(url: str) -> str:
    """The path prefix of a base URL, without a trailing slash: what is removed before templates match."""
    return urlsplit(url).path.rstrip("/")
