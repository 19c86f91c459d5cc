"""The conformance engine: captures in, findings (streamed) and a summary with coverage out.

Per message: classify → validate (strict/tolerant) → correlate with its request → protocol rules → consumers'
contracts. Nothing is kept per message, so memory is flat in the capture's length; state is per open request,
per rule and per kind (coverage counters).
"""

from __future__ import annotations

import contextlib
import fnmatch
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from wirecheck.capture import DEFAULT_MAX_LINE_BYTES, CaptureFile, CaptureUnreadable, read_capture
from wirecheck.capture.ndjson import capture_finding, not_an_object
from wirecheck.check.classify import Classifier, base_prefix
from wirecheck.check.correlation import Correlation, Request
from wirecheck.check.labels import Label, as_found, matches
from wirecheck.check.message import Message
from wirecheck.check.readers import Tolerated, judge_non_json_line, rejects_member, unknown_kind_reading
from wirecheck.check.result import (
    MAX_LISTED,
    CaptureListing,
    CaptureSummary,
    CheckResult,
    GroupKey,
    KindCoverage,
    Omission,
    empty_result,
    group_of,
)
from wirecheck.check.unrecognised import (
    Unrecognised,
    bundled_releases,
    likely_releases,
    looks_like,
    nothing_recognised,
    read_as,
    whole_document_kinds,
)
from wirecheck.check.validate import Problem, Validators
from wirecheck.contracts.model import PRESENT, ContractRelease, FieldConditions, MessageKind, RuleUse
from wirecheck.findings import Finding, Severity, blocking, short_repr
from wirecheck.pointer import MISSING, format_pointer, resolve
from wirecheck.rules.catalogue import level_of
from wirecheck.rules.registry import MESSAGE, Rule, SettlingRule, instantiate, scope_of

# the result types live in check/result.py (they merge); importers of the engine find them here too
__all__ = ["MAX_LISTED", "CaptureSummary", "CheckOptions", "CheckResult", "Engine", "KindCoverage", "Reading",
           "Source", "check_captures"]

# The fast path's view of a kind: its strict validator, the rules that observe it without a Message, the kind.
_FastEntry = tuple[Callable[[Any], bool], tuple[Any, ...], MessageKind]



@dataclass(frozen=True)
class Reading:
    """What a capture source feeds while the engine reads one capture: the fast path (as read_capture's `fast`),
    and the capture's ordered state a source reading parts elsewhere may consult (check/parallel.py)."""

    accept: Callable[[Any, int], bool]  # the fast path: True when it took the value (see Engine._acceptor)
    seen: dict[str, int]  # messages the fast path took, per kind: a source adds those it took itself
    unsettled: Callable[[], set[str]]  # kinds that a rule which has not settled yet still watches
    observe: Callable[[str, int], None]  # (kind id, line): show the fast path's observers a message taken elsewhere


# How a capture is read: what read_capture(raw_stream=True, fast=reading.accept) yields, in capture order.
Source = Callable[[CaptureFile, Reading], Iterator[Any]]


@dataclass(frozen=True)
class CheckOptions:
    base_urls: Mapping[str, str] = field(default_factory=dict)  # base name → URL (or path prefix)
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    fail_on: Severity = Severity.ERROR
    min_coverage: float | None = None  # --min-coverage, a fraction in [0, 1]


class _CaptureRun:
    """State for one capture file: open requests, rule instances, announced bases."""

    def __init__(self, engine: Engine, capture: CaptureFile):
        self.engine = engine
        self.capture = capture
        self.requests = Correlation()
        self.bases = {name: base_prefix(url) for name, url in engine.options.base_urls.items()}
        self.unrecognised = Unrecognised()  # what its unclassified messages looked like
        self.unknown_bodies = 0  # messages whose body the record left out (told once, at the end)
        self.rules: list[Rule] = []
        self.rules_by_kind: dict[str, list[Rule]] = {kind.id: [] for kind in engine.release.kinds}
        self.alone: set[int] = set()  # id() of the rules that judge each message alone (scope MESSAGE): no state
        for use in engine.release.rules:
            rule = engine.rule(use)
            self.rules.append(rule)
            if scope_of(use.id) == MESSAGE:
                self.alone.add(id(rule))
            # the catalog's `kinds:` narrows a rule; else the rule may say which kinds it watches; else all
            for kind_id in use.kinds or getattr(rule, "watches", None) or self.rules_by_kind:
                if kind_id in self.rules_by_kind:
                    self.rules_by_kind[kind_id].append(rule)

    def unsettled_kinds(self) -> set[str]:
        """Kinds that a rule which has not yet seen all it needs still watches."""
        return {kind_id for kind_id, rules in self.rules_by_kind.items()
                if any(getattr(rule, "settled", True) is False for rule in rules)}

    def drop_settled_rules(self) -> None:
        """Stop showing messages to rules that need no more (their finish() still runs)."""
        for kind_id, rules in self.rules_by_kind.items():
            self.rules_by_kind[kind_id] = [rule for rule in rules if not getattr(rule, "settled", False)]


