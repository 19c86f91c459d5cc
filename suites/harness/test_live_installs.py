"""The live tier's own programs (harness/jsonrpc_live.py: `npm install` of a subject, `node --version` for the
record) run as wirecheck runs every program (wirecheck.programs): their own process group and session, reaped, a
timeout, a scratch HOME. Fakes on PATH (tests' `fake_programs`) record what they saw; no network, no Node."""

from __future__ import annotations

import pytest

from wirecheck.harness import jsonrpc_live

SUBJECT = jsonrpc_live.SUBJECTS[0]
# `npm install --prefix FOLDER ... PACKAGE@VERSION`: the package's package.json where npm would put it
INSTALL = '''
prefix = sys.argv[sys.argv.index("--prefix") + 1]
name = sys.argv[-1].rpartition("@")[0]
os.makedirs(os.path.join(prefix, "node_modules", name))
open(os.path.join(prefix, "node_modules", name, "package.json"), "w").write("{}")
'''


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setattr(jsonrpc_live, "cache_root", lambda: tmp_path / "cache")
    return tmp_path / "cache"


def test_a_subject_is_installed_by_npm_run_as_every_program(fake_programs, cache, monkeypatch):
    monkeypatch.setenv("npm_config_registry", "https://registry.example.invalid/")
    fake_programs.add("npm", INSTALL)
    folder = jsonrpc_live.install(SUBJECT)
    assert (folder / "node_modules" / SUBJECT.package / "package.json").is_file()
    [facts] = fake_programs.runs("npm")
    fake_programs.assert_standard(facts)
    assert facts["argv"][:3] == ["install", "--prefix", str(folder)]
    assert facts["argv"][-1] == f"{SUBJECT.package}@{SUBJECT.version}"
    assert facts["env"]["npm_config_registry"] == "https://registry.example.invalid/"
    assert jsonrpc_live.install(SUBJECT) == folder and len(fake_programs.runs("npm")) == 1  # once


def test_an_install_past_its_timeout_is_stopped_with_what_it_started(fake_programs, cache, monkeypatch):
    monkeypatch.setattr(jsonrpc_live, "INSTALL_SECONDS", 3.0)
    fake_programs.add("npm", INSTALL)
    fake_programs.hang()
    with pytest.raises(RuntimeError, match=rf"^npm install {SUBJECT.package}@{SUBJECT.version} did not finish "
                                           "within 3 s"):
        jsonrpc_live.install(SUBJECT)
    fake_programs.assert_hung_and_ended()


def test_a_failed_install_quotes_npm(fake_programs, cache):
    fake_programs.add("npm", "sys.stderr.write('npm error code ENOTFOUND\\n'); sys.exit(1)")
    with pytest.raises(RuntimeError, match=r"failed \(exit 1\): npm error code ENOTFOUND$"):
        jsonrpc_live.install(SUBJECT)


def test_node_version_runs_as_every_program(fake_programs):
    fake_programs.add("node", "print('v20.20.2')")
    assert jsonrpc_live.node_version() == "v20.20.2"
    [facts] = fake_programs.runs("node")
    fake_programs.assert_standard(facts)
    assert facts["argv"] == ["--version"]


def test_node_version_past_its_timeout_is_none(fake_programs, monkeypatch):
    monkeypatch.setattr(jsonrpc_live, "NODE_VERSION_SECONDS", 3.0)
    fake_programs.add("node")
    fake_programs.hang()
    assert jsonrpc_live.node_version() is None
    fake_programs.assert_hung_and_ended()


# -- harness/live.py (the CLIs' live tier) and stub/live_xopc.py -------------------------------------------------

def _cli_release(**source):
    from wirecheck.harness import live

    return live.Release(cli="fake-cli", version="1.2.3", executable="bin/fake-cli", scenarios=(), certify=(),
                        **source)


def test_a_cli_release_is_installed_by_npm_run_as_every_program(fake_programs, tmp_path):
    from wirecheck.harness import live

    fake_programs.add("npm", "prefix = sys.argv[sys.argv.index('--prefix') + 1]; "
                             "os.makedirs(os.path.join(prefix, 'bin')); "
                             "open(os.path.join(prefix, 'bin', 'fake-cli'), 'w').close()")
    executable = live.install(_cli_release(npm="@example/fake-cli"), tmp_path / "cache")
    assert executable == tmp_path / "cache" / "fake-cli@1.2.3" / "bin" / "fake-cli" and executable.is_file()
    [facts] = fake_programs.runs("npm")
    fake_programs.assert_standard(facts)
    assert facts["argv"][-1] == "@example/fake-cli@1.2.3"


