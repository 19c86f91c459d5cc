"""What several diff writers share: verdict words, witness rendering, the direction table."""

from __future__ import annotations

from wirecheck.diff.model import (
    BACKWARD,
    DIRECTIONS,
    FORWARD,
    STRICT,
    TOLERANT,
    VIEWS,
    DiffFinding,
    DiffResult,
    Witness,
)
from wirecheck.json_types import json_bytes

DIRECTION_TEXT = {
    FORWARD: "forward (old consumers read new producers)",
    BACKWARD: "backward (new consumers read old producers)",
}
VIEW_TEXT = {STRICT: "strict consumers", TOLERANT: "tolerant consumers"}


def payload_text(payload: object, limit: int = 300) -> str:
    text = json_bytes(payload, sort_keys=True).decode()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def breaks_text(finding: DiffFinding) -> str:
    parts = [f"{v} {d}/{m}" if v != "breaking" else f"{d}/{m}" for d, m, v in finding.verdicts]
    breaking = [p for p in parts if " " not in p]
    unknown = [p.split(" ", 1)[1] for p in parts if p.startswith("unknown ")]
    out = []
    if breaking:
        out.append("breaks " + ", ".join(breaking))
    if unknown:
        out.append("unknown " + ", ".join(unknown))
    return "; ".join(out) or "breaks nobody"


def witness_text(witness: Witness) -> str:
    accepted = "new" if witness.rejected_by == "old" else "old"
    return (f"{witness.direction}/{witness.view}: {payload_text(witness.payload)} — {accepted} accepts, "
            f"{witness.rejected_by} ({witness.view}) rejects: {witness.reason}")


def unique_witnesses(finding: DiffFinding) -> list[Witness]:
    """One witness per distinct payload (the same payload often proves both consumer models)."""
    seen: dict[bytes, Witness] = {}
    for witness in finding.witnesses:
        key = json_bytes(witness.payload, sort_keys=True) + witness.direction.encode()
        seen.setdefault(key, witness)
    return list(seen.values())


def compatibility_rows(result: DiffResult) -> list[tuple[str, str, str]]:
    return [(d, m, result.compatibility(d, m)) for d in DIRECTIONS for m in VIEWS]
