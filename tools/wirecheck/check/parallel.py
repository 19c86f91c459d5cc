"""Checking captures on every core: the same engine in worker processes, results merged (check/result.py).

On Linux the workers are forked from this process and inherit its engine (release loaded, validators compiled),
but only while this process runs one thread: otherwise they come from a fork server and load the release
themselves; elsewhere they are spawned and load it (start_method). Two kinds of work go to them, through one
`concurrent.futures` process pool:
- a batch of whole captures, checked by the worker's engine; its result comes back and is merged;
- a part of one large NDJSON capture, plain or framed: byte ranges cut at line ends. This process reads the first
  range itself (it settles the capture's form and whatever rules need the first messages), then hands each later
  range to a worker with the rules still unsettled. The worker reads it with the same line reader and checks every
  message (check/parts.py): classified, its content checked against both views, its consumers' contracts; a
  message of a kind that needs no ordered state, and holds, is taken there (counted; compact (kind, line) notes
  for rules that observe by kind and line alone); every other comes back as a compact `Checked` tuple with the
  findings of its own checks, and a request or an answer with the id it carries, its reply checked against the
  request it answers when that request is in the same part (sequences.PartAnswers), its value left out when
  nothing else here reads it; a request answered within the part, and its answer, as one or two compact steps of
  the capture's correlation in their places (PartChecks._settle; pairs in a row as one run: SettledPairs). This
  process feeds all of it, in capture order, to the engine: correlation, behaviour obligations and rules that
  keep state run here, on notes instead of values wherever they can.
  HARs and JSON documents are one JSON value each: they are checked whole.

Either way the findings, coverage and counts are those of a sequential run (tested on every bundled fixture). A
worker that dies (killed, out of memory) breaks the pool: whatever it or the others had not returned is checked in
this process instead, so nothing is lost. Small runs stay in this process: starting workers costs more than they
save.

Workers never outlive this process, however it ends. Each watches its parent (`_watch_parent`: multiprocessing's
parent sentinel, a pipe whose other end only this process holds, on Linux, macOS and Windows alike) and ends the
moment it closes: a SIGKILL or the OOM killer leaves no orphan blocked on a pipe for ever, nor one holding the read
end of a pipe into standard input. SIGTERM and SIGHUP (a CI job's cancel, `kill PID`) end a run with workers through
`Terminated` (exit 128 + the signal): the workers are killed, not waited for.
"""

from __future__ import annotations

import gc
import os
import signal
import stat
import sys
import threading
from array import array
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, cast

from wirecheck.capture import FORM_LOOKAHEAD, CaptureFile, CaptureUnreadable, read_capture, read_lines
from wirecheck.capture.ndjson import LineSink, iter_lines, read_framed
from wirecheck.check import correlation
from wirecheck.check.engine import CheckOptions, Engine, Reading
from wirecheck.check.message import Message
from wirecheck.check.parts import PartChecks
from wirecheck.check.result import CaptureSummary, CheckResult, GroupKey, KindCoverage, Omission, merge
from wirecheck.check.sequences import SettledPairs
from wirecheck.findings import Severity

if TYPE_CHECKING:  # multiprocessing and the pool are imported by a run that starts workers: a small one does not
    from concurrent.futures import Future, ProcessPoolExecutor

RANGE_BYTES = 4 << 20  # a part of a split capture (4 MiB: measured best of 2, 4, 8, 16 on -j 2)
FIRST_RANGE_BYTES = 64 << 10  # the first part, read by this process: grown only until it settles the form
SPLIT_MIN_BYTES = 2 * RANGE_BYTES  # a capture smaller than this is checked whole, by one worker
PARALLEL_MIN_BYTES = 4 << 20  # with the default -j, a run smaller than this stays in this process


WORKERS_PER_CPU = 4  # more CPU-bound workers than this only share the same CPUs


