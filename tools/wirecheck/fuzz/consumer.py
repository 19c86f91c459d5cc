"""Consumer fuzzing: feed generated valid messages and labelled mutants to a real consumer, report where it
disagrees with the contract, and shrink each disagreement to a minimal example.

A consumer is either
- a Python callable `module:function` taking one parsed message: returning a value = accept, returning `None`
  = ignore (skipped, as forward-compatible parsers do with unknown types), raising one of the declared
  rejection exceptions = reject, raising anything else = crash, running past the timeout = hang. "Anything
  else" includes BaseExceptions (`sys.exit()`, GeneratorExit, a KeyboardInterrupt the callable raises itself):
  the callable is the code under test and cannot end wirecheck's run; only a real Ctrl-C (SIGINT) does; or
- a process (argv, never a shell) speaking the line protocol below, started with a scratch HOME,
  XDG_CONFIG_HOME and TMPDIR.

Line protocol (the process's stdin/stdout, UTF-8):
    wirecheck → consumer:  one JSON message per line
    consumer → wirecheck:  one line per message, in order: `accept`, `ignore`, or `reject` optionally followed
                           by a space and a reason (`reject missing field "uuid"`)
    Any other answer is a protocol error (reported as a crash); no answer within the timeout is a hang; the
    process exiting is a crash. After a crash or a hang the process is restarted for the next message; the first
    answer after a start may take `startup` seconds longer (interpreter start-up is not a hang).

Findings, by category: `valid-rejected` (a message the contract allows is refused), `invalid-accepted` (a
mutant that breaks a labelled constraint is accepted), `crash`, `hang`. Valid messages the consumer ignores are
counted per kind, not reported as failures: ignoring a kind can be a deliberate forward-compatibility choice.
"""

from __future__ import annotations

import contextlib
import copy
import importlib
import os
import selectors
import signal
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson
from hypothesis import HealthCheck, Phase, find, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample, Unsatisfiable

from wirecheck.contracts.model import ContractRelease, MessageKind
from wirecheck.fuzz.corpus import kind_corpus
from wirecheck.fuzz.mutants import MutantFactory
from wirecheck.fuzz.rules import KindRules
from wirecheck.fuzz.strategies import compiler_for, kind_messages
from wirecheck.programs.program import Program, Scratch, resolve_program
from wirecheck.programs.signals import Terminated
from wirecheck.programs.tail import Tail, last_words

ACCEPT, IGNORE, REJECT, CRASH, HANG = "accept", "ignore", "reject", "crash", "hang"


@dataclass(frozen=True)
class Verdict:
    outcome: str  # accept | ignore | reject | crash | hang
    detail: str = ""  # the reason, the exception (type, message, where raised), the protocol error

    @property
    def signature(self) -> str:
        """What makes two failures the same failure: the exception type and where it was raised."""
        if self.outcome == CRASH:
            head = self.detail.split(":", 1)[0]
            where = self.detail.rsplit(" at ", 1)[-1] if " at " in self.detail else ""
            return f"{head} at {where}" if where else head
        return self.outcome


_EOF = b"\x00wirecheck-eof"  # the consumer closed its stdout (a distinct object, compared by identity)
_TOO_LONG = b"\x00wirecheck-too-long"  # an answer line past MAX_ANSWER_BYTES
MAX_ANSWER_BYTES = 64 << 10  # an answer is a word and a reason: more without a line end is not the protocol


class ConsumerTimeout(Exception):
    pass


