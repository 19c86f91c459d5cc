"""`wirecheck validate PACKAGE@VERSION CAPTURE...`: the conformance check as a command."""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import threading
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import typer

from wirecheck.cli.common import (
    CONTRACTS_OPTION,
    JOBS_OPTION,
    WHOLE_OPTION,
    bad_choice,
    check_captures_exist,
    contract_errors_as_usage,
    fail_usage,
    guarded,
    output_file,
    parallel_plan,
    registry,
    release_source,
    result_line,
)
from wirecheck.findings import Severity
from wirecheck.limits import DEFAULT_MAX_LINE_BYTES
from wirecheck.report import FORMATS

if TYPE_CHECKING:
    from wirecheck.capture import CaptureFile
    from wirecheck.check.result import CheckResult
    from wirecheck.contracts import ContractRelease, MessageKind


def parse_base_urls(values: list[str], known: list[str]) -> dict[str, str]:
    """`NAME=URL`, or a bare URL when the release has exactly one base."""
    from urllib.parse import urlsplit

    from wirecheck.check.classify import base_prefix

    bases: dict[str, str] = {}
    for value in values:
        name, sep, url = value.partition("=")
        if not sep or "://" in name:
            if len(known) != 1:
                names = ", ".join(known) or "none"
                raise fail_usage(f"--base-url {value!r}: give NAME=URL; this release's bases: {names}")
            name, url = known[0], value
        if name not in known:
            raise fail_usage(f"--base-url: unknown base {name!r}; this release's bases: {', '.join(known) or 'none'}")
        try:
            base_prefix(url)
            parts = urlsplit(url)
        except ValueError as exc:
            raise fail_usage(f"--base-url {value!r}: not a URL: {exc}") from None
        if not (parts.scheme and parts.netloc) and not url.startswith("/"):  # a relative path prefixes no request
            raise fail_usage(f"--base-url {value!r}: give an absolute URL (http://host:port/prefix) or a path "
                             "starting with /")
        bases[name] = url
    return bases


def parse_min_coverage(value: str | None) -> float | None:
    """`--min-coverage`: a fraction (`0.8`, `1`) or a percentage (`80%`) of the release's message kinds."""
    if value is None:
        return None
    text = value.strip()
    try:
        number = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        number = float("nan")
    if not 0 <= number <= 1:  # also NaN
        raise fail_usage(f"--min-coverage {value!r}: give a fraction from 0 to 1 (0.8) or a percentage (80%)")
    return number


def _forced_kind(release: ContractRelease, kind_id: str | None) -> MessageKind | None:
    """The kind `--as` names; a usage error names the kinds there are."""
    if kind_id is None:
        return None
    kinds = {k.id: k for k in release.kinds}
    if kind_id not in kinds:
        raise fail_usage(f"--as {kind_id!r}: {release.name} has no such kind; its kinds: {', '.join(kinds)}")
    kind = kinds[kind_id]
    if kind.http is not None:
        raise fail_usage(f"--as {kind_id}: an HTTP kind is recognised from its exchange (method, path, status); give "
                         "a HAR or exchange JSONL capture instead (`wirecheck help captures`)")
    return kind


class _Progress:
    """A progress bar on stderr while long captures are read, only when stderr is a terminal."""

    def __init__(self, captures: list[CaptureFile]):
        self.captures = captures
        self._stop = threading.Event()

    def __enter__(self) -> _Progress:
        from rich.console import Console
        from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn

        from wirecheck.findings import unfiltered

        self._progress = Progress(  # its own terminal codes go to the terminal; a capture's name is made printable
            "[progress.description]{task.description}", BarColumn(), DownloadColumn(), TimeRemainingColumn(),
            transient=True, console=Console(file=unfiltered(sys.stderr)),
        )
        self._progress.start()
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._thread.start()
        return self

    def _poll(self) -> None:
        from rich.markup import escape

        from wirecheck.findings import printable

        tasks = {}
        while not self._stop.wait(0.2):
            for capture in self.captures:
                handle = capture.handle
                if handle is None or capture.path == "-":
                    continue
                if capture.path not in tasks:
                    tasks[capture.path] = self._progress.add_task(escape(printable(capture.path, line=True)),
                                                                  total=os.path.getsize(capture.path))
                with contextlib.suppress(ValueError, OSError):  # closed between the check and tell()
                    self._progress.update(tasks[capture.path], completed=handle.tell())

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._progress.stop()


