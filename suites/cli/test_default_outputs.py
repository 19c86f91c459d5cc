"""What the live commands write when not told where goes under reports/, which .gitignore covers: a stray
`wirecheck-probe/probe.har` was once committed from a run's output."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from wirecheck.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
FAKE_CONTRACTS = ROOT / "suites" / "harness" / "data" / "contracts"


def test_stub_probe_and_certify_run_write_only_under_reports_which_git_ignores(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    with socket.socket() as closed:  # a port nobody listens on
        closed.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{closed.getsockname()[1]}"
    runs = [
        ["stub", "xopc@0.0.253", "--max-seconds", "0.2"],
        ["probe", "xopc@0.0.253", url, "--timeout", "2"],
        ["certify", "fakeqoder@1.0.0", "--contracts", str(FAKE_CONTRACTS), "--run", "--scenario", "qoder-handshake",
         "--timeout", "20", "--", sys.executable, "-c", "pass"],
    ]
    for argv in runs:
        result = CliRunner().invoke(app, argv)
        assert result.exit_code == 5, (argv, result.output)  # nothing heard in any of them: run failed
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert {"reports/stub/stub.har", "reports/probe/probe.har", "reports/certify/capture.framed.ndjson"} <= set(written)
    assert all(name.startswith("reports/") for name in written), written
    ignored = subprocess.run(["git", "-C", str(ROOT), "check-ignore", "--no-index", "--stdin"],
                             input="\n".join(written), capture_output=True, text=True, check=False).stdout.split()
    assert sorted(ignored) == written  # every one of them git-ignored
