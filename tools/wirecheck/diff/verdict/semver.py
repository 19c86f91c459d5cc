"""Semver and wire-version verdicts: does the version bump match what the change set requires?

The bump a change requires is data (`bump:` in diff/rules.yaml), following the rules Qoder's
`protocol/version.d.ts` states for its wire version: a new optional field or a new message type is minor,
removing a field or changing a discriminant is major. Below 1.0.0 we use Cargo's reading of semver: the left-most
non-zero part acts as major (0.1.51 → 0.1.53 promises compatibility, 0.0.251 → 0.0.253 promises nothing).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from wirecheck.diff.catalogue import BUMPS, diff_rule_catalogue
from wirecheck.diff.model import DiffFinding, VersionVerdict
from wirecheck.diff.rules import declare

declare("SEMVER_BUMP_TOO_SMALL", "SEMVER_NOT_INCREASED", "WIRE_VERSION_NOT_BUMPED", "WIRE_VERSION_BUMP_TOO_SMALL",
        module=__name__)

_VERSION = re.compile(r"^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+.*)?$")
_NOT_CHANGES = {"versions", "waivers"}


def parse(version: str) -> tuple[int, int, int] | None:
    match = _VERSION.match(version.strip())
    if not match:
        return None
    return int(match[1]), int(match[2] or 0), int(match[3] or 0)


def declared_bump(old: str, new: str, *, cargo: bool = True) -> str:
    """none | patch | minor | major | downgrade; `cargo` shifts the meaning below 1.0.0."""
    a, b = parse(old), parse(new)
    if a is None or b is None:
        return "none" if old == new else "major"
    if b < a:
        return "downgrade"
    if b == a:
        return "none"
    if cargo and a[0] == 0 and b[0] == 0:
        if a[1] == 0 and b[1] == 0:
            return "major"  # 0.0.z: every release may break
        if a[1] != b[1]:
            return "major"
        return "minor"  # 0.y.z → 0.y.z': compatible changes, additions included
    if a[0] != b[0]:
        return "major"
    if a[1] != b[1]:
        return "minor"
    return "patch"


def required_bump(findings: Sequence[DiffFinding]) -> str:
    catalogue = diff_rule_catalogue()
    needed = "none"
    for finding in findings:
        info = catalogue[finding.rule]
        if finding.waived is not None or info.group in _NOT_CHANGES:
            continue
        if BUMPS.index(info.bump) > BUMPS.index(needed):
            needed = info.bump
    return needed


def version_findings(old: Any, new: Any, findings: Sequence[DiffFinding],
                     make: Callable[..., DiffFinding]) -> tuple[list[DiffFinding], VersionVerdict]:
    out: list[DiffFinding] = []
    required = required_bump(findings)
    declared = declared_bump(old.version, new.version)
    if declared in ("downgrade", "none") and old.version != new.version:
        out.append(make("SEMVER_NOT_INCREASED", new.package, "release", {"old": old.version, "new": new.version},
                        verdicts={}, key="semver"))
    elif declared != "none" and BUMPS.index(declared) < BUMPS.index(required):
        out.append(make("SEMVER_BUMP_TOO_SMALL", new.package, "release",
                        {"old": old.version, "new": new.version, "declared": _name(declared, old.version),
                         "required": _name(required, old.version)}, verdicts={}, key="semver"))
    wire_required = required
    old_wire, new_wire = old.wire_version, new.wire_version
    if old_wire is not None and new_wire is not None and wire_required != "none":
        wire_declared = declared_bump(old_wire, new_wire, cargo=False)
        if wire_declared == "none":
            out.append(make("WIRE_VERSION_NOT_BUMPED", new.package, "release",
                            {"old": old_wire, "new": new_wire, "required": wire_required}, verdicts={},
                            key="wire"))
        elif wire_declared != "downgrade" and BUMPS.index(wire_declared) < BUMPS.index(wire_required):
            out.append(make("WIRE_VERSION_BUMP_TOO_SMALL", new.package, "release",
                            {"old": old_wire, "new": new_wire, "declared": wire_declared,
                             "required": wire_required}, verdicts={}, key="wire"))
    verdict = VersionVerdict(declared, required, old_wire, new_wire,
                             wire_required if old_wire is not None else "none")
    return out, verdict


def _name(bump: str, version: str) -> str:
    parsed = parse(version)
    if parsed and parsed[0] == 0 and bump in ("major", "minor"):
        return f"{bump} (0.x: {'breaking' if bump == 'major' else 'compatible'})"
    return bump
