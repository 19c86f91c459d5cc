"""A JSON-RPC 2.0 protocol from its JSON Schema: `wirecheck import schema FILE --profile json-rpc`.

    wirecheck import schema schema.json --profile json-rpc --package mcp --version 2025-06-18 -o DIR
    wirecheck validate mcp@2025-06-18 capture.ndjson --contracts DIR

Every message kind comes from the schema's own structure, the way MCP's `schema/<revision>/schema.json` is written:

- **methods**: each definition that fixes `method` as a constant (`InitializeRequest`: `method: {const: initialize}`;
  the reading diff/derive.py's `method_constant` shares) is a message type; named `*Request` it is a request, named
  `*Notification` a notification, else what the union it belongs to is named.
- **directions**: unions named `<Role>Request`, `<Role>Notification`, `<Role>Result` (`ClientRequest`,
  `ServerNotification`, ...: an `anyOf`/`oneOf` of `$ref`s) say who sends what; the roles are their prefixes
  (`client`, `server`). A method in two roles' unions (`ping`, `notifications/progress`) is a kind per sender; the
  receiver is the other role.
- **replies**: `<Name>Request` is answered by `<Name>Result` where the schema defines one (checked against the
  receiver's `<Role>Result` union when there is one).

Nothing is guessed. What the structure does not say is listed, each with the mapping-file key that supplies it
(`--mapping FILE`, YAML), and written to import.yaml:

```yaml
senders:  {notifications/custom: server}      # a method no <Role>Request/Notification union names
types:    {custom/thing: request}              # a method type neither named *Request/*Notification nor in a union
replies:  {ping: EmptyResult, logging/setLevel: EmptyResult}   # a request with no <Name>Result
roles:    [client, server]                     # when the unions name none (or more than two) roles
```

A mapping entry for a method the schema lacks, or a definition it lacks, is refused with its place in the file.
The release folder (`DIR/<package>/<version>/`: schema.json, wire.json, catalog.yaml, readers.yaml drafted from
JSON-RPC 2.0 itself, requirements.yaml drafted, import.yaml, the licence if given) and `DIR/registry.yaml` are
written only once the folder loads as a contract (`--contracts DIR`).
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from wirecheck.importer.acp import JSONRPC_DEFS, RESPONSE_SELECTOR, kind_id
from wirecheck.importer.shipped import ImportRefused
from wirecheck.input_files import Unreadable, read_bytes, read_text

UNION = re.compile(r"^([A-Z][A-Za-z0-9]*?)(Request|Notification|Result)$")
TYPES = ("request", "notification")
MAPPING_KEYS = ("senders", "types", "replies", "roles")


@dataclass
class Method:
    name: str
    definition: str  # the $defs entry of its request or notification type
    type: str | None  # request | notification (None: not derived)
    senders: list[str] = field(default_factory=list)
    reply: str | None = None  # the $defs entry of its result
    how: list[str] = field(default_factory=list)  # how each fact was found (import.yaml)


@dataclass
class Derivation:
    roles: list[str]
    methods: list[Method]
    not_derived: list[dict[str, str]]  # {method?, what, supply}
    unions: dict[str, dict[str, list[str]]]  # role → {Request|Notification|Result: [$defs names]}


def _members(node: Any) -> list[str] | None:
    """The $defs names an `anyOf`/`oneOf` of local `$ref`s lists; None for anything else."""
    if not isinstance(node, dict):
        return None
    members = node.get("anyOf", node.get("oneOf"))
    if not isinstance(members, list) or not members:
        return None
    names = []
    for member in members:
        ref = member.get("$ref") if isinstance(member, dict) else None
        if not (isinstance(ref, str) and ref.startswith("#/$defs/")):
            return None
        names.append(ref.removeprefix("#/$defs/"))
    return names


def _key(method: str) -> str:
    """`method` as a key of a mapping file's flow mapping, to paste as it is: plain when YAML reads it back as
    written, else JSON-quoted (a double-quoted YAML scalar: `"x\\u0000y"`, never the raw control character)."""
    return method if re.fullmatch(r"[A-Za-z0-9_$][A-Za-z0-9_$/.-]*", method) else json.dumps(method)


def load_mapping(path: Path) -> dict[str, Any]:
    """The mapping file, checked for shape (ImportRefused with the key that is wrong)."""
    from wirecheck.yaml_lines import YamlFileError, read_yaml_file, strip_lines

    try:
        raw = read_yaml_file(path, lines=False, what="mapping file")
    except YamlFileError as exc:
        raise ImportRefused(f"{path}: {exc.message}") from None
    raw = strip_lines(raw) if raw is not None else {}
    if not isinstance(raw, dict):
        raise ImportRefused(f"{path}: expected a mapping with {', '.join(MAPPING_KEYS)}")
    for key, value in raw.items():
        if key not in MAPPING_KEYS:
            raise ImportRefused(f"{path}#/{key}: unknown key {key!r} (a mapping file holds {', '.join(MAPPING_KEYS)})")
        if key == "roles":
            if not (isinstance(value, list) and len(value) == 2 and all(isinstance(r, str) and r for r in value)):
                raise ImportRefused(f"{path}#/roles: expected the two roles, e.g. [client, server]")
        elif not (isinstance(value, dict) and all(isinstance(k, str) for k in value)):
            raise ImportRefused(f"{path}#/{key}: expected method: value entries")
    for method, value in raw.get("types", {}).items():
        if value not in TYPES:
            raise ImportRefused(f"{path}#/types/{method}: expected request or notification, found {value!r}")
    for method, value in raw.get("senders", {}).items():
        values = value if isinstance(value, list) else [value]
        if not values or not all(isinstance(v, str) and v for v in values):
            raise ImportRefused(f"{path}#/senders/{method}: expected a role or a list of roles")
    return raw


def derive(schema: Mapping[str, Any], mapping: Mapping[str, Any] | None = None, where: str = "the mapping"
           ) -> Derivation:
    """The methods of a JSON-RPC schema (2020-12, `$defs`), their types, senders and replies, and what could not
    be derived. Pure. ImportRefused when no method is found or the mapping names what the schema lacks."""
    from wirecheck.diff.derive import method_constant

    mapping = mapping or {}
    defs = schema.get("$defs")
    if not isinstance(defs, dict):
        raise ImportRefused("the schema has no $defs (definitions): no message type to derive a kind from")
    unions: dict[str, dict[str, list[str]]] = {}
    for name, node in defs.items():
        found = UNION.match(name)
        members = _members(node)
        if found and members is not None and found.group(1) != "JSONRPC":
            unions.setdefault(found.group(1).lower(), {})[found.group(2)] = members
    by_definition = {name: method_constant(node) for name, node in defs.items()}
    methods: dict[str, Method] = {}
    for name, method in by_definition.items():
        if method is None:
            continue
        if method in methods:  # one type per method (the first; a second is listed)
            methods[method].how.append(f"also written as $defs/{name} (not used)")
            continue
        entry = methods[method] = Method(method, name, None)
        entry.how.append(f"$defs/{name} fixes method {method!r}")
        for suffix, kind in (("Request", "request"), ("Notification", "notification")):
            if name.endswith(suffix):
                entry.type = kind
                entry.how.append(f"a {kind}: its type is named *{suffix}")
        for role, parts in sorted(unions.items()):
            for part, kind in (("Request", "request"), ("Notification", "notification")):
                if name in parts.get(part, []):
                    entry.senders.append(role)
                    entry.how.append(f"sent by the {role}: a member of {role.capitalize()}{part}")
                    if entry.type is None:
                        entry.type = kind
                        entry.how.append(f"a {kind}: a member of {role.capitalize()}{part}")
    if not methods:
        raise ImportRefused("no $defs entry fixes `method` as a constant: no JSON-RPC method to derive a kind from "
                            "(profile json-rpc reads MCP-style schemas: InitializeRequest with "
                            "properties.method.const)")
    for key in ("senders", "types", "replies"):
        for method in mapping.get(key, {}):
            if method not in methods:
                raise ImportRefused(f"{where}#/{key}/{method}: the schema defines no method {method!r}")
    roles = sorted(unions)
    if "roles" in mapping:
        roles = list(mapping["roles"])
    not_derived: list[dict[str, str]] = []
    if len(roles) != 2:
        not_derived.append({"what": f"the two roles: the unions name {len(roles)} ({', '.join(roles) or 'none'}) "
                                    "(<Role>Request, <Role>Notification, <Role>Result)",
                            "supply": "roles: [client, server]"})
    for method, entry in sorted(methods.items()):
        if method in mapping.get("types", {}):
            entry.type = mapping["types"][method]
            entry.how.append(f"a {entry.type}: the mapping says so")
        if method in mapping.get("senders", {}):
            value = mapping["senders"][method]
            entry.senders = list(value) if isinstance(value, list) else [value]
            entry.how.append(f"sent by {', '.join(entry.senders)}: the mapping says so")
        unknown = [r for r in entry.senders if r not in roles]
        if unknown and len(roles) == 2:
            raise ImportRefused(f"{where}#/senders/{method}: {', '.join(unknown)} is not a role "
                                f"({', '.join(roles)})")
        if entry.type is None:
            not_derived.append({"method": method, "what": f"whether $defs/{entry.definition} is a request or a "
                                "notification (not named *Request or *Notification, in no union)",
                                "supply": f"types: {{{_key(method)}: request}}"})
        if not entry.senders:
            not_derived.append({"method": method, "what": f"who sends {method} (in no <Role>Request or "
                                "<Role>Notification union)", "supply": f"senders: {{{_key(method)}: client}}"})
        if entry.type == "request":
            _reply(entry, defs, unions, roles, mapping, not_derived, where)
    return Derivation(roles, [methods[m] for m in sorted(methods)], not_derived, unions)


def _reply(entry: Method, defs: Mapping[str, Any], unions: Mapping[str, Mapping[str, list[str]]],
           roles: list[str], mapping: Mapping[str, Any], not_derived: list[dict[str, str]], where: str) -> None:
    method = entry.name
    if method in mapping.get("replies", {}):
        reply = mapping["replies"][method]
        if reply is not None and reply not in defs:
            raise ImportRefused(f"{where}#/replies/{method}: the schema defines no {reply!r}")
        entry.reply = reply
        entry.how.append(f"answered by {reply}: the mapping says so" if reply else
                         "its result is not checked: the mapping says so")
        return
    base = entry.definition.removesuffix("Request") if entry.definition.endswith("Request") else None
    candidate = f"{base}Result" if base else None
    if candidate is None or candidate not in defs:
        not_derived.append({"method": method, "what": f"the result type of {method} (the schema defines no "
                            f"{candidate or '<Name>Result'}): its result is not checked",
                            "supply": f"replies: {{{_key(method)}: EmptyResult}}"})
        return
    receivers = [r for r in roles if r not in entry.senders] if len(roles) == 2 else []
    outside = [r for r in receivers if "Result" in unions.get(r, {}) and candidate not in unions[r]["Result"]]
    if outside:
        not_derived.append({"method": method, "what": f"the result type of {method}: {candidate} is not in "
                            f"{outside[0].capitalize()}Result, the results the {outside[0]} sends",
                            "supply": f"replies: {{{_key(method)}: {candidate}}}"})
        return
    entry.reply = candidate
    entry.how.append(f"answered by {candidate}: named after {entry.definition}"
                     + (f", a member of {receivers[0].capitalize()}Result" if receivers and "Result" in
                        unions.get(receivers[0], {}) else ""))


def _params_envelope(entry: Method, defs: Mapping[str, Any], request_id: str, sender: str, receiver: str
                     ) -> dict[str, Any]:
    node = defs[entry.definition]
    props = node.get("properties", {}) if isinstance(node, dict) else {}
    required = node.get("required", []) if isinstance(node, dict) else []
    properties: dict[str, Any] = {"jsonrpc": {"const": "2.0"}, "method": {"const": entry.name}}
    needed = ["jsonrpc", "method"]
    if entry.type == "request":
        properties["id"] = {"$ref": request_id}
        needed.insert(1, "id")
    if isinstance(props, dict) and "params" in props:
        properties["params"] = {"$ref": f"schema.json#/$defs/{entry.definition}/properties/params"}
        if "params" in required:
            needed.append("params")
    return {"description": f"JSON-RPC {entry.type} `{entry.name}` ({sender} sends it, {receiver} receives it); "
                           f"its type: $defs/{entry.definition}",
            "type": "object", "required": needed, "properties": properties}


def _response_envelope(role: str, request_id: str, error: str) -> dict[str, Any]:
    return {"description": f"A JSON-RPC response sent by the {role}: a result (checked against the result type of "
                           "the request it answers, matched by id) or an error.",
            "type": "object", "required": ["jsonrpc", "id"],
            "properties": {"jsonrpc": {"const": "2.0"}, "id": {"$ref": request_id}, "result": True,
                           "error": {"$ref": error}},
            "oneOf": [{"required": ["result"]}, {"required": ["error"]}]}


def _kind_ids(derivation: Derivation) -> dict[tuple[str, str], str]:
    """(receiver, method) → its kind id: `kind_id`'s (`server.ping`), unless methods JSON-RPC tells apart would
    share it (method names are case-sensitive: `ping`, `PING`; and `a/b`, `a.b`) or a role's response kind has it.
    Then only the first of them in lower case (none, for a response kind's id) keeps it; the others get a suffix
    made from their exact name (`server.ping-1d4e8b0c`): distinct, and the same whatever else the schema holds."""
    wanted = {(receiver, entry.name): kind_id(receiver, entry.name) for entry in derivation.methods
              for sender in entry.senders for receiver in derivation.roles if receiver != sender}
    sharing: dict[str, list[tuple[str, str]]] = {}
    for key, kid in wanted.items():
        sharing.setdefault(kid, []).append(key)
    responses = {f"{role}.response" for role in derivation.roles}
    for kid, keys in sharing.items():
        kept = None if kid in responses else min(keys, key=lambda key: (key[1] != key[1].lower(), key[1]))
        for key in keys:
            if key != kept:
                wanted[key] = f"{kid}-{hashlib.sha256(key[1].encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"
    return wanted


def jsonrpc_kinds(schema: Mapping[str, Any], derivation: Derivation, *, package: str, version: str, base: str,
                  source: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(catalog kinds, the wire.json resource): a kind per method and sender, a response kind per role."""
    defs = schema["$defs"]
    roles = derivation.roles
    request_id = "schema.json#/$defs/RequestId" if "RequestId" in defs else "#/$defs/jsonrpc.RequestId"
    error_node = defs.get("JSONRPCError", {}).get("properties", {}).get("error") \
        if isinstance(defs.get("JSONRPCError"), dict) else None
    error = "schema.json#/$defs/JSONRPCError/properties/error" if isinstance(error_node, dict) \
        else "#/$defs/jsonrpc.Error"
    wire_defs: dict[str, Any] = {}
    kinds: list[dict[str, Any]] = []
    ids = _kind_ids(derivation)
    for entry in derivation.methods:
        if entry.type is None or len(roles) != 2:
            continue
        for sender in entry.senders:
            receiver = roles[1] if sender == roles[0] else roles[0]
            kid = ids[receiver, entry.name]
            wire_defs[kid] = _params_envelope(entry, defs, request_id, sender, receiver)
            kind: dict[str, Any] = {
                "id": kid, "title": f"{entry.name} ({entry.type} from the {sender})", "channel": "stdio-ndjson",
                "producer": sender, "consumer": receiver,
                "selector": {"fields": {"/jsonrpc": "2.0", "/method": entry.name}},
                "schema": f"wire.json#/$defs/{kid}",
            }
            if entry.type == "request" and entry.reply is not None:
                kind["reply"] = {"at": "/result", "schema": f"schema.json#/$defs/{entry.reply}"}
            kind["provenance"] = {"source": source, "note": "; ".join(entry.how)}
            kinds.append(kind)
    if len(roles) == 2:
        for role in roles:
            rid = f"{role}.response"
            wire_defs[rid] = _response_envelope(role, request_id, error)
            kinds.append({
                "id": rid, "title": f"Response from the {role}", "channel": "stdio-ndjson", "producer": role,
                "consumer": roles[1] if role == roles[0] else roles[0],
                "description": "A JSON-RPC 2.0 response (section 5): an id and a result or an error, and no method; "
                               "a framed capture's sender tells the two directions apart.",
                "selector": copy.deepcopy(RESPONSE_SELECTOR), "schema": f"wire.json#/$defs/{rid}",
                "answers": f"{role}.*", "correlate": {"request": "/id", "response": "/id"},
                "provenance": {"source": source, "note": "JSON-RPC 2.0 section 5; the result type per request"},
            })
    wire_defs.update({name: JSONRPC_DEFS[name] for name in sorted(JSONRPC_DEFS)
                      if f"#/$defs/{name}" in (request_id, error)})
    wire = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": f"{base}/wire.json",
            "title": f"{package} {version}: JSON-RPC envelopes, one per method and sender (generated by "
                     "tools/wirecheck/importer/jsonrpc.py)", "$defs": wire_defs}
    return kinds, wire


