"""Plain files in: a JSON document, an array, an RFC 7464 sequence, objects one after another, a bare file of a file
kind, a command line or `env` output named with --as. Each judged as what it is, with located findings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wirecheck.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
CLAUDE = ROOT / "fixtures" / "claude-code-print" / "2.1.218"
OPENCODE = ROOT / "fixtures" / "opencode-config" / "1.0.0"
NAVARCH_ENV = ROOT / "fixtures" / "navarch-runtime" / "0.1.53" / "valid" / "env.json"


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


GOOD = lines(CLAUDE / "valid" / "results-1.ndjson") + lines(CLAUDE / "valid" / "results-2.ndjson")
BAD = lines(CLAUDE / "invalid" / "results.ndjson")


def validate(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["validate", *args, "--format", "json"])
    return result.exit_code, result.output


def report(*args: str) -> tuple[int, dict]:
    code, output = validate(*args)
    return code, json.loads(output)


def seen(out: dict) -> dict[str, int]:
    return {c["kind"]: c["seen"] for c in out["coverage"] if c["seen"]}


def test_a_result_json_is_one_message(tmp_path):
    path = tmp_path / "result.json"
    path.write_text(json.dumps(GOOD[0], indent=2))  # as `claude -p --output-format json > result.json` writes
    code, out = report("claude-code-print@2.1.218", str(path))
    assert code == 0, out
    assert out["captures"][0]["form"] == "document" and out["summary"]["messages"] == 1
    assert seen(out) == {"result": 1}


def test_a_broken_result_json_fails_at_line_1(tmp_path):
    path = tmp_path / "result.json"
    path.write_text(json.dumps(BAD[0], indent=2))
    code, out = report("claude-code-print@2.1.218", str(path))
    assert code == 1
    assert {f["code"] for f in out["findings"]} >= {"SCHEMA_VIOLATION"}
    assert all(f["line"] == 1 for f in out["findings"])


def test_a_json_array_is_one_message_per_element(tmp_path):
    path = tmp_path / "results.json"
    path.write_text(json.dumps([GOOD[0], BAD[0], 7]))
    code, out = report("claude-code-print@2.1.218", str(path))
    assert code == 1 and out["captures"][0]["form"] == "array"
    wheres = {(f["code"], f.get("where")) for f in out["findings"]}
    assert ("NOT_AN_OBJECT", "/2") in wheres
    assert any(code == "SCHEMA_VIOLATION" and where == "/1" for code, where in wheres)
    assert not any(where == "/0" for _, where in wheres)


def test_an_array_without_the_json_suffix_is_read_as_one_too(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_text(json.dumps(GOOD[:2], indent=1))
    code, out = report("claude-code-print@2.1.218", str(path))
    assert out["captures"][0]["form"] == "array" and out["summary"]["messages"] == 2
    # two results are two runs' output, whatever the document's form: the reader reads only the last (ONE-RESULT)
    assert code == 1 and {(f["code"], f["obligation"]) for f in out["findings"]} == {
        ("COUNT", "ONE-RESULT"), ("ORDER", "RESULT-LAST")}


@pytest.mark.parametrize("suffix", [".json", ".ndjson"])
def test_pretty_printed_objects_one_after_another(tmp_path, suffix):
    path = tmp_path / f"results{suffix}"
    texts = [json.dumps(GOOD[0], indent=2), json.dumps(BAD[0], indent=2)]
    path.write_text("\n".join(texts) + "\n")
    code, out = report("claude-code-print@2.1.218", str(path))
    assert code == 1 and out["captures"][0]["form"] == "concatenated"
    second = texts[0].count("\n") + 2  # the line the second object starts on
    assert {f["line"] for f in out["findings"]} == {second}


def test_objects_one_after_another_report_where_they_break(tmp_path):
    path = tmp_path / "results.json"
    path.write_text(json.dumps(GOOD[0], indent=2) + "\n" + json.dumps(GOOD[1], indent=2) + "\n{\n  \"type\": \n")
    code, out = report("claude-code-print@2.1.218", str(path))
    assert code == 1 and out["summary"]["messages"] == 2
    (broken,) = [f for f in out["findings"] if f["code"] == "PARSE_ERROR"]  # and ONE-RESULT: two results
    assert broken["line"] > 2


def test_a_json_text_sequence(tmp_path):
    path = tmp_path / "results.json-seq"
    path.write_bytes(b"".join(b"\x1e" + json.dumps(m).encode() + b"\n" for m in (GOOD[0], BAD[0], GOOD[1])))
    code, out = report("claude-code-print@2.1.218", str(path))
    assert code == 1 and out["captures"][0]["form"] == "sequence" and out["summary"]["messages"] == 3
    assert {f["line"] for f in out["findings"]} == {2}


def test_a_bare_opencode_json_is_the_config_file(tmp_path):
    config = next(a["content"] for a in lines(OPENCODE / "valid" / "configs.jsonl") if a["path"] == "opencode.json")
    path = tmp_path / "opencode.json"
    path.write_text(json.dumps(config, indent=2))
    code, out = report("opencode-config@1.0.0", str(path))
    assert code == 0, out
    assert out["captures"][0]["form"] == "file" and seen(out) == {"config": 1}


def test_a_broken_bare_opencode_json_fails(tmp_path):
    broken = lines(OPENCODE / "invalid" / "configs.jsonl")[0]
    path = tmp_path / "x.opencode.json"
    path.write_text(json.dumps(broken.get("content") or json.loads(broken["text"]), indent=2))
    code, out = report("opencode-config@1.0.0", str(path))
    assert code == 1 and out["findings"] and all(f.get("kind") in ("config", None) for f in out["findings"])


def test_as_names_the_kind_of_a_file_with_another_name(tmp_path):
    config = lines(OPENCODE / "valid" / "configs.jsonl")[0]["content"]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    code, out = report("opencode-config@1.0.0", "--as", "config", str(path))
    assert code == 0, out
    assert seen(out) == {"config": 1}


def test_the_envelope_stays(tmp_path):
    """An artifact envelope named like a file kind is still the envelope."""
    artifact = lines(OPENCODE / "valid" / "configs.jsonl")[0]
    path = tmp_path / "opencode.json"
    path.write_text(json.dumps(artifact))
    code, out = report("opencode-config@1.0.0", str(path))
    assert code == 0, out
    assert out["captures"][0]["form"] == "artifacts"


@pytest.mark.parametrize(("text", "expected"), [
    ("opencode run 'Fix the failing test' --format json --model anthropic/claude-opus-5 --variant high\n", 0),
    ('["opencode", "run", "Fix the failing test", "--format", "json"]', 0),
    ("opencode serve --port 4096\n", 1),
])
def test_a_command_line_as_an_argv_kind(tmp_path, text, expected):
    path = tmp_path / "argv.txt"
    path.write_text(text)
    code, out = report("opencode-run@1.0.0", "--as", "argv.run", str(path))
    assert code == expected, out
    assert out["captures"][0]["form"] == "argv" and out["summary"]["messages"] == 1


def test_an_unclosed_quote_is_a_located_refusal(tmp_path):
    path = tmp_path / "argv.txt"
    path.write_text("opencode run 'Fix the failing test\n")
    code, output = validate("opencode-run@1.0.0", "--as", "argv.run", str(path))
    assert code == 4  # nothing of the release was seen: inconclusive, the refusal says why
    assert "not a shell-quoted command line" in output and "wirecheck help captures" in output


def test_env_output_as_an_env_kind(tmp_path):
    env = json.loads(NAVARCH_ENV.read_text())["env"]
    path = tmp_path / "env.txt"
    path.write_text("".join(f"{k}={v}\n" for k, v in env.items()))
    code, out = report("navarch-runtime@0.1.53", "--as", "env.runtime", str(path))
    assert code == 0, out
    path.write_text("".join(f"{k}={v}\n" for k, v in env.items()).replace("NAVARCH_AGENT=qoder", "NAVARCH_AGENT=x"))
    code, out = report("navarch-runtime@0.1.53", "--as", "env.runtime", str(path))
    assert code == 1 and any(f.get("pointer") == "/NAVARCH_AGENT" for f in out["findings"]), out


def test_as_an_unknown_or_http_kind_is_a_usage_error(tmp_path):
    path = tmp_path / "x.json"
    path.write_text("{}")
    code, output = validate("opencode-config@1.0.0", "--as", "nope", str(path))
    assert code == 2 and "its kinds: config" in output
    code, output = validate("xopc@0.0.253", "--as", "lease.request", str(path))
    assert code == 2 and "HTTP kind" in output


def test_a_har_that_is_not_one_says_what_it_found_and_where_to_read(tmp_path):
    path = tmp_path / "run.har"
    path.write_text(json.dumps(GOOD[0]))
    code, output = validate("claude-code-print@2.1.218", str(path))
    assert code == 4  # nothing of the release was seen: inconclusive, the refusal says why
    assert "found an object with keys type, subtype" in output and "wirecheck help captures" in output


def test_help_captures_prints_the_packaged_documentation():
    result = CliRunner().invoke(app, ["help", "captures"])
    assert result.exit_code == 0 and result.output.startswith("# Capture forms")
    assert "JSON text sequence" in result.output
    assert CliRunner().invoke(app, ["help", "nope"]).exit_code == 2


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> list[dict]:
    """A real `wirecheck fuzz` corpus: valid messages and labelled mutants."""
    path = tmp_path_factory.mktemp("corpus") / "corpus.jsonl"
    entries = []
    for extra in ([], ["--invalid"]):
        result = CliRunner().invoke(app, ["fuzz", "claude-code-print@2.1.218", "--count", "4", "--seed", "3",
                                          *extra, "-o", str(path)])
        assert result.exit_code == 0, result.output
        entries += lines(path)
    assert {e["expect"] for e in entries} == {"accept", "reject"}
    return entries


def write_corpus(tmp_path, entries) -> str:
    path = tmp_path / "corpus.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    return str(path)


def test_a_fuzz_corpus_is_checked_against_its_expectations(tmp_path, corpus):
    code, out = report("claude-code-print@2.1.218", write_corpus(tmp_path, corpus))
    assert code == 0, out
    assert out["captures"][0]["form"] == "corpus" and seen(out) == {"result": len(corpus)}
    assert out["findings"] == []  # the mutants' refusals are what they expect, not findings


def test_a_mutant_labelled_accept_is_a_mismatch_with_its_findings(tmp_path, corpus):
    entries = [dict(e) for e in corpus]
    index = next(i for i, e in enumerate(entries) if e["expect"] == "reject")
    entries[index]["expect"] = "accept"
    code, out = report("claude-code-print@2.1.218", write_corpus(tmp_path, entries))
    assert code == 1
    codes = [(f["code"], f["line"]) for f in out["findings"]]
    assert codes[0] == ("CORPUS_MISMATCH", index + 1) and len(codes) > 1
    assert {line for _, line in codes} == {index + 1}


def test_a_valid_message_labelled_reject_is_a_mismatch(tmp_path, corpus):
    entries = [dict(e) for e in corpus]
    index = next(i for i, e in enumerate(entries) if e["expect"] == "accept")
    entries[index]["expect"] = "reject"
    entries.append({"kind": "nope", "expect": "accept", "message": {}})
    code, out = report("claude-code-print@2.1.218", write_corpus(tmp_path, entries))
    assert code == 1
    found = [(f["code"], f["line"], f["message"]) for f in out["findings"]]
    assert found[0][:2] == ("CORPUS_MISMATCH", index + 1) and "conforms" in found[0][2]
    assert found[1][:2] == ("CORPUS_MISMATCH", len(entries)) and "'nope' is not a kind" in found[1][2]


def _mutant(entries: list[dict], keyword: str, pointer: str) -> int:
    return next(i for i, e in enumerate(entries) if e["expect"] == "reject"
                and (e["breaks"]["keyword"], e["breaks"]["pointer"]) == (keyword, pointer))


def test_a_mutant_refused_for_another_reason_is_a_mismatch(tmp_path, corpus):
    """A mutant labelled `const at /type` whose /type is fine but which lacks `uuid`: refused, but by accident (a
    required member missing), not for its label. Before labels were compared, this self-tested green."""
    entries = [dict(e) for e in corpus]
    index = _mutant(entries, "const", "/type")
    message = dict(entries[index]["message"], type="result")
    del message["uuid"]
    entries[index]["message"] = message
    code, out = report("claude-code-print@2.1.218", write_corpus(tmp_path, entries))
    assert code == 1
    first, *rest = out["findings"]
    assert (first["code"], first["line"], first["pointer"]) == ("CORPUS_MISMATCH", index + 1, "/type")
    assert "is refused not for its label" in first["message"], first
    assert first["expected"] == "refused for const at /type alone"
    assert first["found"] == "SCHEMA_VIOLATION (required at /)"
    # the findings it was refused for follow, located at the entry
    assert [(f["code"], f["line"]) for f in rest] == [("SCHEMA_VIOLATION", index + 1)]
    assert "uuid" in rest[0]["message"]


def test_a_mutant_refused_for_its_label_and_an_accident_besides_is_a_mismatch(tmp_path, corpus):
    """Still `const at /type` broken, and `uuid` missing too: a consumer refusing it may refuse it for the
    accident, so it tests nothing about the label."""
    entries = [dict(e) for e in corpus]
    index = _mutant(entries, "const", "/type")
    entries[index]["message"] = {k: v for k, v in entries[index]["message"].items() if k != "uuid"}
    code, out = report("claude-code-print@2.1.218", write_corpus(tmp_path, entries))
    assert code == 1
    first, *rest = out["findings"]
    assert first["code"] == "CORPUS_MISMATCH" and "for its label and for 1 other finding(s)" in first["message"]
    assert first["found"].count("SCHEMA_VIOLATION") == 2 and "(const at /type)" in first["found"], first["found"]
    assert [f["code"] for f in rest] == ["SCHEMA_VIOLATION"] and "uuid" in rest[0]["message"]


def test_a_mutant_with_another_mutants_label_is_a_mismatch(tmp_path, corpus):
    """Two real mutants with their labels swapped: each is refused, neither for the label it carries."""
    entries = [dict(e) for e in corpus]
    const, required = _mutant(entries, "const", "/type"), _mutant(entries, "required", "")
    entries[const]["breaks"], entries[required]["breaks"] = entries[required]["breaks"], entries[const]["breaks"]
    code, out = report("claude-code-print@2.1.218", write_corpus(tmp_path, entries))
    assert code == 1
    mismatches = {f["line"]: f for f in out["findings"] if f["code"] == "CORPUS_MISMATCH"}
    assert set(mismatches) == {const + 1, required + 1}
    assert mismatches[const + 1]["expected"] == "refused for required at / alone"
    assert mismatches[const + 1]["found"] == "SCHEMA_VIOLATION (const at /type)"


@pytest.mark.parametrize("breaks", [None, {"keyword": "const"}, {"keyword": 7, "pointer": "/type"},
                                    {"keyword": "const", "pointer": "type"}])
def test_a_mutant_without_a_readable_label_is_a_mismatch(tmp_path, corpus, breaks):
    entries = [dict(e) for e in corpus]
    index = _mutant(entries, "const", "/type")
    if breaks is None:
        del entries[index]["breaks"]
    else:
        entries[index]["breaks"] = breaks
    code, out = report("claude-code-print@2.1.218", write_corpus(tmp_path, entries))
    assert code == 1
    assert [(f["code"], f["line"]) for f in out["findings"]] == [("CORPUS_MISMATCH", index + 1)]
    assert "carries no label" in out["findings"][0]["message"]
