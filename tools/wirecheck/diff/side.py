"""One side of a diff: the schema resources of a release, its two views, and the validators over them.

A location is `<resource $id>#<JSON pointer>`; any location can be validated against, canonicalised, or walked,
because every check here goes through `{"$ref": location}` resolved offline in the side's own registry.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any
from urllib.parse import quote, unquote, urljoin, urlsplit, urlunsplit

import jsonschema_rs

from wirecheck.contracts.errors import schema_error_text
from wirecheck.contracts.formats import fast_validator
from wirecheck.contracts.reference import ReferenceValidators, written_holds
from wirecheck.contracts.stamps import generalised
from wirecheck.contracts.views import schema_children, tolerant_view
from wirecheck.diff.model import STRICT, Several
from wirecheck.diff.vocabulary import is_annotation
from wirecheck.ecma_regex import RegexTimeout
from wirecheck.json_types import json_bytes
from wirecheck.markdown_text import literal
from wirecheck.pointer import format_pointer, parse_pointer, resolve

DIALECT = "https://json-schema.org/draft/2020-12/schema"
_UNREAD = frozenset({"$id", "$defs", "definitions"})  # not part of what a node says (see Side._closure)
_MISSING = object()
# what Side._closes looks for, as orjson writes it
_CLOSING_TEXTS = (b'"additionalProperties":false', b'"unevaluatedProperties":false', b'"$dynamicRef"')
# jsonschema-rs canonicalises by recursion on the native stack: a $ref chain 2,500 long overflows it (SIGSEGV).
# Deeper schemas get no canonical form, so set containment says "unknown" for them (the rules and witnesses still
# run); real contracts are a few dozen levels deep.
CANONICAL_DEPTH_LIMIT = 512


class TooDeepToCanonicalise(ValueError):
    """A schema too deep (with its $refs followed) to hand to jsonschema-rs's canonicaliser."""


