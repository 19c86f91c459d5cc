"""Version stamps (contracts/stamps.py): a const marked x-wirecheck-version-stamp is compared by its type, so a new
release naming itself is VERSION_STAMP_CHANGED (info), never a break; validation still asks for the value."""

from __future__ import annotations

from wirecheck.contracts import load_registry
from wirecheck.contracts.stamps import STAMP_VALUE, generalised
from wirecheck.diff import diff_releases, diff_schemas
from wirecheck.diff.run import DiffRun
from wirecheck.findings import Severity

DIALECT = "https://json-schema.org/draft/2020-12/schema"


def _manifest(version: str, stamped: bool = True) -> dict:
    stamp = {"const": version, **({"x-wirecheck-version-stamp": True} if stamped else {})}
    return {"$schema": DIALECT, "type": "object", "additionalProperties": False, "required": ["sdkVersion"],
            "properties": {"sdkVersion": stamp, "const": {"properties": {"sdkVersion": stamp}}}}


def test_a_changed_stamp_is_info_and_passes_the_gate() -> None:
    result = diff_schemas(_manifest("1.0.21"), _manifest("1.0.23"))
    assert sorted((f.rule, f.path) for f in result.findings) == [
        ("VERSION_STAMP_CHANGED", "/const/sdkVersion"), ("VERSION_STAMP_CHANGED", "/sdkVersion")]
    assert all(f.severity == Severity.INFO and not f.verdicts and not f.witnesses for f in result.findings)
    assert DiffRun((result,)).exit_code() == 0 and DiffRun((result,), fail_on="warning").exit_code() == 0


def test_an_unmarked_const_that_changes_still_breaks() -> None:
    result = diff_schemas(_manifest("1.0.21", stamped=False), _manifest("1.0.23", stamped=False))
    assert {f.rule for f in result.findings} == {"CONST_CHANGED"}
    assert DiffRun((result,)).exit_code() == 1


def test_generalised_keeps_the_value_and_the_type_and_leaves_stampless_schemas_alone() -> None:
    schema = _manifest("1.0.23")
    assert generalised({"type": "string"}) == {"type": "string"}
    out = generalised(schema)
    assert out["properties"]["sdkVersion"] == {"type": "string", "x-wirecheck-version-stamp": True,
                                               STAMP_VALUE: "1.0.23"}
    assert out["properties"]["const"]["properties"]["sdkVersion"][STAMP_VALUE] == "1.0.23"  # a property named const
    assert schema["properties"]["sdkVersion"]["const"] == "1.0.23"  # the contract itself is not touched


def test_bundled_runtime_manifests_name_their_release_as_info() -> None:
    """qoder-agent-sdk's runtime manifest pins sdkVersion and qoderCliVersion (importer profile manifest_consts):
    1.0.21 → 1.0.23 changes both stamps and reports them as info, with no CONST_CHANGED."""
    registry = load_registry()
    result = diff_releases(registry.load("qoder-agent-sdk@1.0.21"), registry.load("qoder-agent-sdk@1.0.23"))
    manifest = [f for f in result.findings if f.kind == "runtime_manifest"]
    stamps = {f.path for f in manifest if f.rule == "VERSION_STAMP_CHANGED"}
    assert stamps == {"/sdkVersion", "/qoderCliVersion", "/workerRuntime/sdkVersion", "/workerRuntime/qoderCliVersion"}
    assert not [f for f in manifest if f.rule == "CONST_CHANGED"]
    assert all(f.severity == Severity.INFO for f in manifest if f.rule == "VERSION_STAMP_CHANGED")
