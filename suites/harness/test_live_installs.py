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
