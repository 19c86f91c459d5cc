"""`--against <git-ref>`: the contracts folder as it is at another commit, extracted into a temporary folder."""

from __future__ import annotations

import atexit
import dataclasses
import io
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from wirecheck.contracts.errors import ContractError


class AgainstError(Exception):
    """The ref cannot be read (not a git checkout, unknown ref, no contracts there): a usage error."""


@dataclass(frozen=True)
class Extracted:
    """The contracts folder as of `ref`, extracted to `folder`; `relative` is its path in the repository."""

    folder: Path
    ref: str
    relative: str

    @contextmanager
    def named_at_ref(self) -> Iterator[None]:
        """Contract problems in the extracted copy name their file as git does (`origin/main:contracts/x.json`),
        not by the temporary folder, which is gone when the user reads the message."""
        try:
            yield
        except ContractError as exc:
            raise ContractError([dataclasses.replace(p, file=self.name(p.file)) for p in exc.problems]) from None

    def name(self, file: str) -> str:
        try:
            inside = Path(file).relative_to(self.folder).as_posix()
        except ValueError:
            return file
        return f"{self.ref}:{self.relative}/{inside}" if inside != "." else f"{self.ref}:{self.relative}"


def contracts_at(ref: str, contracts: Path) -> Extracted:
    """Extract `contracts` as of `ref` (any git revision: a branch, tag, sha, `HEAD~1`)."""
    if not ref.strip() or ref.startswith("-"):  # never an option to git
        raise AgainstError(f"--against {ref!r}: not a git revision")
    contracts = contracts.resolve()
    try:
        top = subprocess.run(["git", "-C", str(contracts), "rev-parse", "--show-toplevel"], check=True,
                             capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as exc:
        raise AgainstError(f"--against {ref}: {contracts} is not inside a git checkout ({_stderr(exc)})") from None
    relative = contracts.relative_to(Path(top).resolve()).as_posix()
    try:
        archive = subprocess.run(["git", "-C", top, "archive", "--format=tar", ref, "--", relative], check=True,
                                 capture_output=True).stdout
    except subprocess.CalledProcessError as exc:
        raise AgainstError(f"--against {ref}: git archive failed: {_stderr(exc)}") from None
    target = Path(tempfile.mkdtemp(prefix="wirecheck-against-"))
    atexit.register(shutil.rmtree, target, True)  # the extracted copy lives as long as the process
    import tarfile  # only `diff --against` reads an archive

    from wirecheck.archives import extract

    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        refused = extract(tar, target)
    if refused is not None:
        raise AgainstError(f"--against {ref}: {relative} at that commit holds {refused}, which is not a plain file or "
                           "folder inside it (a link, a device, an absolute path or `..`): refused")
    folder = target / relative
    if not (folder / "registry.yaml").is_file():
        raise AgainstError(f"--against {ref}: no {relative}/registry.yaml at that commit")
    return Extracted(folder, ref, relative)


def _stderr(exc: Exception) -> str:
    err = getattr(exc, "stderr", None)
    if isinstance(err, bytes):
        err = err.decode(errors="replace")
    return (err or str(exc)).strip().splitlines()[-1] if (err or str(exc)).strip() else str(exc)


def pairs_against(old_registry, new_registry, specs: list[str]) -> tuple[list[tuple[str, str, str]], list[str]]:
    """(package, version at the ref, version in the working tree) for each spec (default: every release of the
    working tree), and notes for what has no counterpart at the ref. The same version on both sides means "this
    release was edited in place"; a release new in the working tree is diffed against the ref's latest."""
    wanted: list[tuple[str, str]] = []
    if specs:
        for spec in specs:
            if "@" in spec[1:]:  # pkg@version (a scoped npm name starts with "@")
                wanted.append(new_registry.resolve(spec))
            else:
                package = new_registry.package(spec)
                wanted += [(package.name, v) for v in package.releases]
    else:
        wanted = [(p.name, v) for p in new_registry.packages.values() for v in p.releases]
    pairs, notes = [], []
    for package, version in wanted:
        old_package = old_registry.packages.get(package)
        if old_package is None:
            notes.append(f"{package}: not in the contracts at the ref (a new package)")
            continue
        if version in old_package.releases:
            pairs.append((package, version, version))
        elif old_package.releases:
            pairs.append((package, old_package.releases[-1], version))
    return pairs, notes
