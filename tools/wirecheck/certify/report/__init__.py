"""Certification report writers: each turns a `Certification` into one format. Registered by name for --format."""

from __future__ import annotations

from collections.abc import Callable
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
