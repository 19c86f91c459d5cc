"""A run's verdict: nothing recognised is never a pass, --min-coverage, and the exit code each verdict gives."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import orjson
import pytest

from wirecheck import exitcodes
from wirecheck.check.engine import CheckOptions, check_captures
from wirecheck.check.message import Message
from wirecheck.check.result import BELOW_MIN_COVERAGE, CONFORMS, FAILS, NOTHING_RECOGNISED
from wirecheck.check.unrecognised import MAX_NAMES, MAX_SAMPLES, Unrecognised
from wirecheck.contracts import load_registry
from wirecheck.contracts.loader import own_schema

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = load_registry(ROOT / "contracts")
WORKER_RUN = str(ROOT / "fixtures/xopc/0.0.253/valid/worker-run.har")


def wirecheck(*args: str) -> tuple[int, str, str]:
    env = {**os.environ, "WIRECHECK_CONTRACTS": str(ROOT / "contracts")}
    proc = subprocess.run([sys.executable, "-m", "wirecheck", *args], capture_output=True, env=env, timeout=120)
    assert b"Traceback" not in proc.stderr, proc.stderr.decode()
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


@pytest.fixture
def junk(tmp_path: Path) -> str:
    path = tmp_path / "junk.jsonl"
    path.write_text('{"hello":"world"}\n')
    return str(path)


def test_junk_against_qoder_is_nothing_recognised_not_conforms(junk):
    """The issue's first example: CONFORMS, exit 0 before."""
    code, out, _ = wirecheck("validate", "qoder-agent-sdk@1.0.23", junk)
    assert code == exitcodes.INCONCLUSIVE == 4, out
    assert "NOTHING RECOGNISED: 1 message " in out and "CONFORMS" not in out
    assert "NOTHING_RECOGNISED" in out and "fields hello" in out
    # one message is said as one (issue 42, 6: "none of the 1 messages")
    assert "the one message of this capture is of no kind of qoder-agent-sdk@1.0.23" in out
    assert "no bundled release recognises it either" in out and "none of the 1 " not in out


def test_a_har_of_another_package_says_which_release_it_looks_like():
    """The issue's second example: "CONFORMS: 16 messages (16 unclassified)" before."""
    code, out, _ = wirecheck("validate", "navarch-runtime@0.1.53", WORKER_RUN)
    assert code == exitcodes.INCONCLUSIVE, out
    assert "NOTHING RECOGNISED: 16 messages (16 unclassified)" in out
    assert "it looks like xopc@0.0.253 (" in out
    assert "GET /.well-known/xopc-platform" in out  # what the capture held: its routes


def test_the_finding_names_fields_discriminators_and_routes():
    release = REGISTRY.load("navarch-runtime@0.1.53")
    result = check_captures(release, [WORKER_RUN])
    assert result.verdict == NOTHING_RECOGNISED and result.classified == 0
    (finding,) = [f for f in result.findings if f.code == "NOTHING_RECOGNISED"]
    assert finding.severity.value == "error" and finding.file == WORKER_RUN
    assert "it looks like xopc@0.0.253 (11 of 11 sampled messages recognised)" in finding.message
    assert finding.found is not None
    assert "POST /api/v1/runtime/lease → 204" in finding.found and "fields " in finding.found


def test_stream_discriminator_values_are_named(tmp_path):
    path = tmp_path / "acp.jsonl"
    path.write_bytes(orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                   "params": {"protocolVersion": 1}}) + b"\n")
    result = check_captures(REGISTRY.load("qoder-agent-sdk@1.0.23"), [str(path)])
    (finding,) = [f for f in result.findings if f.code == "NOTHING_RECOGNISED"]
    assert 'method "initialize"' in (finding.found or "") and 'jsonrpc "2.0"' in (finding.found or "")
    # every bundled ACP release recognises an initialize request: all of them are named, none preferred
    assert "it looks like acp@" in finding.message and "acp@2.4.0" in finding.message
    # in release order (the registry's), not as strings: acp@0.15.0 sorted before acp@0.5.1 (issue 42, 6)
    named = re.findall(r"acp@([\d.]+)", finding.message.split("it looks like ", 1)[1])
    assert named == list(REGISTRY.packages["acp"].releases), named