class Engine:
    def __init__(
        self,
        release: ContractRelease,
        options: CheckOptions | None = None,
        load_release: Callable[[str], ContractRelease] | None = None,
    ):
        self.release = release
        self.options = options or CheckOptions()
        self.classifier = Classifier(release)
        self.validators = Validators(release)
        self._load_release = load_release
        self.answered_kinds = self._answered_kinds()
        self._correlated = frozenset(self.answered_kinds) | {k.id for k in release.kinds if k.correlate is not None}
        self.methods = jsonrpc_methods(release)  # None: the release is not JSON-RPC
        # requests of a family whose member the release lacks (Qoder's control_request subtypes): JSON-RPC's have
        # their own reading above
        self.families = request_families(release) if self.methods is None else ()
        self._has_consumers = frozenset(c.kind for c in release.consumers)
        self._consumers: dict[str, list[tuple[str, MessageKind, Validators]]] = {}
        self._consumer_validator_sets: dict[str, Validators] = {}
        self._base_kinds = {base.kind: base for base in release.bases.values()}
        self._other_releases: list[ContractRelease] | None = None  # loaded when a capture recognises nothing
        self._alone: dict[str, list[Rule]] = {}  # kind id → its single-message rules (judge_alone)

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

    def run(self, captures: Iterable[CaptureFile], on_finding: Callable[[Finding], None] | None = None,
            first_index: int = 0, source: Source | None = None) -> CheckResult:
        """Check captures in order; `first_index` is the first one's place in a larger run (see result.merge).
        `source` reads a capture in place of `read_capture` (check/parallel.py: parts read by other processes)."""
        result = empty_result(self.release, self.options.fail_on, self.options.min_coverage)
        listed: dict[GroupKey, int] = {}  # the run's (check, kind, severity) → found so far
        capture_summary: list[CaptureSummary] = []  # the capture being read

        def emit(finding: Finding) -> None:
            key = group_of(finding)
            count = listed[key] = listed.get(key, 0) + 1
            summary = capture_summary[0]
            if count <= MAX_LISTED:
                summary.findings.append(finding)
            else:
                earlier = result.omitted.get(key)
                result.omitted[key] = (Omission(summary.index, summary.file, 1) if earlier is None
                                       else replace(earlier, count=earlier.count + 1))
            if finding.kind is not None and finding.kind in result.coverage:
                cov = result.coverage[finding.kind]
                if finding.severity is Severity.ERROR:
                    cov.errors += 1
                elif finding.severity is Severity.WARNING:
                    cov.warnings += 1
            if on_finding is not None:
                on_finding(finding)

        shown = CaptureListing()
        for index, capture in enumerate(captures, first_index):
            summary = CaptureSummary(capture.label, None, index=index)
            capture_summary[:] = [summary]
            try:
                self._run_capture(capture, summary, result, emit, source or self._read)
            except CaptureUnreadable as exc:  # named in the result; the run goes on with the next capture
                summary.unreadable = exc.reason
                result.unreadable_count += 1
            result.capture_count += 1
            if shown.keeps(summary):
                result.captures.append(summary)
        return result

    def _read(self, capture: CaptureFile, reading: Reading) -> Iterator[Any]:
        return read_capture(capture, self.options.max_line_bytes, raw_stream=True, fast=reading.accept)

    def _run_capture(self, capture: CaptureFile, summary: CaptureSummary, result: CheckResult,
                     emit: Callable[[Finding], None], source: Source) -> None:
        emitted = _Counting(emit)
        emit = emitted
        run = _CaptureRun(self, capture)
        forced = capture.as_kind  # `--as KIND`: every message is of this kind
        if forced is None and capture.path != "-":  # a file a program wrote, named as a file kind's pattern says
            capture.bare_file = any(k.channel == "file" and k.path_glob and fnmatch.fnmatch(
                capture.path.replace("\\", "/"), k.path_glob) for k in self.release.kinds)
        # Fast path: a plain stream message of a kind that needs nothing but its schema, and is strictly valid, is
        # counted in the line loop itself, without building a Message. Everything else comes back here.
        fast = self._fast_validators(run) if forced is None else {}
        seen: dict[str, int] = {k.id: 0 for k in self.release.kinds}
        settling: list[SettlingRule] = [r for r in run.rules if getattr(r, "settled", True) is False]  # type: ignore[misc]
        last: list[Any] = [None, None]  # the fast path's last refusal: (value, its kind), not to classify it twice
        accept = self._acceptor(fast, seen, last, capture.label)

        def observe(kind_id: str, line: int) -> None:
            _, rules, kind = fast[kind_id]  # a kind taken elsewhere is on this fast path (stateless_acceptor)
            for rule in rules:
                rule.observe(kind, None, capture.label, line)

        reading = Reading(accept if forced is None else _refuse, seen, run.unsettled_kinds, observe)
        for item in (source if forced is None else self._read)(capture, reading):
            known = forced
            if type(item) is tuple:
                line_no, value = item
                if type(value) is not dict:
                    emit(not_an_object(value, capture.label, line_no))
                    continue
                if last[0] is value:
                    known = last[1]
                item = Message(value=value, file=capture.label, line=line_no)
            if isinstance(item, Finding):
                emit(judge_non_json_line(self.release, item) if self.release.non_json_lines else item)
                continue
            summary.messages += 1
            result.messages += 1
            if item.corpus is not None:
                kind = self.check_corpus_entry(item, emit)
            else:
                kind = self.check_message(item, run, emit, known)
            if kind is None:
                result.unclassified += 1
            else:
                result.coverage[kind.id].seen += 1
                if item.http is not None and item.http.body_unknown:
                    result.coverage[kind.id].unjudged += 1
            if settling and any(rule.settled for rule in settling):  # no more messages needed: widen the fast path
                settling = [rule for rule in settling if not rule.settled]
                run.drop_settled_rules()
                fast.clear()
                fast.update(self._fast_validators(run))
        for kind_id, count in seen.items():
            result.coverage[kind_id].seen += count
            summary.messages += count
            result.messages += count
        summary.form = capture.form
        if summary.messages == 0 and not emitted.count:  # e.g. a HAR with no entries
            emit(capture_finding("EMPTY_CAPTURE", "the capture holds no messages", capture.label))
        elif summary.messages and run.unrecognised.count == summary.messages:
            emit(self._nothing_recognised(run.unrecognised, capture.label))
        self._finish(run, emit)

    def _nothing_recognised(self, unrecognised: Unrecognised, file: str) -> Finding:
        if self._other_releases is None:
            self._other_releases = bundled_releases(self.release)()
        files: list = []
        if unrecognised.count == 1:  # one document: a file kind's, saved under another name?
            files = whole_document_kinds(unrecognised.first, [self.release]) or whole_document_kinds(
                unrecognised.first, [r for r in self._other_releases if r.name != self.release.name])
        matches = [] if files else likely_releases(unrecognised.samples.values(), self._other_releases,
                                                   self.release.name)
        return Finding(
            code="NOTHING_RECOGNISED", severity=level_of("NOTHING_RECOGNISED"), file=file,
            message=f"{nothing_recognised(unrecognised.count, self.release.name)}; "
                    + (read_as(files, self.release.name) if files else looks_like(matches, unrecognised.count)),
            found=unrecognised.describe())

    def _acceptor(
        self, fast: dict[str, _FastEntry], seen: dict[str, int], last: list[Any], file: str
    ) -> Callable[[Any, int], bool]:
        """The fast path, called from the line loop: True when the message is of a fast kind and strictly valid
        (its kind's observing rules have then seen it). A refused message's kind is left in `last`."""
        kind_of, routes = self.classifier.stream_kind, self.classifier.stream_routes

        def accept(value: Any, line: int) -> bool:
            route: Any = routes  # the classifier's stream routes (see classify.ASK), walked here: two calls fewer
            try:
                while type(route) is tuple:
                    route = route[1].get(value.get(route[0]))
            except (AttributeError, TypeError):  # not an object; an object or array as a discriminator
                return False
            entry = fast.get(route)
            if entry is None:  # ASK, no kind, or a kind off the fast path
                kind = kind_of(value)
                if kind is None:
                    return False
                route = kind.id
                entry = fast.get(route)
                if entry is None:
                    last[0], last[1] = value, kind
                    return False
            if entry[0](value):
                seen[route] += 1
                if entry[1]:
                    for rule in entry[1]:
                        rule.observe(entry[2], value, file, line)
                return True
            last[0], last[1] = value, entry[2]
            return False

        return accept

    def stateless_acceptor(self, capture: CaptureFile, seen: dict[str, int],
                           record: Callable[[str, int], None]) -> Callable[[Any, int], bool]:
        """The fast path narrowed to what a process checking a later part of a capture may take without the
        capture's ordered state (check/parallel.py), once the rules that settle (see rules/registry.py) have
        settled: kinds whose rules judge a message alone, and kinds whose other rules observe without reading the
        value; for those it calls `record(kind id, line)` for the capture's own engine to replay (Reading.observe).
        It counts what it takes in `seen`. Whoever uses its counts checks that the rules watching those kinds have
        settled by then (Reading.unsettled)."""
        run = _CaptureRun(self, capture)
        for rule in run.rules:
            if getattr(rule, "settled", True) is False:
                rule.settled = True  # type: ignore[attr-defined]  # a fresh instance, used for nothing else
        run.drop_settled_rules()
        fast = {}
        for kind_id, (is_valid, rules, kind) in self._fast_validators(run).items():
            if not rules:
                fast[kind_id] = (is_valid, rules, kind)
            elif all(getattr(rule, "observes_values", True) is False for rule in rules):
                fast[kind_id] = (is_valid, (_Recorder(record),), kind)
        return self._acceptor(fast, seen, [None, None], capture.label)

    def _fast_validators(self, run: _CaptureRun) -> dict[str, _FastEntry]:
        """kind id → (`holds`, observing rules, kind), for stream kinds whose check in this capture run is their
        schema and rules that judge a message alone, apart from rules that only observe (see rules/registry.py).
        `holds(value)`: strictly valid, and no such rule finds anything in it (else the message takes the full
        path, which reports what they find)."""
        fast: dict[str, _FastEntry] = {}
        for kind in self.release.kinds:
            if not (kind.channel == "stdio-ndjson" and kind.schema is not None and kind.body == "json"
                    and kind.argv_grammar is None and kind.headers is None and kind.id not in self._correlated
                    and kind.id not in self._has_consumers and kind.id not in self._base_kinds):
                continue
            rules = run.rules_by_kind[kind.id]
            alone = tuple(rule for rule in rules if id(rule) in run.alone)
            observers = tuple(rule for rule in rules if id(rule) not in run.alone)
            if all(hasattr(rule, "observe") for rule in observers):
                is_valid = self.validators.pair(kind.schema).strict.is_valid
                fast[kind.id] = (_holding(is_valid, alone, kind, run.capture.label) if alone else is_valid,
                                 observers, kind)
        return fast

    # -- per message ---------------------------------------------------------------------------------

    def check_message(
        self, message: Message, run: _CaptureRun, emit: Callable[[Finding], None], kind: MessageKind | None = None
    ) -> MessageKind | None:
        """Check one message; `kind` when the caller has already classified it."""
        if message.sender is not None and message.sender not in self.release.roles:
            emit(message.finding("CAPTURE_FORMAT", f"frame sender {message.sender!r} is not a role of "
                                 f"{self.release.name} ({', '.join(self.release.roles)})",
                                 expected=" | ".join(self.release.roles), found=message.sender))
        if kind is None:
            kind = self.classifier.classify(message, run.bases)
        if kind is None:
            if message.http is not None:  # no kind says its body may be anything
                for read_problem in message.http.body_problems:
                    emit(read_problem)
            run.unrecognised.add(message)
            reading = unknown_kind_reading(self.release, message)
            method = self._unknown_method(message)
            if method is not None:
                self._on_unknown_method(message, method, reading, run, emit)
                return None
            asked = self._unknown_request(message)
            if asked is not None:
                self._on_unknown_request(message, *asked, reading, run, emit)
                return None
            text = self._unknown_text(message)
            severity = None
            if reading is not None and reading.extension:
                text += f"; the protocol reserves such messages for extensions ({reading.cited}): allowed"
                severity = Severity.INFO
            elif reading is not None:
                text += (f"; {reading.consumer} rejects messages it has no kind for ({reading.cited})" if reading.reject
                         else f"; {reading.consumer} ignores messages it has no kind for ({reading.cited})")
                severity = Severity.ERROR if reading.reject else None
            emit(message.finding("UNKNOWN_MESSAGE_KIND", text, found=self._shape(message), severity=severity))
            return None
        message.kind = kind
        if message.http is not None and message.http.body_unknown:  # left out of the record: judged by nobody
            run.unknown_bodies += 1
            return kind
        self._check_content(message, kind, emit)
        if kind.id in self._base_kinds and isinstance(message.value, dict):
            base = self._base_kinds[kind.id]
            url = resolve(message.value, base.pointer, None)
            if isinstance(url, str) and base.name not in self.options.base_urls:
                # a URL nothing can parse announces no base (its schema's `format: uri` reports it)
                with contextlib.suppress(ValueError):
                    run.bases[base.name] = base_prefix(url)
        if kind.id in self._correlated:
            self._correlate(message, kind, run, emit)
        for rule in run.rules_by_kind[kind.id]:
            for finding in rule.on_message(message):
                emit(finding)
        if kind.id in self._has_consumers:
            self._check_consumers(message, kind, emit)
        return kind

    def check_corpus_entry(self, message: Message, emit: Callable[[Finding], None]) -> MessageKind | None:
        """A `wirecheck fuzz` corpus entry, checked alone as its kind: its schema (both views) and the release's
        single-message rules. Only an entry not judged as it expects is reported (CORPUS_MISMATCH): an `accept`
        entry that does not conform, and a `reject` entry (a mutant) that conforms, that carries no readable label,
        or that is refused for anything but its label (check/labels.py), each followed by the findings that are
        not what the entry expects."""
        entry = message.corpus
        assert entry is not None
        kind = next((k for k in self.release.kinds if k.id == entry.kind), None)
        if kind is None:
            emit(message.finding("CORPUS_MISMATCH", f"the entry's kind {entry.kind!r} is not a kind of "
                                 f"{self.release.name}", found=entry.kind))
            return None
        message.kind = kind
        found = self.judge_alone(message, decoded=kind.argv_grammar is not None)  # a corpus holds decoded argv
        refused = blocking(found)
        if entry.expect == "accept":
            if refused:
                emit(message.finding("CORPUS_MISMATCH", f"a valid {kind.id} (expect: accept) does not conform: "
                                     f"{len(refused)} finding(s) follow", expected="accept", found="refused"))
                for finding in refused:
                    emit(finding)
            return kind
        label = Label.of(entry.breaks)
        said = f" (expect: reject, breaks {label})" if label is not None else " (expect: reject)"
        if not refused:
            emit(message.finding("CORPUS_MISMATCH", f"a mutant of {kind.id}{said} conforms",
                                 pointer=label.pointer if label is not None else None,
                                 expected="reject", found="conforms"))
        elif label is None:
            emit(message.finding("CORPUS_MISMATCH", f"a mutant of {kind.id} (expect: reject) carries no label "
                                 "{keyword, pointer} in `breaks`: whether it is refused for it cannot be checked",
                                 expected='"breaks": {"keyword", "pointer", "description"}',
                                 found=short_repr(entry.breaks)))
        elif others := [f for f in refused if not matches(f, label)]:
            why = ("not for its label" if len(others) == len(refused)
                   else f"for its label and for {len(others)} other finding(s)")
            emit(message.finding("CORPUS_MISMATCH", f"a mutant of {kind.id}{said} is refused {why}: "
                                 f"{len(others)} finding(s) follow", pointer=label.pointer,
                                 expected=f"refused for {label} alone",
                                 found="; ".join(as_found(f) for f in refused)))
            for finding in others:
                emit(finding)
        return kind

    def rule(self, use: RuleUse) -> Rule:
        """The rule a catalog entry uses, as the release's readers take its breach (readers.yaml `rules`)."""
        rule = instantiate(use, self.release)
        tolerated = self.release.tolerated.get(use.id)
        return rule if tolerated is None else Tolerated(rule, tolerated)

    def judge_alone(self, message: Message, *, decoded: bool = False) -> list[Finding]:
        """What one message of a known kind (`message.kind`) gets on its own: its body against its schema, its
        headers, the single-message rules the release turns on for its kind (rules/registry.py MESSAGE), its
        consumers' contracts. Correlation and sequence rules need other messages and are left out. Generators use
        it (wirecheck fuzz): a "valid" message gets nothing above info here, a mutant exactly its one finding.
        `decoded`: an argv message's value is already its grammar's decoded object (what a generator makes), so
        it is not decoded, and consumers that read the command line by their own grammar are not asked."""
        kind = message.kind
        if kind is None:
            raise ValueError("judge_alone needs a classified message")
        findings: list[Finding] = []
        self._check_content(message, kind, findings.append, decoded=decoded)
        if kind.id not in self._alone:
            self._alone[kind.id] = [self.rule(use) for use in self.release.rules
                                    if scope_of(use.id) == MESSAGE and (not use.kinds or kind.id in use.kinds)]
        for rule in self._alone[kind.id]:  # single-message rules keep no state between messages
            findings.extend(rule.on_message(message))
        if kind.id in self._has_consumers:
            self._check_consumers(message, kind, findings.append, decoded=decoded)
        return findings

    def _check_content(self, message: Message, kind: MessageKind, emit: Callable[[Finding], None],
                       decoded: bool = False) -> None:
        """The body against the kind's schema, the headers against its header schema."""
        self._check_body(message, kind, emit, decoded)
        if kind.headers is not None and message.http is not None:
            for problem in self.validators.pair(kind.headers).problems(message.http.headers):
                emit(self._finding(message, problem, "HEADER_VIOLATION", prefix_note="header "))

    def _check_body(self, message: Message, kind: MessageKind, emit: Callable[[Finding], None],
                    decoded: bool = False) -> None:
        if kind.body == "any" or (message.http is not None and message.http.body_unknown):
            return  # a body the record left out is not known to be missing, nor what it was
        if message.http is not None:  # what reading the body found, for a kind whose reader reads it
            for read_problem in message.http.body_problems:
                emit(read_problem)
        if kind.body == "empty":
            if message.value is not None:
                emit(message.finding("UNEXPECTED_BODY", "this message must have no body",
                                     expected="no body", found=short_repr(message.value)))
            return
        if message.http is not None and message.value is None:
            if not message.http.body_unreadable:  # else its PARSE_ERROR already says what the body is
                emit(message.finding("UNEXPECTED_BODY", "this message needs a JSON body", expected="a JSON body",
                                     found="no body"))
            return
        if kind.schema is None:
            return
        value = message.value
        if kind.argv_grammar is not None and not decoded:
            value = self._decode_argv(message, kind, emit)
        for problem in self.validators.pair(kind.schema).problems(value):
            emit(self._finding(message, problem, "SCHEMA_VIOLATION"))

    def _decode_argv(self, message: Message, kind: MessageKind, emit: Callable[[Finding], None]) -> Any:
        from wirecheck.capture.argv import decode_argv  # argv grammars are a capture concern (capture/argv.py)

        decoded, problems = decode_argv(list(message.value), kind.argv_grammar or {})
        for pointer, text in problems:
            emit(message.finding("SCHEMA_VIOLATION", text, pointer=pointer, found=short_repr(message.value)))
        return decoded

    def _finding(self, message: Message, problem: Problem, code: str, prefix_note: str = "") -> Finding:
        text, severity = prefix_note + problem.message, None
        if problem.unknown_field and code != "HEADER_VIOLATION" and message.kind is not None:
            # the kind's real reader decides: one that rejects unknown members makes this an error (readers.yaml)
            cited = rejects_member(self.release, message.kind.id, problem.pointer)
            if cited is not None:
                text, severity = f"{text}: {message.kind.consumer} rejects unknown members here ({cited})", \
                    Severity.ERROR
        return message.finding(
            "UNKNOWN_FIELD" if problem.unknown_field else code,
            text,
            severity=severity,
            pointer=problem.pointer,
            schema_location=problem.schema_location,
            expected=problem.expected,
            found=problem.found,
        )

    # -- correlation ----------------------------------------------------------------------------------

    # -- JSON-RPC: methods the release does not define -----------------------------------------------

    def _unknown_method(self, message: Message) -> str | None:
        """The method of an unclassified JSON-RPC request or notification that the release does not define (a
        JSON-RPC 2.0 object with a string `method`, jsonrpc.org/specification §4); None for anything else."""
        value = message.value
        if self.methods is None or message.http is not None or message.artifact is not None:
            return None
        if not isinstance(value, dict) or value.get("jsonrpc") != "2.0":
            return None
        method = value.get("method")
        return method if isinstance(method, str) and method not in self.methods else None

    def _on_unknown_method(self, message: Message, method: str, reading: Any, run: _CaptureRun,
                           emit: Callable[[Finding], None]) -> None:
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
            self._remember(message, Request(None, request_id, message.file, message.line, message.where,
                                            message.sender, method=method, answer=answer), answer, run, emit,
                           answer.consumer)

    def _unknown_request(self, message: Message) -> tuple[RequestFamily, str, tuple[str, ...]] | None:
        """An unclassified request of a family the release defines (its envelope and a request id) naming a member
        the release lacks: (family, the name it asks for, where it names it); None for anything else."""
        value = message.value
        if not self.families or message.http is not None or message.artifact is not None or not isinstance(value, dict):
            return None
        for family in self.families:
            if not family.holds(value):
                continue
            for tokens in family.names:
                name = resolve(value, tokens, None)
                if isinstance(name, str) and name not in family.known:
                    return family, name, tokens
        return None

    def _on_unknown_request(self, message: Message, family: RequestFamily, name: str, tokens: tuple[str, ...],
                            reading: Any, run: _CaptureRun, emit: Callable[[Finding], None]) -> None:
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
            self._remember(message, Request(None, request_id, message.file, message.line, message.where,
                                            message.sender, method=name, answer=answer), answer, run, emit,
                           answer.consumer)

    def _answer_kind(self, sender: str | None) -> MessageKind | None:
        """The response kind that answers a request from `sender`: the one correlated response kind its consumer
        is `sender` (the one of the release, when the sender is not known)."""
        responses = [k for k in self.release.kinds if k.answers is not None and k.correlate is not None
                     and k.channel == "stdio-ndjson"]
        if sender is not None:
            responses = [k for k in responses if k.consumer == sender]
        return responses[0] if len(responses) == 1 else None

    def _remember(self, message: Message, request: Request, answer: MessageKind, run: _CaptureRun,
                  emit: Callable[[Finding], None], requester: str | None) -> None:
        """A request awaits its answer, under its requester's ids: in JSON-RPC each side numbers its own requests,
        so a client's id 0 and an agent's id 0 are two requests (the answer is looked up under its reader's)."""
        assert answer.correlate is not None
        earlier = run.requests.request((_side(requester), _id_key(request.request_id)), request)
        # both directions in the capture: an id still waiting for its response cannot name a second request
        if earlier is not None and run.capture.form == "framed":
            emit(message.finding(
                "DUPLICATE_REQUEST_ID",
                f"request id {short_repr(request.request_id)} is still waiting for the response to the request at "
                f"{earlier.location}",
                pointer=format_pointer(answer.correlate[0]), found=short_repr(request.request_id)))

    def _correlate(self, message: Message, kind: MessageKind, run: _CaptureRun, emit: Callable[[Finding], None]):
        response_kind = self.answered_kinds.get(kind.id)
        if response_kind is not None and response_kind.correlate is not None:
            request_id = resolve(message.value, response_kind.correlate[0], None)
            if request_id is not None and _hashable(request_id):
                self._remember(message, Request(kind, request_id, message.file, message.line, message.where,
                                                message.sender), response_kind, run, emit, kind.producer)
            return
        if kind.correlate is None:
            return
        request_id = resolve(message.value, kind.correlate[1], None)
        if request_id is None or not _hashable(request_id):
            return
        requests = run.requests
        pending = requests.response((_side(kind.consumer), _id_key(request_id)))
        id_pointer = format_pointer(kind.correlate[1])
        if pending is None:
            if run.capture.form != "framed":
                return
            if requests.dropped:  # it may answer a request no longer tracked: not known to be wrong
                requests.unmatched += 1
                return
            emit(message.finding("RESPONSE_WITHOUT_REQUEST", requests.no_request_text(short_repr(request_id)),
                                 pointer=id_pointer, found=short_repr(request_id)))
            return
        if pending.answered > 1:
            emit(message.finding("DUPLICATE_RESPONSE",
                                 f"request {short_repr(request_id)} already has a response",
                                 pointer=id_pointer, found=short_repr(request_id)))
            return
        if pending.kind is None or pending.kind.reply is None:  # a method of no kind: no result type to check
            return
        reply = pending.kind.reply
        payload = resolve(message.value, reply.at, MISSING)
        if payload is not MISSING:
            for problem in self.validators.pair(reply.schema).problems(payload, format_pointer(reply.at)):
                emit(self._finding(message, problem, "REPLY_VIOLATION", prefix_note=f"reply to {pending.kind.id}: "))

    def _finish(self, run: _CaptureRun, emit: Callable[[Finding], None]) -> None:
        if run.capture.form == "framed":
            for pending in run.requests.unanswered():
                method = "" if pending.method is None else (
                    f" (method {short_repr(pending.method)}, which {self.release.name} does not define: JSON-RPC asks "
                    "for an answer all the same, an error -32601 Method not found)") if self.methods is not None else (
                    f" ({short_repr(pending.method)}, which {self.release.name} does not define: its receiver owes "
                    "an answer all the same, an error response)")
                emit(pending.finding("REQUEST_WITHOUT_RESPONSE", f"request {short_repr(pending.request_id)}{method} "
                                     "got no response"))
        note = run.requests.limit_note(run.capture.label)
        if note is not None:
            emit(note)
        if run.unknown_bodies:
            emit(Finding(code="BODY_NOT_RECORDED", severity=level_of("BODY_NOT_RECORDED"), file=run.capture.label,
                         message=f"{run.unknown_bodies} message(s) have no body in the record, which says they had "
                         "one (a HAR writer may leave bodies out): their kinds are counted, their bodies and the "
                         "rules that read them are not checked"))
        for rule in run.rules:
            for finding in rule.finish():
                emit(finding)

    # -- consumers' contracts ------------------------------------------------------------------------

    def _check_consumers(self, message: Message, kind: MessageKind, emit: Callable[[Finding], None],
                         decoded: bool = False) -> None:
        for contract, consumer_kind, validators in self.consumer_validators(kind.id):
            if consumer_kind.schema is None or (decoded and consumer_kind.argv_grammar is not None):
                continue
            value = message.value
            if consumer_kind.argv_grammar is not None:  # the consumer reads argv by its own grammar
                value = self._decode_for_consumer(message, contract, consumer_kind, emit)
            other = validators.release
            for problem in validators.pair(consumer_kind.schema).problems(value):
                # an unknown member is rejected where the consumer's reader is closed there (its readers.yaml)
                cited = rejects_member(other, consumer_kind.id, problem.pointer) if problem.unknown_field else None
                what = "unknown to" if problem.unknown_field and cited is None else "rejected by"
                emit(message.finding(
                    "CROSS_CONTRACT_VIOLATION",
                    f"{what} consumer {contract} ({consumer_kind.id}): {problem.message}"
                    + (f" (its reader rejects unknown members here: {cited})" if cited else ""),
                    severity=Severity.WARNING if what == "unknown to" else Severity.ERROR,
                    pointer=problem.pointer,
                    schema_location=problem.schema_location,
                    expected=problem.expected,
                    found=problem.found,
                ))

    def _decode_for_consumer(
        self, message: Message, contract: str, consumer_kind: MessageKind, emit: Callable[[Finding], None]
    ) -> Any:
        from wirecheck.capture.argv import decode_argv

        decoded, problems = decode_argv(list(message.value), consumer_kind.argv_grammar or {})
        for pointer, text in problems:
            emit(message.finding("CROSS_CONTRACT_VIOLATION",
                                 f"rejected by consumer {contract} ({consumer_kind.id}): {text}",
                                 pointer=pointer, found=short_repr(message.value)))
        return decoded

    def consumer_release(self, contract: str) -> ContractRelease:
        """Another contract named under the release's `consumers:` (loaded from the release's registry)."""
        if self._load_release is None:
            from wirecheck.contracts import load_registry

            registry = load_registry(self.release.root.parent.parent)
            self._load_release = registry.load
        return self._load_release(contract)

    def consumer_validators(self, kind_id: str) -> list[tuple[str, MessageKind, Validators]]:
        """(contract, its kind, its validators) for each consumer of `kind_id` (the catalog's `consumers:`)."""
        if kind_id not in self._consumers:
            entries = []
            for consumer in self.release.consumers:
                if consumer.kind != kind_id:
                    continue
                other = self.consumer_release(consumer.contract)
                if consumer.contract not in self._consumer_validator_sets:  # one set per contract, not per entry
                    self._consumer_validator_sets[consumer.contract] = Validators(other)
                entries.append((consumer.contract, other.kind(consumer.as_kind),
                                self._consumer_validator_sets[consumer.contract]))
            self._consumers[kind_id] = entries
        return self._consumers[kind_id]

    # -- texts ---------------------------------------------------------------------------------------

    def _unknown_text(self, message: Message) -> str:
        if message.http is not None:
            http = message.http
            what = f"{http.method} {http.path}" + (f" → {http.status}" if http.status is not None else "")
            return f"no message kind of {self.release.name} matches {what}"
        if message.artifact is not None:
            return f"no {message.artifact.channel} kind of {self.release.name} matches this artifact"
        return f"no message kind of {self.release.name} matches this message"

    @staticmethod
    def _shape(message: Message) -> str | None:
        if isinstance(message.value, dict):
            keys = {k: message.value[k] for k in ("type", "subtype", "kind", "method") if k in message.value}
            if keys:
                return short_repr(keys)
            return f"an object with keys {short_repr(sorted(message.value)[:8])}" if message.value else "{}"
        return None