def readers_yaml(roles: list[str], schema: Mapping[str, Any]) -> str:
    """A drafted readers.yaml from JSON-RPC 2.0 itself: a request for a method the receiver lacks is answered
    -32601 (a reject), a notification it lacks is dropped; unknown members are read as the schema reads them."""
    closed = sum(1 for node in schema.get("$defs", {}).values()
                 if isinstance(node, dict) and node.get("additionalProperties") is False)
    members = "closed" if closed and closed == len(schema.get("$defs", {})) else "open"
    lines = [
        "# Drafted by `wirecheck import schema --profile json-rpc` from JSON-RPC 2.0 itself and the schema: review it",
        "# against how the real readers read (contracts/README.md \"Readers\") and cite their source lines.",
        "sources:",
        '  jsonrpc: {type: upstream-docs, ref: "JSON-RPC 2.0 specification (jsonrpc.org/specification)", '
        'note: "section 5.1: -32601 Method not found; section 4.1: a notification gets no reply"}',
        "readers:",
        f"  - kinds: [\"*\"]\n    members: {members}",
        "    provenance:",
        "      source: jsonrpc",
        f"      note: drafted from the schema ({closed} of {len(schema.get('$defs', {}))} definitions set "
        "additionalProperties false); how the real readers treat unknown members is not in the schema",
        "unknown_kinds:",
    ]
    for role in [*roles, "any"] if "any" in roles else roles:
        lines += [
            "  - channel: stdio-ndjson", f"    consumer: {role}", "    when: {present: [/id, /method]}",
            "    reads: reject", "    provenance: {source: jsonrpc, at: [\"JSON-RPC 2.0 section 5.1 (-32601 Method not "
            "found)\"], note: \"a request for a method the receiver lacks is answered with that error\"}",
            "  - channel: stdio-ndjson", f"    consumer: {role}", "    reads: ignore",
            "    provenance: {source: jsonrpc, at: [\"JSON-RPC 2.0 section 4.1 (a notification gets no reply)\"], "
            "note: \"one the receiver lacks is dropped\"}",
        ]
    return "\n".join(lines) + "\n"


