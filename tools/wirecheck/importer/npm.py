"""Fetch a release with `npm pack` (no shell) and unpack it; the only network step of an import."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

from wirecheck.archives import extract

# npm's package name rules (validate-npm-package-name, for new packages): at most 214 characters, lowercase,
# url-safe, not starting with `.` or `_`; a scope is `@scope/`. Stricter in one point: the name and the scope start
# with a letter or digit, so no name can be read by npm as an option (`-…`) or a path (`~…`).
_NAME_PART = r"[a-z0-9][a-z0-9._~-]*"
NAME = re.compile(rf"(?:@{_NAME_PART}/)?{_NAME_PART}")
NAME_MAX = 214
# Semantic Versioning 2.0.0 (semver.org's regular expression, ASCII digits only): an exact version, optionally
# with a prerelease and build metadata. No ranges, tags, paths, URLs or leading `v`.
_NUMBER = r"(?:0|[1-9][0-9]*)"
_PRE_ID = r"(?:0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)"
_BUILD_ID = r"[0-9a-zA-Z-]+"
VERSION = re.compile(
    rf"{_NUMBER}\.{_NUMBER}\.{_NUMBER}(?:-{_PRE_ID}(?:\.{_PRE_ID})*)?(?:\+{_BUILD_ID}(?:\.{_BUILD_ID})*)?"
)


class BadSpec(ValueError):
    """A package name or version that must not reach `npm pack` (a path, a URL, a range, shell text)."""


def check_name(name: str) -> str:
    if len(name) > NAME_MAX or not NAME.fullmatch(name):
        raise BadSpec(f"package name {name!r}: not an npm package name (lowercase letters, digits, '-', '.', "
                      f"'_', '~', optionally after @scope/; at most {NAME_MAX} characters)")
    return name


def check_version(version: str) -> str:
    if not VERSION.fullmatch(version):
        raise BadSpec(f"version {version!r}: not an exact semver version (e.g. 1.0.39, 2.0.0-beta.1, 1.2.3+build.5)")
    return version


def parse_spec(spec: str) -> tuple[str, str]:
    """`<package>@<version>` → (package, version), both checked; BadSpec names the bad part."""
    name, sep, version = spec.rpartition("@")
    if not sep or not name or not version:
        raise BadSpec(f"expected <package>@<version>, got {spec!r}")
    return check_name(name), check_version(version)


@dataclass(frozen=True)
class PackedRelease:
    name: str
    version: str
    tarball: Path
    integrity: str  # the registry's sha512 SRI string
    shasum: str
    root: Path  # the unpacked folder (holds `package/`)


def pack(spec: str, dest: Path) -> PackedRelease:
    """`npm pack <package>@<version>`: the spec is checked first (BadSpec), so nothing but an exact release of a
    registry package reaches npm."""
    parse_spec(spec)
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is not on PATH: the import pipeline needs Node and npm (only the import does)")
    dest.mkdir(parents=True, exist_ok=True)
    completed = subprocess.run([npm, "pack", spec, "--json", "--pack-destination", str(dest)],
                               capture_output=True, text=True, timeout=300, check=False)
    if completed.returncode != 0:
        raise RuntimeError(f"npm pack {spec} failed: {completed.stderr.strip()[-2000:]}")
    info = json.loads(completed.stdout)[0]
    tarball = dest / info["filename"]
    root = dest / "unpacked"
    if root.exists():
        shutil.rmtree(root)
    root.mkdir()
    with tarfile.open(tarball, "r:gz") as archive:
        refused = extract(archive, root)
    if refused is not None:
        raise RuntimeError(f"npm pack {spec}: the tarball holds {refused}, which is not a plain file or folder inside "
                           "it (a link, a device, an absolute path or `..`): refused")
    return PackedRelease(info["name"], info["version"], tarball, info["integrity"], info["shasum"], root)
