"""A JSON-RPC 2.0 protocol from its JSON Schema: `wirecheck import schema FILE --profile json-rpc`.

    wirecheck import schema schema.json --profile json-rpc --package mcp --version 2025-06-18 -o DIR
    wirecheck validate mcp@2025-06-18 capture.ndjson --contracts DIR

Every message kind comes from the schema's own structure, in the shapes real schemas use (MCP's
`schema/<revision>/schema.json`, A2A's `specification/json/a2a.json`, ACP's shipped `schema.json`):

- **methods**: each definition that fixes `method` as a constant (`InitializeRequest`: `method: {const: initialize}`;
  the reading diff/derive.py's `method_constant` shares) is a message type; named `*Request` it is a request, named
  `*Notification` a notification, else what the union it belongs to is named. A method type used only inside
  another definition (MCP 2026-07-28's `CreateMessageRequest`, a value of `InputRequests` inside a result) is a
  part of a message, not a message. ACP's method tables instead: each definition annotated `x-method` and `x-side`
  (the side that receives it) is the params of a request (`*Request`) or notification (`*Notification`), answered
  by the `*Response` of the same method (importer/acp.py `methods`).
- **directions**: unions named `<Role>Request`, `<Role>Notification`, `<Role>Result` (`ClientRequest`,
  `ServerNotification`, ...: an `anyOf`/`oneOf` of `$ref`s, or one member written in its place) that no definition
  uses inside itself say who sends what; the roles are their prefixes (`client`, `server`). A method in two roles'
  unions (`ping`, `notifications/progress`) is a kind per sender; the receiver is the other role. A schema with
  one such prefix that is no role (A2A's `A2ARequest`) names the requests one side sends: JSON-RPC 2.0 (section 1)
  calls that side the Client and the side that answers the Server, so the roles are `client` and `server`.
- **replies**: `<Name>Request` is answered by the `result` of its `<Name>ResultResponse`, `<Name>SuccessResponse` or
  `<Name>Response` (a JSON-RPC success response the schema writes per method: MCP 2026-07-28, A2A; the result
  checked where it is written, a union or inline), else by `<Name>Result` (checked against the receiver's
  `<Role>Result` union when there is one). A request the schema pairs with no result is answered by the one member
  of the receiver's `<Role>Result` union no request is paired with (MCP's shared empty result: `Result`, which its
  TypeScript source calls `EmptyResult`).

Nothing is guessed. What the structure does not say is listed in the terms of the schema given (its own definition
names and JSON pointers), each with the mapping-file key that supplies it (`--mapping FILE`, YAML), written to
import.yaml, and written out as a mapping skeleton to fill (`DIR/<package>@<version>.mapping.yaml`):

```yaml
senders:  {notifications/custom: server}      # a method no <Role>Request/Notification union names
types:    {custom/thing: request}              # a method type neither named *Request/*Notification nor in a union
replies:  {tasks/resubscribe: "#/definitions/SendStreamingMessageSuccessResponse/properties/result"}
#          a definition of the schema, or a JSON pointer into the schema file as written (null: not checked)
roles:    [client, server]                     # when the unions name none (or more than two) roles
```

A mapping entry for a method the schema lacks, or a definition or pointer it lacks, is refused with its place in
the file. The release folder (`DIR/<package>/<version>/`: schema.json, wire.json, catalog.yaml, readers.yaml drafted
from JSON-RPC 2.0 itself, requirements.yaml drafted, import.yaml, the licence if given) and `DIR/registry.yaml` are
written only once the folder loads as a contract (`--contracts DIR`).
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from wirecheck.importer.acp import JSONRPC_DEFS, RESPONSE_SELECTOR, kind_id
from wirecheck.importer.shipped import ImportRefused
from wirecheck.input_files import Unreadable, read_bytes, read_text
from wirecheck.pointer import MISSING, parse_pointer, resolve

UNION = re.compile(r"^([A-Z][A-Za-z0-9]*?)(Request|Notification|Result)$")
TYPES = ("request", "notification")
MAPPING_KEYS = ("senders", "types", "replies", "roles", "documents")
# <Name>…: a JSON-RPC success response the schema writes for one request (its `result` is the reply), in order
RESPONSES = ("ResultResponse", "SuccessResponse", "Response")
JSONRPC_ROLES = ["client", "server"]  # JSON-RPC 2.0 section 1: the Client sends requests, the Server answers them
ACP_SIDES = ("agent", "client")


@dataclass
class Method:
    name: str
    definition: str  # the definition of its request or notification type
    type: str | None  # request | notification (None: not derived)
    senders: list[str] = field(default_factory=list)
    reply: str | None = None  # a JSON pointer into schema.json: the result's schema (None: not derived/checked)
    how: list[str] = field(default_factory=list)  # how each fact was found (import.yaml)
    params: str | None = None  # a JSON pointer into schema.json: the params' schema
    params_required: bool = False


@dataclass
class Derivation:
    roles: list[str]
    methods: list[Method]
    not_derived: list[dict[str, str]]  # {method?, what, supply}
    unions: dict[str, dict[str, list[str]]]  # role → {Request|Notification|Result: [definition names]}
    parts: dict[str, str] = field(default_factory=dict)  # method → why it is a part of messages, not a message
    word: str = "$defs"  # how the schema given names its definitions: $defs or definitions
    skeleton: Path | None = None  # where the mapping to fill was written


def _local(ref: Any) -> str | None:
    """The definition a local `$ref` (`#/$defs/Name/...`) points into."""
    if not (isinstance(ref, str) and ref.startswith("#/$defs/")):
        return None
    tokens = parse_pointer(ref[1:])
    return tokens[1] if len(tokens) > 1 else None


def _members(node: Any) -> list[str] | None:
    """The definitions a union lists: an `anyOf`/`oneOf` of local `$ref`s, or one `$ref` in a union's place (a
    generator writes a one-member union so: MCP 2026-07-28's `ClientResult`); None for anything else."""
    if not isinstance(node, dict):
        return None
    members = node.get("anyOf", node.get("oneOf"))
    if members is None and "$ref" in node and not node.keys() - {"$ref", "description", "title", "$comment"}:
        members = [node]
    if not isinstance(members, list) or not members:
        return None
    names = []
    for member in members:
        name = _local(member.get("$ref")) if isinstance(member, dict) else None
        if name is None or member["$ref"].count("/") != 2:  # a whole definition, not a place inside one
            return None
        names.append(name)
    return names


