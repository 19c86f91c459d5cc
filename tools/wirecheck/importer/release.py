"""Assemble and write a draft release folder: the pure assembly (`assemble`) and the I/O around it (`import_npm`).

A release folder written here holds `protocol.json` (the normalised types), `wire.json` (one envelope per inner
request and response branch), `runtime-manifest.schema.json` (the file contract, from the shipped manifest),
`catalog.yaml` (kinds, rules, provenance) and `import.yaml` (what was imported, from where, with which generator).
Every file is serialised canonically and nothing depends on the clock or the machine, so importing the same
release twice gives byte-identical folders.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from wirecheck.contracts.stamps import VERSION_STAMP
from wirecheck.importer import catalog as catalog_builder
from wirecheck.importer.normalise import DIALECT, dump, normalise
from wirecheck.importer.profile import load_profile, write_folder

ID_BASE = "https://contracts.wirecheck.invalid"


def schema_from_instance(value: Any, consts: Mapping[str, Any] = {}, *, key: str | None = None) -> dict[str, Any]:
    """A closed structural schema for a JSON document: the types it shows, every key it has required; keys named in
    `consts` must hold exactly the given value, a version stamp (contracts/stamps.py: the release's own version,
    expected to change with every release). Used for shipped data files such as the runtime manifest."""
    if key is not None and key in consts:
        return {"const": consts[key], VERSION_STAMP: True}
    if isinstance(value, dict):
        return {
            "type": "object",
            "required": list(value),
            "additionalProperties": False,
            "properties": {k: schema_from_instance(v, consts, key=k) for k, v in value.items()},
        }
    if isinstance(value, bool):
        return {"type": "boolean"}
    if isinstance(value, int):
        return {"type": "integer"}
    if isinstance(value, float):
        return {"type": "number"}
    if isinstance(value, str):
        schema: dict[str, Any] = {"type": "string", "minLength": 1}
        if "{target}" in value:
            schema["pattern"] = r"\{target\}"
        elif value.startswith("https://"):
            schema["format"] = "uri"
        return schema
    if isinstance(value, list):
        return {"type": "array", "items": schema_from_instance(value[0], consts) if value else {}}
    return {"type": "null"}


@dataclass(frozen=True)
class ImportInput:
    """Everything an import reads, already fetched: the pure assembly needs nothing else."""

    version: str
    generated: Mapping[str, Any]  # the generator's draft-07 document
    manifest: Mapping[str, Any] | None
    wire_version: str | None
    source_ref: str  # where the release came from (npm spec and integrity)


def rule_uses(message_ids: set[str]) -> list[dict[str, Any]]:
    """The protocol rules a stream-json release turns on; a rule about a kind the release lacks is left out."""
    uses: list[dict[str, Any]] = []
    if "system.init" in message_ids:
        uses.append({"id": "FIRST_MESSAGE_IS", "params": {"kind": "system.init", "from": "cli"}})
        uses.append({"id": "QODER_PROTOCOL_MAJOR", "kinds": ["system.init"],
                     "params": {"pointer": "/protocol_version"}})
    turn_kinds = sorted(k for k in message_ids if k == "result.success" or k == "result.error")
    turns = {"results": turn_kinds, "turn": ["assistant", "stream_event"], "prompt": ["sdk.user"],
             "restart": ["system.task_notification"]}
    uses.append({"id": "QODER_RESULT_ENDS_TURN", "params": turns})
    uses.append({"id": "QODER_TURN_UNFINISHED", "params": turns})
    return uses


def assemble(profile: Mapping[str, Any], data: ImportInput, *,
             sources: Mapping[str, Any] | None = None,
             protocol: Mapping[str, Any] | None = None,
             kind_sources: Any = None, manifest_source: str = "release",
             header_note: str | None = None, extra_kinds: list[dict[str, Any]] | None = None) -> dict[str, str]:
    """file name → exact file text of the release folder. `protocol` overrides the normalised types (used by the
    reconstruction of unpublished releases, which edits a neighbour's types)."""
    package, version = profile["package"], data.version
    prefix = f"{ID_BASE}/{package}/{version}"
    if protocol is None:
        protocol = normalise(data.generated, schema_id=f"{prefix}/protocol.json",
                             title=f"{profile['npm']} {version}: protocol types (dist/protocol/*.d.ts)",
                             root_patterns=profile["roots"])
        protocol = catalog_builder.add_alternate_discriminators(dict(protocol), profile["request_union"],
                                                                "sdk-senders")
    kinds, wire = catalog_builder.build(protocol, profile, package=package, version=version,
                                        kind_sources=kind_sources)
    files = {"protocol.json": dump(protocol), "wire.json": dump(wire)}
    if data.manifest is not None:
        consts = {k: data.manifest[k] for k in profile.get("manifest_consts", []) if k in data.manifest}
        manifest_schema = {
            "$schema": DIALECT,
            "$id": f"{prefix}/runtime-manifest.schema.json",
            "title": f"{profile['npm']} {version}: dist/runtime-manifest.json",
            **schema_from_instance(data.manifest, consts),
        }
        files["runtime-manifest.schema.json"] = dump(manifest_schema)
        kinds.append({
            "id": "runtime_manifest", "title": "dist/runtime-manifest.json: the CLI and worker runtime this release "
            "installs", "channel": "file", "producer": "sdk", "consumer": "sdk",
            "selector": {"path": "*runtime-manifest.json"}, "schema": "runtime-manifest.schema.json",
            "provenance": {"source": manifest_source,
                           "note": "the manifest shipped in the tarball" if manifest_source == "release"
                           else "the whole file, as the seed diff shows it"},
        })
    kinds += [dict(k) for k in extra_kinds or []]
    catalog: dict[str, Any] = {
        "package": package,
        "version": version,
        "title": f"{profile['title']}, SDK {version}",
    }
    if data.wire_version:
        catalog["wire_version"] = data.wire_version
    catalog["sources"] = dict(sources) if sources is not None else default_sources(data.source_ref, profile)
    catalog["roles"] = list(profile["roles"])
    catalog["kinds"] = kinds
    catalog["rules"] = rule_uses({k["id"] for k in kinds})
    header = header_note or (
        f"# {package} {version}: generated by `wirecheck import npm {profile['npm']}@{version}`\n"
        f"# (tools/wirecheck/importer, profile importer/profiles/{package}.yaml). Edit the profile, not this.\n")
    files["catalog.yaml"] = header + yaml.safe_dump(catalog, sort_keys=False, width=120, allow_unicode=True)
    return files


def default_sources(source_ref: str, profile: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "release": {"type": "published-release", "ref": source_ref},
        "sdk-senders": {"type": "upstream-source",
                        "ref": "qoder-agent-sdk (PyPI) 1.0.13 _internal/query.py; "
                               "@qoder-ai/qoder-agent-sdk dist/index.js; "
                               "qodercli 1.1.23 (`request.type ?? request.subtype`)",
                        "note": "requests carry `type`, `subtype` or both; which side sends which request"},
    }


def provenance_file(profile: Mapping[str, Any], spec: str, integrity: str, shasum: str, names: int,
                    wire_version: str | None) -> str:
    record = {
        "imported": spec,
        "integrity": integrity,
        "shasum": shasum,
        "generator": profile["generator"] + " (via npx)",
        "entry": profile["entry"],
        "exported_types": names,
        "stand_ins": sorted(profile.get("stand_ins", {})),
        "wire_protocol_version": wire_version,
        "profile": f"tools/wirecheck/importer/profiles/{profile['package']}.yaml",
    }
    return yaml.safe_dump(record, sort_keys=False, width=120)


def import_npm(spec: str, out: Path | None = None, contracts_root: Path | None = None) -> tuple[Path, list[Path]]:
    """`npm pack` → generator → normalise → assemble → write. Returns the folder and the files written. A profile
    with `schema:` names a series that ships its JSON Schema: that file is imported instead (shipped.py)."""
    from wirecheck.importer import npm, tsgen

    name, version = npm.parse_spec(spec)  # before anything runs: a path, URL or shell text never reaches npm
    profile = load_profile(name)
    if "schema" in profile:
        from wirecheck.importer import shipped

        return shipped.import_npm(profile, version, out=out, contracts_root=contracts_root)
    with tempfile.TemporaryDirectory(prefix="wirecheck-import-") as temp:
        packed = npm.pack(f"{profile['npm']}@{version}", Path(temp))
        generated = tsgen.generate(packed.root, profile["entry"], profile.get("stand_ins", {}), profile["generator"])
        root = packed.root
        manifest_path = root / profile["manifest"] if profile.get("manifest") else None
        manifest = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path and manifest_path.exists() \
            else None
        wire_version = None
        if profile.get("version_module") and (root / profile["version_module"]).exists():
            wire_version = tsgen.wire_protocol_version((root / profile["version_module"]).read_text(encoding="utf-8"))
        source_ref = (f"npm {packed.name}@{packed.version} ({packed.integrity}): dist/protocol/*.d.ts via "
                      f"{profile['generator']}")
        data = ImportInput(packed.version, generated, manifest, wire_version, source_ref)
        files = assemble(profile, data)
        names = len(tsgen.exported_type_names((root / profile["entry"]).read_text(encoding="utf-8")))
        files["import.yaml"] = provenance_file(profile, f"{packed.name}@{packed.version}", packed.integrity,
                                               packed.shasum, names, wire_version)
        # keep the generator's raw output next to nothing: it is reproducible from import.yaml
    folder = out or (contracts_root or Path("contracts")) / profile["package"] / data.version
    return folder, write_folder(files, folder)
