"""The `wirecheck` command: a root typer app; each command group lives in its own module and registers itself."""

from __future__ import annotations

import contextlib
import errno
import importlib
import io
import os
import sys
from typing import Any, NoReturn

import typer

from wirecheck import __version__, exitcodes
from wirecheck.cli import coercion, help_words
from wirecheck.encoding import ERRORS, text_writer

coercion.install()  # str/Path/list[str] values coerced as typer does, without pydantic (cli/coercion.py)
help_words.install()  # `TEXT`, `PATH`, `[SPEC]...` in --help, not `<str>`, `[[SPEC...]]...` (cli/help_words.py)

# Each module defines `register(app: typer.Typer) -> None`; in this order in `wirecheck --help`.
COMMAND_MODULES = [
    "wirecheck.cli.contracts_cmd",
    "wirecheck.cli.validate_cmd",
    "wirecheck.cli.fuzz_cmd",
    "wirecheck.cli.diff_cmd",
    "wirecheck.cli.certify_cmd",
    "wirecheck.cli.stub_cmd",
    "wirecheck.cli.import_cmd",
    "wirecheck.cli.help_cmd",
]
# command name → the module that registers it, written out so that running one command imports its module alone
# (the others cost ~25 M instructions); suites/cli/test_startup.py holds it equal to what each module registers
OWNER: dict[str, str] = {
    "contracts": "wirecheck.cli.contracts_cmd", "show": "wirecheck.cli.contracts_cmd",
    "validate": "wirecheck.cli.validate_cmd",
    "fuzz": "wirecheck.cli.fuzz_cmd", "fuzz-consumer": "wirecheck.cli.fuzz_cmd",
    "diff": "wirecheck.cli.diff_cmd", "diff-schemas": "wirecheck.cli.diff_cmd", "rules": "wirecheck.cli.diff_cmd",
    "requirements": "wirecheck.cli.certify_cmd", "certify": "wirecheck.cli.certify_cmd",
    "stub": "wirecheck.cli.stub_cmd", "probe": "wirecheck.cli.stub_cmd",
    "import": "wirecheck.cli.import_cmd",
    "help": "wirecheck.cli.help_cmd",
}
# commands whose input is read whole before a diff starts: the collector's start-up pause (lazy.py) lasts until the
# diff engine starts, which ends it; any other command ends it before it parses its arguments
DIFF_COMMANDS = frozenset({"diff", "diff-schemas"})

def _new_app() -> typer.Typer:
    new = typer.Typer(
        name="wirecheck",
        help="Protocol conformance and contract diff for the wire protocols of AI coding-agent runtimes.\n\n"
        "Exit codes: 0 conforms, 1 findings (non-conforming / breaking), 2 usage or contract error, 3 internal "
        "error (a bug in wirecheck), 4 inconclusive (validate: nothing recognised, or below --min-coverage; certify: "
        "incomplete, requirements neither exercised nor declared out of scope), 5 run "
        "failed (a live run heard nothing from the program or platform under test: no verdict), 6 undecided (diff: "
        "a change nobody could decide for a protected reader, no break proven; --undecided pass accepts it).",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,  # help as written: rich markup eats `[pack ...]`, Markdown eats `<version>`
    )
    new.callback()(_root)
    return new


def _version(value: bool) -> None:
    if value:
        typer.echo(f"wirecheck {__version__}")
        raise typer.Exit()


def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version."),
) -> None:
    pass


def _names(app: typer.Typer) -> set[str]:
    return {c.name for c in app.registered_commands if c.name} | {g.name for g in app.registered_groups if g.name}


def _app_of(modules: list[str]) -> typer.Typer:
    new = _new_app()
    for module in modules:
        importlib.import_module(module).register(new)
    return new


app: typer.Typer  # every command, built when first asked for (`from wirecheck.cli.app import app`, --help)


def _whole_app() -> typer.Typer:
    if "app" not in globals():
        globals()["app"] = _app_of(COMMAND_MODULES)
    return globals()["app"]


def __getattr__(name: str) -> Any:
    if name == "app":
        return _whole_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _app_for(argv: list[str]) -> typer.Typer:
    """The app that runs `argv`: when it starts with a command's name, one that holds only that command's module.
    typer builds every registered command (its parameters, from each function's signature) before it runs one:
    15 commands cost ~15 ms of every call (issue 30, 6). Anything else (`--help`, `--version`, a typo that wants
    the command list, nothing) gets the whole app."""
    module = OWNER.get(argv[0]) if argv else None
    if module is None:
        return _whole_app()
    return _app_of([module])


# errnos of a write that cannot be done (a full disk): on standard output, the user's redirection, not a bug
_WRITE_FAILURES = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO}