@dataclass
class Side:
    name: str  # "old" | "new"
    resources: Mapping[str, Any]
    label: str = ""  # e.g. xopc@0.0.251, for messages
    # where the nodes of a synthetic resource (diff/derive.py: a kind's schema) are written in the user's schema
    origins: Mapping[str, str] = field(default_factory=dict, repr=False)
    _views: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False)
    _registries: dict[str, Any] = field(default_factory=dict, repr=False)
    _validators: OrderedDict[tuple[str, str], Any] = field(default_factory=OrderedDict, repr=False)
    _validator_bytes: int = field(default=0, repr=False)
    _dispatchers: dict[str, tuple[Any, dict[str, str]] | None] = field(default_factory=dict, repr=False)
    _compiled_bytes: dict[str, int] = field(default_factory=dict, repr=False)  # view → JSON its validators reached
    _references: dict[tuple[str, str], Any] = field(default_factory=dict, repr=False)
    _reference_validators: dict[str, ReferenceValidators] = field(default_factory=dict, repr=False)
    _canonical: dict[tuple[str, str], Any] = field(default_factory=dict, repr=False)
    flats: dict[str, Any] = field(default_factory=dict, repr=False)  # location → Flat, kept by diff.flat
    _nodes: dict[tuple[str, str], Any] = field(default_factory=dict, repr=False)
    memo: dict[Any, Any] = field(default_factory=dict, repr=False)  # per-side caches of the rule modules
    stamped: bool = field(default=False, init=False, repr=False)  # a resource holds a version stamp

    def __post_init__(self) -> None:
        # a version stamp compares by its type: its value is expected to change (contracts/stamps.py)
        written = self.resources
        self.resources = {uri: generalised(schema) for uri, schema in written.items()}
        self.stamped = any(self.resources[uri] is not schema for uri, schema in written.items())
        self.resources = chains_shortened(self.resources)

    def view(self, view: str) -> dict[str, Any]:
        if view not in self._views:
            self._views[view] = (
                dict(self.resources) if view == STRICT else {k: tolerant_view(v) for k, v in self.resources.items()}
            )
        return self._views[view]

    def registry(self, view: str) -> Any:
        if view not in self._registries:
            self._registries[view] = jsonschema_rs.Registry(list(self.view(view).items()))
        return self._registries[view]

    def node(self, location: str, view: str = STRICT) -> Any:
        """The schema node at `location` in `view` (strict: as authored). Raises KeyError when there is none."""
        key = (location, view)
        found = self._nodes.get(key, _MISSING)
        if found is _MISSING:  # memoised: the walkers and the prover ask for the same locations many times
            base, _, fragment = location.partition("#")
            found = self._nodes[key] = resolve(self.view(view)[base], parse_pointer(fragment))
        return found

    def written_at(self, location: str) -> str:
        """Where the node at `location` is written: a synthetic node's original (its JSON pointer carried on below
        the original's `properties`), else the location itself."""
        if not self.origins or location in self.origins:
            return self.origins.get(location, location)
        at = location
        while at.partition("#")[2].count("/") > 3:  # not up to a kind's own root (`#/$defs/k3`: its message type)
            at = at.rsplit("/", 1)[0]
            if at in self.origins:
                rest = location[len(at):]
                return self.origins[at] + rest if rest.startswith("/properties/") else self.origins[at]
        return location

    def has(self, location: str) -> bool:
        try:
            return self.node(location) is not None
        except KeyError:
            return False

    def validator(self, location: str, view: str = STRICT) -> LocationValidator:
        """jsonschema-rs's validator of `location`. Each compiles every node its `$ref`s reach: in a `$ref` ring
        every location reaches the whole ring, so compiling one per location asked about made the diff's work
        grow with (locations × ring): 570 compiles of 4 MB each, half of a 4.2 MB ring's 20 s (issue 39, 5).
        So once the validators compiled in a view have reached DISPATCH_AFTER times the JSON the resources are
        written in, the view's locations are answered by its dispatcher (`_dispatcher`): one validator compiled
        once for the locations of every resource, which shares each node among all the locations that reach it.
        Until then (most contracts: each location reaches a small part of them), and for a location the
        dispatcher leaves out, a location gets its own validator; those kept are bounded by the JSON they reach
        (VALIDATOR_SOURCE_BUDGET), the least recently used dropped first: a kind's validators are asked for while
        that kind is compared. A small contract's all stay."""
        dispatcher = self._dispatchers.get(view)
        if dispatcher is not None and (name := dispatcher[1].get(location)) is not None:
            return LocationValidator(dispatcher[0], name)
        key = (location, view)
        found = self._validators.get(key)
        if found is not None:
            self._validators.move_to_end(key)  # asked for last: last in order
            return LocationValidator(found)
        size = self.source_size(location)
        compiled = self._compiled_bytes.get(view, 0) + size
        if view not in self._dispatchers and compiled > DISPATCH_AFTER * self.written_size():
            dispatcher = self._dispatcher(view)
            if dispatcher is not None and (name := dispatcher[1].get(location)) is not None:
                return LocationValidator(dispatcher[0], name)
        self._compiled_bytes[view] = compiled
        found = self._compiled({"$schema": DIALECT, "$ref": uri_of(location)}, view)
        while self._validators and self._validator_bytes + size > VALIDATOR_SOURCE_BUDGET:
            # the least recently asked for (an OrderedDict: a plain dict's first entry, after many moved to its
            # end, is found by skipping every slot they left, which cost 21 s of a 4 MB ring's diff)
            oldest, _ = self._validators.popitem(last=False)
            self._validator_bytes -= self.source_size(oldest[0])
        self._validator_bytes += size
        self._validators[key] = found
        return LocationValidator(found)

    def written_size(self) -> int:
        """Bytes of JSON the resources are written in (as orjson writes them; one that cannot be written counts
        as too large to ever be reached by the validators compiled: no dispatcher)."""
        found: int | None = self.memo.get("written size")
        if found is None:
            try:
                found = sum(len(json_bytes(schema)) for schema in self.resources.values())
            except (TypeError, ValueError, RecursionError):
                found = 2**62
            self.memo["written size"] = found
        return found

    def _dispatcher(self, view: str) -> tuple[Any, dict[str, str]] | None:
        """(validator, location → the name of its member): one jsonschema-rs validator for the locations
        `dispatched_locations` picks in `view`, `{"properties": {"0": {"$ref": location}, ...}}`, so a payload
        sent as the member named for a location is judged by that location's schema exactly as a validator of
        `{"$ref": location}` would judge it. None when it cannot be compiled (a pattern jsonschema-rs refuses
        anywhere in the resources): each location then gets its own validator, as before, and one that cannot be
        compiled fails as it did."""
        if view not in self._dispatchers:
            names = {location: str(index) for index, location in enumerate(dispatched_locations(self.view(view)))}
            schema = {"$schema": DIALECT, "properties": {name: {"$ref": uri_of(location)}
                                                         for location, name in names.items()}}
            try:
                self._dispatchers[view] = (self._compiled(schema, view), names)
            except Exception:  # whatever it is, the locations' own validators say it again
                self._dispatchers[view] = None
            else:  # the kept validators of the locations it answers for are asked for no more
                for location in [at for at, in_view in self._validators if in_view == view and at in names]:
                    self._validator_bytes -= self.source_size(location)
                    del self._validators[(location, view)]
        return self._dispatchers[view]

    def _compiled(self, schema: Any, view: str) -> Any:
        return fast_validator(schema, self.registry(view))

    def reference(self, location: str, view: str = STRICT) -> Any:
        """python-jsonschema's validator of `location`: those of a view share one registry and the `$ref`s they
        have resolved (contracts/reference.py ReferenceValidators)."""
        key = (location, view)
        if key not in self._references:
            if view not in self._reference_validators:
                self._reference_validators[view] = ReferenceValidators(self.view(view))
            self._references[key] = self._reference_validators[view].validator({"$ref": uri_of(location)})
        return self._references[key]

    def canonical(self, location: str, view: str) -> Any:
        """The canonical form of `location` in `view`, under URIs no other side or view shares.

        Canonical schemas name their definitions by URI; comparing two sides (or two views) whose resources share
        an `$id` (the same release edited in place, a strict and a tolerant view) would mix up their definitions.
        """
        key = (location, view)
        if key not in self._canonical:
            depth = self.depth(location)
            if depth > CANONICAL_DEPTH_LIMIT:
                raise TooDeepToCanonicalise(f"{location} reaches {depth} levels deep with its $refs followed (more "
                                            f"than {CANONICAL_DEPTH_LIMIT}): its containment is unknown")
            tag = f"{self.name}-{view}-{id(self):x}"
            registry = jsonschema_rs.Registry(list(self._reached_copy(location, view, tag).items()))
            self._canonical[key] = jsonschema_rs.canonicalize(
                {"$schema": DIALECT, "$ref": _retag(uri_of(location), tag)}, registry=registry, validate_formats=True)
        return self._canonical[key]

    def _reached_copy(self, location: str, view: str, tag: str) -> dict[str, Any]:
        """The resources as a canonical form of `location` needs them: only the nodes it reaches (itself and what
        its `$ref`s reach), each at its own JSON pointer, under URIs retagged with `tag` — `$ref`s between
        resources included (a kind's synthetic schema refers into the user's file by absolute URI). A registry
        of whole resources would hold a 5 MB schema again for every canonical form of a small part of it."""
        bases = {uri.partition("#")[0] for uri in self.resources}
        out: dict[str, Any] = {}
        placed: set[tuple[str, tuple[str, ...]]] = set()
        for at in sorted(self._reached(location), key=lambda loc: loc.count("/")):  # outer nodes first
            base, _, fragment = at.partition("#")
            tokens = parse_pointer(fragment)
            if any((base, tokens[:i]) in placed for i in range(len(tokens))):
                continue  # inside a node copied already
            placed.add((base, tokens))
            copy = _retagged(self.node(at, view), tag, bases)
            if not tokens:
                out[base] = copy
                continue
            holder: Any = out.setdefault(base, {})
            original: Any = self.view(view)[base]
            for index, token in enumerate(tokens):
                step: Any = int(token) if isinstance(holder, list) else token
                original = original[step]
                if isinstance(holder, list):
                    holder.extend(True for _ in range(step + 1 - len(holder)))  # unread places: `true`
                if index == len(tokens) - 1:
                    holder[step] = copy
                elif isinstance(holder, list):
                    if not isinstance(holder[step], dict | list):
                        holder[step] = [] if isinstance(original, list) else {}
                    holder = holder[step]
                else:
                    holder = holder.setdefault(step, [] if isinstance(original, list) else {})
        return {_retag(base, tag): {**schema, "$id": _retag(base, tag), "$schema": DIALECT}
                if isinstance(schema, dict) else schema for base, schema in out.items()}

    def _reached(self, location: str) -> list[str]:
        """`location` and every location its `$ref`s reach, transitively."""
        return sorted(self._component(location).reach())

    def depth(self, location: str) -> int:
        """How many levels a walk that follows `$ref`s goes down from `location` (a `$ref` is a level; a `$ref`
        back into the walk's own path is a loop that canonical forms keep as a reference, and counts nothing)."""
        start = self.node(location)
        depths: dict[int, int] = self.memo.setdefault("depths", {})
        on_path: set[int] = set()
        base = location.partition("#")[0]
        stack: list[tuple[Any, str, bool]] = [(start, base, False)]
        while stack:
            node, at, done = stack.pop()
            key = id(node)
            children = list(self._children(node, at))
            if done:
                on_path.discard(key)
                depths[key] = 1 + max((levels + depths.get(id(c), 0) - 1 for c, _, levels in children), default=0)
            elif key not in depths and key not in on_path:
                on_path.add(key)
                stack.append((node, at, True))
                stack.extend((c, where, False) for c, where, _ in children if id(c) not in depths)
        return depths[id(start)]

    def _children(self, node: Any, base: str) -> Iterator[tuple[Any, str, int]]:
        """A schema node's subschemas and the target of its `$ref`, each with the resource it is in and how many
        levels of JSON down it is (an entry of a schema map such as `properties` is two)."""
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str):
                target = join(f"{base}#", ref)
                try:
                    found = self.node(target)
                except (KeyError, IndexError, ValueError, TypeError):  # dangling: refused at load, not walked
                    found = None
                if found is not None:
                    yield found, target.partition("#")[0], 1
            for keys, value in schema_children(node):
                yield value, base, len(keys)
        elif isinstance(node, list):
            yield from ((item, base, 1) for item in node if isinstance(item, dict | list))

    def digest(self, location: str) -> str:
        """What the schema at `location` says, as a digest: its node and every node its `$ref`s reach, each under
        its location within the release (`file#pointer`), annotations included. Equal digests in two releases
        mean the schema is written identically in both, so a matrix compares such a pair of schemas once."""
        return self._closure(location)[0]

    def source_size(self, location: str) -> int:
        """Bytes of JSON the schema at `location` is written in, every node its `$ref`s reach included."""
        return self._closure(location)[1]

    def _closure(self, location: str) -> tuple[str, int]:
        """(digest, bytes) of `location` and what its `$ref`s reach: the digest of its strongly connected
        component of locations (`_Component`). Two closures have one digest exactly when their texts are the same:
        each text is hashed once, and each component once, not once for every location whose closure holds it
        (3.4 MB of SHA-256 for an ACP pair, most of it the same definitions again; in a `$ref` ring every location
        reaches the whole ring, so hashing each location's closure made a walk quadratic: issue 39, 5)."""
        component = self._component(location)
        return component.digest, component.size

    def in_ring(self, location: str) -> bool:
        """Whether `location` lies inside a definition (`$defs/<name>` or `definitions/<name>`, the innermost or any
        around it) whose `$ref`s lead back to it: a member of a `$ref` ring, or a definition that refers to
        itself."""
        base, _, fragment = location.partition("#")
        try:
            tokens = parse_pointer(fragment)
        except ValueError:
            return False
        for end in range(len(tokens), 1, -1):
            if tokens[end - 2] in ("$defs", "definitions"):
                at = f"{base}#{format_pointer(tokens[:end])}"
                try:
                    if self._component(at).recursive:
                        return True
                except (KeyError, IndexError, ValueError, TypeError):  # no node there (a synthetic location)
                    continue
        return False

    def _component(self, location: str) -> _Component:
        """The strongly connected component of `location` in the graph of locations and the `$ref`s their texts
        hold (Tarjan's algorithm, without recursion: a chain of refs may be thousands long). Components are
        emitted successors first, so each one's digest and size are made from its members and its successors'."""
        found: _Component | None = self.memo.get(("component", location))
        if found is not None:
            return found
        index: dict[str, int] = {location: 0}
        low: dict[str, int] = {location: 0}
        stack, on_stack = [location], {location}
        work = [(location, iter(self._text_and_refs(location)[2]))]
        while work:
            at, targets = work[-1]
            for target in targets:
                if ("component", target) in self.memo:  # condensed already: a successor
                    continue
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(self._text_and_refs(target)[2])))
                    break
                if target in on_stack:
                    low[at] = min(low[at], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[at])
                if low[at] == index[at]:
                    members = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        members.append(member)
                        if member == at:
                            break
                    component = _Component(self, tuple(members))
                    for member in members:
                        self.memo[("component", member)] = component
        found = self.memo[("component", location)]
        assert found is not None
        return found

    def _text_and_refs(self, location: str) -> tuple[bytes, int, list[str]]:
        """(SHA-256 of the location's text, its length, the locations its `$ref`s name): its text is `file#pointer `
        and its node (but for `$id`, `$defs`, `definitions`) with sorted keys."""
        key = ("text", location)
        if key not in self.memo:
            node = written = self.node(location)
            if isinstance(node, dict) and not _UNREAD.isdisjoint(node):
                # a resource's own URI names the release; its definitions count where they are referred to
                node = {k: v for k, v in node.items() if k not in _UNREAD}
            base, _, fragment = location.partition("#")
            where = f"{base.rsplit('/', 1)[-1]}#{fragment} ".encode()
            text = json_bytes(node, sort_keys=True)
            refs: tuple[str, ...] = ()
            # No `"$ref"` in an object's or array's text: no object in it has that key (a string holding it is
            # written `\"$ref\"`), so there is nothing to look for. `node` may be a copy: refs are memoised by
            # identity (a node without the keywords skipped shares the answer its parent's walk remembered).
            if b'"$ref"' in text or text[:1] not in (b"{", b"["):
                refs = self._refs(written, skip=_UNREAD if node is not written else frozenset())
            self.memo[key] = (hashlib.sha256(where + text).digest(), len(where) + len(text),
                              [join(location, ref) for ref in refs])
        found: tuple[bytes, int, list[str]] = self.memo[key]
        return found

    def _refs(self, value: Any, skip: frozenset[str] = frozenset()) -> tuple[str, ...]:
        """Every `$ref` string inside `value`, a node of this side's resources, but under its keywords in `skip`:
        memoised by the node's identity (the resources live as long as the side), so nested locations share their
        subtrees' answers."""
        key = ("refs", id(value), skip)
        found: tuple[str, ...] | None = self.memo.get(key)
        if found is None:
            parts: list[str] = []
            if isinstance(value, dict):
                ref = value.get("$ref")
                if isinstance(ref, str):
                    parts.append(ref)
                # a const's "$ref" is data
                children: Any = [v for _, v in schema_children(value, skip)]
            elif isinstance(value, list):
                children = value
            else:  # a boolean schema, a scalar
                children = ()
            for child_value in children:
                if isinstance(child_value, dict | list):
                    parts += self._refs(child_value)
            found = self.memo[key] = tuple(parts)
        return found

    def canonical_size(self, location: str, view: str) -> int:
        """Bytes of the canonical form serialised: what `covers` on it will cost, roughly."""
        key = ("canonical_size", location, view)
        if key not in self.memo:
            self.memo[key] = len(json_bytes(self.canonical(location, view).to_json_schema()))
        return int(self.memo[key])

    def view_of(self, location: str, view: str) -> str:
        """`view`, or the strict view where the tolerant one of `location` is the same schema: no node it reaches
        (its own, and what its `$ref`s reach) holds `additionalProperties: false` or `unevaluatedProperties:
        false`, what the tolerant view drops (contracts/views.py). Both validators then give the same answers in
        both views, so each question (`accepts`, `errors`, `confirms`) is asked once: ACP and MCP write no
        closed objects, and half of python-jsonschema's confirmations were the tolerant reader's repeats."""
        if view == STRICT or not self._may_close():
            return STRICT
        key = ("closes", location)
        found = self.memo.get(key)
        if found is None:
            try:
                found = self._component(location).closes()
            except (RecursionError, KeyError, IndexError, ValueError, TypeError):  # too deep, dangling: not known
                found = True
            self.memo[key] = found
        return view if found else STRICT

    def _may_close(self) -> bool:
        """Whether any resource may hold what `_closes` looks for, by the text of the resources as orjson writes
        them (`"additionalProperties":false`, also in a value: that only costs a question asked twice): a contract
        that closes no object (ACP, MCP) has no location whose reached nodes must be looked at. True when a
        resource cannot be written (nested deeper than orjson writes, a number beyond 64 bits)."""
        found: bool | None = self.memo.get("may close")
        if found is None:
            found = self.memo["may close"] = written_holds(self.resources, _CLOSING_TEXTS)
        return found

    def _closes(self, value: Any) -> bool:
        """Whether `value` (a node of this side's resources) holds a closing keyword set to false anywhere, or a
        `$dynamicRef` (its target is not among the nodes `_reached` follows): memoised by the node's identity.
        Errs on the side of True (a `not` subschema, a property named so), which only costs a repeated question."""
        key = ("closes", id(value))
        found: bool | None = self.memo.get(key)
        if found is None:
            if isinstance(value, dict):
                found = (value.get("additionalProperties") is False or value.get("unevaluatedProperties") is False
                         or "$dynamicRef" in value or any(self._closes(v) for _, v in schema_children(value)))
            elif isinstance(value, list):
                found = any(self._closes(v) for v in value if isinstance(v, dict | list))
            else:
                found = False
            self.memo[key] = found
        return found

    def accepts(self, location: str, view: str, payload: Any) -> bool:
        """jsonschema-rs's answer (fast; every witness is confirmed with `confirms` before it is shown)."""
        view = self.view_of(location, view)
        return bool(self._remembered("accepts", location, view, payload,
                                     lambda: self.validator(location, view).is_valid(payload)))

    def confirms(self, location: str, view: str, payload: Any, accepted: bool) -> bool:
        """Whether python-jsonschema (ECMA regexes, asserted formats) gives the same answer. A schema whose
        `$ref`s loop without reading the payload (`{"$ref": "#"}`) recurses there: not confirmed."""
        view = self.view_of(location, view)

        def ask() -> bool:
            try:
                return bool(self.reference(location, view).is_valid(payload))
            except (RecursionError, RegexTimeout):  # a pattern not matched in time: undecided, not confirmed
                return not accepted

        return bool(self._remembered("confirms", location, view, payload, ask)) == accepted

    def errors(self, location: str, view: str, payload: Any) -> list[tuple[tuple[Any, ...], str]]:
        """(instance path the error is about, message); a missing or unexpected property is about the property's
        own path, so a witness can be tied to the change that caused it."""
        view = self.view_of(location, view)
        def ask() -> tuple[tuple[tuple[Any, ...], str], ...]:
            validator = self.validator(location, view)
            return tuple(found for error in validator.iter_errors(payload) for found in _about(error, validator.depth))

        return list(self._remembered("errors", location, view, payload, ask))

    def _remembered(self, what: str, location: str, view: str, payload: Any, ask: Callable[[], Any]) -> Any:
        """jsonschema-rs's answer about `payload`, asked once: the probes of a surface's changes, and the pairs of
        a matrix, ask about the same payloads again and again. Keyed by the payload serialised in its own key
        order, so a payload written in another order (whose errors may come in another order) is asked again."""
        try:
            key = (what, location, view, json_bytes(payload))
        except TypeError:  # not serialisable: not remembered
            return ask()
        found = self.memo.get(key, _MISSING)
        if found is _MISSING:
            found = self.memo[key] = ask()
        return found

    def undeclared(self, location: str, payload: Any) -> tuple[str, ...]:
        """The members of `payload` (accepted by `location`, strict view) that no schema applying to them names:
        neither a `properties` nor a `patternProperties` entry, nor an `additionalProperties` /
        `unevaluatedProperties` schema that says something (a typed map's keys are data) — members only an open
        object lets through. Their instance paths (JSON pointers), outermost only; () when every member is named.
        Read from jsonschema-rs's evaluation of the payload (its hierarchical output), in the branches that
        accepted it."""
        return tuple(self._remembered("undeclared", location, STRICT, payload, lambda: _undeclared(
            self, *self.validator(location, STRICT).hierarchical(payload), payload)))

    def judge(self, location: str, view: str, payload: Any) -> tuple[bool | None, list[tuple[tuple[Any, ...], str]]]:
        """(accepted?, errors) by both validators; None when they disagree (never shown as a witness)."""
        accepted = self.accepts(location, view, payload)
        if not self.confirms(location, view, payload, accepted):
            return None, []
        return accepted, [] if accepted else self.errors(location, view, payload)


