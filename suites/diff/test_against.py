"""`--against REF` (and `import npm`, archives.extract) unpack archives with nothing outside their folder, on every
Python the package admits: the standard library's `data` filter (PEP 706) came with 3.11.4; before it (Debian 12
has 3.11.2) wirecheck refuses what the filter would have refused, links included."""

from __future__ import annotations

import io
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from wirecheck.archives import extract
from wirecheck.diff.against import AgainstError, contracts_at

CATALOGS = Path(__file__).parent / "catalogs"


def _tar(*members: tuple[str, bytes | None, str | None]) -> tarfile.TarFile:
    """A tar of (name, file bytes or None for a folder, a symlink's target)."""
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w") as tar:
        for name, content, link in members:
            info = tarfile.TarInfo(name)
            if link is not None:
                info.type, info.linkname = tarfile.SYMTYPE, link
                tar.addfile(info)
            elif content is None:
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
            else:
                info.size = len(content)
                tar.addfile(info, io.BytesIO(content))
    data.seek(0)
    return tarfile.open(fileobj=data)


@pytest.fixture(params=["filter", "no filter"])
def python(request, monkeypatch):
    if request.param == "no filter":  # as on Python 3.11.0-3.11.3
        monkeypatch.delattr(tarfile, "data_filter", raising=False)
    elif not hasattr(tarfile, "data_filter"):
        pytest.skip("this Python has no tarfile.data_filter")
    return request.param


def test_plain_files_and_folders_are_extracted(tmp_path, python):
    with _tar(("c", None, None), ("c/registry.yaml", b"packages: {}\n", None), ("c/a/b.json", b"{}", None)) as tar:
        assert extract(tar, tmp_path) is None
    assert (tmp_path / "c/registry.yaml").read_bytes() == b"packages: {}\n"
    assert (tmp_path / "c/a/b.json").read_bytes() == b"{}"


@pytest.mark.parametrize("member", [
    ("../outside.json", b"{}", None),
    ("/tmp/absolute.json", b"{}", None),
    ("c/link", None, "/etc/passwd"),
])
def test_what_would_land_outside_is_refused(tmp_path, python, member):
    target = tmp_path / "target"
    target.mkdir()
    with _tar(("c", None, None), member) as tar:
        refused = extract(tar, target)
    assert not (tmp_path / "outside.json").exists() and not Path("/tmp/absolute.json").exists()
    if python == "filter" and member[0].startswith("/"):  # the filter strips the leading `/`: inside the target
        assert refused is None and (target / member[0].lstrip("/")).exists()
    else:
        assert refused is not None and member[0].strip("/").split("/")[-1] in refused


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_against_a_commit_without_the_filter(tmp_path, monkeypatch):
    """`diff --against` (the CI gate and the pre-commit hook) exited 3 on Python 3.11.2: extractall(filter=...)."""
    monkeypatch.delattr(tarfile, "data_filter", raising=False)
    repo = tmp_path / "repo"
    shutil.copytree(CATALOGS, repo / "contracts")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "contracts"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "contracts"], check=True)
    extracted = contracts_at("HEAD", repo / "contracts")
    assert (extracted.folder / "registry.yaml").read_bytes() == (CATALOGS / "registry.yaml").read_bytes()
    (repo / "contracts" / "link.yaml").symlink_to("/etc/passwd")
    subprocess.run([*git, "add", "contracts"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "a link"], check=True)
    with pytest.raises(AgainstError, match=r"contracts/link\.yaml, which is not a plain file"):
        contracts_at("HEAD", repo / "contracts")
