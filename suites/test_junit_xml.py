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


def test_c1_controls_and_bidirectional_overrides_are_shown_not_obeyed() -> None:
    """Legal XML, but a CI's test viewer would obey them (issue 41, 9): written as escapes, like every report."""
    root = ET.Element("testsuites", name="csi\x9b31m \u202eevil\u2066")
    ET.SubElement(root, "testcase", name="esc\x1b]0;t\x07").text = "line\nfeed kept, carriage\rreturn shown"
    parsed = ET.fromstring(xml_document(root).split("\n", 1)[1])
    assert parsed.get("name") == "csi\\x9b31m \\u202eevil\\u2066"
    assert parsed[0].get("name") == "esc\\x1b]0;t\\x07"
    assert parsed[0].text == "line\nfeed kept, carriage\\x0dreturn shown"