class _ReaderMayLeave(io.RawIOBase):
    """Standard output whose reader may stop reading (`wirecheck validate ... | head`): what it no longer wants is
    dropped and the run goes on, so the exit code is still the verdict (click would exit 1, "findings", on the
    broken pipe). Other write failures (a full disk) still raise."""

    def __init__(self, fd: int):
        self._fd, self._reader_left = fd, False

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return os.isatty(self._fd)

    def write(self, data: Any) -> int:
        if not self._reader_left:
            try:
                return os.write(self._fd, data)
            except BrokenPipeError:
                self._reader_left = True
        return len(data)


class _StdoutClosed(OSError):
    """Writing to a standard output the caller closed (only _Closed raises it: any other EBADF is a bug)."""


class _Closed(io.RawIOBase):
    """Standard output when the caller closed it (`wirecheck ... >&-`; Python then sets sys.stdout to None): the
    first write fails as writing to a closed descriptor does, which main() reports as a usage error (later ones,
    such as the flush at exit, are dropped). A run that writes only to --output files never notices."""

    said = False

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        if not self.said:
            self.said = True
            raise _StdoutClosed(errno.EBADF, "standard output is closed")
        return len(data)


def _pipe_tolerant_stdout() -> None:
    from wirecheck.findings import printable_stream

    if sys.stderr is None:  # closed too (2>&-): messages have nowhere to go, and must not crash the run
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 (lives as long as the process)
    # Standard error is for people: every message there (an error naming a file, a program's last words, a method
    # an import could not place) goes through `printable`, so a name holding ESC or BEL is shown, not obeyed by the
    # terminal ("capture not found: \x1b]0;..." retitled it). Standard output is left as it is: it carries JSON and
    # SARIF reports; the human formats on it write through printable_stream themselves.
    sys.stderr = printable_stream(sys.stderr)
    if sys.stdout is None:
        sys.stdout = text_writer(io.BufferedWriter(_Closed()))
        return
    out = sys.stdout
    try:
        fd = out.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (an embedding host's stream): left as it is
        with contextlib.suppress(AttributeError, ValueError):
            out.reconfigure(errors=ERRORS)  # type: ignore[union-attr]
        return
    out.flush()
    # UTF-8 whatever the locale says, as every report file is (a capture's text is Unicode, not the locale's)
    sys.stdout = text_writer(io.BufferedWriter(_ReaderMayLeave(fd)), line_buffering=bool(out.line_buffering))


def main() -> None:
    from wirecheck import lazy

    # this process runs one command, then exits (diff/engine.py freezes what a diff allocated instead of collecting
    # it); put back afterwards for a caller that goes on (a test calling main)
    previous, lazy.one_command_process = lazy.one_command_process, True
    try:
        _main()
    finally:
        lazy.one_command_process = previous
        lazy.start_up_over()


def _main() -> None:
    from wirecheck import lazy

    _pipe_tolerant_stdout()
    try:
        try:
            argv = sys.argv[1:]
            command = _app_for(argv)
            if not argv or argv[0] not in DIFF_COMMANDS:  # the collector runs while the command reads its input
                lazy.start_up_over()
            command(standalone_mode=True)
        finally:
            sys.stdout.flush()  # a full disk is found here, while the handlers below can still say so
    except SystemExit as exc:
        # click uses 2 for usage errors already; keep every other code as the command set it
        raise SystemExit(exc.code if exc.code is not None else exitcodes.CONFORMS) from None
    except KeyboardInterrupt:
        sys.exit(130)
    except OSError as exc:
        if exc.errno not in _WRITE_FAILURES and not isinstance(exc, _StdoutClosed):
            _internal_error(exc)
        # Files wirecheck writes go through output_file (a usage error naming the path): this is standard output
        # (`wirecheck validate ... > /dev/full`), the same error without a path.
        with contextlib.suppress(OSError):  # and no second failure when Python flushes it at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        print(f"wirecheck: cannot write to standard output: {exc.strerror or exc}", file=sys.stderr)
        sys.exit(exitcodes.USAGE)
    except Exception as exc:  # a bug in wirecheck: never a verdict, so never exit 1 and never a bare traceback
        _internal_error(exc)


def _internal_error(exc: Exception) -> NoReturn:
    if os.environ.get("WIRECHECK_DEBUG"):  # the traceback, and still the code that says "a bug", never "findings"
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    print(f"wirecheck: internal error: {type(exc).__name__}: {exc}\n"
          "  This is a bug in wirecheck, not a finding about your input. Rerun with WIRECHECK_DEBUG=1 for the "
          "traceback, and report it.", file=sys.stderr)
    sys.exit(exitcodes.INTERNAL)
