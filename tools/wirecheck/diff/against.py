"""`--against <git-ref>`: the contracts folder as it is at another commit, extracted into a temporary folder."""

from __future__ import annotations

import atexit
import dataclasses
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wirecheck.contracts.errors import ContractError
from wirecheck.limits import MAX_ARCHIVE_BYTES, MAX_ARCHIVE_MEMBERS

if TYPE_CHECKING:  # imported when a ref is read: a diff without --against starts no program
    from wirecheck.programs.program import Completed, Scratch

REV_PARSE_SECONDS = 60.0  # `git rev-parse --show-toplevel`
ARCHIVE_SECONDS = 300.0  # `git archive` of the contracts folder at the ref
# `git archive` writes its tar into a file in the scratch folder, never into memory, and no more than an archive
# within the limits can be (its files' bytes, and per member a header, the padding and a long name's own headers:
# 10 KiB is more than any of them needs); past that it is refused as the extraction would refuse it
ARCHIVE_FILE_BYTES = MAX_ARCHIVE_BYTES + MAX_ARCHIVE_MEMBERS * 10 * 1024
# git's settings given as variables (`GIT_CONFIG_GLOBAL`, `GIT_CONFIG_SYSTEM`, `GIT_CONFIG_COUNT` and its
# `GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`, the `GIT_CONFIG_PARAMETERS` of a `git -c` running a hook) and where it
# stops looking for a repository
GIT_PASSED_PREFIXES = ("GIT_CONFIG",)
GIT_PASSED = ("GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM")


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


WORKING_TREE_CONTRACTS = "contracts"  # --against without --contracts: this folder at the top of the checkout


def working_tree_contracts(ref: str, where: Path) -> Path:
    """The folder `--against` compares when no --contracts names one: `contracts/` at the top of the git checkout
    `where` is in (the layout of wirecheck's own repository and of a contract pack's). Anything else is one line
    naming the flag that is missing."""
    _check_ref(ref)
    with _git_program(ref) as (git, env, scratch):
        top, _ = _toplevel(git, where, env, scratch)
    if top is None:
        raise AgainstError(f"--against {ref} compares a git checkout's contracts folder with {ref}, and {where} is not "
                           "inside a git checkout: run it in one, or give --contracts FOLDER")
    folder = Path(top) / WORKING_TREE_CONTRACTS
    if not (folder / "registry.yaml").is_file():
        raise AgainstError(f"--against {ref}: no {WORKING_TREE_CONTRACTS}/registry.yaml at the top of the checkout "
                           f"{top}: give --contracts FOLDER, the contracts folder to compare with {ref}")
    return folder


def _check_ref(ref: str) -> None:
    if not ref.strip() or ref.startswith("-"):  # never an option to git
        raise AgainstError(f"--against {ref!r}: not a git revision")


@contextmanager
def _git_program(ref: str) -> Iterator[tuple[str, dict[str, str], Scratch]]:
    """git, its environment and its scratch folder (wirecheck.programs)."""
    from wirecheck.programs.program import CommandError, Scratch, resolve_program

    try:
        git = resolve_program("git", os.environ.get("PATH"))
    except CommandError as exc:
        raise AgainstError(f"--against {ref}: git cannot be run: {exc}") from None
    with Scratch.create() as scratch:
        yield git, git_env(scratch), scratch


def _toplevel(git: str, where: Path, env: dict[str, str], scratch: Scratch) -> tuple[str | None, str]:
    """The top folder of the git checkout `where` is in, or None and what git said."""
    done = _git([git, "-C", str(where), "rev-parse", "--show-toplevel"], env, scratch, REV_PARSE_SECONDS)
    if isinstance(done, str) or done.returncode != 0:
        return None, done if isinstance(done, str) else _stderr(done, REV_PARSE_SECONDS)
    return done.stdout.decode("utf-8", "surrogateescape").strip(), ""