VALIDATOR_SOURCE_BUDGET = 8 * 2**20  # bytes of JSON the kept validators reach (Side.validator)
# a view's dispatcher is compiled once its own validators have reached this many times the JSON the resources are
# written in (Side.validator). Compiling it costs about as much as compiling 3-5 times that JSON (ACP's and MCP's
# releases 2.8-2.9 times, measured as validators of their locations compiled; the 4.2 MB ring 5 times): bought
# once what it would have cost has been paid in validators of their own (a diff of an ACP or MCP pair never gets
# there), so a diff compiles at most about twice what the cheaper way would have, however many locations it asks
# about
DISPATCH_AFTER = 4
# the dispatcher compiles each location's node and what it holds (its `$ref`s are compiled once for all): the
# locations dispatched hold at most this many nodes for each node of the resources (dispatched_locations)
DISPATCH_NODES_PER_NODE = 8


class LocationValidator:
    """jsonschema-rs's validator of one location: its own (`name` None), or a dispatcher's (Side._dispatcher), to
    which the payload is sent as the member `name`; its errors' instance paths then start with that member
    (`depth` 1: `_about` drops it) and its evaluation is read from that member's `$ref` down."""

    __slots__ = ("_validator", "depth", "name")

    def __init__(self, validator: Any, name: str | None = None) -> None:
        self._validator, self.name, self.depth = validator, name, 0 if name is None else 1

    def _sent(self, payload: Any) -> Any:
        return payload if self.name is None else {self.name: payload}

    def is_valid(self, payload: Any) -> bool:
        return bool(self._validator.is_valid(self._sent(payload)))

    def iter_errors(self, payload: Any) -> Iterator[Any]:
        return iter(self._validator.iter_errors(self._sent(payload)))

    def hierarchical(self, payload: Any) -> tuple[dict[str, Any], str]:
        """(jsonschema-rs's hierarchical output of the payload, the prefix of its instance locations): from the
        dispatcher, its evaluation from the member's `$ref` down, as a validator of `{"$ref": location}` gives it
        under its root."""
        out: dict[str, Any] = self._validator.evaluate(self._sent(payload)).hierarchical()
        if self.name is None:
            return out, ""
        inside = f"/properties/{self.name}/$ref"
        stack = [out]
        while stack:
            node = stack.pop()
            if node.get("evaluationPath") == inside:
                return {"valid": node.get("valid", False), "evaluationPath": "", "instanceLocation": "",
                        "schemaLocation": "", "details": [node]}, f"/{self.name}"
            if inside.startswith(node.get("evaluationPath", "") + "/"):
                stack.extend(node.get("details", ()))
        return {"valid": False, "details": []}, f"/{self.name}"  # not evaluated: nothing named


