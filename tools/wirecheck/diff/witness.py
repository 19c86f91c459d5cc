"""Witnesses: minimal payloads one release accepts and the other rejects, checked by both validators.

Candidates come from a change's probes (built by construction: the smallest payload of one side with the changed
value planted where the change is) and, for changes the rules cannot explain, from `old − new` / `new − old`
computed by jsonschema-rs. A candidate is kept only if jsonschema-rs and python-jsonschema agree on both sides;
of those, the shortest serialisation wins, per direction and consumer model.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from wirecheck.diff.instances import NoExample, example
from wirecheck.diff.model import BACKWARD, FORWARD, STRICT, VIEWS, Probe, Witness
from wirecheck.diff.side import Side, related
from wirecheck.json_types import json_bytes

SUBTRACT_ID = "https://schemas.wirecheck.invalid/difference.json"  # hierarchical, so "#/..." refs resolve


def _size(payload: Any) -> int:
    return len(json_bytes(payload, sort_keys=True))


def candidates(probes: Iterable[Probe], old: tuple[Side, str], new: tuple[Side, str],
               via: tuple[tuple[tuple[Any, ...], str, str], ...] = (), failures: list[str] | None = None) -> list[Any]:
    """Payloads for `probes`, built through the union members `via` names (Change.via) where it can; why a probe
    could not be built goes to `failures` (what blocked a decision, when nothing else decides it)."""
    payloads: list[Any] = []
    seen: set[bytes] = set()
    for probe in probes:
        side, location = old if probe.side == "old" else new
        prefer = {at: (a if probe.side == "old" else b) for at, a, b in via}
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
    return payloads


def judge(payloads: Iterable[Any], old: tuple[Side, str], new: tuple[Side, str],
          about: tuple[Any, ...] | None = None, confirm: bool = True) -> dict[tuple[str, str], Witness]:
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
    every candidate's answers would pick."""
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
        ranked = _ranked(found, (writer_side, writer_location), (reader_side, reader_location), view, about)
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
            about: tuple[Any, ...] | None) -> Iterator[tuple[Any, tuple[str, ...], list[Any]]]:
    """(payload, undeclared members, errors about `about`) of the screened candidates `found` ((size, index,
    payload)) in the order that picks the winner: the declared ones shortest first, then the latent ones."""
    latent = []
    for _, _, payload in sorted(found, key=lambda entry: entry[:2]):
        errors: list[Any] = []
        if about is not None:  # the reason's path ties the witness to the change
            errors = [e for e in reader[0].errors(reader[1], view, payload) if related(e[0], about)]
            if not errors:
                continue
        undeclared = writer[0].undeclared(writer[1], payload)
        if undeclared:
            latent.append((payload, undeclared, errors))
        else:
            yield payload, undeclared, errors
    yield from latent


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