def contracts_at(ref: str, contracts: Path) -> Extracted:
    """Extract `contracts` as of `ref` (any git revision: a branch, tag, sha, `HEAD~1`)."""
    _check_ref(ref)
    contracts = contracts.resolve()
    with _git_program(ref) as (git, env, scratch):
        top, said = _toplevel(git, contracts, env, scratch)
        if top is None:
            raise AgainstError(f"--against {ref}: {contracts} is not inside a git checkout ({said})")
        relative = contracts.relative_to(Path(top).resolve()).as_posix()
        tar_file = scratch.root / "work" / "archive.tar"
        with tar_file.open("wb") as out:
            done = _git([git, "-C", top, "archive", "--format=tar", ref, "--", relative], env, scratch,
                        ARCHIVE_SECONDS, stdout_to=out, max_output=ARCHIVE_FILE_BYTES)
        if isinstance(done, str) or done.returncode != 0:
            said = done if isinstance(done, str) else _stderr(done, ARCHIVE_SECONDS)
            raise AgainstError(f"--against {ref}: git archive failed: {said}")
        if done.stdout_error is not None:
            raise AgainstError(f"--against {ref}: git archive's output could not be written to {tar_file}: "
                               f"{done.stdout_error}")
        if done.stdout_total > ARCHIVE_FILE_BYTES:
            raise AgainstError(f"--against {ref}: {relative} at that commit is an archive of more than "
                               f"{ARCHIVE_FILE_BYTES:,} bytes ({done.stdout_total:,}), past what wirecheck unpacks "
                               f"({MAX_ARCHIVE_BYTES:,} bytes of files, {MAX_ARCHIVE_MEMBERS:,} members): refused")
        target = Path(tempfile.mkdtemp(prefix="wirecheck-against-"))
        atexit.register(shutil.rmtree, target, True)  # the extracted copy lives as long as the process
        import tarfile  # only `diff --against` reads an archive

        from wirecheck.archives import ArchiveTooLarge, extract

        try:
            with tarfile.open(tar_file) as tar:
                refused = extract(tar, target)
        except ArchiveTooLarge as exc:
            raise AgainstError(f"--against {ref}: {relative} at that commit {exc}: refused") from None
        except (tarfile.TarError, EOFError) as exc:
            raise AgainstError(f"--against {ref}: git archive's output cannot be read as a tar: {exc}") from None
        except OSError as exc:  # a full disk, a folder that cannot be written
            raise AgainstError(f"--against {ref}: {relative} at that commit cannot be unpacked into {target}: "
                               f"{exc}") from None
    if refused is not None:
        raise AgainstError(f"--against {ref}: {relative} at that commit holds {refused}, which is not a plain file or "
                           "folder inside it (a link, a device, an absolute path or `..`): refused")
    folder = target / relative
    if not (folder / "registry.yaml").is_file():
        raise AgainstError(f"--against {ref}: no {relative}/registry.yaml at that commit")
    return Extracted(folder, ref, relative)


def git_env(scratch: Scratch) -> dict[str, str]:
    """git's environment as wirecheck runs programs (wirecheck.programs): HOME, XDG_CONFIG_HOME and TMPDIR in the
    scratch folder, so nothing of the user's home is written, and the user's global configuration still read.

    git needs it: `safe.directory` is only taken from the global (or system) configuration, and GitHub's
    actions/checkout writes one there for a workspace that belongs to another user than the job's (a container), or
    git refuses the repository ("detected dubious ownership"). So the scratch HOME's `.gitconfig` includes the
    user's own global configuration files, read where they are, in git's order ($XDG_CONFIG_HOME/git/config, then
    ~/.gitconfig): safe.directory, aliases and everything else apply, relative includes resolve beside the user's
    file; only `~` inside a value now means the scratch HOME. When GIT_CONFIG_GLOBAL is set, git reads that file
    alone, and it is passed as it is (GIT_PASSED_PREFIXES)."""
    env = scratch.env(pass_through=GIT_PASSED, pass_prefixes=GIT_PASSED_PREFIXES)
    if "GIT_CONFIG_GLOBAL" not in env:
        home = Path.home()
        xdg = os.environ.get("XDG_CONFIG_HOME") or str(home / ".config")
        included = [path for path in (Path(xdg) / "git" / "config", home / ".gitconfig") if path.is_file()]
        if included:
            lines = ["[include]"] + [f'\tpath = "{_quoted(str(path.absolute()))}"' for path in included]
            (scratch.root / "home" / ".gitconfig").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return env


def _quoted(text: str) -> str:
    """A git configuration value inside double quotes."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _git(argv: list[str], env: dict[str, str], scratch: Scratch, timeout: float, **options: Any) -> Completed | str:
    """git run to its end (wirecheck.programs.run): what it did, or why it could not be started."""
    from wirecheck.programs.program import run

    try:
        return run(argv, env=env, timeout=timeout, scratch=scratch, **options)
    except OSError as exc:
        return f"git could not be started: {exc}"


def _stderr(done: Completed, timeout: float) -> str:
    """git's last line on stderr, or that it timed out."""
    if done.returncode is None:
        return f"no answer within {timeout:g} s; git was stopped, with all it started"
    said = done.stderr.decode("utf-8", "replace").strip()
    return said.splitlines()[-1] if said else f"git exited {done.returncode}"


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