def dispatched_locations(resources: Mapping[str, Any]) -> list[str]:
    """The locations of the schema objects in `resources` (`base#pointer`, as `child` writes them) a dispatcher
    answers for (Side._dispatcher). It compiles each one's node with all it holds (what its `$ref`s reach is
    compiled once for all), so a location nested n deep is compiled n times over; the locations holding the fewest
    nodes are taken first, up to DISPATCH_NODES_PER_NODE nodes compiled for each node there is. The rest (the
    outer nodes of a schema nested deep without `$ref`s) get their own validators."""
    held: list[int] = []  # nodes each location holds, itself included
    locations: list[str] = []
    for base, schema in resources.items():
        if not isinstance(schema, dict):
            continue
        stack: list[tuple[Any, str, int]] = [(schema, f"{base}#", -1)]
        parents: list[int] = []
        first = len(locations)
        while stack:
            node, location, parent = stack.pop()
            index = len(locations)
            locations.append(location)
            held.append(1)
            parents.append(parent)
            for keys, value in schema_children(node):
                here = f"{location}{format_pointer(keys)}"
                if isinstance(value, dict):
                    stack.append((value, here, index))
                elif isinstance(value, list):
                    stack.extend((item, f"{here}/{i}", index) for i, item in enumerate(value) if isinstance(item, dict))
        for index in range(len(locations) - 1, first, -1):  # a node after its parent: children counted first
            held[parents[index - first]] += held[index]
    budget = DISPATCH_NODES_PER_NODE * len(locations)
    out: list[str] = []
    for index in sorted(range(len(locations)), key=lambda i: held[i]):
        budget -= held[index]
        if budget < 0:
            break
        out.append(locations[index])
    return out
