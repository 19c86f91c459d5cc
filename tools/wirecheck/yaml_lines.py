"""YAML that remembers where each mapping started, so a data file's problems can name their line."""

from __future__ import annotations

from typing import Any

import yaml

LINE_KEY = "__line__"


class _LineLoader(yaml.SafeLoader):
    """A SafeLoader that adds `__line__` (1-based) to every mapping."""


def _mapping(loader: _LineLoader, node: yaml.MappingNode) -> dict[str, Any]:
    value = {str(k): v for k, v in loader.construct_mapping(node, deep=True).items()}
    value[LINE_KEY] = node.start_mark.line + 1
    return value


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def load_with_lines(text: str) -> Any:
    """Parse YAML text; every mapping carries `__line__`. Raises yaml.YAMLError like yaml.safe_load."""
    return yaml.load(text, Loader=_LineLoader)


def strip_lines(value: Any) -> Any:
    """The same data without the `__line__` keys."""
    if isinstance(value, dict):
        return {k: strip_lines(v) for k, v in value.items() if k != LINE_KEY}
    if isinstance(value, list):
        return [strip_lines(v) for v in value]
    return value
