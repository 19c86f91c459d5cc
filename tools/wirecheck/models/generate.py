"""Generate the pydantic v2 models of every release with datamodel-code-generator (`nox -s models`).

For each release: copy its schema files to a scratch folder without their `$id`s (so relative `$ref`s resolve
between files, never over the network), add `kinds.json` with one named entry per message kind, mark every
`const`-discriminated union with `discriminator` (datamodel-code-generator turns that into a pydantic
discriminated union; on its own it emits a plain union), run the generator with fixed options and the builtin
formatter, and write the package `wirecheck.models.<package>.v<version>` with a `KINDS` table.

Deterministic: no timestamps or versions in the output, sorted inputs, one pinned generator version (the
`models` extra). `python -m wirecheck.models.generate --check` exits 1 when the committed models are stale.
"""

from __future__ import annotations

import argparse
import copy
import keyword
import re
import sys
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import orjson

from wirecheck.contracts import load_registry
from wirecheck.contracts.model import ContractRelease
from wirecheck.contracts.views import DATA_KEYWORDS
from wirecheck.fuzz.schemas import SchemaSet
from wirecheck.programs.program import Scratch
from wirecheck.programs.program import run as run_program

MODELS_DIR = Path(__file__).resolve().parent
GENERATOR_OPTIONS = [
    "--input-file-type", "jsonschema",
    "--output-model-type", "pydantic_v2.BaseModel",
    "--target-python-version", "3.11",
    "--disable-timestamp",
    "--use-annotated",
    "--field-constraints",
    "--use-standard-collections",
    "--use-union-operator",
    "--enum-field-as-literal", "all",
    "--use-double-quotes",
    "--keep-model-order",
    "--formatters", "builtin",
    "--base-class", "wirecheck.models.base.StrictModel",
    # pydantic's EmailStr needs the email-validator package; the difference is listed in differences.yaml
    "--type-mappings", "email=string",
]
# Dropped before generation: pydantic cannot express them (see differences.yaml), and datamodel-code-generator
# turns `not: {}` into an unsatisfiable `allOf: [false]` and refuses the whole release.
GENERATOR_SECONDS = 600.0  # datamodel-code-generator over one release's schemas
UNEXPRESSED = frozenset({"not"})
DISCRIMINATOR_PREFERENCE = ("type", "subtype", "kind", "event", "method")


def identifier(text: str) -> str:
    """`qoder-agent-sdk` → `qoder_agent_sdk`; `1.0.23` → `1_0_23` (module names)."""
    name = re.sub(r"[^0-9A-Za-z_]", "_", text)
    return f"_{name}" if name[0].isdigit() or keyword.iskeyword(name) else name


def release_module(package: str, version: str) -> str:
    return f"wirecheck.models.{identifier(package)}.v{identifier(version).lstrip('_')}"


def class_name(kind_id: str, taken: set[str]) -> str:
    base = "".join(part[:1].upper() + part[1:] for part in re.split(r"[^0-9A-Za-z]+", kind_id) if part) or "Kind"
    if base[0].isdigit():
        base = "K" + base
    name, n = base, 2
    while name in taken:
        name, n = f"{base}{n}", n + 1
    taken.add(name)
    return name


# -- discriminators ------------------------------------------------------------------------------------------------
def _branch_consts(schemas: SchemaSet, branch: Any, base: str, depth: int = 0) -> dict[str, Any] | None:
    """The required properties of a branch whose value is a `const`: {name: value}; None if not an object."""
    if not isinstance(branch, dict) or depth > 20:
        return None
    if "$ref" in branch:
        target_uri = urljoin(base, branch["$ref"])
        return _branch_consts(schemas, schemas.resolve(target_uri), target_uri.split("#")[0], depth + 1)
    required = set(branch.get("required", ()))
    found = {
        name: sub["const"]
        for name, sub in branch.get("properties", {}).items()
        if name in required and isinstance(sub, dict) and "const" in sub
    }
    return found