def _inside(defs: Mapping[str, Any]) -> set[str]:
    """The definitions used inside another (a property's or an item's type, ...: not as a member of a union written
    at its top, nor as the one `$ref` of an alias), and the members of such unions, transitively: parts of messages."""
    inside: set[str] = set()
    for node in defs.values():
        if not isinstance(node, dict):
            continue
        top = node.get("anyOf", node.get("oneOf"))
        listed = {id(m) for m in top} if isinstance(top, list) else set()
        stack: list[Any] = [v for k, v in node.items() if k != "$ref"]
        while stack:
            item = stack.pop()
            if isinstance(item, dict):
                name = _local(item.get("$ref"))
                if name is not None and id(item) not in listed:
                    inside.add(name)
                stack.extend(item.values())
            elif isinstance(item, list):
                stack.extend(item)
    todo = list(inside)
    while todo:
        for member in _members(defs.get(todo.pop())) or []:
            if member not in inside:
                inside.add(member)
                todo.append(member)
    return inside


def _refs_of(node: Any) -> Iterator[str]:
    """The definitions a reply schema names at its top: itself a `$ref`, or a union's members."""
    if isinstance(node, dict):
        name = _local(node.get("$ref"))
        if name is not None:
            yield name
        for member in node.get("anyOf", node.get("oneOf", [])) or []:
            if isinstance(member, dict) and _local(member.get("$ref")) is not None:
                yield _local(member["$ref"])  # type: ignore[misc]


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
        elif key == "documents":
            _check_documents(value, path)
        elif value is None:
            raw[key] = {}  # a skeleton's key left empty
        elif not (isinstance(value, dict) and all(isinstance(k, str) for k in value)):
            raise ImportRefused(f"{path}#/{key}: expected method: value entries")
    for method, value in raw.get("types", {}).items():
        if value not in TYPES:
            raise ImportRefused(f"{path}#/types/{method}: expected request or notification, found {value!r}")
    for method, value in raw.get("senders", {}).items():
        values = value if isinstance(value, list) else [value]
        if not values or not all(isinstance(v, str) and v for v in values):
            raise ImportRefused(f"{path}#/senders/{method}: expected a role or a list of roles")
    for method, value in raw.get("replies", {}).items():
        if value is not None and not (isinstance(value, str) and value):
            raise ImportRefused(f"{path}#/replies/{method}: expected a definition name or a JSON pointer "
                                "(#/...), or null for a result not checked")
    return raw


def _check_documents(value: Any, path: Path) -> None:
    """`documents: {agent-card: {path: /.well-known/agent-card.json, schema: AgentCard, by: server}}`: JSON
    documents served over HTTP GET beside the JSON-RPC messages (A2A's AgentCard), each a kind of its own."""
    if not isinstance(value, dict):
        raise ImportRefused(f"{path}#/documents: expected name: {{path, schema, by?}} entries")
    for name, entry in value.items():
        where = f"{path}#/documents/{name}"
        if not (isinstance(name, str) and re.fullmatch(r"[a-z0-9][a-z0-9-]*", name)):
            raise ImportRefused(f"{where}: a document's name is lower-case letters, digits and -")
        if not (isinstance(entry, dict) and isinstance(entry.get("path"), str) and entry["path"].startswith("/")
                and isinstance(entry.get("schema"), str) and entry["schema"]
                and isinstance(entry.get("by", "server"), str) and not entry.keys() - {"path", "schema", "by"}):
            raise ImportRefused(f"{where}: expected {{path: /..., schema: a definition or a JSON pointer, by: a "
                                "role (default server)}}")


