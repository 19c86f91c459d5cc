"""Import a release whose npm package ships its JSON Schema: a profile with `schema:` (e.g. profiles/acp.yaml).

    wirecheck import npm @agentclientprotocol/sdk@2.4.0
    python -m wirecheck.importer.shipped --profile acp --package-dir ./package   # an extracted tarball, offline

npm pack → the schema at the first of the profile's `schema` paths → read as its draft and translated into
2020-12 (contracts/drafts.py) → message kinds derived as the profile's `kinds` says → a release folder, written
only once it loads as a contract. A profile is data:

    package: acp                       # contracts/<package>/<version>
    npm: "@agentclientprotocol/sdk"
    schema: [package/schema/v1/schema.json, package/schema/schema.json]   # the first path present
    default_draft: "7"                 # for a schema without $schema (2020-12 unless told)
    license: [package/LICENSE]         # copied next to the schema, the first present
    kinds: jsonrpc-methods             # a derivation (KIND_DERIVATIONS), or a list of kinds:
    # kinds: [{id: config, title: ..., channel: file, producer: tool, consumer: tool,
    #          selector: {path: "*.json"}, schema: "#/$defs/Config"}]   # "#" is the whole schema
    catalog: {title: "... {npm} {version}", description: "... {path} ({license}) ...", wire_version: "1",
              roles: [...], source: sdk}

What a release cannot give — no schema at any path, JSON that does not parse, a schema with no faithful 2020-12
translation, no message kind, a folder that does not load — is ImportRefused, naming the release, the file and
the JSON pointer (the command exits 2; nothing is written).
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from wirecheck.contracts.drafts import DIALECT, Untranslatable, draft_named, translate
from wirecheck.importer.profile import load_profile, write_folder
from wirecheck.importer.zod_urls import ZodSource, ZodSourceRefused
from wirecheck.json_text import parse_json

ID_BASE = "https://contracts.wirecheck.invalid"
TARBALL_ROOT = "package/"  # every npm tarball unpacks into package/


class ImportRefused(RuntimeError):
    """A release the profile cannot import, with the reason and where (release, file, JSON pointer)."""


@dataclass(frozen=True)
class Shipped:
    """What an import reads from one release, already fetched: the pure assembly needs nothing else."""

    npm_name: str
    version: str
    path: str  # the schema's path in the package (schema/v1/schema.json)
    raw: bytes
    license_name: str
    license_text: str | None
    integrity: str | None = None  # the registry's sha512 SRI string (None: read from a folder)
    shasum: str | None = None
    zod: ZodSource | None = None  # the URL checks of the zod source generated from the schema (zod_urls.py)

    @property
    def where(self) -> str:
        return f"{self.npm_name}@{self.version} {self.path}"


def _listed_kinds(profile: Mapping[str, Any]) -> Callable[..., tuple[list[dict[str, Any]], None]]:
    def derive(schema: Mapping[str, Any], *, package: str, version: str, base: str, source: str
               ) -> tuple[list[Any], None]:
        kinds = []
        for listed in profile["kinds"]:
            kind = dict(listed)
            kind.setdefault("provenance", {"source": source})
            fragment = str(kind.get("schema", "#"))
            kind["schema"] = "schema.json" + ("" if fragment == "#" else fragment)
            kinds.append(kind)
        return kinds, None
    return derive


def _derivation(profile: Mapping[str, Any]) -> Callable[..., tuple[list[dict[str, Any]], Any]]:
    from wirecheck.importer.acp import jsonrpc_kinds

    kinds = profile.get("kinds")
    if isinstance(kinds, list):
        return _listed_kinds(profile)
    derivations = {"jsonrpc-methods": jsonrpc_kinds}
    if kinds not in derivations:
        raise ImportRefused(f"profile {profile['package']}: kinds must be a list of kinds or one of "
                            f"{', '.join(derivations)}, not {kinds!r}")
    return derivations[kinds]


def read_package(profile: Mapping[str, Any], root: Path, *, integrity: str | None = None,
                 shasum: str | None = None) -> Shipped:
    """The schema, licence and manifest of an unpacked tarball (`root` holds `package/`)."""
    manifest_path = root / TARBALL_ROOT / "package.json"
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ImportRefused(f"{manifest_path}: no readable package.json ({exc})") from None
    name, version = manifest.get("name", profile["npm"]), manifest.get("version", "?")
    paths = list(profile["schema"])
    found = next((p for p in paths if (root / p).is_file()), None)
    if found is None:
        raise ImportRefused(f"{name}@{version}: the package ships no schema at {', '.join(paths)} (the paths "
                            f"of profile {profile['package']}); nothing to import")
    license_path = next((root / p for p in profile.get("license", []) if (root / p).is_file()), None)
    return Shipped(name, version, found.removeprefix(TARBALL_ROOT), (root / found).read_bytes(),
                   str(manifest.get("license", "unknown")),
                   license_path.read_text(encoding="utf-8") if license_path else None, integrity, shasum,
                   _zod_source(profile, root, found, manifest, f"{name}@{version}"))


def _zod_source(profile: Mapping[str, Any], root: Path, schema_path: str, manifest: Mapping[str, Any],
                where: str) -> ZodSource | None:
    """The profile's zod source beside the schema, read (None when the profile reads none)."""
    from wirecheck.importer import zod_urls

    if not profile.get("zod_urls"):
        return None
    path = zod_urls.source_path(profile, schema_path, lambda p: (root / p).is_file())
    if path is None:
        listed = profile["zod_urls"]["source"].get(schema_path)
        raise ImportRefused(f"{where}: no zod source beside {schema_path.removeprefix(TARBALL_ROOT)} at "
                            f"{listed} (profile {profile['package']}, zod_urls.source): its URL fields cannot "
                            "be read as the SDK reads them")
    try:
        return zod_urls.read(path.removeprefix(TARBALL_ROOT), (root / path).read_text(encoding="utf-8"), manifest)
    except (OSError, UnicodeDecodeError, ZodSourceRefused) as exc:
        raise ImportRefused(f"{where}: {exc}") from None


