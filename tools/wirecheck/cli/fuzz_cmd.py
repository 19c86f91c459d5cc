"""`wirecheck fuzz` (a reproducible NDJSON corpus) and `wirecheck fuzz-consumer` (feed it to a real consumer)."""

from __future__ import annotations

import fnmatch
import sys
from contextlib import nullcontext
from pathlib import Path
from typing import Any, NoReturn

import typer

from wirecheck import exitcodes
from wirecheck.cli.common import CONTRACTS_OPTION, bad_choice, fail_usage, guarded, output_file, registry
from wirecheck.limits import MAX_SECONDS

CONSUMER_FORMATS = ("markdown", "json")  # fuzz-consumer's report: what it fed, what the consumer did


def register(app: typer.Typer) -> None:
    _register_corpus(app)
    register_consumer(app)


def _register_corpus(app: typer.Typer) -> None:
    @app.command("fuzz")
    def fuzz_command(
        spec: str = typer.Argument(..., metavar="PACKAGE@VERSION", help="e.g. qoder-agent-sdk@1.0.23"),
        kind: list[str] = typer.Option([], "--kind", "-k", help="Only kinds matching this glob (repeatable)."),
        skip_kind: list[str] = typer.Option([], "--skip-kind", help="Leave out kinds matching this glob."),
        count: int = typer.Option(10, "--count", "-n", min=1, help="Messages per kind."),
        invalid: bool = typer.Option(False, "--invalid", help="Write labelled mutants instead of valid messages."),
        seed: int = typer.Option(0, "--seed", help="Same seed, same corpus."),
        messages_only: bool = typer.Option(
            False, "--messages-only", help="A protocol-clean session of the stream kinds (or of the --kind given, "
                                           "with what the protocol needs around them) that `wirecheck validate` "
                                           "judges CONFORMS: plain NDJSON, or framed when it holds more than one "
                                           "sender. Where none can be written, exit 2 saying why. With --invalid: "
                                           "the mutants' bare messages, one per line."
        ),
        output: Path | None = typer.Option(None, "--output", "-o", help="Write here (default stdout)."),
        contracts: Path | None = CONTRACTS_OPTION,
    ) -> None:
        """Write a reproducible corpus of generated messages as NDJSON, one per line.

        Each line is {"kind", "expect": "accept"|"reject", "message", "breaks"?: {"keyword", "pointer",
        "description"}}: valid messages (every one passed the validator) or, with --invalid, mutants that break
        exactly the one labelled constraint. For HTTP kinds the message is the body.
        """
        from wirecheck.fuzz.corpus import corpus
        from wirecheck.json_types import json_bytes

        release = guarded(lambda: registry(contracts).load(spec))
        not_generated: dict[str, str] = {}
        if messages_only and not invalid:
            _write_session(release, kind, skip_kind, count, seed, output, not_generated)
        # bare mutants: stream messages unless --kind says otherwise (files and HTTP bodies are no stream)
        stream_only = messages_only and not kind
        kind = _select_kinds(release, kind, skip_kind, channel="stdio-ndjson" if stream_only else None)
        with nullcontext(sys.stdout.buffer) if output is None else output_file(output, binary=True) as handle:
            for entry in corpus(release, kinds=kind, count=count, seed=seed, invalid=invalid,
                                not_generated=not_generated.__setitem__):
                line = entry.message if messages_only else entry.as_json()
                handle.write(json_bytes(line) + b"\n")  # a const holding a lone surrogate: its JSON escape
        _exit_unless_generated(release.name, not_generated, exitcodes.CONFORMS)


