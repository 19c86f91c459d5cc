"""A contracts folder (or a pack) is data someone else may write: a CI gate's `--contracts contracts` over a pull
request reads what the contributor committed. Issue 41, 3: a `registry.yaml` or `catalog.yaml` committed as a
symbolic link to `~/.git-credentials` printed the token in the contract error, to `/etc/shadow` its hash lines.
Every contract file (registry, catalog, readers, schema files, requirement set) is read through input_files, which
refuses a file whose links lead out of its folder before opening it; and a contract file that is not the YAML or
JSON it claims to be is reported without quoting any of it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from wirecheck.certify.requirements import load_requirements
from wirecheck.contracts import ContractError, load_registry
from wirecheck.contracts.errors import located

SUITES = Path(__file__).resolve().parents[1]
DEMO = SUITES / "data" / "contracts"
FAKE = SUITES / "harness" / "data" / "contracts"  # a release with a requirement set
SECRET = "ghp_0123456789abcdefTOKENxyz"
SHADOW = "root:$6$salt$HASHVALUEHERE:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\nbin:*:19000:0:99999:7:::\n"


@pytest.fixture
def secrets(tmp_path: Path) -> dict[str, Path]:
    """Files outside any contracts folder, as a CI runner's home holds them."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".git-credentials").write_text(f"https://x-access-token:{SECRET}@github.com\n")
    (home / "shadow").write_text(SHADOW)
    (home / "config.json").write_text(f'{{"auths": {{"ghcr.io": {{"auth": "{SECRET}"}}}}}}\n')
    return {"credentials": home / ".git-credentials", "shadow": home / "shadow", "json": home / "config.json"}


def _folder(tmp_path: Path, source: Path = DEMO) -> Path:
    return shutil.copytree(source, tmp_path / "pr" / "contracts", symlinks=True)


def _said(root: Path, spec: str = "demo@1.0.0") -> str:
    """Everything the contract error says, as the CLI shows it (with lines located)."""
    load_registry.cache_clear()
    from wirecheck.contracts.loader import load_release

    load_release.cache_clear()
    with pytest.raises(ContractError) as raised:
        load_registry(root).load(spec)
    return "\n".join(str(p) for p in located(raised.value.problems))


def _link(path: Path, target: Path) -> None:
    path.unlink()
    path.symlink_to(target)


def _no_leak(said: str) -> None:
    for secret in (SECRET, "HASHVALUE", "daemon", "root:"):
        assert secret not in said, said


@pytest.mark.parametrize("name", ["registry.yaml", "demo/1.0.0/catalog.yaml", "demo/1.0.0/stream.json"])
@pytest.mark.parametrize("secret", ["credentials", "shadow", "json"])
def test_a_contract_file_linked_out_of_its_folder_is_refused_unread(tmp_path, secrets, name, secret):
    root = _folder(tmp_path)
    _link(root / name, secrets[secret])
    said = _said(root)
    _no_leak(said)
    assert f"{root / name}: is a symbolic link that leads out of {root}: wirecheck reads a contracts folder's and " \
           "a contract pack's files only inside it (the file it leads to was not read)" in said


def test_a_release_folder_or_readers_file_linked_out_is_refused(tmp_path, secrets):
    outside = tmp_path / "elsewhere" / "1.0.0"
    shutil.copytree(DEMO / "demo" / "1.0.0", outside)
    (outside / "catalog.yaml").unlink()
    (outside / "catalog.yaml").symlink_to(secrets["credentials"])
    root = _folder(tmp_path)
    shutil.rmtree(root / "demo" / "1.0.0")
    (root / "demo" / "1.0.0").symlink_to(outside, target_is_directory=True)  # the whole release folder is a link
    said = _said(root)
    _no_leak(said)
    assert "leads out of" in said
    root = _folder(tmp_path / "again")
    (root / "demo" / "1.0.0" / "readers.yaml").symlink_to(secrets["shadow"])
    said = _said(root)
    _no_leak(said)
    assert f"{root / 'demo/1.0.0/readers.yaml'}: is a symbolic link that leads out of" in said


