"""The npm import pipeline, offline: the normaliser, the kind derivation and the release assembly run on
`data/qoder-sample.generated.json`, a trimmed ts-json-schema-generator output of @qoder-ai/qoder-agent-sdk 1.0.34's
protocol types (plus the awkward shapes the generator also emits: a hash-named anonymous interface, a URI-encoded
generic name, a tuple, a JSDoc @deprecated reason). No Node: the generator run itself is the `network` test below."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import orjson
import pytest
import yaml
from typer.testing import CliRunner

from wirecheck.cli.app import app
from wirecheck.contracts import load_registry
from wirecheck.contracts.loader import own_schema
from wirecheck.importer import catalog, normalise, record_qodercli, tsgen
from wirecheck.importer.examples import Resolver, example
from wirecheck.importer.profile import load_profile
from wirecheck.importer.release import ImportInput, assemble, schema_from_instance

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).resolve().parents[2]
SAMPLE = json.loads((DATA / "qoder-sample.generated.json").read_text())
ID = "https://contracts.wirecheck.invalid/qoder-agent-sdk/9.9.9/protocol.json"
PROFILE = load_profile("qoder-agent-sdk")


def _normalised(sample=SAMPLE):
    return normalise.normalise(sample, schema_id=ID, title="t", root_patterns=PROFILE["roots"])


# -- normalise ----------------------------------------------------------------------------------------------------

def test_normalised_is_one_2020_12_resource_with_defs_and_id():
    resource = _normalised()
    assert resource["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert resource["$id"] == ID
    assert "definitions" not in resource and resource["$defs"]
    jsonschema.Draft202012Validator.check_schema(resource)
    assert "#/definitions/" not in json.dumps(resource)


def test_anonymous_interface_is_named_after_where_it_is_used():
    defs = _normalised()["$defs"]
    assert "SDKControlInterruptRequestSignal" in defs
    assert not any(name.startswith("interface-") for name in defs)
    assert defs["SDKControlInterruptRequest"]["properties"]["signal"] == {
        "$ref": "#/$defs/SDKControlInterruptRequestSignal"}


def test_uri_encoded_generic_name_is_decoded_and_made_an_identifier():
    defs = _normalised()["$defs"]
    labels = defs["SDKPromptSuggestionMessage"]["properties"]["labels"]["$ref"]
    name = labels.removeprefix("#/$defs/")
    assert name in defs and name.isidentifier()


def test_single_valued_enum_becomes_const_so_unions_are_discriminated_by_const():
    defs = _normalised()["$defs"]
    assert defs["SDKPromptSuggestionMessage"]["properties"]["origin"]["const"] == "model"
    assert defs["SDKControlInterruptRequest"]["properties"]["type"]["const"] == "interrupt"


def test_tuple_becomes_prefix_items_closed_at_its_length():
    rng = _normalised()["$defs"]["SDKPromptSuggestionMessage"]["properties"]["range"]
    assert rng["prefixItems"] == [{"type": "number"}, {"type": "number"}]
    assert rng["items"] is False


def test_additional_items_beside_a_single_items_schema_is_dropped_not_made_the_items():
    """Draft-07 ignores additionalItems unless items is an array; read as 2020-12 `items` it replaced the real
    items schema (contracts/drafts.py translates the same way)."""
    generated = {"definitions": {"X": {"type": "array", "items": {"type": "string"}, "additionalItems": False}}}
    resource = normalise.normalise(generated, schema_id=ID, title="t", root_patterns=["X"])
    assert resource["$defs"]["X"] == {"type": "array", "items": {"type": "string"}}


def test_jsdoc_deprecated_reason_becomes_a_boolean_and_keeps_its_text():
    scene = _normalised()["$defs"]["SDKPromptSuggestionMessage"]["properties"]["scene"]
    assert scene["deprecated"] is True
    assert scene["x-deprecated"] == "The SDK no longer sends this field."


def test_types_unreachable_from_the_wire_roots_are_pruned():
    assert "UnreferencedHelper" not in _normalised()["$defs"]
    assert "UnreferencedHelper" in normalise.normalise(SAMPLE, schema_id=ID, title="t")["$defs"]


def test_serialisation_is_byte_identical_whatever_the_input_key_order():
    reordered = json.loads(json.dumps(SAMPLE))
    reordered["definitions"] = dict(reversed(list(reordered["definitions"].items())))
    assert normalise.dump(_normalised()) == normalise.dump(_normalised(reordered))
    assert normalise.dump(_normalised()).endswith("}\n")


# -- tsgen helpers (pure parts) -----------------------------------------------------------------------------------

def test_exported_type_names_reads_export_lists_and_declarations():
    text = ("export { WIRE_PROTOCOL_VERSION, type WireProtocolVersion } from './version.js';\n"
            "export type { SDKMessage, SDKUserMessage as User, } from './messages.js';\n"
            "export type Local = { a: string };\nexport interface Iface { b: number }\n")
    assert tsgen.exported_type_names(text) == ["Iface", "Local", "SDKMessage", "User"]


def test_tsconfig_maps_the_mcp_import_to_a_stand_in_without_base_url():
    config = tsgen.tsconfig("package/dist/protocol/index.d.ts", PROFILE["stand_ins"])
    assert "baseUrl" not in config["compilerOptions"]  # TypeScript 6 rejects it
    paths = config["compilerOptions"]["paths"]["@modelcontextprotocol/sdk/types.js"]
    assert paths[0].startswith("./stand-ins/") and paths[0].endswith(".d.ts")
    assert "JSONRPCMessage" in PROFILE["stand_ins"]["@modelcontextprotocol/sdk/types.js"]


def test_wire_protocol_version_from_the_minified_module_the_seed_shows():
    seed_line = ('var r="1.2.0";function i(e){return typeof e=="object"}var l={Main:"main"};'
                 'export{l as QoderModelPurpose,r as WIRE_PROTOCOL_VERSION,n as buildQoderCliFlagSettings};')
    assert tsgen.wire_protocol_version(seed_line) == "1.2.0"
    assert tsgen.wire_protocol_version("export{}") is None


# -- kinds from the unions ------------------------------------------------------------------------------------------

def _built():
    protocol = catalog.add_alternate_discriminators(_normalised(), PROFILE["request_union"], "sdk-senders")
    kinds, wire = catalog.build(protocol, PROFILE, package="qoder-agent-sdk", version="9.9.9")
    return protocol, {k["id"]: k for k in kinds}, wire


def test_every_union_member_is_a_kind_selected_by_its_const_fields():
    _, kinds, _ = _built()
    assert kinds["prompt_suggestion"]["selector"] == {"fields": {"/type": "prompt_suggestion"}}
    assert kinds["result.error"]["selector"]["fields"]["/subtype"] == [
        "error_during_execution", "error_max_turns", "error_max_budget_usd"]


def test_control_requests_are_selected_by_type_or_subtype_and_sent_by_the_right_side():
    _, kinds, _ = _built()
    usage = kinds["control_request.get_context_usage"]
    assert usage["selector"] == {"any": [
        {"/type": "control_request", "/request/type": "get_context_usage"},
        {"/type": "control_request", "/request/subtype": "get_context_usage"}]}
    assert usage["producer"] == "sdk" and kinds["control_request.can_use_tool"]["producer"] == "cli"
    assert kinds["control_request.hook_callback"]["producer"] == "cli"


def test_typed_responses_become_reply_schemas_checked_at_the_response_payload():
    _, kinds, _ = _built()
    assert kinds["control_request.get_context_usage"]["reply"] == {
        "at": "/response/response", "schema": "protocol.json#/$defs/SDKControlGetContextUsageResponse"}
    assert "reply" not in kinds["control_request.hook_callback"]  # no typed response


def test_responses_exist_for_both_directions_and_correlate_by_request_id():
    _, kinds, _ = _built()
    for kid in ("control_response.success", "sdk.control_response.success", "control_response.error"):
        assert kinds[kid]["correlate"] == {"request": "/request_id", "response": "/response/request_id"}
        assert kinds[kid]["answers"] == "control_request.*"
    assert kinds["sdk.control_response.success"]["producer"] == "sdk"


def test_union_request_members_share_one_kind_and_one_wrapper():
    _, _, wire = _built()
    hook = wire["$defs"]["control_request.hook_callback"]["properties"]["request"]
    assert [b["$ref"] for b in hook["anyOf"]] == [
        "protocol.json#/$defs/SDKHookCallbackRequest/anyOf/0", "protocol.json#/$defs/SDKHookCallbackRequest/anyOf/1"]


def test_either_discriminator_is_accepted_and_one_is_needed():
    protocol, _, _ = _built()
    usage = protocol["$defs"]["SDKControlGetContextUsageRequest"]
    assert usage["properties"]["subtype"]["const"] == "get_context_usage"
    assert usage["anyOf"] == [{"required": ["type"]}, {"required": ["subtype"]}]
    validator = jsonschema.Draft202012Validator(usage)
    assert validator.is_valid({"subtype": "get_context_usage"})
    assert validator.is_valid({"type": "get_context_usage", "subtype": "get_context_usage"})
    assert not validator.is_valid({})
    assert not validator.is_valid({"type": "get_context_usage", "subtype": "interrupt"})


# -- the assembled folder -------------------------------------------------------------------------------------------

def _files():
    data = ImportInput("9.9.9", SAMPLE, {"version": 1, "sdkVersion": "9.9.9",
                                         "workerRuntime": {"urlTemplate": "https://x/r-{target}.tgz"}},
                       "1.2.0", "npm sample")
    return assemble(PROFILE, data)


def test_assembled_release_loads_and_its_catalog_is_valid(tmp_path):
    files = _files()
    catalog_data = yaml.safe_load(files["catalog.yaml"])
    jsonschema.validate(catalog_data, own_schema("catalog.schema.json"))
    folder = tmp_path / "qoder-agent-sdk" / "9.9.9"
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    (tmp_path / "registry.yaml").write_text(yaml.safe_dump(
        {"packages": {"qoder-agent-sdk": {"title": "t", "releases": ["9.9.9"]}}}))
    release = load_registry(tmp_path).load("qoder-agent-sdk@9.9.9")
    assert release.wire_version == "1.2.0"
    assert release.kind("runtime_manifest").path_glob == "*runtime-manifest.json"
    # the sample has no system/init, so the handshake rules are left out; the turn rules stay
    assert [r.id for r in release.rules] == ["QODER_RESULT_ENDS_TURN", "QODER_TURN_UNFINISHED"]
    assert dict(release.rules[0].params)["results"] == ["result.error"]


def test_assembly_is_reproducible_byte_for_byte():
    assert _files() == _files()


def test_manifest_schema_pins_the_release_versions_and_the_target_placeholder():
    schema = schema_from_instance({"sdkVersion": "1.0.23", "workerRuntime": {"urlTemplate": "https://x/{target}"}},
                                  {"sdkVersion": "1.0.23"})
    assert schema["properties"]["sdkVersion"] == {"const": "1.0.23", "x-wirecheck-version-stamp": True}
    assert schema["properties"]["workerRuntime"]["properties"]["urlTemplate"]["pattern"] == r"\{target\}"
    assert schema["additionalProperties"] is False and schema["required"] == ["sdkVersion", "workerRuntime"]


def test_examples_of_every_kind_schema_validate():
    protocol, kinds, wire = _built()
    resources = {ID: protocol, ID.replace("protocol.json", "wire.json"): _with_id(wire, ID)}
    resolver = Resolver(resources)
    for kind in kinds.values():
        file, _, fragment = kind["schema"].partition("#")
        base = ID.replace("protocol.json", file)
        value = example({"$ref": "#" + fragment}, resolver, base)
        validator = jsonschema.Draft202012Validator(
            {"$ref": base + "#" + fragment}, registry=_registry(resources))
        assert validator.is_valid(value), (kind["id"], value)


def _with_id(wire, protocol_id):
    return {**wire, "$id": protocol_id.replace("protocol.json", "wire.json")}


def _registry(resources):
    from wirecheck.contracts.reference import build_registry
    return build_registry(resources)


# -- the recorder's pure parts --------------------------------------------------------------------------------------

def test_recorder_script_is_what_the_python_sdk_sends():
    init, usage, unknown = (m["request"] for m in record_qodercli.SCRIPT)
    assert init["type"] == init["subtype"] == "initialize"
    assert usage == {"subtype": "get_context_usage"}
    assert unknown["subtype"] not in {"initialize", "get_context_usage"}
    assert len({m["request_id"] for m in record_qodercli.SCRIPT}) == 3


def test_recorder_frames_both_directions():
    text = record_qodercli.framed(record_qodercli.SCRIPT[:1], b'{"type":"keep_alive"}\n\n')
    lines = [json.loads(line) for line in text.splitlines()]
    assert lines[0] == {"wirecheck_capture": 1, "framing": "directed"}
    assert [line["from"] for line in lines[1:]] == ["sdk", "cli"]
    assert record_qodercli.stdin_bytes(record_qodercli.SCRIPT).count(b"\n") == 3


# -- the command ------------------------------------------------------------------------------------------------------

def test_import_command_refuses_an_unknown_package_with_exit_2():
    result = CliRunner().invoke(app, ["import", "npm", "nosuch@1.0.0"])
    assert result.exit_code == 2
    assert "no import profile for 'nosuch'" in result.output


def test_import_command_refuses_a_spec_without_version():
    assert CliRunner().invoke(app, ["import", "npm", "qoder-agent-sdk"]).exit_code == 2


@pytest.mark.network
def test_reimporting_1_0_39_reproduces_the_committed_contract_byte_for_byte(tmp_path):
    """Needs Node, npm and the npm registry; `nox -s import-release` runs the same check."""
    from wirecheck.importer.release import import_npm

    _, files = import_npm("qoder-agent-sdk@1.0.39", out=tmp_path / "1.0.39")
    committed = ROOT / "contracts" / "qoder-agent-sdk" / "1.0.39"
    # every schema in the folder comes from the import (other tools may keep their own files next to them)
    assert {f.name for f in files if f.suffix == ".json"} == {p.name for p in committed.glob("*.json")}
    for path in files:
        assert path.read_bytes() == (committed / path.name).read_bytes(), path.name


def test_committed_imported_releases_say_where_they_came_from():
    for version in ("1.0.13", "1.0.34", "1.0.39"):
        record = yaml.safe_load((ROOT / "contracts/qoder-agent-sdk" / version / "import.yaml").read_text())
        assert record["imported"] == f"@qoder-ai/qoder-agent-sdk@{version}"
        assert record["integrity"].startswith("sha512-")
        assert record["generator"].startswith("ts-json-schema-generator@")
        protocol = orjson.loads((ROOT / "contracts/qoder-agent-sdk" / version / "protocol.json").read_bytes())
        assert normalise.dump(protocol) == (ROOT / "contracts/qoder-agent-sdk" / version / "protocol.json").read_text()
    assert copy.deepcopy(SAMPLE) == SAMPLE


# -- the whole pipeline offline: npm pack and the generator replaced by the committed sample ---------------------------

@pytest.fixture
def offline_pipeline(monkeypatch, tmp_path):
    """`import_npm` with `npm pack` and the generator stubbed: a tarball folder with a manifest and a version
    module, and the sample as the generator's output."""
    from wirecheck.importer import npm

    def fake_pack(spec, dest):
        root = dest / "unpacked"
        dist = root / "package" / "dist"
        (dist / "protocol").mkdir(parents=True)
        (dist / "protocol" / "index.d.ts").write_text("export type { SDKMessage } from './messages.js';\n")
        (dist / "protocol" / "index.js").write_text('var r="1.4.0";export{r as WIRE_PROTOCOL_VERSION};')
        (dist / "runtime-manifest.json").write_text(json.dumps({"version": 1, "sdkVersion": "9.9.9"}))
        return npm.PackedRelease("@qoder-ai/qoder-agent-sdk", "9.9.9", dest / "x.tgz", "sha512-AAAA", "abc", root)

    monkeypatch.setattr(npm, "pack", fake_pack)
    monkeypatch.setattr(tsgen, "generate", lambda *args, **kwargs: copy.deepcopy(SAMPLE))
    return tmp_path