def registry_text(root: Path, package: str, version: str, title: str, npm: str | None = None) -> str | None:
    """The registry.yaml of contracts folder `root` with `package@version` listed: a new one, or the one there with
    the release added when wirecheck wrote it. None when it lists the release already. ImportRefused for a registry
    written by hand that lacks it (its comments would be lost): the message says what to add."""
    path = root / "registry.yaml"
    header = "# Written by `wirecheck import`: the packages and releases of this contracts folder (--contracts).\n"
    data: dict[str, Any] = {"packages": {}}
    if path.exists():
        try:
            text = read_text(path, "contract file")
        except Unreadable as exc:
            raise ImportRefused(str(exc)) from None
        loaded = yaml.safe_load(text) or {}
        entry = loaded.get("packages", {}).get(package) if isinstance(loaded, dict) else None
        if isinstance(entry, dict) and version in entry.get("releases", []):
            return None
        if not text.startswith(header):
            raise ImportRefused(f"{path}: written by hand, and it does not list {package} {version}: add "
                                f'"{version}" to the releases of {package} there (wirecheck does not rewrite a file '
                                "it did not write)")
        data = loaded
    packages = data.setdefault("packages", {})
    entry = packages.setdefault(package, {"title": title, "releases": []})
    if npm and "npm" not in entry:
        entry = packages[package] = {"npm": npm, **entry}
    entry["releases"] = [*entry.get("releases", []), version]
    return header + yaml.safe_dump(data, sort_keys=False, width=118, allow_unicode=True)


