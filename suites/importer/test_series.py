"""The release-series tool (importer/series.py): version order, annotation-only pairs, how documented changes are
judged, and a whole offline run (npm replaced by folders made here; the diffs are real `wirecheck` processes)
whose JSON report is valid against its schema."""

from __future__ import annotations

import json

import jsonschema
import pytest
import yaml

from wirecheck.contracts.loader import own_schema
from wirecheck.importer import series

D2020 = "https://json-schema.org/draft/2020-12/schema"


def test_versions_sort_by_semver_precedence():
    listed = ["1.0.0", "0.10.0", "0.4.9", "1.0.0-rc.1", "0.5.1", "1.0.0-alpha", "1.0.0-alpha.2", "1.0.0-alpha.10"]
    assert sorted(listed, key=series.semver_key) == [
        "0.4.9", "0.5.1", "0.10.0", "1.0.0-alpha", "1.0.0-alpha.2", "1.0.0-alpha.10", "1.0.0-rc.1", "1.0.0"]


def test_annotations_are_stripped_but_properties_named_like_them_are_kept():
    schema = {"description": "d", "x-side": "agent", "discriminator": {"propertyName": "t"},
              "properties": {"description": {"type": "string", "title": "T"}}}
    assert series.strip_annotations(schema) == {"properties": {"description": {"type": "string"}}}


def finding(rule="REQUIRED_PROPERTY_ADDED", path="/params/cwd", location="schema.json#/$defs/ForkSessionRequest",
            verdicts=(("backward", "strict", "breaking"),), witnesses=("backward",), message="required cwd added"):
    return {"rule": rule, "path": path, "kind": "agent.session.fork", "message": message, "fingerprint": "f",
            "new_location": location, "old_location": None,
            "verdicts": [{"direction": d, "consumer": c, "verdict": v} for d, c, v in verdicts],
            "witnesses": [{"direction": d, "payload": {}} for d in witnesses]}


ENTRY = {"id": "fork-cwd", "pair": ["1", "2"], "change": "cwd required", "direction": "backward",
         "expect": {"location": "ForkSessionRequest", "text": r"\bcwd\b"}}


@pytest.mark.parametrize(("findings", "status"), [
    ([finding()], "found"),
    ([finding(witnesses=())], "found without witness"),
    ([finding(witnesses=("forward",))], "found without witness"),  # a witness for the other direction
    ([finding(verdicts=(("backward", "strict", "unknown"),), witnesses=())], "undecided"),
    ([finding(verdicts=(("forward", "strict", "breaking"),), witnesses=("forward",))], "missed"),
    ([finding(location="schema.json#/$defs/NewSessionRequest")], "missed"),
    ([finding(message="required sessionId added")], "missed"),
    ([], "missed"),
])
def test_documented_changes_are_judged_by_their_matcher_direction_and_witness(findings, status):
    pair = series.Pair("1", "2")
    series._count(pair, findings)
    assert series.judge(ENTRY, pair)["status"] == status


def test_a_documented_change_outside_the_diffed_pairs_is_not_diffed():
    assert series.judge(ENTRY, None)["status"] == "not diffed"
    crashed = series.Pair("1", "2", error="timed out after 600 s")
    assert series.judge(ENTRY, crashed) == {**series.judge(ENTRY, crashed), "status": "not diffed",
                                            "why": "timed out after 600 s"}


def test_a_breaking_finding_on_a_documented_non_breaking_change_is_a_false_break():
    entry = {"id": "renamed-types", "pair": ["1", "2"], "change": "type names only",
             "expect": {"location": "ForkSession"}}
    pair = series.Pair("1", "2")
    series._count(pair, [finding(verdicts=(("forward", "strict", "unknown"),))])
    assert series.false_breaks(entry, pair)["status"] == "silent"
    series._count(pair, [finding()])
    assert series.false_breaks(entry, pair)["status"] == "false break"


# -- a whole run, offline ----------------------------------------------------------------------------------------

def _schema(version: str) -> dict:
    fork = {"type": "object", "required": ["sessionId"], "properties": {"sessionId": {"type": "string"}},
            "x-method": "session/fork", "x-side": "agent"}
    if version != "1.0.0":
        fork = {**fork, "required": ["sessionId", "cwd"], "properties": {**fork["properties"],
                                                                      "cwd": {"type": "string"}}}
    if version == "3.0.0":
        fork = {**fork, "description": "now with words"}  # an annotation only
    return {"$schema": D2020, "anyOf": [{"$ref": "#/$defs/ForkSessionRequest"}], "$defs": {
        "RequestId": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
        "Error": {"type": "object", "required": ["code", "message"]},
        "ForkSessionRequest": fork,
        "ForkSessionResponse": {"type": "object", "x-method": "session/fork", "x-side": "agent"},
    }}


