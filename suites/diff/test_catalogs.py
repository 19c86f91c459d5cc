"""Release pairs from suites/diff/catalogs: kinds added/removed/renamed, reply schemas, semver and wire-version
verdicts, the transitive matrix, and a pure refactor (1.0.1 → 2.0.0) that must produce no finding at all."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from wirecheck.contracts import load_registry
from wirecheck.diff import DiffOptions, diff_releases
from wirecheck.diff.package import diff_package
from wirecheck.diff.rules.kinds import kind_changes, match_kinds

CATALOGS = Path(__file__).parent / "catalogs"


@pytest.fixture(scope="module")
def registry():
    return load_registry(CATALOGS)


@pytest.fixture(scope="module")
def patch_diff(registry):
    return diff_releases(registry.load("shop@1.0.0"), registry.load("shop@1.0.1"))


def _by_rule(result, rule):
    return [f for f in result.findings if f.rule == rule]


def test_kinds_matched_by_id_then_selector(registry) -> None:
    match = match_kinds(registry.load("shop@1.0.0"), registry.load("shop@1.0.1"))
    assert {(a.id, b.id) for a, b in match.matched} == {
        ("event.hello", "event.greeting"), ("control.get_usage", "control.get_usage")}
    assert {k.id for k in match.added} == {"event.status", "clarification.respond"}
    assert {k.id for k in match.removed} == {"event.bye", "clarify.request"}


def test_kind_level_findings(patch_diff) -> None:
    removed = {f.kind: f for f in _by_rule(patch_diff, "MESSAGE_KIND_REMOVED")}
    assert set(removed) == {"event.bye", "clarify.request"}
    assert removed["event.bye"].severity.value == "error"
    assert removed["event.bye"].breaks("backward", "tolerant") and not removed["event.bye"].breaks("forward")
    assert removed["event.bye"].witnesses[0].payload == {"type": "bye"}
    added = {f.kind: f for f in _by_rule(patch_diff, "MESSAGE_KIND_ADDED")}
    assert set(added) == {"event.status", "clarification.respond"}
    assert all(f.severity.value == "warning" and f.breaks("forward", "strict") for f in added.values())
    renamed = _by_rule(patch_diff, "MESSAGE_KIND_RENAMED")
    assert [(f.kind, f.severity.value) for f in renamed] == [("event.greeting", "info")]


def test_reply_reshaped_breaks_both_directions_with_witnesses(patch_diff) -> None:
    reply = [f for f in patch_diff.findings if f.kind == "control.get_usage" and f.surface == "reply"]
    rules = {(f.rule, f.path) for f in reply}
    assert {("REQUIRED_PROPERTY_REMOVED", "/totalTokens"), ("REQUIRED_PROPERTY_ADDED", "/contextWindow"),
            ("PROPERTY_ADDED_TO_CLOSED_MODEL", "/policy/task_id")} <= rules
    removed = next(f for f in reply if f.path == "/totalTokens")
    assert removed.breaks("forward", "tolerant") and removed.witnesses
    added = next(f for f in reply if f.path == "/contextWindow")
    assert added.breaks("backward", "tolerant")
    task = next(f for f in reply if f.path == "/policy/task_id")
    assert task.breaks("forward", "strict") and not task.breaks("forward", "tolerant")
    assert not task.breaks("backward")
    assert task.severity.value == "warning"


def test_semver_and_wire_version_findings(patch_diff) -> None:
    assert patch_diff.version.declared_bump == "patch"
    assert patch_diff.version.required_bump == "major"
    assert [f.severity.value for f in _by_rule(patch_diff, "SEMVER_BUMP_TOO_SMALL")] == ["error"]
    assert [f.severity.value for f in _by_rule(patch_diff, "WIRE_VERSION_NOT_BUMPED")] == ["error"]


def test_pure_refactor_has_no_finding(registry) -> None:
    result = diff_releases(registry.load("shop@1.0.1"), registry.load("shop@2.0.0"))
    assert result.findings == ()
    assert all(v == "safe" for k in result.kinds for _, _, v in k.verdicts)


def test_transitive_matrix(registry) -> None:
    package = diff_package(registry, "shop", DiffOptions(witnesses=False))
    assert set(package.matrix) == {("1.0.0", "1.0.1"), ("1.0.0", "2.0.0"), ("1.0.1", "2.0.0")}
    assert [r.new_version for r in package.consecutive] == ["1.0.1", "2.0.0"]
    assert package.transitive("backward", "tolerant") == "breaking"
    assert package.matrix[("1.0.1", "2.0.0")].compatibility("backward", "tolerant") == "safe"
    assert package.full("tolerant") == "breaking"


def test_without_witnesses_same_rules_no_payloads(registry, patch_diff) -> None:
    fast = diff_releases(registry.load("shop@1.0.0"), registry.load("shop@1.0.1"), DiffOptions(witnesses=False))
    assert {f.fingerprint for f in fast.findings} == {f.fingerprint for f in patch_diff.findings}
    assert all(not f.witnesses for f in fast.findings)


def test_fingerprints_ignore_versions_and_wording(registry, patch_diff) -> None:
    again = diff_releases(registry.load("shop@1.0.0"), registry.load("shop@1.0.1"))
    assert [f.fingerprint for f in again.findings] == [f.fingerprint for f in patch_diff.findings]
    assert len({f.fingerprint for f in patch_diff.findings}) == len(patch_diff.findings)


@pytest.mark.parametrize(("field", "value", "rule"), [
    ("producer", "sdk", "ROLES_CHANGED"),
    ("body", "empty", "BODY_CHANGED"),
    ("deprecated", True, "KIND_DEPRECATED"),
    ("path_glob", "*.json", "SELECTOR_CHANGED"),
])
def test_kind_changes(registry, field, value, rule) -> None:
    kind = registry.load("shop@1.0.0").kind("event.bye")
    changed = dataclasses.replace(kind, **{field: value})
    assert rule in [r for r, _ in kind_changes(kind, changed)]
    assert list(kind_changes(kind, kind)) == []


def test_compat_and_consumer_options_change_severity(registry) -> None:
    old, new = registry.load("shop@1.0.0"), registry.load("shop@1.0.1")
    strict = diff_releases(old, new, DiffOptions(consumers="strict"))
    task = next(f for f in strict.findings if f.path == "/policy/task_id")
    assert task.severity.value == "error"  # closed-model consumers protected
    backward_only = diff_releases(old, new, DiffOptions(directions=("backward",)))
    removed = next(f for f in backward_only.findings if f.path == "/totalTokens")
    assert removed.severity.value == "warning"  # breaks forward for everyone, backward only for strict readers
    added = next(f for f in backward_only.findings if f.rule == "MESSAGE_KIND_ADDED")
    assert added.severity.value == "info"


def test_protocol_rule_changes(registry, patch_diff) -> None:
    from types import MappingProxyType

    from wirecheck.contracts.model import RuleUse
    from wirecheck.diff.rules.protocol import rule_changes

    added = [f for f in patch_diff.findings if f.rule == "PROTOCOL_RULE_ADDED"]
    assert [(f.kind, f.severity.value) for f in added] == [("FIELDS_EQUAL", "warning")]
    new = registry.load("shop@1.0.1")
    widened = dataclasses.replace(new, rules=(RuleUse("FIELDS_EQUAL", ("control.get_usage",), MappingProxyType(
        {"left": "/request_id", "right": "/request_id", "codes": ["a", "b"]})),))
    narrowed = dataclasses.replace(new, rules=(RuleUse("FIELDS_EQUAL", ("control.get_usage",), MappingProxyType(
        {"left": "/request_id", "right": "/request_id", "codes": ["a"]})),))
    [(rule, _, params)] = list(rule_changes(narrowed, widened))
    assert rule == "PROTOCOL_RULE_CHANGED" and params["changes"] == "codes: +b"


def test_every_rule_is_registered_and_described() -> None:
    """The catalogue (rules.yaml) and the code agree: every id emitted is described, every description is used."""
    import wirecheck.diff.verdict.semver
    import wirecheck.diff.waivers  # noqa: F401
    from wirecheck.diff import semantic  # noqa: F401
    from wirecheck.diff.catalogue import diff_rule_catalogue
    from wirecheck.diff.rules import RULE_IDS, load_rule_modules

    load_rule_modules()
    catalogue = diff_rule_catalogue()
    assert set(RULE_IDS) == set(catalogue)
    for info in catalogue.values():
        assert info.purpose.startswith("Checks "), info.id
        assert info.id.isupper() and info.rationale and info.message
