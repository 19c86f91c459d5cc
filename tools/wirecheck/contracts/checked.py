"""Write the bundled contracts' generated files: CHECKED_FILE, the digest of every bundled release that loads with
every check run, and PARSED_FILE, the data of every YAML file the loader reads, keyed by the SHA-256 of its bytes.

`python -m wirecheck.twins` (which runs this, and writes the other generated files) after changing anything under
contracts/ (suites/contracts/test_checked.py fails until it is run: it compares both files with what this writes).
A release CHECKED_FILE names, unchanged since, is loaded without its checks (contracts.loader.read_release); a
changed or new one is checked as any other folder's. A YAML file whose bytes PARSED_FILE holds is not parsed
(contracts.loader.contract_yaml); an edited one is.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson

from wirecheck.contracts.errors import ContractError
from wirecheck.contracts.loader import (
    CHECKED_FILE,
    PARSED_FILE,
    bundled_contracts_dir,
    digest_of,
    load_registry,
    parsed_key,
    read_release,
)

# what the loader reads, under a contracts root
YAML_FILES = ("registry.yaml", "*/*/catalog.yaml", "*/*/readers.yaml", "*/*/behaviour.yaml")


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
    from wirecheck.data_files import twin_text

    return twin_text(digests(root))


def exact(a: Any, b: Any) -> bool:
    """The same data, type for type and in the same key order (1, 1.0 and True are equal in Python; a date and its
    ISO text are not the same value)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(exact(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(exact(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def parsed_lines(root: Path) -> tuple[list[bytes], list[str]]:
    """PARSED_FILE's lines for `root` (one per YAML file the loader reads, in path order), and the files left out:
    one that is not YAML (the loader says why when it reads it), or holds a value JSON does not give back exactly
    (a date, a non-string key, an integer beyond 64 bits): the loader parses those."""
    from wirecheck.yaml_lines import YamlFileError, parse_yaml  # the loader's own plain load

    lines, left_out = [], []
    for path in sorted({p for pattern in YAML_FILES for p in root.glob(pattern)}, key=lambda p: p.relative_to(root)):
        name = path.relative_to(root).as_posix()
        raw = path.read_bytes()
        try:
            data = parse_yaml(raw.decode("utf-8"), str(path))
            line = orjson.dumps({"sha256": parsed_key(raw), "file": name, "data": data})
        except (UnicodeDecodeError, YamlFileError, TypeError, orjson.JSONEncodeError):
            left_out.append(name)
            continue
        if exact(orjson.loads(line)["data"], data):
            lines.append(line)
        else:
            left_out.append(name)
    return lines, left_out


def parsed_text(root: Path, lines: list[bytes] | None = None) -> bytes:
    return b"".join(line + b"\n" for line in (parsed_lines(root)[0] if lines is None else lines))


def main() -> int:
    root = bundled_contracts_dir()
    lines, left_out = parsed_lines(root)
    (root / PARSED_FILE).write_bytes(parsed_text(root, lines))  # first: the digests read it
    (root / CHECKED_FILE).write_text(text(root), encoding="utf-8")
    print(f"wrote {root / CHECKED_FILE} and {root / PARSED_FILE}"
          + (f" (parsed at every load, holding what JSON cannot: {', '.join(left_out)})" if left_out else ""),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
