"""Contract self-tests: every bundled release loads (catalog valid, schemas valid 2020-12, refs resolve offline),
and every fixture case gets exactly its labelled verdict and findings."""

from __future__ import annotations

import functools
from collections import Counter
from pathlib import Path

import jsonschema
import pytest
import yaml

from wirecheck.check.engine import CheckOptions, check_captures
from wirecheck.contracts import load_registry
from wirecheck.contracts.loader import own_schema
from wirecheck.findings import Severity

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
REGISTRY = load_registry(ROOT / "contracts")
RELEASES = [f"{p.name}@{v}" for p in REGISTRY.packages.values() for v in p.releases]


def _cases():
    for spec in RELEASES:
        package, version = spec.split("@")
        path = FIXTURES / package / version / "expectations.yaml"
        if not path.exists():
            continue
        for index, case in enumerate(yaml.safe_load(path.read_text())["cases"]):
            yield pytest.param(spec, path, case, id=f"{spec}:{case['capture']}#{index}")


@pytest.mark.parametrize("spec", RELEASES)
def test_release_loads(spec):
    release = REGISTRY.load(spec)
    assert release.kinds


@pytest.mark.parametrize("spec", RELEASES)
def test_release_has_expectations_file_valid_against_its_schema(spec):
    package, version = spec.split("@")
    path = FIXTURES / package / version / "expectations.yaml"
    assert path.exists(), f"{spec} has no fixtures: every contract needs valid and invalid fixtures"
    jsonschema.validate(yaml.safe_load(path.read_text()), own_schema("expectations.schema.json"))


def _matches(expected: dict, finding) -> bool:
    actual = {
        "code": finding.code,
        "severity": finding.severity.value,
        "line": finding.line,
        "where": finding.where,
        "pointer": finding.pointer,
        "kind": finding.kind,
        "obligation": finding.obligation,
    }
    return all(actual[key] == value for key, value in expected.items())


def run_case(spec: str, expectations: Path, case: dict):
    options = case.get("options", {})
    result = check_captures(
        REGISTRY.load(spec),
        [str(expectations.parent / case["capture"])],
        CheckOptions(
            base_urls=options.get("base_url", {}),
            **({"max_line_bytes": options["max_line_bytes"]} if "max_line_bytes" in options else {}),
            fail_on=Severity(options.get("fail_on", "error")),
            whole=options.get("whole", False),
        ),
    )
    return result


@pytest.mark.parametrize(("spec", "expectations", "case"), list(_cases()))
def test_fixture_case(spec, expectations, case):
    result = run_case(spec, expectations, case)
    unmatched = list(result.findings)
    missing = []
    for expected in case["findings"]:
        hit = next((f for f in unmatched if _matches(expected, f)), None)
        if hit is None:
            missing.append(expected)
        else:
            unmatched.remove(hit)
    shown = "\n".join(
        f"  {f.location} {f.severity.value} {f.code} [{f.kind}] {f.pointer} {f.message}" for f in unmatched
    )
    assert not missing and not unmatched, f"missing: {missing}\nunexpected:\n{shown}"
    assert result.verdict == case["verdict"]


@pytest.mark.parametrize("spec", RELEASES)
def test_every_kind_has_a_valid_and_an_invalid_fixture(spec):
    package, version = spec.split("@")
    path = FIXTURES / package / version / "expectations.yaml"
    if not path.exists():
        pytest.fail(f"{spec} has no fixtures")
    release = REGISTRY.load(spec)
    valid, invalid = Counter(), Counter()
    for case in yaml.safe_load(path.read_text())["cases"]:
        result = run_case(spec, path, case)
        if case["verdict"] == "conforms":
            valid.update(k for k, c in result.coverage.items() if c.seen)
        else:
            failing = {Severity.ERROR} | ({Severity.WARNING} if case.get("options", {}).get("fail_on") == "warning"
                                         else set())
            invalid.update(f.kind for f in result.findings if f.severity in failing and f.kind)
            # A kind that holds under its own contract but that a declared consumer refuses (only
            # CROSS_CONTRACT_VIOLATION errors) is exercised validly too: e.g. the OpenCode config Navarch 0.1.53
            # writes is correct for Navarch and OpenCode V2, and no file it writes can satisfy OpenCode V1.
            own_errors = {f.kind for f in result.findings
                          if f.severity is Severity.ERROR and f.code != "CROSS_CONTRACT_VIOLATION"}
            valid.update(k for k, c in result.coverage.items() if c.seen and k not in own_errors)
    kinds = {k.id for k in release.kinds}
    assert not kinds - set(valid), f"kinds never exercised by a conforming fixture: {sorted(kinds - set(valid))}"
    # a kind whose reader takes any body and no header schema (xopc's heartbeat answer) has nothing to break
    anything = {k.id for k in release.kinds if k.body == "any" and k.headers is None}
    assert not kinds - set(invalid) - anything, f"kinds with no failing fixture: {sorted(kinds - set(invalid))}"


CORRUPTIONS = yaml.safe_load((FIXTURES / "corruptions" / "cases.yaml").read_text())["cases"]


@functools.cache
def _obligation_coverage(spec: str) -> tuple[frozenset[str], frozenset[str]]:
    """The release's obligations (by id) a conforming fixture judged, and those a failing fixture or a corruption
    case (fixtures/corruptions/) breaks."""
    from wirecheck.certify.generate import prefix_of

    package, version = spec.split("@")
    path = FIXTURES / package / version / "expectations.yaml"
    kept, broken = set(), set()
    for case in (yaml.safe_load(path.read_text())["cases"] if path.exists() else []):
        result = run_case(spec, path, case)
        if case["verdict"] == "conforms":
            kept.update(i for i, n in result.judged.items() if n)
        broken.update(f.obligation for f in result.findings if f.obligation)
    prefix = prefix_of(REGISTRY.load(spec)) + "-"
    for case in CORRUPTIONS:
        if case["certify"]["contract"] == spec:
            broken.update(r[len(prefix):] for r in case["fails"] if r.startswith(prefix))
    return frozenset(kept), frozenset(broken)


@pytest.mark.parametrize("spec", [s for s in RELEASES if REGISTRY.load(s).obligations])
def test_every_obligation_is_kept_and_broken_by_a_fixture(spec):
    """Like every kind, every behaviour obligation has a conforming capture that exercises it and a broken one that
    fails it. A release whose obligation is the same as a sibling release's (same id, form and parameters: the
    series shares its readers) may rely on the sibling's fixtures for it."""
    release = REGISTRY.load(spec)
    kept, broken = (set(found) for found in _obligation_coverage(spec))
    package = REGISTRY.packages[release.package]
    for obligation in release.obligations:
        if obligation.id in kept and obligation.id in broken:
            continue
        for other in package.releases:
            twin = next((o for o in REGISTRY.load(f"{package.name}@{other}").obligations if o.id == obligation.id),
                        None)
            if other == release.version or twin is None or (twin.form, dict(twin.params)) != (
                    obligation.form, dict(obligation.params)):
                continue
            their_kept, their_broken = _obligation_coverage(f"{package.name}@{other}")
            kept |= their_kept & {obligation.id}
            broken |= their_broken & {obligation.id}
    ids = {o.id for o in release.obligations}
    assert not ids - kept, f"obligations no conforming fixture exercises: {sorted(ids - kept)}"
    assert not ids - broken, f"obligations no failing fixture or corruption case breaks: {sorted(ids - broken)}"
