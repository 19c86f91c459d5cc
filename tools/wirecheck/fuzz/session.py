"""`wirecheck fuzz --messages-only`: a protocol-clean session of a release's stream kinds, or a reason why none.

Valid messages of each stream kind (`corpus.valid_messages`: valid to the whole engine on their own) are put in an
order the protocol accepts, from what the release's sequence rules declare (rules/registry.py `Session`):

- the handshake first (`first`: FIRST_MESSAGE_IS);
- turn output between a prompt and the result that ends the turn (`turns`: QODER_RESULT_ENDS_TURN,
  QODER_TURN_UNFINISHED), so the stream never ends inside a turn;
- every request with an id no other request has, answered right after it by a response that carries the id and
  a reply valid against the request's reply schema (the catalog's `answers`, `correlate`, `reply`);
- the release's behaviour obligations (behaviour.yaml) on stream kinds: no more of a kind than a `count` allows
  (the rest are left out, said so), a `last` kind at the end and a `first` kind first, `alternates` as blocks (an
  open, what goes between, its close) with the thing they follow (its key) the same in all of them, values a
  `unique` speaks of not repeated, a `negotiated` answer carrying the release's version, and no message that
  `refers` to another (a tool result: the generator makes no call for it to answer; what it leaves out is said), and
  no message a `leads_to` starts from (ACP's session/cancel: nothing is then owed after it; said in left_out).

The session is then judged by the engine, as `wirecheck validate` would judge it; one with any finding above info is
not written (`NoCleanSession` says what stood in the way), nor is one for a release without stream kinds, or with a
sequence rule on a stream kind that no session generator can satisfy (`off_streams`). Messages from more than one
producer are written framed (`{"from": role, "message": ...}` after the framing line), since a plain line cannot
say who sent it (JSON-RPC responses of both directions look alike); messages from one producer, plainly.
"""

from __future__ import annotations

import fnmatch
import io
import random
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import IO, Any

import orjson

from wirecheck.capture import CaptureFile
from wirecheck.check.message import Message
from wirecheck.contracts.model import ContractRelease, MessageKind
from wirecheck.findings import Severity, blocking
from wirecheck.fuzz.corpus import fuzzable_kinds, valid_messages
from wirecheck.fuzz.rules import engine_for
from wirecheck.fuzz.sampling import CannotGenerate, draw_examples
from wirecheck.fuzz.strategies import compiler_for
from wirecheck.pointer import replaced, resolve
from wirecheck.rules.registry import SEQUENCE, SESSIONS, scope_of

STREAM = "stdio-ndjson"
FRAMING = {"wirecheck_capture": 1, "framing": "directed"}
_TRIES = 8  # response candidates tried per request before the request is left out


class NoCleanSession(Exception):
    """No protocol-clean session can be written for the release (or the kinds asked for): why."""


@dataclass
class Session:
    """A protocol-clean session: (sender, message) in order; `framed` when senders differ."""

    lines: list[tuple[str, Any]]
    framed: bool
    left_out: dict[str, str] = field(default_factory=dict)  # kind id → why some of its messages are not in it

    def ndjson(self) -> Iterator[bytes]:
        if self.framed:
            yield orjson.dumps(FRAMING) + b"\n"
        for sender, value in self.lines:
            yield orjson.dumps({"from": sender, "message": value} if self.framed else value) + b"\n"


def session(release: ContractRelease, *, kinds: Iterable[str] = (), count: int = 10, seed: int = 0,
            not_generated: Callable[[str, str], None] | None = None) -> Session:
    """A protocol-clean session holding `count` messages of each stream kind (or of `kinds`, with what the
    protocol needs around them), judged clean by the engine; NoCleanSession otherwise."""
    stream = [k for k in fuzzable_kinds(release) if k.channel == STREAM]
    wanted = list(kinds)
    others = [k for k in wanted if release.kind(k).channel != STREAM]
    if others:
        raise NoCleanSession(f"not a stream kind: {', '.join(others)} ({release.kind(others[0]).channel}); a "
                             f"session holds {STREAM} messages (leave out --messages-only for labelled entries of "
                             "any kind)")
    if not stream:
        raise NoCleanSession(f"{release.name} has no {STREAM} kinds to write a session of; leave out "
                             "--messages-only for labelled entries of its kinds")
    plan = _Plan(release, stream, seed)
    plan.check_rules()
    selected = [release.kind(k) for k in wanted] if wanted else stream
    built = plan.build(selected, count, seed, not_generated)
    problems = _judged(release, built)
    if problems:
        raise NoCleanSession("the session the generator built is not clean: " + "; ".join(problems[:5])
                             + (f" (+{len(problems) - 5} more)" if len(problems) > 5 else ""))
    return built


