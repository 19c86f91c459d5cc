"""What every importer shares: the import profiles (data in importer/profiles/) and writing a release folder.

release.py (the .d.ts pipeline), shipped.py (series that ship a JSON Schema), series.py and reconstruct.py import
from here, never from each other's modules for these, so the importer's modules import one way.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import yaml

PROFILES = Path(__file__).resolve().parent / "profiles"


@cache
def load_profile(name: str) -> dict[str, Any]:
    """The import profile of a package, by short name or npm name."""
    for path in sorted(PROFILES.glob("*.yaml")):
        if "." in path.stem:
            continue  # companions such as <package>.reconstruct.yaml
        profile = yaml.safe_load(path.read_text(encoding="utf-8"))
        if name in (profile["package"], profile.get("npm")):
            return profile
    known = ", ".join(p.stem for p in sorted(PROFILES.glob("*.yaml")) if "." not in p.stem)
    raise KeyError(f"no import profile for {name!r} (known: {known})")


def write_folder(files: Mapping[str, str], out: Path) -> list[Path]:
    """A release folder: each file (a name, or a path relative to `out`) written as UTF-8, in name order, together
    (output_files: in place once every one is whole, a symbolic link replaced, the folders made for them removed
    again if any fails); returns the paths written."""
    from wirecheck.output_files import together

    written = []
    with together() as outputs:
        for name in sorted(files):
            path = out / name
            with outputs.writing(path, binary=True) as handle:
                handle.write(files[name].encode("utf-8"))
            written.append(path)
    return written
