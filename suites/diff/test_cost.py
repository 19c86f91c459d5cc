"""The diff cost bench (diff/cost.py, part of `nox -s bench`): what it times is every real revision pair, and its
large pair is one diff-schemas compares (not one it refuses by the input limit, which would time a refusal)."""

from __future__ import annotations

from pathlib import Path

from wirecheck.diff.cost import cases, interlinked
from wirecheck.diff.inputs import too_many_values


def test_every_real_revision_pair_and_the_one_keyword_pair_are_timed(tmp_path: Path) -> None:
    timed = cases(tmp_path)
    assert [n for n in timed if n.startswith("mcp ")] == [
        "mcp 2024-11-05 → 2025-03-26", "mcp 2025-03-26 → 2025-06-18", "mcp 2025-06-18 → 2025-11-25",
        "mcp 2025-11-25 → 2026-07-28"]
    assert [n for n in timed if n.startswith("acp ")] == [
        "acp 0.5.1 → 0.8.0", "acp 0.8.0 → 0.15.0", "acp 0.15.0 → 0.18.2", "acp 0.18.2 → 0.23.0", "acp 0.23.0 → 1.9.0",
        "acp 1.9.0 → 2.4.0"]
    assert timed["one keyword"][-3:-2] == ["diff-schemas"] and all(Path(p).exists() for p in timed["one keyword"][-2:])


def test_the_large_pair_is_within_the_input_limit_and_changes_its_kinds() -> None:
    old, new = interlinked(1350, 270, 480)
    assert too_many_values(old) is None and too_many_values(new) is None
    changed = [name for name in old["$defs"] if old["$defs"][name] != new["$defs"][name]]
    assert len(changed) == 27 and all(int(name[1:]) >= 1080 for name in changed)