def test_a_cli_wheel_is_downloaded_by_pip_run_as_every_program(fake_programs, tmp_path, monkeypatch):
    from wirecheck.harness import live

    monkeypatch.setenv("PIP_INDEX_URL", "https://pypi.example.invalid/simple")
    fake_programs.module("pip", "import zipfile; dest = sys.argv[sys.argv.index('-d') + 1]; os.makedirs(dest); "
                                "zipfile.ZipFile(os.path.join(dest, 'fake-1.2.3-py3-none-any.whl'), 'w')"
                                ".writestr('bin/fake-cli', '#!/bin/sh\\n')")
    executable = live.install(_cli_release(pypi="fake-cli==1.2.3"), tmp_path / "cache")
    assert executable.read_text() == "#!/bin/sh\n"
    [facts] = fake_programs.runs("pip")
    fake_programs.assert_standard(facts)
    assert facts["env"]["PIP_INDEX_URL"] == "https://pypi.example.invalid/simple"


def test_a_cli_install_past_its_timeout_is_stopped_with_what_it_started(fake_programs, tmp_path, monkeypatch):
    from wirecheck.harness import live

    monkeypatch.setattr(live, "INSTALL_SECONDS", 3.0)
    fake_programs.add("npm")
    fake_programs.hang()
    with pytest.raises(live.InstallFailed, match=r"installing .* did not finish within 3 s"):
        live.install(_cli_release(npm="@example/fake-cli"), tmp_path / "cache")
    fake_programs.assert_hung_and_ended()


@pytest.mark.skipif(__import__("shutil").which("git") is None, reason="git is not installed")
def test_the_xopc_platform_files_come_from_git_run_as_every_program(fake_programs, tmp_path):
    import shutil
    import subprocess

    from wirecheck.stub import live_xopc

    real = shutil.which("git")
    work = tmp_path / "xopc"
    for name in live_xopc.PLATFORM_FILES:
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(f"// {name}\n")
    git = [str(real), "-C", str(work), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    for args in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "platform"]):
        subprocess.run([*git, *args], check=True, timeout=60)
    fake_programs.add("git", f"os.execv({real!r}, ['git', *sys.argv[1:]])")
    files = live_xopc._source_files(work / ".git", "HEAD")
    assert files == {name: f"// {name}\n".encode() for name in live_xopc.PLATFORM_FILES}
    [facts] = fake_programs.runs("git")
    fake_programs.assert_standard(facts)


def test_the_xopc_tier_asks_node_as_every_program(fake_programs, tmp_path):
    from wirecheck.contracts.formats import ADA_CASES
    from wirecheck.stub import live_xopc

    verdicts = [case.ada_2_9_2 for case in ADA_CASES]
    node = fake_programs.add("node", "sys.stdin.read(); print(json.dumps({'version': 'v22.19.0', 'ada': '2.9.2', "
                                     f"'verdicts': {verdicts!r}}}))")
    facts = live_xopc._node_facts(node, tmp_path)
    assert (facts["version"], facts["ada"]) == ("v22.19.0", "2.9.2")
    [ran] = fake_programs.runs("node")
    fake_programs.assert_standard(ran)
    assert ran["cwd"] == str(tmp_path)


def test_the_xopc_tier_says_why_git_cannot_give_the_platform_files(fake_programs, tmp_path, monkeypatch):
    """No git on PATH, or git writing no tar: a located `live-xopc:` error and exit 2, never a traceback."""
    from wirecheck.stub import live_xopc

    git_dir = tmp_path / "xopc.git"
    (git_dir / "objects").mkdir(parents=True)
    (git_dir / "HEAD").write_text("ref: refs/heads/main\n")
    fake_programs.add("git", "sys.stdout.write('not a tar')")
    with pytest.raises(SystemExit) as ended:
        live_xopc._source_files(git_dir, "HEAD")
    assert ended.value.code == 2
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    with pytest.raises(SystemExit) as ended:
        live_xopc._source_files(git_dir, "HEAD")
    assert ended.value.code == 2
