"""cli/coercion.py gives every value it takes the result typer's own pydantic adapter gives (typer/_adapters.py),
and hands everything else to typer."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer import _coercion, core
from typer._click.exceptions import BadParameter
from typer._coercion import resolve_type_descriptor
from typer.models import ArgumentInfo, OptionInfo

from wirecheck.cli import coercion
from wirecheck.findings import Severity

coercion.install()  # the app does this on import; idempotent


def both(annotation, info, value, tmp_path):
    """(ours, typer's): each a value or the BadParameter message."""
    descriptor = resolve_type_descriptor(annotation, info)
    out = []
    for build in (core.build_runtime_param, _coercion.build_runtime_param):
        try:
            out.append(("value", build(descriptor)._coerce_value(value, param=None, ctx=None)))
        except BadParameter as exc:
            out.append(("error", exc.message))
    return out


def test_installed():
    assert core.build_runtime_param is not _coercion.build_runtime_param


@pytest.mark.parametrize(("annotation", "info", "value"), [
    (str, OptionInfo(), "text"), (str, OptionInfo(), ""), (str, OptionInfo(), "ünï\udcff"),
    (bool, OptionInfo(), True), (bool, OptionInfo(), False),
    (Path, ArgumentInfo(), "a.json"), (Path, ArgumentInfo(), ""), (Path, ArgumentInfo(), "-"),
    (Path, OptionInfo(exists=True), "missing.json"), (Path, OptionInfo(exists=True), "."),
    (Path, OptionInfo(exists=True, dir_okay=False), "."), (Path, OptionInfo(exists=True, file_okay=False), "f"),
    (Path, OptionInfo(resolve_path=True), "x/../y"),
    (list[str], ArgumentInfo(), ("a@1", "a@2")), (list[str], ArgumentInfo(), ()), (list[str], ArgumentInfo(), ["x"]),
    (int, OptionInfo(), 3), (int, OptionInfo(), "3"), (int, OptionInfo(), "0012"), (int, OptionInfo(min=1), "1"),
    (int, OptionInfo(min=1024), 32 << 20), (int, OptionInfo(max=5), "5"),
    (Severity, OptionInfo(), Severity.ERROR), (Severity, OptionInfo(), "warning"),
    (Severity, OptionInfo(case_sensitive=False), "WARNING"),
    # handed to typer: not a value a command line gives these annotations, or one it refuses
    (str, OptionInfo(), b"bytes"), (bool, OptionInfo(), "yes"), (bool, OptionInfo(), " "), (Path, OptionInfo(), b"p"),
    (list[str], ArgumentInfo(), "one"), (int, OptionInfo(min=1), "0"), (int, OptionInfo(min=1), 0),
    (int, OptionInfo(max=5), "6"), (int, OptionInfo(), "-3"), (int, OptionInfo(), " 3"), (int, OptionInfo(), "1_000"),
    (int, OptionInfo(), "x"), (int, OptionInfo(), "\u0663"), (int, OptionInfo(), 2.0),
    (int, OptionInfo(clamp=True, max=5), "9"),
    (Severity, OptionInfo(), "WARNING"), (Severity, OptionInfo(), "fatal"), (Severity, OptionInfo(), 1),
])
def test_same_as_typer(annotation, info, value, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "f").write_text("")
    ours, theirs = both(annotation, info, value, tmp_path)
    assert ours == theirs
    assert type(ours[1]) is type(theirs[1])


def test_the_light_path_is_taken(monkeypatch):
    """A str/Path/list[str]/bool value never builds typer's adapter (which imports pydantic)."""
    def refuse(descriptor):
        raise AssertionError("typer's adapter built")

    monkeypatch.setattr(_coercion, "build_runtime_param", refuse)  # install() wraps what typer would call
    monkeypatch.setattr(core, "build_runtime_param", refuse)
    coercion.install()
    for annotation, value in ((str, "x"), (Path, "y"), (list[str], ("a",)), (bool, True), (int, "7"),
                              (Severity, "info")):
        param = core.build_runtime_param(resolve_type_descriptor(annotation, OptionInfo()))
        assert param._coerce_value(value, param=None, ctx=None) in ("x", Path("y"), ["a"], True, 7, Severity.INFO)
    with pytest.raises(AssertionError, match="adapter built"):
        core.build_runtime_param(resolve_type_descriptor(int, OptionInfo()))._coerce_value("-1", None, None)


def test_a_command_runs(tmp_path):
    """End to end through typer: the values reach the command coerced."""
    from typer.testing import CliRunner

    app = typer.Typer()
    seen = {}

    @app.command()
    def cmd(paths: list[str] = typer.Argument(None), out: Path = typer.Option(None, "--out"),
            name: str = typer.Option("d", "--name"), flag: bool = typer.Option(False, "--flag/--no-flag")):
        seen.update(paths=paths, out=out, name=name, flag=flag)

    result = CliRunner().invoke(app, ["a", "b", "--out", "o.txt", "--flag"])
    assert result.exit_code == 0, result.output
    assert seen == {"paths": ["a", "b"], "out": Path("o.txt"), "name": "d", "flag": True}