def register(app: typer.Typer) -> None:
    @app.command("validate")
    def validate_command(
        spec: str = typer.Argument(..., metavar="PACKAGE@VERSION", help="e.g. xopc@0.0.253"),
        captures: list[str] = typer.Argument(..., metavar="CAPTURE...", help="Capture files; - reads stdin."),
        output_format: str = typer.Option("text", "--format", "-f", help=f"One of: {', '.join(FORMATS)}."),
        output: Path | None = typer.Option(None, "--output", "-o", help="Write the report here (default stdout)."),
        fail_on: Severity = typer.Option(Severity.ERROR, "--fail-on", help="Lowest severity that fails the run."),
        min_coverage: str | None = typer.Option(
            None, "--min-coverage", metavar="FRACTION|PERCENT",
            help="Fewest of the release's message kinds the captures must exercise (0.8 or 80%; 1 = every kind)."),
        base_url: list[str] = typer.Option([], "--base-url", help="NAME=URL of an HTTP base (e.g. agentApi=...)."),
        max_line_bytes: int = typer.Option(DEFAULT_MAX_LINE_BYTES, "--max-line-bytes", min=1024),
        progress: bool | None = typer.Option(None, "--progress/--no-progress", help="Default: on for a terminal."),
        as_kind: str | None = typer.Option(
            None, "--as", metavar="KIND", help="Read every capture as messages of KIND. A file, argv or env kind "
            "takes the whole capture as one: a bare file, a shell-quoted command line, `env` output."),
        all_kinds: bool = typer.Option(
            False, "--all-kinds", help="text: list every kind of the release in the coverage, not only those seen "
            "(the JSON, Markdown and JUnit reports always list them)."),
        whole: bool = WHOLE_OPTION,
        jobs: int | None = JOBS_OPTION,
        dask: str | None = typer.Option(
            None, "--dask", metavar="ADDRESS|local",
            help="Check on a Dask cluster (the scheduler at ADDRESS, or `local`: a cluster on this machine); "
                 "captures are URLs or globs fsspec opens (s3://bucket/runs/*.har). Needs the dask extra: "
                 "pip install './wirecheck[dask]' from a checkout, or the wheel's path with [dask]."),
        contracts: Path | None = CONTRACTS_OPTION,
    ) -> None:
        """Check captures against a release: findings with locations, coverage, and a verdict.

        Captures: NDJSON, framed NDJSON, HAR, exchange JSONL, a JSON document, array or text sequence, JSON objects
        one after another, a `wirecheck fuzz` corpus (each entry checked against its expect); `wirecheck help
        captures` says how each is recognised.

        Exit codes: 0 conforms, 1 non-conforming (a finding at or above --fail-on), 2 usage or contract error,
        4 inconclusive (no message was of a kind of the release, or coverage below --min-coverage).
        """
        from wirecheck.capture import CaptureFile
        from wirecheck.check import parallel
        from wirecheck.check.engine import CheckOptions, Engine

        if output_format not in FORMATS:
            raise bad_choice("--format", output_format, FORMATS)
        reg = registry(contracts)
        release = guarded(lambda: reg.load(spec))
        options = CheckOptions(parse_base_urls(base_url, list(release.bases)), max_line_bytes, fail_on,
                               parse_min_coverage(min_coverage), whole=whole)
        if dask is not None:
            if "-" in captures:
                raise fail_usage("--dask reads captures by URL: stdin (-) cannot be sent to a cluster")
            if as_kind is not None:
                raise fail_usage("--as cannot be combined with --dask")
            from wirecheck.check import fleet

            with contract_errors_as_usage():
                found = fleet.expand(captures)
                engine = Engine(release, options, reg.load)
                with fleet.cluster(dask) as client:
                    result = fleet.check_fleet(engine, release_source(contracts, spec), found, client)
            _finish(result, output_format, output, all_kinds)
        check_captures_exist(captures)
        if output is not None:  # os.path.realpath: Path.resolve raises RuntimeError on a loop on Python 3.11
            from wirecheck.output_files import location

            written = location(output)
            if any(c != "-" and Path(os.path.realpath(c)) == written for c in captures):
                raise fail_usage(f"--output {output} is one of the captures: the report would overwrite it")
        if captures.count("-") > 1:
            raise fail_usage("stdin (-) can be read only once")
        forced = _forced_kind(release, as_kind)
        files = [CaptureFile(p, as_kind=forced) for p in captures]
        show_progress = sys.stderr.isatty() if progress is None else progress
        engine = guarded(lambda: Engine(release, options, reg.load))
        result = guarded(lambda: parallel.check(engine, release_source(contracts, spec), files, parallel_plan(jobs),
                                                around=lambda: _Progress(files) if show_progress else nullcontext()))
        _finish(result, output_format, output, all_kinds)


def _finish(result: CheckResult, output_format: str, output: Path | None, all_kinds: bool = False) -> NoReturn:
    """Write the report (with -o, its result line still reaches the terminal); exit with the verdict the report
    states (`unreadable`, 2, when a capture could not be read)."""
    writer = FORMATS[output_format]
    if output_format == "text" and all_kinds:
        writer = functools.partial(writer, all_kinds=True)
    if output is None:
        writer(result, sys.stdout)
    else:
        with output_file(output) as handle:
            writer(result, handle)
        from wirecheck.report.summary import verdict_line

        result_line(f"{verdict_line(result)}; report: {output}")
    for capture in result.unreadable:  # the report names them too; the run went on without them
        print(f"wirecheck: cannot read capture {capture.file}: {capture.unreadable}", file=sys.stderr)
    if result.unreadable_count > len(result.unreadable):
        print(f"wirecheck: ... and {result.unreadable_count - len(result.unreadable)} more captures that cannot be "
              "read", file=sys.stderr)
    raise typer.Exit(result.exit_code)
