"""Every JUnit report (validate, diff, certify) goes through one writer, which must give well-formed XML whatever a
message or property name holds: XML 1.0 has no way to write NUL, most control characters or lone surrogates."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from wirecheck.junit_xml import xml_document


def test_characters_xml_cannot_hold_are_written_as_escapes_and_the_document_parses() -> None:
    root = ET.Element("testsuites", name="a\x00b")
    case = ET.SubElement(root, "testcase", name="bell\x07")
    case.text = "lone \ud800 surrogate, tab\tand é stay"
    text = xml_document(root)
    assert text.startswith('<?xml version="1.0" encoding="utf-8"?>\n')
    parsed = ET.fromstring(text.split("\n", 1)[1])
    assert parsed.get("name") == "a\\x00b" and parsed[0].get("name") == "bell\\x07"
    assert parsed[0].text == "lone \\ud800 surrogate, tab\tand é stay"