class PythonConsumer:
    """A callable `module:function`; `rejects` are the exception types that mean a deliberate refusal."""

    def __init__(self, target: str, *, rejects: Sequence[str] = (), timeout: float = 5.0):
        self.target = target
        self.function = load_object(target)
        if not callable(self.function):
            raise ValueError(f"{target}: not callable (a {type(self.function).__name__})")
        self.rejects = tuple(_exception_class(name) for name in rejects) or (ValueError,)
        self.timeout = timeout

    def describe(self) -> str:
        names = ", ".join(f"{r.__module__}.{r.__qualname__}" for r in self.rejects)
        return f"python callable {self.target} (rejects: {names})"

    def __call__(self, message: Any) -> Verdict:
        with _interrupts() as interrupted, _alarm(self.timeout):
            try:
                result = self.function(copy.deepcopy(message))
            except ConsumerTimeout:
                return Verdict(HANG, f"no answer within {self.timeout:g} s")
            except KeyboardInterrupt as exc:  # before the rejects: `--reject-exception builtins:BaseException`
                if interrupted():
                    raise  # the user pressed Ctrl-C: stop the run
                return _crash(exc)  # the callable raised it itself
            except Terminated:  # SIGTERM or SIGHUP to wirecheck, delivered while the callable ran: stop the run
                raise
            except self.rejects as exc:
                return Verdict(REJECT, f"{type(exc).__name__}: {_first_line(exc)}")
            except BaseException as exc:  # sys.exit(), GeneratorExit, ...: the consumer crashed, the run goes on
                return _crash(exc)
        return Verdict(IGNORE if result is None else ACCEPT, type(result).__name__)

    def close(self) -> None:
        pass


class ProcessConsumer:
    """A long-running process that speaks the line protocol; restarted after a crash or a hang. It runs as every
    program wirecheck starts does (wirecheck.programs): found where the user is, no shell, a scratch HOME,
    XDG_CONFIG_HOME and TMPDIR (the rest of the environment passed through), a process group of its own that is
    ended with everything it started."""

    def __init__(self, argv: Sequence[str], *, timeout: float = 5.0, cwd: str | None = None, startup: float = 10.0):
        if not argv:
            raise ValueError("no command given")
        # a CommandError (a ValueError) names what is wrong: not found, not executable, a directory
        self.argv = [resolve_program(argv[0], os.environ.get("PATH")), *argv[1:]]
        self.timeout = timeout
        self.startup = startup  # extra seconds for the first answer after a (re)start: interpreters load slowly
        self.cwd = cwd
        self.problems: list[str] = []  # processes it left behind (each ended): not verdicts on messages
        self.heard = False  # any byte on its stdout, ever: a consumer that never spoke gives no verdict
        self.last_words = ""  # what it last wrote on stderr before it was last stopped (tail.last_words)
        self._fresh = False
        self._scratch = Scratch.create()
        self._program: Program | None = None
        self._stderr: Tail | None = None
        self._buffer = b""

    def describe(self) -> str:
        return f"process {' '.join(self.argv)} (line protocol, timeout {self.timeout:g} s)"

    def _start(self) -> Program:
        if self._program is None or self._program.poll() is not None:
            if self._program is not None:
                self._stop()
            self._program = Program(self.argv, env=self._scratch.env(pass_through=tuple(os.environ)), cwd=self.cwd,
                                    scratch=self._scratch)
            self._stderr = Tail().follow(self._program.stderr)  # read as it comes: a chatty consumer never blocks
            self._buffer = b""
            self._fresh = True
        return self._program

    def _stop(self) -> str:
        """End the process (and all it started); the last line of its stderr (what tells crashes apart)."""
        program, self._program = self._program, None
        if program is None:
            return ""
        self.problems += program.stop(grace=0.0)
        with contextlib.suppress(OSError, ValueError):
            if program.stdout is not None:
                program.stdout.close()
        text = ""
        if self._stderr is not None:
            self._stderr.join(5.0)  # everything holding the pipe has ended: its end is near
            text, self._stderr = self._stderr.text(), None
        self.last_words = last_words(text) or self.last_words
        return last_words(text, lines=1, chars=200)

    def __call__(self, message: Any) -> Verdict:
        program = self._start()
        data = orjson.dumps(message) + b"\n"
        seconds = self.timeout + (self.startup if self._fresh else 0.0)
        written = program.write(data, time.monotonic() + seconds)
        if written < 0:
            code = program.wait(5)
            return Verdict(CRASH, f"exited ({code}) before reading the message: {self._stop()}")
        if written < len(data):  # a message larger than a pipe holds, and a consumer that does not read it
            self._stop()
            return Verdict(HANG, f"took {written} of the message's {len(data)} bytes within {seconds:g} s")
        line = self._read_line(program)
        if line is None:
            self._stop()
            return Verdict(HANG, f"no answer within {self.timeout:g} s")
        if line is _EOF:
            status = program.wait(5)
            return Verdict(CRASH, f"exited with status {status}: {self._stop()}")
        if line is _TOO_LONG:
            self._stop()
            return Verdict(CRASH, f"protocol error: an answer longer than {MAX_ANSWER_BYTES} bytes")
        text = line.decode("utf-8", "replace").strip()
        word, _, reason = text.partition(" ")
        if word in (ACCEPT, IGNORE) and not reason:
            return Verdict(word)
        if word == REJECT:
            return Verdict(REJECT, reason)
        self._stop()
        return Verdict(CRASH, f"protocol error: answered {text[:120]!r}")

    def _read_line(self, program: Program) -> bytes | None:
        assert program.stdout is not None
        deadline = time.monotonic() + self.timeout + (self.startup if self._fresh else 0.0)
        self._fresh = False
        fd = program.stdout.fileno()
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                if len(self._buffer) > MAX_ANSWER_BYTES:
                    return _TOO_LONG
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not selector.select(remaining):
                    return None
                chunk = os.read(fd, 65536)
                if not chunk:
                    return _EOF
                self.heard = True
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def close(self) -> None:
        if self._program is not None:
            self._program.close_stdin()
            self._program.wait(2)
            self._stop()
        self._scratch.remove()


