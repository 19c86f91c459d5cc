"""Fetch a release with `npm pack` (no shell) and unpack it; the only network step of an import."""

from __future__ import annotations

import json
import os
import re
import shutil
import tarfile
from dataclasses import dataclass
from pathlib import Path

from wirecheck.archives import ArchiveTooLarge, extract
from wirecheck.programs.program import NETWORK_ENV, CommandError, Completed, Scratch, resolve_program, run

PACK_SECONDS = 300.0  # for `npm pack` to fetch one tarball
# npm's settings given as variables (a registry, a token, a proxy: `npm_config_registry=…`): the scratch HOME hides
# the user's ~/.npmrc, these still reach npm. What `pack` fetches is an exact release named by parse_spec, from the
# registry npm is set to use: nothing of ~/.npmrc is needed to fetch a public package.
NPM_PASSED_PREFIXES = ("npm_config_", "NPM_CONFIG_")
# no log files (they would be in the scratch folder, removed: npm's "A complete log of this run can be found in"
# would name a file that is gone), no update notice on stderr (it would be quoted as npm's last words)
NPM_QUIET = {"npm_config_logs_max": "0", "npm_config_update_notifier": "false", "npm_config_fund": "false",
             "npm_config_audit": "false"}

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


def run_npm(tool: str, args: list[str], *, timeout: float, cwd: Path | None = None,
            needs: str = "the import pipeline needs Node and npm (only the import does)") -> Completed:
    """`npm` (or `npx`) run as wirecheck runs every program (wirecheck.programs): no shell, its own process group
    ended with all it started, a timeout, HOME/XDG/TMPDIR in a scratch folder removed afterwards; npm's settings
    given as variables passed (NPM_PASSED_PREFIXES), and those of the network (a proxy, a CA). RuntimeError when it
    cannot be started (`needs` says what needs it)."""
    try:
        program = resolve_program(tool, os.environ.get("PATH"))
    except CommandError:
        raise RuntimeError(f"{tool} is not on PATH: {needs}") from None
    with Scratch.create() as scratch:
        env = scratch.env(NPM_QUIET, pass_through=NETWORK_ENV, pass_prefixes=NPM_PASSED_PREFIXES)
        try:
            return run([program, *args], env=env, timeout=timeout, cwd=cwd, scratch=scratch)
        except OSError as exc:
            raise RuntimeError(f"{tool} could not be started: {exc}") from None


def pack(spec: str, dest: Path) -> PackedRelease:
    """`npm pack <package>@<version>`: the spec is checked first (BadSpec), so nothing but an exact release of a
    registry package reaches npm."""
    parse_spec(spec)
    dest.mkdir(parents=True, exist_ok=True)
    completed = run_npm("npm", ["pack", spec, "--json", "--pack-destination", str(dest.absolute())],
                        timeout=PACK_SECONDS)
    if (failure := completed.failure()) is not None:
        raise RuntimeError(f"npm pack {spec} {failure}")
    try:
        listed = json.loads(completed.stdout)[0]
        info = {key: str(listed[key]) for key in ("filename", "name", "version", "integrity", "shasum")}
    except (ValueError, LookupError, TypeError):
        raise RuntimeError(f"npm pack {spec}: its --json output is not what npm writes: "
                           f"{completed.stdout[:300].decode('utf-8', 'replace')!r}") from None
    tarball = dest / info["filename"]
    root = dest / "unpacked"
    if root.exists():
        shutil.rmtree(root)
    root.mkdir()
    try:
        with tarfile.open(tarball, "r:gz") as archive:
            refused = extract(archive, root)
    except ArchiveTooLarge as exc:
        raise RuntimeError(f"npm pack {spec}: the tarball {exc}: refused") from None
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise RuntimeError(f"npm pack {spec}: the tarball {tarball.name} cannot be read or unpacked: {exc}") from None
    if refused is not None:
        raise RuntimeError(f"npm pack {spec}: the tarball holds {refused}, which is not a plain file or folder inside "
                           "it (a link, a device, an absolute path or `..`): refused")
    return PackedRelease(info["name"], info["version"], tarball, info["integrity"], info["shasum"], root)
