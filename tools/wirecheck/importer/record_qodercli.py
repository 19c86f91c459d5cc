"""Record the real qodercli 1.1.23 (bundled in the PyPI wheel `qoder-agent-sdk==1.0.13`) on a scripted stdin.

Run by `nox -s record-qodercli` (it downloads the wheel; the default tests never run this). The CLI is started
without a shell, with a timeout, and with HOME, XDG_CONFIG_HOME and TMPDIR inside a scratch folder (it writes
there), so the recording touches nothing of the machine's own configuration. The output is written as:

- `stdout.ndjson`: the CLI's stdout exactly as received (plain NDJSON, one wire message per line);
- `both.framed.ndjson`: both directions, framed (`{"from": "sdk"|"cli", "message": ...}`): first every line the
  recorder delivered to the CLI's stdin, in order, then every line the CLI wrote (the stdin is written in one go
  before the output is read, so this order is the order of writing and of reading, not an interleaving in time);
- `recording.meta.yaml`: what was run (wheel and binary digests, argv, environment names, exit status).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

from wirecheck.certify.identity import sha256_file
from wirecheck.programs.program import NETWORK_ENV, Scratch, run

WHEEL = "qoder-agent-sdk"
WHEEL_VERSION = "1.0.13"  # its wheel bundles qodercli 1.1.23, the CLI paired with SDK 1.0.23
ARGV_FLAGS = ["--print", "--output-format", "stream-json", "--input-format", "stream-json"]
TIMEOUT_SECONDS = 60
DOWNLOAD_SECONDS = 600.0  # for pip to download the wheel

# The scripted stdin: the request bodies exactly as the Python SDK 1.0.13 writes them
# (`_internal/query.py`: initialize sends `type` and `subtype`, get_context_usage only `subtype`), plus one
# request no release knows, to see how the CLI answers it.
SCRIPT: list[dict[str, Any]] = [
    {
        "type": "control_request",
        "request_id": "req_1_00000001",
        "request": {
            "type": "initialize",
            "subtype": "initialize",
            "modelPolicyProvider": False,
            "initializeTimeoutMs": 120000,
            "supportsCatalogReadyInitialize": True,
        },
    },
    {"type": "control_request", "request_id": "req_2_00000002", "request": {"subtype": "get_context_usage"}},
    {
        "type": "control_request",
        "request_id": "req_3_00000003",
        "request": {"subtype": "wirecheck_unknown_request"},
    },
]


def download_wheel(dest: Path, version: str = WHEEL_VERSION) -> Path:
    """`pip download` the manylinux wheel (the only step that needs the network), as wirecheck runs every program
    (wirecheck.programs): no shell, a timeout, its own process group, a scratch HOME, so pip's user configuration
    (~/.config/pip) is not read; its settings given as variables (`PIP_INDEX_URL`, …) and the network's (a proxy, a
    CA) are passed."""
    argv = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", f"{WHEEL}=={version}",
            "-d", str(dest.absolute())]
    with Scratch.create() as scratch:
        env = scratch.env(pass_through=(*NETWORK_ENV, "PYTHONPATH"), pass_prefixes=("PIP_",))
        done = run(argv, env=env, timeout=DOWNLOAD_SECONDS, scratch=scratch)
    if (failure := done.failure()) is not None:
        raise SystemExit(f"pip download {WHEEL}=={version} {failure}")
    wheels = sorted(dest.glob("qoder_agent_sdk-*.whl"))
    if not wheels:
        raise SystemExit(f"no wheel of {WHEEL}=={version} in {dest}")
    return wheels[0]


def extract_cli(wheel: Path, dest: Path) -> Path:
    import zipfile

    with zipfile.ZipFile(wheel) as archive:
        member = next(n for n in archive.namelist() if n.endswith("/_bundled/qodercli"))
        target = dest / "qodercli"
        target.write_bytes(archive.read(member))
    target.chmod(0o755)
    return target


def stdin_bytes(script: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(message, separators=(",", ":")) + "\n" for message in script).encode()


def framed(sent: list[dict[str, Any]], stdout: bytes) -> str:
    """Both directions as framed NDJSON; CLI lines that are not JSON are kept out (they stay in stdout.ndjson)."""
    lines = ['{"wirecheck_capture":1,"framing":"directed"}']
    lines += [json.dumps({"from": "sdk", "message": m}, separators=(",", ":"), ensure_ascii=False) for m in sent]
    for raw in stdout.decode("utf-8").splitlines():
        if raw.strip():
            message = json.loads(raw)
            lines.append(json.dumps({"from": "cli", "message": message}, separators=(",", ":"), ensure_ascii=False))
    return "\n".join(lines) + "\n"


def run_cli(binary: Path, scratch: Path, script: list[dict[str, Any]], timeout: int = TIMEOUT_SECONDS):
    home, config, tmp, cwd = (scratch / name for name in ("home", "config", "tmp", "cwd"))
    for folder in (home, config, tmp, cwd):
        folder.mkdir(parents=True, exist_ok=True)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "XDG_CONFIG_HOME": str(config), "TMPDIR": str(tmp),
           "LANG": "C.UTF-8"}
    argv = [str(binary), *ARGV_FLAGS]
    # as wirecheck runs every program: no shell, its own process group ended with all it started, a timeout;
    # stdin written in one go (a CLI closing it early is no error)
    completed = run(argv, input=stdin_bytes(script), env=env, cwd=cwd, timeout=timeout)
    return argv, env, completed


def record(out: Path, work: Path | None = None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="wirecheck-qodercli-") as temp:
        base = Path(work) if work else Path(temp)
        wheel = download_wheel(base / "wheel")
        binary = extract_cli(wheel, base)
        _, env, completed = run_cli(binary, base / "scratch", SCRIPT)
        out.mkdir(parents=True, exist_ok=True)
        (out / "stdout.ndjson").write_bytes(completed.stdout)
        (out / "both.framed.ndjson").write_text(framed(SCRIPT, completed.stdout), encoding="utf-8")
        meta = {
            "wheel": {"name": wheel.name, "sha256": sha256_file(wheel)},
            "binary": {"path_in_wheel": "qoder_agent_sdk/_bundled/qodercli", "sha256": sha256_file(binary)},
            "argv": ["qodercli", *ARGV_FLAGS],
            "env": {k: ("<scratch>/" + Path(v).name if k != "PATH" and k != "LANG" else v) for k, v in env.items()},
            "timeout_seconds": TIMEOUT_SECONDS,
            "stdin": "the SCRIPT in tools/wirecheck/importer/record_qodercli.py, written in one go, then closed",
            "exit_status": completed.returncode,
            "stdout_lines": len(completed.stdout.splitlines()),
            "stderr": completed.stderr.decode("utf-8", "replace")[-2000:],
        }
        (out / "recording.meta.yaml").write_text(yaml.safe_dump(meta, sort_keys=False), encoding="utf-8")
        return meta


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("fixtures/qoder-agent-sdk/1.0.23/real"))
    parser.add_argument("--work", type=Path, default=None, help="keep the wheel and scratch folder here")
    args = parser.parse_args(argv)
    meta = record(args.out, args.work)
    print(yaml.safe_dump(meta, sort_keys=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
