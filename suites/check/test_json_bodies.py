"""A UTF-8 byte order mark before an HTTP body, judged as the body's real reader reads it (readers.yaml
`json_bodies`): xopc's runtime reads every platform answer with fetch's response.json(), whose UTF-8 decode strips
it (undici), so a BOM before a lease answer conforms; a reader that refuses it fails it in its own words; a reader
the file says nothing about fails it, and no message carries Python's `utf-8-sig` hint."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from wirecheck.capture import CaptureFile
from wirecheck.check.engine import CheckOptions, Engine
from wirecheck.contracts import load_registry
from wirecheck.contracts.model import JsonBodyReading, Provenance
from wirecheck.findings import Severity
from wirecheck.json_text import parse_json

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "xopc" / "0.0.253"
OPTIONS = CheckOptions(base_urls={"agentApi": "https://runtime.test/api/v1/runtime"})


def _findings(release, capture: Path):
    result = Engine(release, OPTIONS).run([CaptureFile(str(capture))])
    return [f for f in result.findings if f.code == "BYTE_ORDER_MARK"], result


@pytest.fixture(scope="module")
def xopc():
    return load_registry().load("xopc@0.0.253")


def test_a_bom_before_a_lease_answer_conforms_as_response_json_reads_it(xopc):
    found, result = _findings(xopc, FIXTURES / "valid" / "lease-response-bom.jsonl")
    assert result.verdict == "conforms"
    assert [(f.severity, f.line) for f in found] == [(Severity.INFO, 1)]
    assert "runtime's fetch's response.json() strips" in found[0].message
    assert "lib/web/fetch/util.js:1550-1551" in found[0].message


def test_without_the_readers_entry_the_same_answer_fails(xopc):
    found, result = _findings(dataclasses.replace(xopc, json_bodies=()),
                              FIXTURES / "valid" / "lease-response-bom.jsonl")
    assert result.verdict == "fails" and [f.severity for f in found] == [Severity.ERROR]
    assert "utf-8-sig" not in found[0].message


def test_a_reader_that_refuses_it_is_named_in_the_message(xopc):
    refusing = JsonBodyReading("http", "runtime", "JSON.parse(await response.text())", "reject",
                               Provenance(sources=("client",), at=("a.ts:1",)))
    found, result = _findings(dataclasses.replace(xopc, json_bodies=(refusing,)),
                              FIXTURES / "valid" / "lease-response-bom.jsonl")
    assert result.verdict == "fails"
    assert found[0].message == ("body starts with a UTF-8 byte order mark (U+FEFF), which the runtime's "
                                "JSON.parse(await response.text()) refuses (a.ts:1)")


def test_a_bom_is_said_in_no_readers_private_terms():
    value, problem = parse_json(b"\xef\xbb\xbf{not json")
    assert value is None and problem is not None and "utf-8-sig" not in problem.message
    assert "byte order mark" in problem.message
