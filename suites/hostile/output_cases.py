"""Where wirecheck writes (issue 41, 6-8): a symbolic link at an output's path (`-o`, a fixed name in `--out-dir`,
`--capture-out`) is replaced, its target never written through; a link that loops is refused; a name that becomes a
path (`import schema --version`, `--package`) is checked before anything is written; a full disk leaves nothing
behind; a scenario's file name with a NUL is refused at load. Registered with hostile_cases.case and run by the one
runner (test_hostile.py): nothing outside the named output is written, every exit a documented code.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hostile_cases import FAKE, SUITES, Run, Workspace, case, message_schema, stderr_says

MCP = SUITES / "importer" / "data" / "mcp-2025-06-18"
VICTIM = "the user's own file, which no report may overwrite\n"


def _victim(ws: Workspace, name: str = "victim.txt") -> Path:
    path = ws.path(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(VICTIM)
    return path


def _link(ws: Workspace, name: str, target: Path) -> str:
    link = ws.path(name)
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target)
    return str(link)


def _replaced(*links: str) -> Callable[[Any], None]:
    """Each link is now a file wirecheck wrote, and every victim is as it was."""
    def check(finished: Any) -> None:
        for link in links:
            path = Path(link)
            assert path.is_file() and not path.is_symlink(), f"{link} is still a link"
        victims = sorted(finished.root.rglob("victim*.txt"))
        assert victims and all(v.read_text() == VICTIM for v in victims), [v.read_text()[:80] for v in victims]
    return check


def _framed(ws: Workspace) -> str:
    return ws.write("run.framed.ndjson", b'{"wirecheck_capture": 1, "framing": "directed"}\n'
                    b'{"from": "cli", "message": {"type": "keep_alive"}}\n')


@case("validate", "-o onto a symbolic link to the user's file replaces the link, not the file", codes={0})
def _(ws: Workspace) -> Run:
    link = _link(ws, "reports/report.json", _victim(ws))
    return Run(["validate", "demo@1.0.0", ws.lines("ok.jsonl", [{"type": "hello", "version": "1.0.0"}]), "--format",
                "json", "-o", link], expect=_replaced(link))


@case("certify", "--out-dir whose fixed names are symbolic links (certification.txt committed as one)", codes={0, 1, 4})
def _(ws: Workspace) -> Run:
    from wirecheck.certify.report import SUFFIXES

    links = [_link(ws, f"out/certification{suffix}", _victim(ws, f"victim{n}.txt"))
             for n, suffix in enumerate(SUFFIXES.values())]
    links.append(_link(ws, "out/badge.svg", _victim(ws, "victim-badge.txt")))
    return Run(["certify", "fakeqoder@1.0.0", _framed(ws), "--role", "cli", "--out-dir", str(ws.path("out"))],
               contracts=FAKE, expect=_replaced(*links))


@case("certify", "--run --capture-out a symbolic link, and the model HAR beside it", codes={0, 1, 4, 5})
def _(ws: Workspace) -> Run:
    capture = _link(ws, "out/run.framed.ndjson", _victim(ws))
    har = _link(ws, "out/run.model.har", _victim(ws, "victim-har.txt"))
    scenario = ws.write("scenario.yaml", "scenario: 1\nroles: {harness: sdk, implementation: cli}\ntimeout: 30\n"
                                         "model: {api: openai-chat, turns: [{text: hi}]}\n"
                                         "steps:\n  - wait_exit: {timeout: 10}\n")
    return Run(["certify", "fakeqoder@1.0.0", "--run", "--scenario", scenario, "--capture-out", capture, "--",
                sys.executable, "-c", "print('{\"type\": \"keep_alive\"}')"], contracts=FAKE,
               expect=_replaced(capture, har))


@case("stub", "--out-dir whose stub.har is a symbolic link", codes={0, 1, 4, 5})
def _(ws: Workspace) -> Run:
    har = _link(ws, "out/stub.har", _victim(ws))
    return Run(["stub", "xopc@0.0.253", "--max-seconds", "1", "--out-dir", str(ws.path("out")), "--contracts",
                str(SUITES.parent / "contracts")], expect=_replaced(har))


@case("diff-schemas", "-o onto a symbolic link to the user's file", codes={0, 1})
def _(ws: Workspace) -> Run:
    link = _link(ws, "diff.sarif", _victim(ws))
    schemas = [ws.write(name, '{"type": "string"}') for name in ("old.json", "new.json")]
    return Run(["diff-schemas", *schemas, "--format", "sarif", "-o", link], expect=_replaced(link))


@case("validate", "-o onto a loop of symbolic links (a RuntimeError on Python 3.11, exit 3)", codes={2})
def _(ws: Workspace) -> Run:
    ws.path("a.json").symlink_to(ws.path("b.json"))
    ws.path("b.json").symlink_to(ws.path("a.json"))
    return Run(["validate", "demo@1.0.0", ws.lines("ok.jsonl", [{"type": "hello", "version": "1.0.0"}]), "-o",
                str(ws.path("a.json"))], expect=stderr_says("a.json: cannot write: is a loop of symbolic links"))


@case("fuzz", "-o into a folder that is a loop of symbolic links", codes={2})
def _(ws: Workspace) -> Run:
    ws.path("a").symlink_to(ws.path("b"))
    ws.path("b").symlink_to(ws.path("a"))
    return Run(["fuzz", "demo@1.0.0", "--count", "1", "--seed", "1", "-o", str(ws.path("a") / "corpus.jsonl")],
               expect=stderr_says("cannot write: its folder is a loop of symbolic links"))


# -- import schema: names that become paths, a full disk ----------------------------------------------------------


def _import(ws: Workspace, package: str = "mcp", version: str = "2025-06-18") -> list[str]:
    return ["import", "schema", str(MCP / "schema.json"), "--profile", "json-rpc", "--package", package,
            "--version", version, "-o", str(ws.path("out")), "--mapping", str(MCP / "mapping.yaml")]


def _nothing_written(*also: str) -> Callable[[Any], None]:
    def check(finished: Any) -> None:
        assert not (finished.root / "out").exists(), sorted(map(str, (finished.root / "out").rglob("*")))
        for name in also:
            assert sorted(p.name for p in (finished.root / name).iterdir()) == ["victim.txt"], name
        assert _victims_intact(finished.root)
    return check


def _victims_intact(root: Path) -> bool:
    return all(v.read_text() == VICTIM for v in root.rglob("victim*.txt"))


@case("import", "import schema --version /any/dir writes nothing there (five files were, then refused)", codes={2})
def _(ws: Workspace) -> Run:
    _victim(ws, "any/dir/victim.txt")
    return Run(_import(ws, version=str(ws.path("any/dir"))), expect=lambda f: (
        stderr_says("--version")(f), _nothing_written("any/dir")(f)))


@case("import", "import schema --version ../../X is refused before anything is written",
      codes={2})
def _(ws: Workspace) -> Run:
    return Run(_import(ws, version="../../X"), expect=lambda f: (stderr_says("--version '../../X'")(f),
                                                                  _nothing_written()(f)))


@case("import", "import schema --package ../evil", codes={2})
def _(ws: Workspace) -> Run:
    return Run(_import(ws, package="../evil"), expect=lambda f: (stderr_says("--package '../evil'")(f),
                                                                  _nothing_written()(f)))


@case("import", "import schema -o onto a full disk: a usage error, no folder left (exit 3, an empty evil/1.0.0/)",
      codes={2})
def _(ws: Workspace) -> Run:
    ws.path("tmp").mkdir()

    def check(finished: Any) -> None:
        stderr_says("cannot write")(finished)
        _nothing_written()(finished)
        assert list((finished.root / "tmp").iterdir()) == [], "a trial copy left in TMPDIR"
    return Run(_import(ws, package="evil", version="1.0.0"), env={"TMPDIR": str(ws.path("tmp"))}, file_size=8192,
               expect=check)


# -- a scenario's files: a name with a NUL ------------------------------------------------------------------------


@case("certify", "--run with a NUL in a scenario's files: key (a ValueError, its wirecheck-run-* folder left)",
      codes={2})
def _(ws: Workspace) -> Run:
    ws.path("tmp").mkdir()
    scenario = ws.write("scenario.yaml", 'scenario: 1\nroles: {harness: sdk, implementation: cli}\n'
                                         'files: {"work/a\\0b": text}\nsteps:\n  - wait_exit: {timeout: 5}\n')

    def check(finished: Any) -> None:
        stderr_says("and no NUL")(finished)
        assert list((finished.root / "tmp").iterdir()) == [], "a scratch folder left in TMPDIR"
    return Run(["certify", "fakeqoder@1.0.0", "--run", "--scenario", scenario, "--out-dir", str(ws.path("out")), "--",
                "true"], contracts=FAKE, env={"TMPDIR": str(ws.path("tmp"))}, expect=check)


@case("validate", "-o onto a symbolic link to nothing: the link is replaced, nothing made where it pointed",
      codes={0})
def _(ws: Workspace) -> Run:
    contracts = ws.contract("hostile", {"1.0.0": {"Msg": message_schema({})}})
    return Run(["validate", "hostile@1.0.0", ws.lines("c.jsonl", [{"type": "msg"}]), "-o",
                _link(ws, "report.txt", ws.path("elsewhere") / "made.txt")], contracts=contracts,
               expect=lambda f: not (f.root / "elsewhere").exists() and not (f.root / "report.txt").is_symlink())
