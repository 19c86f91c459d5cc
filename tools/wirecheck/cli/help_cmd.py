"""`wirecheck help TOPIC`: the documentation shipped inside the package, readable wherever wirecheck is installed
(error messages point here instead of at paths that exist only in a source checkout)."""

from __future__ import annotations

import typer

from wirecheck.cli.common import fail_usage

# topic → (package, file) of the README it prints
TOPICS = {
    "captures": ("wirecheck.capture", "README.md", "capture forms: how each is recognised, bad input"),
    "contracts": ("wirecheck._contracts", "README.md", "the contract format: registry, catalogs, schemas"),
    "diff": ("wirecheck.diff", "README.md", "breaking-change rules, waivers, --against"),
    "certify": ("wirecheck.certify", "README.md", "requirement sets, certification, live runs, stub and probe"),
    "fuzz": ("wirecheck.fuzz", "README.md", "generated messages, mutants, corpora, consumer fuzzing"),
}


def topic_text(topic: str) -> str:
    from importlib.resources import files

    package, name, _ = TOPICS[topic]
    if package == "wirecheck._contracts":
        from wirecheck.contracts.loader import bundled_contracts_dir

        return (bundled_contracts_dir() / name).read_text(encoding="utf-8")
    return files(package).joinpath(name).read_text(encoding="utf-8")


def register(app: typer.Typer) -> None:
    @app.command("help")
    def help_command(topic: str | None = typer.Argument(None, help=f"One of: {', '.join(TOPICS)}.")) -> None:
        """Print a part of the documentation shipped with wirecheck: `wirecheck help captures`."""
        if topic is None:
            for name, (_, _, what) in TOPICS.items():
                typer.echo(f"wirecheck help {name:<10} {what}")
            return
        if topic not in TOPICS:
            raise fail_usage(f"no help topic {topic!r}; topics: {', '.join(TOPICS)}")
        typer.echo(topic_text(topic), nl=False)
