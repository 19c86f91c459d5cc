"""The message types of Claude Code's stream-json output, from the Agent SDK's `SDKMessage` union (optional tooling).

    npm install --prefix SCRATCH @anthropic-ai/claude-agent-sdk@0.3.332      # its peers: @anthropic-ai/sdk, MCP SDK
    npx ts-json-schema-generator@2.10.0 --path SCRATCH/node_modules/@anthropic-ai/claude-agent-sdk/sdk.d.ts \
        --tsconfig TSCONFIG --type SDKMessage --out generated.json                # TSCONFIG: strict, skipLibCheck
    python -m wirecheck.importer.claude_stream generated.json contracts/claude-code-stream/2.1.332 \
        --sdk @anthropic-ai/claude-agent-sdk@0.3.332 --cli 2.1.332

writes `messages.json` (every type reachable from `SDKMessage`, normalised as the Qoder import normalises its fork's
types: importer/normalise.py) and prints the catalog's `kinds:` (one per union member, selected by its required
`type`/`subtype`/`isReplay` constants: importer/catalog.py). The two result members are checked against the
print-mode contract's `result.json` (the same object: the last line of stream-json is what `--output-format json`
prints), so they are listed with that schema, not the SDK's. The generator needs the SDK's peer dependencies
installed beside it (`BetaMessage` and friends come from `@anthropic-ai/sdk`); unlike the Qoder import, nothing is
stood in. Pure but for the two files; the committed contract needs neither Node nor this module.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from wirecheck.importer.catalog import _id_from, discriminator_values, union_members
from wirecheck.importer.normalise import dump, normalise

PACKAGE = "claude-code-stream"
UNION = "SDKMessage"
# Kind ids the discriminators cannot give (an enum subtype), and the members checked against the print contract's
# result object instead of the SDK's type
KIND_IDS = {"SDKResultError": "result.error"}
RESULT_SCHEMAS = {"SDKResultSuccess": "result.json#/$defs/Success", "SDKResultError": "result.json#/$defs/Error"}


# The Anthropic API's own objects (BetaMessage, BetaUsage, content blocks, stream events: `Beta*`, from the SDK's peer
# @anthropic-ai/sdk) relay what the Messages API sent. Their generated types declare every `T | null` member required,
# where the API leaves some out (a text block's `citations` in a stream's content_block_start; `container`,
# `stop_details`, `diagnostics`): such a member is optional here, marked with this source (catalog.yaml `sources`).
API_NULLS = "api-nulls"


def messages_schema(generated: Mapping[str, Any], *, version: str, sdk: str) -> dict[str, Any]:
    """The generator's draft-07 document → messages.json (one 2020-12 resource; the types `SDKMessage` reaches)."""
    messages = normalise(generated, schema_id=f"https://contracts.wirecheck.invalid/{PACKAGE}/{version}/messages.json",
                         title=f"{sdk} sdk.d.ts: SDKMessage, the stream-json messages Claude Code writes",
                         root_patterns=[UNION])
    for name, schema in messages["$defs"].items():
        if name.startswith("Beta"):
            nulls_may_be_absent(schema)
    return messages


def _nullable(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    kinds = schema.get("type")
    if kinds == "null" or (isinstance(kinds, list) and "null" in kinds):
        return True
    return any(isinstance(branch, dict) and branch.get("type") == "null"
               for key in ("anyOf", "oneOf") for branch in schema.get(key, ()))


def nulls_may_be_absent(schema: dict[str, Any]) -> None:
    """An API object's required `T | null` members made optional (in place), each saying so (API_NULLS)."""
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    relaxed = [name for name in required if _nullable(properties.get(name))]
    if not relaxed:
        return
    kept = [name for name in required if name not in relaxed]
    if kept:
        schema["required"] = kept
    else:
        del schema["required"]
    for name in relaxed:
        properties[name]["x-provenance"] = {
            "source": API_NULLS,
            "note": "declared `T | null` and required by @anthropic-ai/sdk's generated type; the Messages API leaves "
                    "it out where it would be null, so it may be absent"}


def kinds(messages: Mapping[str, Any], *, sdk: str) -> list[dict[str, Any]]:
    """One catalog kind per member of the SDKMessage union, in the union's order."""
    found = []
    for pointer, member in union_members(messages, UNION):
        values = discriminator_values(member)
        kid = KIND_IDS.get(pointer) or _id_from(values)
        if kid is None:
            raise ValueError(f"{pointer}: no kind id from its discriminators {values}: name it in KIND_IDS")
        schema = RESULT_SCHEMAS.get(pointer, f"messages.json#/$defs/{pointer}")
        note = f"{UNION} member {pointer}"
        if pointer in RESULT_SCHEMAS:
            note += " (checked against the print-mode result object, claude-code-print result.json)"
        found.append({"id": kid, "title": _title(pointer, member),
                      "channel": "stdio-ndjson", "producer": "cli", "consumer": "sdk",
                      "selector": {"fields": {f"/{field}": value for field, value in values.items()}},
                      "schema": schema, "provenance": {"source": "agent-sdk", "note": note}})
    return found


def _title(pointer: str, member: Mapping[str, Any]) -> str:
    """The type's name, and the first sentence of its doc comment when it is short."""
    sentence = str(member.get("description", "")).split(". ")[0].split("\n")[0].split(" (e.g")[0].rstrip(".")
    return f"{pointer}: {sentence}" if sentence and len(sentence) <= 100 else pointer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m wirecheck.importer.claude_stream", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("generated", type=Path, help="ts-json-schema-generator's output for --type SDKMessage")
    parser.add_argument("out", type=Path, help="the release folder")
    parser.add_argument("--sdk", required=True, help="the SDK release read (@anthropic-ai/claude-agent-sdk@0.3.332)")
    parser.add_argument("--cli", required=True, help="the Claude Code release it pairs with (claudeCodeVersion)")
    args = parser.parse_args(argv)
    try:
        generated = json.loads(args.generated.read_text(encoding="utf-8"))
        messages = messages_schema(generated, version=args.cli, sdk=args.sdk)
        found = kinds(messages, sdk=args.sdk)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        parser.error(f"{args.generated}: not the generator's JSON output: {exc}")
    except (KeyError, ValueError, TypeError) as exc:  # no SDKMessage union, a member without a kind id
        parser.error(f"{args.generated}: no {UNION} union to import: {exc!r}")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "messages.json").write_text(dump(messages), encoding="utf-8")
    print(yaml.safe_dump({"kinds": found}, sort_keys=False, width=120, allow_unicode=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
