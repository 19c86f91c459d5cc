"""Witnesses: minimal payloads one release accepts and the other rejects, checked by both validators.

Candidates come from a change's probes (built by construction: the smallest payload of one side with the changed
value planted where the change is) and, for changes the rules cannot explain, from `old − new` / `new − old`
computed by jsonschema-rs. A candidate is kept only if jsonschema-rs and python-jsonschema agree on both sides;
of those, the shortest serialisation wins, per direction and consumer model.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from wirecheck.diff.instances import NoExample, example
from wirecheck.diff.model import BACKWARD, FORWARD, STRICT, VIEWS, Probe, Witness
from wirecheck.diff.side import Side, related
from wirecheck.json_types import json_bytes

SUBTRACT_ID = "https://schemas.wirecheck.invalid/difference.json"  # hierarchical, so "#/..." refs resolve


def _size(payload: Any) -> int:
    return len(json_bytes(payload, sort_keys=True))


def candidates(probes: Iterable[Probe], old: tuple[Side, str], new: tuple[Side, str],
               via: tuple[tuple[tuple[Any, ...], str, str], ...] = ()) -> list[Any]:
    """Payloads for `probes`, built through the union members `via` names (Change.via) where it can."""
    payloads: list[Any] = []
    seen: set[bytes] = set()
    for probe in probes:
        side, location = old if probe.side == "old" else new
        prefer = {at: (a if probe.side == "old" else b) for at, a, b in via}
        try:
            payload = example(side, location, {probe.path: probe.value} if probe.planted else None, prefer)
        except (NoExample, RecursionError):
            continue
        except Exception:  # a generator gap must cost a witness, never the diff
            continue
        try:
            key = json_bytes(payload, sort_keys=True)
        except TypeError:
            continue
        if key not in seen:
            seen.add(key)
            payloads.append(payload)
    return payloads


def judge(payloads: Iterable[Any], old: tuple[Side, str], new: tuple[Side, str],
          about: tuple[Any, ...] | None = None, confirm: bool = True) -> dict[tuple[str, str], Witness]:
    """The shortest verified witness per (direction, view) among `payloads`; with `about`, only witnesses whose
    rejection is at or around that instance path (so a change is never credited with another change's break).

    jsonschema-rs screens every candidate; python-jsonschema confirms a witness before it is kept (`confirm`;
    without it the answer is jsonschema-rs's alone: used as evidence, never shown as a witness)."""
    best: dict[tuple[str, str], Witness] = {}
    sides = {"old": old, "new": new}
    for payload in payloads:
        for view in VIEWS:
            # producers write their strict contract; the consumer on the other side reads with `view`
            for direction, writer, reader in ((FORWARD, "new", "old"), (BACKWARD, "old", "new")):
                current = best.get((direction, view))
                # declared evidence first (a payload with members the writer's contract names, model.DECLARED);
                # then, shown, the shortest; not shown (evidence only), any
                if current is not None and not current.undeclared and (
                        not confirm or _size(payload) >= _size(current.payload)):
                    continue
                writer_side, writer_location = sides[writer]
                reader_side, reader_location = sides[reader]
                if (not writer_side.accepts(writer_location, STRICT, payload)
                        or reader_side.accepts(reader_location, view, payload)):
                    continue
                undeclared = writer_side.undeclared(writer_location, payload)
                if current is not None and (len(undeclared) > 0, _size(payload)) >= (
                        len(current.undeclared) > 0, _size(current.payload)):
                    continue
                # the reason is shown with a confirmed witness; `about` needs the errors' paths
                errors = reader_side.errors(reader_location, view, payload) if confirm or about is not None else []
                if about is not None:
                    first = next((e for e in errors if related(e[0], about)), None)
                    if first is None:
                        continue
                    errors = [first]
                if confirm and not (writer_side.confirms(writer_location, STRICT, payload, True)
                                    and reader_side.confirms(reader_location, view, payload, False)):
                    continue
                best[(direction, view)] = Witness(payload, direction, view, reader,
                                                  errors[0][1] if errors else "rejected", undeclared)
    return best


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
