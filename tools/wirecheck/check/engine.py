"""The conformance engine's run loop: captures in, findings (streamed) and a summary with coverage out.

Per message: classify → its own checks (check/messages.py: schema views, headers, consumers' contracts) → its place
in the sequence (check/sequences.py: requests and answers, behaviour obligations) → protocol rules; per capture, at
its end: what the sequence still owes, and how its program ended (check/outcome.py). Nothing is kept per message, so
memory is flat in the capture's length; state is per open request, per followed thing, per rule and per kind.
"""

from __future__ import annotations

import contextlib
import fnmatch
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from wirecheck.capture import DEFAULT_MAX_LINE_BYTES, CaptureFile, CaptureUnreadable, read_capture
from wirecheck.capture.ndjson import capture_finding, not_an_object
from wirecheck.capture.process import ProcessRecord
from wirecheck.check.classify import Classifier, base_prefix
from wirecheck.check.labels import Label, as_found, matches
from wirecheck.check.message import Message
from wirecheck.check.messages import MessageChecks
from wirecheck.check.outcome import judge_outcome, outcome_obligations
from wirecheck.check.readers import Tolerated, judge_body_problem, judge_non_json_line, unknown_kind_reading
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
from wirecheck.check.sequences import (  # noqa: F401  (importers of the engine find these here too)
    Noted,
    RequestFamily,
    Sequences,
    SettledPairs,
    jsonrpc_methods,
    request_families,
    role_of,
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
from wirecheck.contracts.model import ContractRelease, MessageKind, RuleUse
from wirecheck.findings import Finding, Severity, blocking, short_repr
from wirecheck.pointer import resolve
from wirecheck.rules.catalogue import level_of
from wirecheck.rules.registry import MESSAGE, Rule, SettlingRule, instantiate, scope_of

# the result types live in check/result.py (they merge); importers of the engine find them here too
__all__ = ["MAX_LISTED", "CaptureSummary", "CheckOptions", "CheckResult", "Engine", "KindCoverage", "Reading",
           "Source", "check_captures"]

# The fast path's view of a kind: `holds` (its strict validator, and its single-message rules find nothing), the
# rules that observe it without a Message, the kind, and None for a kind whose messages need nothing of the
# capture's ordered state but those observers, else the rules the ordered step shows them to (Engine._ordered).
_FastEntry = tuple[Callable[[Any], bool], tuple[Any, ...], MessageKind, "tuple[Rule, ...] | None"]
# What the fast path does with a held message of a kind that needs the ordered step: (kind, rules, value, line).
_Ordered = Callable[[MessageKind, "tuple[Rule, ...]", Any, int], None]


# A message of a later part of a capture whose own checks a worker process made (check/parts.py PartChecks), as
# a plain tuple (hundreds of thousands cross between processes; a (line, value) pair is a message as read):
# (line within its part, sender, value, kind id, findings, after, alone, noted). `findings`: those of its own checks
# in the order a sequential run makes them (the frame's sender, its content); `after`: its consumers' contracts';
# `alone`: its single-message rules were run and found nothing; `noted`: a request or an answer the worker
# correlated as far as its part shows (sequences.PartAnswers), its value left out (None) where nothing else reads
# it. The capture's engine shows it to what needs the capture's ordered state (Engine._ordered). A request a worker
# saw answered within its part, and that answer, come as two steps of the capture's correlation in their places
# instead (PartChecks._settle): (line, sender, kind id, request id) and (line, kind id, request id), or, where
# nothing came between them, a pair of a run of such pairs in a row (sequences.SettledPairs).
Checked = tuple[int, "str | None", Any, str, "tuple[Finding, ...]", "tuple[Finding, ...]", bool, "Noted | None"]


def _refuse(value: Any, line: int) -> bool:
    return False


@dataclass(frozen=True)
class Reading:
    """What a capture source feeds while the engine reads one capture: the fast path (as read_capture's `fast`),
    and the capture's ordered state a source reading parts elsewhere may consult (check/parallel.py)."""

    accept: Callable[[Any, int], bool]  # the fast path: True when it took the value (see Engine._acceptor)
    seen: dict[str, int]  # messages the fast path took, per kind: a source adds those it took itself
    unsettled: Callable[[], frozenset[int]]  # the rules (by their place in the catalog) that have not settled yet
    observe: Callable[[str, int], None]  # (kind id, line): show the fast path's observers a message taken elsewhere
    # (role, line, kind id): a framed message of a kind that needs no ordered state, taken elsewhere: its sender
    # spoke, and it may be the role's last message (what the process record is judged after)
    took: Callable[[str | None, int, str], None]
    # the first line's number less one of the part whose Checked messages are being fed (their lines count from 1)
    offset: list[int] = field(default_factory=lambda: [0])
    # the fast path of a framed capture's frames (read_capture's `fast_frame`; see Engine._frame_acceptor)
    accept_frame: Callable[[Any, int], bool] = _refuse


# How a capture is read: what read_capture(raw_stream=True, fast=reading.accept) yields, in capture order.
Source = Callable[[CaptureFile, Reading], Iterator[Any]]


@dataclass(frozen=True)
class CheckOptions:
    base_urls: Mapping[str, str] = field(default_factory=dict)  # base name → URL (or path prefix)
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    fail_on: Severity = Severity.ERROR
    min_coverage: float | None = None  # --min-coverage, a fraction in [0, 1]
    # every capture holds all its writer sent (--whole; the stub's and the probe's own recordings): what must have
    # happened by its end (an answer, a result, a run's end) is judged, as on a framed capture
    whole: bool = False


class _CaptureRun:
    """State for one capture file: its sequence (requests awaiting answers, obligations' monitors), rule instances,
    announced bases, and how its program ended."""

    def __init__(self, engine: Engine, capture: CaptureFile):
        self.engine = engine
        self.capture = capture
        self.sequence = engine.sequences.start(capture)
        self.bases = {name: base_prefix(url) for name, url in engine.options.base_urls.items()}
        self.unrecognised = Unrecognised()  # what its unclassified messages looked like
        self.unknown_bodies = 0  # messages whose body the record left out (told once, at the end)
        self.foreign = 0  # messages of no kind that no reader takes as an extension of the protocol
        self.process: ProcessRecord | None = None  # how its program ended (a framed capture's last line)
        self.last: dict[str | None, Message] = {}  # role → the last message it sent that took the general path
        self.latest: dict[str, Message] = {}  # process obligation id → the last message of its `among` kinds
        self.rules: list[Rule] = []
        self.rules_by_kind: dict[str, list[Rule]] = {kind.id: [] for kind in engine.release.kinds}
        self.alone: set[int] = set()  # id() of the rules that judge each message alone (scope MESSAGE): no state
        self._keeping: dict[str, tuple[Rule, ...]] = {}
        for use in engine.release.rules:
            rule = engine.rule(use)
            self.rules.append(rule)
            if scope_of(use.id) == MESSAGE:
                self.alone.add(id(rule))
            # the catalog's `kinds:` narrows a rule; else the rule may say which kinds it watches; else all
            for kind_id in use.kinds or getattr(rule, "watches", None) or self.rules_by_kind:
                if kind_id in self.rules_by_kind:
                    self.rules_by_kind[kind_id].append(rule)

    @property
    def whole(self) -> bool:
        """Does the capture hold everything its program wrote (so what must have happened by its end can be
        judged)? A framed capture (wirecheck's harness records both directions from start to end), one that says
        how the program ended, or one its reader knows whole (a HAR the stub recorded)."""
        return (self.capture.form == "framed" or self.process is not None or self.capture.whole
                or self.engine.options.whole)

    def unsettled(self) -> frozenset[int]:
        """The rules (by their place in the catalog) that have not yet seen all they need."""
        return frozenset(at for at, rule in enumerate(self.rules) if getattr(rule, "settled", True) is False)

    def settle_all_but(self, unsettled: frozenset[int]) -> None:
        """A later part of the capture, read elsewhere: the rules that had settled by then have settled here too."""
        for at, rule in enumerate(self.rules):
            if getattr(rule, "settled", True) is False and at not in unsettled:
                rule.settled = True  # type: ignore[attr-defined]  # this instance reads nothing else
        self.drop_settled_rules()

    def drop_settled_rules(self) -> None:
        """Stop showing messages to rules that need no more (their finish() still runs)."""
        for kind_id, rules in self.rules_by_kind.items():
            self.rules_by_kind[kind_id] = [rule for rule in rules if not getattr(rule, "settled", False)]
        self._keeping.clear()

    def keeping(self, kind_id: str) -> tuple[Rule, ...]:
        """A kind's rules that keep state between messages (those judging a message alone left out)."""
        rules = self._keeping.get(kind_id)
        if rules is None:
            rules = self._keeping[kind_id] = tuple(r for r in self.rules_by_kind[kind_id] if id(r) not in self.alone)
        return rules


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
        self.messages = MessageChecks(release, self.validators, load_release)
        self.sequences = Sequences(release, self._reply_problems, self.messages.finding)
        self.answered_kinds = self.sequences.answered_kinds
        self._outcome = outcome_obligations(release)
        # kinds a process obligation asks about as the program's last message (`exit_status: when`): they take the
        # general path, which remembers the last message of each role
        self._last_read = frozenset().union(*(o.params["when"].kinds for o in self._outcome if "when" in o.params))
        # and the kinds among which it asks about the last (`exit_status: among`), whose values it does not read
        self._last_kinds = self._last_read.union(*(o.params["among"].kinds for o in self._outcome
                                                   if "among" in o.params))
        # kind id → the process obligations that judge the last message of kinds among which it is (`among`)
        self._among: dict[str, tuple[str, ...]] = {}
        for obligation in self._outcome:
            for kind_id in obligation.params["among"].kinds if "among" in obligation.params else ():
                self._among[kind_id] = (*self._among.get(kind_id, ()), obligation.id)
        self._base_kinds = {base.kind: base for base in release.bases.values()}
        self._kinds = {kind.id: kind for kind in release.kinds}
        # kinds whose messages the capture's ordered state reads: requests and answers, obligations' monitors, the
        # last message a process obligation asks about, and those whose consumers' contracts are checked too
        self._stateful = (self.sequences.correlated | self.sequences.watched | self._last_kinds
                          | self.messages.has_consumers)
        # kinds of that state only as a role's possible last message: a plain stream never says how its program
        # ended (a process record comes in a framed capture: capture/ndjson.py read_framed), so there no role's
        # last message is ever judged, and these need nothing of the ordered state (see _plain_entries)
        self._last_only = self._last_kinds - self.sequences.correlated - self.sequences.watched \
            - self.messages.has_consumers
        self._other_releases: list[ContractRelease] | None = None  # loaded when a capture recognises nothing
        self._alone: dict[str, list[Rule]] = {}  # kind id → its single-message rules (judge_alone)

    def _reply_problems(self, schema: Any, payload: Any, at: str) -> Iterable[Problem]:
        return self.validators.pair(schema).problems(payload, at)

    def consumer_release(self, contract: str) -> ContractRelease:
        return self.messages.consumer_release(contract)

    def consumer_validators(self, kind_id: str) -> list[tuple[str, MessageKind, Validators]]:
        return self.messages.consumer_validators(kind_id)

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
        return read_capture(capture, self.options.max_line_bytes, raw_stream=True, fast=reading.accept,
                            fast_frame=reading.accept_frame)

    def _run_capture(self, capture: CaptureFile, summary: CaptureSummary, result: CheckResult,
                     emit: Callable[[Finding], None], source: Source) -> None:
        emitted = _Counting(emit)
        emit = emitted
        run = _CaptureRun(self, capture)
        forced = capture.as_kind  # `--as KIND`: every message is of this kind
        if forced is None and capture.path != "-":  # a file a program wrote, named as a file kind's pattern says
            capture.bare_file = any(k.channel == "file" and k.path_glob and fnmatch.fnmatch(
                capture.path.replace("\\", "/"), k.path_glob) for k in self.release.kinds)
        # Fast path: a plain stream message of a kind whose own check is its schema (and rules judging a message
        # alone), strictly valid, is counted in the line loop itself; one of a kind that needs the capture's ordered
        # state (answers, obligations, rules that keep state) is then shown to it without classifying or validating
        # it again. Everything else comes back here.
        fast = self._fast_validators(run) if forced is None else {}
        seen: dict[str, int] = {k.id: 0 for k in self.release.kinds}
        settling: list[SettlingRule] = [r for r in run.rules if getattr(r, "settled", True) is False]  # type: ignore[misc]
        last: list[Any] = [None, None]  # the fast path's last refusal: (value, its kind), not to classify it twice
        label = capture.label

        def widen() -> None:
            """Rules that have seen all they need (`settled`) are shown no more messages: the fast path takes the
            kinds they held back. Asked after every message the general path or the ordered step shows them: a
            capture whose messages all hold (the fast path takes every line) settles its rules all the same."""
            nonlocal settling
            if settling and _any_settled(settling):
                settling = [rule for rule in settling if not rule.settled]
                run.drop_settled_rules()
                fast.clear()
                fast.update(self._fast_validators(run))
                plain.clear()
                plain.update(self._plain_entries(fast))

        def ordered(kind: MessageKind, rules: tuple[Rule, ...], value: Any, line: int) -> None:
            self._ordered(Message(value=value, file=label, line=line, kind=kind), kind, run, emit, rules)
            if settling:
                widen()

        plain = self._plain_entries(fast)  # a plain stream's fast path
        accept = self._acceptor(plain, seen, last, label, ordered)

        def observe(kind_id: str, line: int) -> None:
            # a kind taken elsewhere is on this fast path (check/parts.py); a plain stream's worker takes a kind a
            # process obligation asks about alone as this process does (`plain`, which differs from `fast` in those
            # kinds only, and a framed capture's worker records none of them)
            _, rules, kind, _ = plain[kind_id]
            for rule in rules:
                rule.observe(kind, None, label, line)

        def took(role: str | None, line: int, kind_id: str) -> None:
            run.sequence.roles.add(role)
            earlier = run.last.get(role)
            if earlier is None or (earlier.line or 0) < line:
                run.last[role] = Message(value=None, file=label, line=line, sender=role,
                                         kind=self._kinds[kind_id])

        # a framed message the fast path takes: a kind that needs ordered state is shown to the ordered step with its
        # sender; any other counts, and its sender spoke (the last of each role's noted here, told `took` at the end)
        spoke: dict[str | None, tuple[int, str]] = {}

        def ordered_from(kind: MessageKind, rules: tuple[Rule, ...], value: Any, line: int, sender: str) -> None:
            self._ordered(Message(value=value, file=label, line=line, sender=sender, kind=kind), kind, run, emit,
                          rules)
            if settling:
                widen()

        accept_frame = self._frame_acceptor(fast, seen, last, label, ordered_from, spoke)
        reading = Reading(accept if forced is None else _refuse, seen, run.unsettled, observe, took,
                          accept_frame=accept_frame if forced is None else _refuse)
        kinds, sequence = self._kinds, run.sequence
        for item in (source if forced is None else self._read)(capture, reading):
            known = forced
            if type(item) is tuple:
                if len(item) == 2:  # (line, value): a message as read
                    line_no, value = item
                    if type(value) is not dict:
                        emit(not_an_object(value, label, line_no))
                        continue
                    if last[0] is value:
                        known = last[1]
                    item = Message(value=value, file=label, line=line_no)
                elif len(item) == 4:  # a request a worker saw answered within its part: remembered (check/parts.py)
                    line_no, sender, kind_id, request_id = item
                    sequence.settled_request(kinds[kind_id], request_id, label, line_no + reading.offset[0], sender,
                                             emit)
                    continue
                elif len(item) == 3:  # its answer, from the same part
                    sequence.settled_answer(kinds[item[1]], item[2])
                    continue
                else:  # Checked: its own checks made by a worker, the ordered ones made here
                    line_no, sender, value, kind_id, findings, after, alone, noted = item
                    checked = self._kinds[kind_id]
                    offset = reading.offset[0]
                    message = Message(value=value, file=label, line=line_no + offset, sender=sender, kind=checked)
                    for finding in findings:
                        emit(replace(finding, line=finding.line + offset) if finding.line is not None else finding)
                    if noted is not None and noted[1] is not None and noted[1][1] and offset:
                        noted = noted[0], (noted[1][0], tuple(replace(f, line=(f.line or 0) + offset)
                                                              for f in noted[1][1]))
                    self._ordered(message, checked, run, emit, run.keeping(kind_id) if alone
                                  else run.rules_by_kind[kind_id], consumers=False, noted=noted)
                    for finding in after:
                        emit(replace(finding, line=finding.line + offset) if finding.line is not None else finding)
                    summary.messages += 1
                    result.messages += 1
                    result.coverage[kind_id].seen += 1
                    item = None
            elif type(item) is SettledPairs:  # requests a worker saw answered right after them: both steps
                sequence.settled_pairs(item, kinds, label, reading.offset[0], emit)
                continue
            elif type(item) is Message and last[0] is not None and item.value is last[0]:
                known = last[1]  # a frame the fast path refused: classified there, with its sender
            if item is None:
                pass
            elif isinstance(item, Finding):
                emit(judge_non_json_line(self.release, item) if self.release.non_json_lines else item)
                continue
            elif isinstance(item, ProcessRecord):
                if item.role not in self.release.roles:
                    emit(capture_finding("CAPTURE_FORMAT", f"process/role {item.role!r} is not a role of "
                                         f"{self.release.name} ({', '.join(self.release.roles)})", label, item.line))
                elif run.process is not None:
                    emit(capture_finding("CAPTURE_FORMAT", f"a second process line: the one on line "
                                         f"{run.process.line} says how the program ended, and must be the last",
                                         label, item.line))
                else:
                    run.process = item
                continue
            else:
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
            if settling:
                widen()
        for role, (line_no, kind_id) in spoke.items():
            took(role, line_no, kind_id)
        if run.process is not None and run.process.line is not None:
            later = max((m.line or 0 for m in run.last.values()), default=0)
            if later > run.process.line:
                emit(capture_finding("CAPTURE_FORMAT", f"a message on line {later} follows the process line (line "
                                     f"{run.process.line}), which says how the program ended and must be the last",
                                     label, run.process.line))
        if capture.form != "framed":  # what the fast path took was sent by its kind's producer
            run.sequence.roles.update(self._kinds[kind_id].producer for kind_id, count in seen.items() if count)
        for kind_id, count in seen.items():
            result.coverage[kind_id].seen += count
            summary.messages += count
            result.messages += count
        summary.form = capture.form
        if summary.messages == 0 and not emitted.count:  # e.g. a HAR with no entries
            emit(capture_finding("EMPTY_CAPTURE", "the capture holds no messages", capture.label))
        elif summary.messages and run.unrecognised.count == summary.messages:
            emit(self._nothing_recognised(run.unrecognised, capture.label))
        elif run.foreign > summary.messages - run.unrecognised.count:
            emit(self._mostly_unrecognised(run, summary.messages, capture.label))
        self._finish(run, emit, result)

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

    def _mostly_unrecognised(self, run: _CaptureRun, messages: int, file: str) -> Finding:
        """More messages of no kind than of the release's: most of the capture is another format, which a pass on
        its few recognised lines would certify."""
        if self._other_releases is None:
            self._other_releases = bundled_releases(self.release)()
        matches = likely_releases(run.unrecognised.samples.values(), self._other_releases, self.release.name)
        recognised = messages - run.unrecognised.count
        return Finding(
            code="MOSTLY_UNRECOGNISED", severity=level_of("MOSTLY_UNRECOGNISED"), file=file,
            message=f"{run.foreign} of the {messages} messages of this capture are of no kind of {self.release.name}"
                    f" (only {recognised} recognised): most of it is another format, and what was recognised "
                    f"certifies nothing about it; {looks_like(matches)}",
            expected=f"most messages of kinds of {self.release.name}",
            found=run.unrecognised.describe())

    def _acceptor(self, fast: dict[str, _FastEntry], seen: dict[str, int], last: list[Any], file: str,
                  ordered: _Ordered) -> Callable[[Any, int], bool]:
        """The fast path, called from the line loop: True when the message is of a fast kind and holds (strictly
        valid, and its single-message rules find nothing in it); its kind's observing rules have then seen it, or,
        for a kind that needs the capture's ordered state, `ordered` has. A refused message's kind is left in
        `last`."""
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
                if entry[3] is not None:
                    ordered(entry[2], entry[3], value, line)
                elif entry[1]:
                    for rule in entry[1]:
                        rule.observe(entry[2], value, file, line)
                return True
            last[0], last[1] = value, entry[2]
            return False

        return accept

    def _frame_acceptor(self, fast: dict[str, _FastEntry], seen: dict[str, int], last: list[Any], file: str,
                        ordered: Callable[[MessageKind, tuple[Rule, ...], Any, int, str], None],
                        spoke: dict[str | None, tuple[int, str]]) -> Callable[[Any, int], bool]:
        """The fast path of a framed capture (as a worker's, check/parts.py PartChecks.accept_frame): a frame
        {"from": a role, "message": an object} whose message is of a fast kind and holds is taken here, as
        `_acceptor` takes a plain stream's, `spoke[role]` noting it; anything else is read as a message (a refused
        one's kind is left in `last`)."""
        kind_of, roles = self.classifier.stream_message_kind, self.release.roles

        def accept_frame(frame: Any, line: int) -> bool:
            if type(frame) is not dict or len(frame) != 2:
                return False
            sender, value = frame.get("from"), frame.get("message")
            if type(value) is not dict or type(sender) is not str or sender not in roles:
                return False
            kind = kind_of(value, sender)
            if kind is None:
                return False
            entry = fast.get(kind.id)
            if entry is None or not entry[0](value):
                last[0], last[1] = value, kind
                return False
            seen[kind.id] += 1
            if entry[3] is not None:
                ordered(kind, entry[3], value, line, sender)
            else:
                for rule in entry[1]:
                    rule.observe(kind, value, file, line)
                spoke[sender] = (line, kind.id)
            return True

        return accept_frame

    def _fast_validators(self, run: _CaptureRun) -> dict[str, _FastEntry]:
        """kind id → (`holds`, observing rules, kind, rules of the ordered step or None), for stream kinds whose
        own check in this capture run is their schema and the rules that judge a message alone (rules/registry.py).
        `holds(value)`: strictly valid, and no such rule finds anything in it (else the message takes the full
        path, which reports what they find). A kind that needs nothing of the capture's ordered state but rules
        that observe it without a Message (`observe`) gets those; any other is shown to the ordered step."""
        fast: dict[str, _FastEntry] = {}
        for kind in self.release.kinds:
            if not (kind.channel == "stdio-ndjson" and kind.schema is not None and kind.body == "json"
                    and kind.argv_grammar is None and kind.headers is None and kind.id not in self._base_kinds):
                continue
            rules = run.rules_by_kind[kind.id]
            alone = tuple(rule for rule in rules if id(rule) in run.alone)
            keeping = run.keeping(kind.id)
            is_valid = self.validators.pair(kind.schema).strict.is_valid
            holds = _holding(is_valid, alone, kind, run.capture.label) if alone else is_valid
            if kind.id in self._stateful or not all(hasattr(rule, "observe") for rule in keeping):
                fast[kind.id] = (holds, (), kind, keeping)
            else:
                fast[kind.id] = (holds, keeping, kind, None)
        return fast

    def _plain_entries(self, fast: dict[str, _FastEntry]) -> dict[str, _FastEntry]:
        """`fast` as a plain stream's fast path has it: a kind that needs the ordered state only as a role's
        possible last message (`_last_only`) is counted and shown to its observing rules there, without a Message
        and the ordered step (a tenth of the bench's messages, result.success)."""
        plain = dict(fast)
        for kind_id in self._last_only:
            entry = fast.get(kind_id)
            if entry is not None and entry[3] is not None and all(hasattr(rule, "observe") for rule in entry[3]):
                plain[kind_id] = (entry[0], entry[3], entry[2], None)
        return plain

    # -- per message ---------------------------------------------------------------------------------

    def check_message(
        self, message: Message, run: _CaptureRun, emit: Callable[[Finding], None], kind: MessageKind | None = None
    ) -> MessageKind | None:
        """Check one message; `kind` when the caller has already classified it."""
        self._sender(message, emit)
        if kind is None:
            kind = self.classifier.classify(message, run.bases)
        if kind is None:
            if message.http is not None:  # no kind says its body may be anything
                for read_problem in message.http.body_problems:
                    emit(judge_body_problem(self.release, message, None, read_problem))
            run.unrecognised.add(message)
            self._unknown(message, run, emit)
            return None
        message.kind = kind
        if message.http is not None and message.http.body_unknown:  # left out of the record: judged by nobody
            run.unknown_bodies += 1
            return kind
        self.messages.content(message, kind, emit)
        self._ordered(message, kind, run, emit, run.rules_by_kind[kind.id])
        return kind

    def _sender(self, message: Message, emit: Callable[[Finding], None]) -> None:
        if message.sender is not None and message.sender not in self.release.roles:
            emit(message.finding("CAPTURE_FORMAT", f"frame sender {message.sender!r} is not a role of "
                                 f"{self.release.name} ({', '.join(self.release.roles)})",
                                 expected=" | ".join(self.release.roles), found=message.sender))

    def _ordered(self, message: Message, kind: MessageKind, run: _CaptureRun, emit: Callable[[Finding], None],
                 rules: Iterable[Rule], consumers: bool = True, noted: Noted | None = None) -> None:
        """A classified message's checks after its own content, in capture order: the base it announces, its place
        in the sequence, `rules`, its consumers' contracts (unless a worker checked them), the last of its role."""
        if kind.id in self._base_kinds and isinstance(message.value, dict):
            base = self._base_kinds[kind.id]
            url = resolve(message.value, base.pointer, None)
            if isinstance(url, str) and base.name not in self.options.base_urls:
                # a URL nothing can parse announces no base (its schema's `format: uri` reports it)
                with contextlib.suppress(ValueError):
                    run.bases[base.name] = base_prefix(url)
        run.sequence.on_message(message, kind, emit, noted)
        for rule in rules:
            for finding in rule.on_message(message):
                emit(finding)
        if consumers and kind.id in self.messages.has_consumers:
            self.messages.consumers(message, kind, emit)
        if kind.channel == "stdio-ndjson":
            run.last[message.sender or kind.producer] = message  # role_of, inlined: once per message
            for obligation_id in self._among.get(kind.id, ()):
                run.latest[obligation_id] = message

    def _unknown(self, message: Message, run: _CaptureRun, emit: Callable[[Finding], None]) -> None:
        """A message of no kind of the release: a method or request it does not define (remembered, its answer
        still owed), or one UNKNOWN_MESSAGE_KIND finding at the severity its reader gives it (readers.yaml)."""
        reading = unknown_kind_reading(self.release, message)
        if reading is None or not reading.extension:
            run.foreign += 1
        sequence = run.sequence
        method = sequence.unknown_method(message)
        if method is not None:
            sequence.on_unknown_method(message, method, reading, emit)
        elif (asked := sequence.unknown_request(message)) is not None:
            sequence.on_unknown_request(message, *asked, reading, emit)
        else:
            text = self.messages.unknown_text(message)
            severity = None
            if reading is not None and reading.extension:
                text += f"; the protocol reserves such messages for extensions ({reading.cited}): allowed"
                severity = Severity.INFO
            elif reading is not None:
                text += (f"; {reading.consumer} rejects messages it has no kind for ({reading.cited})"
                         if reading.reject else
                         f"; {reading.consumer} ignores messages it has no kind for ({reading.cited})")
                severity = Severity.ERROR if reading.reject else None
            emit(message.finding("UNKNOWN_MESSAGE_KIND", text, found=self.messages.shape(message),
                                 severity=severity))
        if message.http is None and message.artifact is None:
            sequence.on_unknown(message, emit)
            run.last[role_of(message)] = message

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
        self.messages.content(message, kind, findings.append, decoded=decoded)
        if kind.id not in self._alone:
            self._alone[kind.id] = [self.rule(use) for use in self.release.rules
                                    if scope_of(use.id) == MESSAGE and (not use.kinds or kind.id in use.kinds)]
        for rule in self._alone[kind.id]:  # single-message rules keep no state between messages
            findings.extend(rule.on_message(message))
        if kind.id in self.messages.has_consumers:
            self.messages.consumers(message, kind, findings.append, decoded=decoded)
        return findings

    def _finish(self, run: _CaptureRun, emit: Callable[[Finding], None], result: CheckResult) -> None:
        file = run.capture.label
        if run.process is not None:  # the capture holds all its program wrote: what it never sent, it owes
            run.sequence.roles.add(run.process.role)
        run.sequence.finish(run.whole, file, emit)
        judged = dict(run.sequence.judged)
        if run.process is not None:
            last = run.last.get(run.process.role)
            for obligation_id, count in judge_outcome(self._outcome, run.process, last, emit, run.latest).items():
                judged[obligation_id] = judged.get(obligation_id, 0) + count
        for obligation_id, count in judged.items():
            result.judged[obligation_id] = result.judged.get(obligation_id, 0) + count
        if run.unknown_bodies:
            emit(Finding(code="BODY_NOT_RECORDED", severity=level_of("BODY_NOT_RECORDED"), file=file,
                         message=f"{run.unknown_bodies} message(s) have no body in the record, which says they had "
                         "one (a HAR writer may leave bodies out): their kinds are counted, their bodies and the "
                         "rules that read them are not checked"))
        for rule in run.rules:
            for finding in rule.finish():
                emit(finding)


def _any_settled(rules: list[SettlingRule]) -> bool:
    for rule in rules:  # noqa: SIM110  (a loop, not any(): asked after every message on the general path)
        if rule.settled:
            return True
    return False


def _holding(is_valid: Callable[[Any], bool], rules: tuple[Rule, ...], kind: MessageKind,
             file: str) -> Callable[[Any], bool]:
    """Strictly valid, and none of `rules` (each judging a message alone, keeping no state) finds anything in it:
    asked of the value itself where every rule can say (`holds`, rules/registry.py), else of a Message built for
    them (a Message and a generator per rule cost a message of such a kind as much again as its validation)."""
    tests: list[Callable[[Any], bool]] = [getattr(rule, "holds", None) for rule in rules]  # type: ignore[misc]
    if all(tests):
        if len(tests) == 1:
            test = tests[0]
            return lambda value: is_valid(value) and test(value)
        return lambda value: is_valid(value) and all(test(value) for test in tests)

    def holds(value: Any) -> bool:
        if not is_valid(value):
            return False
        message = Message(value=value, file=file, kind=kind)
        return not any(True for rule in rules for _ in rule.on_message(message))

    return holds


class _Counting:
    """An emit that counts what passes through it."""

    __slots__ = ("count", "emit")

    def __init__(self, emit: Callable[[Finding], None]):
        self.emit, self.count = emit, 0

    def __call__(self, finding: Finding) -> None:
        self.count += 1
        self.emit(finding)


def check_captures(
    release: ContractRelease,
    paths: Iterable[str],
    options: CheckOptions | None = None,
    on_finding: Callable[[Finding], None] | None = None,
) -> CheckResult:
    """Check capture files (or "-") against a release; the pure entry point the CLI and plugin wrap."""
    return Engine(release, options).run((CaptureFile(p) for p in paths), on_finding)
