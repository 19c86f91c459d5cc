"""npm, npx and pip, as the importer runs them, run as wirecheck runs every program (wirecheck.programs): its own
process group and session, reaped, a timeout, HOME/XDG/TMPDIR in a scratch folder; npm's settings given as
variables still reach npm. Fakes on PATH (tests' `fake_programs`) record what they saw; no network."""

from __future__ import annotations

import tarfile

import pytest
from typer.testing import CliRunner

from wirecheck import archives
from wirecheck.cli.app import app
from wirecheck.importer import npm, record_qodercli, series, tsgen

# `npm pack SPEC --json --pack-destination DEST`: a tarball of FILES ([name, size of zeros]), npm's JSON on stdout
PACK = '''
import io, tarfile
FILES = {files!r}
spec, dest = sys.argv[2], sys.argv[sys.argv.index("--pack-destination") + 1]
name, _, version = spec.rpartition("@")
filename = name.lstrip("@").replace("/", "-") + "-" + version + ".tgz"
with tarfile.open(os.path.join(dest, filename), "w:gz") as tar:
    for member, size in FILES:
        info = tarfile.TarInfo(member)
        info.size = size
        tar.addfile(info, io.BytesIO(bytes(size)))
print(json.dumps([{{"filename": filename, "name": name, "version": version, "integrity": "sha512-x", "shasum": "0"}}]))
'''
SPEC = "@agentclientprotocol/sdk@0.4.5"


def packing(files=(("package/package.json", 2),)) -> str:
    return PACK.format(files=list(files))


def test_npm_pack_runs_in_its_own_group_with_a_scratch_home_and_npm_variables(fake_programs, tmp_path, monkeypatch):
    monkeypatch.setenv("npm_config_registry", "https://registry.example.invalid/")
    monkeypatch.setenv("NPM_CONFIG_USERCONFIG", "/etc/company-npmrc")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example.invalid:3128")
    fake_programs.add("npm", packing())
    packed = npm.pack(SPEC, tmp_path / "dest")
    assert (packed.root / "package" / "package.json").read_bytes() == b"\0\0"
    [facts] = fake_programs.runs("npm")
    fake_programs.assert_standard(facts)
    assert facts["argv"][:3] == ["pack", SPEC, "--json"]
    env = facts["env"]
    assert env["npm_config_registry"] == "https://registry.example.invalid/"  # a registry set by a variable
    assert env["NPM_CONFIG_USERCONFIG"] == "/etc/company-npmrc"
    assert env["HTTPS_PROXY"] == "http://proxy.example.invalid:3128"
    # no log file in a folder about to be removed, no update notice quoted as npm's last words
    assert (env["npm_config_logs_max"], env["npm_config_update_notifier"]) == ("0", "false")


