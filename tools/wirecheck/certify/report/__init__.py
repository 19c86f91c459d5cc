"""Certification report writers: each turns a `Certification` into one format. Registered by name for --format; a
writer's module is imported when it is looked up (see wirecheck.lazy)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from wirecheck.lazy import LazyWriters

if TYPE_CHECKING:
    from wirecheck.certify.evaluate import Certification

# the names validate and diff use: `json` (JSON lines here, one record per requirement; `jsonl`, its earlier name,
# still accepted), `sarif` for code scanning
FORMATS = LazyWriters({
    "text": "wirecheck.certify.report.text",
    "json": "wirecheck.certify.report.jsonl",
    "markdown": "wirecheck.certify.report.markdown",
    "junit": "wirecheck.certify.report.junit",
    "html": "wirecheck.certify.report.html",
    "sarif": "wirecheck.certify.report.sarif",
}, aliases={"jsonl": "json"})
SUFFIXES = {"text": ".txt", "json": ".jsonl", "markdown": ".md", "junit": ".junit.xml", "html": ".html",
            "sarif": ".sarif"}


def write_folder(cert: Certification, folder: Path) -> None:
    """Every format (`certification.<suffix>`) and `badge.svg` into `folder`, together (output_files): put in place
    only once every one is whole, so the folder never holds a truncated report beside complete ones. Unwritable
    (output_files) names the file that could not be written; the files that were there are left as they were."""
    from wirecheck.certify.report import html
    from wirecheck.output_files import together

    with together() as outputs:
        for name, writer in FORMATS.items():
            with outputs.writing(folder / f"certification{SUFFIXES[name]}") as handle:
                writer(cert, handle)
        with outputs.writing(folder / "badge.svg") as handle:
            handle.write(html.badge_svg(cert.badge) + "\n")
