"""`--against REF` (and `import npm`, archives.extract) unpack archives with nothing outside their folder, on every
Python the package admits: the standard library's `data` filter (PEP 706) came with 3.11.4; before it (Debian 12
has 3.11.2) wirecheck refuses what the filter would have refused, links included."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from wirecheck import archives
from wirecheck.archives import ArchiveTooLarge, extract
from wirecheck.diff import against
from wirecheck.diff.against import AgainstError, contracts_at
from wirecheck.programs.program import Scratch, run

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


# -- archives past the limits: a gzip bomb, a flood of members ------------------------------------------------------

def _bomb(zeros: int, files: int = 0) -> tarfile.TarFile:
    """A gzipped tar of one file of `zeros` zero bytes (a few KB of gzip per MiB) and `files` empty files."""
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as tar:
        folder = tarfile.TarInfo("c")
        folder.type = tarfile.DIRTYPE
        tar.addfile(folder)
        for index in range(files):
            tar.addfile(tarfile.TarInfo(f"c/empty-{index}"))
        if zeros:
            info = tarfile.TarInfo("c/zeros")
            info.size = zeros
            tar.addfile(info, io.BytesIO(bytes(zeros)))
    data.seek(0)
    return tarfile.open(fileobj=data)


def _written(target: Path) -> list[str]:
    return sorted(p.relative_to(target).as_posix() for p in target.rglob("*"))


def test_a_gzip_bomb_is_refused_from_its_headers_before_anything_is_written(tmp_path, python):
    # 2 MiB of zeros, 2 KB of gzip, against a limit of 1 MiB
    with _bomb(2 << 20) as tar, pytest.raises(ArchiveTooLarge) as refused:
        extract(tar, tmp_path, max_bytes=1 << 20)
    assert str(refused.value) == ("holds more than 1,048,576 bytes of files (wirecheck.limits.MAX_ARCHIVE_BYTES): "
                                  "2,097,152 bytes up to and with 'c/zeros' (member 2)")
    assert _written(tmp_path) == []


def test_a_flood_of_members_is_refused_from_its_headers_before_anything_is_written(tmp_path, python):
    with _bomb(0, files=60) as tar, pytest.raises(ArchiveTooLarge) as refused:
        extract(tar, tmp_path, max_members=50)
    assert str(refused.value) == ("holds more than 50 members (wirecheck.limits.MAX_ARCHIVE_MEMBERS): refused at "
                                  "member 51, 'c/empty-49'")
    assert _written(tmp_path) == []


def test_the_default_limit_refuses_ten_gigabytes_from_one_header(tmp_path, python):
    """The limits wirecheck uses (limits.py): a header claiming 10 GiB is refused by itself (its data never read)."""
    data = io.BytesIO()
    info = tarfile.TarInfo("package/zeros")
    info.size = 10 << 30
    data.write(info.tobuf())  # the header alone: the archive is 512 bytes
    data.seek(0)
    with tarfile.open(fileobj=data) as tar, pytest.raises(ArchiveTooLarge) as refused:
        extract(tar, tmp_path)
    assert "more than 1,073,741,824 bytes of files" in str(refused.value)
    assert "10,737,418,240 bytes up to and with 'package/zeros'" in str(refused.value)
    assert _written(tmp_path) == []


def test_within_the_limits_everything_is_extracted(tmp_path, python):
    with _bomb(1 << 20, files=49) as tar:  # exactly the limits: 1 MiB of files, 51 members
        assert extract(tar, tmp_path, max_bytes=1 << 20, max_members=51) is None
    assert (tmp_path / "c/zeros").stat().st_size == 1 << 20 and len(_written(tmp_path)) == 51


def test_what_is_written_is_counted_too(tmp_path, python, monkeypatch):
    """Should the headers read first say less than is written (the first reading skipped here), the writing
    itself stops at the limit."""
    monkeypatch.setattr(archives, "_headers", lambda tar, max_bytes, max_members: list(tar))
    with _bomb(3 << 20, files=3) as tar, pytest.raises(ArchiveTooLarge, match=r"more than 1,048,576 bytes"):
        extract(tar, tmp_path, max_bytes=1 << 20)
    zeros = tmp_path / "c/zeros"
    assert not zeros.exists() or zeros.stat().st_size <= 1 << 20
    with _bomb(0, files=10) as tar, pytest.raises(ArchiveTooLarge, match=r"more than 5 members"):
        extract(tar, tmp_path / "members", max_members=5)


def test_a_hard_link_counts_the_bytes_of_its_target(tmp_path):
    """Extracted as a copy where a link cannot be made: what it may write counts (the filter admits hard links
    inside the archive; without it every link is refused anyway)."""
    if not hasattr(tarfile, "data_filter"):
        pytest.skip("this Python has no tarfile.data_filter")
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w") as tar:
        info = tarfile.TarInfo("c/file")
        info.size = 600 << 10
        tar.addfile(info, io.BytesIO(bytes(info.size)))
        link = tarfile.TarInfo("c/link")
        link.type, link.linkname = tarfile.LNKTYPE, "c/file"
        tar.addfile(link)
    data.seek(0)
    with tarfile.open(fileobj=data) as tar, pytest.raises(ArchiveTooLarge, match="1,228,800 bytes up to and with "
                                                                                  "'c/link'"):
        extract(tar, tmp_path, max_bytes=1 << 20)


# -- git, as `diff --against` runs it ---------------------------------------------------------------------------

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git is not installed")


def _repo(tmp_path: Path) -> Path:
    """A repository whose one commit holds the test catalogs as contracts/; the contracts folder."""
    repo = tmp_path / "repo"
    shutil.copytree(CATALOGS, repo / "contracts")
    git = [str(GIT), "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    for args in (["init", "-q"], ["add", "contracts"], ["commit", "-q", "-m", "contracts"]):
        subprocess.run([*git, *args], check=True, timeout=60, env={**os.environ, "HOME": str(tmp_path)})
    return repo / "contracts"


@pytest.fixture
def user_home(tmp_path, monkeypatch) -> Path:
    """The user's HOME (where git's global configuration is), and no XDG_CONFIG_HOME of wirecheck's own."""
    home = tmp_path / "user-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    return home


