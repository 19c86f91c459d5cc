"""`wirecheck certify PACKAGE@VERSION CAPTURE...` and `... --run --scenario S -- COMMAND...`: a certification
report (per requirement pass / fail / not exercised, scores per level, identity, badge)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from wirecheck.certify.report import FORMATS, write_folder
from wirecheck.cli.common import (
    BASELINE_OPTION,
    CONTRACTS_OPTION,
    FAIL_ON_OPTION,
    JOBS_OPTION,
    REQUIREMENTS_OPTION,
    WHOLE_OPTION,
    bad_choice,
    check_captures_exist,
    fail_usage,
    guarded,
    output_file,
    output_folder,
    parallel_plan,
    registry,
    release_source,
    result_line,
    writing_errors_as_usage,
)
from wirecheck.cli.validate_cmd import parse_base_urls
from wirecheck.limits import DEFAULT_MAX_LINE_BYTES

if TYPE_CHECKING:
    from wirecheck.certify.evaluate import Certification

DEFAULT_CAPTURE_DIR = Path("reports/certify")  # generated output stays under reports/ (git-ignored)


def write_reports(cert: Certification, output_format: str, output: Path | None, out_dir: Path | None) -> None:
    """One format to stdout/--output, and with --out-dir every format plus badge.svg."""
    if out_dir is not None:
        with writing_errors_as_usage():
            write_folder(cert, out_dir)
    places = ", ".join(str(p) for p in (output, out_dir) if p is not None)
    said = f'; the program said: "{cert.program_words}"' if cert.program_words else ""
    result = f"{cert.contract}: {cert.verdict.upper()}; {cert.gate_line}{said}; reports: {places}"
    if output is not None:
        with output_file(output) as handle:
            FORMATS[output_format](cert, handle)
        result_line(result)  # the report went to a file: its result line still reaches the terminal
    elif out_dir is None or output_format != "text":
        FORMATS[output_format](cert, sys.stdout)
        if out_dir is not None:
            result_line(result, err=True)  # stdout carries the report
    else:
        FORMATS["text"](cert, sys.stdout)  # with --out-dir, the text report is the terminal's result


def _capture_copy() -> Path:
    """A temporary file for the copy of a live capture that cannot be read back (removed after certifying)."""
    import tempfile

    fd, name = tempfile.mkstemp(prefix="wirecheck-capture-", suffix=".framed.ndjson")
    os.close(fd)
    return Path(name)


def _env_pairs(values: list[str]) -> dict[str, str]:
    env = {}
    for value in values:
        name, sep, text = value.partition("=")
        if not sep or not name:
            raise fail_usage(f"--env {value!r}: expected NAME=VALUE")
        env[name] = text
    return env


def register(app: typer.Typer) -> None:
    @app.command("requirements")
    def requirements_command(
        spec: str = typer.Argument(..., metavar="PACKAGE@VERSION"),
        role: str | None = typer.Option(None, "--role", help="Only the requirements on this role."),
        level: str | None = typer.Option(None, "--level", help="Only MUST, SHOULD or MAY."),
        requirements: Path | None = typer.Option(None, "--requirements", help="Another requirement set file."),
        contracts: Path | None = CONTRACTS_OPTION,
    ) -> None:
        """List what `wirecheck certify` judges for a release: id, level, subject role, linked element, text."""
        from wirecheck.certify.pipeline import load_set

        reg = registry(contracts)
        release = guarded(lambda: reg.load(spec))
        if role is not None and role not in release.roles:
            raise fail_usage(f"no role {role!r} in {release.name}; roles: {', '.join(release.roles)}")
        if level is not None and level.upper() not in ("MUST", "SHOULD", "MAY"):
            raise bad_choice("--level", level, ("MUST", "SHOULD", "MAY"))
        reqs = guarded(lambda: load_set(release, requirements))
        shown = [r for r in reqs if (role is None or r.subject in (role, "any"))
                 and (level is None or r.level == level.upper())]
        for req in shown:
            draft = "  (draft text)" if not req.reviewed else ""
            typer.echo(f"{req.id}  {req.level}  {req.subject}  {req.link.element}{draft}\n    {req.text}")
        typer.echo(f"{len(shown)} of {len(reqs)} requirements ({reqs.path})", err=True)

    @app.command("certify", context_settings={"allow_interspersed_args": True})
    def certify_command(
        spec: str = typer.Argument(..., metavar="PACKAGE@VERSION", help="e.g. qoder-agent-sdk@1.0.23"),
        captures: list[str] = typer.Argument(None, metavar="CAPTURE... | -- COMMAND...",
                                             help="Capture files; with --run, the command to start (after --)."),
        run: bool = typer.Option(False, "--run", help="Start the command after -- and drive --scenario live."),
        scenario: str | None = typer.Option(None, "--scenario", "-s",
                                            help="Scenario file, or the name of a shipped one (with --run)."),
        capture_out: Path | None = typer.Option(None, "--capture-out",
                                                help="Where --run records both directions (framed NDJSON); default "
                                                     "capture.framed.ndjson in --out-dir, else in reports/certify/."),
        requirements: Path | None = REQUIREMENTS_OPTION,
        baseline: Path | None = BASELINE_OPTION,
        role: str | None = typer.Option(None, "--role", help="Certify only the requirements on this role."),
        fail_on: str = FAIL_ON_OPTION,
        output_format: str = typer.Option("text", "--format", "-f", help=f"One of: {', '.join(FORMATS)}."),
        output: Path | None = typer.Option(None, "--output", "-o", help="Write the report here."),
        out_dir: Path | None = typer.Option(None, "--out-dir",
                                            help="Write every format and badge.svg into this folder."),
        base_url: list[str] = typer.Option([], "--base-url", help="NAME=URL of an HTTP base."),
        env: list[str] = typer.Option([], "--env", help="NAME=VALUE for the live command's environment."),
        pass_env: list[str] = typer.Option([], "--pass-env", help="Pass this variable through to the command."),
        timeout: float | None = typer.Option(None, "--timeout", help="Override the scenario's timeout (s)."),
        step_timeout: list[str] = typer.Option([], "--step-timeout", metavar="STEP=SECONDS",
                                               help="Override a step's time limit: STEP is a step number or an "
                                                    "action (expect, wait_exit: every such step). Repeatable."),
        max_line_bytes: int = typer.Option(DEFAULT_MAX_LINE_BYTES, "--max-line-bytes", min=1024),
        max_output_bytes: int = typer.Option(64 << 20, "--max-output-bytes", min=1024),
        whole: bool = WHOLE_OPTION,
        jobs: int | None = JOBS_OPTION,
        keep_scratch: bool = typer.Option(False, "--keep-scratch", help="Keep the scratch HOME for inspection."),
        contracts: Path | None = CONTRACTS_OPTION,
    ) -> None:
        """Certify captures, or a live command, against a release's requirement set.

        Exit codes: 0 certified, 1 not certified (a requirement at or above --fail-on failed, a scope-file entry
        went stale, or the live run failed after the program spoke), 2 usage or contract error, 4 incomplete (none
        failed, but some at or above --fail-on were neither exercised nor declared out of scope in --scope), 5 run
        failed (--run: the program wrote nothing on stdout before it exited, failed to start or the scenario
        gave up; its last words on stderr are quoted).
        """
        from wirecheck.certify.pipeline import certify_captures
        from wirecheck.check.engine import CheckOptions

        if output_format not in FORMATS:
            raise bad_choice("--format", output_format, FORMATS)
        fail_on = fail_on.upper()
        reg = registry(contracts)
        release = guarded(lambda: reg.load(spec))
        options = CheckOptions(parse_base_urls(base_url, list(release.bases)), max_line_bytes, whole=whole)
        positionals = list(captures or [])
        run_info = None
        interrupted = None
        copy: Path | None = None
        if run:
            if not positionals:
                raise fail_usage("--run needs a command after --, e.g. --run -- qodercli --print ...")
            if scenario is None:
                raise fail_usage("--run needs --scenario FILE (or a shipped name)")
            import dataclasses

            from wirecheck.harness.process import Limits
            from wirecheck.harness.runner import find_scenario, run_scenario
            from wirecheck.harness.scenario import (
                MAX_SECONDS,
                load_scenario,
                parse_step_timeouts,
                valid_seconds,
                with_step_timeouts,
            )
            from wirecheck.programs.program import CommandError, resolve_program

            if timeout is not None and not valid_seconds(timeout):
                raise fail_usage(f"--timeout {timeout:g}: expected a positive number of seconds, at most "
                                 f"{MAX_SECONDS:g}")
            loaded = guarded(lambda: load_scenario(find_scenario(scenario)))
            if timeout is not None:
                loaded = dataclasses.replace(loaded, timeout=timeout)
            if step_timeout:
                try:
                    loaded = with_step_timeouts(loaded, parse_step_timeouts(step_timeout))
                except ValueError as exc:
                    raise fail_usage(f"--step-timeout {exc}") from None
            sends = any(step.action in ("send", "send_raw") for step in loaded.steps)
            for side, scenario_role in (("implementation", loaded.implementation_role),
                                        ("harness", loaded.harness_role)):
                if scenario_role not in release.roles and (side == "implementation" or sends):
                    raise fail_usage(f"{loaded.path}: the scenario's {side} role {scenario_role!r} is not a role of "
                                     f"{release.name} ({', '.join(release.roles)})")
            pairs = _env_pairs(env)
            from wirecheck.stub.redaction import Secrets

            # every value handed to the command long enough to be a secret is one (a GITHUB_TOKEN it may echo): cut
            # from the capture (certified as it is written, as the stub's HAR is), the model's HAR, every report and
            # stderr, in every spelling
            secrets = Secrets([*pairs.values(), *(os.environ[name] for name in pass_env if name in os.environ)])
            # the program as the command will see it (its PATH): a usage error now, not a failed run later
            path = pairs.get("PATH", os.environ.get("PATH"))
            try:  # resolved once, here where the user is: the run starts this very program
                program = resolve_program(positionals[0], path)
            except CommandError as exc:
                raise fail_usage(f"cannot run the command: {exc}") from None
            # every output place before the run: a report that cannot be written must not cost a live run (nothing
            # is replaced yet, and a named pipe is not opened: its reader would see an empty capture)
            from wirecheck.output_files import check_writable, written_in_place

            if out_dir is not None:
                output_folder(out_dir)
            target = capture_out or ((out_dir or DEFAULT_CAPTURE_DIR) / "capture.framed.ndjson")
            with writing_errors_as_usage():
                for place in (output, target):
                    if place is not None:
                        check_writable(place)
                # a capture into a named pipe or a device cannot be read back: a copy is, then removed
                copy = _capture_copy() if written_in_place(target) else None
                try:  # the capture is written as it is recorded: a named pipe nobody reads is a usage error here
                    record = run_scenario(positionals, loaded, target,
                                          limits=Limits(max_line_bytes, max_output_bytes), env=pairs,
                                          pass_env=pass_env, keep_scratch=keep_scratch, program=program, copy=copy,
                                          secrets=secrets)
                except BaseException:
                    if copy is not None:
                        copy.unlink(missing_ok=True)
                    raise
            for step in record.steps:
                typer.echo(secrets.cut(f"  step {step.index + 1:>2} {step.action:<11} {step.status:<7} {step.detail}"),
                           err=True)
            paths = [str(copy or target)]
            run_info = secrets.cut_all(record.as_run())
            interrupted = record.interrupted
            role = role or loaded.implementation_role
        else:
            if scenario is not None:
                raise fail_usage("--scenario needs --run")
            if not positionals:
                raise fail_usage("give capture files, or --run --scenario S -- COMMAND")
            check_captures_exist(positionals)
            paths = positionals
        try:
            cert = guarded(lambda: certify_captures(
                release, paths, requirements=requirements, baseline=baseline, role=role, fail_on=fail_on,
                options=options, load_release=reg.load, run=run_info,
                parallel=(release_source(contracts, spec), parallel_plan(jobs))))
        finally:
            if copy is not None:
                copy.unlink(missing_ok=True)
        write_reports(cert, output_format, output, out_dir)
        if interrupted is not None:  # reported, and still the code of a command that was stopped
            raise typer.Exit(interrupted.exit_code)
        raise typer.Exit(cert.exit_code)