def _write_session(release: Any, include: list[str], skip: list[str], count: int, seed: int, output: Path | None,
                   not_generated: dict[str, str]) -> NoReturn:
    """`fuzz --messages-only`: a protocol-clean session (fuzz/session.py), or exit 2 saying why none."""
    from wirecheck.fuzz.session import STREAM, NoCleanSession, session

    streams = [k.id for k in release.kinds if k.channel == STREAM]
    if include:
        wanted = _select_kinds(release, include, skip)
    else:
        wanted = [k for k in streams if not any(fnmatch.fnmatchcase(k, g) for g in skip)]
        if streams and not wanted:
            raise fail_usage(f"no stream kinds left in {release.name} after --skip-kind")
    try:
        built = session(release, kinds=wanted, count=count, seed=seed, not_generated=not_generated.__setitem__)
    except NoCleanSession as exc:
        typer.echo(f"wirecheck fuzz: no protocol-clean session of {release.name}: {exc}", err=True)
        raise typer.Exit(exitcodes.USAGE) from None
    with nullcontext(sys.stdout.buffer) if output is None else output_file(output, binary=True) as handle:
        for line in built.ndjson():
            handle.write(line)
    for kind_id, why in built.left_out.items():
        typer.echo(f"wirecheck fuzz: note: some {kind_id} messages are not in the session: {why}", err=True)
    _exit_unless_generated(release.name, not_generated, exitcodes.CONFORMS)


def register_consumer(app: typer.Typer) -> None:
    @app.command("fuzz-consumer")
    def fuzz_consumer_command(
        spec: str = typer.Argument(..., metavar="PACKAGE@VERSION"),
        command: list[str] = typer.Argument(None, metavar="-- COMMAND...", help="A line-protocol process."),
        python: str | None = typer.Option(None, "--python", help="A callable module:function taking one message."),
        reject: list[str] = typer.Option(
            [], "--reject-exception", help="module:Class raised to refuse a message (default ValueError)."
        ),
        kind: list[str] = typer.Option([], "--kind", "-k", help="Only kinds matching this glob (repeatable)."),
        skip_kind: list[str] = typer.Option([], "--skip-kind", help="Leave out kinds matching this glob."),
        role: str | None = typer.Option(None, "--role", help="Only kinds this role consumes (the catalog's roles)."),
        channel: str | None = typer.Option(None, "--channel", help="Only kinds on this channel (e.g. stdio-ndjson)."),
        count: int = typer.Option(50, "--count", "-n", min=1, help="Valid messages (and mutants) per kind."),
        seed: int = typer.Option(0, "--seed"),
        invalid: bool = typer.Option(True, "--invalid/--valid-only", help="Also feed labelled mutants."),
        shrink: bool = typer.Option(True, "--shrink/--no-shrink", help="Shrink each failure to a minimal example."),
        timeout: float = typer.Option(5.0, "--timeout", min=0.01, max=MAX_SECONDS,
                                      help="Seconds per message before a hang."),
        output_format: str = typer.Option("markdown", "--format", "-f",
                                          help=f"The report on stdout (or --output): {', '.join(CONSUMER_FORMATS)}."),
        output: Path | None = typer.Option(None, "--output", "-o", help="Write the report here instead of stdout."),
        json_out: Path | None = typer.Option(None, "--json", help="Also write the JSON report here."),
        markdown_out: Path | None = typer.Option(None, "--markdown", help="Also write the Markdown report here."),
        contracts: Path | None = CONTRACTS_OPTION,
    ) -> None:
        """Feed generated valid messages and mutants to a real consumer; report what it gets wrong.

        The consumer is a Python callable (--python module:function; returning None means "ignored", raising a
        --reject-exception means "rejected", any other exception is a crash) or a process after `--` that reads
        one JSON message per line and answers one line per message: `accept`, `ignore`, or `reject` and an
        optional reason after a space.
        It runs with a scratch HOME, XDG_CONFIG_HOME and TMPDIR, no shell. Exit 1 when it rejects valid
        messages, accepts invalid ones, crashes or hangs; exit 5 (run failed, no verdict) when a process consumer
        never wrote a byte on stdout (it exited or stayed silent: its last stderr line is quoted).
        """
        from wirecheck.fuzz.consumer import ProcessConsumer, PythonConsumer, fuzz_consumer
        from wirecheck.fuzz.consumer_report import render_markdown
        from wirecheck.programs.signals import shielded, terminated_by_signals

        if output_format not in CONSUMER_FORMATS:
            raise bad_choice("--format", output_format, CONSUMER_FORMATS)
        if bool(python) == bool(command):
            raise fail_usage("give exactly one consumer: --python module:function, or -- COMMAND...")
        from wirecheck.json_types import json_text

        release = guarded(lambda: registry(contracts).load(spec))
        if role is not None and role not in release.roles:
            raise fail_usage(f"--role {role!r}: this release's roles: {', '.join(release.roles)}")
        kind = _select_kinds(release, kind, skip_kind, role=role, channel=channel)
        try:
            consumer = (
                PythonConsumer(python, rejects=reject, timeout=timeout)
                if python
                else ProcessConsumer(command, timeout=timeout)
            )
        except (ImportError, AttributeError, ValueError) as exc:
            raise fail_usage(f"cannot load the consumer: {exc}") from None
        with terminated_by_signals():  # SIGTERM or SIGHUP: the consumer is ended, then exit 128 + signal
            try:
                report = fuzz_consumer(
                    release, consumer, kinds=kind, count=count, seed=seed, invalid=invalid, shrink=shrink,
                    description=consumer.describe(), progress=lambda text: typer.echo(f"… {text}", err=True),
                )
            finally:
                with shielded():
                    consumer.close()
        for problem in getattr(consumer, "problems", ()):
            typer.echo(f"wirecheck: the consumer: {problem}", err=True)
        texts = {"markdown": render_markdown(report), "json": json_text(report.as_json(), indent=True) + "\n"}
        wanted = ((json_out, texts["json"]), (markdown_out, texts["markdown"]), (output, texts[output_format]))
        for path, text in wanted:
            if path is not None:
                with output_file(path) as handle:
                    handle.write(text)
        if output is None:
            typer.echo(texts[output_format], nl=output_format == "markdown")
        if report.run_failed:
            said = f'; the program said: "{report.program_said}"' if report.program_said else ""
            typer.echo(f"wirecheck: {release.name}: RUN FAILED: {report.run_failed}{said}", err=True)
            raise typer.Exit(exitcodes.RUN_FAILED)
        _exit_unless_generated(release.name, report.not_generated,
                               exitcodes.FINDINGS if report.failed else exitcodes.CONFORMS)


