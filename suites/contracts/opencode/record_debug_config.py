"""Record how real OpenCode reads opencode.json: each config of CASES written to a scratch folder and read by
`opencode debug config` (OPENCODE_CONFIG pointing at it; HOME, XDG_CONFIG_HOME and TMPDIR scratch; 60 s), its exit
status and the first lines of what it said, into fixtures/opencode-config/<release>/real/debug-config.yaml, which
suites/contracts/test_opencode_debug_config.py replays against the contract (no OpenCode needed there).

    npm install --prefix /tmp/oc opencode-ai@1.18.33
    python suites/contracts/opencode/record_debug_config.py /tmp/oc/node_modules/opencode-linux-x64/bin/opencode 1.0.0
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[3]
V2_FIXTURE = ROOT / "fixtures/opencode-config/2.0.0/valid/configs-v2.jsonl"  # line 1: what Navarch 0.1.53 writes
NAVARCH_V2 = json.loads(V2_FIXTURE.read_text().splitlines()[0])["content"]
WITHOUT_PERMISSIONS = {k: v for k, v in NAVARCH_V2.items() if k != "permissions"}
CASES = {  # name → the config file's content
    "navarch-0.1.53-v2": NAVARCH_V2,
    "navarch-0.1.53-v2-without-permissions": WITHOUT_PERMISSIONS,
    "unknown-root-key": {"foo": 1},
    "v2-update": {"update": "disable"},
    "v2-update-any-value": {"update": "bogus"},
    "v1-autoupdate": {"autoupdate": False},
    "v2-plugins": {"plugins": ["x"]},
    "v2-plugins-not-a-list": {"plugins": "x"},
    "v2-servers-remote-without-url": {"mcp": {"servers": {"a": {"type": "remote"}}}},
    "v2-servers-local": {"mcp": {"servers": {"a": {"type": "local", "command": ["x"]}}}},
    "v2-servers-unknown-member": {"mcp": {"servers": {"a": {"type": "local", "command": ["x"], "zzz": 1}}}},
    "v2-servers-not-an-object": {"mcp": {"servers": 5}},
    "v1-and-v2-servers": {"mcp": {"servers": {"a": {"type": "local", "command": ["x"]}},
                                  "b": {"type": "local", "command": ["y"]}}},
    "v1-server-remote-without-url": {"mcp": {"a": {"type": "remote"}}},
    "v1-server-unknown-member": {"mcp": {"a": {"type": "local", "command": ["x"], "zzz": 1}}},
    "v1-permission": {"permission": {"edit": "allow"}},
    "v2-permissions-empty": {"permissions": []},
    "model-variant": {"model": "anthropic/claude-opus-5#high"},
    "nested-unknown-key": {"agent": {"build": {"zzz": 1}}},
    "share-unknown-mode": {"share": "bogus"},
}


def main(argv: list[str]) -> int:
    program, release = argv[1], argv[2]
    version = subprocess.run([program, "--version"], capture_output=True, text=True, timeout=60).stdout.strip()
    recorded = []
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        for folder in ("home", "xdg", "tmp", "project"):
            (base / folder).mkdir()
        for name, config in CASES.items():
            path = base / "project" / f"{name}.json"
            path.write_text(json.dumps(config, indent=1))
            env = {"PATH": "/usr/bin:/bin", "HOME": str(base / "home"), "XDG_CONFIG_HOME": str(base / "xdg"),
                   "TMPDIR": str(base / "tmp"), "OPENCODE_CONFIG": str(path), "NO_COLOR": "1"}
            run = subprocess.run([program, "debug", "config"], capture_output=True, text=True, env=env,
                                 cwd=base / "project", timeout=60, start_new_session=True)
            text = re.sub(r"\x1b\[[0-9;]*m", "", run.stderr).replace(str(base), "<scratch>")
            said = [line for line in text.splitlines() if line.strip()][:3]
            recorded.append({"name": name, "config": json.loads(json.dumps(config)),  # no YAML aliases
                             "exit_status": run.returncode, "stderr": said})
    out = ROOT / "fixtures" / "opencode-config" / release / "real" / "debug-config.yaml"
    out.parent.mkdir(parents=True, exist_ok=True)
    header = (f"# `opencode debug config` of OpenCode {version} (npm opencode-ai@{version}, linux-x64) on each\n"
              "# config, recorded by suites/contracts/opencode/record_debug_config.py; replayed against the contract\n"
              "# by suites/contracts/test_opencode_debug_config.py. exit_status 0: OpenCode reads the file; 1: it\n"
              "# refuses it.\n")
    out.write_text(header + yaml.safe_dump({"program": f"opencode-ai@{version}", "command": "opencode debug config",
                                            "cases": recorded}, sort_keys=False, allow_unicode=True, width=120))
    print(f"wrote {out} ({len(recorded)} cases)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
