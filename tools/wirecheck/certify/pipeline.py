"""Certify captures against a release: load the requirement set (and baseline), run the engine, evaluate, stamp
the identity block. The one entry point the CLI, the live harness, the xopc stub/probe and the pytest plugin share."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any

from wirecheck.capture import CaptureFile
from wirecheck.certify.baseline import EMPTY, Baseline, load_baseline
from wirecheck.certify.evaluate import Certification, evaluate
from wirecheck.certify.identity import identity, sha256_file
from wirecheck.certify.requirements import LEVELS, RequirementSet, default_requirements_path, load_requirements
from wirecheck.check.engine import CheckOptions, Engine
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
    result = Engine(release, options, load_release).run(files)
    senders = unclassified_senders(release, result.findings) if role is not None else {}
    certification = evaluate(result, reqs, baseline=base, role=role, fail_on=fail_on, senders=senders)
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
    )
    certification.run = run and run.get("outcome")
    return certification


class _HashingCapture(CaptureFile):
    """stdin (`-`), a pipe (`<(cmd)`) or a device: read once, so its digest and size are taken from the bytes the
    engine reads (and whatever it leaves unread), not by reading it a second time (which finds nothing)."""

    def __init__(self, path: str):
        super().__init__(path)
        self.digest = hashlib.sha256()
        self.size = 0

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
        self._capture.digest.update(data)
        self._capture.size += len(data)
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


def unclassified_senders(
    release: ContractRelease, findings: Sequence[Any]
) -> dict[tuple[str, int | None, str | None], str]:
    """Who sent each unclassified message that has a finding: the `from` of a framed line, or for HAR the role that
    produces the release's HTTP requests (or responses), when exactly one role does."""
    import orjson

    wanted = [f for f in findings if f.kind is None]
    if not wanted:
        return {}
    out: dict[tuple[str, int | None, str | None], str] = {}
    requesters = {k.producer for k in release.kinds if k.http is not None and k.http.is_request}
    responders = {k.producer for k in release.kinds if k.http is not None and not k.http.is_request}
    by_file: dict[str, set[int]] = {}
    for f in wanted:
        if f.where and f.where.endswith("/request") and len(requesters) == 1:
            out[(f.file, f.line, f.where)] = next(iter(requesters))
        elif f.where and f.where.endswith("/response") and len(responders) == 1:
            out[(f.file, f.line, f.where)] = next(iter(responders))
        elif f.line is not None:
            by_file.setdefault(f.file, set()).add(f.line)
    for file, lines in by_file.items():
        try:
            with open(file, "rb") as stream:
                head = stream.readline()
                if b'"wirecheck_capture"' not in head:
                    continue
                for number, raw in enumerate(stream, start=2):
                    if number in lines:
                        try:
                            frame = orjson.loads(raw)
                        except orjson.JSONDecodeError:
                            frame = _sender_prefix(raw)
                        if _two_senders(raw):
                            # two `from` keys (a parser lets the last win): a message that speaks for the frame
                            # around it. Nobody can tell the sender, so its findings count against every role.
                            continue
                        if isinstance(frame, dict) and isinstance(frame.get("from"), str):
                            out[(file, number, None)] = frame["from"]
        except OSError:
            continue
    return out


def _two_senders(raw: bytes) -> bool:
    """Does this framed line hold the key `from` twice at its top level?"""
    from wirecheck.json_text import parse_json

    if raw.count(b'"from"') < 2:
        return False
    _, problem = parse_json(raw.rstrip(b"\r\n"))
    return problem is not None and problem.code == "DUPLICATE_KEY" and problem.pointer == "/from"


def _sender_prefix(raw: bytes) -> dict[str, str] | None:
    """The `from` of a framed line whose message part is broken: `{"from": "cli", "message": <broken>}`."""
    import re

    match = re.match(rb'\s*\{\s*"from"\s*:\s*"([^"\\]+)"', raw)
    return {"from": match.group(1).decode("utf-8", "replace")} if match else None