def document_kinds(mapping: Mapping[str, Any], roles: list[str], schema: Mapping[str, Any], where: str,
                   pointer: Callable[[str], str | None] | None, source: str, word: str = "$defs"
                   ) -> list[dict[str, Any]]:
    """A request kind (GET, no body) and a response kind (200, the document's schema) per mapped document."""
    kinds: list[dict[str, Any]] = []
    for name, entry in mapping.get("documents", {}).items():
        by = entry.get("by", "server")
        if by not in roles:
            raise ImportRefused(f"{where}#/documents/{name}/by: {by!r} is not a role ({', '.join(roles)})")
        reader = roles[1] if by == roles[0] else roles[0]
        given = entry["schema"]
        target = schema_place(given, schema, pointer, f"{where}#/documents/{name}/schema", word)
        http = {"method": "GET", "path": entry["path"]}
        note = f"the mapping: GET {entry['path']} is answered by the {by} with {given}"
        kinds += [
            {"id": f"{name}.request", "title": f"GET {entry['path']} ({name}, asked by the {reader})",
             "channel": "http", "producer": reader, "consumer": by, "selector": {"http": dict(http)},
             "body": "empty", "provenance": {"source": source, "note": note}},
            {"id": f"{name}.response", "title": f"The {name} document (served by the {by})", "channel": "http",
             "producer": by, "consumer": reader, "selector": {"http": {**http, "status": 200}},
             "schema": f"schema.json#{target}", "answers": f"{name}.request",
             "provenance": {"source": source, "note": note}},
        ]
    return kinds


def derive(schema: Mapping[str, Any], mapping: Mapping[str, Any] | None = None, where: str = "the mapping", *,
           word: str = "$defs", pointer: Callable[[str], str | None] | None = None) -> Derivation:
    """The methods of a JSON-RPC schema (2020-12, `$defs`), their types, senders and replies, and what could not
    be derived. Pure. `word`: how the schema given names its definitions (texts name them so); `pointer`: a JSON
    pointer into the schema given → the same place in `schema` (None where there is none). ImportRefused when no
    method is found or the mapping names what the schema lacks."""
    from wirecheck.diff.derive import method_constant
    from wirecheck.importer.acp import methods as acp_methods

    mapping = mapping or {}
    defs = schema.get("$defs")
    if not isinstance(defs, dict):
        raise ImportRefused("the schema has no $defs (definitions): no message type to derive a kind from")
    by_definition = {name: method_constant(node) for name, node in defs.items()}
    table = [e for e in acp_methods(schema) if "request" in e or "notification" in e] \
        if not any(by_definition.values()) else []
    derivation = _from_tables(table, word) if table else _from_structure(defs, by_definition, word)
    if not derivation.methods:
        raise ImportRefused("no definition fixes `method` as a constant, and none is annotated x-method/x-side: no "
                            "JSON-RPC method to derive a kind from (profile json-rpc reads MCP's and A2A's "
                            "`*Request` definitions with properties.method.const, and ACP's method tables)")
    names = {m.name for m in derivation.methods}
    for key in ("senders", "types", "replies"):
        for method in mapping.get(key, {}):
            if method not in names:
                part = derivation.parts.get(method)
                raise ImportRefused(f"{where}#/{key}/{method}: the schema defines no message {method!r}"
                                    + (f" ({part})" if part else ""))
    roles = derivation.roles
    if "roles" in mapping:
        roles = derivation.roles = list(mapping["roles"])
    not_derived = derivation.not_derived
    if len(roles) != 2:
        listed = ", ".join(f"{name.capitalize()}{part}" for name, parts in sorted(derivation.unions.items())
                           for part in parts)
        not_derived.append({"what": f"the two roles: the schema's unions of messages name {len(roles)} "
                                    f"({listed or 'none'}: <Role>Request, <Role>Notification, <Role>Result)",
                            "supply": "roles: [client, server]"})
    for entry in derivation.methods:
        method = entry.name
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
        elif len(roles) == 2 and (unknown := [r for r in entry.senders if r not in roles]):
            raise ImportRefused(f"{where}#/roles: {method} is sent by the {', '.join(unknown)} (the schema's "
                                f"{', '.join(u.capitalize() for u in unknown)}… unions list {word}/"
                                f"{entry.definition}), which is not one of the roles named there ({', '.join(roles)}):"
                                f" name it there, or supply senders: {{{method}: {roles[0]}}}")
        if entry.type is None:
            not_derived.append({"method": method, "what": f"whether {word}/{entry.definition} is a request or a "
                                "notification (not named *Request or *Notification, in no union)",
                                "supply": f"types: {{{_key(method)}: request}}"})
        if not entry.senders:
            not_derived.append({"method": method, "what": f"who sends {method} (no <Role>Request or "
                                f"<Role>Notification union lists {word}/{entry.definition})",
                                "supply": f"senders: {{{_key(method)}: {roles[0] if len(roles) == 2 else 'client'}}}"})
        if entry.type != "request":
            entry.reply = None
        elif method in mapping.get("replies", {}):
            _mapped_reply(entry, mapping["replies"][method], schema, where, word, pointer)
        elif not table:
            _paired_reply(entry, defs, derivation.unions, roles, word)
    if not table:
        _shared_results(derivation, defs, roles, mapping)
    for entry in derivation.methods:
        if entry.type == "request" and entry.reply is None and _reply_unmapped(entry, mapping):
            refused = next((h for h in entry.how if h.startswith("not answered by")), None)
            why = refused or (f"no definition is paired with {word}/{entry.definition} (a <Name>ResultResponse, "
                              "<Name>SuccessResponse or <Name>Response with a `result`, or a <Name>Result), and no "
                              "member of the receiver's <Role>Result union is left for it")
            not_derived.append({"method": entry.name, "what": f"the result of {entry.name}: {why}: its result is "
                                "not checked",
                                "supply": f"replies: {{{_key(entry.name)}: <a definition or a JSON pointer>}}"})
    return derivation


