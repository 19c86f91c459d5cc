"""Run ts-json-schema-generator (through `npx`, pinned) over a release's protocol `.d.ts`.

The generator is given every type name the entry module re-exports (its `export type { … }` lists; `--type '*'`
silently drops types that nothing else references) and a tsconfig whose `paths` map imports it cannot resolve
(the MCP SDK's `JSONRPCMessage`) to local stand-ins. TypeScript 6 rejects `baseUrl`, so `paths` are relative to
the tsconfig itself.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

GENERATE_SECONDS = 600.0  # npx fetching the pinned generator, then the generator over one release's types
_EXPORT_LIST = re.compile(r"export\s+type\s*\{([^}]*)\}", re.S)
_EXPORT_DECL = re.compile(r"^export\s+(?:declare\s+)?(?:type|interface)\s+([A-Za-z_]\w*)", re.M)


def exported_type_names(module_text: str) -> list[str]:
    """Type names a `.d.ts` module exports: `export type {A, B as C}` lists and `export type X =` declarations."""
    names: set[str] = set()
    for block in _EXPORT_LIST.findall(module_text):
        for item in block.split(","):
            item = item.strip()
            if item:
                names.add(item.split(" as ")[-1].strip())
    names.update(_EXPORT_DECL.findall(module_text))
    return sorted(names)


def tsconfig(entry: str, stand_ins: Mapping[str, str]) -> dict[str, Any]:
    return {
        "compilerOptions": {
            "target": "es2022",
            "module": "nodenext",
            "moduleResolution": "nodenext",
            "strict": True,
            "skipLibCheck": True,
            "noEmit": True,
            "paths": {spec: [f"./stand-ins/{_stand_in_file(spec)}"] for spec in sorted(stand_ins)},
        },
        "files": [entry],
    }


def _stand_in_file(spec: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", spec).strip("-") + ".d.ts"


def generate(root: Path, entry: str, stand_ins: Mapping[str, str], generator: str) -> dict[str, Any]:
    """The generator's draft-07 document for every type `entry` exports (root: the unpacked tarball folder)."""
    from wirecheck.importer.npm import run_npm

    (root / "stand-ins").mkdir(exist_ok=True)
    for spec, text in stand_ins.items():
        (root / "stand-ins" / _stand_in_file(spec)).write_text(text, encoding="utf-8")
    (root / "tsconfig.json").write_text(json.dumps(tsconfig(entry, stand_ins), indent=2), encoding="utf-8")
    names = exported_type_names((root / entry).read_text(encoding="utf-8"))
    out = root / "generated.schema.json"
    args = ["--yes", generator, "--path", entry, "--tsconfig", "tsconfig.json", "--out", out.name, "--type", *names]
    # npx fetches the generator into its cache, in the scratch HOME: once per import, never the user's ~/.npm
    completed = run_npm("npx", args, timeout=GENERATE_SECONDS, cwd=root,
                        needs="the import pipeline needs Node (only the import does)")
    if (failure := completed.failure()) is not None:
        raise RuntimeError(f"{generator} {failure}")
    if not out.exists():
        raise RuntimeError(f"{generator} wrote no {out.name}: {completed.stderr.decode('utf-8', 'replace')[-3000:]}")
    return json.loads(out.read_text(encoding="utf-8"))


def wire_protocol_version(module_text: str) -> str | None:
    """WIRE_PROTOCOL_VERSION from the minified `dist/protocol/index.js` (`var r="1.2.0";…export{… r as WIRE…}`)."""
    export = re.search(r"(\w+) as WIRE_PROTOCOL_VERSION", module_text)
    if not export:
        return None
    value = re.search(rf"\b{re.escape(export.group(1))}\s*=\s*\"([^\"]+)\"", module_text)
    return value.group(1) if value else None
