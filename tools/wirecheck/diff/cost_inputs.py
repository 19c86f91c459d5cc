"""The large and ring-shaped schema pairs issue 39 (item 5) measures `diff-schemas` on, built from the published
histories in fixtures/schema-histories (no giant file is committed: these are made on demand, deterministically).

- `combined(target_bytes)`: one schema per side holding real published schemas as embedded resources, each old
  revision beside its next revision on the new side (A2A's a2a.json, AsyncAPI's bundled schemas, SchemaStore's
  github-workflow.json: consecutive pairs of the corpus, in that order, until the side reaches `target_bytes`),
  the way AsyncAPI's all-versions schema and SchemaStore's catalog bundle many documents in one file. The root is
  definitions alone, so each document nothing refers to is a kind of its own (`diff-schemas --kinds auto`); A2A's
  files, definitions with no root, are laid out as definitions of the root under a prefix. A revision used again
  to grow the side is embedded under another name (only series whose `$ref`s stay inside their own document).
- `ring(count, padding)`: `count` definitions whose `$ref`s form a ring (each refers to the next and, as real
  recursive schemas do, to a few others), the messages a union of some of them; the new side narrows a property of
  every tenth definition and requires another in every seventh. Every message reaches every definition: a diff
  that compares a definition once per way of reaching it multiplies its work by the ring's length.
"""

from __future__ import annotations

import copy
import itertools
import json
import random
from pathlib import Path
from typing import Any

from wirecheck.diff.histories import HISTORIES, load

DRAFT_07 = "http://json-schema.org/draft-07/schema#"
D = "https://json-schema.org/draft/2020-12/schema"
# series whose $refs never leave their own document by absolute URL: embedded again under another $id, unchanged
_REUSABLE = ("a2a", "github-workflow")


def _consecutive(corpus: Path) -> list[tuple[str, Path, Path]]:
    root = corpus if corpus.is_absolute() else Path(__file__).resolve().parents[3] / corpus
    out = []
    for pair in load(root):
        if pair.series in ("a2a", "asyncapi", "github-workflow") and pair.old.file != pair.new.file:
            out.append((pair.series, pair.old.file, pair.new.file))
    return out


def _embedded(schema: dict[str, Any], ident: str) -> dict[str, Any]:
    body = {k: v for k, v in schema.items() if k != "$schema"}
    body["$id"] = ident
    return body


def _hoisted(schema: dict[str, Any], prefix: str) -> dict[str, Any]:
    """A document of definitions alone (A2A: no root constraint, so embedded whole it would accept anything):
    its definitions, renamed `<prefix><name>`, each `#/definitions/<name>` pointing to the renamed one."""
    def ref(value: str) -> str:
        for folder in ("#/definitions/", "#/$defs/"):  # A2A v0.1.0 writes $defs, later ones definitions
            if value.startswith(folder):
                return f"#/definitions/{prefix}{value[len(folder):]}"
        return value

    def renamed(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: ref(v) if k == "$ref" and isinstance(v, str) else renamed(v) for k, v in node.items()}
        if isinstance(node, list):
            return [renamed(v) for v in node]
        return node

    definitions = schema.get("definitions", schema.get("$defs", {}))
    return {f"{prefix}{name}": renamed(body) for name, body in definitions.items()}


def combined(target_bytes: int, corpus: Path = HISTORIES) -> tuple[dict[str, Any], dict[str, Any]]:
    """Old and new schemas of about `target_bytes` each (JSON text, as json.dumps writes it)."""
    pairs = _consecutive(corpus)
    old_defs: dict[str, Any] = {}
    new_defs: dict[str, Any] = {}
    size = 0
    for round_ in itertools.count():
        usable = [p for p in pairs if round_ == 0 or p[0] in _REUSABLE]
        for index, (series, old_file, new_file) in enumerate(usable):
            if size >= target_bytes:
                break
            name = f"{series}-{round_}-{index}"
            ident = f"urn:wirecheck:cost:{name}.json"
            old, new = (json.loads(f.read_text(encoding="utf-8")) for f in (old_file, new_file))
            if series == "a2a":
                old_part, new_part = _hoisted(old, f"{name}-"), _hoisted(new, f"{name}-")
            else:
                old_part, new_part = {name: _embedded(old, ident)}, {name: _embedded(new, ident)}
            old_defs.update(old_part)
            new_defs.update(new_part)
            size += len(json.dumps(old_part))
        if size >= target_bytes:
            break

    def side(defs: dict[str, Any]) -> dict[str, Any]:
        return {"$schema": DRAFT_07, "definitions": defs}

    return side(old_defs), side(new_defs)


def ring(count: int, padding: int, kinds: int = 12) -> tuple[dict[str, Any], dict[str, Any]]:
    """Two schemas of `count` definitions in a `$ref` ring; `padding` words of description per definition set the
    size (120 definitions, padding 1,500 ≈ 0.9 MB)."""
    rnd = random.Random(39)
    defs: dict[str, Any] = {}
    for i in range(count):
        props: dict[str, Any] = {
            "id": {"type": "string", "description": "The identifier. " * 4},
            "size": {"type": "integer", "minimum": 0},
            "next": {"$ref": f"#/$defs/R{(i + 1) % count}"},
            "items": {"type": "array", "items": {"$ref": f"#/$defs/R{rnd.randrange(count)}"}},
            "parent": {"anyOf": [{"$ref": f"#/$defs/R{rnd.randrange(count)}"}, {"type": "null"}]},
            "extra": {"type": "object", "additionalProperties": {"$ref": f"#/$defs/R{rnd.randrange(count)}"}},
        }
        defs[f"R{i}"] = {"type": "object", "description": "Node of the ring. " * (padding // 4),
                         "properties": props, "required": ["id"], "additionalProperties": False}
    defs["Message"] = {"anyOf": [{"$ref": f"#/$defs/R{i}"} for i in range(0, count, max(1, count // kinds))]}
    old: dict[str, Any] = {"$schema": D, "$defs": defs, "$ref": "#/$defs/Message"}
    new = copy.deepcopy(old)
    for i in range(0, count, 10):
        new["$defs"][f"R{i}"]["properties"]["size"] = {"type": "integer", "minimum": 0, "maximum": 100}
    for i in range(3, count, 7):
        new["$defs"][f"R{i}"]["required"] = ["id", "size"]
    return old, new


def write_pair(pair: tuple[dict[str, Any], dict[str, Any]], folder: Path, name: str) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    old, new = folder / f"{name}-old.json", folder / f"{name}-new.json"
    old.write_text(json.dumps(pair[0]), encoding="utf-8")
    new.write_text(json.dumps(pair[1]), encoding="utf-8")
    return old, new


# name → how the pair is made; the sizes the issue measured (a 0.9 MB ring and its 4.2 MB sibling, a 2 MB pair)
# and the 5 MB the memory bound is promised up to
CASES = {
    "ring 0.9 MB": lambda: ring(120, 1500),
    "ring 4.2 MB": lambda: ring(560, 1500),
    "combined 2 MB": lambda: combined(2_000_000),
    "combined 5 MB": lambda: combined(5_000_000),
}


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m wirecheck.diff.cost_inputs", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path, help="folder to write <case>-old.json and <case>-new.json to")
    args = parser.parse_args(argv)
    for name, make in CASES.items():
        old, new = write_pair(make(), args.out, name.replace(" ", "-").replace(".", ""))
        print(f"{name}: {old} ({old.stat().st_size:,} B), {new} ({new.stat().st_size:,} B)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
