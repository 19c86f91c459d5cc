"""jsonschema-rs (the fast validator) against python-jsonschema (the reference oracle) on every fixture message.

Both views (strict and tolerant) of every classified message in every fixture must get the same verdict from both
validators; a disagreement is a bug in one of them or in our configuration (regex dialect, formats) and fails here.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from wirecheck.capture import CaptureFile, read_capture
from wirecheck.check.classify import Classifier
from wirecheck.check.message import Message
from wirecheck.check.validate import Validators
from wirecheck.contracts import load_registry
from wirecheck.contracts.loader import DIALECT
from wirecheck.contracts.reference import reference_validator
from wirecheck.contracts.views import tolerant_view

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = load_registry(ROOT / "contracts")
RELEASES = [f"{p.name}@{v}" for p in REGISTRY.packages.values() for v in p.releases]


def _messages(spec):
    package, version = spec.split("@")
    expectations = ROOT / "fixtures" / package / version / "expectations.yaml"
    if not expectations.exists():
        return
    for case in yaml.safe_load(expectations.read_text())["cases"]:
        for item in read_capture(CaptureFile(str(expectations.parent / case["capture"]))):
            if isinstance(item, Message):
                yield item


@pytest.mark.parametrize("spec", RELEASES)
def test_fast_and_reference_validators_agree_on_every_fixture_message(spec):
    release = REGISTRY.load(spec)
    classifier, validators = Classifier(release), Validators(release)
    strict_resources = dict(release.resources)
    tolerant_resources = {uri: tolerant_view(schema) for uri, schema in strict_resources.items()}
    oracles: dict[str, tuple] = {}
    disagreements = []
    checked = 0
    for message in _messages(spec):
        kind = classifier.classify(message)
        if kind is None or kind.schema is None or kind.argv_grammar is not None or message.value is None:
            continue
        uri = kind.schema.uri
        if uri not in oracles:
            root = {"$schema": DIALECT, "$ref": uri}
            oracles[uri] = (reference_validator(root, strict_resources), reference_validator(root, tolerant_resources))
        fast = validators.pair(kind.schema)
        for view, rs, ref in (("strict", fast.strict, oracles[uri][0]), ("tolerant", fast.tolerant, oracles[uri][1])):
            checked += 1
            if rs.is_valid(message.value) != ref.is_valid(message.value):
                disagreements.append((message.file, message.line, message.where, kind.id, view))
    assert not disagreements, disagreements
    if checked == 0:
        pytest.skip(f"{spec}: no schema-checked fixture messages")
