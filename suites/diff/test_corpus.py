"""Confluent's JSON Schema compatibility corpus, replayed (issue 30, done-when): every case agrees with Confluent or
its disagreement is explained by set semantics in fixtures/confluent-json-schema/agreement.yaml, each explanation
holds under the draft's own validator, and the counts cannot drift silently. `nox -s diff-corpus` writes the table."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from wirecheck.diff.corpus import (
    COMPATIBLE,
    INCOMPATIBLE,
    MANIFEST,
    CorpusError,
    judge_case,
    main,
    read_cases,
    replay,
)
from wirecheck.yaml_lines import read_yaml_file

CORPUS = Path(__file__).resolve().parents[2] / "fixtures" / "confluent-json-schema"
VALIDATORS = {"draft-07": jsonschema.Draft7Validator, "2020-12": jsonschema.Draft202012Validator}


@pytest.fixture(scope="module")
def agreement() -> Any:
    return replay(CORPUS)


def test_every_case_agrees_or_is_explained(agreement: Any) -> None:
    assert agreement.problems == ()
    (total,) = [row for row in agreement.rows() if row["file"] == "all"]
    # pinned: a regression in either direction (a new disagreement, a case left undecided) changes them
    assert total == {"file": "all", "cases": 263, "confluent_incompatible": 92, "agree": 257, "disagree": 6,
                     "explained": 6, "undecided": 0, "latent": 14, "gate_agree": 251, "gate_explained": 6}


def test_every_file_is_replayed_in_its_draft(agreement: Any) -> None:
    rows = {row["file"]: row["cases"] for row in agreement.rows()}
    assert rows == {"diff-schema-examples.json": 104, "diff-schema-examples-2020-12.json": 113,
                    "diff-combined-schema-examples.json": 28, "diff-combined-schema-examples-2020-12.json": 18,
                    "all": 263}


def _case(file: str, index: int) -> dict[str, Any]:
    return read_cases((CORPUS / file).read_text(), file)[index]


@pytest.mark.parametrize("explanation", read_yaml_file(CORPUS / MANIFEST)["disagreements"],
                         ids=lambda e: f"{e['file']}#{e['case']}{'-gate' if e.get('gate') else ''}")
def test_each_explanation_holds_under_the_drafts_own_validator(explanation: dict[str, Any]) -> None:
    """A witness is accepted by the original schema as written and refused by the update (python-jsonschema, the
    file's draft: not our translation); `alike` payloads are judged the same by both."""
    draft = next(f["draft"] for f in read_yaml_file(CORPUS / MANIFEST)["files"] if f["file"] == explanation["file"])
    case = _case(explanation["file"], explanation["case"])
    assert case["description"] == explanation["description"]
    old, new = (VALIDATORS[draft](case[k]) for k in ("original_schema", "update_schema"))
    if explanation["wirecheck"] == INCOMPATIBLE or explanation.get("gate"):
        assert old.is_valid(explanation["witness"]) and not new.is_valid(explanation["witness"])
        assert judge_case(case, draft).witness == explanation["witness"]
    else:
        assert explanation["wirecheck"] == COMPATIBLE and explanation["alike"]
        for payload in explanation["alike"]:
            assert old.is_valid(payload) == new.is_valid(payload), payload


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    shutil.copytree(CORPUS, folder)
    return folder


def test_an_unexplained_disagreement_fails_the_replay_and_is_reported(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    manifest = (folder / MANIFEST).read_text()
    (folder / MANIFEST).write_text(manifest[:manifest.index("\ndisagreements:")] + "\ndisagreements: []\n")
    out = tmp_path / "out"
    assert main(["--corpus", str(folder), "--out", str(out)]) == 1
    report = (out / "agreement.md").read_text()
    assert "case 55 (Detect required array to be changed): Confluent says compatible, wirecheck incompatible, " \
           "and agreement.yaml does not say why" in report
    data = json.loads((out / "agreement.json").read_text())
    assert len(data["problems"]) == 12 and len(data["cases"]) == 263


def test_an_explanation_of_a_case_that_agrees_is_stale(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    with (folder / MANIFEST).open("a") as f:
        f.write("  - {file: diff-schema-examples.json, case: 0, description: Anything can change to empty schema,\n"
                "     confluent: compatible, wirecheck: incompatible, why: stale, witness: 1}\n")
    (problem,) = replay(folder).problems
    assert "diff-schema-examples.json case 0: explains Confluent compatible against wirecheck incompatible; now " \
           "Confluent compatible, wirecheck compatible" in problem


def test_a_changed_corpus_file_is_named(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    path = folder / "diff-combined-schema-examples.json"
    path.write_text(path.read_text() + "\n")
    assert any("diff-combined-schema-examples.json: sha256" in p for p in replay(folder).problems)


def test_the_files_are_read_as_org_json_reads_them() -> None:
    """Trailing commas (the 2020-12 files have them) are taken; nothing else that is not JSON is."""
    case = '{"description": "d", "original_schema": {"a": "x,}",}, "update_schema": {}, "compatible": true,}'
    (read,) = read_cases(f"[{case},]", "f.json")
    assert read["original_schema"] == {"a": "x,}"}
    with pytest.raises(CorpusError, match=r"f.json: line 1, column 3: "):
        read_cases("[{a: 1}]", "f.json")
    with pytest.raises(CorpusError, match="not a list of cases"):
        read_cases('[{"compatible": "yes"}]', "f.json")