def _pool_size(plan: Plan, sizes: list[int | None]) -> int:
    """The workers `plan` gets: what it asks, but no more than WORKERS_PER_CPU for each CPU this process may use,
    nor more than the pieces the captures make (each whole capture, or each part of one worth splitting), and never
    fewer than two where it asks for two or more (`-j 2` on a small capture uses its workers, as asked). A pipe's
    size is unknown: it may make any number of parts."""
    most = WORKERS_PER_CPU * available_cpus()
    if all(size is not None for size in sizes):
        most = min(most, sum(max(1, -(-(size or 0) // plan.range_bytes)) if (size or 0) >= plan.split_min_bytes
                             else 1 for size in sizes))
    return min(plan.jobs, max(2, most))


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity mask, which containers and `taskset` narrow)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


@dataclass(frozen=True)
class ReleaseSource:
    """How a worker process loads the release (a release holds compiled validators, which do not pickle)."""

    contracts: str | None  # what load_registry reads (folders separated by os.pathsep); None: the installed ones
    spec: str  # package@version


BATCH_MAX = 32  # whole captures per task at most
# How workers start, each measured by `nox -s bench` (reports/bench/scaling.md, "start methods"): a fork costs
# ~0.05 s for two workers, which inherit this process's engine; a fork server (started once per process, with
# wirecheck's modules imported) ~1.4 s the first time and ~0.4 s after it, its workers loading the release; spawning
# ~2.5 s, each worker importing wirecheck and loading the release.
FORK_SAFE_PLATFORM = sys.platform.startswith("linux")  # macOS's system libraries are not fork-safe; Windows has no fork
FORKSERVER_PRELOAD = ["wirecheck.check.parallel"]  # imported once by the fork server, not by every worker


def threads_running() -> int:
    """The threads of this process as the kernel counts them (Python's and those a library started in C, such as a
    test runner's I/O thread): the count CPython's fork warning reads. 0 where /proc does not say."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 0


def start_method() -> str:
    """fork where it cannot deadlock: on Linux, in a process of one thread (the CLI starts none before its workers).
    A fork copies every lock another thread holds at that moment, locked for good in the child (Python 3.12 and
    later warn of it), so with a second thread running (a library caller's, a Dask client's, a test runner's) the
    workers come from a fork server, a process of one thread that forks them; elsewhere they are spawned. Both of
    those load the release in each worker."""
    if not FORK_SAFE_PLATFORM:
        return "spawn"
    return "fork" if threads_running() == 1 else "forkserver"


def _context(method: str) -> Any:
    from multiprocessing import get_context

    context = get_context(method)
    if method == "forkserver":  # effective once per process: before its fork server starts
        context.set_forkserver_preload(FORKSERVER_PRELOAD)
    return context


@dataclass
class Stats:
    """What a parallel run tells its caller besides the result (the bench reads it)."""

    worker_peak_kib: int = 0  # the highest peak resident memory of any worker process (VmHWM), when known
    workers_used: bool = False
    workers_lost: bool = False  # a worker died (killed, out of memory): what it had was checked in this process
    start_method: str = ""  # how the workers were started (fork, forkserver, spawn), when they were


@dataclass(frozen=True)
class Plan:
    jobs: int  # worker processes; 1 checks everything here
    forced: bool = False  # -j given: use the workers even for a small run
    range_bytes: int = RANGE_BYTES
    split_min_bytes: int = SPLIT_MIN_BYTES
    start_method: str | None = None  # None: start_method() decides (a bench or a test names one)


def check(engine: Engine, source: ReleaseSource, captures: Sequence[CaptureFile], plan: Plan,
          stats: Stats | None = None,
          around: Callable[[], AbstractContextManager[Any]] = nullcontext) -> CheckResult:
    """Check captures as `engine.run(captures)` would, on `plan.jobs` processes where that pays. `around()` is
    entered while the captures are read (a progress display), once the workers are started: a thread it starts is
    never copied into a forked worker, where a lock it held would stay locked."""
    stats = stats if stats is not None else Stats()
    sizes = [_regular_size(capture) for capture in captures]
    work = sum(size or 0 for size in sizes)
    jobs = _pool_size(plan, sizes)
    if jobs <= 1 or not (plan.forced or work >= PARALLEL_MIN_BYTES):
        with around():
            return engine.run(captures)
    from concurrent.futures.process import BrokenProcessPool

    stats.workers_used = True
    stats.start_method = plan.start_method or start_method()
    # the workers, forked, inherit this engine (its release loaded, its validators compiled): none loads its own
    inherited, _ENGINE[:] = _ENGINE[:], [source, engine.options, engine]
    with _restore(inherited), _workers(jobs, _context(stats.start_method), source, engine.options) as pool, \
            around():
        whole: list[tuple[list[int], Future[tuple[Portable, int]] | None]] = []  # None: check here
        here: list[int] = []  # stdin, pipes and captures worth splitting: read by this process
        batch: list[int] = []  # consecutive whole captures for one task: a task per small capture costs more
        batch_size = max(1, min(BATCH_MAX, -(-len(captures) // (jobs * 8))))  # several tasks per worker

        def submit() -> None:
            if batch:
                future = None
                if not stats.workers_lost:
                    try:
                        future = pool.submit(_check_batch, batch[0], [captures[i].path for i in batch])
                    except BrokenProcessPool:
                        stats.workers_lost = True
                whole.append((batch[:], future))
                batch.clear()

        for index, (capture, size) in enumerate(zip(captures, sizes, strict=True)):
            if size is None or _splittable(capture, size, plan):
                submit()
                here.append(index)
            else:
                batch.append(index)
                if len(batch) == batch_size:
                    submit()
        submit()
        parts = []
        for index in here:
            capture, size = captures[index], sizes[index]
            split = None if size is None else _Split(pool, replace(plan, jobs=jobs), engine.options.max_line_bytes,
                                                     size, stats)
            parts.append(engine.run([capture], first_index=index, source=split))
        for indices, future in whole:
            if future is not None:
                try:
                    portable, peak = future.result()
                    parts.append(portable.result(engine))
                    stats.worker_peak_kib = max(stats.worker_peak_kib, peak)
                    continue
                except BrokenProcessPool:  # a worker died (killed, out of memory): its captures are checked here
                    stats.workers_lost = True
            parts.append(engine.run([captures[i] for i in indices], first_index=indices[0]))
    return merge(parts)


# end a run through Terminated (programs.signals); Windows has no SIGHUP
STOPPING = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


@contextmanager
def _workers(jobs: int, context: Any, source: ReleaseSource, options: CheckOptions) -> Iterator[ProcessPoolExecutor]:
    """The pool, its workers started now, before anything else starts a thread (a forking pool starts them all at
    its first task, and then its own manager thread). SIGTERM and SIGHUP within raise Terminated; leaving by it (or
    any other exception) kills the workers instead of waiting for their tasks (a capture checked whole may take
    minutes)."""
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import active_children

    from wirecheck.programs.signals import terminated_by_signals

    with terminated_by_signals(), ProcessPoolExecutor(jobs, mp_context=context, initializer=_start_worker,
                                                      initargs=(source, options)) as pool:
        try:
            # held while the workers are forked: raised inside fork's own handlers (logging's), Terminated would be
            # swallowed ("Exception ignored") and the run would go on; a worker unblocks them (_start_worker)
            masks = hasattr(signal, "pthread_sigmask")
            blocked = signal.pthread_sigmask(signal.SIG_BLOCK, STOPPING) if masks else None
            try:
                pool.submit(_peak_kib)
            finally:
                if blocked is not None:
                    signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
            yield pool
        except BaseException:
            for worker in active_children():
                worker.kill()
            # its manager thread sees them gone and ends; waited for, so that nothing of the pool is left for the
            # interpreter's exit to wake (it wrote to a closed pipe: "Exception ignored ... OSError")
            pool.shutdown(wait=True, cancel_futures=True)
            raise


@contextmanager
def _restore(engine: list[Any]) -> Iterator[None]:
    """Put back this process's worker engine (_ENGINE) when the pool is done."""
    try:
        yield
    finally:
        _ENGINE[:] = engine


def _regular_size(capture: CaptureFile) -> int | None:
    """The size of a capture a worker can open by its path; None for stdin, pipes and devices (read here)."""
    if capture.path == "-" or type(capture) is not CaptureFile or capture.as_kind is not None:
        return None  # stdin; a subclass reads in its own way (certify hashes it); --as KIND: read here
    try:
        info = os.stat(capture.path)
    except OSError:
        return 0  # a worker reports it unreadable, as a sequential run would
    return info.st_size if stat.S_ISREG(info.st_mode) else None


def _splittable(capture: CaptureFile, size: int, plan: Plan) -> bool:
    return size >= plan.split_min_bytes and Path(capture.path).suffix.lower() not in (".har", ".json")


# -- in the worker processes -------------------------------------------------------------------------------------

_ENGINE: list[Any] = []  # this worker process's (release source, options, engine)
_COLLECTING = [True]  # whether this worker started with the cycle collector running (see COLLECT_EVERY_PARTS)


def worker_engine(source: ReleaseSource, options: CheckOptions) -> Engine:
    """The engine of a worker process (a pool's, a Dask worker's), loaded once for its release and options."""
    if not (_ENGINE and _ENGINE[0] == source and _ENGINE[1] == options):
        from wirecheck.contracts import load_registry

        registry = load_registry(source.contracts)
        _ENGINE[:] = [source, options, Engine(registry.load(source.spec), options, registry.load)]
    return _ENGINE[2]


def _start_worker(source: ReleaseSource, options: CheckOptions) -> None:
    """A worker's start: SIGTERM and SIGHUP end it as they end any process (the parent, not a worker, turns them
    into Terminated: a worker stopped alone is a lost worker, whose work the parent does), and it ends with its
    parent."""
    for signum in STOPPING:
        signal.signal(signum, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPPING)
    _watch_parent()
    _COLLECTING[0] = gc.isenabled()
    try:  # a forked worker holds the parent's standard input (sys.stdin does not own it): a writer into it (`cat
        # big | wirecheck validate -`) must see the end when the parent ends, and workers read captures by path
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
    except OSError:
        pass
    worker_engine(source, options)


def _watch_parent() -> None:
    """End this worker the moment its parent process ends, however it ends (killed, out of memory): a thread waits on
    multiprocessing's parent sentinel, which becomes ready when the parent's end of a pipe closes. (With fork, a
    worker also holds the parent's ends of the pipes of the workers forked before it: the last worker sees its
    parent's end first, and each ending worker lets the one before it see its own.)"""
    from multiprocessing import parent_process
    from multiprocessing.connection import wait

    parent = parent_process()
    if parent is None or parent.sentinel is None:
        return

    def watch() -> None:
        wait([parent.sentinel])
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="wirecheck-parent-watch").start()


def _engine() -> Engine:
    assert _ENGINE, "worker started without _start_worker"
    return _ENGINE[2]


def _check_batch(first: int, paths: list[str]) -> tuple[Portable, int]:
    """Captures `first`, `first + 1`, ... checked by this worker's engine, as one merged result."""
    if _COLLECTING[0]:  # paused by a part checked before (_check_range)
        gc.enable()
    return Portable.of(_engine().run([CaptureFile(path) for path in paths], first_index=first)), _peak_kib()


def _peak_kib() -> int:
    """This process's peak resident memory (VmHWM), in KiB; 0 where /proc does not tell."""
    try:
        with open("/proc/self/status") as status:
            return next((int(line.split()[1]) for line in status if line.startswith("VmHWM:")), 0)
    except OSError:
        return 0


@dataclass(frozen=True)
class Portable:
    """A result without its release (which does not pickle): what a worker sends back."""

    captures: list[CaptureSummary]
    coverage: dict[str, tuple[int, int, int, int]]
    messages: int
    unclassified: int
    omitted: dict[GroupKey, Omission]
    capture_count: int
    unreadable_count: int
    fail_on: Severity
    judged: dict[str, int]

    @classmethod
    def of(cls, result: CheckResult) -> Portable:
        return cls(result.captures, {k: (c.seen, c.errors, c.warnings, c.unjudged) for k, c in result.coverage.items()},
                   result.messages, result.unclassified, result.omitted, result.capture_count,
                   result.unreadable_count, result.fail_on, dict(result.judged))

    def result(self, engine: Engine) -> CheckResult:
        release = engine.release
        return CheckResult(
            release=release, captures=self.captures, messages=self.messages, unclassified=self.unclassified,
            coverage={k.id: KindCoverage(k, *self.coverage[k.id]) for k in release.kinds},
            fail_on=self.fail_on, omitted=self.omitted, capture_count=self.capture_count,
            unreadable_count=self.unreadable_count, min_coverage=engine.options.min_coverage, judged=dict(self.judged))


@dataclass(frozen=True)
class _Part:
    """What a worker made of one byte range (check/parts.py PartChecks): what it took (counts per kind), and each other
    message, its own checks made, for this process to finish in capture order. Lines are numbered from 1 within the
    range."""

    items: list[Any]  # Finding | (line, value) | Message | Checked | ProcessRecord, in line order
    positions: array[int]  # items[i] comes after observed[:positions[i]]
    # messages taken whose kind's rules observe them by kind and line (Reading.observe), in line order: each
    # `line * len(kinds) + kinds.index(kind id)`, so that a million of them cross between processes as one buffer
    observed: array[int]
    kinds: tuple[str, ...]
    seen: dict[str, int]
    took: dict[str | None, tuple[int, str]]  # role → (line, kind id) of its last message taken or settled
    line_ends: int  # in the range: the next range's line numbers start after them
    peak_kib: int  # the worker's peak memory so far

    def replay(self, offset: int, observe: Callable[[str, int], None]) -> Iterator[Any]:
        """Each item, its lines moved by `offset` (a Checked message's and a settled step's by the engine), the
        observations before it shown to `observe(kind id, line)` first, and those after the last item at the
        end."""
        kinds, observed, width, positions = self.kinds, self.observed, len(self.kinds), self.positions
        done = 0
        for at, item in enumerate(self.items):
            position = positions[at]
            if position > done:
                for note in observed[done:position]:
                    line, code = divmod(note, width)
                    observe(kinds[code], line + offset)
                done = position
            shape = type(item)
            yield item if shape is SettledPairs or (shape is tuple and len(item) != 2) else _moved(item, offset)
        for note in observed[done:]:
            line, code = divmod(note, width)
            observe(kinds[code], line + offset)


def _moved(item: Any, offset: int) -> Any:
    """An item of a part, its line numbers counted from the capture's start (a Checked message's are moved by the
    engine: Reading.offset)."""
    if type(item) is tuple:
        return (item[0] + offset, item[1]) if len(item) == 2 else item
    if type(item) is Message:
        item.line = (item.line or 0) + offset
        return item
    if item is not None and getattr(item, "line", None) is not None:  # a Finding, a ProcessRecord
        return replace(item, line=item.line + offset)
    return item


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cycle collector paused while a split capture's parts are fed to its engine (see COLLECT_EVERY_PARTS)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


# Parts and the process feeding them hold many young objects for a while (a part's items: ~15,000 messages' values,
# tuples and findings; the parts in flight, unpickled) and make next to no garbage cycles (35 unreachable objects
# after 285,000 messages): the cycle collector traversed them over and over, and its full collections the whole
# heap (the release, its schemas), for nothing (issue 43: ~10 % of a worker's CPU on request/reply captures). So a
# worker checks a part with the collector paused, and leaves it paused while the part's items are pickled and sent
# (after `_check_range` returns: the pool's loop does it); the next part starts with one young collection, which
# frees whatever cycles the last one left. The process feeding the parts pauses it too, and collects the young
# generation after every COLLECT_EVERY_PARTS parts fed (a bound on cycles left, should a rule make any): each such
# collection traverses the parts in flight, so not after every part. Reference counting frees everything else.
COLLECT_EVERY_PARTS = 16


def _check_range(path: str, start: int, end: int, max_line_bytes: int, form: str,
                 unsettled: frozenset[int], awaiting_bound: int = 0) -> _Part:
    gc.collect(0)  # the cycles the last part left, if any (the collector is still paused from it)
    gc.disable()  # until this process's next task: this part's items are pickled after it returns
    engine = _engine()
    capture = CaptureFile(path)
    kinds = tuple(k.id for k in engine.release.kinds)
    code, width, observed = {kind: at for at, kind in enumerate(kinds)}, len(kinds), array("q")
    part = PartChecks(engine, capture, unsettled, lambda kind, line: observed.append(line * width + code[kind]),
                      observed.__len__, awaiting_bound)
    with open(path, "rb") as handle:
        stream = _Range(handle, end - start, start)
        for item in stream.lines(capture.label, max_line_bytes,
                                 part.accept_frame if form == "framed" else part.accept, framed=form == "framed"):
            part.add(item)
    part.done()
    return _Part(part.items, array("q", part.positions), observed, kinds,
                 {kind: count for kind, count in part.seen.items() if count}, part.took, stream.line_ends, _peak_kib())


class _Range:
    """A file read for `size` bytes from `start` (else from where it is), counting line ends (`stream` for the
    readers)."""

    def __init__(self, handle: Any, size: int, start: int | None = None):
        if start is not None:
            handle.seek(start)
        self._handle, self._left, self.line_ends = handle, size, 0

    @property
    def stream(self) -> IO[bytes]:
        return cast(IO[bytes], self)

    def lines(self, label: str, max_line_bytes: int, accept: Any, framed: bool = False) -> Iterator[Any]:
        """The range's lines as a part of a capture (numbered from 1, no capture-start checks), with `accept` as
        their fast path (see LineSink; None: none): a plain stream's values, a framed capture's frames (what the
        fast path leaves is read as messages: read_framed)."""
        sink = LineSink()
        if accept is not None:
            sink.accept = accept
        if framed:
            sink.framed()
            return read_framed(iter_lines(self.stream, label, max_line_bytes, sink, capture_start=False), label)
        return iter_lines(self.stream, label, max_line_bytes, sink, capture_start=False)

    def read(self, size: int = -1) -> bytes:
        size = self._left if size < 0 else min(size, self._left)
        data = self._handle.read(size) if size else b""
        self._left -= len(data)
        self.line_ends += data.count(b"\n")
        return data

    read1 = read


# -- in this process: a split capture, read back in order -----------------------------------------------------------


class _Split:
    """An engine source: the first range read here (it settles the capture's form and the rules that need the first
    messages), later ranges by workers, each handed the rules still unsettled; what they leave is finished here in
    capture order. A range whose worker died is read here, as a sequential reader would."""

    def __init__(self, pool: ProcessPoolExecutor, plan: Plan, max_line_bytes: int, size: int, stats: Stats):
        self._pool, self._plan, self._max_line_bytes, self._size = pool, plan, max_line_bytes, size
        self._stats = stats

    def __call__(self, capture: CaptureFile, reading: Reading) -> Iterator[Any]:
        from concurrent.futures.process import BrokenProcessPool

        accept = reading.accept
        try:
            split = _ranges(capture.path, self._size, self._plan.range_bytes, self._max_line_bytes)
        except OSError as exc:
            raise CaptureUnreadable(capture.path, exc.strerror or str(exc)) from None
        if split is None:  # neither a plain stream nor a framed capture: read whole, here
            yield from read_capture(capture, self._max_line_bytes, raw_stream=True, fast=accept,
                                    fast_frame=reading.accept_frame)
            return
        form, ranges = split
        window: deque[tuple[int, int, Future[_Part] | None]] = deque()
        later = iter(ranges[1:])

        def submit() -> None:  # ranges in flight: memory stays within a few ranges' leftovers
            while len(window) < 2 * self._plan.jobs and (part := next(later, None)) is not None:
                future = None  # None: read here
                if not self._stats.workers_lost:
                    try:
                        future = self._pool.submit(_check_range, capture.path, *part, self._max_line_bytes, form,
                                                   reading.unsettled(), correlation.MAX_AWAITING)
                    except BrokenProcessPool:
                        self._stats.workers_lost = True
                window.append((*part, future))

        fed = 0
        with open(capture.path, "rb") as handle, collector_paused():  # see COLLECT_EVERY_PARTS
            first = _Range(handle, ranges[0][1])
            yield from read_lines(first.stream, capture, self._max_line_bytes, raw_stream=True, fast=accept,
                                  fast_frame=reading.accept_frame)
            offset = first.line_ends
            submit()  # now that the first messages have settled what they settle
            while window:
                start, end, future = window.popleft()
                submit()
                part = None
                if future is not None:
                    try:
                        part = future.result()
                    except BrokenProcessPool:  # a worker died (killed, out of memory): this part is read here
                        self._stats.workers_lost = True
                if part is None:
                    stream = _Range(handle, end - start, start)
                    at = offset  # the fast path is told each line's number in the capture

                    def here(value: Any, line: int, at: int = at) -> bool:
                        return accept(value, line + at)

                    framed = form == "framed"  # read as this process reads it: a framed part without a fast path
                    for item in stream.lines(capture.label, self._max_line_bytes, None if framed else here, framed):
                        yield _moved(item, offset)
                    offset += stream.line_ends
                    continue
                self._stats.worker_peak_kib = max(self._stats.worker_peak_kib, part.peak_kib)
                for kind_id, count in part.seen.items():
                    reading.seen[kind_id] += count
                reading.offset[0] = offset
                yield from part.replay(offset, reading.observe)
                reading.offset[0] = 0
                for role, (line, kind_id) in part.took.items():
                    reading.took(role, line + offset, kind_id)
                offset += part.line_ends
                fed += 1
                if fed % COLLECT_EVERY_PARTS == 0:
                    gc.collect(0)


def _ranges(path: str, size: int, range_bytes: int, max_line_bytes: int) -> tuple[str, list[tuple[int, int]]] | None:
    """The capture's form and byte ranges of about `range_bytes`, each ending just after a line end (the last at the
    end of the file); the first long enough to settle the capture's form, as read_capture settles it. None when it is
    neither a plain stream nor a framed capture (nothing to split: exchanges, artifacts and corpora are read whole)."""
    with open(path, "rb") as handle:
        first = _line_end(handle, min(FIRST_RANGE_BYTES, range_bytes, size), size)
        while True:  # grow the first range until the form is settled within it
            form, settled = _form_within(handle, first, max_line_bytes)
            if form not in ("stream", "framed"):
                return None
            if settled or first >= size:
                break
            first = _line_end(handle, min(2 * first, size), size)
        ranges, start = [(0, first)], first
        while start < size:
            end = _line_end(handle, min(start + range_bytes, size), size)
            ranges.append((start, end))
            start = end
    return form, ranges


def _line_end(handle: Any, at: int, size: int) -> int:
    """The first place at or after `at` that follows a line end (or the end of the file): a line is never cut."""
    if at >= size:
        return size
    handle.seek(at - 1)  # a range ending right after a line end ends there
    while True:
        block = handle.read(1 << 16)
        if not block:
            return size
        newline = block.find(b"\n")
        if newline >= 0:
            return at + newline
        at += len(block)


def _form_within(handle: Any, end: int, max_line_bytes: int) -> tuple[str | None, bool]:
    """The form the capture's first `end` bytes announce, and whether they settle it (see read_lines)."""
    handle.seek(0)
    capture = CaptureFile("-")
    values = 0
    for item in read_lines(_Range(handle, end).stream, capture, max_line_bytes, raw_stream=True, fast=None):
        if type(item) is tuple:
            values += 1
            if values >= FORM_LOOKAHEAD:
                break
    return capture.form, values >= FORM_LOOKAHEAD or capture.form == "framed"  # a header settles it
