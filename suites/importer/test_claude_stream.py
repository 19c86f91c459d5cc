"""The import of Claude Code's stream-json types from the Agent SDK's SDKMessage union (importer/claude_stream.py):
the committed catalog's kinds are what the module derives from the committed messages.json, and the Anthropic API's
`T | null` members are optional there, each saying so. No Node: the generator's run is not repeated."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from wirecheck.importer.claude_stream import API_NULLS, kinds, nulls_may_be_absent

RELEASE = Path(__file__).resolve().parents[2] / "contracts" / "claude-code-stream" / "2.1.332"


def test_the_catalog_kinds_are_the_union_members_of_messages_json():
    messages = json.loads((RELEASE / "messages.json").read_text(encoding="utf-8"))
    catalog = yaml.safe_load((RELEASE / "catalog.yaml").read_text(encoding="utf-8"))
    derived = kinds(messages, sdk="@anthropic-ai/claude-agent-sdk@0.3.332")
    assert catalog["kinds"] == derived
    by_id = {k["id"]: k for k in derived}
    assert len(by_id) == len(derived) == 41
    assert by_id["result.success"]["schema"] == "result.json#/$defs/Success"
    assert by_id["result.error"]["schema"] == "result.json#/$defs/Error"
    assert by_id["user.replay"]["selector"] == {"fields": {"/type": "user", "/isReplay": True}}
    assert by_id["system.init"]["selector"] == {"fields": {"/type": "system", "/subtype": "init"}}


def test_an_api_objects_null_members_may_be_absent_and_say_so():
    schema = {"type": "object", "required": ["id", "container", "citations"],
              "properties": {"id": {"type": "string"},
                             "container": {"anyOf": [{"$ref": "#/$defs/BetaContainer"}, {"type": "null"}]},
                             "citations": {"type": ["array", "null"]}}}
    nulls_may_be_absent(schema)
    assert schema["required"] == ["id"]
    assert schema["properties"]["container"]["x-provenance"]["source"] == API_NULLS
    assert "x-provenance" not in schema["properties"]["id"]
    only_nulls = {"required": ["a"], "properties": {"a": {"type": "null"}}}
    nulls_may_be_absent(only_nulls)
    assert "required" not in only_nulls


def test_the_committed_message_schema_requires_no_null_member_of_an_api_object():
    """BetaMessage's `container` and `stop_details`, BetaTextBlock's `citations`: the real CLI relays what the API
    sent, which leaves them out (fixtures/live/claude-code@2.1.332/claude-stream-tool.framed.ndjson)."""
    defs = json.loads((RELEASE / "messages.json").read_text(encoding="utf-8"))["$defs"]
    assert "container" not in defs["BetaMessage"]["required"]
    assert "citations" not in defs["BetaTextBlock"].get("required", [])
    assert {"id", "content", "model", "role", "type", "usage"} <= set(defs["BetaMessage"]["required"])


def test_a_file_that_is_not_the_generators_output_is_refused_with_its_name(tmp_path, capsys):
    from wirecheck.importer.claude_stream import main

    cases = (("{not json", "not the generator's JSON output"), ('{"definitions": {}}', "no SDKMessage union"))
    for text, said in cases:
        generated = tmp_path / "generated.json"
        generated.write_text(text)
        with pytest.raises(SystemExit) as exited:
            main([str(generated), str(tmp_path / "out"), "--sdk", "x", "--cli", "1"])
        assert exited.value.code == 2
        assert f"{generated}: {said}" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