def _select_kinds(release: Any, include: list[str], skip: list[str], *, role: str | None = None,
                  channel: str | None = None) -> list[str]:
    """The fuzzable kinds a command line names: those of the role and channel, matching an --kind glob (all when
    none is given) and no --skip-kind glob. A glob that matches nothing, or nothing left, is a usage error."""
    from wirecheck.fuzz.corpus import fuzzable_kinds

    candidates = [k.id for k in fuzzable_kinds(release)
                  if (role is None or k.consumer == role) and (channel is None or k.channel == channel)]
    unmatched = [g for g in include if not fnmatch.filter(candidates, g)]
    if unmatched:
        raise fail_usage(f"--kind {', '.join(unmatched)}: matches no fuzzable kind"
                         + (f" on {channel}" if channel else "") + f"; known: {', '.join(candidates) or 'none'}")
    chosen = [k for k in candidates if (not include or any(fnmatch.fnmatchcase(k, g) for g in include))
              and not any(fnmatch.fnmatchcase(k, g) for g in skip)]
    if not chosen:
        raise fail_usage(f"no kinds left to fuzz in {release.name}" + (f" on {channel}" if channel else ""))
    return chosen


def _exit_unless_generated(release: str, not_generated: dict[str, str], code: int) -> NoReturn:
    """A kind whose schema no generator can satisfy was not tested: a contract problem (exit 2), named, after the
    other kinds' output is written; --kind / --skip-kind leave it out."""
    for kind, why in not_generated.items():
        typer.echo(f"wirecheck: {release} kind {kind}: no message could be generated: {why}", err=True)
    raise typer.Exit(exitcodes.USAGE if not_generated else code)
