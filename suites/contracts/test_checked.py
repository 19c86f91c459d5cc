"""The bundled contracts' checked.json: a bundled release exactly as the tests checked it loads without its checks;
anything else (an edited release, a user's folder, a pack) is checked on every load. And their parsed.jsonl: a bundled
YAML file whose bytes it holds is served from it, not parsed; anything else is parsed."""

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
        "contracts/checked.json is stale: run `python -m wirecheck.twins` after changing contracts/")


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
    caches = (loader.checked_digests, loader.load_release, loader._load_registry, loader._parsed_bytes,
              loader._kind_ids)
    for cached in caches:
        cached.cache_clear()
    yield root, calls
    for cached in caches:
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


# parsed.jsonl: the data of each YAML file the loader reads, keyed by the SHA-256 of its bytes (loader.contract_yaml)

def _yaml_files(root: Path) -> list[Path]:
    return sorted({p for pattern in checked.YAML_FILES for p in root.glob(pattern)})


def test_parsed_file_is_current():
    written = (BUNDLED / loader.PARSED_FILE).read_bytes()
    assert written == checked.parsed_text(BUNDLED), (
        "contracts/parsed.jsonl is stale: run `python -m wirecheck.twins` after changing contracts/")


def test_every_yaml_file_the_loader_reads_is_stored():
    lines, left_out = checked.parsed_lines(BUNDLED)
    assert left_out == []
    names = {orjson.loads(line)["file"] for line in lines}
    registry = load_registry(BUNDLED)
    assert "registry.yaml" in names and all(
        f"{n}/{v}/catalog.yaml" in names and f"{n}/{v}/readers.yaml" in names
        for n, info in registry.packages.items() for v in info.releases)


@pytest.fixture
def parses(monkeypatch):
    """The files PyYAML parses (yaml_lines.parse_yaml, which read_yaml_file calls too), in order."""
    from wirecheck import yaml_lines

    seen: list[str] = []
    real = yaml_lines.parse_yaml

    def counted(text, file, **kwargs):
        seen.append(file)
        return real(text, file, **kwargs)

    monkeypatch.setattr(yaml_lines, "parse_yaml", counted)
    loader._parsed_bytes.cache_clear()
    yield seen
    loader._parsed_bytes.cache_clear()


def test_a_bundled_file_is_served_exactly_as_yaml_reads_it(parses):
    from wirecheck.yaml_lines import read_yaml_file

    files = _yaml_files(BUNDLED)
    served = [loader.contract_yaml(path) for path in files]
    assert parses == []  # nothing parsed: every file served
    assert all(checked.exact(data, read_yaml_file(path)) for data, path in zip(served, files, strict=True))
    assert loader.contract_yaml(files[0]) is not served[0]  # a fresh copy each time, as a YAML load is


def test_a_stale_parsed_file_is_found_stale(copy):
    root, _ = copy
    assert (root / loader.PARSED_FILE).read_bytes() == checked.parsed_text(root)
    catalog = root / "acp/0.5.1/catalog.yaml"
    catalog.write_bytes(catalog.read_bytes() + b"# one byte more than checked\n")  # the same data, other bytes
    assert (root / loader.PARSED_FILE).read_bytes() != checked.parsed_text(root)


def test_an_edited_bundled_yaml_file_is_parsed_not_served(copy, monkeypatch, parses):
    root, _ = copy
    _as_bundled(monkeypatch, root)
    catalog = root / "acp/0.5.1/catalog.yaml"
    assert loader.contract_yaml(catalog)["title"].startswith("Agent Client Protocol") and parses == []  # served
    text = catalog.read_text(encoding="utf-8")
    catalog.write_text(text.replace("\ntitle: ", "\ntitle: Edited, ", 1), encoding="utf-8")
    release = loader.load_release(root, "acp", "0.5.1")
    assert release.title.startswith("Edited, Agent Client Protocol") and parses == [str(catalog)]


def test_a_folder_of_the_users_is_parsed_whatever_it_holds(copy, parses):
    root, _ = copy  # the same bytes as the bundled contracts, and their parsed.jsonl: never served
    assert loader.load_release(root, "acp", "0.5.1").name == "acp@0.5.1"
    assert parses == [str(root / f"acp/0.5.1/{name}.yaml") for name in ("catalog", "readers", "behaviour")]
    load_registry(root)
    assert parses[-1] == str(root / "registry.yaml")


def test_a_value_json_cannot_hold_is_left_out(copy):
    root, _ = copy
    registry = root / "registry.yaml"
    registry.write_text(registry.read_text(encoding="utf-8") + "released: 2026-12-04\n", encoding="utf-8")
    lines, left_out = checked.parsed_lines(root)
    assert left_out == ["registry.yaml"] and len(lines) == len(_yaml_files(root)) - 1


def test_exact_tells_types_and_order_apart():
    assert checked.exact({"a": [1, 2.5, None, "x"], "b": True}, {"a": [1, 2.5, None, "x"], "b": True})
    assert not checked.exact(1, 1.0) and not checked.exact(True, 1) and not checked.exact([1], [1, 2])
    assert not checked.exact({"a": 1, "b": 2}, {"b": 2, "a": 1})


def test_one_command_writes_every_generated_file(monkeypatch) -> None:
    """`python -m wirecheck.twins` is the one command the stale-file messages name: it writes the contracts' two
    files, the diff rule catalogue's twin and the check texts' twin (each writer recorded, none run)."""
    from wirecheck import twins
    from wirecheck.contracts import checked
    from wirecheck.diff import catalogue as diff_rules
    from wirecheck.rules import catalogue as check_texts

    written: list[str] = []
    monkeypatch.setattr(checked, "main", lambda: written.append("contracts") or 0)
    monkeypatch.setattr(diff_rules, "write_json_twin", lambda: written.append("diff rules"))
    monkeypatch.setattr(check_texts, "write_json_twin", lambda: written.append("check texts"))
    assert twins.main() == 0
    assert written == ["contracts", "diff rules", "check texts"]
    from wirecheck.data_files import twin_text

    assert twin_text({"b": "é", "a": [1]}) == '{\n "b": "é",\n "a": [\n  1\n ]\n}\n'  # YAML order, UTF-8 kept