@pytest.fixture
def offline(monkeypatch, tmp_path):
    def fetch(npm_name, version, cache):
        root = cache / "tarballs" / version / "unpacked"
        folder = root / "package"
        (folder / "schema").mkdir(parents=True, exist_ok=True)
        (folder / "package.json").write_text(json.dumps({"name": npm_name, "version": version,
                                                         "license": "Apache-2.0"}))
        (folder / "schema" / "schema.json").write_text(json.dumps(_schema(version)))
        (folder / "dist" / "schema").mkdir(parents=True, exist_ok=True)  # the zod source (no URL field here)
        (folder / "dist" / "schema" / "zod.gen.js").write_text('import * as z from "zod/v4";\n')
        (folder / "LICENSE").write_text("Apache License\n")
        return root

    monkeypatch.setattr(series, "fetch", fetch)
    monkeypatch.setattr(series, "published_versions", lambda name, timeout=120: ["1.0.0", "2.0.0", "3.0.0"])
    changes = tmp_path / "changes.yaml"
    changes.write_text(yaml.safe_dump({
        "breaking": [{"id": "fork-cwd", "pair": ["1.0.0", "2.0.0"], "change": "session/fork requires cwd",
                      "link": "https://example.invalid/1", "direction": "backward",
                      "witness": {"from": "client", "message": {"jsonrpc": "2.0", "id": 1, "method": "session/fork",
                                                                "params": {"sessionId": "s"}}},
                      "expect": {"location": "ForkSessionRequest", "text": r"\bcwd\b"}}],
        "not_breaking": [{"id": "words", "pair": ["2.0.0", "3.0.0"], "change": "a description",
                          "expect": {}}],
    }))
    return changes


@pytest.mark.parametrize("mode", ["catalog", "schemas"])
def test_a_whole_run_reports_the_table_and_the_documented_changes(offline, tmp_path, mode):
    report = series.run("acp", cache=tmp_path / "cache", mode=mode, changes_file=offline, timeout=300)
    jsonschema.validate(report, own_schema("series-report.schema.json"))
    assert [v["version"] for v in report["versions"] if v["imported"]] == ["1.0.0", "2.0.0", "3.0.0"]
    first, second = report["pairs"]
    assert (first["old"], first["new"], second["annotation_only"]) == ("1.0.0", "2.0.0", True)
    assert first["breaking"] >= 1 and first["exit_code"] == 1 and first["cpu_seconds"] is not None
    [fork] = report["documented"]["breaking"]
    assert fork["witness_check"].startswith("confirmed (acp@2.0.0: SCHEMA_VIOLATION /params")
    if mode == "catalog":  # per-method kinds: the required property is found, with its witness
        assert fork["status"] == "found" and fork["finding"]["rule"] == "REQUIRED_PROPERTY_ADDED"
    [words] = report["documented"]["not_breaking"]
    assert words["status"] == "silent" and second["breaking"] == 0
    text = series.render_text(report)
    assert "acp series (@agentclientprotocol/sdk): 3 versions, 3 with a schema, 3 import, 0 refused; 2 " \
           "consecutive pairs whose schema changed" in text
    assert "pair                time s   cpu s exit changes breaking witnessed undecided" in text
    assert "2.0.0 → 3.0.0" in text and "annotations only" in text
    assert "fork-cwd" in text and "witness: confirmed" in text


def _versions(tmp_path) -> tuple[series.Version, series.Version]:
    files = []
    for name, schema in (("old", {"type": "object"}), ("new", {"type": "object", "required": ["a"]})):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(schema))
        files.append(series.Version(name, schema_file=str(path)))
    return files[0], files[1]


def test_each_pair_is_diffed_by_a_wirecheck_run_as_every_program(fake_programs, tmp_path):
    """`python -m wirecheck` (a fake wirecheck module here) in its own group with a scratch HOME, the contracts
    folder given, and its CPU time counted once it has been waited for."""
    fake_programs.module("wirecheck", "print(json.dumps({'pairs': [{'findings': []}]}))")
    old, new = _versions(tmp_path)
    pair = series.diff_pair(old, new, mode="schemas", package="acp", contracts=tmp_path / "contracts", extra=[],
                            timeout=60, measure_cpu=True)
    assert (pair.error, pair.exit_code, pair.breaking) == (None, 0, 0) and pair.cpu_seconds is not None
    [facts] = fake_programs.runs("wirecheck")
    fake_programs.assert_standard(facts)
    assert facts["env"]["WIRECHECK_CONTRACTS"] == str(tmp_path / "contracts")
    assert facts["argv"] == ["diff-schemas", old.schema_file, new.schema_file, "--format", "json"]


def test_a_pair_past_its_timeout_is_stopped_with_what_it_started(fake_programs, tmp_path):
    fake_programs.module("wirecheck")
    fake_programs.hang()
    pair = series.diff_pair(*_versions(tmp_path), mode="schemas", package="acp", contracts=tmp_path, extra=[],
                            timeout=3, measure_cpu=False)
    assert pair.error == "timed out after 3 s" and pair.exit_code is None
    fake_programs.assert_hung_and_ended()


def test_a_report_larger_than_what_is_kept_is_said_not_read_as_no_report(fake_programs, tmp_path, monkeypatch):
    """programs.run keeps a program's first MAX_RUN_OUTPUT bytes of stdout: a larger JSON report, cut there, is no
    JSON; the pair says its report was too large instead of "no JSON report" (its findings lost without a reason)."""
    from wirecheck.programs import program

    monkeypatch.setattr(program, "MAX_RUN_OUTPUT", 100)
    monkeypatch.setattr(program.run, "__kwdefaults__", {**program.run.__kwdefaults__, "max_output": 100})
    fake_programs.module("wirecheck", "print(json.dumps({'pairs': [{'findings': [{'message': 'x' * 500}]}]}))")
    pair = series.diff_pair(*_versions(tmp_path), mode="schemas", package="acp", contracts=tmp_path, extra=[],
                            timeout=60, measure_cpu=False)
    assert pair.error is not None and "larger than the series tool reads" in pair.error, pair.error
