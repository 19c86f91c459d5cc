"""Archives unpacked safely on every Python the package admits (3.11.0 and later).

`TarFile.extractall(filter="data")` (PEP 706) came with Python 3.11.4: on Debian 12's 3.11.2 it raises TypeError.
`extract` uses the filter where it exists and otherwise refuses what it would have to judge itself.
"""

from __future__ import annotations

import shutil
import tarfile
from pathlib import Path, PurePosixPath


def extract(tar: tarfile.TarFile, target: Path) -> str | None:
    """Extract `tar` (a `git archive`, an npm tarball) into `target`, nothing outside it: through the standard
    library's `data` filter where it has one (Python 3.11.4 and later, PEP 706), else by refusing every member that
    is not a plain file or folder under a relative path without `..` (links included, which the filter would check
    instead). The name of a member refused, or None."""
    if hasattr(tarfile, "data_filter"):
        try:
            tar.extractall(target, filter="data")
        except tarfile.FilterError as exc:
            return getattr(getattr(exc, "tarinfo", None), "name", None) or str(exc)
        return None
    members = tar.getmembers()
    for member in members:
        parts = PurePosixPath(member.name).parts
        if member.name.startswith("/") or ".." in parts or not (member.isfile() or member.isdir()):
            return member.name
    for member in members:
        path = target.joinpath(*PurePosixPath(member.name).parts)
        if member.isdir():
            path.mkdir(parents=True, exist_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        source = tar.extractfile(member)
        assert source is not None  # a regular file always has its bytes
        with source, path.open("wb") as out:
            shutil.copyfileobj(source, out)
    return None
