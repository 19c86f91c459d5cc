"""readers.yaml `ranges`: the versions a release's declared ranges admit, and the contract following the strictest
supported one (issue 28). The data and the checks cannot drift apart: every ada a supported Node runs is one
wirecheck's URL formats ask, and where a zod in range counts string lengths in UTF-16 code units, every bounded
free string the zod reader reads carries `x-wirecheck-utf16-max-length`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from wirecheck.check.classify import Classifier
from wirecheck.check.message import HttpInfo, Message
from wirecheck.contracts import load_registry
from wirecheck.contracts.formats import ADA_PARSERS, UTF16_MAX_LENGTH

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = load_registry(ROOT / "contracts")
WITH_RANGES = [f"{p.name}@{v}" for p in REGISTRY.packages.values() for v in p.releases
               if "ranges" in (yaml.safe_load((p.root / p.name / v / "readers.yaml").read_text()) or {})]
ASCII_PATTERN = re.compile(r"^\^[\[\]A-Za-z0-9\\._:\-*+{},()?|/ ]*\$$")  # a pattern of ASCII classes only


def ranges_of(spec: str) -> list[dict]:
    package, version = spec.split("@")
    root = REGISTRY.packages[package].root / package / version
    return yaml.safe_load((root / "readers.yaml").read_text())["ranges"]


def test_xopc_records_its_ranges():
    assert "xopc@0.0.253" in WITH_RANGES
    packages = {r["package"]: r["range"] for r in ranges_of("xopc@0.0.253")}
    assert packages == {"zod": "^4.4.3", "node": ">=22.19.0"}


@pytest.mark.parametrize("spec", WITH_RANGES)
def test_every_supported_nodes_ada_is_one_the_url_formats_ask(spec):
    asked = {f"ada {p.version}" for p in ADA_PARSERS}
    for entry in ranges_of(spec):
        for version in entry["versions"]:
            if "url_parser" in version and version["supported"]:
                assert version["url_parser"] in asked, (spec, version)
            if not version["supported"]:
                assert version.get("note"), "an unsupported version says why"


def _strings_with_max_length(node, path=""):
    if isinstance(node, dict):
        if "maxLength" in node:
            yield path, node
        for key, value in node.items():
            yield from _strings_with_max_length(value, f"{path}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _strings_with_max_length(value, f"{path}/{index}")


@pytest.mark.parametrize("spec", WITH_RANGES)
def test_a_utf16_counting_reader_in_range_bounds_every_free_string_in_units(spec):
    release = REGISTRY.load(spec)
    counts_units = any(v.get("string_length") == "utf-16" and v["supported"]
                       for entry in ranges_of(spec) if entry["package"] == "zod" for v in entry["versions"])
    if not counts_units:
        pytest.skip("no reader in range counts UTF-16 code units")
    files = {kind.schema.ref.split("#")[0] for kind in release.kinds
             if kind.schema is not None and kind.consumer == "runtime"}
    files |= {"common.json"} & {p.name for p in release.root.glob("*.json")}
    checked = 0
    for name in sorted(files):
        document = yaml.safe_load((release.root / name).read_text())
        for where, node in _strings_with_max_length(document):
            if ASCII_PATTERN.match(node.get("pattern", "")):
                continue  # an ASCII-only pattern: units and code points are the same count
            checked += 1
            assert node.get(UTF16_MAX_LENGTH) == node["maxLength"], f"{name}#{where}"
    assert checked >= 2  # displayName, leaseToken


@pytest.mark.parametrize(("status", "kind"), [(200, "lease.response"), (201, "lease.response"),
                                              (203, "lease.response"), (204, "lease.empty")])
def test_a_lease_is_any_2xx_but_204(status, kind):
    """client.ts:109-111: a 204 is no work, every other answer `response.ok` is parsed as a lease. An exact status
    beats a class of them whatever the catalog's order."""
    release = REGISTRY.load("xopc@0.0.253")
    message = Message(value=None, file="x", http=HttpInfo("POST", "http://p/agent/lease", "/agent/lease", status))
    assert Classifier(release).classify(message, {"agentApi": "/agent"}).id == kind