def import_schema(path: Path, *, package: str, version: str, out: Path, mapping_path: Path | None = None,
                  source_ref: str | None = None, license_path: Path | None = None
                  ) -> tuple[Path, list[Path], Derivation]:
    """Import `path` as `package@version` into the contracts folder `out`; the release folder, the files written
    and the derivation (what was derived, and what was not)."""
    import tempfile

    from wirecheck.certify.generate import merge, render
    from wirecheck.certify.requirements import load_requirements
    from wirecheck.contracts import ContractError, load_registry
    from wirecheck.contracts.drafts import DIALECT, Untranslatable, draft_named, translate
    from wirecheck.contracts.loader import MAX_RELEASE_VALUES
    from wirecheck.contracts.views import count_values
    from wirecheck.importer.release import write_folder
    from wirecheck.json_text import parse_json

    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", package):
        raise ImportRefused(f"--package {package!r}: lower-case letters, digits and -, as contracts/<package>/")
    try:  # the one bounded reader: a device, a named pipe nobody writes to or a file past 16 MiB is refused
        raw = read_bytes(path, "schema file to import")
    except Unreadable as exc:
        raise ImportRefused(str(exc)) from None
    upstream, problem = parse_json(raw)
    if problem is not None:
        raise ImportRefused(f"{path}{'#' + problem.pointer if problem.pointer else ''}: {problem.message}")
    if count_values(upstream, MAX_RELEASE_VALUES + 1) > MAX_RELEASE_VALUES:  # before the translation: not after it
        raise ImportRefused(f"{path}: holds more than {MAX_RELEASE_VALUES:,} JSON values, the most wirecheck loads of "
                            "a contract release (see Limits in the README): its import could not be loaded")
    try:
        translation = translate(upstream, draft_named("2020-12"))
    except Untranslatable as exc:
        raise ImportRefused(f"{path}#{exc.pointer}: {exc.reason}") from None
    if not isinstance(translation.schema, dict):
        raise ImportRefused(f"{path}: the schema is not an object with definitions")
    mapping = load_mapping(mapping_path) if mapping_path is not None else {}
    base = f"https://contracts.wirecheck.invalid/{package}/{version}"
    sha256 = hashlib.sha256(raw).hexdigest()
    provenance: dict[str, Any] = {"path": path.name, "sha256": sha256}
    if source_ref:
        provenance["source"] = source_ref
    if translation.draft.uri != DIALECT:
        provenance["translated"] = f"from {translation.draft.name}: {len(translation.rewrites)} rewrite(s) into " \
                                   "2020-12 (`wirecheck diff-schemas --explain-input` lists them)"
    schema: dict[str, Any] = {"$schema": DIALECT, "$id": f"{base}/schema.json", "x-imported-from": provenance}
    schema.update({k: v for k, v in translation.schema.items() if k not in ("$schema", "$id")})
    derivation = derive(schema, mapping, str(mapping_path) if mapping_path else "the mapping")
    if len(derivation.roles) != 2:
        listed = "; ".join(f"{n['what']} (supply: {n['supply']})" for n in derivation.not_derived)
        raise ImportRefused(f"{path}: {listed}")
    kinds, wire = jsonrpc_kinds(schema, derivation, package=package, version=version, base=base, source="schema")
    where = source_ref or f"{path.name} (sha256 {sha256})"
    catalog = {
        "package": package, "version": version,
        "title": f"{package} {version}: JSON-RPC 2.0 (imported from {path.name})",
        "description": f"Imported by `wirecheck import schema {path.name} --profile json-rpc` from {where}: message "
                       "kinds, directions and replies derived from the schema's own structure "
                       "(tools/wirecheck/importer/jsonrpc.py); import.yaml lists how, and what was not derived.",
        "sources": {"schema": {"type": "upstream-source", "ref": where, "note": f"sha256 {sha256}"}},
        "roles": derivation.roles,
        "kinds": kinds,
    }
    header = (f"# {package} {version}: generated by `wirecheck import schema {path.name} --profile json-rpc`\n"
              "# (tools/wirecheck/importer/jsonrpc.py). Re-run the import (with a mapping file), do not edit.\n")
    record: dict[str, Any] = {
        "imported": f"{path.name} --profile json-rpc", "schema_sha256": sha256,
        "draft": f"{translation.draft.name} ({'declared' if translation.declared else 'assumed 2020-12'})",
        "rewrites": len(translation.rewrites), "roles": derivation.roles,
        "unions": {role: {part: members for part, members in sorted(parts.items())}
                   for role, parts in sorted(derivation.unions.items())},
        "methods": [{"method": m.name, "type": m.type, "senders": m.senders, "reply": m.reply, "how": m.how}
                    for m in derivation.methods],
        "not_derived": derivation.not_derived,
        "mapping": {"file": mapping_path.name, **mapping} if mapping_path else None,
    }
    files = {
        "schema.json": json.dumps(schema, indent=2, ensure_ascii=False) + "\n",
        "wire.json": json.dumps(wire, indent=2, ensure_ascii=False) + "\n",
        "catalog.yaml": header + yaml.safe_dump(catalog, sort_keys=False, width=118, allow_unicode=True),
        "readers.yaml": readers_yaml(derivation.roles, schema),
        "import.yaml": yaml.safe_dump(record, sort_keys=False, width=118, allow_unicode=True),
    }
    if license_path is not None:
        try:
            files["LICENSE"] = read_text(license_path, "licence file")
        except Unreadable as exc:
            raise ImportRefused(str(exc)) from None
    registry = registry_text(out, package, version, str(catalog["title"]))
    with tempfile.TemporaryDirectory(prefix="wirecheck-import-schema-") as temp:
        trial = Path(temp)
        write_folder(files, trial / package / version)
        (trial / "registry.yaml").write_text(registry or (out / "registry.yaml").read_text(encoding="utf-8"),
                                             encoding="utf-8")
        try:
            release = load_registry(trial).load(f"{package}@{version}")
        except ContractError as exc:
            problems = "\n  ".join(str(p).replace(temp, str(out)) for p in exc.problems)
            raise ImportRefused(f"{path}: the imported release would not load, so nothing was written (the files "
                                f"named are those the import would have written):\n  {problems}") from None
        requirements, _ = merge(release, [])
        files["requirements.yaml"] = render(release, requirements)
        (trial / package / version / "requirements.yaml").write_text(files["requirements.yaml"], encoding="utf-8")
        try:
            load_requirements(trial / package / version / "requirements.yaml", release)
        except ContractError as exc:  # a bug of the drafting, not of the schema: said as it is
            raise ImportRefused(f"{path}: the drafted requirement set would not load: {exc}") from None
    folder = out / package / version
    written = write_folder(files, folder)
    if registry is not None:
        (out / "registry.yaml").write_text(registry, encoding="utf-8")
        written.append(out / "registry.yaml")
    return folder, written, derivation