@needs_git
def test_git_runs_as_every_program(fake_programs, tmp_path, user_home):
    """rev-parse and archive: their own process group and session, a scratch HOME (a wrapper records, then execs
    the real git)."""
    contracts = _repo(tmp_path)
    fake_programs.add("git", f"os.execv({GIT!r}, ['git', *sys.argv[1:]])")
    extracted = contracts_at("HEAD", contracts)
    assert (extracted.folder / "registry.yaml").read_bytes() == (CATALOGS / "registry.yaml").read_bytes()
    runs = fake_programs.runs("git")
    assert [facts["argv"][2] for facts in runs] == ["rev-parse", "archive"]
    for facts in runs:
        fake_programs.assert_standard(facts)


@needs_git
def test_the_users_global_git_configuration_still_reaches_git(tmp_path, user_home, monkeypatch):
    """Both files git reads as global ($XDG_CONFIG_HOME/git/config, then ~/.gitconfig: the later wins), read where
    they are from the scratch HOME; GIT_CONFIG_GLOBAL, when set, is the one file git reads."""
    (user_home / ".config" / "git").mkdir(parents=True)
    (user_home / ".config" / "git" / "config").write_text('[alias]\n\txdg = "!echo xdg"\n\tboth = "!echo xdg"\n')
    (user_home / ".gitconfig").write_text('[alias]\n\thome = "!echo home"\n\tboth = "!echo home"\n'
                                          '[safe]\n\tdirectory = /srv/workspace\n')

    def config(*keys: str) -> list[str]:
        with Scratch.create() as scratch:
            env = against.git_env(scratch)
            assert env["HOME"] == str(scratch.root / "home")
            return [run([str(GIT), "config", "--get", key], env=env, timeout=60, scratch=scratch)
                    .stdout.decode().strip() for key in keys]

    assert config("alias.xdg", "alias.home", "alias.both", "safe.directory") == [
        "!echo xdg", "!echo home", "!echo home", "/srv/workspace"]
    elsewhere = tmp_path / "ci.gitconfig"
    elsewhere.write_text('[alias]\n\tci = "!echo ci"\n')
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(elsewhere))
    assert config("alias.ci", "alias.home") == ["!echo ci", ""]
    assert (user_home / ".gitconfig").read_text().count("[alias]") == 1  # read, never written


