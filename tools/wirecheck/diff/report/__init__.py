"""Writers for diff runs, one module per format; each has `write(run, out)`."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, TextIO

FORMATS = {
    "text": "wirecheck.diff.report.text",
    "markdown": "wirecheck.diff.report.markdown",
    "json": "wirecheck.diff.report.json_report",
    "junit": "wirecheck.diff.report.junit",
    "sarif": "wirecheck.diff.report.sarif",
    "html": "wirecheck.diff.report.html",
}


def writer(name: str) -> Callable[..., Any]:
    return importlib.import_module(FORMATS[name]).write


def write(name: str, run: Any, out: TextIO, **options: Any) -> None:
    writer(name)(run, out, **options)
