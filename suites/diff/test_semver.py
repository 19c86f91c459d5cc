"""Semver and wire-version verdicts: the declared bump (Cargo's reading below 1.0.0) against the required one."""

from __future__ import annotations

import pytest

from wirecheck.diff.verdict.semver import declared_bump, parse


@pytest.mark.parametrize(("old", "new", "bump"), [
    ("1.0.21", "1.0.23", "patch"),
    ("1.0.23", "1.1.0", "minor"),
    ("1.4.0", "2.0.0", "major"),
    ("0.1.51", "0.1.53", "minor"),  # 0.y.z: z bumps are compatible changes
    ("0.1.53", "0.2.0", "major"),  # 0.y: y acts as major
    ("0.0.251", "0.0.253", "major"),  # 0.0.z: every release may break
    ("1.2.0", "1.2.0", "none"),
    ("1.2.0", "1.1.9", "downgrade"),
    ("1.0.0-beta.1", "1.0.0", "none"),
])
def test_declared_bump(old: str, new: str, bump: str) -> None:
    assert declared_bump(old, new) == bump


def test_wire_versions_compare_without_cargo_shift() -> None:
    assert declared_bump("0.1", "0.2", cargo=False) == "minor"
    assert declared_bump("1", "2", cargo=False) == "major"


def test_parse() -> None:
    assert parse("v1.2") == (1, 2, 0)
    assert parse("not a version") is None
