"""Fetch a release with `npm pack` (no shell) and unpack it; the only network step of an import."""

from __future__ import annotations

import json
import shutil
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class PackedRelease:
    name: str
    version: str
    tarball: Path
    integrity: str  # the registry's sha512 SRI string
    shasum: str
    root: Path  # the unpacked folder (holds `package/`)


def pack(spec: str, dest: Path) -> PackedRelease:
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
        archive.extractall(root, filter="data")
    return PackedRelease(info["name"], info["version"], tarball, info["integrity"], info["shasum"], root)
