"""The formats fuzzing writes match their published schemas (tools/wirecheck/fuzz/outputs.schema.yaml)."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import orjson
import pytest
import yaml

import wirecheck.fuzz
from wirecheck.fuzz.consumer import PythonConsumer, fuzz_consumer
from wirecheck.fuzz.corpus import corpus

SCHEMAS = yaml.safe_load((Path(wirecheck.fuzz.__file__).parent / "outputs.schema.yaml").read_text())
REPORTS = Path(__file__).resolve().parents[2] / "fixtures" / "consumer-reports"


def _validator(name):
    jsonschema.Draft202012Validator.check_schema(SCHEMAS[name])
    return jsonschema.Draft202012Validator(SCHEMAS[name])


def test_corpus_entries_match_their_schema(demo):
    validator = _validator("corpus_entry")
    envelopes = 0
    for invalid in (False, True):
        for entry in corpus(demo, count=4, invalid=invalid):
            data = orjson.loads(orjson.dumps(entry.as_json()))
            assert not list(validator.iter_errors(data)), data
            envelopes += "http" in data
            assert ("http" in data) == (demo.kind(entry.kind).channel == "http")  # an HTTP body comes with one
    assert envelopes


def test_consumer_reports_match_their_schema(demo, monkeypatch):
    import sys

    module = type(sys)("wirecheck_test_formats")
    module.lax = lambda message: message  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "wirecheck_test_formats", module)
    report = fuzz_consumer(demo, PythonConsumer("wirecheck_test_formats:lax"), kinds=["event"], count=5)
    validator = _validator("consumer_report")
    data = orjson.loads(orjson.dumps(report.as_json()))
    assert not list(validator.iter_errors(data))


@pytest.mark.parametrize("path", sorted(REPORTS.glob("*.json")), ids=lambda p: p.name)
def test_committed_consumer_reports_match_their_schema(path):
    assert not list(_validator("consumer_report").iter_errors(orjson.loads(path.read_bytes())))
