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
from wirecheck.cli.common import fail_usage, writing_errors_as_usage

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
    _register(target, profile, version)


def _register(folder: Path, profile: dict, version: str) -> None:
    """List the release in registry.yaml of the contracts folder it was written into (`--contracts DIR` loads only
    what a registry lists); a registry written by hand is not rewritten: what to add is said instead."""
    from wirecheck.importer.jsonrpc import registry_text
    from wirecheck.importer.shipped import ImportRefused

    package = profile["package"]
    if (folder.parent.name, folder.name) != (package, version):
        typer.echo(f"note: {folder} is not laid out as <contracts folder>/{package}/{version}, so no registry.yaml "
                   f"lists it; for --contracts DIR, import with --out DIR/{package}/{version}", err=True)
        return
    root = folder.parent.parent
    title = profile.get("catalog", {}).get("title", "{npm} {version}").format(
        npm=profile.get("npm", package), version=version, path="", license="")
    try:
        text = registry_text(root, package, version, title, npm=profile.get("npm"))
    except ImportRefused as exc:
        typer.echo(f"note: {exc}", err=True)
        return
    if text is not None:
        from wirecheck.output_files import write_text

        with writing_errors_as_usage():
            write_text(root / "registry.yaml", text)
        typer.echo(str(root / "registry.yaml"))


PROFILES = ("json-rpc",)  # `import schema` profiles: derivations from a schema's own structure


@import_app.command("schema")
def import_schema_command(
    schema: Path = typer.Argument(..., metavar="SCHEMA.json", help="A JSON Schema file (draft 4 to 2020-12)."),
    profile: str = typer.Option(..., "--profile", help=f"How kinds are derived: {', '.join(PROFILES)}."),
    package: str = typer.Option(..., "--package", help="The package name (contracts/<package>/)."),
    version: str = typer.Option(..., "--version", help="The release (contracts/<package>/<version>/)."),
    out: Path = typer.Option(..., "--out", "-o", help="The contracts folder to write into (for --contracts DIR): "
                                                       "<package>/<version>/ and registry.yaml."),
    mapping: Path | None = typer.Option(None, "--mapping", help="YAML: what the schema's structure does not say "
                                                                "(senders, types, replies, roles); the import "
                                                                "writes one to fill when it needs it."),
    source: str | None = typer.Option(None, "--source", help="Where the schema comes from (recorded as provenance)."),
    license_file: Path | None = typer.Option(None, "--license", help="The schema's licence, copied as LICENSE."),
) -> None:
    """A release folder from a local JSON Schema file: message kinds, directions and replies derived from the
    schema's structure (json-rpc: `*Request` definitions with a `method` constant or ACP's x-method tables,
    `<Role>Request` unions, replies paired by name: `<Name>Result`, the `result` of `<Name>SuccessResponse`).
    Prints what was derived and what was not (with the mapping key that supplies it, and a mapping skeleton to
    fill); writes only a folder that loads. Then: wirecheck validate PACKAGE@VERSION CAPTURE --contracts OUT."""
    from wirecheck.importer.jsonrpc import import_schema
    from wirecheck.importer.shipped import ImportRefused

    if profile not in PROFILES:
        raise fail_usage(f"--profile {profile!r}: expected one of {', '.join(PROFILES)}")
    try:  # an output that cannot be written (a full disk) is a usage error naming it, and leaves nothing behind
        with writing_errors_as_usage():
            _, files, derivation = import_schema(schema, package=package, version=version, out=out,
                                                 mapping_path=mapping, source_ref=source, license_path=license_file)
    except ImportRefused as exc:
        raise fail_usage(str(exc)) from None
    kinds = sum(len(m.senders) for m in derivation.methods if m.type is not None)
    typer.echo(f"{package}@{version}: {len(derivation.methods)} methods, {kinds} message kinds and a response kind "
               f"per role ({', '.join(derivation.roles)}) derived from {schema.name}", err=True)
    for item in derivation.not_derived:
        typer.echo(f"  not derived: {item['what']}; supply it with --mapping: {item['supply']}", err=True)
    if derivation.skeleton is not None:
        typer.echo(f"  a mapping to fill (then --mapping {derivation.skeleton}): {derivation.skeleton}", err=True)
    for path in files:
        typer.echo(str(path))
    typer.echo(f"then: wirecheck validate {package}@{version} CAPTURE --contracts {out}", err=True)


def register(app: typer.Typer) -> None:
    app.add_typer(import_app, name="import")
