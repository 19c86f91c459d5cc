"""How everything wirecheck writes is encoded: UTF-8, with what UTF-8 cannot carry written as its escape.

The one thing a Python string can hold that UTF-8 cannot is a lone surrogate: a JSON capture's `"\\ud800"`, a
YAML file's, or a byte of a file name that is not UTF-8 (Python keeps it as U+DC80-U+DCFF). Every output (standard
output, report files, JSON written as bytes) encodes with ERRORS, which writes such a character as `\\ud800`: in a
JSON document that is the standard escape for it (Python and JavaScript read it back exactly), in text, Markdown,
HTML and XML it is the same six characters, visible. Nothing is dropped, and nothing ends a run.
"""

from __future__ import annotations

import io
import os
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


def file_uri(path: str | os.PathLike[str], base: Path) -> str:
    """A file as a SARIF `artifactLocation.uri` (a URI reference, RFC 3986): relative to `base` (the repository, or
    where wirecheck runs) when it is under it, as code scanning reads it, else a `file:` URI; each byte of the name
    that is not unreserved percent-encoded (the bytes the file system holds: a name that is not UTF-8 keeps its
    bytes). A name's space, `|`, `<>`, line feed or control character was written raw, which is no URI at all."""
    from urllib.parse import quote

    name = Path(path)
    try:
        name = name.resolve().relative_to(base.resolve())
        prefix = ""
    except (ValueError, OSError):  # outside `base` (or not there to resolve): where it is
        name = name.absolute()
        prefix = "file://"
    text = name.as_posix()
    try:
        raw = os.fsencode(text)  # a name read from the file system: its own bytes back
    except UnicodeEncodeError:  # a lone surrogate that came from JSON, not from a file name
        raw = text.encode("utf-8", ERRORS)
    return prefix + quote(raw, safe="/")
