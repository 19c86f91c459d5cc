"""`wirecheck import npm <package>@<version>`: a draft release folder from an npm release, as its profile says.

Thin shell over `wirecheck.importer.release.import_npm`: a TypeScript-typed release (npm pack → ts-json-schema-
generator via npx → normalise → assemble), or a release that ships its JSON Schema (importer/shipped.py: the
schema translated into 2020-12, kinds derived by the profile, written only once the folder loads). Needs the npm
registry (and Node for npx); nothing else in wirecheck does. A release the profile cannot import is refused with
the reason and where (exit 2). `--check` imports into a temporary folder and compares it byte for byte with the
committed one (exit 1 on any difference).
"""

from __future__ import annotations

import filecmp
import tempfile
from pathlib import Path

import typer

from wirecheck import exitcodes
from wirecheck.cli.common import fail_usage

import_app = typer.Typer(help="Import a release's contract from its published package (needs Node and npm).",
                         no_args_is_help=True)


@import_app.command("npm")
def import_npm_command(
    spec: str = typer.Argument(..., metavar="PACKAGE@VERSION",
                               help="e.g. qoder-agent-sdk@1.0.39 or @qoder-ai/qoder-agent-sdk@1.0.39"),
    out: Path = typer.Option(None, "--out", help="Folder to write (default: contracts/<package>/<version>)."),
    check: bool = typer.Option(False, "--check",
                               help="Import into a temporary folder and compare with --out (or the committed "
                                    "folder) byte for byte; exit 1 when they differ."),
) -> None:
    """npm pack → the profile's pipeline (TypeScript types via npx, or the shipped JSON Schema) → a draft release
    folder with provenance."""
    from wirecheck.contracts import default_contracts_dir
    from wirecheck.importer.npm import BadSpec, parse_spec
    from wirecheck.importer.profile import load_profile
    from wirecheck.importer.release import import_npm

    try:  # before anything: the version names the folder written, and is an argument of npm pack
        name, version = parse_spec(spec)
    except BadSpec as exc:
        raise fail_usage(str(exc)) from None
    try:
        profile = load_profile(name)
    except KeyError as exc:
        raise fail_usage(str(exc.args[0])) from None
    target = out or default_contracts_dir() / profile["package"] / version
    try:
        if check:
            with tempfile.TemporaryDirectory(prefix="wirecheck-import-check-") as temp:
                _, files = import_npm(spec, out=Path(temp) / version)
                differing = [f.name for f in files
                             if not (target / f.name).exists() or not filecmp.cmp(f, target / f.name, shallow=False)]
                # a schema file the import does not produce would change the contract; other files (e.g. the
                # certify requirement sets next to it) are not the import's business
                extra = sorted({p.name for p in target.glob("*.json")} - {f.name for f in files})
        else:
            _, files = import_npm(spec, out=target)
    except RuntimeError as exc:  # npm/npx missing, the registry unreachable, the generator failing, ImportRefused
        raise fail_usage(str(exc)) from None
    if check:
        if differing or extra:
            for name_ in differing:
                typer.echo(f"differs: {target / name_}")
            for name_ in extra:
                typer.echo(f"schema not produced by the import: {target / name_}")
            raise typer.Exit(exitcodes.FINDINGS)
        typer.echo(f"{target}: identical to a fresh import of {spec} ({len(files)} files)")
        return
    for path in files:
        typer.echo(str(path))


def register(app: typer.Typer) -> None:
    app.add_typer(import_app, name="import")
