"""The JUnit XML document every report writer (validate, diff, certify) ends with."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from wirecheck.findings import printable

# Characters XML 1.0 cannot hold at all, not even escaped, that `printable` leaves: lone surrogates, U+FFFE/U+FFFF
_NOT_XML = re.compile("[\ud800-\udfff\ufffe\uffff]")


def xml_document(root: ET.Element) -> str:
    """`root` as a JUnit file: indented, declared UTF-8, each control character (those XML 1.0 cannot hold, and the
    C1 controls and bidirectional overrides it can, which a CI's test viewer would obey) written as its escape
    (`\\x1b`, `\\u202e`: `findings.printable`), and what else XML cannot hold likewise."""
    ET.indent(root)
    text = printable(ET.tostring(root, encoding="unicode"))
    return '<?xml version="1.0" encoding="utf-8"?>\n' + _NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"