def assemble(profile: Mapping[str, Any], shipped: Shipped) -> dict[str, str]:
    """file name → exact text of the release folder (pure). ImportRefused when the schema gives no release."""
    package, version = profile["package"], shipped.version
    upstream, problem = parse_json(shipped.raw)
    if problem is not None:
        where = f"#{problem.pointer}" if problem.pointer else ""
        raise ImportRefused(f"{shipped.where}{where}: {problem.message}")
    try:
        translation = translate(upstream, draft_named(str(profile.get("default_draft", "2020-12"))))
    except Untranslatable as exc:
        raise ImportRefused(f"{shipped.where}#{exc.pointer}: {exc.reason}") from None
    if not isinstance(translation.schema, dict):
        raise ImportRefused(f"{shipped.where}: the schema is {translation.schema!r}, not an object with types")
    base = f"{ID_BASE}/{package}/{version}"
    sha256 = hashlib.sha256(shipped.raw).hexdigest()
    provenance: dict[str, Any] = {"package": shipped.npm_name, "version": version, "path": shipped.path,
                                  "sha256": sha256}
    if translation.draft.uri != DIALECT:
        provenance["translated"] = f"from {translation.draft.name}: {len(translation.rewrites)} rewrite(s) into " \
                                   "2020-12 (`wirecheck diff-schemas --explain-input` lists them)"
    provenance["license"] = f"{shipped.license_name}; the licence text is LICENSE in this folder" \
        if shipped.license_text is not None else f"{shipped.license_name}; the package ships no licence file"
    schema = {"$schema": DIALECT, "$id": f"{base}/schema.json", "x-imported-from": provenance}
    schema.update({k: v for k, v in translation.schema.items() if k not in ("$schema", "$id")})
    catalog_spec = profile.get("catalog", {})
    source = catalog_spec.get("source", "release")
    url_fields = None
    if shipped.zod is not None:
        from wirecheck.importer import zod_urls

        try:
            url_fields = zod_urls.apply(profile, schema, shipped.zod, npm_name=shipped.npm_name, version=version,
                                        source=source)
        except ZodSourceRefused as exc:
            raise ImportRefused(str(exc)) from None
    try:
        kinds, wire = _derivation(profile)(schema, package=package, version=version, base=base, source=source)
    except ValueError as exc:
        raise ImportRefused(f"{shipped.where}: {exc}") from None
    fill = {"npm": shipped.npm_name, "version": version, "path": shipped.path, "license": shipped.license_name}
    catalog: dict[str, Any] = {"package": package, "version": version,
                               "title": catalog_spec.get("title", "{npm} {version}").format(**fill)}
    if "description" in catalog_spec:
        catalog["description"] = catalog_spec["description"].format(**fill)
    if "wire_version" in catalog_spec:
        catalog["wire_version"] = str(catalog_spec["wire_version"])
    catalog["sources"] = {source: {"type": "published-release", "ref": f"npm {shipped.npm_name}@{version} "
                                   f"{shipped.path}", "note": f"sha256 {sha256}; {shipped.license_name}"}}
    catalog["roles"] = list(catalog_spec.get("roles", ["any"]))
    catalog["kinds"] = kinds
    header = (f"# {package} {version}: generated by `wirecheck import npm {shipped.npm_name}@{version}`\n"
              f"# (tools/wirecheck/importer, profile importer/profiles/{package}.yaml). Edit the profile, not this.\n")
    files = {"schema.json": _json(schema),
             "catalog.yaml": header + yaml.safe_dump(catalog, sort_keys=False, width=118, allow_unicode=True),
             "import.yaml": _import_record(profile, shipped, sha256, translation, url_fields)}
    if wire is not None:
        files["wire.json"] = _json(wire)
    if shipped.license_text is not None:
        files["LICENSE"] = shipped.license_text
    return files


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def _import_record(profile: Mapping[str, Any], shipped: Shipped, sha256: str, translation: Any,
                   url_fields: list[dict[str, Any]] | None) -> str:
    record: dict[str, Any] = {"imported": f"{shipped.npm_name}@{shipped.version}"}
    if shipped.integrity:
        record["integrity"] = shipped.integrity
    if shipped.shasum:
        record["shasum"] = shipped.shasum
    record.update({
        "schema": shipped.path,
        "schema_sha256": sha256,
        "draft": f"{translation.draft.name} ({'declared' if translation.declared else 'the profile default'})",
        "rewrites": len(translation.rewrites),
        "profile": f"tools/wirecheck/importer/profiles/{profile['package']}.yaml",
    })
    if shipped.zod is not None:  # what the SDK's zod source says of URL fields (importer/zod_urls.py)
        record["zod_urls"] = {"source": shipped.zod.path, "sha256": shipped.zod.sha256, "module": shipped.zod.module,
                              "zod": f"{shipped.zod.dependency} {shipped.zod.zod_range}" if shipped.zod.dependency
                              else None, "fields": url_fields or []}
    return yaml.safe_dump(record, sort_keys=False, width=120, allow_unicode=True)