# -- the run -----------------------------------------------------------------------------------------------------
VALID_REJECTED, INVALID_ACCEPTED = "valid-rejected", "invalid-accepted"
# A consumer that reads past unknown keys follows the tolerant-reader rule; the closed contract binds producers.
# Reported apart, not as a failure.
UNKNOWN_ACCEPTED = "unknown-field-accepted"
CATEGORIES = (VALID_REJECTED, INVALID_ACCEPTED, CRASH, HANG, UNKNOWN_ACCEPTED)
FAILING = (VALID_REJECTED, INVALID_ACCEPTED, CRASH, HANG)
_CLOSING = ("additionalProperties", "unevaluatedProperties")


@dataclass
class Failure:
    """One distinct way the consumer disagrees with the contract, with the places it was seen and a minimal example."""

    category: str
    kind: str
    signature: str  # the broken constraint (keyword), the exception and where, or the rejection
    example: Any
    verdict: Verdict
    label: str | None = None  # for mutants: keyword at pointer of the example
    places: dict[str, int] = field(default_factory=dict)  # label or pointer → how often
    count: int = 0
    shrunk: bool = False

    def as_json(self) -> dict[str, Any]:
        return {
            "category": self.category,
            "kind": self.kind,
            "signature": self.signature,
            "count": self.count,
            "places": dict(sorted(self.places.items())),
            "example": self.example,
            "example_label": self.label,
            "verdict": {"outcome": self.verdict.outcome, "detail": self.verdict.detail},
            "shrunk": self.shrunk,
        }


@dataclass
class KindTally:
    valid: dict[str, int] = field(default_factory=dict)  # outcome → count
    invalid: dict[str, int] = field(default_factory=dict)


@dataclass
class FuzzReport:
    release: str
    consumer: str
    seed: int
    count: int
    kinds: dict[str, KindTally]
    failures: list[Failure]
    not_generated: dict[str, str] = field(default_factory=dict)  # kind → why no message was made
    # A process consumer that never wrote a byte on stdout: why (no verdict: exit RUN_FAILED), its last words
    run_failed: str | None = None
    program_said: str = ""

    @property
    def failed(self) -> bool:
        return any(f.category in FAILING for f in self.failures)

    def as_json(self) -> dict[str, Any]:
        return {
            "wirecheck_consumer_fuzz": 1,
            "release": self.release,
            "consumer": self.consumer,
            "seed": self.seed,
            "count_per_kind": self.count,
            "kinds": {k: {"valid": t.valid, "invalid": t.invalid} for k, t in self.kinds.items()},
            "totals": {c: sum(f.count for f in self.failures if f.category == c) for c in CATEGORIES},
            "failures": [f.as_json() for f in self.failures],
            "not_generated": dict(self.not_generated),
            **({"run": {"failed": True, "problem": self.run_failed, "program_said": self.program_said}}
               if self.run_failed else {}),
        }


