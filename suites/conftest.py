"""Shared test fixtures: the demo contract (suites/data/contracts) and capture writers."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, settings

from wirecheck.contracts import load_registry

# Hypothesis profiles, chosen with HYPOTHESIS_PROFILE: `ci` (the default: fast, derandomized, no example
# database, so a run is reproducible) and `thorough` (nightly: many more examples, random seeds).
settings.register_profile(
    "ci",
    max_examples=25,
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "thorough",
    max_examples=1000,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


# -- a fork while another thread runs fails the test it happened in (issue 42, 4) --------------------------------
# The child gets a copy of every lock another thread held at that moment, locked for good. Python 3.12 and later warn
# ("This process (pid=...) is multi-threaded, use of fork() may lead to deadlocks in the child"), but that warning
# cannot be made an error: CPython issues it after the fork and clears whatever the warnings filter raised, so a
# `filterwarnings = error:...` entry in pyproject.toml only hides it (tried: a test forking beside a thread passes).
# So every os.fork() of a test process counts its threads first, as CPython does (/proc/self/stat's num_threads,
# which counts the threads a library started in C too: xdist's I/O thread).
FORKS_BESIDE_THREADS: list[str] = []


def threads_at_fork() -> int:
    try:
        return int(Path("/proc/self/stat").read_text().rpartition(")")[2].split()[17])
    except (OSError, ValueError, IndexError):
        return threading.active_count()


def _note_fork_beside_threads() -> None:
    # subprocess runs these hooks too when given a preexec_fn (the tests' close a descriptor, then exec): not a fork
    # that goes on running Python, which is what CPython warns of
    if sys._getframe(1).f_code.co_name == "_execute_child":
        return
    threads = threads_at_fork()
    if threads > 1:
        names = ", ".join(thread.name for thread in threading.enumerate())
        FORKS_BESIDE_THREADS.append(f"os.fork() with {threads} threads running (Python's: {names})")


os.register_at_fork(before=_note_fork_beside_threads)


@pytest.fixture(autouse=True)
def no_fork_beside_threads():
    FORKS_BESIDE_THREADS.clear()
    yield
    forks, FORKS_BESIDE_THREADS[:] = FORKS_BESIDE_THREADS[:], []
    if forks:
        pytest.fail(f"{len(forks)} fork(s) while another thread ran, which may deadlock the child: {forks[0]}",
                    pytrace=False)


DATA = Path(__file__).parent / "data"
DEMO_CONTRACTS = DATA / "contracts"


@pytest.fixture(scope="session")
def demo_registry():
    return load_registry(DEMO_CONTRACTS)


@pytest.fixture(scope="session")
def demo(demo_registry):
    return demo_registry.load("demo@1.0.0")


@pytest.fixture
def write_lines(tmp_path):
    """Write messages (dicts or raw bytes/str lines) as a capture file; returns its path as str."""

    def write(lines, name: str = "capture.jsonl") -> str:
        path = tmp_path / name
        with path.open("wb") as handle:
            for line in lines:
                if isinstance(line, bytes):
                    handle.write(line)
                elif isinstance(line, str):
                    handle.write(line.encode())
                else:
                    handle.write(orjson.dumps(line) + b"\n")
        return str(path)

    return write


# -- programs wirecheck runs, faked ------------------------------------------------------------------------------

_FAKE = '''#!{python}
import json, os, subprocess, sys, time
here = {folder!r}
facts = {{"argv": sys.argv[1:], "pid": os.getpid(), "own_group": os.getpgrp() == os.getpid(),
          "own_session": os.getsid(0) == os.getpid(), "env": dict(os.environ), "cwd": os.getcwd()}}
with open(os.path.join(here, {name!r} + ".runs"), "a") as log:
    log.write(json.dumps(facts) + "\\n")
if os.path.exists(os.path.join(here, "hang")):
    child = subprocess.Popen(["sleep", "300"])
    with open(os.path.join(here, "hung.pids"), "w") as out:
        out.write(f"{{os.getpid()}} {{child.pid}}")
    time.sleep(300)
{behaviour}
'''


class FakePrograms:
    """Programs on PATH (`add`) or Python modules on PYTHONPATH (`module`, for `python -m NAME`) that record how
    they were run (`runs`: argv, whether they lead their own process group and session, their environment, their
    folder), then do `behaviour` (Python, `sys.argv` as given); with `hang()`, each starts `sleep 300` instead and
    sleeps (`hung`: both pids), to see a timeout end it and what it started."""

    def __init__(self, root: Path, monkeypatch):
        self.root = root
        self.bin = root / "bin"
        self.modules = root / "modules"
        self.bin.mkdir()
        self.modules.mkdir()
        monkeypatch.setenv("PATH", f"{self.bin}{os.pathsep}{os.environ.get('PATH', '')}")
        monkeypatch.setenv("PYTHONPATH", str(self.modules))

    def _script(self, name: str, behaviour: str) -> str:
        import sys

        return _FAKE.format(python=sys.executable, folder=str(self.root), name=name, behaviour=behaviour)

    def add(self, name: str, behaviour: str = "") -> Path:
        path = self.bin / name
        path.write_text(self._script(name, behaviour))
        path.chmod(0o755)
        return path

    def module(self, name: str, behaviour: str = "") -> None:
        package = self.modules / name
        package.mkdir()
        (package / "__init__.py").write_text("")
        (package / "__main__.py").write_text(self._script(name, behaviour).split("\n", 1)[1])

    def runs(self, name: str) -> list[dict]:
        import json

        log = self.root / f"{name}.runs"
        return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []

    def hang(self) -> None:
        (self.root / "hang").touch()

    def assert_hung_and_ended(self) -> None:
        """The hanging fake ran, started its child, and both are gone: the timeout ended the whole group."""
        pids = [int(pid) for pid in (self.root / "hung.pids").read_text().split()]
        assert len(pids) == 2 and not any(_alive(pid) for pid in pids), pids

    @staticmethod
    def assert_standard(facts: dict) -> None:
        """Run as wirecheck runs every program: its own process group and session, HOME, XDG_CONFIG_HOME and TMPDIR
        in one scratch folder (wirecheck.programs.Scratch, `wirecheck-run-*`) removed once the run is over, nothing
        of wirecheck's environment but what is passed."""
        import tempfile

        env = facts["env"]
        assert facts["own_group"] and facts["own_session"], facts
        home = Path(env["HOME"])
        assert home.parent.name.startswith("wirecheck-run-") and home.parent.parent == Path(tempfile.gettempdir())
        assert Path(env["XDG_CONFIG_HOME"]).parent == home.parent and Path(env["TMPDIR"]).parent == home.parent
        assert home != Path.home() and not home.parent.exists()
        assert "WIRECHECK_TEST_PRIVATE" not in env


