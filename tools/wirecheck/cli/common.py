"""What every command shares: finding the contracts, turning ContractErrors into exit code 2."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import typer

from wirecheck import exitcodes
from wirecheck.findings import printable

if TYPE_CHECKING:
    from wirecheck.contracts import PackageRegistry

T = TypeVar("T")

CONTRACTS_OPTION = typer.Option(
    None, "--contracts", envvar="WIRECHECK_CONTRACTS",
    help="Contracts folder(s), separated by ':' (';' on Windows); they replace the installed contracts (bundled and "
    "packs), or add to them with a leading or trailing ':' (default: the installed contracts).")
JOBS_OPTION = typer.Option(
    None, "--jobs", "-j", min=1, max=1024,
    help="Worker processes (default: the CPUs this process may use; a small run stays in one process; at most 4 "
    "per CPU and one per capture or part of one). Many "
    "captures are shared out whole; one large NDJSON capture, plain or framed, is split at line ends, workers "
    "checking every message and this process pairing requests with answers in order. A HAR or a JSON document is "
    "one JSON value (a HAR's entries are read in startedDateTime order): it is checked whole, by one worker.")
WHOLE_OPTION = typer.Option(
    False, "--whole",
    help="Each capture holds everything its program wrote, from start to end: what must have happened by its end "
         "(an answer, a result, a run's end) is judged, as on a framed capture.")
# certification options, shared by `certify`, `stub` and `probe`
REQUIREMENTS_OPTION = typer.Option(None, "--requirements",
                                   help="Requirement set (default: the release's requirements.yaml).")
BASELINE_OPTION = typer.Option(
    None, "--scope", "--baseline",
    help="Scope file (YAML): expected_failures (id + reason) and out_of_scope (id + reason + evidence): what this "
         "run is known not to show. A stale entry fails the run.")
FAIL_ON_OPTION = typer.Option("MUST", "--fail-on", help="MUST | SHOULD | MAY: lowest level that fails.")


def fail_usage(message: str) -> typer.Exit:
    typer.echo(f"wirecheck: error: {message}", err=True)
    return typer.Exit(exitcodes.USAGE)


def bad_choice(option: str, value: str, choices: Iterable[str]) -> typer.Exit:
    """The one wording of a value an option does not take: `--format xml: expected one of text, json`."""
    return fail_usage(f"{option} {printable(value)}: expected one of {', '.join(choices)}")


@contextmanager
def output_file(path: Path, binary: bool = False) -> Iterator[Any]:
    """A report file opened for writing (output_files: in place only once whole; a named pipe waited for its
    reader). A path that cannot be written (a folder, a file where a folder should be, a full disk, a pipe nobody
    reads) is a usage error naming it, whether opening or writing fails; the file that was there is left as it was."""
    from wirecheck.output_files import writing

    with writing_errors_as_usage(), writing(path, binary=binary) as handle:
        yield handle


@contextmanager
def writing_errors_as_usage() -> Iterator[None]:
    """An output that cannot be written (output_files.Unwritable) as a usage error naming it."""
    from wirecheck.output_files import Unwritable

    try:
        yield
    except Unwritable as exc:
        raise fail_usage(str(exc)) from None


def output_folder(path: Path) -> Path:
    """A folder reports will be written to, made now: one that cannot be (a file in the way, no permission) is a
    usage error before any work starts, not an internal error after it."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise fail_usage(f"{path}: cannot write: it is a file, not a folder") from None
    except OSError as exc:
        raise fail_usage(f"{path}: cannot write: {exc.strerror or exc}") from None
    return path


def parallel_plan(jobs: int | None) -> Any:
    """`-j N` as a check.parallel.Plan: N workers used whatever the run's size; none given, every CPU where it
    pays."""
    from wirecheck.check.parallel import Plan, available_cpus

    return Plan(jobs=jobs, forced=True) if jobs is not None else Plan(jobs=available_cpus())


def check_captures_exist(paths: list[str]) -> None:
    """A usage error naming every capture that cannot be read (missing, a directory, a device, a named pipe, a
    symlink loop: capture.capture_problem); `-` is stdin, and a pipe such as `<(cmd)` is read like a file."""
    from wirecheck.capture import capture_problem

    problems = [problem for problem in map(capture_problem, paths) if problem is not None]
    if problems:
        raise fail_usage("; ".join(problems))


@contextmanager
def contract_errors_as_usage() -> Iterator[None]:
    from wirecheck.contracts import ContractError
    from wirecheck.contracts.errors import located

    try:
        yield
    except ContractError as exc:
        if len(exc.problems) == 1 and not exc.problems[0].file:  # a user's request, not a file in contracts/
            raise fail_usage(exc.problems[0].message) from None
        typer.echo(f"wirecheck: {getattr(exc, 'what', 'contract')} error:", err=True)
        for problem in located(exc.problems):
            typer.echo(f"  {problem}", err=True)
        raise typer.Exit(exitcodes.USAGE) from None


def contracts_spec(contracts: Path | None) -> str | None:
    """--contracts as load_registry reads it: each folder of the list made absolute; an empty entry (the installed
    contracts) kept; None for the installed contracts alone."""
    return None if contracts is None else os.pathsep.join(
        str(Path(entry).resolve()) if entry else "" for entry in str(contracts).split(os.pathsep))


def registry(contracts: Path | None) -> PackageRegistry:
    from wirecheck.contracts import load_registry

    with contract_errors_as_usage():
        return load_registry(contracts_spec(contracts))


def release_source(contracts: Path | None, spec: str) -> Any:
    """How worker processes (-j, --dask) load the release the command loaded (check.parallel.ReleaseSource)."""
    from wirecheck.check.parallel import ReleaseSource

    return ReleaseSource(contracts_spec(contracts), spec)


def guarded(fn: Callable[[], T]) -> T:
    with contract_errors_as_usage():
        return fn()


def result_line(text: str, err: bool = False) -> None:
    """The one-line result (verdict, counts, where the report went) of a run whose report went to a file: shown on
    the terminal (stderr when stdout carries the report), never a failure of the run (a closed stdout skips it)."""
    stream = sys.stderr if err else sys.stdout
    if stream is None:
        return
    try:
        stream.write(text + "\n")
        stream.flush()
    except (OSError, ValueError):
        pass
