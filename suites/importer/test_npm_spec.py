"""`wirecheck import npm` checks the package name and version before npm runs: a path, a URL, a range, a tag or
shell text typed as the version never reaches `npm pack`. Offline: npm is replaced by a stub that records calls."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from wirecheck.cli.app import app
from wirecheck.importer import npm, release, tsgen
from wirecheck.importer.npm import BadSpec, check_name, check_version, parse_spec

BAD_VERSIONS = [
    "../../x",
    "1.0.0; rm -rf ~",
    "1.0.0 && echo pwned",
    "$(touch pwned)",
    "latest",
    "^1.0.0",
    "1.x",
    "v1.0.39",
    "01.0.39",
    "1.0",
    "1.0.39-01",
    "1.0.39\n",
    "file:../evil",
    "git+https://example.invalid/x.git",
    "https://example.invalid/x.tgz",
    "١.٠.٣٩",  # Arabic-Indic digits: \d would take them, semver does not
    "--registry=https://example.invalid",
]
GOOD_VERSIONS = ["1.0.39", "0.0.0", "2.0.0-beta.1", "1.0.0-alpha-1.0", "1.2.3+build.5", "1.0.0-rc.1+sha.abc-1"]
BAD_NAMES = ["Qoder-Agent-Sdk", "../x", "@scope/../x", "@a/b/c", ".hidden", "_private", "name with space",
             "@scope", "@/x", "x;rm", "-", "-x", "~x", "@-s/x", "a" * 215, "qoder-agent-sdk\n", "--registry=x"]
GOOD_NAMES = ["qoder-agent-sdk", "@qoder-ai/qoder-agent-sdk", "@agentclientprotocol/sdk", "a", "a.b_c~d-e",
              "a" * 214]


@pytest.fixture
def npm_runs(monkeypatch):
    """npm and npx present, every process run recorded and refused: nothing may get that far."""
    runs = []

    def run(argv, *args, **kwargs):
        runs.append(argv)
        raise AssertionError(f"ran {argv!r}")

    monkeypatch.setattr(npm, "resolve_program", lambda name, path=None: f"/usr/bin/{name}")
    monkeypatch.setattr(npm, "run", run)  # what run_npm starts every npm and npx with
    monkeypatch.setattr(tsgen, "generate", lambda *a, **k: run(["npx", "ts-json-schema-generator"]))
    return runs


@pytest.mark.parametrize("version", BAD_VERSIONS)
@pytest.mark.parametrize("check", [False, True], ids=["import", "check"])
def test_import_command_refuses_a_bad_version_before_npm_runs(npm_runs, tmp_path, version, check):
    out = tmp_path / "out"
    args = ["import", "npm", f"@qoder-ai/qoder-agent-sdk@{version}", "--out", str(out)] + (["--check"] if check
                                                                                           else [])
    result = CliRunner().invoke(app, args)
    assert npm_runs == []
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)  # a usage error, not a traceback
    assert f"version {version!r}: not an exact semver version" in result.output
    assert not out.exists() and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("version", GOOD_VERSIONS)
def test_exact_semver_versions_with_prerelease_and_build_are_accepted(version):
    assert check_version(version) == version
    assert parse_spec(f"@qoder-ai/qoder-agent-sdk@{version}") == ("@qoder-ai/qoder-agent-sdk", version)


@pytest.mark.parametrize("name", BAD_NAMES)
def test_a_bad_package_name_is_refused_naming_it(npm_runs, tmp_path, name):
    with pytest.raises(BadSpec, match=re.escape(f"package name {name!r}: not an npm package name")):
        check_name(name)
    with pytest.raises(BadSpec, match="package name"):
        release.import_npm(f"{name}@1.0.0", out=tmp_path / "out")
    with pytest.raises(BadSpec, match="package name"):
        npm.pack(f"{name}@1.0.0", tmp_path / "dest")
    assert npm_runs == [] and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", GOOD_NAMES)
def test_npm_package_names_are_accepted(name):
    assert check_name(name) == name


@pytest.mark.parametrize("version", ["../../x", "1.0.0; rm -rf ~", "latest"])
def test_pack_itself_refuses_a_bad_version_without_running_npm(npm_runs, tmp_path, version):
    """`npm.pack` is the last step before the process: it checks too, whoever calls it."""
    with pytest.raises(BadSpec, match="not an exact semver version"):
        npm.pack(f"@qoder-ai/qoder-agent-sdk@{version}", tmp_path / "dest")
    assert npm_runs == [] and not (tmp_path / "dest").exists()


@pytest.mark.parametrize("spec", ["qoder-agent-sdk@", "@qoder-ai/qoder-agent-sdk", "1.0.0"])
def test_a_spec_without_a_version_is_refused(spec):
    with pytest.raises(BadSpec, match="expected <package>@<version>"):
        parse_spec(spec)


@pytest.mark.parametrize("version", ["../x", "2.4.0; rm -rf ~", "latest"])
def test_acp_import_refuses_a_bad_sdk_version_with_exit_2(npm_runs, tmp_path, version):
    """ACP goes through the same front door (its profile has `schema:`): the spec is checked before npm runs."""
    result = CliRunner().invoke(app, ["import", "npm", f"@agentclientprotocol/sdk@{version}", "--out",
                                      str(tmp_path / "out")])
    assert result.exit_code == 2 and f"version {version!r}: not an exact semver version" in result.output
    assert npm_runs == [] and list(tmp_path.iterdir()) == []