def _reply_unmapped(entry: Method, mapping: Mapping[str, Any]) -> bool:
    return entry.name not in mapping.get("replies", {})


def _from_structure(defs: Mapping[str, Any], by_definition: Mapping[str, str | None], word: str) -> Derivation:
    """Methods from `method` constants, directions from the unions of messages, replies still to pair."""
    inside = _inside(defs)
    unions: dict[str, dict[str, list[str]]] = {}
    union_names: dict[tuple[str, str], str] = {}
    first: dict[str, Any] = {}  # method → the first definition that fixes it (its type; a later one is a copy)
    for name, method in by_definition.items():
        if method is not None:
            first.setdefault(method, name)
    for name, node in defs.items():
        found = UNION.match(name)
        if not found or found.group(1) == "JSONRPC" or name in inside:
            continue
        members = _members(node)
        method = by_definition.get(name)
        if members is None and found.group(2) != "Result" and method and first[method] != name:
            members = [name]  # a copy of one member in the union's place (MCP 2026-07-28's ClientNotification)
        if members:
            unions.setdefault(found.group(1).lower(), {})[found.group(2)] = members
            union_names[found.group(1).lower(), found.group(2)] = name
    # a prefix is a role where it sends requests or notifications (`EmptyResult`, an alias of `Result`, is none)
    unions = {prefix: parts for prefix, parts in unions.items() if parts.keys() & {"Request", "Notification"}}
    listed = {m for parts in unions.values() for part in ("Request", "Notification") for m in parts.get(part, [])}
    # one prefix that is no role (A2A's A2ARequest): its requests are the Client's, the Server answers them
    names = {prefix: prefix for prefix in unions}
    roles = sorted(unions)
    lone = roles[0] if len(roles) == 1 else None
    if lone is not None and "Request" in unions[lone]:
        if lone not in JSONRPC_ROLES:
            names[lone] = "client"
        roles = list(JSONRPC_ROLES)
    methods: dict[str, Method] = {}
    parts: dict[str, str] = {}
    for name, method in by_definition.items():
        if method is None:
            continue
        if method in methods:  # one type per method (the first; a second is listed)
            methods[method].how.append(f"also written as {word}/{name}"
                                       + (", a union of messages with this one member" if name in listed else ""))
            continue
        if name in inside and name not in listed:
            users = sorted(u for u, node in defs.items() if name in (_members(node) or [])) or ["another definition"]
            parts.setdefault(method, f"{word}/{name} is a part of messages: a member of {', '.join(users)}, which "
                                     "a definition uses inside itself")
            continue
        entry = methods[method] = Method(method, name, None)
        entry.how.append(f"{word}/{name} fixes method {method!r}")
        for suffix, kind in (("Request", "request"), ("Notification", "notification")):
            if name.endswith(suffix):
                entry.type = kind
                entry.how.append(f"a {kind}: its type is named *{suffix}")
        node = defs[name]
        props = node.get("properties", {}) if isinstance(node, dict) else {}
        if isinstance(props, dict) and "params" in props:
            entry.params = f"/$defs/{name}/properties/params"
            entry.params_required = "params" in (node.get("required") or [])
    for prefix, union_parts in sorted(unions.items()):
        role = names[prefix]
        for part, kind in (("Request", "request"), ("Notification", "notification")):
            for member in union_parts.get(part, []):
                sent = methods.get(by_definition.get(member) or "")
                if sent is None or role in sent.senders:
                    continue
                sent.senders.append(role)
                union = union_names[prefix, part]
                sent.how.append(f"sent by the {role}: a member of {union}" + (
                    " (the schema's one union of requests: JSON-RPC 2.0 section 1, the Client sends requests, the "
                    "Server answers them)" if role != prefix else ""))
                if sent.type is None:
                    sent.type = kind
                    sent.how.append(f"a {kind}: a member of {union}")
    unions = {names[prefix]: parts_ for prefix, parts_ in unions.items()}
    return Derivation(roles, [methods[m] for m in sorted(methods)], [], unions, parts, word)


