"""Set reasoning over schemas with jsonschema-rs `canonical`: does one side accept everything the other does?

`old.covers(new)` is YES only when proven; NO and UNKNOWN both mean "not proven". We keep them apart: NO is
reported as breaking, UNKNOWN as unknown — never as safe. Recursive `$ref`s, changed regexes and some closed
models come back UNKNOWN; the structural rules and witness search then carry the explanation.
"""

from __future__ import annotations

from typing import Any

import jsonschema_rs

from wirecheck.diff.model import BACKWARD, BREAKING, FORWARD, SAFE, STRICT, TOLERANT, UNKNOWN
from wirecheck.diff.prove import prove_subset
from wirecheck.diff.rules import declare
from wirecheck.diff.side import Side

declare("SCHEMA_NARROWED", "SCHEMA_WIDENED", "SCHEMA_CHANGE_UNDECIDED", module=__name__)

_CONTAINMENT = {"yes": SAFE, "no": BREAKING, "unknown": UNKNOWN}


# `covers` is asked only about schemas small enough for it to decide. Measured on the bundled contracts: every
# decisive answer came from schemas written in under 4 KB (refs followed) whose canonical forms were under 4 KB
# too; above that every answer was UNKNOWN and cost 5-100 ms, half the whole diff time before this budget.
# Beyond it the answer is UNKNOWN, never safe; the part-by-part prover and the witnesses still decide.
COVERS_BUDGET_BYTES = 4096
# Schemas written in more than this are not even canonicalised (that alone costs milliseconds for large ones).
SOURCE_BUDGET_BYTES = 4 * COVERS_BUDGET_BYTES


def covers(wide: Any, narrow: Any) -> str:
    """SAFE when `wide` provably admits every value `narrow` does, BREAKING when provably not, else UNKNOWN."""
    try:
        return _CONTAINMENT[wide.covers(narrow).value]
    except jsonschema_rs.canonical.CanonicalizationError:
        return UNKNOWN


def contained(narrow: Side, narrow_location: str, wide: Side, wide_location: str, wide_view: str) -> str:
    """Does `wide` (read in `wide_view`) accept everything `narrow` writes (its strict view)?

    SAFE when proven part by part (prove.py) or by canonical `covers`, BREAKING when `covers` proves not, else
    UNKNOWN (including schemas over the budgets below, and schemas canonical forms cannot express).
    """
    wide_view = wide.view_of(wide_location, wide_view)  # a tolerant view that is the strict schema: asked as one
    # asked once per question: a kind's surfaces, its changes and the strict and tolerant views (once resolved)
    # ask the same one again, and an undecided `covers` costs up to 10 ms each time (MCP 2025-06-18 → 2025-11-25)
    key = ("contained", id(narrow), narrow_location, wide_location, wide_view)
    found = wide.memo.get(key)
    if found is None:  # `narrow` kept beside the answer, so its id stays its own while the memo holds it
        found = wide.memo[key] = (narrow, _contained(narrow, narrow_location, wide, wide_location, wide_view))
    return found[1]


def _contained(narrow: Side, narrow_location: str, wide: Side, wide_location: str, wide_view: str) -> str:
    if prove_subset(narrow, narrow_location, STRICT, wide, wide_location, wide_view):
        return SAFE
    if max(wide.source_size(wide_location), narrow.source_size(narrow_location)) > SOURCE_BUDGET_BYTES:
        return UNKNOWN
    try:
        if max(wide.canonical_size(wide_location, wide_view),
               narrow.canonical_size(narrow_location, STRICT)) > COVERS_BUDGET_BYTES:
            return UNKNOWN
        return covers(wide.canonical(wide_location, wide_view), narrow.canonical(narrow_location, STRICT))
    except (jsonschema_rs.canonical.CanonicalizationError, ValueError, jsonschema_rs.ValidationError):
        return UNKNOWN


def compare(old: Side, old_location: str, new: Side, new_location: str,
            known: set[tuple[str, str]] | frozenset[tuple[str, str]] = frozenset()) -> dict[tuple[str, str], str]:
    """(direction, consumer model) → breaking | safe | unknown for one kind surface.

    Producers write what their contract declares (the authored, strict view); consumers read with the strict or
    the tolerant view. So FORWARD for consumer model V asks `new_strict ⊆ old_V`, BACKWARD asks `old_strict ⊆ new_V`.
    (Comparing tolerant with tolerant would call every optional field added to a closed type a backward break,
    because a tolerant reading of the old type admits that field with any value, which no old producer wrote.)
    `known`: (direction, view) pairs a verified witness already shows breaking; they are not recomputed.
    """
    verdicts: dict[tuple[str, str], str] = {}
    for direction, reader, reader_location, writer, writer_location in (
        (FORWARD, old, old_location, new, new_location),
        (BACKWARD, new, new_location, old, old_location),
    ):
        if (direction, TOLERANT) in known:  # a tolerant reader's refusal is a strict reader's refusal too
            verdicts[(direction, TOLERANT)] = verdicts[(direction, STRICT)] = BREAKING
            continue
        strict = BREAKING if (direction, STRICT) in known else contained(
            writer, writer_location, reader, reader_location, STRICT)
        verdicts[(direction, STRICT)] = strict
        if strict == SAFE:  # the tolerant view of the reader admits a superset of its strict view
            verdicts[(direction, TOLERANT)] = SAFE
            continue
        if reader.view_of(reader_location, TOLERANT) == STRICT:  # the same schema: the same answer (Side.view_of)
            verdicts[(direction, TOLERANT)] = strict
            continue
        tolerant = contained(writer, writer_location, reader, reader_location, TOLERANT)
        verdicts[(direction, TOLERANT)] = tolerant
        if tolerant == BREAKING:  # ... so what the tolerant reader refuses, the strict one refuses too
            verdicts[(direction, STRICT)] = BREAKING
    return verdicts


def difference(producer: Side, producer_location: str, consumer: Side, consumer_location: str,
               view: str) -> Any | None:
    """What `producer` may write (strict view) and `consumer` rejects (in `view`), as a JSON Schema, or None."""
    try:
        written = producer.canonical(producer_location, STRICT)
        rest = written.subtract(consumer.canonical(consumer_location, consumer.view_of(consumer_location, view)))
        if rest.satisfiability().value == "no":
            return None
        return rest.to_json_schema()
    except (jsonschema_rs.canonical.CanonicalizationError, ValueError):
        return None