def discriminator_of(schemas: SchemaSet, branches: list[Any], base: str) -> str | None:
    """The property that tells every branch apart by a required `const`, if there is one."""
    consts = [_branch_consts(schemas, b, base) for b in branches]
    if len(branches) < 2 or any(c is None or not c for c in consts):
        return None
    common = set.intersection(*(set(c) for c in consts if c is not None))
    rank = {name: i for i, name in enumerate(DISCRIMINATOR_PREFERENCE)}
    candidates = sorted(common, key=lambda n: (rank.get(n, len(rank)), n))
    for name in candidates:
        values = [orjson.dumps(c[name]) for c in consts if c is not None]
        if len(set(values)) == len(values) and all(isinstance(c[name], str) for c in consts if c is not None):
            return name
    return None


def add_discriminators(schemas: SchemaSet, node: Any, base: str, found: list[str], where: str = "") -> Any:
    if isinstance(node, list):
        return [add_discriminators(schemas, item, base, found, f"{where}/{i}") for i, item in enumerate(node)]
    if not isinstance(node, dict):
        return node
    out = {
        key: value if key in DATA_KEYWORDS else
        add_discriminators(schemas, value, base, found, f"{where}/{key}")
        for key, value in node.items()
        if key not in UNEXPRESSED
    }
    patterns = out.get("patternProperties")
    if isinstance(patterns, dict) and patterns and out.get("additionalProperties") is False:
        # pydantic cannot key extras by pattern; typing every extra by the pattern schemas keeps valid
        # messages valid (the key patterns themselves are a listed difference: patternProperties)
        values = list(patterns.values())
        out["additionalProperties"] = values[0] if len(values) == 1 else {"anyOf": values}
    for union in ("oneOf", "anyOf"):
        if union in node and "discriminator" not in node:
            name = discriminator_of(schemas, node[union], base)
            if name is not None:
                out["discriminator"] = {"propertyName": name}
                found.append(f"{base.rsplit('/', 1)[-1]}#{where}/{union} by {name!r}")
    return out