def test_a_failed_npm_pack_quotes_npm_and_is_a_usage_error(fake_programs, tmp_path):
    fake_programs.add("npm", "sys.stderr.write('npm error code E404\\nnpm error 404 Not Found - GET "
                             "https://registry.npmjs.org/x\\n'); sys.exit(1)")
    with pytest.raises(RuntimeError) as failed:
        npm.pack(SPEC, tmp_path / "dest")
    assert str(failed.value) == (f"npm pack {SPEC} failed (exit 1): npm error code E404\nnpm error 404 Not Found - "
                                 "GET https://registry.npmjs.org/x")
    result = CliRunner().invoke(app, ["import", "npm", SPEC, "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
    assert "npm error 404 Not Found" in result.output


def test_npm_pack_past_its_timeout_is_stopped_with_what_it_started(fake_programs, tmp_path, monkeypatch):
    monkeypatch.setattr(npm, "PACK_SECONDS", 3.0)
    fake_programs.add("npm", packing())
    fake_programs.hang()
    with pytest.raises(RuntimeError, match=rf"^npm pack {SPEC} did not finish within 3 s and was stopped, with all "
                                           "it started$"):
        npm.pack(SPEC, tmp_path / "dest")
    fake_programs.assert_hung_and_ended()
    fake_programs.assert_standard(fake_programs.runs("npm")[0])


def test_npm_missing_is_said(fake_programs, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(fake_programs.bin))
    with pytest.raises(RuntimeError, match="npm is not on PATH: the import pipeline needs Node and npm"):
        npm.pack(SPEC, tmp_path / "dest")


@pytest.fixture(params=["filter", "no filter"])
def python(request, monkeypatch):
    if request.param == "no filter":  # as on Python 3.11.0-3.11.3 (Debian 12: 3.11.2)
        monkeypatch.delattr(tarfile, "data_filter", raising=False)
    elif not hasattr(tarfile, "data_filter"):
        pytest.skip("this Python has no tarfile.data_filter")
    return request.param


def test_import_npm_refuses_a_gzip_bomb_cleanly(fake_programs, tmp_path, monkeypatch, python):
    """A tarball of more zeros than the limit (scaled down: 3 MiB against 2 MiB) is refused from its headers, with
    nothing unpacked, and `import npm` says so with exit 2, no traceback."""
    monkeypatch.setattr(archives, "MAX_ARCHIVE_BYTES", 2 << 20)
    fake_programs.add("npm", packing([("package/package.json", 2), ("package/zeros", 3 << 20)]))
    with pytest.raises(RuntimeError) as refused:
        npm.pack(SPEC, tmp_path / "dest")
    assert str(refused.value) == (f"npm pack {SPEC}: the tarball holds more than 2,097,152 bytes of files (wirecheck."
                                  "limits.MAX_ARCHIVE_BYTES): 3,145,730 bytes up to and with 'package/zeros' (member "
                                  "2): refused")
    assert list((tmp_path / "dest" / "unpacked").iterdir()) == []
    result = CliRunner().invoke(app, ["import", "npm", SPEC, "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
    assert "holds more than 2,097,152 bytes of files" in result.output and not (tmp_path / "out").exists()


def test_import_npm_refuses_a_flood_of_members_cleanly(fake_programs, tmp_path, monkeypatch, python):
    monkeypatch.setattr(archives, "MAX_ARCHIVE_MEMBERS", 20)
    fake_programs.add("npm", packing([(f"package/f{index}", 0) for index in range(30)]))
    result = CliRunner().invoke(app, ["import", "npm", SPEC, "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
    assert ("the tarball holds more than 20 members (wirecheck.limits.MAX_ARCHIVE_MEMBERS): refused at member 21, "
            "'package/f20': refused") in " ".join(result.output.split())


def test_npm_view_runs_as_every_program(fake_programs):
    fake_programs.add("npm", "print(json.dumps(['1.10.0', '1.9.0', 'not-semver', '1.2.0-beta.1']))")
    assert series.published_versions("@agentclientprotocol/sdk") == ["1.2.0-beta.1", "1.9.0", "1.10.0"]
    [facts] = fake_programs.runs("npm")
    assert facts["argv"] == ["view", "@agentclientprotocol/sdk", "versions", "--json"]
    fake_programs.assert_standard(facts)


def test_npm_view_past_its_timeout_is_said(fake_programs):
    fake_programs.add("npm")
    fake_programs.hang()
    with pytest.raises(RuntimeError, match=r"^npm view acp versions did not finish within 2 s and was stopped"):
        series.published_versions("acp", timeout=2)
    fake_programs.assert_hung_and_ended()


def test_the_generator_runs_through_npx_as_every_program(fake_programs, tmp_path):
    fake_programs.add("npx", "open(sys.argv[sys.argv.index('--out') + 1], 'w').write('{\"definitions\": {}}')")
    root = tmp_path / "unpacked"
    (root / "dist").mkdir(parents=True)
    (root / "dist" / "index.d.ts").write_text("export type { A, B } from './a';\n")
    assert tsgen.generate(root, "dist/index.d.ts", {}, "ts-json-schema-generator@2.4.0") == {"definitions": {}}
    [facts] = fake_programs.runs("npx")
    fake_programs.assert_standard(facts)
    assert facts["cwd"] == str(root) and facts["argv"][:2] == ["--yes", "ts-json-schema-generator@2.4.0"]
    assert facts["argv"][-3:] == ["--type", "A", "B"]


def test_pip_download_for_the_qodercli_recording_runs_as_every_program(fake_programs, tmp_path, monkeypatch):
    monkeypatch.setenv("PIP_INDEX_URL", "https://pypi.example.invalid/simple")
    fake_programs.module("pip", "dest = sys.argv[sys.argv.index('-d') + 1]; os.makedirs(dest, exist_ok=True); "
                                "open(os.path.join(dest, 'qoder_agent_sdk-1.0.13-py3-none-any.whl'), 'w').close()")
    wheel = record_qodercli.download_wheel(tmp_path / "wheel")
    assert wheel.name == "qoder_agent_sdk-1.0.13-py3-none-any.whl"
    [facts] = fake_programs.runs("pip")
    fake_programs.assert_standard(facts)
    assert facts["argv"][:2] == ["download", "--no-deps"]
    assert facts["env"]["PIP_INDEX_URL"] == "https://pypi.example.invalid/simple"


def test_pip_download_past_its_timeout_is_said(fake_programs, tmp_path, monkeypatch):
    monkeypatch.setattr(record_qodercli, "DOWNLOAD_SECONDS", 3.0)
    fake_programs.module("pip")
    fake_programs.hang()
    with pytest.raises(SystemExit, match=r"pip download qoder-agent-sdk==1\.0\.13 did not finish within 3 s"):
        record_qodercli.download_wheel(tmp_path / "wheel")
    fake_programs.assert_hung_and_ended()


def test_the_fake_npm_would_see_a_process_group_of_its_own_only_when_given_one(fake_programs):
    """The facts the tests above rely on can be false: a plain subprocess shares the test's group and HOME."""
    import subprocess

    fake_programs.add("npm")
    subprocess.run(["npm", "view"], check=True, timeout=60)
    [facts] = fake_programs.runs("npm")
    assert not facts["own_group"] and not facts["own_session"]
    with pytest.raises(AssertionError):
        fake_programs.assert_standard(facts)

