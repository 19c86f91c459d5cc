"""Import the Agent Client Protocol (ACP) v1 contract from the official JSON Schema in npm `@agentclientprotocol/sdk`.

    python -m wirecheck.importer.acp --sdk-version 2.4.0            # npm pack, then convert into contracts/acp/2.4.0
    python -m wirecheck.importer.acp --package-dir ./package         # convert an already extracted tarball

The SDK ships `schema/v1/schema.json` (draft 2020-12): one `$defs` entry per type, each method's request, response
and notification type marked with `x-method` and `x-side` (the side that receives it). The conversion is pure
(`convert`): the upstream schema is kept byte-for-byte in meaning, only given our `$id` and a provenance block, and
a second file, `wire.json`, wraps each method's params in its JSON-RPC envelope so every method is its own message
kind (selected by `/method`), with the typed result checked against the method's response type (`reply:`).
The SDK's licence (Apache-2.0) is copied next to the schema, as the licence requires.

Node/npm is needed only to fetch the tarball; the generated contract is committed and nothing else needs them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

PACKAGE = "acp"
NPM_NAME = "@agentclientprotocol/sdk"
SCHEMA_PATH = "schema/v1/schema.json"
ID_BASE = "https://contracts.wirecheck.invalid"
DIALECT = "https://json-schema.org/draft/2020-12/schema"
OTHER_SIDE = {"agent": "client", "client": "agent"}


def kind_id(side: str, method: str) -> str:
    """`session/new` received by the agent → `agent.session.new`; `$/cancel_request` → `protocol.cancel_request`."""
    return f"{side}.{re.sub(r'[^a-z0-9_]+', '.', method.lower()).strip('.')}"


def methods(schema: Mapping[str, Any]) -> list[dict[str, str]]:
    """Every method of the protocol, from the `x-method`/`x-side` annotations of the upstream `$defs`.

    Returns [{method, side, request?, response?, notification?}] sorted by side and method, where the values are
    `$defs` names. A type ending in Request with a matching Response is a request; one ending in Notification is
    a notification.
    """
    table: dict[tuple[str, str], dict[str, str]] = {}
    for name, definition in schema.get("$defs", {}).items():
        method, side = definition.get("x-method"), definition.get("x-side")
        if not (isinstance(method, str) and isinstance(side, str)):
            continue
        entry = table.setdefault((side, method), {"method": method, "side": side})
        for suffix, role in (("Request", "request"), ("Response", "response"), ("Notification", "notification")):
            if name.endswith(suffix):
                entry[role] = name
    return [table[key] for key in sorted(table)]


def _envelope(entry: Mapping[str, str]) -> dict[str, Any]:
    is_request = "request" in entry
    params = entry["request"] if is_request else entry["notification"]
    properties: dict[str, Any] = {
        "jsonrpc": {"const": "2.0"},
        "method": {"const": entry["method"]},
        "params": {"$ref": f"schema.json#/$defs/{params}"},
    }
    required = ["jsonrpc", "method"]
    if is_request:
        properties["id"] = {"$ref": "schema.json#/$defs/RequestId"}
        required.insert(1, "id")
    return {
        "description": f"JSON-RPC {'request' if is_request else 'notification'} `{entry['method']}` "
        f"({entry['side']} receives it); params: {params}",
        "type": "object",
        "required": required,
        "properties": properties,
    }


def _response_envelope(side: str) -> dict[str, Any]:
    return {
        "description": f"A JSON-RPC response sent by the {side}: a result (checked against the type of the request "
        "it answers, matched by id) or an error.",
        "type": "object",
        "required": ["jsonrpc", "id"],
        "properties": {
            "jsonrpc": {"const": "2.0"},
            "id": {"$ref": "schema.json#/$defs/RequestId"},
            "result": True,
            "error": {"$ref": "schema.json#/$defs/Error"},
        },
        "oneOf": [{"required": ["result"]}, {"required": ["error"]}],
    }


def convert(
    schema: Mapping[str, Any], *, sdk_version: str, sha256: str, license_name: str
) -> dict[str, Any]:
    """Upstream schema → the files of `contracts/acp/<sdk_version>/` (pure: dicts in, dicts/text out)."""
    if schema.get("$schema") != DIALECT:
        raise ValueError(f"expected a {DIALECT} schema, found {schema.get('$schema')!r}")
    base = f"{ID_BASE}/{PACKAGE}/{sdk_version}"
    provenance = {
        "package": NPM_NAME,
        "version": sdk_version,
        "path": SCHEMA_PATH,
        "sha256": sha256,
        "license": f"{license_name}; the licence text is LICENSE in this folder",
    }
    upstream = {"$schema": DIALECT, "$id": f"{base}/schema.json", "x-imported-from": provenance}
    upstream.update({k: v for k, v in schema.items() if k not in ("$schema", "$id")})

    table = methods(schema)
    wire_defs: dict[str, Any] = {}
    kinds: list[dict[str, Any]] = []
    for entry in table:
        if "request" not in entry and "notification" not in entry:
            continue
        kid = kind_id(entry["side"], entry["method"])
        wire_defs[kid] = _envelope(entry)
        sender = OTHER_SIDE.get(entry["side"], "any")
        kind: dict[str, Any] = {
            "id": kid,
            "title": f"{entry['method']} ({'request' if 'request' in entry else 'notification'})",
            "channel": "stdio-ndjson",
            "producer": sender,
            "consumer": entry["side"] if entry["side"] in OTHER_SIDE else "any",
            "selector": {"fields": {"/jsonrpc": "2.0", "/method": entry["method"]}},
            "schema": f"wire.json#/$defs/{kid}",
        }
        if "request" in entry and "response" in entry:
            kind["reply"] = {"at": "/result", "schema": f"schema.json#/$defs/{entry['response']}"}
        kind["provenance"] = {"source": "sdk", "note": f"$defs/{entry.get('request') or entry.get('notification')}"}
        kinds.append(kind)
    for side in ("agent", "client"):
        rid = f"{side}.response"
        wire_defs[rid] = _response_envelope(side)
        kinds.append({
            "id": rid,
            "title": f"Response from the {side}",
            "channel": "stdio-ndjson",
            "producer": side,
            "consumer": OTHER_SIDE[side],
            "description": "Selected by jsonrpc alone, so any message without a known method lands here; a framed "
            "capture's sender tells the two directions apart.",
            "selector": {"fields": {"/jsonrpc": "2.0"}},
            "schema": f"wire.json#/$defs/{rid}",
            "answers": f"{side}.*",
            "correlate": {"request": "/id", "response": "/id"},
            "provenance": {"source": "sdk", "note": "$defs/AgentResponse, $defs/ClientResponse"},
        })
    wire = {
        "$schema": DIALECT,
        "$id": f"{base}/wire.json",
        "title": "ACP v1 JSON-RPC envelopes, one per method (generated by tools/wirecheck/importer/acp.py)",
        "$defs": wire_defs,
    }
    catalog = {
        "package": PACKAGE,
        "version": sdk_version,
        "title": f"Agent Client Protocol v1 (JSON Schema of {NPM_NAME} {sdk_version})",
        "description": (
            f"JSON-RPC 2.0 over stdio between a client (editor, Navarch's ACP adapter) and an agent. Generated by "
            f"tools/wirecheck/importer/acp.py from {SCHEMA_PATH} of {NPM_NAME}@{sdk_version} ({license_name}, "
            "Copyright Zed Industries, Inc. and contributors; LICENSE in this folder). Releases are named after the "
            "SDK version the schema came from; the wire protocol version is 1. Do not edit: re-run the importer."
        ),
        "wire_version": "1",
        "sources": {
            "sdk": {
                "type": "published-release",
                "ref": f"npm {NPM_NAME}@{sdk_version} {SCHEMA_PATH}",
                "note": f"sha256 {sha256}; {license_name}",
            }
        },
        "roles": ["client", "agent", "any"],
        "kinds": kinds,
    }
    return {"schema.json": upstream, "wire.json": wire, "catalog": catalog}


def _catalog_yaml(catalog: Mapping[str, Any]) -> str:
    import yaml

    header = "# Generated by tools/wirecheck/importer/acp.py: do not edit, re-run the importer.\n"
    return header + yaml.safe_dump(dict(catalog), sort_keys=False, width=118, allow_unicode=True)


def write_release(package_dir: Path, out_root: Path) -> Path:
    """Convert an extracted `package/` folder of the SDK tarball into `out_root/acp/<version>/`."""
    manifest = json.loads((package_dir / "package.json").read_text(encoding="utf-8"))
    raw = (package_dir / SCHEMA_PATH).read_bytes()
    files = convert(
        json.loads(raw),
        sdk_version=manifest["version"],
        sha256=hashlib.sha256(raw).hexdigest(),
        license_name=manifest.get("license", "unknown"),
    )
    folder = out_root / PACKAGE / manifest["version"]
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("schema.json", "wire.json"):
        (folder / name).write_text(json.dumps(files[name], indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    (folder / "catalog.yaml").write_text(_catalog_yaml(files["catalog"]), encoding="utf-8")
    shutil.copyfile(package_dir / "LICENSE", folder / "LICENSE")
    return folder


def npm_pack(version: str, into: Path) -> Path:
    """`npm pack @agentclientprotocol/sdk@<version>` and extract it safely; returns the `package/` folder."""
    from wirecheck.importer.npm import check_version

    check_version(version)  # an exact release, never a path, URL, range or tag
    subprocess.run(
        ["npm", "pack", f"{NPM_NAME}@{version}", "--pack-destination", str(into), "--silent"],
        check=True,
        capture_output=True,
    )
    (tarball,) = into.glob("*.tgz")
    with tarfile.open(tarball) as archive:
        archive.extractall(into, filter="data")
    return into / "package"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--sdk-version", help="npm version of @agentclientprotocol/sdk to fetch with npm pack")
    source.add_argument("--package-dir", type=Path, help="an extracted SDK tarball's package/ folder")
    parser.add_argument("--out", type=Path, default=Path("contracts"), help="the contracts/ folder")
    args = parser.parse_args(argv)
    if args.sdk_version is not None:
        from wirecheck.importer.npm import BadSpec, check_version

        try:
            check_version(args.sdk_version)
        except BadSpec as exc:
            parser.error(f"--sdk-version: {exc}")  # exit 2, before npm runs
    if args.package_dir:
        folder = write_release(args.package_dir, args.out)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            folder = write_release(npm_pack(args.sdk_version, Path(tmp)), args.out)
    print(f"wrote {folder}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
