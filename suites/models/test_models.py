"""The committed models are fresh, strict, and agree with the validator on the fuzz corpus (differences listed)."""

from __future__ import annotations

import importlib
import importlib.util
import os
from collections import Counter

import pytest

from wirecheck.contracts import load_registry
from wirecheck.models import agreement
from wirecheck.models.generate import release_module

REGISTRY = load_registry()
# per kind: valid messages and mutants compared (the nightly `thorough` profile compares more)
COUNT = 40 if os.environ.get("HYPOTHESIS_PROFILE") == "thorough" else 8


def _releases() -> list[str]:
    return [release.name for release in REGISTRY.load_all()[0]]


RELEASES = _releases()


@pytest.mark.skipif(
    importlib.util.find_spec("datamodel_code_generator") is None,
    reason="datamodel-code-generator is not installed (the `test` and `models` extras install it)",
)
def test_committed_models_are_fresh():
    from wirecheck.models.generate import generate_all, stale

    problems = stale(generate_all())
    assert not problems, "models are stale; run `nox -s models`:\n" + "\n".join(problems)


@pytest.mark.parametrize("spec", RELEASES)
def test_every_kind_has_a_model(spec):
    release = REGISTRY.load(spec)
    package = importlib.import_module(release_module(release.package, release.version))
    for kind in release.kinds:
        if kind.schema is not None and kind.body == "json":
            assert package.model_for(kind.id) is not None


def test_models_are_strict():
    from wirecheck.models.base import StrictModel

    class Sample(StrictModel):
        seq: int

    with pytest.raises(ValueError):
        Sample.model_validate_json('{"seq": "123"}')


@pytest.mark.parametrize("spec", RELEASES)
def test_models_agree_with_the_validator(spec):
    compared, differences = agreement.compare_release(REGISTRY.load(spec), count=COUNT)
    unexplained = agreement.unexplained(differences)
    summary = Counter((d.direction, d.reason) for d in differences)
    print(f"{spec}: {compared} messages compared; explained differences: {dict(summary)}")
    assert not unexplained, "\n".join(
        f"{d.kind}: model {d.direction} ({d.reason} at {d.where}): {str(d.message)[:300]}" for d in unexplained[:10]
    )


def test_every_explanation_names_a_reason():
    data = agreement.explanations()
    assert data["accepts"] and data["rejects"]
    assert all(isinstance(text, str) and len(text) > 20 for side in data.values() for text in side.values())