def _refuse(value: Any, line: int) -> bool:
    return False


def _holding(is_valid: Callable[[Any], bool], rules: tuple[Rule, ...], kind: MessageKind,
             file: str) -> Callable[[Any], bool]:
    """Strictly valid, and none of `rules` (each judging a message alone, keeping no state) finds anything in it."""

    def holds(value: Any) -> bool:
        if not is_valid(value):
            return False
        message = Message(value=value, file=file, kind=kind)
        return not any(True for rule in rules for _ in rule.on_message(message))

    return holds


class _Recorder:
    """Stands for a kind's observers where the capture's rules are not (stateless_acceptor): notes what they should
    be shown."""

    __slots__ = ("record",)

    def __init__(self, record: Callable[[str, int], None]):
        self.record = record

    def observe(self, kind: MessageKind, value: Any, file: str, line: int) -> None:
        self.record(kind.id, line)


class _Counting:
    """An emit that counts what passes through it."""

    __slots__ = ("count", "emit")

    def __init__(self, emit: Callable[[Finding], None]):
        self.emit, self.count = emit, 0

    def __call__(self, finding: Finding) -> None:
        self.count += 1
        self.emit(finding)


def _hashable(value: Any) -> bool:
    return isinstance(value, str | int | float | bool)


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


def _side(role: str | None) -> str | None:
    """Whose request ids: a role, or None where a kind names none (`any`)."""
    return None if role == "any" else role


def _id_key(value: Any) -> Any:
    """A request id as a dictionary key: JSON true is not the number 1 (nor false 0), as Python's True == 1 has it."""
    return ("bool", value) if isinstance(value, bool) else value


def check_captures(
    release: ContractRelease,
    paths: Iterable[str],
    options: CheckOptions | None = None,
    on_finding: Callable[[Finding], None] | None = None,
) -> CheckResult:
    """Check capture files (or "-") against a release; the pure entry point the CLI and plugin wrap."""
    return Engine(release, options).run((CaptureFile(p) for p in paths), on_finding)
