"""`wirecheck fuzz` (a reproducible NDJSON corpus) and `wirecheck fuzz-consumer` (feed it to a real consumer)."""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
import typer

from wirecheck import exitcodes
from wirecheck.cli.common import CONTRACTS_OPTION, fail_usage, guarded, registry


def register(app: typer.Typer) -> None:
    @app.command("fuzz")
    def fuzz_command(
        spec: str = typer.Argument(..., metavar="PACKAGE@VERSION", help="e.g. qoder-agent-sdk@1.0.23"),
        kind: list[str] = typer.Option([], "--kind", "-k", help="Only this message kind (repeatable)."),
        count: int = typer.Option(10, "--count", "-n", min=1, help="Messages per kind."),
        invalid: bool = typer.Option(False, "--invalid", help="Write labelled mutants instead of valid messages."),
        seed: int = typer.Option(0, "--seed", help="Same seed, same corpus."),
        messages_only: bool = typer.Option(
            False, "--messages-only", help="One bare message per line (a plain NDJSON capture), no envelope."
        ),
        output: Path | None = typer.Option(None, "--output", "-o", help="Write here (default stdout)."),
        contracts: Path | None = CONTRACTS_OPTION,
    ) -> None:
        """Write a reproducible corpus of generated messages as NDJSON, one per line.

        Each line is {"kind", "expect": "accept"|"reject", "message", "breaks"?: {"keyword", "pointer",
        "description"}}: valid messages (every one passed the validator) or, with --invalid, mutants that break
        exactly the one labelled constraint. For HTTP kinds the message is the body.
        """
        from wirecheck.fuzz.corpus import corpus, fuzzable_kinds

        release = guarded(lambda: registry(contracts).load(spec))
        try:
            fuzzable_kinds(release, kind)
        except KeyError as exc:
            known = ", ".join(k.id for k in fuzzable_kinds(release))
            raise fail_usage(f"{exc.args[0]}; fuzzable kinds: {known}") from None
        handle = sys.stdout.buffer if output is None else output.open("wb")
        try:
            for entry in corpus(release, kinds=kind, count=count, seed=seed, invalid=invalid):
                line = entry.message if messages_only else entry.as_json()
                handle.write(orjson.dumps(line) + b"\n")
        finally:
            if output is not None:
                handle.close()
        raise typer.Exit(exitcodes.CONFORMS)