def test_import_writes_a_draft_folder_with_provenance(offline_pipeline):
    result = CliRunner().invoke(app, ["import", "npm", "@qoder-ai/qoder-agent-sdk@9.9.9",
                                      "--out", str(offline_pipeline / "out")])
    assert result.exit_code == 0, result.output
    out = offline_pipeline / "out"
    assert sorted(p.name for p in out.iterdir()) == [
        "catalog.yaml", "import.yaml", "protocol.json", "runtime-manifest.schema.json", "wire.json"]
    record = yaml.safe_load((out / "import.yaml").read_text())
    assert record["imported"] == "@qoder-ai/qoder-agent-sdk@9.9.9" and record["integrity"] == "sha512-AAAA"
    assert record["wire_protocol_version"] == "1.4.0"
    catalog_data = yaml.safe_load((out / "catalog.yaml").read_text())
    assert catalog_data["wire_version"] == "1.4.0"
    assert "sha512-AAAA" in catalog_data["sources"]["release"]["ref"]


def test_import_check_passes_on_a_reproduced_folder_and_fails_on_a_changed_one(offline_pipeline):
    out = str(offline_pipeline / "out")
    assert CliRunner().invoke(app, ["import", "npm", "qoder-agent-sdk@9.9.9", "--out", out]).exit_code == 0
    same = CliRunner().invoke(app, ["import", "npm", "qoder-agent-sdk@9.9.9", "--out", out, "--check"])
    assert same.exit_code == 0 and "identical" in same.output
    (offline_pipeline / "out" / "wire.json").write_text("{}\n")
    (offline_pipeline / "out" / "extra.json").write_text("{}\n")
    changed = CliRunner().invoke(app, ["import", "npm", "qoder-agent-sdk@9.9.9", "--out", out, "--check"])
    assert changed.exit_code == 1
    assert "differs:" in changed.output and "wire.json" in changed.output
    assert "schema not produced by the import:" in changed.output and "extra.json" in changed.output


def test_import_reports_a_failing_npm_as_a_usage_error(monkeypatch, tmp_path):
    from wirecheck.importer import npm

    def broken(spec, dest):
        raise RuntimeError("npm pack @qoder-ai/qoder-agent-sdk@0.0.0 failed: E404")

    monkeypatch.setattr(npm, "pack", broken)
    result = CliRunner().invoke(app, ["import", "npm", "qoder-agent-sdk@0.0.0", "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and "E404" in result.output
