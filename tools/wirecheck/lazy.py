"""Start-up discipline: `wirecheck --help` imports typer and the cli modules, and nothing heavy.

Every `wirecheck` call pays for what it imports before it does anything (pre-commit hooks and CI steps call it again
and again), so a module on the path of `wirecheck --help` imports at its top only the standard library, typer and
the light layer-1 modules (`exitcodes`, `findings`, `limits`, this one). Everything else (the contracts loader,
jsonschema, jsonschema-rs, pydantic, hypothesis, rich, the engine, the readers) is imported inside the function that
needs it. What an option needs while the command is being declared (the names of the report formats, a default)
comes from a light place: `LazyWriters` lists the formats by name and imports a writer when it is looked up.
`suites/cli/test_startup.py` fails when a heavy module joins `wirecheck --help`'s imports.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any


class LazyWriters(Mapping[str, Callable[..., Any]]):
    """Report format name → the `write` function of its module, imported on first look-up. An alias (an older name
    still accepted: certify's `jsonl` for `json`) looks up its format and is not listed among them."""

    def __init__(self, modules: dict[str, str], aliases: dict[str, str] | None = None):
        self._modules = modules
        self.aliases = aliases or {}

    def __getitem__(self, name: str) -> Callable[..., Any]:
        return importlib.import_module(self._modules[self.aliases.get(name, name)]).write

    def __contains__(self, name: object) -> bool:
        return name in self._modules or name in self.aliases

    def canonical(self, name: str) -> str:
        return self.aliases.get(name, name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __len__(self) -> int:
        return len(self._modules)


def hypothesis_home() -> None:
    """Point Hypothesis's storage (its Unicode tables, built once: a 250 MiB moment) at the user's cache folder,
    `$XDG_CACHE_HOME/wirecheck/hypothesis` (default `~/.cache`), instead of `.hypothesis/` in whatever folder
    wirecheck runs in: `fuzz`, `diff` and `diff-schemas` wrote one into the user's checkout. Call it before the
    first use of Hypothesis; it imports only `hypothesis.configuration`."""
    import os
    from pathlib import Path

    from hypothesis.configuration import set_hypothesis_home_dir

    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    set_hypothesis_home_dir(Path(cache) / "wirecheck" / "hypothesis")


# Set by `cli.app.main()`: this process runs one command, then exits (a library caller or a test runner never sets
# it). diff/engine.py then ends a diff by freezing what it allocated (gc.freeze) instead of collecting it.
one_command_process = False

# True while the cycle collector is paused for the start-up of a `wirecheck` process (cli.main)
_start_up_paused = False


def pause_collector_for_start_up() -> None:
    """Imports allocate objects that live as long as the process (modules, functions, classes: ~60 young
    collections traverse them and find nothing, 2-3 % of a one-keyword diff). Called first by the `wirecheck`
    process (cli.main); `start_up_over()` ends the pause: cli.app.main calls it once the command's module is
    imported, or, for a command that ends in a diff (cli.app.DIFF_COMMANDS), the diff engine when the diff starts,
    after the inputs are read (bounded by the input limits). Validate's unbounded streams are read with the
    collector running as before."""
    import gc

    global _start_up_paused
    if gc.isenabled():
        gc.disable()
        _start_up_paused = True


def start_up_over() -> None:
    """The start-up pause ends: what it allocated is frozen (never traversed again), the collector runs again."""
    global _start_up_paused
    if _start_up_paused:
        import gc

        _start_up_paused = False
        gc.freeze()
        gc.enable()