def test_a_requirement_set_linked_out_is_refused(tmp_path, secrets):
    root = _folder(tmp_path, FAKE)
    release = load_registry(root).load("fakeqoder@1.0.0")
    _link(root / "fakeqoder" / "1.0.0" / "requirements.yaml", secrets["shadow"])
    with pytest.raises(ContractError) as raised:
        load_requirements(root / "fakeqoder" / "1.0.0" / "requirements.yaml", release)
    _no_leak(str(raised.value))
    assert "leads out of" in str(raised.value)


def test_a_link_inside_the_folder_is_followed(tmp_path):
    root = _folder(tmp_path)
    (root / "demo" / "1.0.0" / "catalog.yaml").rename(root / "catalog-1.0.0.yaml")
    (root / "demo" / "1.0.0" / "catalog.yaml").symlink_to(Path("..") / ".." / "catalog-1.0.0.yaml")
    load_registry.cache_clear()
    assert load_registry(root).load("demo@1.0.0").name == "demo@1.0.0"


@pytest.mark.parametrize(("name", "content", "says"), [
    ("registry.yaml", f"https://x-access-token:{SECRET}@github.com\n",
     "registry.yaml: is not a wirecheck contracts/registry.yaml: its top level is a string, not an object"),
    ("registry.yaml", SHADOW, "registry.yaml: is not a wirecheck contracts/registry.yaml: none of its 3 top-level "
                              "members is one it has (packages; nothing of it is quoted)"),
    ("demo/1.0.0/catalog.yaml", SHADOW, "catalog.yaml: is not a wirecheck contracts/<package>/<version>/catalog.yaml:"
                                        " none of its 3 top-level members"),
    ("demo/1.0.0/catalog.yaml", f"- {SECRET}\n", "catalog.yaml: is not a wirecheck contracts/<package>/<version>/"
                                                 "catalog.yaml: its top level is a list, not an object"),
    ("demo/1.0.0/readers.yaml", f"{SECRET}\n", "readers.yaml: is not a wirecheck contracts/<package>/<version>/"
                                               "readers.yaml"),
    ("demo/1.0.0/stream.json", f"{SECRET}\n", "stream.json: not valid JSON: expected a JSON value at line 1, column 1"),
    ("registry.yaml", f"packages: {{}}\n  {SECRET}: [\n", "registry.yaml: not valid YAML: line 2, column"),
])
def test_a_contract_file_that_is_not_what_it_claims_is_not_quoted(tmp_path, name, content, says):
    """A regular file in the folder (a mistake, or a copy of one) that is not the YAML or JSON its name says:
    where it is wrong, never what it holds."""
    root = _folder(tmp_path)
    (root / name).write_text(content)
    said = _said(root)
    _no_leak(said)
    assert says in said


def test_a_catalog_with_a_mistake_is_still_told_member_by_member(tmp_path):
    """A file that is a catalog (one of its members is one a catalog has) gets every problem, values quoted."""
    root = _folder(tmp_path)
    catalog = root / "demo" / "1.0.0" / "catalog.yaml"
    catalog.write_text(catalog.read_text().replace("title:", "titel:", 1))
    said = _said(root)
    assert "missing required member title" in said and "unknown member titel" in said


def test_the_cli_says_where_and_never_what(tmp_path, secrets):
    """End to end, as the CI gate runs it: the error names the file and why, exit 2, no secret on any stream."""
    root = _folder(tmp_path)
    _link(root / "registry.yaml", secrets["credentials"])
    capture = tmp_path / "c.jsonl"
    capture.write_text('{"type": "hello", "version": "1.0.0"}\n')
    env = {k: v for k, v in os.environ.items() if k != "WIRECHECK_CONTRACTS"}
    for args in (["validate", "demo@1.0.0", str(capture)], ["contracts"], ["diff", "demo@1.0.0", "demo@1.0.0"]):
        result = subprocess.run([sys.executable, "-m", "wirecheck", *args, "--contracts", str(root)], env=env,
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        assert SECRET not in result.stdout + result.stderr
        assert "is a symbolic link that leads out of" in result.stderr, result.stderr
