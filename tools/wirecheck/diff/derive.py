"""Message kinds derived from a raw schema (`diff-schemas --kinds auto`), so it reports per message as `diff` does
on a catalog.

- A root that is a union of messages — JSON-RPC requests, responses and notifications, or any tagged or titled
  union — is unfolded down to its leaves: a union's members, an object's union beside its properties, and the union
  under a JSON-RPC envelope's `params` or `result`. Each leaf is a kind, named by its JSON-RPC method when the
  schema gives one (a `method` constant, or the `x-method` annotation of ACP's generator), else by the titles,
  tags or definition names on its way (`Agent / Response / Error`). Its schema is the root with every union on the
  way narrowed to the chosen member, written as a small synthetic resource whose every other part is a `$ref` to
  where the original is written; a method kind also fixes `method` to its name, as a catalog's selector does.
- A schema that is only a set of definitions (no root constraint; MCP's `schema.json`) is compared definition by
  definition: each `$defs` entry is a kind named by its name.
- Anything else is one kind, `schema`, as before.

Kinds named by a method or a definition name are told apart by that name (readers dispatch on a JSON-RPC method;
a definition is asked for by name): a kind one side lacks is added or removed whatever the other side's union
would accept. Kinds named only by titles or tags are told apart by validation, so their witnesses are checked
against the other side's whole schema.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from wirecheck.contracts.views import subschemas
from wirecheck.diff.flat import flatten
from wirecheck.diff.shape import unwrapped
from wirecheck.diff.side import Side, child, join, uri_of
from wirecheck.diff.vocabulary import assertions, is_annotation, required_alternatives, tag
from wirecheck.pointer import parse_pointer

KINDS_RESOURCE = "https://kinds.wirecheck.invalid/{side}/kinds.json"
_MAX_DEPTH = 16
_MAX_KINDS = 4096
_ENVELOPE_PAYLOADS = ("params", "result")  # JSON-RPC 2.0: what a request, notification or response carries
_ROLE_SUFFIXES = (("Request", "request"), ("Response", "response"), ("Notification", "notification"))
_SCHEMA_VALUE = frozenset({"items", "additionalProperties", "unevaluatedProperties", "unevaluatedItems", "not",
                           "if", "then", "else", "contains", "propertyNames", "additionalItems", "contentSchema"})
_SCHEMA_LIST = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_SCHEMA_MAP = frozenset({"properties", "patternProperties", "dependentSchemas"})
_DROPPED = frozenset({"$defs", "definitions", "$id", "$schema"})


@dataclass(frozen=True)
class DerivedKind:
    id: str
    location: str  # where its schema is: a synthetic node, a `$defs` entry, or the root
    selector: str  # how a reader recognises it, for messages: "method session/new", "definition Foo", the labels
    dispatch: bool  # told apart by name (method, definition) rather than by validation
    key: str = ""  # a second identity to match by when the id changed (the method and role)
    written: str = ""  # where the message type itself is written (the leaf of a synthetic kind)
    uses: tuple[str, ...] = ()  # the unions that list it (a schema of definitions): kinds are matched by use too
    # a definition no message refers to, compared as a kind of its own (a document such as A2A's AgentCard): one
    # that appears or goes is a helper's coming or going as much as a document's, so that alone is not reported
    document: bool = False


@dataclass
class Derived:
    kinds: list[DerivedKind]
    by_definition: bool = False  # the kinds are the definitions of a schema without a root constraint
    resources: dict[str, Any] = field(default_factory=dict)  # the synthetic resource, when there is one
    origins: dict[str, str] = field(default_factory=dict)  # synthetic location → where it is written
    # the schema every message of every kind satisfies (a kind told apart by validation is checked against it):
    # the root, or for a schema of definitions a synthetic union of its kinds
    whole: str | None = None


def match_derived(old: list[DerivedKind], new: list[DerivedKind]) -> tuple[
        list[tuple[DerivedKind, DerivedKind]], list[DerivedKind], list[DerivedKind]]:
    """(matched, only old, only new): by id, then by key where the key names one kind on each side."""
    new_by_id = {k.id: k for k in new}
    matched = [(k, new_by_id.pop(k.id)) for k in old if k.id in new_by_id]
    done = {id(a) for a, _ in matched}
    left_old = [k for k in old if id(k) not in done]
    old_keys = Counter(k.key for k in left_old if k.key)
    new_keys = Counter(k.key for k in new_by_id.values() if k.key)
    by_key = {k.key: k for k in new_by_id.values() if k.key and new_keys[k.key] == 1}
    only_old = []
    for kind in left_old:
        twin = by_key.get(kind.key) if kind.key and old_keys[kind.key] == 1 else None
        if twin is not None:
            matched.append((kind, twin))
            del new_by_id[twin.id]
        else:
            only_old.append(kind)
    return matched, only_old, list(new_by_id.values())


@dataclass(frozen=True)
class _Step:
    how: str  # "ref" | "allOf" | "union" | "property"
    location: str  # the node the step leaves
    word: str = ""  # the union keyword, or the property name
    index: int = 0


@dataclass
class _Leaf:
    steps: tuple[_Step, ...]
    location: str
    labels: tuple[str, ...]
    method: str | None
    side_hint: str | None
    role: str
    envelope: str | None  # the location of the envelope object whose `method` a method kind fixes


def derive(resources: dict[str, Any], root: str, side_name: str) -> Derived | None:
    """The kinds of the schema at `root` (a location in `resources`), or None when it is one message."""
    reader = Side(side_name, resources)
    node = reader.node(root)
    if not isinstance(node, dict):
        return None
    definitions = node.get("$defs") if isinstance(node.get("$defs"), dict) else node.get("definitions")
    if not assertions(node) and isinstance(definitions, dict) and definitions:
        word = "$defs" if isinstance(node.get("$defs"), dict) else "definitions"
        return _definition_kinds(reader, root, word, list(definitions), side_name)
    leaves: list[_Leaf] = []
    _unfold(reader, root, (), (), leaves, (None, None), None, 0, top=True)
    if len(leaves) < 2 or len(leaves) > _MAX_KINDS:
        return None
    named = _name(leaves)
    if named is None:
        return None
    synthetic = KINDS_RESOURCE.format(side=side_name)
    derived = Derived([], resources={synthetic: {"$id": synthetic, "$defs": {}}})
    definitions_out = derived.resources[synthetic]["$defs"]
    for index, (leaf, (kind_id, selector, dispatch, key)) in enumerate(zip(leaves, named, strict=True)):
        name = f"k{index}"
        definitions_out[name] = _synthesise(reader, leaf, 0, f"{synthetic}#/$defs/{name}", derived.origins)
        written = _through_wrappers(reader, leaf.location)[0]
        derived.kinds.append(DerivedKind(kind_id, f"{synthetic}#/$defs/{name}", selector, dispatch, key, written))
        derived.origins[f"{synthetic}#/$defs/{name}"] = written  # a kind's schema is shown as its message type
    return derived


def _definition_kinds(reader: Side, root: str, word: str, names: list[str], side_name: str) -> Derived:
    """The kinds of a schema that is only definitions (MCP's `schema.json`). A definition another one uses (a
    property's type, an `allOf` part, a member of a union something uses) is a part of messages, not a message
    kind of its own. Where unions that nothing uses list definitions (MCP's `ClientRequest`, `JSONRPCMessage`),
    their members are the kinds and the definitions outside them are helpers (a base type, a shared part);
    otherwise the kinds are the definitions nothing uses. A kind with a `method` constant is named by it and its
    role (`ping request`), as readers dispatch on it; any other by its definition name, told apart by validation.

    Where one listing union is a JSON-RPC envelope (its members all require `jsonrpc`) and a kind is the envelope's
    payload written at the same level (a `method` beside the envelope's `method`), the kind's messages are those
    both accept: MCP's requests say `method` and `params`, the envelope `jsonrpc` and `id`, and a request that
    starts requiring `id` itself (2025-11-25) breaks no message that was valid before."""
    at = {name: child(root, word, name) for name in names}
    members: dict[str, list[str]] = {}  # a union of definitions → the definitions it lists
    refers: dict[str, set[str]] = {}  # definition → the definitions it refers to
    for name in names:
        listed = _listed_definitions(reader, at[name])
        if listed:
            members[name] = listed
        refers[name] = {target for target in _referred(reader, at[name]) if target in at and target != name}
    referred = {target for targets in refers.values() for target in targets}
    roots = [name for name in names if name not in referred]
    listing: set[str] = set()  # the unions nothing uses, and the unions they list, and so on
    todo = [name for name in roots if name in members]
    while todo:
        name = todo.pop()
        if name not in listing:
            listing.add(name)
            todo += [m for m in members[name] if m in members]
    leaves: dict[str, list[str]] = {}  # kind → the listing unions it is a member of, in order of discovery
    for union in names:
        for member in members.get(union, []) if union in listing else []:
            if member not in listing:
                leaves.setdefault(member, []).append(union)
    used = _parts_of(refers, leaves)
    leaves = {name: unions for name, unions in leaves.items() if name not in used}
    documents: set[str] = set()
    if not leaves:  # no union lists the messages: the definitions nothing uses are the kinds
        leaves = {name: [] for name in roots}
    else:  # a definition no message reaches, which no union lists, is a document of its own (A2A's AgentCard)
        documents = _documents(reader, at, [name for name in roots if name not in listing and name not in leaves],
                               names)
        leaves.update({name: [] for name in documents})
    kinds = [name for name in names if name in leaves]
    # a member a listing union writes inline (MCP 2025-03-26's JSON-RPC batches, arrays of messages) is a kind too,
    # named by its union and its title or shape; what it refers to stays a kind where a union lists it
    labels = Counter[str]()
    for union in names:
        for location in _inline_members(reader, at[union]) if union in listing else []:
            label = f"{union} {_shape(reader, location)}"
            labels[label] += 1
            name = label if labels[label] == 1 else f"{label} ({labels[label]})"
            at[name], leaves[name] = location, [union]
            kinds.append(name)
    synthetic = KINDS_RESOURCE.format(side=side_name)
    derived = Derived([], by_definition=True, resources={synthetic: {"$id": synthetic, "$defs": {}}})
    out = derived.resources[synthetic]["$defs"]
    roles = {name: next((r for suffix, r in _ROLE_SUFFIXES if name.endswith(suffix)), "") or next(
        (r for union in leaves[name] for suffix, r in _ROLE_SUFFIXES if union.endswith(suffix)), "")
        for name in kinds}
    envelope = _envelope(reader, kinds, at, leaves, roles)
    named: list[tuple[str, str, bool, str]] = []
    for name in kinds:
        method, role = _method_of(reader, at[name]), roles[name]
        if method is not None:
            kind_id = f"{method} {role}" if role else method
            named.append((kind_id, f"result of method {method}" if role == "response" else f"method {method}",
                          True, kind_id))
        elif name not in names:  # a member written inline in its union
            named.append((name, f"{_shape(reader, at[name])}, a member of {leaves[name][0]}", False, ""))
        elif name in documents:
            named.append((name, f"definition {name}, which no message refers to (a document of its own)", True, ""))
        else:
            named.append((name, f"definition {name}", False, ""))
    counts = Counter(kind_id for kind_id, *_ in named)
    for index, (name, (kind_id, selector, dispatch, key)) in enumerate(zip(kinds, named, strict=True)):
        if counts[kind_id] > 1:  # one method in two definitions: told apart by their names
            kind_id, selector, dispatch, key = f"{kind_id} ({name})", f"{selector} ({name})", dispatch, ""
        location = at[name]
        wrap = envelope.get(name)
        if wrap:
            location = f"{synthetic}#/$defs/k{index}"
            if len(wrap) == 1:
                out[f"k{index}"] = _conjoined(reader, wrap[0], at[name], location, derived.origins)
            else:
                out[f"k{index}"] = {"allOf": [{"anyOf": [{"$ref": uri_of(part)} for part in wrap]},
                                              {"$ref": uri_of(at[name])}]}
            derived.origins[location] = at[name]
        derived.kinds.append(DerivedKind(kind_id, location, selector, dispatch, key, at[name],
                                         uses=tuple(leaves[name]), document=name in documents))
    # what the schema accepts as a message: what its top unions list (a generic member such as MCP's `Result`
    # included, though it is no kind of its own), else any of its kinds
    whole = [at[name] for name in roots if name in listing] or [kind.location for kind in derived.kinds]
    if whole:
        out["all"] = {"anyOf": [{"$ref": uri_of(location)} for location in whole]}
        derived.whole = f"{synthetic}#/$defs/all"
    return derived


_PLAIN_OBJECT = frozenset({"type", "properties", "required", "additionalProperties"})


def _conjoined(side: Side, envelope: str, kind: str, here: str, origins: dict[str, str], depth: int = 0) -> Any:
    """The messages both schemas accept, written as one object where both are plain open objects (`type: object`,
    `properties`, `required`, nothing closing them): each property both declare conjoined the same way, the others
    referred to where they are written, the required names of both. A plain object is what the walk and the prover
    read best; anything else is their `allOf`. `here` is where the result is written (its origin: `kind`)."""
    a, a_at = unwrapped(side, side.node(envelope), envelope, limit=_MAX_DEPTH)
    b, b_at = unwrapped(side, side.node(kind), kind, limit=_MAX_DEPTH)
    if depth > _MAX_DEPTH or not (_plain_object(side, a, a_at) and _plain_object(side, b, b_at)):
        return {"allOf": [{"$ref": uri_of(a_at)}, {"$ref": uri_of(b_at)}]}
    origins[here] = b_at
    out: dict[str, Any] = {"type": "object"}
    a_props, b_props = a.get("properties", {}), b.get("properties", {})
    out["properties"] = {name: _conjoined(side, child(a_at, "properties", name), child(b_at, "properties", name),
                                          child(here, "properties", name), origins, depth + 1)
                         if name in a_props and name in b_props else
                         {"$ref": uri_of(child(a_at if name in a_props else b_at, "properties", name))}
                         for name in {**a_props, **b_props}}
    required = list(dict.fromkeys([*a.get("required", []), *b.get("required", [])]))
    if required:
        out["required"] = required
    return out


def _plain_object(side: Side, node: Any, location: str) -> bool:
    """An object schema of nothing but `type: object`, `properties`, `required` and an open `additionalProperties`."""
    if not isinstance(node, dict) or not assertions(node) <= _PLAIN_OBJECT:
        return False
    kinds = node.get("type")
    if kinds not in ("object", ["object"]) or not isinstance(node.get("properties", {}), dict):
        return False
    extra = node.get("additionalProperties", True)
    return extra is True or (isinstance(extra, dict) and not assertions(extra))


def _listed_definitions(side: Side, location: str) -> list[str]:
    """The definitions a union lists by `$ref` (`anyOf: [{$ref: A}, {$ref: B}, {type: array, …}]`: A and B), when a
    union is all it says; else []."""
    node = side.node(location)
    if not isinstance(node, dict) or not assertions(node) <= {"anyOf", "oneOf", "type"}:
        return []
    words = [w for w in ("anyOf", "oneOf") if isinstance(node.get(w), list) and node[w]]
    if len(words) != 1:
        return []
    out = []
    for index in range(len(node[words[0]])):
        found, _ = _through_wrappers(side, child(location, words[0], index))
        name = _definition_name(found)
        if name is not None and found.partition("#")[0] == location.partition("#")[0] and name not in out:
            out.append(name)
    return out


def _inline_members(side: Side, location: str) -> list[str]:
    """The members a union of definitions (`_listed_definitions`) writes in place rather than by `$ref`."""
    node = side.node(location)
    if not _listed_definitions(side, location):
        return []
    word = "anyOf" if isinstance(node.get("anyOf"), list) else "oneOf"
    return [member for index in range(len(node[word]))
            if _definition_name(_through_wrappers(side, member := child(location, word, index))[0]) is None]


def _shape(side: Side, location: str) -> str:
    """A member's title, else its shape: `array`, `object {a, b}`."""
    node = side.node(location)
    if isinstance(node, dict) and isinstance(node.get("title"), str) and node["title"]:
        return str(node["title"])
    flat = flatten(side, location)
    kinds = "|".join(flat.types) if flat.types else "any value"
    names = sorted(flat.properties)
    return f"{kinds} {{{', '.join(names[:4])}{', …' if len(names) > 4 else ''}}}" if names else kinds


def _documents(reader: Side, at: dict[str, str], candidates: list[str], names: list[str]) -> set[str]:
    """Of the definitions no message refers to, the documents of their own (A2A's AgentCard, which every agent
    publishes): objects with members of their own. A base type is none: the generators of these schemas write an
    interface's members again in every type that extends it (MCP's `Request`, `PaginatedRequest` and `Result`, A2A's
    `PartBase` and `JSONRPCRequest`), so a definition whose member names another definition all declares is a helper,
    and so is one that is not an object (MCP's `Cursor`, a string; a batch, an array)."""
    members: dict[str, frozenset[str]] = {}
    for name in names:
        try:
            members[name] = frozenset(flatten(reader, at[name]).properties)
        except (KeyError, TypeError, ValueError):  # a definition the flattener cannot read: no object of its own
            members[name] = frozenset()
    return {name for name in candidates if members[name] and not any(
        other != name and members[name] <= members[other] for other in names)}


def _parts_of(refers: dict[str, set[str]], kinds: dict[str, list[str]]) -> set[str]:
    """The kinds another kind reaches through `$ref`s (directly or through other definitions): parts of messages,
    not messages of their own. A kind that reaches only itself again (a recursive message) stays a kind. One
    breadth-first pass from every kind at once: each definition remembers the kind it was reached from, or that
    several reached it."""
    several = object()
    reached: dict[str, Any] = {}
    todo = [(target, kind) for kind in kinds for target in refers[kind]]
    while todo:
        name, source = todo.pop()
        label = reached.get(name)
        if label is several or label == source:
            continue
        reached[name] = source if label is None else several
        todo += [(target, reached[name]) for target in refers.get(name, ())]
    return {kind for kind in kinds if reached.get(kind, kind) != kind}


def _referred(side: Side, location: str) -> set[str]:
    """The names of the definitions a `$ref` inside the node at `location` refers to (not followed further)."""
    out = set()
    for node, path in subschemas(side.node(location)):
        ref = node.get("$ref")
        if isinstance(ref, str):
            name = _definition_name(join(child(location, *path), ref))
            if name is not None:
                out.add(name)
    return out


def _method_of(side: Side, location: str) -> str | None:
    """The `method` constant of the object at `location` (a JSON-RPC request or notification), if it has one."""
    flat = flatten(side, location)
    if "method" not in flat.properties:
        return None
    prop = flatten(side, flat.properties["method"])
    value = prop.enum[0] if prop.enum is not None and len(prop.enum) == 1 else None
    return value if isinstance(value, str) else None


def _envelope(side: Side, listed: list[str], at: dict[str, str], leaves: dict[str, list[str]],
              roles: dict[str, str]) -> dict[str, list[str]]:
    """kind → the members of the JSON-RPC envelope union its messages also satisfy (see `_definition_kinds`)."""
    by_union: dict[str, list[str]] = {}
    for name in listed:
        for union in leaves[name]:
            by_union.setdefault(union, []).append(name)
    flats = {name: flatten(side, at[name]) for name in listed}
    # the union's members that require `jsonrpc` and name no method of their own (MCP 2025-03-26 lists JSON-RPC
    # batches, arrays, beside them; from 2025-11-25 on every request requires `jsonrpc` too)
    envelope = next((framed for names in by_union.values() if len(framed := [
        n for n in names if "jsonrpc" in flats[n].required and _method_of(side, at[n]) is None]) > 1), None)
    if envelope is None:
        return {}
    calls = [n for n in envelope if "method" in flats[n].properties]
    out = {}
    for name, flat in flats.items():
        if name in envelope or "method" not in flat.properties or not calls:
            continue
        role = roles[name]
        if role == "request":
            parts = [n for n in calls if "id" in flats[n].required]
        elif role == "notification":
            parts = [n for n in calls if "id" not in flats[n].required]
        else:
            parts = []
        out[name] = [at[n] for n in (parts or calls)]
    return out


def _unfold(side: Side, location: str, steps: tuple[_Step, ...], labels: tuple[str, ...], out: list[_Leaf],
            method: tuple[str | None, str | None], envelope: tuple[str, str] | None, depth: int,
            top: bool = False, labelled: bool = False) -> None:
    """Collect the leaves below `location`, reached by `steps`. `labelled`: the member chosen last already gave
    its label (a title); `method`: the (method, side) marks met since then; `envelope`: (the JSON-RPC envelope's
    location, the role of its payload) once inside one."""
    node = side.node(location)
    if not isinstance(node, dict) or depth > _MAX_DEPTH or len(out) > _MAX_KINDS:
        out.append(_leaf(side, location, steps, labels, labelled, method, envelope))
        return
    title = node.get("title")
    if isinstance(title, str) and title and not top and not labelled:
        labels, labelled = (*labels, title), True
    if method[0] is None:
        method = _method_mark(node)
    said = assertions(node)
    if said == {"$ref"} and isinstance(node["$ref"], str) and side.has(join(location, node["$ref"])):
        _unfold(side, join(location, node["$ref"]), (*steps, _Step("ref", location)), labels, out, method,
                envelope, depth + 1, labelled=labelled)
        return
    if said == {"allOf"} and isinstance(node["allOf"], list) and len(node["allOf"]) == 1:
        _unfold(side, child(location, "allOf", 0), (*steps, _Step("allOf", location)), labels, out, method,
                envelope, depth + 1, labelled=labelled)
        return
    union = _union(side, location, node)
    named = labelled or _definition_name(location) is not None
    grouping = union is not None and all(_named(side, child(location, union, i)) for i in range(len(node[union])))
    if method[0] is not None or (envelope is not None and named and not grouping and steps[-1].how != "property"):
        # a message type: named by its method, or chosen by its title or definition inside an envelope's payload
        # (unless it only groups named types, as ACP's AgentRequest does)
        out.append(_leaf(side, location, steps, labels, labelled, method, envelope))
        return
    if union is not None:
        members = [i for i, m in enumerate(node[union]) if not (envelope is not None and _is_null(m))]
        for index in members:
            member = child(location, union, index)
            found, target = _through_wrappers(side, member)
            name = _definition_name(found) if not (isinstance(target, dict) and "title" in target) else None
            title = side.node(member).get("title") if isinstance(side.node(member), dict) else None
            _unfold(side, member, (*steps, _Step("union", location, union, index)),
                    (*labels, name) if name and not isinstance(title, str) else labels, out, (None, None), envelope,
                    depth + 1, labelled=bool(name) and not isinstance(title, str))
        return
    properties: dict[str, Any] = node["properties"] if isinstance(node.get("properties"), dict) else {}
    for name in _ENVELOPE_PAYLOADS:
        if name in properties and _union(side, *_through_wrappers(side, child(location, "properties", name))):
            role = "response" if name == "result" else "request" if "id" in properties else "notification"
            _unfold(side, child(location, "properties", name), (*steps, _Step("property", location, name)), labels,
                    out, (None, None), (location, role), depth + 1, labelled=labelled)
            return
    out.append(_leaf(side, location, steps, labels, labelled, method, envelope))


def _named(side: Side, location: str) -> bool:
    """Whether a union member has a name of its own: a title, a method mark, a definition it refers to (or null)."""
    node = side.node(location)
    if not isinstance(node, dict):
        return False
    if isinstance(node.get("title"), str) or _method_mark(node)[0] is not None or _is_null(node):
        return True
    found, target = _through_wrappers(side, location)
    return found != location and (_definition_name(found) is not None or (isinstance(target, dict) and (
        isinstance(target.get("title"), str) or _method_mark(target)[0] is not None)))


def _definition_name(location: str) -> str | None:
    """`Foo` for the location of `$defs/Foo` (or `definitions/Foo`) of a resource, else None."""
    tokens = parse_pointer(location.partition("#")[2])
    return tokens[1] if len(tokens) == 2 and tokens[0] in ("$defs", "definitions") else None


def _through_wrappers(side: Side, location: str) -> tuple[str, Any]:
    node, location = unwrapped(side, side.node(location), location, limit=_MAX_DEPTH)
    return location, node


def _union(side: Side, location: str, node: Any) -> str | None:
    """The union keyword of `node` when it offers alternative messages: not a refinement (`anyOf` of `required`
    lists) and not a union of bare types (`type: [a, b]` in other words)."""
    if not isinstance(node, dict):
        return None
    for word in ("anyOf", "oneOf"):
        members = node.get(word)
        if not isinstance(members, list) or len(members) < 1 or (word == "anyOf" and required_alternatives(node)):
            continue
        if all(_only_type(side, child(location, word, i)) for i in range(len(members))):
            return None
        return word
    return None


def _only_type(side: Side, location: str) -> bool:
    _, node = _through_wrappers(side, location)
    return isinstance(node, dict) and assertions(node) == {"type"}


def _is_null(member: Any) -> bool:
    return isinstance(member, dict) and assertions(member) == {"type"} and member["type"] == "null"


def _method_mark(node: dict[str, Any]) -> tuple[str | None, str | None]:
    """(method, side) from ACP's generator annotations (`x-method`, `x-side`) on a node, if any."""
    method, side = node.get("x-method"), node.get("x-side")
    return (method if isinstance(method, str) else None, side if isinstance(side, str) else None)


def method_constant(node: Any) -> str | None:
    """The JSON-RPC method a message type fixes as a constant (`properties.method.const`: MCP's `*Request` and
    `*Notification` definitions), if any. The import of a JSON-RPC schema (importer/jsonrpc.py) reads methods so."""
    props = node.get("properties") if isinstance(node, dict) else None
    method = props.get("method") if isinstance(props, dict) else None
    const = method.get("const") if isinstance(method, dict) else None
    return const if isinstance(const, str) else None


def _leaf(side: Side, location: str, steps: tuple[_Step, ...], labels: tuple[str, ...], labelled: bool,
          method: tuple[str | None, str | None], envelope: tuple[str, str] | None) -> _Leaf:
    name, hint = method
    found, node = _through_wrappers(side, location)
    props: dict[str, Any] = node["properties"] if isinstance(node, dict) and isinstance(
        node.get("properties"), dict) else {}
    if name is None:  # a method written as a constant (MCP, JSON-RPC schemas)
        name = method_constant(node)
    definition = _definition_name(found) or ""
    role = envelope[1] if envelope else next((r for suffix, r in _ROLE_SUFFIXES if definition.endswith(suffix)), "")
    if not labelled:  # no title since the last choice: the definition's name, a tag, or the required names
        tags = [tag(k, v["const"]) for k, v in sorted(props.items()) if isinstance(v, dict) and "const" in v]
        required = node.get("required") if isinstance(node, dict) else None
        label = definition or (tags[0] if tags else "{" + ", ".join(map(str, required)) + "}"
                               if isinstance(required, list) and required else "")
        labels = (*labels, label) if label else labels
    return _Leaf(steps, location, labels, name, hint, role, envelope[0] if envelope else None)


def _name(leaves: list[_Leaf]) -> list[tuple[str, str, bool, str]] | None:
    """(id, selector, dispatch, key) per leaf; None when the leaves cannot all be told apart."""
    out = []
    for leaf in leaves:
        if leaf.method is not None:
            role = f" {leaf.role}" if leaf.role else ""
            selector = f"result of method {leaf.method}" if leaf.role == "response" else f"method {leaf.method}"
            out.append((f"{leaf.method}{role}", selector, True, f"{leaf.method}{role}"))
        elif leaf.labels:
            label = " / ".join(leaf.labels)
            out.append((label, label, False, ""))
        else:
            return None
    counts = Counter(kind_id for kind_id, *_ in out)
    if max(counts.values()) > 1:
        # one method, or one definition, in two places: the side that receives it (`mcp/message` both ways), else
        # the first label on its way (Agent, Client) tells them apart
        for hint in (lambda leaf: leaf.side_hint, lambda leaf: leaf.labels[0] if leaf.labels else None):
            tried = [(f"{i} [{hint(leaf)}]", f"{s} [{hint(leaf)}]", d, k) if counts[i] > 1 and hint(leaf) else
                     (i, s, d, k) for leaf, (i, s, d, k) in zip(leaves, out, strict=True)]
            if len({i for i, *_ in tried}) == len(tried):
                return tried
        return None
    return out


def _synthesise(side: Side, leaf: _Leaf, at: int, here: str, origins: dict[str, str]) -> Any:
    """The schema of `leaf` from step `at` on, as a node written at `here` in the synthetic resource."""
    if at == len(leaf.steps):
        return {"$ref": uri_of(leaf.location)}
    step = leaf.steps[at]
    node = side.node(step.location)
    origins[here] = step.location
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _DROPPED or (step.how == "union" and key == step.word):
            continue
        if key == "$ref":
            if step.how != "ref":
                out["allOf"] = [*out.get("allOf", []), {"$ref": uri_of(join(step.location, value))}]
            continue
        if is_annotation(key):
            out[key] = value
        elif key in _SCHEMA_VALUE:
            out[key] = {"$ref": uri_of(child(step.location, key))}
        elif key in _SCHEMA_LIST and isinstance(value, list):
            if step.how == "allOf" and key == "allOf":
                continue
            out[key] = [*out.get(key, []), *({"$ref": uri_of(child(step.location, key, i))} for i in range(len(value)))]
        elif key in _SCHEMA_MAP and isinstance(value, dict):
            out[key] = {name: {"$ref": uri_of(child(step.location, key, name))} for name in value}
        else:
            out[key] = value
    if step.how == "property":
        properties = out["properties"]
        properties[step.word] = _synthesise(side, leaf, at + 1, child(here, "properties", step.word), origins)
        if leaf.method is not None and leaf.envelope == step.location and "method" in properties:
            properties["method"] = {**properties["method"], "const": leaf.method}
    else:
        parts = out.setdefault("allOf", [])
        parts.append(_synthesise(side, leaf, at + 1, child(here, "allOf", len(parts)), origins))
    return out
