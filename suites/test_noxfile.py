"""`nox -s tests` runs on the oldest and the newest supported Python of the machine (noxfile.py): which ones it
picks, what it says when it finds one or leaves one out, WIRECHECK_PYTHONS, and the supported set, which is
pyproject's classifiers and starts where requires-python does. The noxfile is loaded with a stand-in for nox (the
test environment has no nox); the interpreters are given, except where the probe itself is under test."""

from __future__ import annotations

import importlib.util
import re
import sys
import tomllib
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def noxfile():
    def session(*args, **kwargs):
        return args[0] if args and callable(args[0]) else (lambda func: func)

    fake = types.ModuleType("nox")
    fake.options = types.SimpleNamespace()
    fake.session, fake.parametrize, fake.Session = session, lambda *a, **k: (lambda func: func), object
    saved = sys.modules.get("nox")
    sys.modules["nox"] = fake
    try:
        spec = importlib.util.spec_from_file_location("noxfile_under_test", ROOT / "noxfile.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        if saved is None:
            del sys.modules["nox"]
        else:
            sys.modules["nox"] = saved
    return module


def _it(noxfile, version: str, path: str | None = None, venv: bool = True):
    return noxfile.Interpreter(path or f"/opt/python{version}/bin/python3",
                               tuple(int(n) for n in version.split(".")), venv)


def test_the_oldest_and_the_newest_are_chosen_and_the_others_named(noxfile, monkeypatch):
    monkeypatch.delenv("WIRECHECK_PYTHONS", raising=False)
    found = [_it(noxfile, v) for v in ("3.11.2", "3.11.7", "3.12.1", "3.13.0")]
    chosen, ids, why = noxfile._chosen(found)
    assert [it.name for it in chosen] == ["3.11.2", "3.13.0"] and ids == ["oldest", "newest"]
    assert all(f"{v} (/opt/python{v}/bin/python3)" in why for v in ("3.11.2", "3.11.7", "3.12.1", "3.13.0"))


def test_one_python_runs_once_and_says_so(noxfile, monkeypatch):
    monkeypatch.delenv("WIRECHECK_PYTHONS", raising=False)
    chosen, ids, why = noxfile._chosen([_it(noxfile, "3.12.1")])
    assert [it.name for it in chosen] == ["3.12.1"] and ids == ["only"]
    assert "one supported Python found" in why and "run once" in why


def test_a_python_without_venv_is_left_out_and_named(noxfile, monkeypatch):
    """Debian's python3 without python3-venv: nox could not make its environment; the run says what it skipped and
    the package that brings it back."""
    monkeypatch.delenv("WIRECHECK_PYTHONS", raising=False)
    found = [_it(noxfile, "3.11.2", "/usr/bin/python3.11", venv=False), _it(noxfile, "3.12.1"),
             _it(noxfile, "3.13.0")]
    chosen, ids, why = noxfile._chosen(found)
    assert [it.name for it in chosen] == ["3.12.1", "3.13.0"] and ids == ["oldest", "newest"]
    assert "left out, no venv/ensurepip" in why and "apt install python3-venv" in why and "/usr/bin/python3.11" in why


def test_nothing_supported_found_runs_on_the_python_running_nox(noxfile, monkeypatch):
    monkeypatch.delenv("WIRECHECK_PYTHONS", raising=False)
    chosen, ids, why = noxfile._chosen([])
    assert ids == ["only"] and chosen[0].version == tuple(sys.version_info[:3]) and "run once" in why


def test_wirecheck_pythons_chooses_each_named_in_its_order(noxfile, monkeypatch):
    found = [_it(noxfile, v) for v in ("3.11.2", "3.12.1", "3.12.4", "3.13.0")]
    monkeypatch.setenv("WIRECHECK_PYTHONS", "3.12, 3.11.2 3.12.4")  # X.Y: its newest patch found; each once
    chosen, ids, why = noxfile._chosen(found)
    assert ids == ["3.12.4", "3.11.2"] and chosen[0].path == "/opt/python3.12.4/bin/python3"
    assert "chosen by WIRECHECK_PYTHONS=3.12 3.11.2 3.12.4" in why
    monkeypatch.setenv("WIRECHECK_PYTHONS", sys.executable)  # a path: probed
    chosen, ids, _ = noxfile._chosen(found)
    assert ids == [".".join(map(str, sys.version_info[:3]))] and Path(chosen[0].path) == Path(sys.executable).resolve()
    monkeypatch.setenv("WIRECHECK_PYTHONS", "3.9")
    with pytest.raises(SystemExit, match=r"WIRECHECK_PYTHONS names '3\.9', which is no Python here"):
        noxfile._chosen(found)


def test_the_probe_reads_an_interpreter_and_refuses_what_is_not_one(noxfile, tmp_path):
    it = noxfile._probe(sys.executable)
    assert it is not None and it.version == tuple(sys.version_info[:3])
    assert it.venv and Path(it.path) == Path(sys.executable).resolve()
    assert noxfile._probe(str(tmp_path / "no-such-python")) is None
    script = tmp_path / "python3"
    script.write_text("#!/bin/sh\necho 'pyenv: python3.99: command not found' >&2\nexit 127\n")
    script.chmod(0o755)
    assert noxfile._probe(str(script)) is None  # a pyenv shim naming no installed version


def test_the_supported_pythons_are_the_classifiers_and_start_at_requires_python(noxfile):
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    minors = sorted((int(a), int(b)) for c in project["classifiers"]
                    if (m := re.fullmatch(r"Programming Language :: Python :: (\d+)\.(\d+)", c))
                    for a, b in [m.groups()])
    assert minors == noxfile.SUPPORTED
    floor = re.fullmatch(r">=(\d+)\.(\d+)", project["requires-python"])
    assert floor and minors[0] == (int(floor[1]), int(floor[2]))
    assert minors == [(3, minor) for minor in range(minors[0][1], minors[-1][1] + 1)]  # no minor skipped
    assert minors[0] <= tuple(sys.version_info[:2]) <= minors[-1]  # the tests run on a supported Python


def test_a_run_of_the_tests_names_its_pythons_in_its_first_line(noxfile):
    """The README: the test command's first line names the Pythons found (it was the fourth, after nox's lines
    about the session's virtualenv): the noxfile prints it as nox loads it, for a run that includes the tests."""
    line = noxfile._announced(["nox", "-s", "tests"])
    assert line == f"nox > tests: {noxfile.WHY}"
    assert noxfile._announced(["nox"]) == line  # the default sessions include the tests
    assert noxfile._announced(["nox", "-s", "tests(newest)"]) == line
    assert noxfile._announced(["nox", "--session=tests(oldest)"]) == line
    assert noxfile._announced(["nox", "-s", "lint"]) is None and noxfile._announced(["nox", "-s", "bench"]) is None
    assert noxfile._announced(["nox", "-s", "lint", "--", "-s", "tests"]) is None  # after --: the session's own
    source = (ROOT / "noxfile.py").read_text()
    assert "print(_line, file=sys.stderr" in source  # printed at load, before any session's output