def _from_tables(table: list[dict[str, str]], word: str) -> Derivation:
    """Methods from ACP's method tables: `x-method` and `x-side` (the receiver) on each params definition."""
    methods: dict[tuple[str, str], Method] = {}  # one method may be a request one way, a notification the other
    for entry in table:
        definition = entry.get("request") or entry["notification"]
        kind = "request" if "request" in entry else "notification"
        method = methods.get((entry["method"], kind))
        if method is None:
            method = methods[entry["method"], kind] = Method(entry["method"], definition, kind,
                                                       params=f"/$defs/{definition}")
            method.how.append(f"{word}/{definition} is annotated x-method {entry['method']!r}: the params of a "
                              f"{kind} (named *{kind.capitalize()})")
            if "response" in entry:
                method.reply = f"/$defs/{entry['response']}"
                method.how.append(f"answered by {word}/{entry['response']}: annotated x-method "
                                  f"{entry['method']!r}, named *Response")
        side = entry["side"]
        senders = [s for s in ACP_SIDES if s != side] if side in ACP_SIDES else list(ACP_SIDES)
        for sender in senders:
            if sender not in method.senders:
                method.senders.append(sender)
        method.how.append(f"x-side {side}: " + (f"the {side} receives it, the {senders[0]} sends it"
                                                 if side in ACP_SIDES else "either side sends it"))
    return Derivation(list(ACP_SIDES), [methods[m] for m in sorted(methods)], [], {}, {}, word)


def schema_place(value: str, schema: Mapping[str, Any], pointer: Callable[[str], str | None] | None, where: str,
                 word: str) -> str:
    """What a mapping names as a schema (a definition name, or a JSON pointer into the file as written, `#/...` or
    `FILE#/...`) → a JSON pointer into the imported schema; ImportRefused at `where` when it names nothing there."""
    if "#" not in value:
        if value not in schema.get("$defs", {}):
            raise ImportRefused(f"{where}: the schema defines no {value!r} (a definition name, or a JSON pointer "
                                f"into the schema file: #/{word}/...)")
        return f"/$defs/{value}"
    given = value.partition("#")[2]
    target = pointer(given) if pointer is not None else given
    if target is None or not given.startswith("/") or resolve(schema, parse_pointer(target), MISSING) is MISSING:
        raise ImportRefused(f"{where}: {value!r} points at nothing in the schema")
    return target


def _mapped_reply(entry: Method, value: str | None, schema: Mapping[str, Any], where: str, word: str,
                  pointer: Callable[[str], str | None] | None) -> None:
    if value is None:
        entry.reply = None
        entry.how.append("its result is not checked: the mapping says so")
        return
    entry.reply = schema_place(value, schema, pointer, f"{where}#/replies/{entry.name}", word)
    entry.how.append(f"answered by {value}: the mapping says so")


def _receivers(entry: Method, roles: list[str]) -> list[str]:
    """Who receives a method: the other role of each of its senders."""
    if len(roles) != 2:
        return []
    return sorted({roles[1] if sender == roles[0] else roles[0] for sender in entry.senders if sender in roles})


def _paired_reply(entry: Method, defs: Mapping[str, Any], unions: Mapping[str, Mapping[str, list[str]]],
                  roles: list[str], word: str) -> None:
    """The reply the schema pairs with a request by name, if any (else entry.reply stays None)."""
    if not entry.definition.endswith("Request"):
        return
    base = entry.definition.removesuffix("Request")
    for suffix in RESPONSES:
        node = defs.get(base + suffix)
        props = node.get("properties") if isinstance(node, dict) else None
        if isinstance(props, dict) and "result" in props:
            entry.reply = f"/$defs/{base}{suffix}/properties/result"
            entry.how.append(f"answered by the result of {word}/{base}{suffix} (#/{word}/{base}{suffix}/properties/"
                             f"result): named after {word}/{entry.definition}")
            return
    candidate = f"{base}Result"
    if candidate not in defs:
        return
    receivers = _receivers(entry, roles)
    outside = [r for r in receivers if "Result" in unions.get(r, {}) and candidate not in unions[r]["Result"]]
    if outside:
        entry.how.append(f"not answered by {word}/{candidate}: it is not in {outside[0].capitalize()}Result, the "
                         f"results the {outside[0]} sends")
        return
    entry.reply = f"/$defs/{candidate}"
    entry.how.append(f"answered by {word}/{candidate}: named after {word}/{entry.definition}"
                     + (f", a member of {receivers[0].capitalize()}Result" if receivers and "Result" in
                        unions.get(receivers[0], {}) else ""))


def _shared_results(derivation: Derivation, defs: Mapping[str, Any], roles: list[str],
                    mapping: Mapping[str, Any]) -> None:
    """A request the schema pairs with no result is answered by the one member of the receiver's `<Role>Result`
    union that no request is paired with (MCP's `Result`, the shared empty result its TypeScript calls EmptyResult)."""
    word = derivation.word
    claimed: set[str] = set()
    for entry in derivation.methods:
        if entry.reply is not None:
            tokens = parse_pointer(entry.reply)
            claimed.add(tokens[1])
            claimed.update(_refs_of(resolve({"$defs": defs}, tokens, None)))
    for entry in derivation.methods:
        if entry.type != "request" or entry.reply is not None or not _reply_unmapped(entry, mapping) \
                or any(h.startswith("not answered by") for h in entry.how):  # a pairing the unions contradict
            continue
        receivers = _receivers(entry, roles)
        left = {r: [m for m in derivation.unions.get(r, {}).get("Result", []) if m not in claimed] for r in receivers}
        shared = {tuple(members) for members in left.values()}
        if receivers and len(shared) == 1 and len(members := next(iter(shared))) == 1:
            entry.reply = f"/$defs/{members[0]}"
            entry.how.append(f"answered by {word}/{members[0]}: the schema pairs no result with {word}/"
                             f"{entry.definition}, and {word}/{members[0]} is the one member of "
                             + " and ".join(f"{r.capitalize()}Result" for r in receivers)
                             + " that no request is paired with")