def test_a_config_file_saved_under_another_name_says_to_read_it_with_as(tmp_path):
    """Issue 32 item 2: OpenCode's `debug config` output saved as anything but opencode.json was NOTHING RECOGNISED
    with "no bundled release recognises them either", though `--as config` CONFORMS. A whole document that is a file
    kind of the release (or of another bundled release) says which `--as` reads it; one that is not, does not."""
    fixture = ROOT / "fixtures/opencode-config/2.0.0/valid/configs-v2.jsonl"
    artifact = orjson.loads(fixture.read_bytes().split(b"\n")[0])
    config = tmp_path / "debug-config.json"
    config.write_bytes(orjson.dumps(artifact["content"], option=orjson.OPT_INDENT_2))
    code, out, _ = wirecheck("validate", "opencode-config@2.0.0", str(config))
    assert code == exitcodes.INCONCLUSIVE, out
    assert "the whole document is a valid config (opencode.json (V2)), which opencode-config@2.0.0 recognises by its " \
           "file name (*opencode.json): read it with --as config" in out
    assert "no bundled release recognises" not in out
    code, out, _ = wirecheck("validate", "opencode-config@2.0.0", "--as", "config", str(config))
    assert code == exitcodes.CONFORMS, out  # the advice holds
    result = check_captures(REGISTRY.load("qoder-agent-sdk@1.0.23"), [str(config)])  # another package's file kind
    (finding,) = [f for f in result.findings if f.code == "NOTHING_RECOGNISED"]
    assert "of opencode-config@2.0.0: read it with wirecheck validate opencode-config@2.0.0 --as config" in \
        finding.message or "of navarch-runtime@0.1.53: read it with wirecheck validate navarch-runtime@0.1.53 --as " \
        "file.opencode-config" in finding.message, finding.message
    other = tmp_path / "other.json"  # a member no file kind declares: no advice
    other.write_bytes(orjson.dumps({**artifact["content"], "wirecheckUnknown": 1}))
    (finding,) = [f for f in check_captures(REGISTRY.load("opencode-config@2.0.0"), [str(other)]).findings
                  if f.code == "NOTHING_RECOGNISED"]
    assert "--as" not in finding.message


def test_one_unrecognised_capture_among_recognised_ones_fails_the_run(junk):
    """A run of several: the capture that recognised nothing gets its finding (an error), the run fails."""
    result = check_captures(REGISTRY.load("xopc@0.0.253"), [WORKER_RUN, junk])
    assert [f.file for f in result.findings if f.code == "NOTHING_RECOGNISED"] == [junk]
    assert result.verdict == FAILS and result.exit_code == exitcodes.FINDINGS


def test_a_run_of_several_that_recognises_nothing_is_nothing_recognised(junk, tmp_path):
    other = tmp_path / "other.jsonl"
    other.write_text('{"type":"nope"}\n')
    result = check_captures(REGISTRY.load("xopc@0.0.253"), [junk, str(other)])
    assert result.verdict == NOTHING_RECOGNISED and result.exit_code == exitcodes.INCONCLUSIVE
    assert len([f for f in result.findings if f.code == "NOTHING_RECOGNISED"]) == 2


def test_an_empty_capture_shows_nothing_either(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text("")
    result = check_captures(REGISTRY.load("xopc@0.0.253"), [str(path)])
    assert [f.code for f in result.findings] == ["EMPTY_CAPTURE"]
    assert result.verdict == NOTHING_RECOGNISED


def test_samples_are_bounded():
    """Thousands of distinct unknown shapes: the summary keeps a fixed number of names, values and samples, and
    pruned copies of long values."""
    summary = Unrecognised()
    for i in range(3000):
        summary.add(Message(value={f"k{i}": i, "type": f"t{i}", "big": "y" * 5000}, file="f", line=i))
    assert summary.count == 3000
    assert len(summary.samples) == MAX_SAMPLES
    assert len(summary.fields) == MAX_NAMES and len(summary.values["type"]) == MAX_NAMES
    assert all(len(s.value["big"]) <= 257 for s in summary.samples.values())
    assert "(+12 more)" in summary.describe()


# ---- --min-coverage -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("minimum", "verdict"), [(None, CONFORMS), (0.05, CONFORMS), (0.5, BELOW_MIN_COVERAGE),
                                                  (1.0, BELOW_MIN_COVERAGE), (0.0, CONFORMS)])