class _Plan:
    """What the release's sequence rules and its requests ask of a session."""

    def __init__(self, release: ContractRelease, stream: list[MessageKind], seed: int):
        self.release, self.stream, self.ids = release, {k.id: k for k in stream}, 0
        self.first: list[tuple[str, str | None]] = []
        self.turns: list[dict[str, tuple[str, ...]]] = []
        self.random = random.Random(seed)
        # request kind → the response kinds that answer it (its consumer's first), by `answers` and `correlate`
        self.answers: dict[str, list[MessageKind]] = {}
        for response in stream:
            if response.answers is None or response.correlate is None:
                continue
            for request in stream:
                if request is not response and fnmatch.fnmatchcase(request.id, response.answers):
                    self.answers.setdefault(request.id, []).append(response)
        self.responses = {r.id for rs in self.answers.values() for r in rs}
        self.caps: dict[str, tuple[int, str]] = {}  # kind → how many a `count` allows, and which obligation says so
        self.last: list[str] = []  # kinds a `last` obligation puts at the end
        self.alternates: list[Any] = []  # (open kinds, close kinds, the key's pointer per kind or None)
        self.unique: list[Any] = []  # (kinds, where the values are)
        self.negotiated: list[Any] = []  # reply obligations: (request kinds, pointer into the answer, the version)
        self.referring: list[Any] = []  # (kinds, where they name another message, the obligation's id)
        self.leading: list[Any] = []  # (a leads_to's `after` messages on the stream, the obligation's id)

    def check_rules(self) -> None:
        """Read each sequence rule's declared session needs; refuse where none can satisfy it on a stream."""
        for use in self.release.rules:
            if scope_of(use.id) != SEQUENCE:
                continue
            need = SESSIONS[use.id](use.params)
            on_stream = [k for k in (use.kinds or self.stream) if k in self.stream]
            if need.off_streams is not None:
                if on_stream:
                    raise NoCleanSession(f"{use.id} is turned on for the stream kind(s) {', '.join(on_stream)}, "
                                         f"but {need.off_streams}: no session generator satisfies it on a stream")
            elif need.first is not None:
                self.first.append(need.first)
            elif need.turns is not None:
                self.turns.append(dict(need.turns))
        self._read_obligations()

    def _read_obligations(self) -> None:
        """What the release's behaviour obligations ask of a stream session (see the module docstring)."""
        keys = self.release.obligation_keys
        for obligation in self.release.obligations:
            params = obligation.params
            matched = params.get("messages")
            on_stream = sorted(k for k in (matched.kinds if matched is not None else ()) if k in self.stream)
            if obligation.form == "count" and ("at_most" in params or "exactly" in params) and "per" not in params:
                for kind_id in on_stream:
                    cap = params.get("at_most", params.get("exactly"))
                    if kind_id not in self.caps or cap < self.caps[kind_id][0]:
                        self.caps[kind_id] = (cap, obligation.id)
            elif obligation.form == "first":
                self.first.extend((kind_id, obligation.subject) for kind_id in on_stream[:1])
            elif obligation.form == "last":
                self.last.extend(k for k in on_stream if k not in self.last)
            elif obligation.form == "alternates":
                per = params.get("per")
                self.alternates.append((params["open"].kinds, params["close"].kinds,
                                        None if per is None else dict(keys.get(per, {}))))
            elif obligation.form == "unique" and on_stream:
                self.unique.append((frozenset(on_stream), params["at"]))
            elif obligation.form == "refers" and on_stream:
                self.referring.append((frozenset(on_stream), params["at"], obligation.id))
            elif obligation.form == "negotiated" and params.get("reply"):
                self.negotiated.append((matched.kinds, params["at"], tuple(params.get("equals") or
                                                                            (self.release.wire_version,))))
            elif obligation.form == "leads_to" and params["after"].kinds & set(self.stream):
                self.leading.append((params["after"], obligation.id))
            elif obligation.form in ("leads_to", "negotiated"):
                watched = set().union(*(m.kinds for m in params.values() if hasattr(m, "kinds"))) & set(self.stream)
                if watched:
                    raise NoCleanSession(f"{obligation.id} ({obligation.form}) speaks of the stream kind(s) "
                                         f"{', '.join(sorted(watched))}: no session generator satisfies it yet")

    # -- building ----------------------------------------------------------------------------------------------
    def build(self, selected: list[MessageKind], count: int, seed: int,
              not_generated: Callable[[str, str], None] | None) -> Session:
        left_out: dict[str, str] = {}
        wanted = self._with_what_they_need({k.id for k in selected})
        pool: dict[str, list[Message]] = {}
        for kind_id in sorted(wanted, key=list(self.stream).index):
            kind = self.stream[kind_id]
            try:
                pool[kind_id] = valid_messages(self.release, kind, count, seed)
            except CannotGenerate as exc:
                if not_generated is None or kind_id in self._required():
                    raise NoCleanSession(f"no message of {kind_id} can be generated: {exc}") from None
                not_generated(kind_id, str(exc))
        self._obliged(pool, left_out)
        head = self._handshake(pool)
        pairs = self._exchanges(pool, left_out)
        used = {m.kind.id for pair in pairs for m in pair if m.kind is not None}
        for kind_id in sorted(self.responses & set(pool) - used):
            left_out[kind_id] = ("it answers no request of the session: a response is written only after a "
                                 "request its sender receives")
        at_end = [m for kind_id in self.last for m in pool.pop(kind_id, [])]
        alternating = self._alternating(pool)
        turn_blocks, rest, last = self._turns(pool)
        last += at_end
        turn_blocks += alternating
        gaps: list[list[Message]] = [[] for _ in range(len(turn_blocks) + 1)]
        for unit in [[m] for m in rest] + pairs:  # anything else goes between turns, never inside one
            gaps[self.random.randrange(len(gaps))].extend(unit)
        ordered: list[Message] = list(head)
        for index, block in enumerate(turn_blocks):
            ordered += gaps[index] + block
        ordered += gaps[-1] + last
        senders = [self._sender(m) for m in ordered]
        return Session(list(zip(senders, [m.value for m in ordered], strict=True)), len(set(senders)) > 1,
                       left_out)

    def _obliged(self, pool: dict[str, list[Message]], left_out: dict[str, str]) -> None:
        """The pool within what `count` and `unique` obligations allow (what is left out is said)."""
        for kind_id, (cap, obligation_id) in self.caps.items():
            if kind_id in pool and len(pool[kind_id]) > cap:
                pool[kind_id] = pool[kind_id][:cap]
                left_out[kind_id] = f"{obligation_id}: a capture holds at most {cap} of them"
        for kinds, place, obligation_id in self.referring:
            for kind_id in sorted(kinds & set(pool)):
                kept = [m for m in pool[kind_id] if not place.values(m.value)]
                if len(kept) < len(pool[kind_id]):
                    left_out[kind_id] = (f"{obligation_id}: a message naming another (at {place.text}) answers a "
                                         "call the session does not make")
                pool[kind_id] = kept
        for after, obligation_id in self.leading:  # no `after` message: nothing is owed after one
            for kind_id in sorted(after.kinds & set(pool)):
                kept = [m for m in pool[kind_id] if not after.matches(kind_id, m.value)]
                if len(kept) < len(pool[kind_id]):
                    left_out[kind_id] = (f"{obligation_id}: the session sends no {after.text}, so nothing is owed "
                                         "after one")
                pool[kind_id] = kept
        for kinds, place in self.unique:
            seen: set[Any] = set()
            for kind_id in sorted(kinds & set(pool)):
                kept = []
                for message in pool[kind_id]:
                    values = {orjson.dumps(v) for v in place.values(message.value)}
                    if values & seen:
                        left_out[kind_id] = "a value it would repeat is one a capture sends once"
                        continue
                    seen |= values
                    kept.append(message)
                pool[kind_id] = kept

    def _alternating(self, pool: dict[str, list[Message]]) -> list[list[Message]]:
        """`alternates` obligations as blocks: an open, the messages of no block, its close; every message that
        names the obligation's key names the first one's thing (one value for the session)."""
        blocks: list[list[Message]] = []
        for opens, closes, key in self.alternates:
            opened = [m for k in sorted(opens & set(pool)) for m in pool.pop(k)]
            closed = [m for k in sorted(closes & set(pool)) for m in pool.pop(k)]
            pairs = min(len(opened), len(closed))
            blocks += [[opened[i], closed[i]] for i in range(pairs)]
            if key:
                self._one_thing(blocks, pool, key)
        return blocks

    def _one_thing(self, blocks: list[list[Message]], pool: dict[str, list[Message]], key: dict[str, Any]) -> None:
        """Every message carrying the key (its kind's place in `keys`) carries the first block's value, where it
        stays valid alone; one that would not is dropped."""
        first = next((m for block in blocks for m in block if m.kind is not None and m.kind.id in key), None)
        if first is None:
            return
        place = key[first.kind.id]  # type: ignore[union-attr]
        found = place.values(first.value)
        if not found or place.tokens is None or "*" in place.tokens:
            return
        value = found[0]

        def same(message: Message) -> Message | None:
            if message.kind is None or message.kind.id not in key or key[message.kind.id].tokens is None:
                return message
            changed = replace(message, value=replaced(message.value, key[message.kind.id].tokens, value))
            return None if blocking(engine_for(self.release).judge_alone(changed)) else changed

        for block in blocks:
            block[:] = [m for m in map(same, block) if m is not None]
        for kind_id in list(pool):
            pool[kind_id] = [m for m in map(same, pool[kind_id]) if m is not None]

    def _required(self) -> set[str]:
        return {kind for kind, _ in self.first if kind in self.stream}

    def _with_what_they_need(self, wanted: set[str]) -> set[str]:
        """The kinds asked for, the handshake, what closes their turns, and the requests their responses answer."""
        out = set(wanted) | self._required()
        for turns in self.turns:
            if out & set(turns["turn"]):
                out |= {k for k in (*turns["result"], *turns["prompt"]) if k in self.stream}
        for request_id, responses in self.answers.items():
            if any(r.id in out for r in responses):
                out.add(request_id)
        return out

    @staticmethod
    def _sender(message: Message) -> str:
        assert message.kind is not None
        return message.kind.producer

    def _handshake(self, pool: dict[str, list[Message]]) -> list[Message]:
        head = []
        for kind_id, _role in self.first:
            messages = pool.get(kind_id)
            if not messages:
                raise NoCleanSession(f"the handshake {kind_id} cannot be generated")
            head.append(messages.pop(0))
        return head

    def _turns(self, pool: dict[str, list[Message]]) -> tuple[list[list[Message]], list[Message], list[Message]]:
        """Turn blocks (a prompt, turn output, the result that ends it), the messages that belong to no turn (they
        go between turns), and the results left over (they go last: a result followed by turn output would need
        a prompt in between)."""
        if not self.turns:
            return [], [m for kind_id, ms in pool.items() if kind_id not in self.responses for m in ms], []
        turns = self.turns[0]  # one turn grammar per release: the params the rules share
        output = [m for k in turns["turn"] for m in pool.get(k, [])]
        results = [m for k in turns["result"] for m in pool.get(k, [])]
        prompts = [m for k in turns["prompt"] for m in pool.get(k, [])]
        if output and not results:
            raise NoCleanSession(f"turn output ({', '.join(turns['turn'])}) needs a result to end its turn, and no "
                                 f"result kind ({', '.join(turns['result'])}) can be generated")
        # each turn opens with a prompt where there is one (after a result, turn output needs one first)
        count = (min(len(results), len(prompts)) if prompts else 1) if output else 0
        blocks: list[list[Message]] = [[] for _ in range(count)]
        for index, message in enumerate(output):
            blocks[index % count].append(message)
        for block in blocks:
            block[:0] = [prompts.pop(0)] if prompts else []
            block.append(results.pop(0))
        used = set(turns["turn"]) | set(turns["result"]) | set(turns["prompt"])
        rest = [m for kind_id, ms in pool.items() if kind_id not in used | self.responses for m in ms]
        return blocks, rest + prompts, results

    def _exchanges(self, pool: dict[str, list[Message]], left_out: dict[str, str]) -> list[list[Message]]:
        """Each request (pulled from the pool) with a unique id, and its response right after it. A message of a
        kind some response answers is a request when its kind has a reply schema or it carries an id; else it is
        a notification (JSON-RPC's `session/cancel`) and stays as it is."""
        pairs = []
        for request_id in [k for k in self.answers if k in pool]:
            kind, kept = self.stream[request_id], []
            pointer = self.answers[request_id][0].correlate[0]  # type: ignore[index]
            for request in pool[request_id]:
                if kind.reply is None and resolve(request.value, pointer, _ABSENT) is _ABSENT:
                    kept.append(request)
                    continue
                numbered = self._numbered(request)
                response = self._answer(numbered, pool) if numbered is not None else None
                if numbered is None or response is None:
                    left_out[request_id] = "no response valid for its reply schema could be built"
                    continue
                pairs.append([numbered, response])
            pool[request_id] = kept
        return pairs

    def _numbered(self, request: Message) -> Message | None:
        """The request with an id no other request of the session has (a string, else an integer)."""
        assert request.kind is not None
        pointer = self.answers[request.kind.id][0].correlate[0]  # type: ignore[index]
        self.ids += 1
        for candidate in (f"wirecheck-{self.ids}", self.ids):
            numbered = replace(request, value=replaced(request.value, pointer, candidate))
            if not blocking(engine_for(self.release).judge_alone(numbered)):
                return numbered
        return None

    def _answer(self, request: Message, pool: dict[str, list[Message]]) -> Message | None:
        assert request.kind is not None
        request_kind = request.kind
        answering = self.answers[request_kind.id]
        mine = [r for r in answering if r.producer == request_kind.consumer] or answering
        turn = self.ids % len(mine)  # success and error responses in turn, each kind exercised
        for response_kind in mine[turn:] + mine[:turn] + [r for r in answering if r not in mine]:
            assert response_kind.correlate is not None
            request_id = resolve(request.value, response_kind.correlate[0], None)
            for candidate in self._responses(response_kind, pool):
                value = replaced(candidate.value, response_kind.correlate[1], request_id)
                if request_kind.reply is not None and resolve(value, request_kind.reply.at, _ABSENT) is not _ABSENT:
                    value = replaced(value, request_kind.reply.at, self._reply(request_kind))
                for kinds, at, versions in self.negotiated:  # the answer to a handshake: the release's version
                    if request_kind.id in kinds and resolve(value, at, _ABSENT) is not _ABSENT:
                        value = replaced(value, at, versions[0])
                answer = replace(candidate, value=value)
                if not blocking(engine_for(self.release).judge_alone(answer)) and self._reply_ok(request_kind, value):
                    return answer
        return None

    def _responses(self, kind: MessageKind, pool: dict[str, list[Message]]) -> list[Message]:
        found = pool.get(kind.id) or []
        if not found:
            return []
        self.random.shuffle(found)
        return found[:_TRIES]

    def _reply(self, request_kind: MessageKind) -> Any:
        assert request_kind.reply is not None
        strategy = compiler_for(self.release).for_uri(request_kind.reply.schema.uri)
        self.ids += 1
        return draw_examples(strategy, 1, self.ids)[0]

    def _reply_ok(self, request_kind: MessageKind, value: Any) -> bool:
        reply = request_kind.reply
        if reply is None:
            return True
        payload = resolve(value, reply.at, _ABSENT)
        return payload is _ABSENT or not engine_for(self.release).validators.pair(reply.schema).problems(payload)


_ABSENT = object()


def _judged(release: ContractRelease, built: Session) -> list[str]:
    """What the engine finds above info in the session, as `wirecheck validate` would read it."""
    data = b"".join(built.ndjson())
    found: list[str] = []
    engine = engine_for(release)
    result = engine.run([_InMemory("<session>", data)],
                        on_finding=lambda f: found.append(
                            f"line {f.line} {f.code} [{f.kind}] {f.message}") if f.severity.rank > Severity.INFO.rank
                        else None)
    if result.unclassified:
        found.append(f"{result.unclassified} message(s) not classified")
    return found


class _InMemory(CaptureFile):
    """A capture held in memory (the session, judged before it is written)."""

    def __init__(self, label: str, data: bytes):
        super().__init__(label)
        self._data = data

    @contextmanager
    def open(self) -> Iterator[IO[bytes]]:
        yield io.BytesIO(self._data)