_MEMBER_KEYWORDS = frozenset({"properties", "patternProperties"})
_OTHER_MEMBERS = frozenset({"additionalProperties", "unevaluatedProperties"})


def _undeclared(side: Side, evaluation: dict[str, Any], prefix: str, payload: Any) -> tuple[str, ...]:
    """See `Side.undeclared`: the named members, and the values a `const` or `enum` prescribes whole (their
    members are data, not names a contract declares), are gathered from the valid nodes of the evaluation tree;
    then the payload's members are checked against them. Each instance location starts with `prefix` (a
    dispatcher's member: LocationValidator.hierarchical), dropped."""
    cut = len(prefix)
    named: set[str] = set()
    prescribed: set[str] = set()
    stack = [evaluation]
    while stack:
        node = stack.pop()
        if not node.get("valid", False):
            continue  # a union member that did not accept the payload names nothing
        # the evaluation path's last two tokens as written: a keyword is written so (no `~` or `/` to escape), and
        # nothing else compares equal to one (no pointer parsed for each of the tree's thousands of nodes)
        path = node.get("evaluationPath", "")
        parts = path.rsplit("/", 2)
        last = parts[-1] if path else None
        second = parts[1] if len(parts) == 3 else None
        at = node.get("instanceLocation", "")[cut:]
        if second in _MEMBER_KEYWORDS:
            named.add(at)
        elif last in ("const", "enum"):
            prescribed.add(at)
        elif last == "required":  # a required name is a declared one, with or without a schema
            try:
                listed = side.node(location_of(node.get("schemaLocation", "")))
            except (KeyError, IndexError, ValueError, TypeError):
                listed = []
            named.update(f"{at}{format_pointer((name,))}" for name in listed if isinstance(name, str))
        elif last in _OTHER_MEMBERS:
            schema_at = location_of(node.get("schemaLocation", ""))
            try:
                said = side.node(schema_at) if "#" in schema_at else True
            except (KeyError, IndexError, ValueError, TypeError):
                said = True
            if isinstance(said, dict) and any(not is_annotation(k) for k in said):  # a typed map: keys are data
                named.update(f"{at}{format_pointer((name,))}" for name in node.get("annotations", ()))
                # jsonschema-rs (0.61) gives unevaluatedProperties no annotations: the members it evaluated are
                # its children at one level deeper, under the same evaluation path
                named.update(child.get("instanceLocation", "")[cut:] for child in node.get("details", ())
                             if child.get("evaluationPath") == node.get("evaluationPath")
                             and child.get("instanceLocation", "")[cut:] != at)
        stack.extend(node.get("details", ()))
    out: list[str] = []
    values: list[tuple[Any, str]] = [(payload, "")]
    while values:
        value, at = values.pop()
        if at in prescribed:
            continue
        if isinstance(value, dict):
            for name, item in value.items():
                here = f"{at}{format_pointer((name,))}"
                if here in named:
                    values.append((item, here))
                else:
                    out.append(here)
        elif isinstance(value, list):
            values.extend((item, f"{at}/{index}") for index, item in enumerate(value))
    return tuple(sorted(out))


