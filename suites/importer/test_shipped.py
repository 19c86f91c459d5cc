"""Releases that ship their JSON Schema (importer/shipped.py), through `wirecheck import npm`: a profile is data,
the schema is translated from its draft, kinds are derived as the profile says, and a release that cannot be
imported is refused with where and why (exit 2), never written half-done. Offline: npm pack is replaced by a
folder built here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from wirecheck.cli.app import app
from wirecheck.contracts.loader import load_release
from wirecheck.importer import npm, profile
from wirecheck.importer.shipped import ImportRefused, import_package_dir

D7 = "http://json-schema.org/draft-07/schema#"
D2020 = "https://json-schema.org/draft/2020-12/schema"

CONFIG_PROFILE = {
    "package": "toolcfg",
    "npm": "@example/toolcfg",
    "schema": ["package/schema/config.schema.json"],
    "default_draft": "7",
    "license": ["package/LICENSE"],
    "kinds": [{"id": "config", "title": "the tool's config file", "channel": "file", "producer": "user",
               "consumer": "tool", "selector": {"path": "*toolcfg.json"}, "schema": "#/$defs/Config"}],
    "catalog": {"title": "Toolcfg {version}", "roles": ["user", "tool"]},
}
CONFIG_SCHEMA = {
    "$schema": D7,
    "definitions": {"Config": {"type": "object", "required": ["name"], "additionalProperties": False,
                               "properties": {"name": {"type": "string"},
                                              "pair": {"items": [{"type": "string"}], "additionalItems": False}}}},
}


ZOD_SOURCE = 'import * as z from "zod/v4";\nexport const zInitializeRequest = z.object({});\n'


def package(root: Path, schema, *, name: str = "@example/toolcfg", version: str = "1.2.3",
            path: str = "schema/config.schema.json", license_text: str | None = "MIT License\n",
            zod: str | None = None, peer: dict | None = None) -> Path:
    """An unpacked npm package; `zod`: the generated zod source beside an ACP v1 schema (ACP's zod_urls)."""
    folder = root / "package"
    (folder / path).parent.mkdir(parents=True, exist_ok=True)
    (folder / "package.json").write_text(json.dumps({"name": name, "version": version, "license": "MIT",
                                                     **({"peerDependencies": peer} if peer else {})}))
    if zod is not None:
        (folder / "dist/v1/schema").mkdir(parents=True, exist_ok=True)
        (folder / "dist/v1/schema/zod.gen.js").write_text(zod)
    (folder / path).write_bytes(schema if isinstance(schema, bytes) else json.dumps(schema).encode())
    if license_text is not None:
        (folder / "LICENSE").write_text(license_text)
    return root


def test_a_draft_07_schema_with_listed_kinds_imports_and_loads(tmp_path):
    folder, written = import_package_dir(CONFIG_PROFILE, package(tmp_path / "pack", CONFIG_SCHEMA),
                                         contracts_root=tmp_path / "contracts")
    assert folder == tmp_path / "contracts" / "toolcfg" / "1.2.3"
    assert sorted(p.name for p in written) == ["LICENSE", "catalog.yaml", "import.yaml", "schema.json"]
    schema = json.loads((folder / "schema.json").read_text())
    assert schema["$defs"]["Config"]["properties"]["pair"] == {"prefixItems": [{"type": "string"}], "items": False}
    assert schema["x-imported-from"]["translated"].startswith("from draft-07: 4 rewrite(s)")
    record = yaml.safe_load((folder / "import.yaml").read_text())
    assert record["draft"] == "draft-07 (declared)" and record["rewrites"] == 4
    loaded = load_release(tmp_path / "contracts", "toolcfg", "1.2.3")
    [kind] = loaded.kinds
    assert kind.schema.uri.endswith("/toolcfg/1.2.3/schema.json#/$defs/Config")
    assert kind.provenance.sources == ("release",)


def test_a_schema_without_dollar_schema_is_read_as_the_profile_default(tmp_path):
    schema = {k: v for k, v in CONFIG_SCHEMA.items() if k != "$schema"}
    folder, _ = import_package_dir(CONFIG_PROFILE, package(tmp_path / "pack", schema),
                                   contracts_root=tmp_path / "contracts")
    assert yaml.safe_load((folder / "import.yaml").read_text())["draft"] == "draft-07 (the profile default)"


@pytest.mark.parametrize(("schema", "message"), [
    (None, "@example/toolcfg@1.2.3: the package ships no schema at package/schema/config.schema.json"),
    (b'{"definitions": {"Config": {"type": "object", "type": "string"}}}',
     "@example/toolcfg@1.2.3 schema/config.schema.json#/definitions/Config/type: duplicate key 'type'"),
    (b"{oops", "@example/toolcfg@1.2.3 schema/config.schema.json: not valid JSON"),
    ({"$schema": D7, "definitions": {"Config": {"$ref": "https://example.com/other.json"}}},
     "schema/config.schema.json#/definitions/Config/$ref: 'https://example.com/other.json' is not a JSON pointer"),
    ({"$schema": "http://json-schema.org/draft-03/schema#"},
     "schema/config.schema.json#/$schema: declares 'http://json-schema.org/draft-03/schema#', not a draft"),
    ({"$schema": D7, "definitions": {"Other": {}}},
     "the imported release would not load:\n  {out}/catalog.yaml#/kinds/0/schema"),
])
def test_what_cannot_be_imported_is_refused_with_where_and_nothing_is_written(tmp_path, schema, message):
    root = tmp_path / "pack"
    if schema is None:
        package(root, CONFIG_SCHEMA, path="schema/elsewhere.json")
    else:
        package(root, schema)
    out = tmp_path / "contracts" / "toolcfg" / "1.2.3"
    with pytest.raises(ImportRefused) as refused:
        import_package_dir(CONFIG_PROFILE, root, contracts_root=tmp_path / "contracts")
    assert message.format(out=out) in str(refused.value)
    assert not (tmp_path / "contracts").exists()


def test_the_acp_profile_refuses_a_schema_that_annotates_no_method(tmp_path):
    root = package(tmp_path / "pack", {"$schema": D2020, "$defs": {"A": {"type": "string"}}},
                   name="@agentclientprotocol/sdk", path="schema/v1/schema.json", zod=ZOD_SOURCE)
    with pytest.raises(ImportRefused, match=r"schema/v1/schema.json: no \$defs entry carries x-method and x-side"):
        import_package_dir(profile.load_profile("acp"), root, contracts_root=tmp_path / "contracts")


ACP_SCHEMA = {
    "$schema": D2020,
    "$defs": {
        "InitializeRequest": {"type": "object", "required": ["protocolVersion"],
                              "properties": {"protocolVersion": {"type": "integer"}},
                              "x-method": "initialize", "x-side": "agent"},
        "InitializeResponse": {"type": "object", "x-method": "initialize", "x-side": "agent"},
        "SessionNotification": {"type": "object", "x-method": "session/update", "x-side": "client"},
    },
}


@pytest.fixture
def fake_npm(monkeypatch, tmp_path):
    """npm pack replaced by a folder holding the package, as npm.pack unpacks it."""
    packed: list[str] = []

    def pack(spec: str, dest: Path):
        name, version = npm.parse_spec(spec)
        packed.append(spec)
        root = package(dest / "unpacked", ACP_SCHEMA, name=name, version=version, path="schema/v1/schema.json",
                       license_text="Apache License\n", zod=ZOD_SOURCE)
        return npm.PackedRelease(name, version, dest / "x.tgz", "sha512-test", "ab" * 20, root)

    monkeypatch.setattr(npm, "pack", pack)
    return packed


def test_import_npm_reaches_the_acp_profile(fake_npm, tmp_path):
    """It said "no import profile for '@agentclientprotocol/sdk'"; now the profile (data) routes it here."""
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["import", "npm", "@agentclientprotocol/sdk@0.4.9", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert fake_npm == ["@agentclientprotocol/sdk@0.4.9"]
    wire = json.loads((out / "wire.json").read_text())
    assert "jsonrpc.RequestId" in wire["$defs"]  # this schema has none: the release still loads
    assert yaml.safe_load((out / "import.yaml").read_text())["integrity"] == "sha512-test"
    catalog = yaml.safe_load((out / "catalog.yaml").read_text())
    assert {k["id"] for k in catalog["kinds"]} == {"agent.initialize", "client.session.update", "agent.response",
                                                  "client.response"}


def test_import_npm_refusal_is_exit_2_and_writes_nothing(fake_npm, monkeypatch, tmp_path):
    monkeypatch.setitem(ACP_SCHEMA["$defs"], "Bad", {"$ref": "#/$defs/Missing"})
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["import", "npm", "@agentclientprotocol/sdk@0.4.9", "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert "@agentclientprotocol/sdk@0.4.9 schema/v1/schema.json#/$defs/Bad/$ref: '#/$defs/Missing' points at " \
           "nothing" in result.output
    assert not out.exists()


def test_import_npm_lists_the_release_in_the_registry_of_the_folder_it_writes_into(fake_npm, tmp_path):
    """Issue 27: the folder had no registry.yaml, so `--contracts DIR` failed with `registry.yaml: file not found`."""
    from wirecheck.contracts import load_registry

    root = tmp_path / "mine"
    for version in ("0.4.9", "0.4.10"):
        result = CliRunner().invoke(app, ["import", "npm", f"@agentclientprotocol/sdk@{version}",
                                          "--out", str(root / "acp" / version)])
        assert result.exit_code == 0, result.output
    registry = load_registry(root)
    assert registry.package("acp").releases == ("0.4.9", "0.4.10")
    assert registry.load("acp@0.4.10").version == "0.4.10"
    again = CliRunner().invoke(app, ["import", "npm", "@agentclientprotocol/sdk@0.4.9", "--out",
                                     str(root / "acp" / "0.4.9")])
    assert again.exit_code == 0 and load_registry(root).package("acp").releases == ("0.4.9", "0.4.10")


def test_import_npm_does_not_rewrite_a_registry_written_by_hand(fake_npm, tmp_path):
    root = tmp_path / "mine"
    root.mkdir()
    hand = "# my own registry\npackages:\n  other: {title: other, releases: [\"1.0.0\"]}\n"
    (root / "registry.yaml").write_text(hand)
    result = CliRunner().invoke(app, ["import", "npm", "@agentclientprotocol/sdk@0.4.9", "--out",
                                      str(root / "acp" / "0.4.9")])
    assert result.exit_code == 0 and (root / "registry.yaml").read_text() == hand
    assert 'add "0.4.9" to the releases of acp there' in " ".join(result.output.split())
