"""What a worker process makes of a later part of a large capture (check/parallel.py splits it at line ends): every
message of the part classified and its own checks made here, in the order a sequential run makes them; what needs
the capture's ordered state goes back to the capture's engine as compact `Checked` tuples (check/engine.py), the
values of requests and answers left out where the ids they carry are all it reads (sequences.PartAnswers), and a
request answered within the part, with its answer, sent as steps of the capture's correlation instead
(PartChecks._settle)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from wirecheck.capture import CaptureFile
from wirecheck.check.engine import Engine, _CaptureRun, _FastEntry
from wirecheck.check.message import Message
from wirecheck.check.sequences import Noted, PartAnswers, Projection, SettledPairs, read_paths
from wirecheck.contracts.model import MessageKind
from wirecheck.findings import Finding
from wirecheck.rules.registry import Rule


class PartChecks:
    """What a worker process makes of a later part of a capture (check/parallel.py): the same line reader's items,
    each message classified and its own checks made here, in the order a sequential run makes them. A message of a
    kind that needs nothing of the capture's ordered state, and holds, is taken (counted in `seen`; its kind's
    observers noted by `record(kind id, line)`, and a framed one's sender and line by `took`); every other message
    goes back to the capture's engine as a `Checked` (or, of no kind, as read), with the findings of its own checks.
    Rules that had settled when the part was handed out (`unsettled`: those that had not) are settled here."""

    def __init__(self, engine: Engine, capture: CaptureFile, unsettled: frozenset[int],
                 record: Callable[[str, int], None], noted: Callable[[], int], awaiting_bound: int = 0):
        self.engine = engine
        self.noted = noted  # how many observations `record` has noted so far
        self.file = capture.label
        self.run = run = _CaptureRun(engine, capture)
        run.settle_all_but(unsettled)
        self.items: list[Any] = []  # Finding | (line, value) | Message | Checked | ProcessRecord, in line order
        self.positions: list[int] = []  # items[i] comes after the first positions[i] observations
        self.seen: dict[str, int] = {kind.id: 0 for kind in engine.release.kinds}
        self.took: dict[str | None, tuple[int, str]] = {}  # role → (line, kind id) of its last framed message taken
        recorder = (_Recorder(record),)
        entries = engine._fast_validators(run)
        self.fast = self._here(entries, recorder)  # a framed capture's fast path (accept_frame)
        self._last: list[Any] = [None, None]
        # a plain stream's, which has no process record: a kind a process obligation asks about alone is taken here
        # as in one process (Engine._plain_entries), not sent back to be shown to the ordered step for nothing
        self.accept = engine._acceptor(self._here(engine._plain_entries(entries), recorder), self.seen, self._last,
                                       self.file, self._held)
        self.answers = PartAnswers(engine.sequences)
        self.correlated, self.has_consumers = engine.sequences.correlated, engine.messages.has_consumers
        # requests and answers whose ordered checks read nothing of their value but what `answers` notes
        self.lean = engine.sequences.correlated - engine.sequences.watched - engine._last_kinds \
            - engine._base_kinds.keys()
        self._leaning: dict[tuple[str, bool], bool] = {}
        # messages of kinds only the sequence's monitors read in order, or whose values a process obligation reads
        # (`exit_status: when`), go back with just the places they read
        self.projected = Projection(read_paths(engine.release, (*engine.sequences.obligations, *engine._outcome)))
        self.projectable = (engine.sequences.watched | engine._last_read) - engine.sequences.correlated \
            - engine._base_kinds.keys() - engine.messages.has_consumers
        # messages of kinds nothing reads in order but rules that read no values (`reads_values = False`), or a
        # process obligation by their kind alone (`exit_status: among`), go back without their value
        self.placed = frozenset(self.seen) - engine.sequences.correlated - engine.sequences.watched \
            - engine._last_read - engine._base_kinds.keys() - engine.messages.has_consumers
        # requests answered within the part become steps of the capture's correlation (see `_settle`): none where
        # a monitor reads answers, or the capture's engine gave no bound on requests awaiting (`awaiting_bound`)
        self.awaiting_bound = awaiting_bound if not self.answers.answers_read else 0
        self.pending: dict[Any, tuple[int, int]] = {}  # key → (its request's item, requests before it in the part)
        self.requests = 0  # requests of the part that the capture's correlation remembers
        # pairs settled with nothing between them go back in runs (SettledPairs), which share the part's shapes
        self.shapes: list[tuple[str, str | None, str]] = []
        self._shape_codes: dict[tuple[str, str | None, str], int] = {}
        self._run: SettledPairs | None = None  # the latest run

    @staticmethod
    def _here(entries: dict[str, _FastEntry], recorder: tuple[Any, ...]) -> dict[str, _FastEntry]:
        """The engine's fast path as a worker takes it: rules that observe a taken message without its value are
        told through `recorder`; those that read its value observe it in the capture's engine, in order."""
        out: dict[str, _FastEntry] = {}
        for kind_id, (holds, observers, kind, keeping) in entries.items():
            if keeping is None and observers:
                if all(getattr(rule, "observes_values", True) is False for rule in observers):
                    observers = recorder
                else:
                    observers, keeping = (), observers
            out[kind_id] = (holds, observers, kind, keeping)
        return out

    def done(self) -> None:
        """The part is read: drop the fast path, whose closure refers back to this object (through `_held`), so
        that its items are freed by reference counting once they are sent, not by a later pass of the cycle
        collector over all of them (check/parallel.py COLLECT_EVERY_PARTS)."""
        self.accept = _refuse
        self.pending.clear()

    def _held(self, kind: MessageKind, rules: tuple[Rule, ...], value: Any, line: int) -> None:
        self.seen[kind.id] -= 1  # counted where it is finished, as every Checked is
        self._checked(value, line, None, kind, (), alone=True)

    def _checked(self, value: Any, line: int, sender: str | None, kind: MessageKind, found: tuple[Finding, ...],
                 alone: bool, message: Message | None = None) -> None:
        """Append the message as a `Checked` (a request answered within the part as a step: see `_settle`)."""
        def located() -> Message:
            return message or Message(value=value, file=self.file, line=line, sender=sender, kind=kind)

        after = self._consumers(located(), kind) if kind.id in self.has_consumers else ()
        noted = None
        if kind.id in self.correlated:
            answers = self.answers
            noted = answers.note(value, kind, located)
            event = answers.event
            if noted is not None and self._lean(kind.id, alone):
                value = None
                if event is not None and self.awaiting_bound and not found and not after:
                    if event[0]:
                        self.pending[event[1]] = (len(self.items), self.requests)
                        self.requests += 1
                    elif self._settle(event[1], line, sender, kind.id, noted):
                        return
                    self._append((line, sender, value, kind.id, found, after, alone, noted))
                    return
            if event is not None:  # read in the capture's engine: a request answered later is not settled
                self.pending.pop(event[1], None)
                self.requests += event[0]
        elif kind.id in self.projectable and self._lean(kind.id, alone, projectable=True):
            value = self.projected(value)
        elif kind.id in self.placed and self._lean(kind.id, alone, projectable=True):
            value = None
        self._append((line, sender, value, kind.id, found, after, alone, noted))

    def _settle(self, key: Any, line: int, sender: str | None, kind_id: str, noted: Noted) -> bool:
        """An answer whose ordered checks read nothing but its correlation, to the request awaiting under its key
        in this part (the latest, as the capture's correlation pairs them), which nothing but its correlation
        reads either: its reply checked here against that very request and clean, and fewer requests than the
        capture's bound between them (none can then be dropped before its answer comes). Both become steps of the
        capture's correlation, in their places (the request's item replaced): (line, sender, kind id, request
        id) remembers the request (SequenceRun.settled_request), (line, kind id, request id) answers it
        (settled_answer); with nothing between them, one step does both, a pair of a run of such pairs with
        nothing between them either (sequences.SettledPairs, `_pair`). They are the correlation's own steps, so
        whatever else touches the key in between, in this part or in the capture's engine (a message of no kind
        naming the same id, an answer read there), meets the same state as in one process. Both are counted here
        (`seen`), their senders noted as having spoken (`took`). True when settled."""
        pending = self.pending.pop(key, None)
        if pending is None or noted[1] is None or noted[1][1] or self.requests - pending[1] > self.awaiting_bound:
            return False
        items, seen, took = self.items, self.seen, self.took
        at = pending[0]
        asked_line, asked_by, _, asked_kind, _, _, _, asked = items[at]
        if at == len(items) - 1:  # nothing between them: one step, in a run of them (SettledPairs)
            self._pair(at, asked_line, asked_by, asked_kind, asked[0], kind_id)
        else:
            items[at] = (asked_line, asked_by, asked_kind, asked[0])
            self._append((line, kind_id, noted[0]))
        seen[asked_kind] += 1
        seen[kind_id] += 1
        if asked_by is None:  # a plain stream's: sent by its kind's producer (as Engine._ordered has it)
            asked_by = self.engine._kinds[asked_kind].producer
        if sender is None:
            sender = self.engine._kinds[kind_id].producer
        if asked_by != sender:  # the answer is the later: its sender's latest; the request's, unless noted later
            earlier = took.get(asked_by)
            if earlier is None or earlier[0] < asked_line:
                took[asked_by] = (asked_line, asked_kind)
        took[sender] = (line, kind_id)
        return True

    def _pair(self, at: int, line: int, sender: str | None, kind_id: str, request_id: Any, answer_id: str) -> None:
        """The request at `items[at]` (the last item), answered by the message after it: a pair of the run of
        pairs just before it, when nothing (no item, no observation) came between, else the first of a new run."""
        items, positions = self.items, self.positions
        shape = (kind_id, sender, answer_id)
        code = self._shape_codes.get(shape)
        if code is None:
            code = self._shape_codes[shape] = len(self.shapes)
            self.shapes.append(shape)
        run = self._run
        if at and items[at - 1] is run and positions[at - 1] == positions[at]:
            del items[at], positions[at]
        else:
            run = self._run = items[at] = SettledPairs(self.shapes)
        run.add(line, code, request_id)

    def _lean(self, kind_id: str, alone: bool, projectable: bool = False) -> bool:
        """Does nothing in the capture's engine read a message of this kind but what the part notes of it (a
        request's or answer's id; with `projectable`, the places the monitors and process obligations read, or
        nothing for a kind of `placed`)? Not where a rule reads its value (its rules settle nothing within a part:
        the part's engine shows them nothing); a rule that reads only its kind, place and sender
        (`reads_values = False`) does not."""
        lean = self._leaning.get((kind_id, alone))
        if lean is None:
            rules = self.run.keeping(kind_id) if alone else self.run.rules_by_kind[kind_id]
            lean = self._leaning[(kind_id, alone)] = (projectable or kind_id in self.lean) and all(
                getattr(rule, "reads_values", True) is False for rule in rules)
        return lean

    def _append(self, item: Any) -> None:
        self.items.append(item)
        self.positions.append(self.noted())

    def _consumers(self, message: Message, kind: MessageKind) -> tuple[Finding, ...]:
        found: list[Finding] = []
        message.kind = kind
        self.engine.messages.consumers(message, kind, found.append)
        return tuple(found)

    def accept_frame(self, frame: Any, line: int) -> bool:
        """A framed part's fast path (LineSink.accept): a frame {"from": a role, "message": an object} whose
        message is of a kind, checked here; False for anything else (read_framed reads it, `add` takes it)."""
        if type(frame) is not dict or len(frame) != 2:
            return False
        sender, value = frame.get("from"), frame.get("message")
        if type(value) is not dict or type(sender) is not str or sender not in self.engine.release.roles:
            return False
        kind = self.engine.classifier.stream_message_kind(value, sender)
        if kind is None:
            return False
        self._message(value, line, sender, kind, [])
        return True

    def add(self, item: Any) -> None:
        """One item of the part's line reader (a plain stream's items are read with `accept` as its fast path)."""
        engine = self.engine
        if type(item) is tuple:
            line, value = item
            if type(value) is not dict:
                self._append(item)
                return
            kind = self._last[1] if self._last[0] is value else None
            message = Message(value=value, file=self.file, line=line)
        elif type(item) is Message:
            message, kind = item, None
        else:  # a Finding, a ProcessRecord
            self._append(item)
            return
        found: list[Finding] = []
        engine._sender(message, found.append)
        if kind is None:
            kind = engine.classifier.classify(message, self.run.bases)
        if kind is None:  # of no kind: what the capture's sequence makes of it is decided there
            self.requests += 1  # it may be a request the capture's correlation remembers (see `_settle`)
            self._append(item)
            return
        self._message(message.value, message.line or 0, message.sender, kind, found)

    def _message(self, value: Any, line: int, sender: str | None, kind: MessageKind, found: list[Finding]) -> None:
        """A classified message (`found`: what its frame's sender already drew). A framed one of a fast kind that
        holds is taken, or goes back for the ordered checks alone; any other has its content checked here. (A plain
        stream's messages that hold were taken by `accept` before they got here.)"""
        entry = self.fast.get(kind.id) if sender is not None and not found else None
        if entry is not None and entry[0](value):
            if entry[3] is None:
                self.seen[kind.id] += 1
                for rule in entry[1]:
                    rule.observe(kind, value, self.file, line)
                self.took[sender] = (line, kind.id)
            else:
                self._checked(value, line, sender, kind, (), alone=True)
            return
        message = Message(value=value, file=self.file, line=line, sender=sender, kind=kind)
        self.engine.messages.content(message, kind, found.append)
        self._checked(value, line, sender, kind, tuple(found), alone=False, message=message)


def _refuse(value: Any, line: int) -> bool:
    return False


class _Recorder:
    """Stands for a kind's observers where the capture's rules are not (PartChecks): notes what they should
    be shown."""

    __slots__ = ("record",)

    def __init__(self, record: Callable[[str, int], None]):
        self.record = record

    def observe(self, kind: MessageKind, value: Any, file: str, line: int) -> None:
        self.record(kind.id, line)