def _retagged(node: Any, tag: str, bases: set[str]) -> Any:
    """A copy of a schema node whose absolute `$ref`s into `bases` carry `tag` (see `_retag`); iterative, as a
    schema may nest deeper than Python recursion goes."""
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(node, root, 0)]
    while stack:
        value, holder, key = stack.pop()
        if isinstance(value, dict):
            copy: Any = dict(value)  # data and scalars as written; each subschema replaced by its copy below
            for keys, item in schema_children(value):
                if len(keys) == 2:  # an entry of a schema map (`properties`): the map copied, its names kept
                    if copy[keys[0]] is value[keys[0]]:
                        copy[keys[0]] = dict(value[keys[0]])
                    stack.append((item, copy[keys[0]], keys[1]))
                else:
                    stack.append((item, copy, keys[0]))
            ref = value.get("$ref")
            if isinstance(ref, str) and ref.partition("#")[0] in bases:
                copy["$ref"] = _retag(ref, tag)
        elif isinstance(value, list):
            copy = [None] * len(value)
            stack.extend((item, copy, index) for index, item in enumerate(value))
        else:
            copy = value
        holder[key] = copy
    return root[0]


def _retag(uri: str, tag: str) -> str:
    """`https://host/path#frag` → `https://<tag>.host/path#frag` (relative $refs inside keep resolving)."""
    parts = urlsplit(uri)
    if not parts.netloc:
        return uri
    return urlunsplit((parts.scheme, f"{tag}.{parts.netloc}", parts.path, parts.query, parts.fragment))


