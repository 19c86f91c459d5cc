"""Real JSON-RPC implementations as test subjects: `nox -s certify-jsonrpc` (opt-in: packages from npm, Node from the
machine, nothing else from the network).

Each subject is installed once from npm into `$XDG_CACHE_HOME/wirecheck/live/<package>@<version>` (`npm install`,
an exact version), started by `certify --run`'s harness (wirecheck.programs: no shell, scratch HOME, reaped) under
a shipped scenario, and certified for its role with the scope file committed beside its capture
(suites/harness/data/live-jsonrpc/<subject>/scope.yaml):

- acp-example-agent: @agentclientprotocol/sdk 1.9.0 dist/examples/agent.js, role agent of acp@1.9.0, scenario
  acp-agent-session;
- acp-example-client: the same package's dist/examples/client.js, role client of acp@1.9.0, acp-client-session;
- mcp-server-everything: @modelcontextprotocol/server-everything 2026.8.31 `stdio`, role server of mcp@2025-06-18,
  the scenario beside its capture (mcp is imported, not bundled, so its scenario is not a shipped one);
- mcp-server-v2: the MCP TypeScript SDK v2 (@modelcontextprotocol/server 2.4.0, which implements revision
  2026-07-28) serving one tool, resource and prompt (server.mjs beside its capture, copied beside the install),
  role server of mcp@2026-07-28 imported from fixtures/mcp-schema with no mapping.

The example client starts its own agent (`npx tsx agent.ts`) and talks to it over that child's pipes; here it runs
unchanged under a preload (`node --import`, written into the scratch folder) that hands it a child whose pipes are
this process's stdin and stdout, and sends its own console output to stderr, so the harness is the agent it talks
to. mcp@2025-06-18 is imported first from the committed MCP schema with its mapping
(suites/importer/data/mcp-2025-06-18), as `wirecheck import schema` does.

`--record` writes each run's capture (capture.framed.ndjson), outcome and provenance (outcome.json: package,
version, command, date, program sha256, steps, statuses) into the data folder; the default tests
(suites/harness/test_live_jsonrpc_recorded.py) replay them. `--agents` also tries the real ACP agents the issue
names (`@zed-industries/codex-acp`, `@zed-industries/claude-agent-acp`, `@google/gemini-cli --acp`) and records
what happened, certified or not. Each runs a whole prompt turn against a scripted model endpoint, so no login stops
it: gemini-cli acp-gemini-turn (a tool call and its permission, the scripted Gemini API:
stub/gemini.py), codex-acp acp-codex-session (a permitted command, the scripted OpenAI Responses endpoint),
claude-agent-acp acp-claude-agent-turn (a tool call it puts to the client, refused; the scripted Anthropic endpoint);
then a second turn, cancelled while its tool call awaits permission (session/cancel, the waiting request answered
`cancelled`, the prompt owed stopReason cancelled: AGENT-HONOURS-CANCEL). outcome.json also keeps the run's outcome
(`run`, what certify_captures judged the run by, as `certify --run` hands it): the replay passes it back, so the
recorded verdict and the replayed one are one judgement.

It ends with one closing verdict per subject (harness/closing.py), printed last, and exits with the worst of the
required subjects' (an optional agent's is said, never required): 0 certified, 4 incomplete, 1 not certified (or its
run failed after it spoke), 5 nothing heard, 2 a subject that could not be installed.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wirecheck.certify.pipeline import certify_captures
from wirecheck.certify.report import FORMATS, write_folder
from wirecheck.contracts import load_registry
from wirecheck.contracts.errors import ContractError
from wirecheck.harness.closing import Closing, worst
from wirecheck.harness.runner import find_scenario, run_scenario
from wirecheck.harness.scenario import load_scenario
from wirecheck.programs.program import CommandError, Scratch, resolve_program, run

INSTALL_SECONDS = 900.0  # `npm install` of one subject
NODE_VERSION_SECONDS = 30.0  # `node --version`, for the record

DATA = Path("suites/harness/data/live-jsonrpc")
MCP_SCHEMA = Path("suites/importer/data/mcp-2025-06-18")
MCP_2026 = Path("fixtures/mcp-schema/2026-07-28/schema.json")

# The example client's transport, swapped for this process's stdio: `spawn` (imported by name in client.js, so the
# builtin's ESM exports are synced after patching) returns a child whose stdin writes to fd 1 and whose stdout is
# fd 0; the example's own console output goes to stderr, where it cannot corrupt the ACP stream.
STDIO_CLIENT_PRELOAD = """\
import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
import { Writable } from "node:stream";

