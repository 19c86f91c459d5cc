"""Qoder protocol rules (tools/wirecheck/rules/qoder.py), each shown failing and holding, on the 1.0.23 contract."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wirecheck.check.engine import check_captures
from wirecheck.contracts import load_registry

ROOT = Path(__file__).resolve().parents[3]
REAL = ROOT / "fixtures/qoder-agent-sdk/1.0.23/real/stdout.ndjson"
INIT, ASSISTANT, RESULT = (json.loads(line) for line in REAL.read_text().splitlines())
PROMPT = {"type": "user", "message": {"role": "user", "content": "hi"}, "parent_tool_use_id": None}
NOTIFICATION = {"type": "system", "subtype": "task_notification", "task_id": "t1", "status": "completed",
                "output_file": "/tmp/o", "summary": "done", "uuid": "u", "session_id": "s"}


@pytest.fixture(scope="module")
def release():
    return load_registry(ROOT / "contracts").load("qoder-agent-sdk@1.0.23")


def _framed(tmp_path, pairs):
    lines = [{"wirecheck_capture": 1, "framing": "directed"}] + [{"from": f, "message": m} for f, m in pairs]
    path = tmp_path / "capture.framed.ndjson"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return str(path)


def _codes(release, path):
    return [(f.code, f.line) for f in check_captures(release, [path]).findings]


def _init(version):
    return {**INIT, "protocol_version": version} if version is not None else \
        {k: v for k, v in INIT.items() if k != "protocol_version"}


@pytest.mark.parametrize(("version", "expected"), [
    ("1.2.0", []), ("1.0.0", []), ("1.99.3", []), (None, []),  # absent: optional, older CLIs predate the handshake
    ("2.0.0", [("QODER_PROTOCOL_MAJOR", 1, "error")]), ("0.9.0", [("QODER_PROTOCOL_MAJOR", 1, "error")]),
    ("02.0.0", [("QODER_PROTOCOL_MAJOR", 1, "error")]),
    # as the SDK parses it (dist/index.js, function Is): the patch is optional and majors compare as numbers
    ("1.4", []), ("01.2.0", []), ("1.2.0-beta.1", []),
    # what it cannot parse, or an empty version, it skips the handshake for, with a diagnostic: a warning
    ("v1.2", [("QODER_PROTOCOL_MAJOR", 1, "warning")]), ("", [("QODER_PROTOCOL_MAJOR", 1, "warning")]),
    ("unknown", [("QODER_PROTOCOL_MAJOR", 1, "warning")]), ("1.2.0\n", [("QODER_PROTOCOL_MAJOR", 1, "warning")]),
    ("１.2.0", [("QODER_PROTOCOL_MAJOR", 1, "warning")]),  # a fullwidth digit is no \d to JavaScript
])
def test_protocol_major_must_equal_the_wire_version_major(release, write_lines, version, expected):
    findings = check_captures(release, [write_lines([_init(version)])]).findings
    assert [(f.code, f.line, f.severity.value) for f in findings if f.code == "QODER_PROTOCOL_MAJOR"] == expected


def test_protocol_major_finding_says_expected_and_found(release, write_lines):
    finding = check_captures(release, [write_lines([_init("2.0.0")])]).findings[0]
    assert (finding.pointer, finding.expected, finding.found) == ("/protocol_version", "1.x.y", '"2.0.0"')


def test_system_init_should_come_first_from_the_cli_and_the_sdks_go_on_without(release, write_lines):
    """readers.yaml `rules`: both SDKs take the handshake wherever it comes (npm 1.0.34 dist/index.js:8), so a
    stream that does not open with system/init is a warning citing them, and the capture conforms."""
    result = check_captures(release, [write_lines([ASSISTANT, INIT, RESULT])])
    assert [(f.code, f.line, f.severity.value) for f in result.findings] == [("FIRST_MESSAGE_IS", 1, "warning")]
    assert "its readers go on past this (npm 1.0.13 dist/index.js:7" in result.findings[0].message
    assert result.verdict == "conforms"


@pytest.mark.parametrize("version", ["1.0.13", "1.0.21", "1.0.23", "1.0.34", "1.0.39"])
def test_every_qoder_release_reads_a_late_handshake_as_its_sdks_do(version, write_lines):
    release = load_registry(ROOT / "contracts").load(f"qoder-agent-sdk@{version}")
    assert [u.id for u in release.rules if u.id in release.tolerated] == ["FIRST_MESSAGE_IS"]
    result = check_captures(release, [write_lines([ASSISTANT, INIT, RESULT])])
    assert [(f.code, f.severity.value) for f in result.findings if f.code == "FIRST_MESSAGE_IS"] == [
        ("FIRST_MESSAGE_IS", "warning")]


def test_a_tolerated_rule_leaves_the_other_rules_errors_alone(release, write_lines):
    findings = check_captures(release, [write_lines([ASSISTANT, _init("2.0.0"), RESULT])]).findings
    assert sorted((f.code, f.severity.value) for f in findings) == [
        ("FIRST_MESSAGE_IS", "warning"), ("QODER_PROTOCOL_MAJOR", "error")]


def test_output_after_result_before_a_new_prompt_is_an_error(release, tmp_path):
    path = _framed(tmp_path, [("cli", INIT), ("sdk", PROMPT), ("cli", ASSISTANT), ("cli", RESULT),
                              ("cli", ASSISTANT), ("cli", RESULT)])
    assert _codes(release, path) == [("QODER_RESULT_ENDS_TURN", 6)]


def test_a_new_prompt_or_a_task_notification_opens_the_next_turn(release, tmp_path):
    path = _framed(tmp_path, [("cli", INIT), ("sdk", PROMPT), ("cli", ASSISTANT), ("cli", RESULT),
                              ("sdk", PROMPT), ("cli", ASSISTANT), ("cli", RESULT),
                              ("cli", NOTIFICATION), ("cli", ASSISTANT), ("cli", RESULT)])
    assert _codes(release, path) == []


def test_one_stream_captures_cannot_see_prompts_so_output_after_result_is_not_judged(release, write_lines):
    assert _codes(release, write_lines([INIT, ASSISTANT, RESULT, ASSISTANT, RESULT])) == []


def test_a_stream_ending_inside_a_turn_is_a_warning(release, write_lines):
    findings = check_captures(release, [write_lines([INIT, ASSISTANT])]).findings
    assert [(f.code, f.severity.value, f.line) for f in findings] == [("QODER_TURN_UNFINISHED", "warning", 2)]


def test_turn_rules_are_per_capture_file(release, write_lines, tmp_path):
    first = write_lines([INIT, ASSISTANT], name="a.ndjson")
    second = write_lines([INIT, ASSISTANT, RESULT], name="b.ndjson")
    findings = check_captures(release, [first, second]).findings
    assert [(Path(f.file).name, f.code) for f in findings] == [("a.ndjson", "QODER_TURN_UNFINISHED")]


@pytest.mark.parametrize("cli", ["1.1.52", "1.1.76"])
def test_the_real_qodercli_printing_memory_consumption_first_conforms(cli):
    """Real captures (fixtures/live, recorded by `nox -s certify-qodercli`): with memory files named, qodercli
    1.1.52 and 1.1.76 print system/memory_consumption before system/init; the SDKs read it, so `validate` warns
    and the run conforms (it failed before readers.yaml's `rules`)."""
    release = load_registry(ROOT / "contracts").load("qoder-agent-sdk@1.0.39")
    result = check_captures(release, [str(ROOT / f"fixtures/live/qodercli@{cli}/qoder-session-memory.framed.ndjson")])
    assert [(f.code, f.severity.value) for f in result.findings if f.code == "FIRST_MESSAGE_IS"] == [
        ("FIRST_MESSAGE_IS", "warning")]
    assert result.verdict == "conforms"


def test_turn_output_after_a_result_is_found_the_same_on_parts_whose_messages_cross_without_values(
        release, tmp_path, monkeypatch):
    """QODER_RESULT_ENDS_TURN reads kinds, places and senders, never values (`reads_values = False`): a large
    capture's parts (check/parts.py) send the prompts (which no monitor reads) back without their values, and the
    breaches are found as in one process."""
    from wirecheck.capture import CaptureFile
    from wirecheck.check import parallel
    from wirecheck.check.engine import Engine

    turn = [("sdk", PROMPT), ("cli", ASSISTANT), ("cli", RESULT), ("cli", ASSISTANT), ("cli", RESULT)]
    path = _framed(tmp_path, [("cli", INIT), *turn * 30])
    items = []
    replay = parallel._Part.replay
    monkeypatch.setattr(parallel._Part, "replay", lambda part, *args: items.extend(part.items) or replay(part, *args))
    registry = load_registry(ROOT / "contracts")
    engine = Engine(release, load_release=registry.load)
    sequential = engine.run([CaptureFile(path)])
    split = parallel.check(engine, parallel.ReleaseSource(str(ROOT / "contracts"), release.name), [CaptureFile(path)],
                           parallel.Plan(jobs=2, forced=True, range_bytes=300, split_min_bytes=0))
    assert [(f.code, f.line, f.message) for f in split.findings] == [
        (f.code, f.line, f.message) for f in sequential.findings]
    assert len(sequential.findings) == 30 and split.messages == sequential.messages
    prompts = [item for item in items if type(item) is tuple and len(item) == 8 and item[3] == "sdk.user"]
    assert len(prompts) > 20 and all(item[2] is None for item in prompts)
