"""Stable 12-hex fingerprints: the same change gets the same id in every run, every format, every release pair.

Versions are left out on purpose (a waiver written against `0.0.251 → 0.0.253` still matches when the same
change is diffed against the working tree), and so is every text meant for humans.
"""

from __future__ import annotations

import hashlib

from wirecheck.json_types import json_bytes


def fingerprint(package: str, rule: str, kind: str, surface: str, path: str, old_location: str | None,
                new_location: str | None, key: str = "") -> str:
    identity = [package, rule, kind, surface, path, old_location or "", new_location or "", key]
    return hashlib.sha256(json_bytes(identity)).hexdigest()[:12]
