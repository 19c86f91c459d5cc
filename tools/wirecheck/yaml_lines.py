"""Reading the YAML files users and contracts hold: one error type for every way a file can fail to be read, and
YAML that remembers where each mapping started, so a data file's problems can name their line."""

from __future__ import annotations

from pathlib import Path
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


# libyaml's loader when PyYAML was built with it (its wheels are): a fifth of the pure-Python loader's time.
FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class YamlFileError(Exception):
    """A YAML file that cannot be read or parsed: `message` says why (with the line when YAML knows it)."""

    def __init__(self, file: str, message: str):
        self.file, self.message = file, message
        super().__init__(f"{file}: {message}")


def read_yaml_file(path: Path, *, lines: bool = False, what: str = "file") -> Any:
    """The data in a YAML file (with `__line__` in every mapping when `lines`); YamlFileError, never another
    exception, when it cannot be had: missing, a directory, not UTF-8, not YAML, or a value YAML cannot build
    (a date that does not exist, `2024-02-30`)."""
    file = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise YamlFileError(file, f"{what} not found" if what.endswith("file") else f"no {what} (file not found)") \
            from None
    except IsADirectoryError:
        raise YamlFileError(file, f"is a directory, not a {what}") from None
    except UnicodeDecodeError as exc:
        raise YamlFileError(file, f"not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    except OSError as exc:
        raise YamlFileError(file, f"cannot read: {exc.strerror}") from None
    try:
        return yaml.load(text, Loader=_LineLoader if lines else FAST_LOADER)  # both are safe loaders
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        raise YamlFileError(file, f"not valid YAML: {where}{exc}") from None
    except (ValueError, TypeError, RecursionError) as exc:  # raised while building a value, e.g. a date
        raise YamlFileError(file, f"a value YAML cannot build: {exc} (quote dates meant as text)") from None
