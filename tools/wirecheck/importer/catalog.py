"""Derive a release's message kinds from its normalised protocol types (pure: dicts in, dicts out).

The stream-json wire of a typed SDK is a few unions: the messages the CLI writes (`SDKMessage`), the
`control_request` envelope around an inner request union, the `control_response` envelope with a success and an
error branch, cancels and keep-alives. Every union member becomes one kind, selected by its `const` discriminator
fields; envelopes get one wrapper schema per inner request (`wire.json`), so a request is validated against its own
type and its typed response payload (`reply:`) against the matching `…Response` type.

What the types cannot say (who sends which request, the ids of a few kinds, which kinds travel both ways) comes
from the import profile (`profiles/<package>.yaml`), which is reviewable data.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

from wirecheck.importer.normalise import DIALECT

DISCRIMINATORS = ("type", "subtype", "isReplay")


def _deref(protocol: Mapping[str, Any], schema: Mapping[str, Any]) -> tuple[str | None, Mapping[str, Any]]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        name = ref[len("#/$defs/"):]
        return name, protocol["$defs"][name]
    return None, schema


def presence_only(branches: Any) -> bool:
    """`anyOf: [{required: [a]}, {required: [b]}]` says which fields must be there; it is not a union of types."""
    return isinstance(branches, list) and all(isinstance(b, dict) and set(b) == {"required"} for b in branches)


def union_members(protocol: Mapping[str, Any], name: str) -> list[tuple[str, Mapping[str, Any]]]:
    """(pointer into `$defs`, object schema) for every object member of a union, nested unions flattened.
    The pointer is `Name` for a named member and `Name/anyOf/<i>` for an inline one."""
    members: list[tuple[str, Mapping[str, Any]]] = []

    def walk(pointer: str, schema: Mapping[str, Any]) -> None:
        ref_name, target = _deref(protocol, schema)
        if ref_name is not None:
            pointer = ref_name
        if "anyOf" in target and not presence_only(target["anyOf"]):
            for index, branch in enumerate(target["anyOf"]):
                walk(f"{pointer}/anyOf/{index}", branch)
        elif target.get("type") == "object" or "properties" in target:
            members.append((pointer, target))

    walk(name, protocol["$defs"][name])
    return members


def discriminator_values(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Discriminator field → its `const` (or list of `enum` values), for required discriminating fields."""
    props, required = schema.get("properties", {}), set(schema.get("required", []))
    found: dict[str, Any] = {}
    for field in DISCRIMINATORS:
        prop = props.get(field, {})
        if field not in required:
            continue
        if "const" in prop:
            found[field] = prop["const"]
        elif isinstance(prop.get("enum"), list):
            found[field] = list(prop["enum"])
    return found


def request_value(schema: Mapping[str, Any]) -> tuple[str, str] | None:
    """(discriminating field, value) of an inner control request: `type` or `subtype`, whichever it declares."""
    props = schema.get("properties", {})
    for field in ("type", "subtype"):
        if "const" in props.get(field, {}):
            return field, props[field]["const"]
    return None


def add_alternate_discriminators(protocol: dict[str, Any], inner_union: str, source: str) -> dict[str, Any]:
    """Real SDKs send either discriminator or both (the TS SDK stamps `subtype` = `type` on every request, the
    Python SDK sends both for initialize and only `subtype` for get_context_usage), and qodercli dispatches on
    `request.type ?? request.subtype`: each inner request type accepts the other field with the same value, and
    needs one of the two (the declared one first)."""
    protocol = copy.deepcopy(protocol)
    for pointer, _ in union_members(protocol, inner_union):
        target: Any = protocol["$defs"]
        for token in pointer.split("/"):
            target = target[int(token)] if isinstance(target, list) else target[token]
        found = request_value(target)
        if found is None:
            continue
        field, value = found
        other = "subtype" if field == "type" else "type"
        target.setdefault("properties", {}).setdefault(other, {
            "const": value,
            "type": "string",
            "x-provenance": {"source": source, "note": f"real SDKs also send `{other}` equal to `{field}`"},
        })
        required = [name for name in target.get("required", []) if name not in (field, other)]
        if field in target.get("required", []):
            target["anyOf"] = [{"required": [field]}, {"required": [other]}]
        if required:
            target["required"] = required
        else:
            target.pop("required", None)
    return protocol


