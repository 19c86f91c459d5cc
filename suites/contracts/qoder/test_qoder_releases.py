"""The Qoder releases as data: the seed's changes present exactly in 1.0.21 → 1.0.23, inferred fields optional and
marked, the reconstruction and the generated fixtures reproducible offline from what is committed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

from wirecheck.contracts import load_registry
from wirecheck.importer import fixtures as fixture_writer
from wirecheck.importer.reconstruct import build_release

ROOT = Path(__file__).resolve().parents[3]
CONTRACTS = ROOT / "contracts"
REGISTRY = load_registry(CONTRACTS)
VERSIONS = ["1.0.13", "1.0.21", "1.0.23", "1.0.34", "1.0.39"]


def _defs(version: str, file: str = "protocol.json") -> dict[str, Any]:
    return orjson.loads((CONTRACTS / "qoder-agent-sdk" / version / file).read_bytes())["$defs"]


def _plain(schema: Any) -> Any:
    """A schema without annotations, to compare shapes across releases."""
    if isinstance(schema, dict):
        return {k: _plain(v) for k, v in schema.items()
                if k not in {"x-provenance", "description", "deprecated", "x-deprecated"}}
    if isinstance(schema, list):
        return [_plain(v) for v in schema]
    return schema


def test_registry_lists_the_five_releases_in_order():
    assert REGISTRY.package("@qoder-ai/qoder-agent-sdk").releases == tuple(VERSIONS)


@pytest.mark.parametrize(("version", "wire"), [("1.0.13", "1.0.0"), ("1.0.21", "1.2.0"), ("1.0.23", "1.2.0"),
                                               ("1.0.34", "1.4.0"), ("1.0.39", "1.4.0")])
def test_wire_version_per_release(version, wire):
    assert REGISTRY.load(f"qoder-agent-sdk@{version}").wire_version == wire


def test_get_context_usage_response_old_shape_in_1_0_21_new_shape_in_1_0_23():
    name = "SDKControlGetContextUsageResponse"
    assert _plain(_defs("1.0.21")[name]) == _plain(_defs("1.0.13")[name])
    assert _plain(_defs("1.0.23")[name]) == _plain(_defs("1.0.34")[name])
    old, new = _defs("1.0.21")[name], _defs("1.0.23")[name]
    assert {"totalTokens", "gridRows", "apiUsage"} <= set(old["required"])
    assert new["required"] == ["model", "contextWindow", "categories", "autoCompact", "skills",
                               "duplicateFileReads", "session"]
    assert new["properties"]["categories"]["items"]["properties"]["type"]["enum"] == [
        "system_prompt", "system_tools", "skills", "messages", "other", "free_space", "auto_compact"]


def test_get_model_policy_task_id_and_sub_task_come_with_the_seed():
    before, after = (_defs(v)["SDKControlGetModelPolicyResponse"]["properties"] for v in ("1.0.21", "1.0.23"))
    assert "task_id" not in before and "sub_task" not in before
    for field in ("task_id", "sub_task"):
        assert after[field]["type"] == "string" and after[field]["x-provenance"]["source"] == "seed"
    assert "task_id" not in _defs("1.0.23")["SDKControlGetModelPolicyResponse"].get("required", [])


def test_is_api_error_message_and_tool_result_meta_come_with_the_seed():
    assert "isApiErrorMessage" not in _defs("1.0.21")["SDKAssistantMessage"]["properties"]
    marker = _defs("1.0.23")["SDKAssistantMessage"]["properties"]["isApiErrorMessage"]
    assert marker["const"] is True
    assert "SDKToolResultMeta" not in _defs("1.0.21") and "SDKToolResultMeta" in _defs("1.0.23")
    assert _defs("1.0.23")["SDKToolNonExecutionKind"]["enum"] == [
        "user-rejected", "permission-rule", "automode-blocked", "automode-unavailable", "automode-parsing-error",
        "interrupted", "cancelled"]
    for name in ("SDKUserMessage", "SDKUserMessageReplay"):
        assert "tool_result_meta" not in _defs("1.0.21")[name]["properties"]
        meta = _defs("1.0.23")[name]["properties"]["tool_result_meta"]
        assert meta["items"] == {"$ref": "#/$defs/SDKToolResultMeta"}


def test_user_messages_have_exactly_the_fields_the_seed_hunks_show():
    assert set(_defs("1.0.23")["SDKUserMessage"]["properties"]) == {
        "type", "message", "parent_tool_use_id", "file_attachments", "isSynthetic", "tool_use_result",
        "tool_result_meta", "priority", "shouldQuery", "timestamp", "uuid", "session_id"}
    assert _defs("1.0.23")["SDKUserMessage"]["required"] == ["type", "message", "parent_tool_use_id"]
    assert _defs("1.0.23")["SDKUserMessageReplay"]["required"] == [
        "type", "message", "parent_tool_use_id", "uuid", "session_id", "isReplay"]


def test_bash_background_launch_result_and_session_message_fields():
    types = _defs("1.0.23", "types.json")
    bash = types["BashToolBackgroundLaunchResult"]
    assert bash["required"] == ["kind", "pid", "taskId", "command", "initialOutput"]
    assert bash["properties"]["backgroundReason"]["enum"] == ["user", "model", "timeout", "auto"]
    assert "BashToolBackgroundLaunchResult" not in _defs("1.0.21", "types.json")
    assert "isApiErrorMessage" in types["SessionMessage"]["properties"]
    assert "tool_result_meta" in types["SessionMessage"]["properties"]
    old = _defs("1.0.21", "types.json")["SessionMessage"]["properties"]
    assert "isApiErrorMessage" not in old and "tool_result_meta" not in old and "parent_agent_id" in old


def test_runtime_manifest_url_becomes_url_template():
    def worker(version):
        schema = orjson.loads((CONTRACTS / "qoder-agent-sdk" / version / "runtime-manifest.schema.json").read_bytes())
        return schema["properties"]["workerRuntime"]
    assert {"url", "artifactName"} <= set(worker("1.0.21")["required"])
    assert {"urlTemplate", "artifactNameTemplate"} <= set(worker("1.0.23")["required"])
    assert "url" not in worker("1.0.23")["properties"]
    assert worker("1.0.23")["properties"]["qoderCliVersion"] == {"const": "1.1.23", "x-wirecheck-version-stamp": True}


def test_sdk_messages_of_1_0_23_are_the_seed_export_list():
    kinds = {k.id for k in REGISTRY.load("qoder-agent-sdk@1.0.23").kinds}
    assert {"system.init", "system.task_updated", "system.permission_denied", "cloud_agent_event"} <= kinds
    assert not {"command_lifecycle", "system.goal_updated", "system.local_command_output"} & kinds


def _walk(schema: Any, pointer: str = ""):
    if isinstance(schema, dict):
        yield pointer, schema
        for key, value in schema.items():
            yield from _walk(value, f"{pointer}/{key}")
    elif isinstance(schema, list):
        for index, value in enumerate(schema):
            yield from _walk(value, f"{pointer}/{index}")


@pytest.mark.parametrize("version", ["1.0.21", "1.0.23"])
def test_every_inferred_field_is_optional_and_cites_a_declared_source(version):
    release = REGISTRY.load(f"qoder-agent-sdk@{version}")
    # `merged` (also of type inferred) marks a shape taken as the union of both neighbours, not a presence
    inferred_ids = {s.id for s in release.sources.values() if s.type == "inferred" and s.id != "merged"}
    checked = 0
    for uri, resource in release.resources.items():
        for pointer, schema in _walk(resource):
            props = schema.get("properties")
            if not isinstance(props, dict):
                continue
            for name, prop in props.items():
                provenance = prop.get("x-provenance") if isinstance(prop, dict) else None
                if not provenance:
                    continue
                sources = provenance["source"] if isinstance(provenance["source"], list) else [provenance["source"]]
                assert set(sources) <= set(release.sources), (uri, pointer, name)
                if set(sources) & inferred_ids:
                    checked += 1
                    assert name not in schema.get("required", []), f"{uri}#{pointer}/properties/{name}"
    assert checked > 50


@pytest.mark.parametrize("version", ["1.0.21", "1.0.23"])
def test_reconstruction_is_reproduced_byte_for_byte_from_the_committed_neighbours(version):
    files = build_release(CONTRACTS, "qoder-agent-sdk", version)
    folder = CONTRACTS / "qoder-agent-sdk" / version
    for name, text in files.items():
        assert (folder / name).read_text(encoding="utf-8") == text, name


@pytest.mark.parametrize("version", VERSIONS)
def test_generated_fixtures_are_current(version):
    files, cases, problems = fixture_writer.generate(REGISTRY.load(f"qoder-agent-sdk@{version}"))
    assert problems == []
    folder = ROOT / "fixtures" / "qoder-agent-sdk" / version
    for rel, text in files.items():
        assert (folder / fixture_writer.GENERATED / rel).read_text(encoding="utf-8") == text, rel
    committed = yaml.safe_load((folder / "expectations.yaml").read_text())["cases"]
    assert [c for c in committed if c["capture"].startswith(fixture_writer.GENERATED + "/")] == cases
