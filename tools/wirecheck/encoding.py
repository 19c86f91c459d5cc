"""How everything wirecheck writes is encoded: UTF-8, with what UTF-8 cannot carry written as its escape.

The one thing a Python string can hold that UTF-8 cannot is a lone surrogate: a JSON capture's `"\\ud800"`, a
YAML file's, or a byte of a file name that is not UTF-8 (Python keeps it as U+DC80-U+DCFF). Every output (standard
output, report files, JSON written as bytes) encodes with ERRORS, which writes such a character as `\\ud800`: in a
JSON document that is the standard escape for it (Python and JavaScript read it back exactly), in text, Markdown,
HTML and XML it is the same six characters, visible. Nothing is dropped, and nothing ends a run.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import IO, BinaryIO, TextIO

ERRORS = "backslashreplace"  # the codec error handler of every output: U+D800 → `\ud800`


def encode(text: str) -> bytes:
    """`text` as the UTF-8 bytes an output carries."""
    return text.encode("utf-8", ERRORS)


def open_text(path: Path | str) -> TextIO:
    """A text file to write an output to."""
    return Path(path).open("w", encoding="utf-8", errors=ERRORS)


def text_writer(binary: BinaryIO | IO[bytes], *, line_buffering: bool = False) -> TextIO:
    """A text stream over `binary` that encodes like every other output."""
    return io.TextIOWrapper(binary, encoding="utf-8", errors=ERRORS, line_buffering=line_buffering)