def _about(error: Any, depth: int = 0) -> list[tuple[tuple[Any, ...], str]]:
    """The error's paths, and what it says in the report's words ("missing required field `a` at /x"); the first
    `depth` tokens of its instance paths are the dispatcher's (LocationValidator), not the payload's."""
    base = tuple(error.instance_path)[depth:]
    message = schema_error_text(error) + (f" at {literal(format_pointer(base))}" if base else "")
    return [(path, message) for path in _error_paths(error, depth)]


_CLOSEST_MEMBER_OF = 32  # unions up to this many members are looked into for the member an error is about


def _error_paths(error: Any, depth: int = 0) -> list[tuple[Any, ...]]:
    """The instance paths an error is about: a missing or unexpected property's own path, else where the error is;
    for a union no member accepted, what its closest member says (below). The first `depth` tokens dropped."""
    base = tuple(error.instance_path)[depth:]
    if error.schema_path and error.schema_path[-1] in ("anyOf", "oneOf"):
        # A union no member accepted: about what its closest member says (of the members whose tags the payload
        # has, the one with the fewest errors, when only one has that few), so an `acp` server missing `serverId`
        # is not also blamed on its `id`; else about the union's own path. Only small unions: their context is
        # the costliest part of the errors to build (a union of 36 request kinds: 70 % of its `errors`).
        context = getattr(error.kind, "context", None) if error.schema_path[-1] == "anyOf" or type(
            error.kind).__name__ == "OneOfNotValid" else None
        if context and len(context) <= _CLOSEST_MEMBER_OF:
            # a member whose constant (a tag: `type: "http"`) the payload does not have was not the one meant
            meant = [errors for errors in context if not any(
                type(e.kind).__name__ in ("Constant", "Enum") for e in errors)] or list(context)
            fewest = min(len(errors) for errors in meant)
            closest = [errors for errors in meant if len(errors) == fewest]
            if len(closest) == 1 and fewest:
                return [path for inner in closest[0] for path in _error_paths(inner, depth)]
        return [base]
    kind = error.kind
    if hasattr(kind, "property") and type(kind).__name__ == "Required":
        return [(*base, kind.property)]
    unexpected = getattr(kind, "unexpected", None)
    if unexpected and type(kind).__name__ not in ("UnevaluatedItems", "AdditionalItems"):  # (those list values)
        return [(*base, name) for name in unexpected]
    return [base]


def related(error_path: tuple[Any, ...], change_path: tuple[Any, ...]) -> bool:
    """Whether an error at `error_path` can be caused by a change at `change_path` (`*` = any array index)."""
    for a, b in zip(error_path, change_path, strict=False):
        if a == b or "*" in (a, b) or (isinstance(a, int) and b == "*") or str(a) == str(b):
            continue
        if b == "{name}" or (isinstance(b, Several) and a in b.values):  # any name; a grouped change's steps
            continue
        return False
    return True


@lru_cache(maxsize=1 << 16)
def child(location: str, *tokens: Any) -> str:
    """The location of a subschema: `location` with JSON pointer `tokens` appended to its fragment."""
    base, _, fragment = location.partition("#")
    return f"{base}#{fragment}{format_pointer(tokens)}"


def chains_shortened(resources: dict[str, Any]) -> dict[str, Any]:
    """`resources` with every chain of schemas that are only a `$ref` (and annotations: a `description`, a
    `title`) pointing at its end from each of its hops. Such a schema accepts what its target does, so no instance
    is judged otherwise, and every node stays where it was written (a hop is still there, with its annotations,
    and still used by whatever used it). Followed hop by hop, a chain of 500
    left every part of the diff blind past its own depth limit (the walk at 33, python-jsonschema's recursion at
    a few hundred, canonical forms at CANONICAL_DEPTH_LIMIT): an object → string change at its end was undecided
    and passed the gate (issue 31). The resources are copied where a chain is shortened, never changed."""
    bare: dict[str, str] = {}  # the location of each schema that is only a $ref (and annotations) → its target
    for base, schema in resources.items():
        # each node with a link to its parent's (link, its key there): a path is spelled out only for a bare $ref
        # (a tuple per node cost a third of this walk, which every side pays for every resource)
        stack: list[tuple[Any, Any]] = [(schema, None)]
        pop, push = stack.pop, stack.append
        while stack:
            node, link = pop()
            if isinstance(node, dict):
                ref = node.get("$ref")
                if isinstance(ref, str) and all(k == "$ref" or is_annotation(k) for k in node):
                    here = f"{base}#{format_pointer(_spelled(link))}"
                    bare[here] = join(here, ref)
                for keys, value in schema_children(node):
                    push((value, (link, keys[0]) if len(keys) == 1 else ((link, keys[0]), keys[1])))
            elif isinstance(node, list):
                for index, value in enumerate(node):
                    if isinstance(value, dict | list):
                        push((value, (link, index)))
    ends: dict[str, str] = {}
    for here, target in bare.items():
        if target not in bare:
            continue  # one hop: nothing to shorten
        seen, end = {here}, target
        while end in bare and end not in seen:
            seen.add(end)
            end = bare[end]
        if end not in seen:  # a loop of bare $refs reads nothing: left as it is (diff-schemas refuses it)
            ends[here] = end
    if not ends:
        return resources
    import copy

    out = dict(resources)
    copied: set[str] = set()
    for here, end in ends.items():
        base, _, fragment = here.partition("#")
        if base not in copied:
            out[base] = copy.deepcopy(out[base])
            copied.add(base)
        holder: Any = out[base]
        for token in parse_pointer(fragment):
            holder = holder[int(token)] if isinstance(holder, list) else holder[token]
        end_base, _, _ = end.partition("#")
        holder["$ref"] = uri_of(end).removeprefix(end_base) if end_base == base else uri_of(end)
    return out