const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, encoding, callback) => process.stderr.write(chunk, encoding, callback);
console.log = (...args) => console.error(...args);
childProcess.spawn = () => ({
  stdin: new Writable({ write(chunk, _encoding, callback) { write(chunk, callback); } }),
  stdout: process.stdin,
  kill() {},
  on() { return this; },
});
syncBuiltinESMExports();
"""


@dataclass
class Subject:
    name: str
    package: str
    version: str
    program: str  # the script under node_modules/<package>/, or a bin name
    args: list[str]
    contract: str
    role: str
    scenario: str
    preload: bool = False
    optional: bool = False  # a real agent tried as far as it goes offline: its verdict is recorded, never required
    script: Path | None = None  # a program of ours on the package's API, copied beside the install and run there
    extras: tuple[str, ...] = ()  # other exact packages the script imports (an optional peer dependency)
    env: dict[str, str] = field(default_factory=dict)


SUBJECTS = [
    Subject("acp-example-agent", "@agentclientprotocol/sdk", "1.9.0", "dist/examples/agent.js", [], "acp@1.9.0",
            "agent", "acp-agent-session"),
    Subject("acp-example-client", "@agentclientprotocol/sdk", "1.9.0", "dist/examples/client.js", [], "acp@1.9.0",
            "client", "acp-client-session", preload=True),
    Subject("mcp-server-everything", "@modelcontextprotocol/server-everything", "2026.8.31", "dist/index.js",
            ["stdio"], "mcp@2025-06-18", "server", str(DATA / "mcp-server-everything" / "scenario.yaml")),
    Subject("mcp-server-v2", "@modelcontextprotocol/server", "2.4.0", "dist/stdio.mjs", [], "mcp@2026-07-28",
            "server", str(DATA / "mcp-server-v2" / "scenario.yaml"), script=DATA / "mcp-server-v2" / "server.mjs"),
]
AGENTS = [
    Subject("codex-acp", "@zed-industries/codex-acp", "0.16.0", "bin:codex-acp", [], "acp@2.4.0", "agent",
            "acp-codex-session", optional=True),
    Subject("claude-agent-acp", "@zed-industries/claude-agent-acp", "0.23.1", "bin:claude-agent-acp", [],
            "acp@2.4.0", "agent", "acp-claude-agent-turn", optional=True),
    # a whole prompt turn with a tool call and its permission, against the scripted Gemini API (no login needed)
    Subject("gemini-cli", "@google/gemini-cli", "0.61.0", "bin:gemini", ["--acp"], "acp@2.4.0", "agent",
            "acp-gemini-turn", optional=True),
]


def cache_root() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "wirecheck" / "live"


def install(subject: Subject) -> Path:
    """`npm install <package>@<version>` into its own cache folder (once); the folder holding node_modules."""
    folder = cache_root() / "+".join(f"{spec.replace('/', '+')}" for spec in
                                     (f"{subject.package}@{subject.version}", *subject.extras))
    marker = folder / "node_modules" / subject.package / "package.json"
    if marker.is_file():
        return folder
    from wirecheck.importer.npm import run_npm

    folder.mkdir(parents=True, exist_ok=True)
    # through wirecheck.programs (importer.npm.run_npm): a scratch HOME, so npm's cache is the scratch folder's, not
    # the user's ~/.npm; the install itself goes to `folder`
    done = run_npm("npm", ["install", "--prefix", str(folder.absolute()), "--no-audit", "--no-fund", "--no-save",
                           f"{subject.package}@{subject.version}", *subject.extras], timeout=INSTALL_SECONDS,
                   needs="the live tier installs its subjects from npm")
    if (failure := done.failure()) is not None:
        raise RuntimeError(f"npm install {subject.package}@{subject.version} {failure}")
    if not marker.is_file():
        raise RuntimeError(f"npm install {subject.package}@{subject.version} installed no {marker}")
    return folder


def node_version() -> str | None:
    """`node --version` (for the record), run as every program is (wirecheck.programs); None when it cannot be
    told."""
    try:
        node = resolve_program("node", os.environ.get("PATH"))
        with Scratch.create() as scratch:
            done = run([node, "--version"], env=scratch.env(), timeout=NODE_VERSION_SECONDS, scratch=scratch)
    except (CommandError, OSError):
        return None
    return done.stdout.decode("utf-8", "replace").strip() if done.returncode == 0 else None


def argv_of(subject: Subject, folder: Path, scratch: Path) -> list[str]:
    node = shutil.which("node") or "node"
    if subject.program.startswith("bin:"):
        return [str(folder / "node_modules" / ".bin" / subject.program[4:]), *subject.args]
    if subject.script is not None:  # resolves the package from the install folder it is copied into
        shutil.copy(subject.script, folder / subject.script.name)
        return [node, str(folder / subject.script.name), *subject.args]
    script = folder / "node_modules" / subject.package / subject.program
    argv = [node]
    if subject.preload:
        preload = scratch / "acp-stdio-client.mjs"
        preload.write_text(STDIO_CLIENT_PRELOAD, encoding="utf-8")
        argv += ["--import", preload.as_uri()]
    return [*argv, str(script), *subject.args]


def mcp_contracts(into: Path) -> Path:
    """mcp@2025-06-18 imported from the committed schema and mapping, and mcp@2026-07-28 from its schema alone, into
    `into` (a contracts folder)."""
    from wirecheck.importer.jsonrpc import import_schema

    import_schema(MCP_SCHEMA / "schema.json", package="mcp", version="2025-06-18", out=into,
                  mapping_path=MCP_SCHEMA / "mapping.yaml", license_path=MCP_SCHEMA / "LICENSE",
                  source_ref="modelcontextprotocol/modelcontextprotocol schema/2025-06-18/schema.json")
    import_schema(MCP_2026, package="mcp", version="2026-07-28", out=into,
                  source_ref="modelcontextprotocol/modelcontextprotocol schema/2026-07-28/schema.json")
    return into


def run_one(subject: Subject, out: Path, contracts: Path | None, data: Path) -> dict[str, Any]:
    folder = install(subject)
    registry = load_registry(contracts) if contracts is not None else load_registry()
    release = registry.load(subject.contract)
    scenario = load_scenario(find_scenario(subject.scenario))
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="wirecheck-live-") as temp:
        argv = argv_of(subject, folder, Path(temp))
        record = run_scenario(argv, scenario, out / "capture.framed.ndjson", env=subject.env)
    scope = data / subject.name / "scope.yaml"
    run_info = record.as_run()
    cert = certify_captures(release, [out / "capture.framed.ndjson"], role=subject.role, run=run_info,
                            baseline=scope if scope.is_file() else None)
    write_folder(cert, out)
    manifest = json.loads((folder / "node_modules" / subject.package / "package.json").read_text(encoding="utf-8"))
    statuses = {r.requirement.id: r.status for r in cert.results}
    return {
        "subject": subject.name, "package": subject.package, "version": manifest.get("version"),
        "installed_with": f"npm install {subject.package}@{subject.version}",
        "command": [_shown(a, folder) for a in argv],
        "script_sha256": _sha256(folder / subject.script.name) if subject.script else
        _sha256(folder / "node_modules" / subject.package / subject.program)
        if not subject.program.startswith("bin:") else None,
        "node": node_version(),
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "contract": subject.contract, "role": subject.role, "scenario": subject.scenario,
        "scope": str(scope) if scope.is_file() else None,
        "verdict": cert.verdict, "exit_code": cert.exit_code, "badge": cert.badge.message,
        "program_sha256": cert.identity.get("run", {}).get("program_sha256"),
        "steps": [s.as_json() for s in record.steps], "run_problem": cert.run_problem or None,
        # the run's outcome as certify_captures judged it (`certify --run` hands it the same): a replay passes it
        # back, so the recorded verdict and the replayed one come from one judgement, the run's part included
        "run": run_info["outcome"],
        "statuses": statuses,
        "counts": {status: sum(1 for r in cert.results if r.status == status and r.requirement.level == "MUST")
                   for status in ("pass", "fail", "not_exercised", "out_of_scope", "expected_fail",
                                  "unexpected_pass", "stale_scope")},
        "_cert": cert,
    }


def _shown(arg: str, folder: Path) -> str:
    """An argument as the record shows it: paths in the install folder relative to it, the preload by its name."""
    if arg.startswith("file:"):
        return "acp-stdio-client.mjs (wirecheck.harness.jsonrpc_live.STDIO_CLIENT_PRELOAD)"
    return str(Path(arg).relative_to(folder)) if arg.startswith(str(folder)) else arg


def _sha256(path: Path) -> str | None:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m wirecheck.harness.jsonrpc_live", description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("reports/certify/live-jsonrpc"))
    parser.add_argument("--data", type=Path, default=DATA, help="where scope files are read and --record writes")
    parser.add_argument("--record", action="store_true", help="copy captures and outcomes into --data")
    parser.add_argument("--agents", action="store_true", help="also try the real ACP agents (recorded, optional)")
    parser.add_argument("--only", action="append", default=[], help="run only this subject (repeatable)")
    args = parser.parse_args(argv)
    subjects = [*SUBJECTS, *(AGENTS if args.agents else [])]
    if args.only:
        subjects = [s for s in subjects if s.name in args.only]
    closings: list[tuple[Closing, bool]] = []  # (the subject's closing verdict, whether it counts)
    with tempfile.TemporaryDirectory(prefix="wirecheck-live-contracts-") as temp:
        contracts = None
        for subject in subjects:
            if subject.contract.startswith("mcp@") and contracts is None:
                contracts = mcp_contracts(Path(temp))
            target = args.out / subject.name
            try:
                outcome = run_one(subject, target, contracts if subject.contract.startswith("mcp@") else None,
                                  args.data)
            except (RuntimeError, ContractError) as exc:  # a scenario or scope file that does not load: said, located
                print(f"== {subject.name}: not run: {exc}")
                closings.append((Closing(subject.name, "not run", 2, str(exc)), not subject.optional))
                continue
            cert = outcome.pop("_cert")
            print(f"== {subject.name} ({subject.package}@{outcome['version']}, {subject.contract}, role "
                  f"{subject.role}): {cert.verdict} — {cert.badge.message}")
            for step in outcome["steps"]:
                print(f"   step {step['index'] + 1} {step['action']:<11} {step['status']:<7} {step['detail']}")
            FORMATS["text"](cert, sys.stdout)
            (target / "outcome.json").write_text(json.dumps(outcome, indent=2) + "\n", encoding="utf-8")
            if args.record:
                keep = args.data / subject.name
                keep.mkdir(parents=True, exist_ok=True)
                shutil.copy(target / "capture.framed.ndjson", keep / "capture.framed.ndjson")
                (keep / "outcome.json").write_text(json.dumps(outcome, indent=2) + "\n", encoding="utf-8")
            closings.append((Closing(f"{subject.name} ({subject.package}@{outcome['version']})", cert.verdict,
                                     cert.exit_code, "" if cert.passed else f"{subject.contract} role {subject.role}: "
                                     f"{cert.gate_line}"), not subject.optional))
    for said, counts in closings:
        print(said.line() + ("" if counts else " [optional: not required]"))
    return worst(said.exit_code for said, counts in closings if counts)


if __name__ == "__main__":
    raise SystemExit(main())
