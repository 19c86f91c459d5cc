"""Reading a data file's text, with the one error type every reader of data files (YAML or JSON) reports: here,
without YAML, so a command whose files are all JSON (`diff-schemas a.json b.json`) never imports PyYAML (~100 M
instructions of its start-up). `yaml_lines` re-exports both names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from wirecheck.input_files import Unreadable
from wirecheck.input_files import read_text as read_input_text


class YamlFileError(Exception):
    """A data file (YAML, or any text `read_text` reads) that cannot be read or parsed: `message` says why (with the
    line when YAML knows it)."""

    def __init__(self, file: str, message: str):
        self.file, self.message = file, message
        super().__init__(f"{file}: {message}")


def read_text(path: Path, what: str = "file") -> str:
    """A data file's text, read through input_files (devices, named pipes, symbolic-link loops refused; at most
    limits.MAX_FILE_BYTES); YamlFileError, never another exception, when it cannot be read: missing, a directory,
    too large, not UTF-8."""
    file = str(path)
    try:
        return read_input_text(path, what)
    except Unreadable as exc:
        if exc.missing:
            raise YamlFileError(file, f"{what} not found" if what.endswith("file") else
                                f"no {what} (file not found)") from None
        raise YamlFileError(file, exc.reason) from None


def twin_text(data: Any) -> str:
    """A YAML file's (or files') data as its generated JSON twin holds it (`python -m wirecheck.twins`): keys in the
    YAML's order, one space of indent, text as written."""
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"