def _id_from(values: Mapping[str, Any]) -> str | None:
    parts = []
    for field in DISCRIMINATORS:
        if field not in values:
            continue
        value = values[field]
        if isinstance(value, list):
            return None
        parts.append("replay" if field == "isReplay" else str(value))
    return ".".join(parts)


def _selector(values: Mapping[str, Any]) -> dict[str, Any]:
    return {"fields": {f"/{field}": value for field, value in values.items()}}


def _ref(file: str, pointer: str) -> str:
    return f"{file}#/$defs/{pointer}"


def build(protocol: Mapping[str, Any], profile: Mapping[str, Any], *, package: str, version: str,
          protocol_file: str = "protocol.json", wire_file: str = "wire.json",
          source: str = "release", kind_sources: Any = None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(kinds for catalog.yaml, the wire.json resource) for one release. `kind_sources(what, name)` may give a
    kind's provenance sources (what: message | request | envelope; name: type pointer or request value)."""
    defs = protocol["$defs"]
    names: Mapping[str, str] = profile.get("kind_ids", {})
    cli_requests = set(profile.get("cli_requests", []))
    kinds_cli: list[dict[str, Any]] = []
    kinds_sdk: list[dict[str, Any]] = []
    wire_defs: dict[str, Any] = {}

    def kind(kid: str, title: str, producer: str, selector: dict[str, Any], schema: str, note: str,
             evidence: tuple[str, str] = ("envelope", ""), **extra: Any) -> dict[str, Any]:
        cited: Any = source
        if kind_sources is not None:
            cited = kind_sources(*evidence) or source
        entry: dict[str, Any] = {
            "id": kid, "title": title, "channel": "stdio-ndjson",
            "producer": producer, "consumer": "sdk" if producer == "cli" else "cli",
            "selector": selector, "schema": schema, **extra,
            "provenance": {"source": cited, "note": note},
        }
        (kinds_cli if producer == "cli" else kinds_sdk).append(entry)
        return entry

    # 1. SDKMessage: everything the CLI writes that is not an envelope
    for pointer, member in union_members(protocol, profile["message_union"]):
        values = discriminator_values(member)
        kid = names.get(pointer) or _id_from(values)
        if kid is None:
            raise ValueError(f"{pointer}: a kind id for an enum discriminator must be named in the profile")
        kind(kid, _title(member, pointer), "cli", _selector(values), _ref(protocol_file, pointer),
             f"{profile['message_union']} member {pointer}", ("message", pointer))
    for kid, pointer in profile.get("sdk_messages", {}).items():
        values = discriminator_values(defs[pointer])
        kind(kid, _title(defs[pointer], pointer) + " (sent by the SDK)", "sdk", _selector(values),
             _ref(protocol_file, pointer), f"{pointer}, written by the SDK to the CLI's stdin", ("message", pointer))

    # 2. control_request: one kind per inner request value, both discriminator fields accepted
    envelope = defs[profile["request_envelope"]]
    grouped: dict[str, list[str]] = {}
    for pointer, member in union_members(protocol, profile["request_union"]):
        found = request_value(member)
        if found is None:
            raise ValueError(f"{pointer}: an inner request without a type/subtype const")
        grouped.setdefault(found[1], []).append(pointer)
    for value, pointers in grouped.items():
        wrapper = copy.deepcopy(envelope)
        refs = [{"$ref": _ref(protocol_file, p)} for p in pointers]
        wrapper["properties"]["request"] = refs[0] if len(refs) == 1 else {"anyOf": refs}
        wire_defs[f"control_request.{value}"] = wrapper
        producer = "cli" if value in cli_requests else "sdk"
        extra: dict[str, Any] = {}
        response = _response_type(pointers[0], defs, profile)
        if response is not None:
            extra["reply"] = {"at": "/response/response", "schema": _ref(protocol_file, response)}
        base = {"/type": "control_request"}
        kind(f"control_request.{value}", f"control request `{value}`", producer,
             {"any": [{**base, "/request/type": value}, {**base, "/request/subtype": value}]},
             _ref(wire_file, f"control_request.{value}"),
             f"{profile['request_union']} member(s) {', '.join(pointers)}", ("request", value), **extra)

    # 3. control_response: success and error, in both directions; checked against the request they answer
    response_envelope = defs[profile["response_envelope"]]
    branches = response_envelope["properties"]["response"]
    branch_list = branches.get("anyOf", [branches])
    for branch in branch_list:
        _, target = _deref(protocol, branch)
        subtype = target["properties"]["subtype"]["const"]
        wrapper = copy.deepcopy(response_envelope)
        wrapper["properties"]["response"] = copy.deepcopy(dict(branch))
        wire_defs[f"control_response.{subtype}"] = wrapper
        for producer, prefix in (("cli", ""), ("sdk", "sdk.")):
            kind(f"{prefix}control_response.{subtype}", f"control response ({subtype})", producer,
                 {"fields": {"/type": "control_response", "/response/subtype": subtype}},
                 _ref(wire_file, f"control_response.{subtype}"),
                 f"{profile['response_envelope']} with response.subtype {subtype}",
                 answers="control_request.*",
                 correlate={"request": "/request_id", "response": "/response/request_id"})

    # 4. the other envelopes: cancels and keep-alives both ways, CLI-only extras
    for entry in profile.get("envelopes", []):
        pointer = entry["type"]
        if pointer not in defs:
            continue
        values = discriminator_values(defs[pointer])
        for producer in entry["from"]:
            prefix = "sdk." if producer == "sdk" and "cli" in entry["from"] else ""
            kind(prefix + entry["id"], _title(defs[pointer], pointer), producer, _selector(values),
                 _ref(protocol_file, pointer), f"{pointer}")

    wire = {
        "$schema": DIALECT,
        "$id": f"https://contracts.wirecheck.invalid/{package}/{version}/{wire_file}",
        "title": f"{package} {version}: wire envelopes, one per inner control request and response branch",
        "$defs": _rebase(wire_defs, protocol_file),
    }
    return kinds_cli + kinds_sdk, wire


def _rebase(schema: Any, protocol_file: str) -> Any:
    """Local `#/$defs/…` refs copied out of the protocol resource point back into it."""
    if isinstance(schema, dict):
        return {k: (protocol_file + v if k == "$ref" and isinstance(v, str) and v.startswith("#/") else
                    _rebase(v, protocol_file)) for k, v in schema.items()}
    if isinstance(schema, list):
        return [_rebase(v, protocol_file) for v in schema]
    return schema


def _response_type(pointer: str, defs: Mapping[str, Any], profile: Mapping[str, Any]) -> str | None:
    name = pointer.split("/")[0]
    overrides = profile.get("reply_types", {})
    if name in overrides:
        return overrides[name]
    match = re.fullmatch(r"SDKControl(\w+)Request", name)
    if match and f"SDKControl{match.group(1)}Response" in defs:
        return f"SDKControl{match.group(1)}Response"
    return None


def _title(schema: Mapping[str, Any], pointer: str) -> str:
    description = schema.get("description")
    if isinstance(description, str) and description.strip():
        first = description.strip().splitlines()[0].strip()
        if len(first) <= 100:
            return f"{pointer.split('/')[0]}: {first}"
    return pointer.split("/")[0]
