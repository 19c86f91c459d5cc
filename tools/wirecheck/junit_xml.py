"""The JUnit XML document every report writer (validate, diff, certify) ends with."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

# Characters XML 1.0 cannot hold at all, not even escaped; a message or property name may carry them.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_document(root: ET.Element) -> str:
    """`root` as a JUnit file: indented, declared UTF-8, each character XML cannot hold written as `\\xNN`."""
    ET.indent(root)
    text = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="utf-8"?>\n' + _NOT_XML.sub(
        lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}", text) + "\n"