def skeleton(derivation: Derivation, mapping: Mapping[str, Any], schema_name: str) -> str:
    """A mapping file for the user to fill: what the mapping given says, and an empty entry (null) for each thing
    not derived, with what to write there in the terms of the schema given."""
    word = derivation.word
    lines = [f"# What {schema_name}'s structure does not say, for `wirecheck import schema {schema_name} --profile "
             "json-rpc ... --mapping THIS_FILE`.",
             "# Fill each null (or delete the entry), then import again. Written by wirecheck import schema: "
             "tools/wirecheck/importer/jsonrpc.py."]
    gaps = {(item.get("method"), item["supply"].split(":", 1)[0]): item for item in derivation.not_derived}
    roles = mapping.get("roles") or (derivation.roles if len(derivation.roles) == 2 else None)
    if roles is None:
        lines += [f"# {gaps[None, 'roles']['what']}", "roles: [null, null]"]
    else:
        lines.append(f"roles: [{', '.join(roles)}]" if "roles" in mapping else f"# roles: [{', '.join(roles)}]  "
                     "(derived)")
    hints = {"senders": f"the role that sends it ({' or '.join(roles) if roles else 'one of roles'}), or a list",
             "types": "request or notification",
             "replies": f"a definition of {schema_name} ({word}/Name → Name), or a JSON pointer into it "
                        f"(\"#/{word}/Name/properties/result\"); null: not checked"}
    for key in ("senders", "types", "replies"):
        given = dict(mapping.get(key, {}))
        open_ = sorted(method for method, what in gaps if what == key and method is not None)
        if not given and not open_:
            continue
        lines += [f"# {key}: {hints[key]}", f"{key}:"]
        for method, value in given.items():
            lines.append(f"  {_yaml_scalar(method)}: {_yaml_scalar(value)}")
        for method in open_:
            lines += [f"  # {gaps[method, key]['what']}", f"  {_yaml_scalar(method)}: null"]
    return "\n".join(lines) + "\n"


def _yaml_scalar(value: Any) -> str:
    return yaml.safe_dump(value, default_flow_style=True, width=10**6).strip().removesuffix("...").strip()


def _params_envelope(entry: Method, request_id: str, sender: str, receiver: str) -> dict[str, Any]:
    properties: dict[str, Any] = {"jsonrpc": {"const": "2.0"}, "method": {"const": entry.name}}
    needed = ["jsonrpc", "method"]
    if entry.type == "request":
        properties["id"] = {"$ref": request_id}
        needed.insert(1, "id")
    if entry.params is not None:
        properties["params"] = {"$ref": f"schema.json#{entry.params}"}
        if entry.params_required:
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


def _error_ref(defs: Mapping[str, Any]) -> str:
    """The error object of a JSON-RPC error response as the schema writes it: the `error` of its JSONRPCError (MCP
    to 2025-06-18) or JSONRPCErrorResponse (MCP 2025-11-25 on, A2A: a union of its errors), else its `Error` (ACP),
    else JSON-RPC 2.0's own (wire.json)."""
    for name in ("JSONRPCError", "JSONRPCErrorResponse"):
        node = defs.get(name)
        props = node.get("properties") if isinstance(node, dict) else None
        if isinstance(props, dict) and isinstance(props.get("error"), dict):
            return f"schema.json#/$defs/{name}/properties/error"
    return "schema.json#/$defs/Error" if isinstance(defs.get("Error"), dict) else "#/$defs/jsonrpc.Error"


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
    error = _error_ref(defs)
    wire_defs: dict[str, Any] = {}
    kinds: list[dict[str, Any]] = []
    ids = _kind_ids(derivation)
    for entry in derivation.methods:
        if entry.type is None or len(roles) != 2:
            continue
        for sender in entry.senders:
            receiver = roles[1] if sender == roles[0] else roles[0]
            kid = ids[receiver, entry.name]
            wire_defs[kid] = _params_envelope(entry, request_id, sender, receiver)
            kind: dict[str, Any] = {
                "id": kid, "title": f"{entry.name} ({entry.type} from the {sender})", "channel": "stdio-ndjson",
                "producer": sender, "consumer": receiver,
                "selector": {"fields": {"/jsonrpc": "2.0", "/method": entry.name}},
                "schema": f"wire.json#/$defs/{kid}",
            }
            if entry.type == "request" and entry.reply is not None:
                kind["reply"] = {"at": "/result", "schema": f"schema.json#{entry.reply}"}
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


