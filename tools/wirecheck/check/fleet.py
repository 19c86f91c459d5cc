"""Fleets of captures on a Dask cluster: captures named by URL (anything fsspec opens: local folders, s3://, gs://,
...), checked in Dask tasks by the same engine, results merged into one (check/result.py).

Optional: needs the `dask` extra (`pip install './wirecheck[dask]'` from a checkout, or the wheel's path with
`[dask]`; wirecheck is not on PyPI), imported only here. Dask schedules, retries and
moves the tasks; nothing here is a scheduler or a queue. A task checks a batch of consecutive captures; a capture
that cannot be read is named in the result; a batch whose worker died more often than Dask allows is named too
(its captures "lost"), and the run still ends with one answer for everything else.
"""

from __future__ import annotations

import io
import logging
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import IO, Any

from wirecheck.capture import CaptureFile, CaptureUnreadable
from wirecheck.check.engine import CheckOptions, Engine
from wirecheck.check.parallel import Portable, ReleaseSource, available_cpus, worker_engine
from wirecheck.check.result import CaptureSummary, CheckResult, merge
from wirecheck.contracts.errors import ContractError

BATCH = 32  # captures per task: small captures cost more to schedule than to check one by one
CONNECT_TIMEOUT = "30s"  # to reach a scheduler
MERGE_EVERY = 256  # results gathered before they are merged: memory stays flat in the number of captures


class FleetUnavailable(ContractError):
    """The dask extra is not installed, or no captures match: a usage error."""


def _imports() -> tuple[Any, Any]:
    try:
        import distributed
        import fsspec
    except ImportError as exc:
        raise FleetUnavailable(f"--dask needs the dask extra ({exc.name} is missing): {extra_install_line()}") from None
    return distributed, fsspec


def extra_install_line() -> str:
    """How to add the dask extra to this installation, as a line that works as written: its requirements from PyPI,
    as this installation's metadata states them (wirecheck itself is installed from a checkout or a wheel)."""
    from importlib.metadata import PackageNotFoundError, requires

    try:
        wanted = [r.split(";")[0].strip() for r in requires("wirecheck") or () if "extra == \"dask\"" in r]
    except PackageNotFoundError:
        wanted = []
    if not wanted:
        return "install wirecheck again with it: pip install 'CHECKOUT[dask]' (its folder) or 'WHEEL[dask]'"
    return "pip install " + " ".join(f"'{r}'" for r in wanted)


class UrlCapture(CaptureFile):
    """A capture fsspec opens by URL (a plain path is a local file)."""

    def __init__(self, url: str, label: str | None = None):
        super().__init__(url)
        self._label = label or url

    @property
    def label(self) -> str:
        return self._label

    @contextmanager
    def open(self) -> Iterator[IO[bytes]]:
        import fsspec

        try:
            handle = fsspec.open(self.path, "rb").open()
        except (OSError, ValueError) as exc:  # not found, a folder, no permission, a URL no filesystem serves
            raise CaptureUnreadable(self.label, getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
                                    ) from None
        with handle:
            # read_capture peeks at the first bytes (compressed?) and reads what a stream has (read1)
            yield handle if hasattr(handle, "peek") else io.BufferedReader(handle)


def expand(patterns: Sequence[str]) -> list[tuple[str, str]]:
    """(URL, label) of every capture the patterns name, globs expanded, in the order given (each glob's matches
    sorted). A glob that matches nothing is a usage error."""
    _, fsspec = _imports()
    found: list[tuple[str, str]] = []
    for pattern in patterns:
        try:
            fs, path = fsspec.core.url_to_fs(pattern)
        except (ValueError, ImportError) as exc:
            raise FleetUnavailable(f"{pattern}: {exc}") from None
        local = "file" in (fs.protocol if isinstance(fs.protocol, tuple) else (fs.protocol,))
        if fsspec.core.has_magic(path):
            matches = sorted(p for p in fs.glob(path) if not fs.isdir(p))
            if not matches:
                raise FleetUnavailable(f"no captures match {pattern}")
            found.extend((fs.unstrip_protocol(p), p if local else fs.unstrip_protocol(p)) for p in matches)
        else:
            found.append((pattern, pattern))
    return found


