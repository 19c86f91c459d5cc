"""One value per release and key, shared by every kind of the release: its engine, classifier and compiler.

rules.py and strategies.py both keep theirs here, so neither imports the other for it (strategies → rules only).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_PER_RELEASE: dict[tuple[str, Any], tuple[Any, Any]] = {}


def for_release(release: Any, key: Any, build: Callable[[], Any]) -> Any:
    """`build()` once per release and key, shared by every kind of it. A release loaded again (another object
    with other resources) gets a new one."""
    cached = _PER_RELEASE.get((release.name, key))
    if cached is None or cached[0] is not release.resources:
        cached = _PER_RELEASE[(release.name, key)] = (release.resources, build())
    return cached[1]