@needs_git
@pytest.mark.skipif(os.geteuid() != 0, reason="giving the repository to another user needs root")
def test_a_repository_of_another_user_is_read_with_the_users_safe_directory(tmp_path, user_home, monkeypatch):
    """As in a container where actions/checkout's workspace belongs to another user: git refuses it ("dubious
    ownership") unless the global configuration lists it as safe.directory, which it still does from the scratch
    HOME."""
    monkeypatch.delenv("SUDO_UID", raising=False)  # git as root compares the owner with it
    contracts = _repo(tmp_path)
    for path in [contracts.parent, *contracts.parent.rglob("*")]:
        os.lchown(path, 65534, 65534)
    with pytest.raises(AgainstError, match=r"is not inside a git checkout .*(dubious ownership|safe\.directory)"):
        contracts_at("HEAD", contracts)
    (user_home / ".gitconfig").write_text(f"[safe]\n\tdirectory = {contracts.parent}\n")
    extracted = contracts_at("HEAD", contracts)
    assert (extracted.folder / "registry.yaml").read_bytes() == (CATALOGS / "registry.yaml").read_bytes()


@needs_git
def test_git_past_its_timeout_is_stopped_with_what_it_started(fake_programs, tmp_path, monkeypatch):
    monkeypatch.setattr(against, "REV_PARSE_SECONDS", 3.0)
    fake_programs.add("git")
    fake_programs.hang()
    with pytest.raises(AgainstError, match=r"is not inside a git checkout \(no answer within 3 s; git was stopped"):
        contracts_at("HEAD", tmp_path)
    fake_programs.assert_hung_and_ended()


@needs_git
def test_git_archive_goes_to_a_file_and_is_bounded(tmp_path, user_home, monkeypatch):
    """The tar is written into the scratch folder, never held in memory, and no larger than the limits allow."""
    contracts = _repo(tmp_path)
    monkeypatch.setattr(against, "ARCHIVE_FILE_BYTES", 4096)
    with pytest.raises(AgainstError, match=r"contracts at that commit is an archive of more than 4,096 bytes \("):
        contracts_at("HEAD", contracts)


@needs_git
def test_diff_against_refuses_an_archive_past_the_limits_cleanly(tmp_path, user_home, monkeypatch, python):
    from typer.testing import CliRunner

    from wirecheck.cli.app import app

    contracts = _repo(tmp_path)
    monkeypatch.setattr(archives, "MAX_ARCHIVE_BYTES", 1000)
    result = CliRunner().invoke(app, ["diff", "--against", "HEAD", "--contracts", str(contracts)])
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
    assert "--against HEAD: contracts at that commit holds more than 1,000 bytes of files (wirecheck.limits." \
           "MAX_ARCHIVE_BYTES)" in " ".join(result.output.split())


@needs_git
def test_an_archive_that_cannot_be_written_out_is_a_located_error(tmp_path, monkeypatch):
    """A full disk or an unwritable folder while unpacking: an AgainstError naming where, never a traceback."""
    contracts = _repo(tmp_path)

    def full_disk(tar, target):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(archives, "extract", full_disk)
    with pytest.raises(AgainstError, match=r"cannot be unpacked into .*No space left on device"):
        contracts_at("HEAD", contracts)