def _spelled(link: Any) -> tuple[Any, ...]:
    """The path a chain of (parent link, key) links spells, root first."""
    tokens = []
    while link is not None:
        link, token = link
        tokens.append(token)
    return tuple(reversed(tokens))


@lru_cache(maxsize=65536)
def join(base: str, ref: str) -> str:
    """Resolve a `$ref` against the location of the schema object that holds it."""
    resource = base.partition("#")[0]
    if ref.startswith("#"):
        return location_of(resource + ref)
    # urljoin reads nothing of the base's fragment when the reference is not empty: resolved against the resource,
    # the joins of one resource's `$ref`s are remembered once, not once per node holding them (urljoin is slow)
    return _joined(resource, ref) if ref and resource else location_of(urljoin(base, ref))


@lru_cache(maxsize=65536)
def _joined(resource: str, ref: str) -> str:
    return location_of(urljoin(resource, ref))


def location_of(uri: str) -> str:
    """A URI (a `$ref`, a catalog link) as a location: its fragment percent-decoded into a plain JSON pointer,
    as `child` writes them (`#/$defs/a%20b` → `#/$defs/a b`)."""
    base, sep, fragment = uri.partition("#")
    return base + sep + unquote(fragment) if "%" in fragment else uri


def uri_of(location: str) -> str:
    """A location as a URI reference for the validators: its JSON pointer percent-encoded where RFC 3986 wants."""
    base, sep, fragment = location.partition("#")
    return base + sep + quote(fragment, safe="/!$&'()*+,;=:@~-._?")


class Sides:
    """One Side per release for a run of several pairs (a package's matrix), so each release's validators,
    canonical forms and flattened nodes are built once. Keyed by the release object, not its name: `--against`
    diffs two releases of the same name."""

    def __init__(self) -> None:
        self._by_release: dict[int, tuple[Any, Side]] = {}  # id → (release, kept alive so the id stays its own)
        # (package, kind, surface, old kind, options, old digest, new digest) → what comparing them found
        self.surfaces: dict[tuple[Any, ...], Any] = {}

    def of(self, release: Any) -> Side:
        found = self._by_release.get(id(release))
        if found is None:
            found = self._by_release[id(release)] = (release, Side("release", release.resources, release.name))
        return found[1]


class _Component:
    """Locations that all reach each other through `$ref`s (a recursive definition, a ring of them; most locations
    are alone in theirs), with what they reach. Its digest hashes its members' texts (sorted) and its successors'
    digests (sorted): equal digests mean equal members and, by induction, equal sets of reached texts, which is
    what `Side.digest` promises. Its size is the bytes of every location it reaches, each once."""

    digest: str
    size: int

    def __init__(self, side: Side, members: tuple[str, ...]) -> None:
        self.side, self.members = side, members
        texts = [side._text_and_refs(m) for m in members]
        inside = set(members)
        successors: dict[int, _Component] = {}
        for _, _, refs in texts:
            for target in refs:
                if target not in inside:
                    successor = side.memo[("component", target)]
                    successors[id(successor)] = successor
        self.successors = tuple(successors.values())
        # its locations reach each other: several, or one whose own `$ref`s lead to itself
        self.recursive = len(members) > 1 or any(members[0] in refs for _, _, refs in texts)
        own = b"".join(sorted(digest for digest, _, _ in texts))
        after = b"".join(sorted(s.digest.encode() for s in self.successors))
        self.digest = hashlib.sha256(own + b"|" + after).hexdigest()
        own_size = sum(size for _, size, _ in texts)  # no member is reached from a successor (it would be one)
        # Successors may reach the same locations: each counted once. Where the largest reaches all the others (a
        # ring that also refers to a helper its members use), that is its size, known without listing it
        self.size = own_size
        if self.successors:
            largest = max(self.successors, key=lambda s: s.size)
            rest = [s for s in self.successors if s is not largest]
            if rest and largest.recursive:
                within = largest.reach()
                rest = [s for s in rest if s.members[0] not in within]
            if not rest:
                self.size += largest.size
            else:
                self.size += sum(side._text_and_refs(at)[1] for at in frozenset[str]().union(
                    *(s.reach() for s in (largest, *rest))))
        self._reach: frozenset[str] | None = None
        self._closes: bool | None = None

    def reach(self) -> frozenset[str]:
        """Every location this component reaches, its own included (built on demand: sizes and digests need it
        only where successors overlap)."""
        if self._reach is not None:
            return self._reach
        found: set[str] = set()
        seen: set[int] = set()
        todo: list[_Component] = [self]
        while todo:
            component = todo.pop()
            if id(component) in seen:
                continue
            seen.add(id(component))
            if component._reach is not None:
                found.update(component._reach)
                continue
            found.update(component.members)
            todo.extend(component.successors)
        reach = frozenset(found)
        if self.recursive:  # kept for a ring (one set for all its locations); a chain's sets would hold its square
            self._reach = reach
        return reach

    def closes(self) -> bool:
        """Whether a location it reaches holds what makes the tolerant view differ (`Side._closes`)."""
        for component in self._successors_first(lambda c: c._closes is None):
            component._closes = any(s.closes() for s in component.successors) or any(
                component.side._closes(component.side.node(m)) for m in component.members)
        assert self._closes is not None
        return self._closes

    def _successors_first(self, pending: Callable[[_Component], bool]) -> Iterator[_Component]:
        """This component and what it reaches, each still `pending`, every one after its successors (a chain of
        components may be thousands long: no recursion)."""
        todo: list[tuple[_Component, bool]] = [(self, False)]
        done: set[int] = set()
        while todo:
            component, ready = todo.pop()
            if id(component) in done or not pending(component):
                continue
            if ready:
                done.add(id(component))
                yield component
            else:
                todo.append((component, True))
                todo.extend((s, False) for s in component.successors if pending(s) and id(s) not in done)
