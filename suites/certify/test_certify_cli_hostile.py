"""`wirecheck certify` on odd input: every way to get a run wrong is exit 2 with the place named, before any live
run starts; nothing is exit 3."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wirecheck.cli.app import app

from .conftest import CONTRACTS, GOOD_RUN

runner = CliRunner()
SCENARIO = "scenario: 1\nroles: {harness: sdk, implementation: cli}\ntimeout: 10\nsteps: [{close_stdin: true}]\n"


def certify(*args, **kwargs):
    return runner.invoke(app, ["certify", "fakeqoder@1.0.0", "--contracts", str(CONTRACTS), *args], **kwargs)


@pytest.fixture
def scenario_file(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO)
    return path


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--timeout", "-1"], "--timeout -1: expected a positive number of seconds"),
        (["--timeout", "nan"], "--timeout nan"),
        (["--timeout", "inf"], "--timeout inf"),
        (["--timeout", "1e9"], "at most 86400"),
        (["--capture-out", "{tmp}"], "cannot write"),
        (["--capture-out", "{tmp}/s.yaml/c.ndjson"], "cannot write"),
        (["--out-dir", "{tmp}/s.yaml"], "cannot write"),
        (["--output", "{tmp}"], "cannot write"),
    ],
)
def test_bad_run_options_are_usage_errors_before_the_run(tmp_path, scenario_file, monkeypatch, args, message):
    ran = tmp_path / "ran"
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    result = certify("--run", "--scenario", str(scenario_file), *args, "--",
                     sys.executable, "-c", f"open({str(ran)!r}, 'w')")
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert not ran.exists()  # refused before the command was started
    assert not any(cwd.iterdir())  # and before an empty capture was left behind


@pytest.mark.parametrize(
    ("program", "message"),
    [
        ("{tmp}/missing", "no such file"),
        ("{tmp}", "is a directory"),
        ("{tmp}/s.yaml", "is not executable"),
        ("wirecheck-no-such-program", "not found on PATH"),
    ],
)
def test_a_command_that_cannot_start_is_a_usage_error(tmp_path, scenario_file, program, message):
    result = certify("--run", "--scenario", str(scenario_file), "--capture-out", str(tmp_path / "c.ndjson"), "--",
                     program.replace("{tmp}", str(tmp_path)))
    assert result.exit_code == 2, result.output
    assert "cannot run the command" in result.output and message in result.output


def test_the_harness_role_must_be_a_role_of_the_release(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO.replace("harness: sdk", "harness: server")
                    .replace("[{close_stdin: true}]", "[{send: {type: x}}, {close_stdin: true}]"))
    result = certify("--run", "--scenario", str(path), "--", "true")
    assert result.exit_code == 2 and "harness role 'server'" in result.output, result.output
    # a harness that sends nothing has no role in the capture: a print-mode CLI's scenario certifies against the
    # CLI's contract and its reader's alike
    path.write_text(SCENARIO.replace("harness: sdk", "harness: server"))
    result = certify("--run", "--scenario", str(path), "--", "true")
    assert "harness role" not in result.output and result.exit_code != 2, result.output


def test_a_hostile_scenario_is_exit_2_not_3(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO.replace("[{close_stdin: true}]", "[{expect: {match: {a: !!binary aGk=}, timeout: x}}]"))
    result = certify("--run", "--scenario", str(path), "--", "true")
    assert result.exit_code == 2, result.output
    assert f"{path}: line 4, column " in result.output and "(!!binary) is not a JSON value" in result.output


def test_a_capture_on_stdin_is_certified_with_its_real_digest(framed):
    capture = framed(GOOD_RUN)
    data = Path(capture).read_bytes()
    result = certify("-", "--role", "cli", "--format", "jsonl", input=data)
    assert result.exit_code == 0, result.output
    header = json.loads(result.stdout.splitlines()[0])
    assert header["identity"]["captures"][0] == {
        "path": "-", "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data), "form": "framed",
        "messages": len(GOOD_RUN)}


def test_a_compressed_capture_on_stdin_is_one_capture_format_finding(framed, tmp_path):
    import gzip
    import subprocess

    data = Path(framed(GOOD_RUN)).read_bytes()
    packed = tmp_path / "c.gz"
    packed.write_bytes(gzip.compress(data))
    with packed.open("rb") as stdin:
        result = subprocess.run(
            [sys.executable, "-m", "wirecheck", "certify", "fakeqoder@1.0.0", "--contracts", str(CONTRACTS),
             "--role", "cli", "--format", "jsonl", "-"], stdin=stdin, capture_output=True, timeout=60)
    assert result.returncode == 1, result.stderr
    out = result.stdout.decode()
    codes = [f["code"] for line in out.splitlines() for f in json.loads(line).get("findings", [])]
    assert set(codes) == {"CAPTURE_FORMAT"} and "the capture is gzip-compressed" in out, out
    header = json.loads(out.splitlines()[0])
    capture = header["identity"]["captures"][0]
    assert capture["path"] == "-" and capture["bytes"] == packed.stat().st_size
    assert capture["sha256"] == hashlib.sha256(packed.read_bytes()).hexdigest()  # peeked bytes are hashed once


def test_the_program_is_resolved_once_where_the_user_is(tmp_path, scenario_file, monkeypatch):
    import wirecheck.harness.runner as harness_runner
    import wirecheck.programs.program as process

    program = tmp_path / "cli.sh"
    program.write_text("#!/bin/sh\nexit 0\n")
    program.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    resolved: list[str] = []
    resolve = process.resolve_program

    def resolve_once(name, path=None):
        resolved.append(name)
        return resolve(name, path)

    monkeypatch.setattr(process, "resolve_program", resolve_once)
    monkeypatch.setattr(harness_runner, "resolve_program", resolve_once)
    capture = tmp_path / "c.ndjson"
    result = certify("--run", "--scenario", str(scenario_file), "--capture-out", str(capture), "--format", "jsonl",
                     "--", "./cli.sh")
    assert "cannot" not in result.output, result.output
    assert resolved == ["./cli.sh"]  # checked before the run, and that very program is started: no second look-up
    run = json.loads(result.stdout.splitlines()[0])["identity"]["run"]
    assert run["program_sha256"] == hashlib.sha256(program.read_bytes()).hexdigest(), run


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="named pipes")
def test_a_capture_into_a_named_pipe_is_streamed_to_its_reader_and_certified_from_a_copy(tmp_path, scenario_file,
                                                                                         monkeypatch):
    """`--capture-out FIFO` (issue 31, defect 9): the reader gets the capture as it is recorded, and the certification
    reads a copy (the pipe gives nothing back), removed afterwards."""
    import os
    import tempfile
    import threading

    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    pipe = tmp_path / "capture.fifo"
    os.mkfifo(pipe)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(pipe.read_bytes()))
    reader.start()
    result = certify("--run", "--scenario", str(scenario_file), "--capture-out", str(pipe), "--format", "jsonl",
                     "--", sys.executable, "-c", "print('{\"type\": \"keep_alive\"}')")
    reader.join(30)
    assert result.exit_code in (0, 1, 4), result.output
    assert got and got[0].startswith(b'{"wirecheck_capture": 1') and b'"keep_alive"' in got[0]
    footer = json.loads(result.stdout.splitlines()[-1])
    assert footer["run"]["heard"] is True
    assert list((tmp_path / "tmp").iterdir()) == []  # the copy is gone
