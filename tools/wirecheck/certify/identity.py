"""The identity block of a certification: exactly what was judged, by what, when."""

from __future__ import annotations

import datetime as dt
import hashlib
import platform
from pathlib import Path
from typing import Any

from wirecheck import __version__
from wirecheck.certify.requirements import REQUIREMENTS_FILE


def sha256_file(path: Path) -> str:
    with path.open("rb") as stream:
        return hashlib.file_digest(stream, "sha256").hexdigest()


def sha256_release(folder: Path) -> str:
    """A digest of a contract release folder: every file's relative path and bytes, in sorted order.

    The requirement set (requirements.yaml) is hashed on its own: rewording a requirement does not change the
    identity of the contract it certifies against.
    """
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.name != REQUIREMENTS_FILE
                       and "__pycache__" not in p.parts):
        relative = path.relative_to(folder).as_posix().encode()
        digest.update(len(relative).to_bytes(4, "big") + relative)
        digest.update(bytes.fromhex(sha256_file(path)))
    return digest.hexdigest()


def now_utc() -> str:
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def identity(
    *,
    contract: str,
    release_root: Path,
    requirements_path: Path,
    captures: list[dict[str, Any]],
    baseline_path: Path | None,
    role: str | None,
    run: dict[str, Any] | None = None,
    timestamp: str | None = None,
    requirements_sha256: str | None = None,
    baseline_sha256: str | None = None,
) -> dict[str, Any]:
    """The identity block; the requirement set's and baseline's digests are of the bytes that were loaded when
    given (a named pipe cannot be read again: opening it once more would wait for a writer for ever)."""
    block: dict[str, Any] = {
        "wirecheck_version": __version__,
        "python": platform.python_version(),
        "timestamp": timestamp or now_utc(),
        "contract": {"name": contract, "sha256": sha256_release(release_root)},
        "requirements": {"path": str(requirements_path),
                         "sha256": requirements_sha256 or sha256_file(requirements_path)},
        "baseline": None if baseline_path is None else {"path": str(baseline_path),
                                                         "sha256": baseline_sha256 or sha256_file(baseline_path)},
        "role": role,
        "captures": captures,
    }
    if run is not None:
        block["run"] = run
    return block