def _category(expect_valid: bool, verdict: Verdict, keyword: str | None = None) -> str | None:
    if verdict.outcome in (CRASH, HANG):
        return verdict.outcome
    if expect_valid and verdict.outcome == REJECT:
        return VALID_REJECTED
    if not expect_valid and verdict.outcome == ACCEPT:
        return UNKNOWN_ACCEPTED if keyword in _CLOSING else INVALID_ACCEPTED
    return None


def fuzz_consumer(
    release: ContractRelease,
    consumer: Callable[[Any], Verdict],
    *,
    kinds: Iterable[str] = (),
    count: int = 50,
    seed: int = 0,
    invalid: bool = True,
    shrink: bool = True,
    shrink_budget: int = 150,
    description: str = "",
    progress: Callable[[str], None] | None = None,
) -> FuzzReport:
    tallies: dict[str, KindTally] = {}
    groups: dict[tuple[str, str, str], Failure] = {}
    not_generated: dict[str, str] = {}
    for kind, entries in kind_corpus(release, kinds=kinds, count=count, seed=seed, invalid=invalid,
                                     not_generated=not_generated.__setitem__):
        if progress:
            progress(kind.id)
        tally = tallies.setdefault(kind.id, KindTally())
        for entry in entries:
            expect_valid = entry.mutant is None
            verdict = consumer(entry.message)
            side = tally.valid if expect_valid else tally.invalid
            side[verdict.outcome] = side.get(verdict.outcome, 0) + 1
            category = _category(expect_valid, verdict, entry.mutant.keyword if entry.mutant else None)
            if category is None:
                continue
            accepted = category in (INVALID_ACCEPTED, UNKNOWN_ACCEPTED)
            signature = entry.mutant.keyword if accepted and entry.mutant else verdict.signature
            place = entry.mutant.label if entry.mutant else "valid"
            failure = groups.get((category, kind.id, signature))
            if failure is None:
                label = entry.mutant.label if entry.mutant else None
                failure = Failure(category, kind.id, signature, entry.message, verdict, label)
                groups[(category, kind.id, signature)] = failure
            failure.count += 1
            failure.places[place] = failure.places.get(place, 0) + 1
    failures = sorted(groups.values(), key=lambda f: (CATEGORIES.index(f.category), f.kind, f.signature))
    sent = sum(sum(t.valid.values()) + sum(t.invalid.values()) for t in tallies.values())
    if sent and not getattr(consumer, "heard", True):  # it never answered: these are not verdicts on messages
        first = failures[0].verdict.detail if failures else "no answer"
        return FuzzReport(release.name, description, seed, count, tallies, failures, not_generated,
                          run_failed=f"the consumer wrote nothing on stdout to any of {sent} "
                                     f"message{'s' if sent != 1 else ''} ({first})",
                          program_said=getattr(consumer, "last_words", ""))
    if shrink:
        for failure in failures:
            if progress:
                progress(f"shrinking {failure.category} {failure.kind} {failure.signature}")
            _shrink(release, release.kind(failure.kind), consumer, failure, shrink_budget, seed)
    return FuzzReport(release.name, description, seed, count, tallies, failures, not_generated)