def check_loads(profile: Mapping[str, Any], files: Mapping[str, str], version: str, shown_as: Path) -> None:
    """ImportRefused unless the folder loads as a contract release (its problems shown at `shown_as`)."""
    from wirecheck.contracts import ContractError
    from wirecheck.contracts.loader import load_release
    with tempfile.TemporaryDirectory(prefix="wirecheck-import-load-") as temp:
        folder = Path(temp) / profile["package"] / version
        write_folder(files, folder)
        try:
            load_release(Path(temp), profile["package"], version)
        except ContractError as exc:
            problems = "\n  ".join(str(p).replace(str(folder), str(shown_as)) for p in exc.problems)
            raise ImportRefused(f"{profile['npm']}@{version}: the imported release would not load:\n  {problems}"
                                ) from None


def import_package_dir(profile: Mapping[str, Any], root: Path, *, out: Path | None = None,
                       contracts_root: Path | None = None, integrity: str | None = None,
                       shasum: str | None = None) -> tuple[Path, list[Path]]:
    """An unpacked tarball (`root` holds `package/`) → the release folder, written once it is known to load."""
    shipped = read_package(profile, root, integrity=integrity, shasum=shasum)
    files = assemble(profile, shipped)
    folder = out or (contracts_root or Path("contracts")) / profile["package"] / shipped.version
    check_loads(profile, files, shipped.version, folder)
    return folder, write_folder(files, folder)


def import_npm(profile: Mapping[str, Any], version: str, *, out: Path | None = None,
               contracts_root: Path | None = None) -> tuple[Path, list[Path]]:
    """`npm pack <npm>@<version>` → import_package_dir."""
    from wirecheck.importer import npm

    with tempfile.TemporaryDirectory(prefix="wirecheck-import-") as temp:
        packed = npm.pack(f"{profile['npm']}@{version}", Path(temp))
        return import_package_dir(profile, packed.root, out=out, contracts_root=contracts_root,
                                  integrity=packed.integrity, shasum=packed.shasum)


def main(argv: list[str] | None = None) -> int:
    """Import from an extracted tarball (offline); `wirecheck import npm` fetches one."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(description="Import a release of a series that ships its JSON Schema from an "
                                     "extracted npm tarball (no network).")
    parser.add_argument("--profile", default="acp", help="the import profile (importer/profiles/; default acp)")
    parser.add_argument("--package-dir", type=Path, required=True, help="an extracted tarball's package/ folder")
    parser.add_argument("--out", type=Path, default=Path("contracts"), help="the contracts/ folder")
    args = parser.parse_args(argv)
    try:
        folder, _ = import_package_dir(load_profile(args.profile), args.package_dir.parent, contracts_root=args.out)
    except (ImportRefused, KeyError) as exc:
        print(f"wirecheck: error: {exc.args[0] if isinstance(exc, KeyError) else exc}", file=sys.stderr)
        return 2
    print(f"wrote {folder}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
