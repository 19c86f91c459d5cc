"""Archives unpacked safely on every Python the package admits (3.11.0 and later).

`TarFile.extractall(filter="data")` (PEP 706) came with Python 3.11.4: on Debian 12's 3.11.2 it raises TypeError.
`extract` uses the filter where it exists and otherwise refuses what it would have to judge itself.

Either way, an archive is bounded (`limits.MAX_ARCHIVE_BYTES` of file bytes, `limits.MAX_ARCHIVE_MEMBERS`
members): its headers are read first, and the archive refused at the first one past a limit, before anything is
written; what is written is counted again as it is written (the filter's hook, or the copy of each file), since a
header's size is only what the archive claims. Reading the headers of a compressed archive decompresses it, up to
the member that crosses a limit: never more than the limits plus one member's header.
"""

from __future__ import annotations

import tarfile
from pathlib import Path, PurePosixPath

from wirecheck.limits import MAX_ARCHIVE_BYTES, MAX_ARCHIVE_MEMBERS

COPY_BYTES = 1 << 20  # one read while a file is copied out of the archive (the path without the filter)


class ArchiveTooLarge(ValueError):
    """The archive is past a limit. `str()` says which and the numbers, in words that follow "the archive"."""


class _Budget:
    """What has been unpacked so far, against the limits."""

    def __init__(self, max_bytes: int, max_members: int):
        self.max_bytes, self.max_members = max_bytes, max_members
        self.bytes = self.members = 0
        self.sizes: dict[str, int] = {}  # a file's size by its name: what a hard link to it unpacks

    def member(self, member: tarfile.TarInfo, sized: bool = True) -> None:
        """Count `member`, and its bytes as its header says them unless `sized` is False (the caller adds them as
        it writes them)."""
        self.members += 1
        if self.members > self.max_members:
            raise ArchiveTooLarge(f"holds more than {self.max_members:,} members (wirecheck.limits."
                                  f"MAX_ARCHIVE_MEMBERS): refused at member {self.members:,}, {member.name!r}")
        if not sized:
            return
        if member.isfile():
            self.sizes[member.name] = member.size
            self.add(member.size, member.name)
        elif member.islnk():
            self.add(self.sizes.get(member.linkname, 0), member.name)

    def add(self, size: int, name: str) -> None:
        self.bytes += size
        if self.bytes > self.max_bytes:
            raise ArchiveTooLarge(f"holds more than {self.max_bytes:,} bytes of files (wirecheck.limits."
                                  f"MAX_ARCHIVE_BYTES): {self.bytes:,} bytes up to and with {name!r} "
                                  f"(member {self.members:,})")


def _headers(tar: tarfile.TarFile, max_bytes: int, max_members: int) -> list[tarfile.TarInfo]:
    """Every member's header, read one at a time; ArchiveTooLarge at the first past a limit (the rest unread)."""
    budget, members = _Budget(max_bytes, max_members), []
    for member in tar:
        budget.member(member)
        members.append(member)
    return members


def extract(tar: tarfile.TarFile, target: Path, *, max_bytes: int | None = None,
            max_members: int | None = None) -> str | None:
    """Extract `tar` (a `git archive`, an npm tarball) into `target`, nothing outside it: through the standard
    library's `data` filter where it has one (Python 3.11.4 and later, PEP 706), else by refusing every member that
    is not a plain file or folder under a relative path without `..` (links included, which the filter would check
    instead). The name of a member refused, or None; ArchiveTooLarge when the archive is past `max_bytes` of files
    or `max_members` members (default: limits.MAX_ARCHIVE_BYTES, MAX_ARCHIVE_MEMBERS): from its headers, nothing
    written; should what is written go past them all the same, when it would (what was written before stays:
    `target` is the caller's to remove)."""
    max_bytes = MAX_ARCHIVE_BYTES if max_bytes is None else max_bytes
    max_members = MAX_ARCHIVE_MEMBERS if max_members is None else max_members
    members = _headers(tar, max_bytes, max_members)
    if hasattr(tarfile, "data_filter"):
        written = _Budget(max_bytes, max_members)

        def data_within_limits(member: tarfile.TarInfo, path: str) -> tarfile.TarInfo | None:
            kept = tarfile.data_filter(member, path)
            if kept is not None:
                written.member(kept)  # what extractall writes next: exactly the size this header says
            return kept

        try:
            tar.extractall(target, members=members, filter=data_within_limits)
        except tarfile.FilterError as exc:
            return getattr(getattr(exc, "tarinfo", None), "name", None) or str(exc)
        return None
    for member in members:
        parts = PurePosixPath(member.name).parts
        if member.name.startswith("/") or ".." in parts or not (member.isfile() or member.isdir()):
            return member.name
    written = _Budget(max_bytes, max_members)
    for member in members:
        written.member(member, sized=False)
        path = target.joinpath(*PurePosixPath(member.name).parts)
        if member.isdir():
            path.mkdir(parents=True, exist_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        source = tar.extractfile(member)
        assert source is not None  # a regular file always has its bytes
        with source, path.open("wb") as out:
            while chunk := source.read(COPY_BYTES):  # counted as written, before it is
                written.add(len(chunk), member.name)
                out.write(chunk)
    return None