def readers_yaml(roles: list[str], schema: Mapping[str, Any], http: bool = False) -> str:
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
    for role in roles if http else []:  # the documents' GETs (documents in the mapping): conservative readings
        lines += [
            "  - channel: http", f"    consumer: {role}", "    reads: reject",
            "    provenance: {source: jsonrpc, note: \"drafted: a GET for a path the server does not serve, or an "
            "answer of no kind, is one its reader cannot use (conservative; review against the real reader)\"}",
        ]
    return "\n".join(lines) + "\n"


def behaviour_yaml(kinds: list[dict[str, Any]], schema: Mapping[str, Any], version: str) -> str | None:
    """A drafted behaviour.yaml from JSON-RPC 2.0 itself: every request is answered by its receiver (section 4:
    "the Server MUST reply with a Response", and a requester awaits the answer to its id), one obligation per side
    that receives requests; and where the schema has an `initialize` request whose reply carries a
    `protocolVersion` (MCP's handshake), the version the answer negotiates is this release's (a client that asked
    for it refuses another: it is another revision). None when the schema has no request."""
    receivers: dict[str, str] = {}  # receiver → the role whose requests it answers
    handshake = None
    for kind in kinds:
        reply = kind.get("reply")
        if reply is None:
            continue
        receivers.setdefault(kind["consumer"], kind["producer"])
        fields = kind.get("selector", {}).get("fields", {})
        # only where the release is named after the revision a handshake negotiates (MCP's dated revisions): ACP's
        # protocolVersion is an integer, and its releases are named after the SDK whose schema they import
        if fields.get("/method") == "initialize" and "protocolVersion" in _reply_properties(reply, schema) \
                and re.fullmatch(r"\d{4}-\d{2}-\d{2}", version):
            handshake = kind["id"]
    if not receivers:
        return None
    lines = [
        "# Drafted by `wirecheck import schema --profile json-rpc` from JSON-RPC 2.0 itself: review it against how the",
        "# real readers wait for answers (contracts/README.md \"Behaviour\") and cite their source lines.",
        "sources:",
        '  jsonrpc-spec: {type: upstream-docs, ref: "JSON-RPC 2.0 specification (jsonrpc.org/specification)", '
        'note: "section 4: the Server MUST reply with a Response, except for Notifications"}',
        "obligations:",
    ]
    for receiver, sender in sorted(receivers.items()):
        lines += [
            f"  - id: {_token(receiver)}-ANSWERS-REQUESTS", "    level: MUST", f"    subject: {receiver}",
            f"    says: The {receiver} answers every request the {sender} sends with one response carrying its id.",
            f"    reader: {{consumer: the {sender}, reaction: hangs, provenance: {{source: jsonrpc-spec, at: "
            '["JSON-RPC 2.0 section 4 (the Server MUST reply with a Response) and 5 (the Response carries the '
            'Request\'s id): a requester awaiting that id waits until its own timeout, if it set one"]}}',
            f"    answered: {{from: {sender}}}",
        ]
    if handshake is not None:
        lines[3:3] = ['  mcp-sdk: {type: published-release, ref: "npm @modelcontextprotocol/sdk@1.32.2 '
                      'dist/esm/client/index.js", note: "the MCP TypeScript client\'s initialize"}']
        lines += [
            "  - id: NEGOTIATES-THIS-REVISION", "    level: MUST", f"    subject: {_receiver(kinds, handshake)}",
            f"    says: The answer to initialize negotiates protocolVersion {version}, the revision this release is.",
            "    reader: {consumer: the client, reaction: rejects, provenance: {source: mcp-sdk, at: [\""
            "@modelcontextprotocol/sdk@1.32.2 dist/esm/client/index.js:294 (a protocolVersion the client does not "
            "support: it throws, the protocol version is not supported)\"], note: \"a peer that negotiates another "
            "revision speaks that revision: a certificate for this one would certify what it does not speak\"}}",
            f"    negotiated: {{kinds: [{handshake}], reply: true, at: /result/protocolVersion, "
            f'equals: ["{version}"]}}',
        ]
    return "\n".join(lines) + "\n"


def _receiver(kinds: list[dict[str, Any]], kind_id: str) -> str:
    return next(k["consumer"] for k in kinds if k["id"] == kind_id)


def _token(text: str) -> str:
    return re.sub(r"[^A-Z0-9]+", "-", text.upper()).strip("-")


def _reply_properties(reply: Mapping[str, Any], schema: Mapping[str, Any]) -> set[str]:
    """The property names the reply schema (a `schema.json#/...` link) declares, following one `$ref`."""
    ref = str(reply.get("schema", ""))
    node: Any = schema
    for token in ref.partition("#")[2].strip("/").split("/") if "#" in ref else []:
        node = node.get(token.replace("~1", "/").replace("~0", "~"), {}) if isinstance(node, dict) else {}
    if isinstance(node, dict) and isinstance(node.get("$ref"), str) and node["$ref"].startswith("#/"):
        return _reply_properties({"schema": "schema.json" + node["$ref"]}, schema)
    return set(node.get("properties", {})) if isinstance(node, dict) else set()


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
        from wirecheck.yaml_lines import YamlFileError, parse_yaml

        try:  # the one YAML loader: what no JSON value holds (NaN, sets), alias bombs refused where they are
            loaded = parse_yaml(text, str(path)) or {}
        except YamlFileError as exc:
            raise ImportRefused(str(exc)) from None
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