def _alive(pid: int) -> bool:
    """The process exists and is not a zombie (Linux /proc)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


@pytest.fixture
def fake_programs(tmp_path, monkeypatch) -> FakePrograms:
    monkeypatch.setenv("WIRECHECK_TEST_PRIVATE", "not for the program")
    folder = tmp_path / "fakes"
    folder.mkdir()
    return FakePrograms(folder, monkeypatch)


# -- every SARIF log wirecheck writes is valid SARIF 2.1.0 (the OASIS schema, suites/data/sarif/SOURCE.md) ---------

SARIF_SCHEMA = DATA / "sarif" / "sarif-schema-2.1.0.json"


@pytest.fixture(scope="session")
def sarif_errors():
    """`errors(text)`: what the OASIS SARIF 2.1.0 schema finds wrong with a SARIF log (JSON text), formats asserted
    (an `artifactLocation.uri` must be a URI reference: no raw space, `|`, `<>`, line feed or control character)."""
    import jsonschema

    validator = jsonschema.Draft4Validator(orjson.loads(SARIF_SCHEMA.read_bytes()),
                                           format_checker=jsonschema.FormatChecker())

    def errors(text: str) -> list[str]:
        log = orjson.loads(text)
        return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(log)]
    return errors


@pytest.fixture(autouse=True)
def every_sarif_log_is_checked(monkeypatch, sarif_errors):
    """Every SARIF log a test has wirecheck write in this process (validate's and diff's writers, however reached:
    the CLI, FORMATS, the report modules) is checked against the schema as it is written: a test that makes one
    makes it valid, or fails."""
    import importlib
    import io

    for name in ("wirecheck.report.sarif", "wirecheck.diff.report.sarif"):
        module = importlib.import_module(name)

        def checked(run, out, *args, _write=module.write, _name=name, **kwargs):
            written = io.StringIO()
            _write(run, written, *args, **kwargs)
            found = sarif_errors(written.getvalue())
            assert not found, f"{_name} wrote SARIF its schema refuses: {found[:5]}"
            out.write(written.getvalue())

        monkeypatch.setattr(module, "write", checked)
