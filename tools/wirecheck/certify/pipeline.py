"""Certify captures against a release: load the requirement set (and baseline), run the engine, evaluate, stamp
the identity block. The one entry point the CLI, the live harness, the xopc stub/probe and the pytest plugin share."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any

import orjson

from wirecheck.capture import DEFAULT_MAX_LINE_BYTES, CaptureFile
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
    max_line_bytes = options.max_line_bytes if options is not None else DEFAULT_MAX_LINE_BYTES
    files = [_capture_file(str(p), max_line_bytes) for p in captures]
    result = Engine(release, options, load_release).run(files)
    read_once = {c.label: c.senders for c in files if isinstance(c, _HashingCapture) and c.senders is not None}
    senders = unclassified_senders(release, result.findings, read_once) if role is not None else {}
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
    engine reads (and whatever it leaves unread), not by reading it a second time (which finds nothing). For the
    same reason the sender of each line of a framed capture is noted as the line goes by (`senders`: index 0 is
    line 2, the line after the header; None where nobody can tell), for unclassified_senders."""

    def __init__(self, path: str, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES):
        super().__init__(path)
        self.digest = hashlib.sha256()
        self.size = 0
        self.senders: list[str | None] | None = None  # a list once the first line is a framing header
        self._max_line_bytes = max_line_bytes
        self._lines = 0  # lines seen so far
        self._partial: list[bytes] = []  # the start of a line that continues in the next chunk
        self._partial_size = 0
        self._cut = False  # the partial line is longer than a line may be: only its start is kept
        self._names: dict[str, str] = {}  # one string per role, however many lines it sent

    def seen(self, data: bytes) -> None:
        self.digest.update(data)
        self.size += len(data)
        if not data or (self._lines and self.senders is None):  # not framed: nothing to note
            return
        lines = data.split(b"\n")
        tail = lines.pop()
        for raw in lines:
            if self._partial:
                raw = b"".join((*self._partial, raw))[:self._max_line_bytes + 1]
                self._partial, self._partial_size = [], 0
            self._line(raw)
            self._cut = False
        if tail and not self._cut:
            self._partial.append(tail)
            self._partial_size += len(tail)
            if self._partial_size > self._max_line_bytes:  # LINE_TOO_LONG: memory stays within one line
                self._partial = [b"".join(self._partial)[:_LONG_LINE_START]]
                self._cut = True

    def ended(self) -> None:
        """The last line, if it has no newline."""
        if self._partial:
            self._line(b"".join(self._partial))
            self._partial, self._partial_size, self._cut = [], 0, False

    def _line(self, raw: bytes) -> None:
        self._lines += 1
        if self._lines == 1:
            self.senders = [] if b'"wirecheck_capture"' in raw else None
        elif self.senders is not None:
            sender = _sender_prefix_only(raw) if self._cut else line_sender(raw)
            self.senders.append(None if sender is None else self._names.setdefault(sender, sender))

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
                self.ended()


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


def _capture_file(path: str, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> CaptureFile:
    """A regular file is hashed on its own afterwards; anything else is hashed as it is read."""
    return CaptureFile(path) if _regular_file(path) else _HashingCapture(path, max_line_bytes)


def _regular_file(path: str) -> bool:
    return path != "-" and Path(path).is_file()


def unclassified_senders(
    release: ContractRelease, findings: Sequence[Any], read_once: Mapping[str, Sequence[str | None]] | None = None,
) -> dict[tuple[str, int | None, str | None], str]:
    """Who sent each unclassified message that has a finding: the `from` of a framed line, or for HAR the role that
    produces the release's HTTP requests (or responses), when exactly one role does.

    `read_once`: for captures that can be read only once (stdin, a pipe), the senders noted while the engine read
    them (see _HashingCapture). Any other capture that is not a regular file is not opened again: it would read
    nothing, or a file named `-`."""
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
        if read_once is not None and file in read_once:
            noted = read_once[file]
            for number in lines:
                sender = noted[number - 2] if 2 <= number < len(noted) + 2 else None
                if sender is not None:
                    out[(file, number, None)] = sender
            continue
        if not _regular_file(file):
            continue
        try:
            with open(file, "rb") as stream:
                head = stream.readline()
                if b'"wirecheck_capture"' not in head:
                    continue
                for number, raw in enumerate(stream, start=2):
                    if number in lines:
                        sender = line_sender(raw)
                        if sender is not None:
                            out[(file, number, None)] = sender
        except OSError:
            continue
    return out


_LONG_LINE_START = 4096  # of a line too long to keep: enough for its `from`
_FROM_PREFIX = re.compile(rb'\s*\{\s*"from"\s*:\s*"([^"\\]+)"')


def line_sender(raw: bytes) -> str | None:
    """The `from` of one framed line (after the header), or None when it has none or nobody can tell."""
    if _two_senders(raw):
        # two `from` keys (a parser lets the last win): a message that speaks for the frame around it. Nobody can
        # tell the sender, so its findings count against every role.
        return None
    match = _FROM_PREFIX.match(raw)
    if match:  # `from` first (how captures are written): the value a parser reads, without parsing the message
        return match.group(1).decode("utf-8", "replace")
    try:
        frame = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    return frame["from"] if isinstance(frame, dict) and isinstance(frame.get("from"), str) else None


def _sender_prefix_only(start: bytes) -> str | None:
    """The `from` at the start of a line too long to keep whole."""
    match = _FROM_PREFIX.match(start)
    return match.group(1).decode("utf-8", "replace") if match else None


def _two_senders(raw: bytes) -> bool:
    """Does this framed line hold the key `from` twice at its top level?"""
    from wirecheck.json_text import parse_json

    if raw.count(b'"from"') < 2:
        return False
    _, problem = parse_json(raw.rstrip(b"\r\n"))
    return problem is not None and problem.code == "DUPLICATE_KEY" and problem.pointer == "/from"