def check_release_names(package: str, version: str) -> None:
    """ImportRefused unless `package` and `version` are names a registry.yaml takes (its schema's own patterns:
    registry.schema.json), before anything is read or written: each names a folder written (<package>/<version>/),
    and `--version /any/dir` or `../../X` wrote five files there before the release was refused (issue 41, 6)."""
    from wirecheck.contracts.loader import own_schema

    packages = own_schema("registry.schema.json")["properties"]["packages"]
    releases = packages["additionalProperties"]["properties"]["releases"]["items"]
    if not re.fullmatch(packages["propertyNames"]["pattern"].strip("^$"), package):
        raise ImportRefused(f"--package {package!r}: lower-case letters, digits and -, as contracts/<package>/")
    if not re.fullmatch(releases["pattern"].strip("^$"), version):
        raise ImportRefused(f"--version {version!r}: a semantic version (1.0.0, 2.1.0-beta.1) or a dated revision "
                            "(2025-06-18), as contracts/<package>/<version>/ (registry.yaml's releases)")


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
    from wirecheck.output_files import write_text

    check_release_names(package, version)
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
    word = "definitions" if isinstance(upstream, dict) and isinstance(upstream.get("definitions"), dict) \
        and not isinstance(upstream.get("$defs"), dict) else "$defs"
    derivation = derive(schema, mapping, str(mapping_path) if mapping_path else "the mapping", word=word,
                        pointer=translation.translated_pointer)
    skeleton_path = out / f"{package}@{version}.mapping.yaml"
    if derivation.not_derived and skeleton_path != mapping_path:
        skeleton_path.parent.mkdir(parents=True, exist_ok=True)
        skeleton_path.write_text(skeleton(derivation, mapping, path.name), encoding="utf-8")
        derivation.skeleton = skeleton_path
    if len(derivation.roles) != 2:
        listed = "; ".join(f"{n['what']} (supply: {n['supply']})" for n in derivation.not_derived)
        raise ImportRefused(f"{path}: {listed}; a mapping to fill is written to {skeleton_path}")
    kinds, wire = jsonrpc_kinds(schema, derivation, package=package, version=version, base=base, source="schema")
    documents = document_kinds(mapping, derivation.roles, schema, str(mapping_path), translation.translated_pointer,
                               "schema", word)
    kinds += documents
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
        "methods": [{"method": m.name, "type": m.type, "senders": m.senders,
                     "reply": f"#{translation.source_pointer(m.reply)}" if m.reply else None, "how": m.how}
                    for m in derivation.methods],
        "parts": derivation.parts or None,
        "not_derived": derivation.not_derived,
        "mapping": {"file": mapping_path.name, **mapping} if mapping_path else None,
    }
    files = {
        "schema.json": json.dumps(schema, indent=2, ensure_ascii=False) + "\n",
        "wire.json": json.dumps(wire, indent=2, ensure_ascii=False) + "\n",
        "catalog.yaml": header + yaml.safe_dump(catalog, sort_keys=False, width=118, allow_unicode=True),
        "readers.yaml": readers_yaml(derivation.roles, schema, http=bool(documents)),
        "import.yaml": yaml.safe_dump(record, sort_keys=False, width=118, allow_unicode=True),
    }
    behaviour = behaviour_yaml(kinds, schema, version)
    if behaviour is not None:
        files["behaviour.yaml"] = behaviour
    if license_path is not None:
        try:
            files["LICENSE"] = read_text(license_path, "licence file")
        except Unreadable as exc:
            raise ImportRefused(str(exc)) from None
    registry = registry_text(out, package, version, str(catalog["title"]))
    with tempfile.TemporaryDirectory(prefix="wirecheck-import-schema-") as temp:
        trial = Path(temp)
        write_folder(files, trial / package / version)
        # output_files: a full disk is Unwritable (a usage error naming the file), never a bare OSError
        write_text(trial / "registry.yaml", registry or read_text(out / "registry.yaml", "contract file"))
        try:
            release = load_registry(trial).load(f"{package}@{version}")
        except ContractError as exc:
            problems = "\n  ".join(str(p).replace(temp, str(out)) for p in exc.problems)
            raise ImportRefused(f"{path}: the imported release would not load, so nothing was written (the files "
                                f"named are those the import would have written):\n  {problems}") from None
        requirements, _ = merge(release, [])
        files["requirements.yaml"] = render(release, requirements)
        write_text(trial / package / version / "requirements.yaml", files["requirements.yaml"])
        try:
            load_requirements(trial / package / version / "requirements.yaml", release)
        except ContractError as exc:  # a bug of the drafting, not of the schema: said as it is
            raise ImportRefused(f"{path}: the drafted requirement set would not load: {exc}") from None
    # together: every file whole, or none in place (and no folder made for them left behind: a full disk)
    outputs = {f"{package}/{version}/{name}": text for name, text in files.items()}
    if registry is not None:
        outputs["registry.yaml"] = registry
    return out / package / version, write_folder(outputs, out), derivation
