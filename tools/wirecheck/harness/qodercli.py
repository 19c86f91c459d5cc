"""Certify the real qodercli 1.1.23 live: `nox -s certify-qodercli` (opt-in; it downloads a wheel).

The CLI comes from the PyPI wheel `qoder-agent-sdk==1.0.13`, which bundles qodercli 1.1.23, the CLI paired with
SDK 1.0.23. It is driven through each shipped Qoder scenario with the live harness (no shell, scratch HOME, a
timeout) and certified against qoder-agent-sdk@1.0.23 for the role `cli`; every report lands in --out. The
default test run never does this: it certifies the committed capture instead.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from wirecheck.certify.pipeline import certify_captures
from wirecheck.certify.report import FORMATS, write_folder
from wirecheck.contracts import load_registry
from wirecheck.harness.closing import worst
from wirecheck.harness.runner import SHIPPED_SCENARIOS, run_scenario
from wirecheck.harness.scenario import load_scenario

CONTRACT = "qoder-agent-sdk@1.0.23"
ARGV_FLAGS = ["--print", "--output-format", "stream-json", "--input-format", "stream-json"]
SCENARIOS = ("qoder-handshake", "qoder-prompt")


def fetch_cli(work: Path) -> Path:
    from wirecheck.importer.record_qodercli import download_wheel, extract_cli

    return extract_cli(download_wheel(work / "wheel"), work)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m wirecheck.harness.qodercli", description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("reports/certify/qodercli-1.1.23"))
    parser.add_argument("--cli", type=Path, default=None, help="an already extracted qodercli (skips the download)")
    args = parser.parse_args(argv)
    release = load_registry().load(CONTRACT)
    codes = {}
    with tempfile.TemporaryDirectory(prefix="wirecheck-qodercli-") as temp:
        binary = args.cli or fetch_cli(Path(temp))
        for name in SCENARIOS:
            out = args.out / name
            out.mkdir(parents=True, exist_ok=True)
            scenario = load_scenario(SHIPPED_SCENARIOS / f"{name}.yaml")
            record = run_scenario([str(binary), *ARGV_FLAGS], scenario, out / "capture.framed.ndjson")
            cert = certify_captures(release, [out / "capture.framed.ndjson"], role="cli", run=record.as_run())
            write_folder(cert, out)
            print(f"== {name}: {cert.verdict} — {cert.badge.message}")
            for step in record.steps:
                print(f"   step {step.index + 1} {step.action:<11} {step.status:<7} {step.detail}")
            FORMATS["text"](cert, sys.stdout)
            codes[name] = cert.exit_code
    return worst(codes.values())


if __name__ == "__main__":
    raise SystemExit(main())
