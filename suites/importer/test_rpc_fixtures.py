"""The generated fixtures of the JSON-RPC (ACP) releases are what importer/rpc_fixtures.py makes from the committed
contract today: a contract change that would change them fails here until they are regenerated
(`python -m wirecheck.importer.rpc_fixtures acp@<version>`). That the engine finds exactly the expected findings
is checked by suites/contracts/test_bundled.py."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from wirecheck.contracts import load_registry
from wirecheck.importer import rpc_fixtures
from wirecheck.importer.fixtures import GENERATED

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = load_registry(ROOT / "contracts")
GENERATED_RELEASES = [v for v in REGISTRY.package("acp").releases
                      if (ROOT / "fixtures" / "acp" / v / GENERATED).is_dir()]


def test_the_releases_before_2_4_0_have_generated_fixtures():
    assert [v for v in REGISTRY.package("acp").releases if v != "2.4.0"] == GENERATED_RELEASES


@pytest.mark.parametrize("version", GENERATED_RELEASES)
def test_generated_fixtures_are_current(version):
    folder = ROOT / "fixtures" / "acp" / version
    files, cases, problems = rpc_fixtures.generate(REGISTRY.load(f"acp@{version}"))
    assert problems == []
    for name, text in files.items():
        assert (folder / GENERATED / name).read_text(encoding="utf-8") == text, name
    committed = [c for c in yaml.safe_load((folder / "expectations.yaml").read_text())["cases"]
                 if c["capture"].startswith(GENERATED + "/")]
    assert committed == cases
