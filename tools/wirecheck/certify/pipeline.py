"""Certify captures against a release: load the requirement set (and baseline), run the engine, evaluate, stamp
the identity block. The one entry point the CLI, the live harness, the xopc stub/probe and the pytest plugin share."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any

from wirecheck.capture import CaptureFile, CaptureUnreadable
from wirecheck.certify.baseline import EMPTY, Baseline, load_baseline
from wirecheck.certify.evaluate import Certification, evaluate
from wirecheck.certify.identity import identity, sha256_file
from wirecheck.certify.requirements import LEVELS, RequirementSet, default_requirements_path, load_requirements
from wirecheck.check.engine import CheckOptions, Engine
from wirecheck.check.parallel import Plan, ReleaseSource
from wirecheck.check.parallel import check as check_parallel
from wirecheck.contracts.errors import ContractError, ContractProblem
from wirecheck.contracts.model import ContractRelease


def load_set(release: ContractRelease, path: Path | None = None) -> RequirementSet:
    return load_requirements(path or default_requirements_path(release), release)


def certify_captures(
    release: ContractRelease,
    captures: Sequence[str | Path],
    *,
    requirements: RequirementSet | Path | None = None,
    baseline: Baseline | Path | None = None,
    role: str | None = None,
    fail_on: str = "MUST",
    options: CheckOptions | None = None,
    load_release: Callable[[str], ContractRelease] | None = None,
    run: dict[str, Any] | None = None,
    timestamp: str | None = None,
    parallel: tuple[ReleaseSource, Plan] | None = None,
) -> Certification:
    """Raises ContractError (located) for a broken requirement set, baseline, unknown role or level."""
    if fail_on not in LEVELS:
        raise ContractError(f"--fail-on {fail_on!r}: expected one of {', '.join(LEVELS)}")
    if role is not None and role not in release.roles:
        raise ContractError(ContractProblem(str(release.root / "catalog.yaml"), "/roles",
                                            f"no role {role!r} in {release.name}; roles: {', '.join(release.roles)}"))
    reqs = requirements if isinstance(requirements, RequirementSet) else load_set(release, requirements)
    base = baseline if isinstance(baseline, Baseline) else (
        EMPTY if baseline is None else load_baseline(baseline, {r.id for r in reqs}))
    files = [_capture_file(str(p)) for p in captures]
    engine = Engine(release, options, load_release)
    result = engine.run(files) if parallel is None else check_parallel(engine, parallel[0], files, parallel[1])
    for unread in result.unreadable:  # nothing is certified on captures that were not all read
        raise CaptureUnreadable(unread.file, unread.unreadable or "")
    certification = evaluate(result, reqs, baseline=base, role=role, fail_on=fail_on)
    summaries = {s.file: s for s in result.captures}
    capture_block = []
    for capture in files:
        path = Path(capture.path)
        summary = summaries.get(capture.label)
        if isinstance(capture, _HashingCapture):
            digest, size = capture.digest.hexdigest(), capture.size
        else:
            digest, size = sha256_file(path), path.stat().st_size
        capture_block.append({
            "path": capture.path,
            "sha256": digest,
            "bytes": size,
            "form": summary.form if summary else None,
            "messages": summary.messages if summary else 0,
        })
    certification.identity = identity(
        contract=release.name, release_root=release.root, requirements_path=reqs.path, captures=capture_block,
        baseline_path=base.path, role=role, run=run and run.get("identity"), timestamp=timestamp,
        requirements_sha256=reqs.sha256, baseline_sha256=base.sha256,
    )
    certification.run = _exit_judged(run and run.get("outcome"), result.judged, reqs, release)
    return certification


def _exit_judged(outcome: dict[str, Any] | None, judged: dict[str, int], reqs: RequirementSet,
                 release: ContractRelease) -> dict[str, Any] | None:
    """A live run whose only failure is that the program did not exit when the scenario waited for it, where the
    release says how long its readers wait (an `exits` obligation, judged on the capture's process record): the
    requirement decides at its level (a reader that hangs: MUST; one that ends the program itself: SHOULD), not an
    anonymous run failure. Whether the record judged it is the engine's (`judged`, per obligation), not what the
    report keeps: the run's part of the verdict is the same whatever `--role` or requirement set is reported (a
    certification of the harness's role no longer turns the agent's linger into a failed run)."""
    if not outcome or outcome.get("ok", True) or outcome.get("problems"):
        return outcome
    failed = [s for s in outcome.get("steps", ()) if s.get("status") == "failed"]
    exits = [o.id for o in release.obligations if o.form == "exits" and judged.get(o.id)]
    if len(failed) != 1 or failed[0].get("action") != "wait_exit" or not exits:
        return outcome
    named = {r.link.obligation: r.id for r in reqs if r.link.obligation in exits}
    return {**outcome, "ok": True, "judged_by": [named.get(o, o) for o in exits]}


class _HashingCapture(CaptureFile):
    """stdin (`-`), a pipe (`<(cmd)`) or a device: read once, so its digest and size are taken from the bytes the
    engine reads (and whatever it leaves unread), not by reading it a second time (which finds nothing)."""

    def __init__(self, path: str):
        super().__init__(path)
        self.digest = hashlib.sha256()
        self.size = 0

    def seen(self, data: bytes) -> None:
        self.digest.update(data)
        self.size += len(data)

    @contextmanager
    def open(self) -> Iterator[IO[bytes]]:
        with super().open() as stream:
            reader = _HashingReader(stream, self)
            try:
                yield reader  # type: ignore[misc]
            finally:
                with suppress(OSError, ValueError):
                    for _ in iter(lambda: reader.read(1 << 20), b""):
                        pass


class _HashingReader:
    def __init__(self, stream: IO[bytes], capture: _HashingCapture):
        self._stream, self._capture = stream, capture

    def _seen(self, data: bytes) -> bytes:
        self._capture.seen(data)
        return data

    def read(self, size: int = -1) -> bytes:
        return self._seen(self._stream.read(size))

    def read1(self, size: int = -1) -> bytes:
        read1 = getattr(self._stream, "read1", self._stream.read)
        return self._seen(read1(size))

    def peek(self, size: int = 1) -> bytes:
        """The next bytes, left in the stream (they are hashed when read): how read_capture tells a compressed
        capture. A stream that cannot look ahead shows nothing."""
        peek = getattr(self._stream, "peek", None)
        return peek(size) if peek is not None else b""

    def tell(self) -> int:
        return self._capture.size


def _capture_file(path: str) -> CaptureFile:
    """A regular file is hashed on its own afterwards; anything else is hashed as it is read."""
    return CaptureFile(path) if path != "-" and Path(path).is_file() else _HashingCapture(path)
