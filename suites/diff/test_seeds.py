"""The seed findings (issue 6) on the bundled contracts. Each test skips, naming what is missing, only while a
release is absent from contracts/registry.yaml; once the contract lands the test runs (and must pass).

Kinds are found by what the seed says changed (ids, paths, selectors), so a contract author's naming choices
do not matter as long as the change is there.
"""

from __future__ import annotations

import re
from functools import cache

import pytest

from wirecheck.contracts import load_registry
from wirecheck.diff import DiffResult, diff_releases


@cache
def _diff(package: str, old: str, new: str) -> DiffResult:
    return diff_releases(load_registry().load(f"{package}@{old}"), load_registry().load(f"{package}@{new}"))


def pair(package: str, old: str, new: str) -> DiffResult:
    registry = load_registry()
    info = next((p for p in registry.packages.values() if package in (p.name, p.npm)), None)
    if info is None:
        pytest.skip(f"{package} is not in contracts/registry.yaml yet (its contract is being written)")
    for version in (old, new):
        if version not in info.releases:
            pytest.skip(f"{info.name}@{version} is not in contracts/registry.yaml yet")
    return _diff(info.name, old, new)


def find(result: DiffResult, rule: str | None = None, kind: str = ".*", path: str = ".*", surface: str | None = None):
    return [f for f in result.findings
            if (rule is None or f.rule == rule) and re.search(kind, f.kind) and re.search(path, f.path)
            and (surface is None or f.surface == surface)]


def witnessed(finding, direction: str) -> bool:
    return any(w.direction == direction for w in finding.witnesses)


# --- Qoder Agent SDK 1.0.21 → 1.0.23 ------------------------------------------------------------------------
QODER = ("@qoder-ai/qoder-agent-sdk", "1.0.21", "1.0.23")


def test_qoder_context_usage_response_reshaped_breaks_both_ways() -> None:
    result = pair(*QODER)
    found = find(result, kind="context_usage")
    assert found, "no finding on the get_context_usage response"
    assert any(f.breaks("forward", "tolerant") and witnessed(f, "forward") for f in found)
    assert any(f.breaks("backward", "tolerant") and witnessed(f, "backward") for f in found)


def test_qoder_model_policy_task_id_breaks_only_closed_old_readers() -> None:
    result = pair(*QODER)
    for name in ("task_id", "sub_task"):
        [finding] = find(result, kind="model_policy", path=f"/{name}$") or [None]
        assert finding is not None, f"no finding for {name}"
        assert finding.breaks("forward", "strict") and witnessed(finding, "forward")
        assert not finding.breaks("forward", "tolerant") and not finding.breaks("backward")


@pytest.mark.parametrize("field", ["isApiErrorMessage", "tool_result_meta"])
def test_qoder_additive_fields_break_no_tolerant_reader(field: str) -> None:
    result = pair(*QODER)
    found = find(result, path=f"/{field}$")
    assert found, f"no finding for {field}"
    assert not any(f.breaks(view="tolerant") for f in found)


def test_qoder_tool_output_schemas_gain_a_member() -> None:
    result = pair(*QODER)
    found = [f for f in result.findings if f.rule in ("UNION_BRANCH_ADDED", "MESSAGE_KIND_ADDED", "ENUM_VALUE_ADDED")
             and re.search(r"(?i)background|tool_use_result|tool.?output", f.kind + f.path + f.message)]
    assert found, "no added member for ToolOutputSchemas (BashToolBackgroundLaunchResult)"


def test_qoder_runtime_manifest_url_becomes_url_template() -> None:
    result = pair(*QODER)
    assert find(result, kind="manifest", path="/url$"), "url removal not reported"
    added = find(result, kind="manifest", path="/urlTemplate$")
    assert added and any(f.breaks("backward") or f.breaks("forward") for f in added)
    assert any(dict(f.params).get("old") == "url" for f in find(result, "PROPERTY_RENAMED", kind="manifest"))


def test_qoder_patch_bump_and_unchanged_wire_version() -> None:
    result = pair(*QODER)
    assert find(result, "SEMVER_BUMP_TOO_SMALL")
    assert find(result, "WIRE_VERSION_NOT_BUMPED")


