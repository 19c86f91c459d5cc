"""Write the bundled contracts' CHECKED_FILE: the digest of every bundled release that loads with every check run.

`python -m wirecheck.contracts.checked` after changing anything under contracts/ (suites/contracts/test_checked.py
fails until it is run: it compares the file with what this writes). A release the file names, unchanged since, is
loaded without its checks (contracts.loader.read_release); a changed or new one is checked as any other folder's.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from wirecheck.contracts.errors import ContractError
from wirecheck.contracts.loader import CHECKED_FILE, bundled_contracts_dir, digest_of, load_registry, read_release


def digests(root: Path) -> dict[str, str]:
    """`package/version` → digest for each release of `root` that loads with every check run."""
    out: dict[str, str] = {}
    registry = load_registry(root)
    for name, info in registry.packages.items():
        for version in info.releases:
            try:
                release = read_release(root, name, version, trust=False)
            except ContractError:
                continue
            digest = digest_of(release)
            if digest is not None:
                out[f"{name}/{version}"] = digest
    return dict(sorted(out.items()))


def text(root: Path) -> str:
    return json.dumps(digests(root), indent=1) + "\n"


def main() -> int:
    root = bundled_contracts_dir()
    (root / CHECKED_FILE).write_text(text(root), encoding="utf-8")
    print(f"wrote {root / CHECKED_FILE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
