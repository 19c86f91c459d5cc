"""Certification report writers: each turns a `Certification` into one format. Registered by name for --format; a
writer's module is imported when it is looked up (see wirecheck.lazy)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from wirecheck.lazy import LazyWriters

if TYPE_CHECKING:
    from wirecheck.certify.evaluate import Certification

FORMATS = LazyWriters({
    "text": "wirecheck.certify.report.text",
    "jsonl": "wirecheck.certify.report.jsonl",
    "markdown": "wirecheck.certify.report.markdown",
    "junit": "wirecheck.certify.report.junit",
    "html": "wirecheck.certify.report.html",
})
SUFFIXES = {"text": ".txt", "jsonl": ".jsonl", "markdown": ".md", "junit": ".junit.xml", "html": ".html"}


def write_folder(cert: Certification, folder: Path,
                 open_file: Callable[[Path], AbstractContextManager[TextIO]] | None = None) -> None:
    """Every format (`certification.<suffix>`) and `badge.svg` into `folder`. `open_file` opens one file for
    writing (the CLI's turns an unwritable path into a usage error); by default, UTF-8 text as every output is."""
    from wirecheck.encoding import open_text

    opener = open_file or open_text
    for name, writer in FORMATS.items():
        with opener(folder / f"certification{SUFFIXES[name]}") as handle:
            writer(cert, handle)
    from wirecheck.certify.report import html

    with opener(folder / "badge.svg") as handle:
        handle.write(html.badge_svg(cert.badge) + "\n")