# --- Navarch runtime 0.1.51 → 0.1.53 ------------------------------------------------------------------------
NAVARCH = ("navarch-runtime", "0.1.51", "0.1.53")


def test_navarch_agent_type_enum_widened_breaks_closed_enum_readers() -> None:
    result = pair(*NAVARCH)
    found = [f for f in find(result, "ENUM_VALUE_ADDED", path="agent_type|NAVARCH_AGENT")
             if dict(f.params).get("value") == "qoder" or "qoder" in f.message]
    assert found
    machine = [f for f in found if "machine" in f.kind]
    assert machine, "machine.json agent_type not reported"
    assert machine[0].breaks("forward", "tolerant") and witnessed(machine[0], "forward")
    assert not machine[0].breaks("backward")


def test_navarch_opencode_config_reshaped() -> None:
    result = pair(*NAVARCH)
    found = find(result, kind="opencode-config|opencode.config")
    assert any(f.breaks("forward", "tolerant") and witnessed(f, "forward") for f in found)
    assert any(f.breaks("backward", "tolerant") and witnessed(f, "backward") for f in found)


def test_navarch_opencode_argv_changed() -> None:
    result = pair(*NAVARCH)
    found = find(result, kind=r"argv\.opencode")
    assert found and any(f.severity.value == "error" for f in found)


def test_navarch_qoder_argv_added() -> None:
    result = pair(*NAVARCH)
    assert find(result, "MESSAGE_KIND_ADDED", kind=r"argv\.qoder")


def test_navarch_exit_report_capacity_branch() -> None:
    result = pair(*NAVARCH)
    found = find(result, kind="complete")
    assert found and any(f.witnesses and "capacity" in str(f.witnesses[0].payload) for f in found)


def test_navarch_env_table_additions() -> None:
    result = pair(*NAVARCH)
    names = {f.path for f in find(result, kind="env")}
    assert {"/NAVARCH_QODER_BIN", "/NAVARCH_QODER_EXTRA_ARGS"} <= names


def test_navarch_remediable_codes_widened() -> None:
    result = pair(*NAVARCH)
    found = [f for f in result.findings if "review_fix_required" in f.message]
    assert found and found[0].severity.value in ("warning", "error")


# --- xopc 0.0.251 → 0.0.253 ---------------------------------------------------------------------------------
XOPC = ("xopc", "0.0.251", "0.0.253")


def test_xopc_platform_runtime_api_added() -> None:
    result = pair(*XOPC)
    added = " ".join(f.message for f in find(result, "MESSAGE_KIND_ADDED"))
    for route in ("/.well-known/xopc-platform", "/lease", "/events", "/heartbeat", "/renew"):
        assert route in added, route


def test_xopc_side_chat_view_thinking_level_required_and_clarification_kind() -> None:
    result = pair(*XOPC)
    thinking = find(result, path="/config/thinkingLevel$")
    assert thinking and all(f.breaks("backward", "tolerant") and witnessed(f, "backward") for f in thinking)
    kind = find(result, path="/clarification/kind$")
    assert kind and any(f.breaks("backward", "tolerant") for f in kind)


def test_xopc_inputs_gain_attachments() -> None:
    result = pair(*XOPC)
    assert find(result, kind="inputs", path="/attachments")


def test_xopc_user_message_reshaped() -> None:
    result = pair(*XOPC)
    found = find(result, kind="user_message")
    assert any(f.breaks("forward", "tolerant") and witnessed(f, "forward") for f in found)
    assert any(f.breaks("backward", "tolerant") and witnessed(f, "backward") for f in found)


def test_xopc_clarify_route_replaced_by_two_routes() -> None:
    result = pair(*XOPC)
    removed = " ".join(f.message for f in find(result, "MESSAGE_KIND_REMOVED"))
    added = " ".join(f.message for f in find(result, "MESSAGE_KIND_ADDED"))
    assert "/api/clarify/{" in removed
    assert "GET /api/sessions/{key}/clarification" in added or "/clarification" in added
    assert "/api/clarifications/{" in added