# -- generation --------------------------------------------------------------------------------------------------
def generate_release(release: ContractRelease) -> dict[str, str]:
    """{relative path in the package folder: file text} for one release."""
    schemas = SchemaSet(release.resources)
    prefix = f"https://contracts.wirecheck.invalid/{release.package}/{release.version}/"
    discriminated: list[str] = []
    with tempfile.TemporaryDirectory(prefix="wirecheck-models-") as scratch:
        source, output = Path(scratch) / "schemas", Path(scratch) / "out"
        source.mkdir()
        for uri in sorted(release.resources):
            schema = copy.deepcopy(release.resources[uri])
            schema.pop("$id", None)
            schema = add_discriminators(schemas, schema, uri, discriminated)
            target = source / uri[len(prefix):]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(orjson.dumps(schema, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
        taken: set[str] = set()
        kinds: dict[str, str] = {}
        for kind in release.kinds:
            if kind.schema is not None and kind.body == "json":
                kinds[kind.id] = class_name(kind.id, taken)
        kinds_schema = {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$defs": {
                kinds[k.id]: {"$ref": k.schema.ref} for k in release.kinds if k.id in kinds and k.schema is not None
            },
        }
        (source / "kinds.json").write_bytes(orjson.dumps(kinds_schema, option=orjson.OPT_INDENT_2))
        # as every program (wirecheck.programs): a timeout, its own process group, a scratch HOME/XDG/TMPDIR;
        # PYTHONPATH passed (the generator is found as wirecheck is)
        with Scratch.create() as home:
            run = run_program([sys.executable, "-m", "datamodel_code_generator", "--input", str(source), "--output",
                               str(output), *GENERATOR_OPTIONS],
                              env=home.env(pass_through=("PYTHONPATH",)), timeout=GENERATOR_SECONDS, scratch=home)
        if (failure := run.failure()) is not None:
            raise RuntimeError(f"datamodel-codegen for {release.name} {failure}")
        files = {
            str(path.relative_to(output)): _normalise(path.read_text(encoding="utf-8"))
            for path in sorted(output.rglob("*.py"))
        }
    files["__init__.py"] = _init_module(release, kinds, discriminated)
    return files


# Generated code is reviewed as the output of a pinned generator, not linted or type-checked line by line.
GENERATED_HEADER = "# ruff: noqa\n# mypy: ignore-errors\n"


def _normalise(text: str) -> str:
    """Drop anything run-specific from a generated file (timestamps, versions, scratch paths); mark it generated."""
    lines = [
        line for line in text.splitlines()
        if not line.startswith(("#   timestamp:", "#   version:")) and "wirecheck-models-" not in line
    ]
    return GENERATED_HEADER + "\n".join(lines).rstrip() + "\n"


def _init_module(release: ContractRelease, kinds: dict[str, str], discriminated: list[str]) -> str:
    rows = "\n".join(f"    {kind!r}: {name!r}," for kind, name in kinds.items())
    notes = "\n".join(f"  - {d}" for d in discriminated) or "  (none)"
    return GENERATED_HEADER + f'''"""Pydantic v2 models of {release.name} (generated by `nox -s models`; do not edit).

Strict by default (`StrictModel`); validate wire JSON with `model_for(kind).model_validate_json(data)`.
Discriminated unions (a required `const` tells the branches apart):
{notes}
"""

from __future__ import annotations

import importlib
from typing import Any

PACKAGE = {release.package!r}
VERSION = {release.version!r}

# message kind id → class in .kinds
KINDS: dict[str, str] = {{
{rows}
}}


def model_for(kind: str) -> Any:
    """The model class of a message kind (a RootModel around the kind's schema)."""
    module = importlib.import_module(__name__ + ".kinds")
    return getattr(module, KINDS[kind])
'''


def _unavailable_module(release: ContractRelease, error: str) -> str:
    reason = error.strip().splitlines()[-1] if error.strip() else "unknown error"
    return GENERATED_HEADER + f'''"""No models for {release.name}: the generator refused its schemas (UNAVAILABLE)."""

UNAVAILABLE = {reason!r}
KINDS: dict[str, str] = {{}}


def model_for(kind: str) -> None:
    raise LookupError(f"no model for {{kind}}: {{UNAVAILABLE}}")
'''


def generate_all(registry_root: Path | None = None) -> dict[str, str]:
    """{path relative to tools/wirecheck/models: text} for every release that loads."""
    registry = load_registry(registry_root)
    files = {f"{identifier(package)}/__init__.py": f'"""Generated models of {package}, one subpackage per release."""\n'
             for package in registry.packages}
    loaded, failed = registry.load_all()
    for spec, exc in failed:  # an unfinished release: the contract self-tests report it
        print(f"skipped {spec}: {str(exc).splitlines()[0]}", file=sys.stderr)
    for release in loaded:
        folder = f"{identifier(release.package)}/v{identifier(release.version).lstrip('_')}"
        try:
            generated = generate_release(release)
        except RuntimeError as exc:  # committed as a visible failure; the models tests fail on it
            print(str(exc), file=sys.stderr)
            generated = {"__init__.py": _unavailable_module(release, str(exc))}
        for path, text in generated.items():
            files[f"{folder}/{path}"] = text
    return files


def committed_files(root: Path = MODELS_DIR) -> dict[str, str]:
    return {
        str(path.relative_to(root)): path.read_text(encoding="utf-8")
        for path in sorted(root.glob("*/**/*.py"))
        if "__pycache__" not in path.parts
    }


def stale(expected: dict[str, str], root: Path = MODELS_DIR) -> list[str]:
    actual = committed_files(root)
    return sorted(
        [f"missing or different: {p}" for p, t in expected.items() if actual.get(p) != t]
        + [f"not generated any more: {p}" for p in actual if p not in expected]
    )


def write(files: dict[str, str], root: Path = MODELS_DIR) -> None:
    for path in committed_files(root):
        if path not in files:
            (root / path).unlink()
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m wirecheck.models.generate", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed models are stale")
    args = parser.parse_args(argv)
    files = generate_all()
    if args.check:
        problems = stale(files)
        for problem in problems:
            print(problem, file=sys.stderr)
        return 1 if problems else 0
    write(files)
    print(f"wrote {len(files)} files under {MODELS_DIR}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
