"""Witnesses: minimal payloads one release accepts and the other rejects, checked by both validators.

Candidates come from a change's probes (built by construction: the smallest payload of one side with the changed
value planted where the change is) and, for changes the rules cannot explain, from `old − new` / `new − old`
computed by jsonschema-rs. A candidate is kept only if jsonschema-rs and python-jsonschema agree on both sides;
of those, the shortest serialisation wins, per direction and consumer model.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from wirecheck.diff.instances import NoExample, example
from wirecheck.diff.model import ABSENT, BACKWARD, FORWARD, ITEM, STRICT, VIEWS, Probe, Several, Witness
from wirecheck.diff.side import Side, related
from wirecheck.json_types import json_bytes

SUBTRACT_ID = "https://schemas.wirecheck.invalid/difference.json"  # hierarchical, so "#/..." refs resolve


def _size(payload: Any) -> int:
    return len(json_bytes(payload, sort_keys=True))


def candidates(probes: Iterable[Probe], old: tuple[Side, str], new: tuple[Side, str],
               via: tuple[tuple[tuple[Any, ...], str, str], ...] = (), failures: list[str] | None = None,
               plants: dict[bytes, tuple[Any, ...]] | None = None) -> list[Any]:
    """Payloads for `probes`, built through the union members `via` names (Change.via) where it can; why a probe
    could not be built goes to `failures` (what blocked a decision, when nothing else decides it), and the path
    each payload's value was planted at to `plants` (by the payload's key, `json_bytes(sort_keys=True)`)."""
    payloads: list[Any] = []
    seen: set[bytes] = set()
    for probe in probes:
        side, location = old if probe.side == "old" else new
        prefer: dict[tuple[Any, ...], tuple[str, ...]] = {}  # unions nested at one path (a oneOf in a oneOf) each
        for at, a, b in via:  # have a member there
            prefer[at] = (*prefer.get(at, ()), a if probe.side == "old" else b)
        try:
            payload = example(side, location, {probe.path: probe.value} if probe.planted else None, prefer)
        except NoExample as exc:
            if failures is not None:
                failures.append(str(exc))
            continue
        except RecursionError:
            if failures is not None:
                failures.append(f"{location} nests deeper than a payload can be built")
            continue
        except Exception as exc:  # a generator gap must cost a witness, never the diff
            if failures is not None:
                failures.append(f"the payload builder failed ({type(exc).__name__})")
            continue
        try:
            key = json_bytes(payload, sort_keys=True)
        except TypeError:
            continue
        if key not in seen:
            seen.add(key)
            payloads.append(payload)
            if plants is not None and probe.planted:
                plants[key] = probe.path
    return payloads


def judge(payloads: Iterable[Any], old: tuple[Side, str], new: tuple[Side, str],
          about: tuple[Any, ...] | None = None, confirm: bool = True,
          blame: Blame | None = None) -> dict[tuple[str, str], Witness]:
    """The shortest verified witness per (direction, view) among `payloads`; with `about`, only witnesses whose
    rejection is at or around that instance path (so a change is never credited with another change's break).

    jsonschema-rs screens every candidate; python-jsonschema confirms a witness before it is kept (`confirm`;
    without it the answer is jsonschema-rs's alone: used as evidence, never shown as a witness). The best
    candidate is a declared payload before a latent one (model.DECLARED), then the shortest, then the first
    given; python-jsonschema, about 20 times slower, is asked about candidates in that order until one is
    confirmed, not about every candidate that was the best so far (on MCP's larger pairs, two thirds of the
    diff's time went to confirming witnesses that a shorter one then replaced). The reader's errors and the
    writer's undeclared members (what ties a candidate to the change, what makes it latent) are asked for in
    the same order, shortest first, and no further than a confirmed declared candidate: the winner is the one
    every candidate's answers would pick. With `blame` (what the change's probes planted where), a candidate the
    reader refuses only around the planted value, not at it, must be refused because of it (`_its_own`)."""
    sides = {"old": old, "new": new}
    screened: dict[tuple[str, str], list[tuple[int, int, Any]]] = {}
    for index, payload in enumerate(payloads):
        size: int | None = None
        for view in VIEWS:
            # producers write their strict contract; the consumer on the other side reads with `view`
            for direction, writer, reader in ((FORWARD, "new", "old"), (BACKWARD, "old", "new")):
                writer_side, writer_location = sides[writer]
                reader_side, reader_location = sides[reader]
                if (not writer_side.accepts(writer_location, STRICT, payload)
                        or reader_side.accepts(reader_location, view, payload)):
                    continue
                size = _size(payload) if size is None else size
                screened.setdefault((direction, view), []).append((size, index, payload))
    best: dict[tuple[str, str], Witness] = {}
    for (direction, view), found in screened.items():
        writer, reader = ("new", "old") if direction == FORWARD else ("old", "new")
        writer_side, writer_location = sides[writer]
        reader_side, reader_location = sides[reader]
        ranked = _ranked(found, (writer_side, writer_location), (reader_side, reader_location), view, about,
                         blame.of(reader) if blame is not None else None)
        for payload, undeclared, errors in ranked:
            if confirm and not (writer_side.confirms(writer_location, STRICT, payload, True)
                                and reader_side.confirms(reader_location, view, payload, False)):
                continue
            if confirm and about is None:  # the reason is shown with a confirmed witness
                errors = reader_side.errors(reader_location, view, payload)
            best[(direction, view)] = Witness(payload, direction, view, reader,
                                              errors[0][1] if errors else "rejected", undeclared)
            break
    return best


def _ranked(found: list[tuple[int, int, Any]], writer: tuple[Side, str], reader: tuple[Side, str], view: str,
            about: tuple[Any, ...] | None, blame: Blame | None = None
            ) -> Iterator[tuple[Any, tuple[str, ...], list[Any]]]:
    """(payload, undeclared members, errors about `about`) of the screened candidates `found` ((size, index,
    payload)) in the order that picks the winner: the declared ones shortest first, then the latent ones."""
    latent = []
    for _, _, payload in sorted(found, key=lambda entry: entry[:2]):
        errors: list[Any] = []
        if about is not None:  # the reason's path ties the witness to the change
            errors = [e for e in reader[0].errors(reader[1], view, payload) if related(e[0], about)]
            if not errors:
                continue
            if blame is not None and not _its_own(reader, view, payload, errors, about, blame):
                continue
        undeclared = writer[0].undeclared(writer[1], payload)
        if undeclared:
            latent.append((payload, undeclared, errors))
        else:
            yield payload, undeclared, errors
    yield from latent


@dataclass(frozen=True)
class Blame:
    """What a change's probes planted where (by the payload's key, `json_bytes(sort_keys=True)`), the schemas at
    its path in the old and the new release where it is written there (Change.local), and the union members it
    was found in (Change.via); `of(reader)` keeps the reader's side of each."""

    plants: dict[bytes, tuple[Any, ...]]
    places: tuple[str | None, str | None] = (None, None)
    via: tuple[tuple[tuple[Any, ...], str, str], ...] = ()
    reader: str = ""

    def of(self, reader: str) -> Blame:
        return dataclasses.replace(self, reader=reader)

    @property
    def place(self) -> str | None:
        return self.places[0] if self.reader == "old" else self.places[1]

    @property
    def members(self) -> list[tuple[tuple[Any, ...], str]]:
        return [(at, a if self.reader == "old" else b) for at, a, b in self.via]


def _its_own(reader: tuple[Side, str], view: str, payload: Any, errors: list[Any], about: tuple[Any, ...],
             blame: Blame) -> bool:
    """Whether the reader refuses `payload` because of the value the change's probe planted in it: an error at or
    below the planted value, or one around it (the object it sits in, a union none of whose members accepts the
    payload: read in the member the change was found in, `_through`) that goes away once the payload is fixed
    there alone — the planted value dropped, or, where it is the whole value at the change's place, replaced by
    one the reader's own schema there accepts (a step planted in a list that needs one). AsyncAPI 2.6 → 3.0: a 2.6
    server whose tag has a `description` is refused by 3.0, whose server needs `host`; without the `description`
    it is refused the same, so it is no witness of "tag description removed" (issue 39, 4); a closed trait example
    `{"x": 1}` that must now carry `payload` or `headers` is refused by a tolerant reader for lacking those, not
    for `x`. Another change's error elsewhere (AsyncAPI's version) does not matter. A value planted as absent, or
    not found in the payload, is judged by where the errors are, as before."""
    planted = blame.plants.get(json_bytes(payload, sort_keys=True))
    if planted is None:
        return True
    spots = [path for path in _concrete(payload, planted) if _holds(payload, path)]
    if not spots:
        return True
    errors = _through(reader, view, payload, errors, blame.members)
    if any(path[:len(spot)] == spot for path, _ in errors for spot in spots):
        return True
    fixes = [_replaced(payload, spot, ABSENT) for spot in spots]
    if blame.place is not None and planted == about:  # the planted value is all there is at the change's place
        with contextlib.suppress(Exception):  # (no value built: one fix fewer)
            value = example(reader[0], blame.place)
            fixes += [_replaced(payload, spot, value) for spot in spots]
    for fixed in fixes:
        left = set(_through(reader, view, fixed, reader[0].errors(reader[1], view, fixed), blame.members))
        if any(e not in left for e in errors):
            return True
    return False


def _through(reader: tuple[Side, str], view: str, payload: Any, errors: list[Any],
             members: list[tuple[tuple[Any, ...], str]]) -> list[Any]:
    """`errors` with each one at a union the change was found inside (`members`: its path, the member there)
    replaced by what that member says of the value there: a union of 56 control requests says only that none
    accepts it, its member which of its members it lacks or refuses."""
    out = []
    for path, message in errors:
        member = next((m for at, m in members if path in _concrete(payload, at)), None)
        if member is None or not _holds(payload, path):
            out.append((path, message))
            continue
        value = _value(payload, path)
        out += [((*path, *inner), said) for inner, said in reader[0].errors(member, view, value)] or [
            (path, message)]
    return out


def _value(payload: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        payload = payload[step]
    return payload


_CONCRETE_PATHS = 4  # places of a payload one change path is looked for at (`*`, `{name}`, a grouped step)


def _concrete(payload: Any, about: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """The instance paths of `payload` the change path `about` stands for (`*` any item, `{name}` any member, a
    grouped step any of its values); the last step may be absent (a member the change asks for)."""
    frontier: list[tuple[tuple[Any, ...], Any]] = [((), payload)]
    for index, step in enumerate(about):
        last, found = index == len(about) - 1, []
        for path, value in frontier:
            if isinstance(value, dict):
                keys = [k for k in value if k == step or step == "{name}"
                        or (isinstance(step, Several) and k in step.values)]
                if last and not keys and isinstance(step, str) and step not in (ITEM, "{name}"):
                    keys = [step]
                found += [((*path, k), value.get(k)) for k in keys]
            elif isinstance(value, list):
                positions = range(len(value)) if step == ITEM else [step] if isinstance(step, int) and (
                    0 <= step < len(value)) else []
                found += [((*path, i), value[i]) for i in positions]
        frontier = found[:_CONCRETE_PATHS]
    return [path for path, _ in frontier]


def _holds(payload: Any, path: tuple[Any, ...]) -> bool:
    """Whether `payload` has a member or item at `path`."""
    for step in path:
        if not ((isinstance(payload, dict) and step in payload)
                or (isinstance(payload, list) and isinstance(step, int) and 0 <= step < len(payload))):
            return False
        payload = payload[step]
    return True


def _replaced(payload: Any, path: tuple[Any, ...], value: Any) -> Any:
    """A copy of `payload` with `value` at `path` (ABSENT: the member or item there dropped)."""
    if not path:
        return value
    step, rest = path[0], path[1:]
    if isinstance(payload, dict):
        out = dict(payload)
        if rest:
            out[step] = _replaced(payload[step], rest, value)
        elif value is ABSENT:
            out.pop(step, None)
        else:
            out[step] = value
        return out
    items = list(payload)
    if rest:
        items[step] = _replaced(items[step], rest, value)
    elif value is ABSENT:
        del items[step]
    else:
        items[step] = value
    return items


def from_difference(schema: Any, accepting: tuple[Side, str], old: tuple[Side, str],
                    new: tuple[Side, str]) -> dict[tuple[str, str], Witness]:
    """Witnesses drawn from a difference schema (jsonschema-rs `subtract` output), and from `accepting` itself."""
    if schema is None:
        return {}
    if isinstance(schema, dict):
        schema = {**schema, "$id": SUBTRACT_ID}
    scratch = Side("difference", {SUBTRACT_ID: schema})
    payloads = []
    for side, location in ((scratch, SUBTRACT_ID + "#"), accepting):
        try:
            payloads.append(example(side, location))
        except Exception:
            continue
    return judge(payloads, old, new)


_PRESENCE_NAMES = 8  # names combined at most (2^8 payloads)
_COMBINATORS = ("anyOf", "oneOf", "allOf", "not", "if", "then", "else")


def presence_probes(old: tuple[Side, str], new: tuple[Side, str]) -> list[Any]:
    """Payloads for a change in which members must be present together or apart (a root `anyOf` of `required` and
    `not: {required}` branches: package.json's "bundleDependencies or bundledDependencies, not both"): a valid
    payload of either side with each combination of the names those combinators require, present (with a value
    valid for that side's property) or absent. `judge` keeps those one side accepts and the other refuses."""
    names: list[str] = []
    for side, location in (old, new):
        node = side.node(location)
        for keyword in _COMBINATORS if isinstance(node, dict) else ():
            for sub in _branches(node.get(keyword)):
                for name in _required_inside(sub):
                    if name not in names:
                        names.append(name)
        if isinstance(node, dict) and isinstance(node.get("dependentRequired"), dict):
            for name, others in node["dependentRequired"].items():
                for each in [name, *(others if isinstance(others, list) else [])]:
                    if isinstance(each, str) and each not in names:
                        names.append(each)
    names = names[:_PRESENCE_NAMES]
    if not names:
        return []
    payloads: list[Any] = []
    for side, location in (new, old):
        try:
            base = example(side, location)
        except NoExample:
            continue
        if not isinstance(base, dict):
            continue
        values: dict[str, Any] = {}
        for name in names:
            with contextlib.suppress(NoExample, KeyError, TypeError):
                values[name] = example(side, f"{location}/properties/{_escaped(name)}"
                                       if "#" in location else f"{location}#/properties/{_escaped(name)}")
        for mask in range(1 << len(names)):
            payload = {k: v for k, v in base.items() if k not in names}
            for bit, name in enumerate(names):
                if mask >> bit & 1:
                    if name not in values:
                        break
                    payload[name] = values[name]
            else:
                payloads.append(payload)
    return payloads


def _branches(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value] if isinstance(value, dict) else []


def _required_inside(schema: Any, depth: int = 0) -> list[str]:
    """The names a subschema's `required` lists, in it and in its own combinators (not in its properties)."""
    if not isinstance(schema, dict) or depth > 4:
        return []
    out = [n for n in schema.get("required", []) if isinstance(n, str)] \
        if isinstance(schema.get("required"), list) else []
    for keyword in _COMBINATORS:
        for sub in _branches(schema.get(keyword)):
            out += _required_inside(sub, depth + 1)
    return out


def _escaped(name: str) -> str:
    from urllib.parse import quote

    return quote(name.replace("~", "~0").replace("/", "~1"), safe="~!$&'()*+,;=:@-._")
