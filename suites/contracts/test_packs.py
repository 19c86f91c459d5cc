"""Contract packs: a vendor's contracts installed with pip (entry point group `wirecheck.contracts`) are listed and
used beside the bundled ones, with the same loader, validation and error locations. The example pack in
fixtures/contract-pack is really installed (pip, into a folder put on PYTHONPATH: its metadata and entry point are
what an installed distribution has)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACK = ROOT / "fixtures" / "contract-pack"
DEMO = ROOT / "suites" / "data" / "contracts"


def pip_install(source: Path, target: Path) -> Path:
    """`pip install` without network or build isolation (setuptools is in the test environment)."""
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--no-index", "--target", str(target), str(source)], check=True, timeout=300,
                   capture_output=True)
    return target


@pytest.fixture(scope="module")
def installed_pack(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("pack")
    source = shutil.copytree(PACK, work / "source")  # pip builds in place: keep the fixture clean
    return pip_install(source, work / "site")


def wirecheck(site: Path, *args: str, cwd: Path | None = None, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "WIRECHECK_CONTRACTS"} | extra
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "wirecheck", *args], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def test_an_installed_pack_is_listed_beside_the_bundled_contracts(installed_pack):
    result = wirecheck(installed_pack, "contracts")
    assert result.returncode == 0, result.stderr
    assert "acme-agent [pack acme-wirecheck-contracts 1.0.0]" in result.stdout
    assert "xopc  @xopcai/xopc" in result.stdout  # the bundled ones are still there
    assert re.search(r"^acme-agent .*\n  1\.0\.0 +2 kinds  stdio-ndjson$", result.stdout, re.M)


def test_a_pack_release_validates_captures(installed_pack):
    good = wirecheck(installed_pack, "validate", "acme-agent@1.0.0", str(PACK / "captures" / "valid.jsonl"))
    assert good.returncode == 0, good.stdout + good.stderr
    bad = wirecheck(installed_pack, "validate", "acme-agent@1.0.0", str(PACK / "captures" / "invalid.jsonl"))
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "invalid.jsonl:1" in bad.stdout and "invalid.jsonl:2" in bad.stdout
    assert "/session" in bad.stdout and "/ok" in bad.stdout


def test_contracts_folders_replace_or_add_to_the_installed_ones(installed_pack):
    alone = wirecheck(installed_pack, "contracts", "--contracts", str(DEMO))
    assert "demo" in alone.stdout and "acme-agent" not in alone.stdout and "xopc" not in alone.stdout
    added = wirecheck(installed_pack, "contracts", "--contracts", f"{DEMO}{os.pathsep}")
    assert added.returncode == 0, added.stderr
    assert added.stdout.index("demo") < added.stdout.index("xopc") < added.stdout.index("acme-agent")


def test_a_broken_pack_is_reported_where_it_is_installed(installed_pack, tmp_path):
    site = shutil.copytree(installed_pack, tmp_path / "site")  # the installed files, one of them then broken
    catalog = site / "acme_wirecheck_contracts" / "acme-agent" / "1.0.0" / "catalog.yaml"
    catalog.write_text(catalog.read_text().replace("events.json#/$defs/Finished", "events.json#/$defs/Done"))
    result = wirecheck(site, "contracts")
    assert result.returncode == 2
    assert f"{catalog}#/kinds/1/schema" in result.stderr
    assert "(line 23)" in result.stderr and "Traceback" not in result.stderr


def test_an_entry_point_that_names_no_package_is_a_located_error(installed_pack, tmp_path):
    site = shutil.copytree(installed_pack, tmp_path / "site")
    (points,) = site.glob("acme_wirecheck_contracts-1.0.0.dist-info/entry_points.txt")
    points.write_text(points.read_text().replace('acme = acme_wirecheck_contracts', 'acme = acme_missing'))
    result = wirecheck(site, "contracts")
    assert result.returncode == 2
    assert "pack acme-wirecheck-contracts 1.0.0 (entry point wirecheck.contracts: acme = acme_missing)" in result.stderr
    assert "No module named 'acme_missing'" in result.stderr


def test_no_pack_is_known_without_importlib_metadata_only_where_it_could_find_none(installed_pack, tmp_path,
                                                                                   monkeypatch):
    """loader._surely_no_pack spares importlib.metadata (~25 ms of every command reading the installed contracts)
    only where its search could find no pack; anything it cannot rule out goes to importlib.metadata."""
    import importlib.machinery
    import zipfile

    from wirecheck.contracts import loader

    # the finders a plain interpreter has (another test's or plugin's finder must not decide this one)
    monkeypatch.setattr(sys, "meta_path", [f for f in sys.meta_path if not hasattr(f, "find_distributions")
                                           or f is importlib.machinery.PathFinder])
    # a checkout's tools folder after `pip install -e .`: wirecheck's own metadata is no pack (a copy: the real one
    # is rewritten by the builds other test processes run at the same time)
    checkout = tmp_path / "tools"
    (checkout / "wirecheck.egg-info").mkdir(parents=True)
    (checkout / "wirecheck.egg-info" / "entry_points.txt").write_text(
        "[console_scripts]\nwirecheck = wirecheck.cli.app:main\n\n[pytest11]\nwirecheck = wirecheck.pytest_plugin\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path / "absent"), str(checkout)])
    assert loader._surely_no_pack()
    monkeypatch.setattr(sys, "path", [str(installed_pack)])  # the real pack, as pip installed it
    assert not loader._surely_no_pack()
    other = tmp_path / "site"
    (other / "plain-1.0.dist-info").mkdir(parents=True)
    (other / "plain-1.0.dist-info" / "entry_points.txt").write_text("[console_scripts]\nplain = plain:main\n")
    (other / "odd-1.0.egg-info").write_text("Metadata-Version: 1.0\n")  # a file, as old installs wrote it
    monkeypatch.setattr(sys, "path", [str(other)])
    assert loader._surely_no_pack()
    (other / "Vendor-2.0.DIST-INFO").mkdir()
    (other / "Vendor-2.0.DIST-INFO" / "entry_points.txt").write_text("[wirecheck.contracts]\nv = vendor\n")
    assert not loader._surely_no_pack()
    archive = tmp_path / "eggs.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("x.txt", "")
    for path in ([str(archive)], [str(tmp_path / "thing.egg")]):
        (tmp_path / "thing.egg").mkdir(exist_ok=True)
        monkeypatch.setattr(sys, "path", path)
        assert not loader._surely_no_pack(), path

    class Finder:  # another finder that lists distributions
        @staticmethod
        def find_distributions(context=None):
            return iter(())

    monkeypatch.setattr(sys, "path", [])
    assert loader._surely_no_pack()
    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, Finder()])
    assert not loader._surely_no_pack()
    assert importlib.machinery.PathFinder in sys.meta_path


def test_reading_the_installed_contracts_without_a_pack_imports_no_metadata_reader(tmp_path):
    probe = ("import sys\nfrom wirecheck.contracts import load_registry\nload_registry()\n"
             "print('importlib.metadata' in sys.modules)")
    env = {k: v for k, v in os.environ.items() if k != "WIRECHECK_CONTRACTS"}
    out = subprocess.run([sys.executable, "-c", probe], env=env, cwd=tmp_path, capture_output=True, text=True,
                         timeout=120)
    assert out.stdout.strip() == "False", out.stderr


BUNDLED_CAPTURE = ROOT / "fixtures" / "xopc" / "0.0.253" / "valid" / "worker-run.har"


def test_no_code_of_a_pack_runs_whatever_the_command(installed_pack, tmp_path):
    """A pack is data (issue 41, 5): its folder is found without importing it. The example pack's __init__.py
    leaves a marker and raises when imported (as `files()` on its entry point did, on every command, even
    `validate` of a bundled release)."""
    marker = tmp_path / "imported"
    hello = tmp_path / "hello.jsonl"
    hello.write_text('{"type": "hello", "version": "1.0.0"}\n')
    runs = [("contracts",), ("validate", "acme-agent@1.0.0", str(PACK / "captures" / "valid.jsonl")),
            ("show", "acme-agent@1.0.0", "started"), ("fuzz", "acme-agent@1.0.0", "--count", "2", "--seed", "1"),
            ("validate", "xopc@0.0.253", str(BUNDLED_CAPTURE)),
            ("validate", "demo@1.0.0", "--contracts", f"{DEMO}{os.pathsep}", str(hello))]
    for args in runs:
        result = wirecheck(installed_pack, *args, ACME_PACK_IMPORTED=str(marker))
        assert result.returncode == 0, (args, result.stdout[-2000:], result.stderr)
        assert not marker.exists(), f"{args}: the pack's __init__.py ran"
    # the guard is live: importing the pack leaves the marker and fails
    imported = subprocess.run([sys.executable, "-c", "import acme_wirecheck_contracts"], capture_output=True,
                              text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(installed_pack),
                                                          "ACME_PACK_IMPORTED": str(marker)})
    assert imported.returncode == 1 and "never imported" in imported.stderr and marker.exists()


def test_a_pack_is_looked_up_only_when_a_command_needs_a_package_no_folder_before_it_lists(installed_pack,
                                                                                         tmp_path):
    """A pack whose entry point names no package stops only the commands that reach it (issue 41, 5: "only when
    the user names the pack"): a bundled release validates, and `contracts` (which lists every pack) and a
    release of no bundled package say where the pack is broken."""
    site = shutil.copytree(installed_pack, tmp_path / "site")
    (points,) = site.glob("acme_wirecheck_contracts-1.0.0.dist-info/entry_points.txt")
    points.write_text(points.read_text().replace("acme = acme_wirecheck_contracts", "acme = acme_missing"))
    bundled = wirecheck(site, "validate", "xopc@0.0.253", str(BUNDLED_CAPTURE))
    assert bundled.returncode == 0, bundled.stdout + bundled.stderr
    for args in (("contracts",), ("validate", "acme-agent@1.0.0", str(PACK / "captures" / "valid.jsonl"))):
        result = wirecheck(site, *args)
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        assert "(entry point wirecheck.contracts: acme = acme_missing): cannot find the pack's package: No module " \
               "named 'acme_missing'" in result.stderr, result.stderr
        assert "Traceback" not in result.stderr


def test_a_pack_folder_is_found_without_importing_it_or_the_packages_it_is_in(tmp_path, monkeypatch):
    """loader.pack_folder asks the finders, as importlib does before it loads anything: a pack inside a package,
    a namespace package, a module that is no package and a missing one, none of them imported."""
    from wirecheck.contracts.loader import pack_folder

    boom = "raise ImportError('imported')\n"
    vendor = tmp_path / "site" / "vendor"
    (vendor / "packs" / "acme").mkdir(parents=True)
    for folder in (vendor, vendor / "packs", vendor / "packs" / "acme"):
        (folder / "__init__.py").write_text(boom)
    (vendor / "packs" / "acme" / "registry.yaml").write_text("packages: {}\n")
    (vendor / "single.py").write_text(boom)
    spread = [tmp_path / "site" / "spread", tmp_path / "more" / "spread"]  # a namespace package in two folders
    for folder in spread:
        folder.mkdir(parents=True)
    (spread[1] / "registry.yaml").write_text("packages: {}\n")
    monkeypatch.syspath_prepend(str(tmp_path / "more"))
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    assert pack_folder("vendor.packs.acme") == vendor / "packs" / "acme"
    assert pack_folder("spread") == spread[1]
    with pytest.raises(LookupError, match=r"'vendor\.single' is a module, not a package"):
        pack_folder("vendor.single")
    with pytest.raises(LookupError, match=r"No module named 'vendor\.nothing'"):
        pack_folder("vendor.nothing.acme")
    assert not {"vendor", "vendor.packs", "vendor.packs.acme", "spread"} & set(sys.modules)
