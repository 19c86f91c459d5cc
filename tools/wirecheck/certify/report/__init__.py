"""Certification report writers: each turns a `Certification` into one format. Registered by name for --format."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TextIO

from wirecheck.certify.evaluate import Certification
from wirecheck.certify.report import html, jsonl, junit, markdown, text

Writer = Callable[[Certification, TextIO], None]

FORMATS: dict[str, Writer] = {
    "text": text.write,
    "jsonl": jsonl.write,
    "markdown": markdown.write,
    "junit": junit.write,
    "html": html.write,
}
SUFFIXES = {"text": ".txt", "jsonl": ".jsonl", "markdown": ".md", "junit": ".junit.xml", "html": ".html"}


def write_folder(cert: Certification, folder: Path,
                 open_file: Callable[[Path], AbstractContextManager[TextIO]] | None = None) -> None:
    """Every format (`certification.<suffix>`) and `badge.svg` into `folder`. `open_file` opens one file for
    writing (the CLI's turns an unwritable path into a usage error); by default, plain UTF-8 text."""
    opener = open_file or (lambda path: path.open("w", encoding="utf-8"))
    for name, writer in FORMATS.items():
        with opener(folder / f"certification{SUFFIXES[name]}") as handle:
            writer(cert, handle)
    with opener(folder / "badge.svg") as handle:
        handle.write(html.badge_svg(cert.badge) + "\n")
