"""What every command shares: finding the contracts, turning ContractErrors into exit code 2."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import typer

from wirecheck import exitcodes
from wirecheck.contracts import ContractError, PackageRegistry, load_registry

T = TypeVar("T")

CONTRACTS_OPTION = typer.Option(
    None, "--contracts", envvar="WIRECHECK_CONTRACTS", help="Contracts folder (default: the bundled contracts/)."
)
# certification options, shared by `certify`, `stub` and `probe`
REQUIREMENTS_OPTION = typer.Option(None, "--requirements",
                                   help="Requirement set (default: the release's requirements.yaml).")
BASELINE_OPTION = typer.Option(None, "--baseline", help="Expected failures (YAML: id + reason).")
FAIL_ON_OPTION = typer.Option("MUST", "--fail-on", help="MUST | SHOULD | MAY: lowest level that fails.")


def fail_usage(message: str) -> typer.Exit:
    typer.echo(f"wirecheck: error: {message}", err=True)
    return typer.Exit(exitcodes.USAGE)


@contextmanager
def contract_errors_as_usage() -> Iterator[None]:
    try:
        yield
    except ContractError as exc:
        typer.echo("wirecheck: contract error:", err=True)
        for problem in exc.problems:
            typer.echo(f"  {problem}", err=True)
        raise typer.Exit(exitcodes.USAGE) from None


def registry(contracts: Path | None) -> PackageRegistry:
    with contract_errors_as_usage():
        return load_registry(contracts.resolve() if contracts else None)


def guarded(fn: Callable[[], T]) -> T:
    with contract_errors_as_usage():
        return fn()
