"""The CLI as a user runs it: a real subprocess, exit codes, and no tracebacks on bad input."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

DEMO = str(Path(__file__).resolve().parents[1] / "data" / "contracts")


def wirecheck(*args, stdin: bytes | None = None):
    env = {**os.environ, "WIRECHECK_CONTRACTS": DEMO}
    proc = subprocess.run([sys.executable, "-m", "wirecheck", *args], input=stdin, capture_output=True, env=env,
                          timeout=60)
    assert b"Traceback" not in proc.stderr, proc.stderr.decode()
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


@pytest.fixture
def good(write_lines):
    return write_lines([{"type": "hello", "version": "1.0.0"}], "good.jsonl")


@pytest.fixture
def bad(write_lines):
    return write_lines([{"type": "hello", "version": 1}], "bad.jsonl")


def test_conforming_capture_exits_0(good):
    code, out, _ = wirecheck("validate", "demo@1.0.0", good)
    assert code == 0 and "CONFORMS" in out


def test_non_conforming_capture_exits_1(good, bad):
    code, out, _ = wirecheck("validate", "demo@1.0.0", good, bad)
    assert code == 1 and "bad.jsonl:1  error  SCHEMA_VIOLATION  [hello]  /version" in out


def test_warnings_fail_only_with_fail_on_warning(write_lines):
    path = write_lines([{"type": "hello", "version": "1.0.0", "x": 1}])
    assert wirecheck("validate", "demo@1.0.0", path)[0] == 0
    assert wirecheck("validate", "demo@1.0.0", path, "--fail-on", "warning")[0] == 1


def test_stdin(good):
    code, out, _ = wirecheck("validate", "demo@1.0.0", "-", stdin=Path(good).read_bytes())
    assert code == 0 and "-" in out.splitlines()[0]


def test_progress_bar_goes_to_stderr_and_leaves_the_report_intact(write_lines):
    path = write_lines([{"type": "hello", "version": "1.0.0"}] * 20_000)
    code, out, _ = wirecheck("validate", "demo@1.0.0", path, "--format", "json", "--progress")
    assert code == 0 and orjson.loads(out)["summary"]["messages"] == 20_000


def test_json_output_to_file(tmp_path, bad):
    target = tmp_path / "out" / "report.json"
    code, out, _ = wirecheck("validate", "demo@1.0.0", bad, "--format", "json", "-o", str(target))
    # the report went to a file; the result line (verdict, counts, where the report went) still comes out
    assert code == 1 and out == f"FAILS: 1 message (none unclassified), 1 error, 0 warnings; report: {target}\n"
    assert orjson.loads(target.read_bytes())["summary"]["errors"] == 1


def test_the_verdict_is_said_once_last_after_a_short_coverage(bad):
    """A run that saw one kind of twelve lists that kind and counts the other eleven in one line (a hook's log is
    not the place for every kind of a release); --all-kinds lists them all."""
    code, out, _ = wirecheck("validate", "demo@1.0.0", bad)
    lines = out.rstrip("\n").split("\n")
    assert code == 1 and lines[-1] == "FAILS: 1 message (none unclassified), 1 error, 0 warnings"
    assert out.count("FAILS") == 1 and out.index("coverage:") < out.index("FAILS")
    coverage = out[out.index("coverage:"):out.index("FAILS")].strip().split("\n")
    assert coverage[0] == "coverage: 1 of 12 message kinds exercised"
    assert coverage[-1] == "  · 11 other kinds not exercised (--all-kinds lists them)" and len(coverage) == 3
    code, every, _ = wirecheck("validate", "demo@1.0.0", bad, "--all-kinds")
    assert code == 1 and every.count("not exercised") == 11 and "other kinds" not in every


@pytest.mark.parametrize(
    ("args", "message"),
    [
        # a user's request, not a file in contracts/: one line, no empty location
        (("validate", "demo@9.9.9", "x.jsonl"), "wirecheck: error: unknown release '9.9.9' of demo; known: 1.0.0"),
        (("validate", "nothing@1.0.0", "x.jsonl"), "wirecheck: error: unknown package 'nothing'"),
        (("validate", "demo@1.0.0", "/no/such/file.jsonl"), "capture not found: /no/such/file.jsonl"),
        (("validate", "demo@1.0.0", "/"), "/ is a directory, not a capture"),
        (("validate", "demo@1.0.0", "-", "-"), "stdin (-) can be read only once"),
        (("validate", "demo@1.0.0", "x", "--format", "pdf"), "--format pdf: expected one of"),
        (("validate", "demo@1.0.0", "x", "--base-url", "nope=http://h"), "unknown base 'nope'"),
        (("validate", "demo@1.0.0", "x", "--base-url", "api=http://[::1"), "--base-url 'api=http://[::1': not a URL"),
        (("validate", "demo@1.0.0", "x", "--base-url", "bogus"), "--base-url 'bogus': give an absolute URL"),
        (("validate", "demo@1.0.0", "x", "--base-url", "api=v1/api"), "--base-url 'api=v1/api': give an absolute URL"),
        (("show", "demo@1.0.0", "no-such-kind"), "has no kind 'no-such-kind'"),
    ],
)
def test_usage_errors_exit_2_with_a_clear_message(args, message):
    code, _, err = wirecheck(*args)
    assert code == 2 and message in err


def test_broken_contract_exits_2_with_file_and_pointer(tmp_path, good):
    import shutil

    root = tmp_path / "contracts"
    shutil.copytree(DEMO, root)
    catalog = root / "demo/1.0.0/catalog.yaml"
    catalog.write_text(catalog.read_text().replace("channel: stdio-ndjson", "channel: carrier-pigeon", 1))
    code, _, err = wirecheck("validate", "demo@1.0.0", good, "--contracts", str(root))
    line = catalog.read_text().splitlines().index("    channel: carrier-pigeon") + 1
    assert code == 2 and "catalog.yaml#/kinds/0/channel: expected " in err
    assert 'found "carrier-pigeon" (a string)' in err and "'" not in err.split("channel:", 1)[1].split("(line")[0]
    assert f"(line {line})" in err


def test_contracts_lists_every_release_then_the_problems_of_those_that_do_not_load(tmp_path):
    import shutil

    root = tmp_path / "contracts"
    shutil.copytree(DEMO, root)
    shutil.copytree(root / "demo/1.0.0", root / "demo/1.2.0")
    registry = root / "registry.yaml"
    registry.write_text(registry.read_text().replace('["1.0.0"]', '["1.0.0", "1.1.0"]'))
    code, out, err = wirecheck("contracts", "--contracts", str(root))
    assert code == 2
    assert "1.0.0" in out and "12 kinds" in out and "1.1.0        does not load" in out
    assert "registry.yaml#/packages/demo/releases/1: 1.1.0 is listed, but demo/1.1.0/catalog.yaml" in err
    assert "registry.yaml#/packages/demo/releases: 1.2.0 is not listed" in err


def test_contracts_and_show(good):
    code, out, _ = wirecheck("contracts")
    assert code == 0 and "1.0.0" in out and "12 kinds" in out
    code, out, _ = wirecheck("show", "demo@1.0.0", "item.response")
    assert code == 0 and "GET <api>/items/{id} → 200" in out and '"format": "date-time"' in out
    assert "provenance: test (inferred" in out
    assert '"$ref"' not in out and '"pattern": "^[a-z0-9]+$"' in out  # Item's id: #/$defs/Id, resolved in place


def test_show_every_bundled_kind():
    """`wirecheck show claude-code-print@2.1.332 result` was an internal error (exit 3) after the schema: a field's
    x-provenance written as a sentence, not an object. Every bundled kind is shown, its field provenance in words."""
    from typer.testing import CliRunner

    from wirecheck.cli.app import app
    from wirecheck.contracts import load_registry

    registry = load_registry()
    runner = CliRunner()
    shown = 0
    for package in registry.packages.values():
        for version in package.releases:
            release = registry.load(f"{package.name}@{version}")
            for kind in release.kinds:
                result = runner.invoke(app, ["show", release.name, kind.id])
                assert result.exit_code == 0, (release.name, kind.id, result.output[-300:])
                shown += 1
    assert shown > 200
    out = runner.invoke(app, ["show", "claude-code-print@2.1.332", "result"]).output
    assert "field provenance:" in out and "sdk.d.ts SDKResultSuccess/SDKResultError" in out


def test_a_bug_is_exit_3_with_one_line_not_a_traceback(monkeypatch, capsys) -> None:
    """An exception wirecheck did not expect must not pass for a verdict (exit 1 is "findings")."""
    import sys

    import pytest

    from wirecheck import exitcodes
    from wirecheck.cli import app as cli_app
    from wirecheck.cli import contracts_cmd

    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(contracts_cmd, "registry", broken)
    monkeypatch.setattr(sys, "argv", ["wirecheck", "contracts"])
    monkeypatch.delenv("WIRECHECK_DEBUG", raising=False)
    with pytest.raises(SystemExit) as exited:
        cli_app.main()
    assert exited.value.code == exitcodes.INTERNAL == 3
    err = capsys.readouterr().err
    assert "internal error: RuntimeError: boom" in err and "Traceback" not in err
    monkeypatch.setenv("WIRECHECK_DEBUG", "1")  # the traceback too, and still exit 3 (uncaught it would be 1)
    with pytest.raises(SystemExit) as exited:
        cli_app.main()
    assert exited.value.code == exitcodes.INTERNAL
    err = capsys.readouterr().err
    assert "Traceback" in err and "RuntimeError: boom" in err and "internal error: RuntimeError: boom" in err


def test_standard_output_that_cannot_be_written_is_a_usage_error(good) -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this machine")
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "wirecheck", "validate", "demo@1.0.0", good], stdout=full,
                              stderr=subprocess.PIPE, env={**os.environ, "WIRECHECK_CONTRACTS": DEMO}, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.decode().strip() == "wirecheck: cannot write to standard output: No space left on device"


@pytest.mark.parametrize(("fixture", "verdict"), [("good", 0), ("bad", 1)])
def test_a_reader_that_stops_reading_does_not_change_the_verdict(fixture, verdict, request) -> None:
    """`wirecheck validate ... | head`: the reader has gone before the report is written (EPIPE on the first
    write). The rest of the report is dropped, silently, and the exit code is still the verdict."""
    capture = request.getfixturevalue(fixture)
    proc = subprocess.Popen([sys.executable, "-m", "wirecheck", "validate", "demo@1.0.0", capture, "--no-progress"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "WIRECHECK_CONTRACTS": DEMO})
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == verdict, err
    assert err == b""


def test_a_closed_standard_output_is_a_usage_error_unless_nothing_is_written_to_it(tmp_path, good) -> None:
    """`wirecheck ... >&-`: Python starts with sys.stdout = None. Writing the report there is exit 2 with one line,
    not an internal error; a run whose report goes to --output never needs it."""
    def run(*args, close_stderr=False):
        closing = (1, 2) if close_stderr else (1,)
        return subprocess.run([sys.executable, "-m", "wirecheck", *args], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL if close_stderr else subprocess.PIPE,
                              preexec_fn=lambda: [os.close(fd) for fd in closing],
                              env={**os.environ, "WIRECHECK_CONTRACTS": DEMO}, timeout=60)
    proc = run("validate", "demo@1.0.0", good, "--no-progress")
    assert proc.returncode == 2 and proc.stderr == b"wirecheck: cannot write to standard output: standard output " \
                                                   b"is closed\n", proc.stderr
    report = tmp_path / "r.json"
    proc = run("validate", "demo@1.0.0", good, "--no-progress", "--format", "json", "--output", str(report))
    assert proc.returncode == 0 and proc.stderr == b"" and report.stat().st_size > 0
    assert run("contracts", close_stderr=True).returncode == 2


def test_contracts_option_naming_a_file_is_a_usage_error(tmp_path) -> None:
    path = tmp_path / "registry.yaml"
    path.write_text("packages: {}\n")
    code, _, err = wirecheck("contracts", "--contracts", str(path))
    assert code == 2 and "not a contracts folder" in err


def test_a_report_path_that_cannot_be_written_is_a_usage_error(tmp_path, good) -> None:
    """A directory, a file where a folder should be, a full disk: exit 2 naming the path, not exit 3."""
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    targets = [str(tmp_path), str(blocker / "report.json")] + (["/dev/full"] if os.path.exists("/dev/full") else [])
    for target in targets:
        code, _, err = wirecheck("validate", "demo@1.0.0", good, "--format", "json", "-o", target)
        assert code == 2 and f"{target}: cannot write" in err, (target, err)


def test_a_pipe_or_device_is_read_like_a_file(tmp_path) -> None:
    """`validate pkg@v <(cmd)` passes a pipe (/dev/fd/N): it exists without being a regular file."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f"printf '%s\\n' '{{\"type\":\"hello\",\"version\":\"1.0.0\"}}' > {fifo}"])
    code, out, err = wirecheck("validate", "demo@1.0.0", str(fifo), "--no-progress")
    writer.wait(timeout=30)
    assert code == 0 and "CONFORMS: 1 message " in out, err


def test_the_report_may_not_overwrite_a_capture(good) -> None:
    before = Path(good).read_bytes()
    code, _, err = wirecheck("validate", "demo@1.0.0", good, "--format", "json", "-o", good)
    assert code == 2 and "is one of the captures" in err and Path(good).read_bytes() == before
