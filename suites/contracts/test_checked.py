"""The bundled contracts' checked.json: a bundled release exactly as the tests checked it loads without its checks;
anything else (an edited release, a user's folder, a pack) is checked on every load."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from wirecheck.contracts import ContractError, checked, load_registry, loader

BUNDLED = loader.bundled_contracts_dir()


def test_checked_file_is_current():
    written = (BUNDLED / loader.CHECKED_FILE).read_text(encoding="utf-8")
    assert written == checked.text(BUNDLED), (
        "contracts/checked.json is stale: run `python -m wirecheck.contracts.checked` after changing contracts/")


def test_every_bundled_release_is_named():
    names = {f"{n}/{v}" for n, info in load_registry(BUNDLED).packages.items() for v in info.releases}
    assert set(orjson.loads((BUNDLED / loader.CHECKED_FILE).read_bytes())) == names


@pytest.mark.parametrize("spec", ["acp@0.5.1", "acp@2.4.0", "qoder-agent-sdk@1.0.23", "navarch-runtime@0.1.53"])
def test_trusted_load_is_the_checked_load(spec):
    package, version = spec.split("@")
    assert loader.read_release(BUNDLED, package, version, trust=True) == \
        loader.read_release(BUNDLED, package, version, trust=False)


@pytest.fixture
def copy(tmp_path, monkeypatch):
    """The bundled contracts copied (checked.json too), and a count of the checks each load runs."""
    root = tmp_path / "contracts"
    shutil.copytree(BUNDLED, root, ignore=shutil.ignore_patterns("__pycache__"))
    calls: list[str] = []
    real = loader._ref_problems

    def counted(resources, files):
        calls.append(next(iter(files.values())))
        return real(resources, files)

    monkeypatch.setattr(loader, "_ref_problems", counted)
    for cached in (loader.checked_digests, loader.load_release, loader._load_registry):
        cached.cache_clear()
    yield root, calls
    for cached in (loader.checked_digests, loader.load_release, loader._load_registry):
        cached.cache_clear()


def _as_bundled(monkeypatch, root: Path) -> None:
    monkeypatch.setattr(loader, "bundled_contracts_dir", lambda: root)


def test_an_unchanged_bundled_release_skips_its_checks(copy, monkeypatch):
    root, calls = copy
    _as_bundled(monkeypatch, root)
    wire = root / "acp/0.5.1/wire.json"
    wire.write_bytes(orjson.dumps(orjson.loads(wire.read_bytes()), option=orjson.OPT_INDENT_2))  # layout only
    release = loader.load_release(root, "acp", "0.5.1")
    assert release.name == "acp@0.5.1" and calls == []


def test_an_edited_bundled_release_is_checked(copy, monkeypatch):
    root, calls = copy
    _as_bundled(monkeypatch, root)
    wire = root / "acp/0.5.1/wire.json"
    schema = orjson.loads(wire.read_bytes())
    schema["$defs"]["broken"] = {"$ref": "#/$defs/nowhere"}
    wire.write_bytes(orjson.dumps(schema))
    with pytest.raises(ContractError) as info:
        loader.load_release(root, "acp", "0.5.1")
    assert [(p.pointer, p.message) for p in info.value.problems] == [
        ("/$defs/broken/$ref", "'#/$defs/nowhere': wire.json has nothing at #/$defs/nowhere")]
    assert calls


def test_an_edited_catalog_is_checked(copy, monkeypatch):
    root, _ = copy
    _as_bundled(monkeypatch, root)
    catalog = root / "acp/0.5.1/catalog.yaml"
    catalog.write_text(catalog.read_text(encoding="utf-8").replace("version: 0.5.1", "version: 0.5.2", 1))
    with pytest.raises(ContractError) as info:
        loader.load_release(root, "acp", "0.5.1")
    assert [(p.pointer, p.message) for p in info.value.problems] == [("/version", "expected '0.5.1', found '0.5.2'")]


def test_a_folder_of_the_users_is_checked_whatever_it_holds(copy):
    root, calls = copy  # not the bundled folder, though a byte-for-byte copy with its checked.json
    assert loader.load_release(root, "acp", "0.5.1").name == "acp@0.5.1"
    assert len(calls) == 1 and Path(calls[0]).parent == root / "acp/0.5.1"
