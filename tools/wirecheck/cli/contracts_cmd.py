"""`wirecheck contracts` and `wirecheck show`: what the registry holds, and one release or kind in full."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from wirecheck.cli.common import CONTRACTS_OPTION, contract_errors_as_usage, fail_usage, guarded, registry
from wirecheck.findings import printable

if TYPE_CHECKING:
    from wirecheck.contracts import ContractRelease, MessageKind


def _echo(text: str) -> None:
    """A line of the listing: titles, sources and selectors come from a contracts folder someone else may write, so
    a control character in them is shown as its escape, never sent to the terminal."""
    typer.echo(printable(text))


def _kind_summary(kind: MessageKind) -> str:
    if kind.http is not None:
        status = f" → {kind.http.status}" if kind.http.status else ""
        base = f"<{kind.http.base}>" if kind.http.base else ""
        return f"{kind.http.method} {base}{kind.http.path}{status}"
    if kind.fields:
        from wirecheck.contracts.model import condition_text

        return " | ".join(", ".join(condition_text(t, v) for t, v in alt) for alt in kind.fields)
    return kind.path_glob or kind.program or kind.channel


def _field_provenance(schema: Any, pointer: str = "") -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = []
    if isinstance(schema, dict):
        if "x-provenance" in schema:
            found.append((pointer or "/", schema["x-provenance"]))
        for key, value in schema.items():
            if key != "x-provenance":
                found += _field_provenance(value, f"{pointer}/{key}")
    elif isinstance(schema, list):
        for index, value in enumerate(schema):
            found += _field_provenance(value, f"{pointer}/{index}")
    return found


def _show_release(release: ContractRelease) -> None:
    _echo(f"{release.name}: {release.title}")
    if release.wire_version:
        _echo(f"wire version: {release.wire_version}")
    _echo(f"roles: {', '.join(release.roles)}")
    _echo("sources:")
    for source in release.sources.values():
        _echo(f"  {source.id:<12} {source.type:<18} {source.ref}")
    _echo(f"kinds ({len(release.kinds)}):")
    for kind in release.kinds:
        _echo(f"  {kind.id:<40} {kind.channel:<12} {kind.producer} → {kind.consumer}  {_kind_summary(kind)}")
    if release.rules:
        _echo("rules:")
        for use in release.rules:
            scope = f" on {', '.join(use.kinds)}" if use.kinds else ""
            params = f" {json.dumps(dict(use.params))}" if use.params else ""
            _echo(f"  {use.id}{scope}{params}")


def _show_kind(release: ContractRelease, kind: MessageKind) -> None:
    from wirecheck.contracts.inline import inline_refs
    from wirecheck.pointer import format_pointer

    _echo(f"{release.name} {kind.id}: {kind.title}")
    _echo(f"channel: {kind.channel}   {kind.producer} → {kind.consumer}")
    _echo(f"selector: {_kind_summary(kind)}")
    if kind.answers:
        _echo(f"answers: {kind.answers}")
    sources = ", ".join(f"{s} ({release.sources[s].type}: {release.sources[s].ref})" for s in kind.provenance.sources)
    _echo(f"provenance: {sources}" + (f" — {kind.provenance.note}" if kind.provenance.note else ""))
    links = [(name, getattr(kind, name)) for name in ("schema", "headers")]
    if kind.reply is not None:
        links.append((f"reply at {format_pointer(kind.reply.at)}", kind.reply.schema))
    for label, link in links:
        if link is None:
            continue
        try:
            schema = inline_refs(release.resources, link.uri)  # self-contained: every $ref resolved
        except RecursionError:  # nested deeper than Python walks (the loader read it): shown as written
            schema = {"$ref": link.uri, "$comment": "nested too deep to show inlined"}
        _echo(f"{label}: {link.ref}")
        _echo(json.dumps(schema, indent=2))
        inferred = _field_provenance(schema)
        if inferred:
            _echo("field provenance:")
            for pointer, prov in inferred:
                _echo(f"  {pointer}: {_provenance_text(prov)}")


def _provenance_text(prov: Any) -> str:
    """A field's x-provenance as written: a sentence (`"@anthropic-ai/claude-agent-sdk 0.3.332 sdk.d.ts …"`), or an
    object with its source, note and the places (`at`) that show it."""
    if not isinstance(prov, dict):
        return str(prov)
    source = prov.get("source")
    source = ", ".join(map(str, source)) if isinstance(source, list) else source
    at = prov.get("at")
    parts = [str(x) for x in (source, prov.get("note")) if x]
    if isinstance(at, list):
        parts.append(", ".join(map(str, at)))
    return " — ".join(parts) or json.dumps(prov, ensure_ascii=False)


def register(app: typer.Typer) -> None:
    @app.command("contracts")
    def contracts_command(contracts: Path | None = CONTRACTS_OPTION) -> None:
        """List packages, their releases (oldest first) and message-kind counts: the bundled contracts and installed
        contract packs (marked [pack ...]), or the --contracts folders. Releases that do not load are listed too;
        their problems follow the list, and the exit code is then 2."""
        from wirecheck.contracts import ContractError

        reg = registry(contracts)
        problems = []
        for package in guarded(lambda: reg.packages).values():  # the packs are found and read here
            external = " (external)" if package.external else ""
            pack = f" [{package.origin}]" if package.origin.startswith("pack") else ""
            _echo(f"{package.name}{external}{pack}  {package.npm or package.pypi or ''}  — {package.title}")
            for version in package.releases:
                try:
                    release = reg.load(f"{package.name}@{version}")
                except ContractError as exc:
                    _echo(f"  {version:<12} does not load (contract error below)")
                    problems += exc.problems
                    continue
                channels = sorted({k.channel for k in release.kinds})
                _echo(f"  {version:<12} {len(release.kinds):>3} kinds  {', '.join(channels)}")
        problems += guarded(reg.unlisted)
        if problems:
            with contract_errors_as_usage():
                raise ContractError(problems)

    @app.command("show")
    def show_command(
        spec: str = typer.Argument(..., metavar="PACKAGE@VERSION"),
        kind: str | None = typer.Argument(None, help="A message kind id; omit for the whole release."),
        contracts: Path | None = CONTRACTS_OPTION,
    ) -> None:
        """Show a release (kinds, sources, rules) or one kind (resolved schema and provenance)."""
        reg = registry(contracts)
        release = guarded(lambda: reg.load(spec))
        if kind is None:
            _show_release(release)
            return
        try:
            _show_kind(release, release.kind(kind))
        except KeyError:
            raise fail_usage(f"{release.name} has no kind {kind!r}; see `wirecheck show {release.name}`") from None