@dataclass(frozen=True)
class Batch:
    first: int  # the first capture's index in the run
    captures: tuple[tuple[str, str], ...]  # (URL, label)


def check_batch(source: ReleaseSource, options: CheckOptions, batch: Batch) -> Portable:
    """One Dask task: a batch of consecutive captures, checked by this worker's engine for the release."""
    engine = worker_engine(source, options)
    return Portable.of(engine.run((UrlCapture(url, label) for url, label in batch.captures), first_index=batch.first))


@contextmanager
def cluster(address: str) -> Iterator[Any]:
    """A Dask client: of the scheduler at `address`, or of a local cluster (`local`) of one single-threaded worker
    process per CPU on 127.0.0.1, its scratch space in a temporary folder."""
    distributed, _ = _imports()
    with ExitStack() as stack:
        if address == "local":
            logging.getLogger("distributed").setLevel(logging.ERROR)  # its shutdown chatter is not the report's
            scratch = stack.enter_context(tempfile.TemporaryDirectory(prefix="wirecheck-dask-"))
            client = stack.enter_context(distributed.Client(stack.enter_context(local_cluster(available_cpus(),
                                                                                              scratch))))
        else:
            try:
                client = stack.enter_context(distributed.Client(address, timeout=CONNECT_TIMEOUT))
            except (OSError, TimeoutError, ValueError) as exc:
                raise FleetUnavailable(f"--dask {address}: cannot reach the Dask scheduler: {exc}") from None
        yield client


def local_cluster(workers: int, scratch: str) -> Any:
    """A Dask cluster on this machine: single-threaded worker processes, every socket on 127.0.0.1 (the scheduler's
    HTTP endpoints on a free port, not 8787), scratch space in `scratch`."""
    distributed, _ = _imports()
    return distributed.LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None,
        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"}, local_directory=scratch)


def check_fleet(engine: Engine, source: ReleaseSource, captures: Sequence[tuple[str, str]], client: Any,
                retries: int = 1, batch: int = BATCH) -> CheckResult:
    """Check captures (URL, label) on the cluster `client` talks to; one result, as one sequential run over them."""
    distributed, _ = _imports()
    batches = [Batch(i, tuple(captures[i:i + batch])) for i in range(0, len(captures), batch)]
    futures = client.map(check_batch, [source] * len(batches), [engine.options] * len(batches), batches,
                         retries=retries, pure=False)
    batch_of = {future.key: batch for future, batch in zip(futures, batches, strict=True)}
    pending: list[CheckResult] = [_empty(engine)]
    for future in distributed.as_completed(futures):
        try:
            pending.append(future.result().result(engine))
        except Exception as exc:  # the worker died more often than Dask allows, or wirecheck failed on them
            pending.append(_lost(engine, batch_of[future.key], exc))
        future.release()
        if len(pending) >= MERGE_EVERY:
            pending = [merge(pending)]
    return merge(pending)


def _empty(engine: Engine) -> CheckResult:
    from wirecheck.check.result import empty_result

    return empty_result(engine.release, engine.options.fail_on)


def _lost(engine: Engine, batch: Batch, exc: BaseException) -> CheckResult:
    """A batch that could not be checked: each capture named, none counted as checked."""
    why = (f"lost: its Dask worker died ({exc})" if type(exc).__name__ == "KilledWorker"
           else f"not checked: {type(exc).__name__}: {exc}")
    result = _empty(engine)
    for offset, (_, label) in enumerate(batch.captures):
        result.captures.append(CaptureSummary(label, None, index=batch.first + offset, unreadable=why))
    result.capture_count = result.unreadable_count = len(batch.captures)
    return merge([result])
