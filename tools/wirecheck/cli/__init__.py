"""Thin command-line shell over the pure core. One module per command group."""


def main() -> None:
    """The `wirecheck` process (its console script, `python -m wirecheck`): the cycle collector is paused before
    anything is imported (lazy.pause_collector_for_start_up), then cli.app runs the command."""
    from wirecheck import lazy

    lazy.pause_collector_for_start_up()
    from wirecheck.cli.app import main as run

    run()