def _shrink(
    release: ContractRelease, kind: MessageKind, consumer: Callable[[Any], Verdict], failure: Failure,
    budget: int, seed: int,
) -> None:
    """Replace the failure's example by the smallest message that fails the same way (Hypothesis `find`)."""
    assert kind.schema is not None
    messages = kind_messages(release, kind.id)  # as the engine reads them: an HTTP body with its envelope
    valid = messages.map(lambda message: message.value)
    if failure.category == HANG:
        budget = min(budget, 10)

    accepted = failure.category in (INVALID_ACCEPTED, UNKNOWN_ACCEPTED)

    def same_failure(expect_valid: bool, message: Any) -> bool:
        verdict = consumer(message)
        keyword = failure.signature if accepted else None
        return _category(expect_valid, verdict, keyword) == failure.category and (
            accepted or verdict.signature == failure.signature
        )

    options = settings(
        max_examples=budget,
        database=None,
        derandomize=True,
        deadline=None,
        phases=[Phase.generate, Phase.shrink],
        suppress_health_check=list(HealthCheck),
    )
    try:
        if failure.label is None:
            found = find(valid, lambda m: same_failure(True, m), settings=options)
            failure.example, failure.verdict = found, consumer(found)
        else:
            keyword, _, pointer = failure.label.partition(" at ")
            pointer = "" if pointer == "/" else pointer
            factory = MutantFactory(
                compiler_for(release).schemas, kind.schema.uri, kind=kind.id, rules=KindRules(release, kind)
            )

            @st.composite
            def mutants(draw: Any) -> Any:
                base = draw(messages)
                found = [m for m in factory.mutants_at(base.value, pointer, base) if m.keyword == keyword]
                if not found:
                    found = [m for m in factory.mutants(base.value, base) if m.keyword == keyword]
                return draw(st.sampled_from(found)) if found else None

            shrunk = find(mutants(), lambda m: m is not None and same_failure(False, m.instance), settings=options)
            failure.example, failure.label, failure.verdict = shrunk.instance, shrunk.label, consumer(shrunk.instance)
        failure.shrunk = True
    except (NoSuchExample, Unsatisfiable):
        pass  # the unshrunk example stays: it is real, just not minimal


# -- helpers -------------------------------------------------------------------------------------------------------
def load_object(target: str) -> Any:
    """`package.module:attribute` (a dotted attribute path is allowed after the colon)."""
    module_name, sep, attribute = target.partition(":")
    if not sep or not module_name or not attribute:
        raise ValueError(f"expected module:attribute, got {target!r}")
    try:
        value: Any = importlib.import_module(module_name)
    except (ImportError, KeyboardInterrupt):
        raise
    except BaseException as exc:  # the user's module failing, or calling sys.exit(), as it loads
        raise ImportError(f"importing {module_name!r} raised {type(exc).__name__}: {_first_line(exc)} "
                          f"at {_raised_at(exc)}") from None
    for part in attribute.split("."):
        value = getattr(value, part)
    return value


def _exception_class(target: str) -> type[BaseException]:
    """A --reject-exception: an exception class (a real Ctrl-C must stay an interruption, never a rejection)."""
    value = load_object(target)
    if not (isinstance(value, type) and issubclass(value, BaseException)):
        raise ValueError(f"{target}: not an exception class")
    if issubclass(value, KeyboardInterrupt):
        raise ValueError(f"{target}: a KeyboardInterrupt cannot mean a rejection")
    return value


def _crash(exc: BaseException) -> Verdict:
    return Verdict(CRASH, f"{type(exc).__name__}: {_first_line(exc)} at {_raised_at(exc)}")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else ""


def _raised_at(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "?"
    frame = frames[-1]
    return f"{os.path.basename(frame.filename)}:{frame.lineno}"


@contextlib.contextmanager
def _alarm(seconds: float) -> Any:
    """A timeout for a Python callable (main thread on POSIX only; elsewhere no timeout)."""
    usable = hasattr(signal, "setitimer") and _in_main_thread()
    if not usable:
        yield
        return

    def on_alarm(signum: int, frame: Any) -> None:
        raise ConsumerTimeout()

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def _interrupts() -> Iterator[Callable[[], bool]]:
    """Yields a function telling whether a SIGINT arrived meanwhile: a KeyboardInterrupt without one was raised by
    the consumer itself. Python runs signal handlers in the main thread only, so elsewhere (and when SIGINT is
    ignored or left to the OS) no KeyboardInterrupt can come from the user."""
    seen = False

    def interrupted() -> bool:
        return seen

    previous = signal.getsignal(signal.SIGINT) if _in_main_thread() else None
    if not callable(previous):
        yield interrupted
        return
    forward = previous

    def on_interrupt(signum: int, frame: Any) -> None:
        nonlocal seen
        seen = True
        forward(signum, frame)

    signal.signal(signal.SIGINT, on_interrupt)
    try:
        yield interrupted
    finally:
        signal.signal(signal.SIGINT, previous)


def _in_main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()
