"""Set reasoning over schemas with jsonschema-rs `canonical`: does one side accept everything the other does?

`old.covers(new)` is YES only when proven; NO and UNKNOWN both mean "not proven". We keep them apart: NO is
reported as breaking, UNKNOWN as unknown — never as safe. Recursive `$ref`s, changed regexes and some closed
models come back UNKNOWN; the structural rules and witness search then carry the explanation.
"""

from __future__ import annotations

from typing import Any

import jsonschema_rs

from wirecheck.diff.model import BACKWARD, BREAKING, FORWARD, SAFE, STRICT, UNKNOWN, VIEWS
from wirecheck.diff.rules import declare
from wirecheck.diff.side import Side

declare("SCHEMA_NARROWED", "SCHEMA_WIDENED", "SCHEMA_CHANGE_UNDECIDED", module=__name__)

_CONTAINMENT = {"yes": SAFE, "no": BREAKING, "unknown": UNKNOWN}


def covers(wide: Any, narrow: Any) -> str:
    """SAFE when `wide` provably admits every value `narrow` does, BREAKING when provably not, else UNKNOWN."""
    try:
        return _CONTAINMENT[wide.covers(narrow).value]
    except jsonschema_rs.canonical.CanonicalizationError:
        return UNKNOWN


def compare(old: Side, old_location: str, new: Side, new_location: str) -> dict[tuple[str, str], str]:
    """(direction, consumer model) → breaking | safe | unknown for one kind surface.

    Producers write what their contract declares (the authored, strict view); consumers read with the strict or
    the tolerant view. So FORWARD for consumer model V asks `new_strict ⊆ old_V`, BACKWARD asks `old_strict ⊆ new_V`.
    (Comparing tolerant with tolerant would call every optional field added to a closed type a backward break,
    because a tolerant reading of the old type admits that field with any value, which no old producer wrote.)
    """
    verdicts: dict[tuple[str, str], str] = {}
    try:
        old_written, new_written = old.canonical(old_location, STRICT), new.canonical(new_location, STRICT)
    except (jsonschema_rs.canonical.CanonicalizationError, ValueError, jsonschema_rs.ValidationError):
        return {(d, v): UNKNOWN for d in (FORWARD, BACKWARD) for v in VIEWS}
    for view in VIEWS:
        try:
            old_read, new_read = old.canonical(old_location, view), new.canonical(new_location, view)
        except (jsonschema_rs.canonical.CanonicalizationError, ValueError, jsonschema_rs.ValidationError):
            verdicts[(FORWARD, view)] = verdicts[(BACKWARD, view)] = UNKNOWN
            continue
        verdicts[(FORWARD, view)] = covers(old_read, new_written)
        verdicts[(BACKWARD, view)] = covers(new_read, old_written)
    return verdicts


def difference(producer: Side, producer_location: str, consumer: Side, consumer_location: str,
               view: str) -> Any | None:
    """What `producer` may write (strict view) and `consumer` rejects (in `view`), as a JSON Schema, or None."""
    try:
        written = producer.canonical(producer_location, STRICT)
        rest = written.subtract(consumer.canonical(consumer_location, view))
        if rest.satisfiability().value == "no":
            return None
        return rest.to_json_schema()
    except (jsonschema_rs.canonical.CanonicalizationError, ValueError):
        return None