def test_min_coverage(minimum, verdict):
    result = check_captures(REGISTRY.load("xopc@0.0.253"), [WORKER_RUN], CheckOptions(min_coverage=minimum))
    assert 0 < len(result.exercised) < len(result.coverage) / 2
    assert result.verdict == verdict


def test_min_coverage_is_exact_at_the_boundary():
    release = REGISTRY.load("xopc@0.0.253")
    exercised = len(check_captures(release, [WORKER_RUN]).exercised)
    exact = exercised / len(release.kinds)
    assert check_captures(release, [WORKER_RUN], CheckOptions(min_coverage=exact)).verdict == CONFORMS
    above = (exercised + 1) / len(release.kinds)
    assert check_captures(release, [WORKER_RUN], CheckOptions(min_coverage=above)).verdict == BELOW_MIN_COVERAGE


def test_findings_outrank_coverage(tmp_path):
    bad = str(ROOT / "fixtures/xopc/0.0.253/invalid/broken-run.har")
    result = check_captures(REGISTRY.load("xopc@0.0.253"), [bad], CheckOptions(min_coverage=1.0))
    assert result.verdict == FAILS and result.exit_code == exitcodes.FINDINGS


@pytest.mark.parametrize(("value", "code"), [("80%", 4), ("0.8", 4), ("5%", 0), ("0", 0), ("1", 4)])
def test_min_coverage_on_the_command_line(value, code):
    assert wirecheck("validate", "xopc@0.0.253", WORKER_RUN, "--min-coverage", value)[0] == code


@pytest.mark.parametrize("value", ["150%", "-0.1", "1.5", "many", "nan", ""])
def test_min_coverage_out_of_range_is_a_usage_error(value):
    code, _, err = wirecheck("validate", "xopc@0.0.253", WORKER_RUN, "--min-coverage", value)
    assert code == exitcodes.USAGE and "--min-coverage" in err


def test_every_report_format_states_the_verdict(tmp_path):
    from wirecheck.report import FORMATS

    result = check_captures(REGISTRY.load("xopc@0.0.253"), [WORKER_RUN], CheckOptions(min_coverage=0.9))
    rendered = {}
    for name, write in FORMATS.items():
        path = tmp_path / name
        with path.open("w") as out:
            write(result, out)
        rendered[name] = path.read_text()
    report = orjson.loads(rendered["json"])
    jsonschema.validate(report, own_schema("report.schema.json"))
    assert report["summary"]["verdict"] == "below-min-coverage" and report["summary"]["min_coverage"] == 0.9
    assert "BELOW MIN COVERAGE" in rendered["text"] and "(--min-coverage 90%)" in rendered["text"]
    assert "**below min coverage**" in rendered["markdown"] and "✅" not in rendered["markdown"]
    assert 'name="(coverage)"' in rendered["junit"] and 'type="MIN_COVERAGE"' in rendered["junit"]


def test_nothing_recognised_in_every_report_format(tmp_path, junk):
    from wirecheck.report import FORMATS

    result = check_captures(REGISTRY.load("qoder-agent-sdk@1.0.23"), [junk])
    for name, write in FORMATS.items():
        path = tmp_path / name
        with path.open("w") as out:
            write(result, out)
        text = path.read_text()
        assert "NOTHING_RECOGNISED" in text, name
        if name == "json":
            jsonschema.validate(orjson.loads(text), own_schema("report.schema.json"))
            assert orjson.loads(text)["summary"]["verdict"] == "nothing-recognised"
        if name == "junit":
            assert "<failure" in text
