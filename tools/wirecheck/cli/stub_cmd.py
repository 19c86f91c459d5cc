"""`wirecheck stub xopc@0.0.253` (the platform side, certifies a runtime client) and
`wirecheck probe xopc@0.0.253 URL` (the runtime client side, certifies a platform server)."""

from __future__ import annotations

import codecs
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn
from urllib.parse import urlsplit

import typer

from wirecheck.certify.report import FORMATS
from wirecheck.cli.certify_cmd import write_reports
from wirecheck.cli.common import (
    BASELINE_OPTION,
    CONTRACTS_OPTION,
    FAIL_ON_OPTION,
    REQUIREMENTS_OPTION,
    bad_choice,
    fail_usage,
    guarded,
    output_file,
    output_folder,
    registry,
)
from wirecheck.limits import MAX_SECONDS

if TYPE_CHECKING:
    from collections.abc import Callable

    from wirecheck.contracts import PackageRegistry
    from wirecheck.contracts.model import ContractRelease
    from wirecheck.programs.signals import Terminated
    from wirecheck.programs.tail import Tail
    from wirecheck.stub.har import HarRecorder
    from wirecheck.stub.redaction import Secrets

FORMAT_OPTION = typer.Option("text", "--format", "-f", help=f"Report on stdout: {', '.join(FORMATS)}.")
NEEDED_KINDS = ("discovery.response", "lease.request", "lease.response", "lease.empty", "events.request",
                "renew.request", "renew.response")


def _xopc_release(spec: str, contracts: Path | None) -> tuple[ContractRelease, PackageRegistry]:
    reg = registry(contracts)
    release = guarded(lambda: reg.load(spec))
    have = {k.id for k in release.kinds}
    if release.package != "xopc" or not set(NEEDED_KINDS) <= have:
        raise fail_usage(f"no stub/probe for {release.name}: it needs the xopc runtime API kinds "
                         f"({', '.join(NEEDED_KINDS)})")
    return release, reg


def _check_format(output_format: str) -> None:
    if output_format not in FORMATS:
        raise bad_choice("--format", output_format, FORMATS)


def _url_problem(url: str) -> str | None:
    """Why no HTTP request can go to `url` (what urllib would raise mid-session), or None."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (a non-numeric port raises here)
    except ValueError as exc:
        return str(exc)
    if not parts.hostname:
        return "no host"
    if parts.username is not None or parts.password is not None:  # it would be a secret in every report
        return "it holds credentials (user:password@); give the runtime token with --token"
    if any(ord(c) <= 32 or ord(c) == 127 for c in url):
        return "it contains a space or a control character"
    return None


class _StreamCut:
    """Text cut as it comes, in pieces: what `feed` returns goes on through its last line end, a line longer than
    LINE_CHARS in pieces, each cut with the text held before it and keeping back its last HELD_CHARS (or the longest
    spelling of a token, if longer), so a spelling the next text completes is cut then, never passed on in part."""

    LINE_CHARS = 64 << 10
    HELD_CHARS = 8 << 10  # at least the longest spelling of a token (Secrets.longest_spelling)

    def __init__(self, secrets: Secrets):
        self._secrets = secrets
        self._held: list[str] = []  # the line so far, in the pieces it came in (joined once, not per chunk)
        self._held_chars = 0

    def feed(self, text: str) -> str:
        end = text.rfind("\n") + 1
        if end:
            line, rest = "".join([*self._held, text[:end]]), text[end:]
            self._held, self._held_chars = [rest], len(rest)
            return self._secrets.cut(line)
        self._held.append(text)
        self._held_chars += len(text)
        if self._held_chars <= self.LINE_CHARS:
            return ""
        text = self._secrets.cut("".join(self._held))
        end = max(len(text) - max(self.HELD_CHARS, self._secrets.longest_spelling), 0)
        self._held, self._held_chars = [text[end:]], len(text) - end
        return text[:end]

    def end(self) -> str:
        held, self._held, self._held_chars = "".join(self._held), [], 0
        return self._secrets.cut(held)


class _Relay:
    """One of the runtime's streams (stdout or stderr) passed on to wirecheck's stderr as it comes (the user still
    sees it live; wirecheck's stdout is the report's), a line at a time with the tokens the stub has learnt cut
    (`_StreamCut`: a long line in pieces, no spelling split between two).

    What the runtime writes before its first request, when no token is known yet, is held (in memory up to
    EARLY_MEMORY_CHARS, then in an unnamed temporary file, up to EARLY_CHARS; more is left out, and said so) until
    the stub learns one (`release`) or the stream ends, and then passed on cut. `quoted` keeps the end of what it
    passed on, to quote: cut before it is kept, so a token the tail's start falls inside is never quoted in part."""

    EARLY_MEMORY_CHARS = 1 << 20
    EARLY_CHARS = 256 << 20
    _writing = threading.Lock()  # the runtime's two streams share wirecheck's stderr: a line is written whole

    def __init__(self, recorder: HarRecorder, name: str):
        from wirecheck.programs.tail import Tail

        self._secrets = recorder.secrets
        self._name = name
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._live = _StreamCut(self._secrets)
        self._lock = threading.Lock()
        self._early: Any = None  # a SpooledTemporaryFile of what came before a token was known
        self._early_chars = 0
        self._left_out = 0
        self._ended = False
        self.quoted = Tail()

    def __call__(self, chunk: bytes) -> None:
        with self._lock:
            self._take(self._live.feed(self._decoder.decode(chunk)))

    def flush(self) -> None:
        """Pass on a last line that had no line end, and anything held (once the stream has ended)."""
        with self._lock:
            self._ended = True
            self._take(self._live.feed(self._decoder.decode(b"", final=True)) + self._live.end())

    def release(self) -> None:
        """Pass on what came before the first token was known, once one is (the stub calls this as it serves)."""
        with self._lock:
            if self._secrets:
                self._pass_early()

    def _take(self, text: str) -> None:
        if not self._secrets and not self._ended:  # nothing to cut it with yet: held
            if self._early_chars + len(text) > self.EARLY_CHARS:
                self._left_out += len(text)
                return
            if self._early is None:
                self._early = tempfile.SpooledTemporaryFile(  # noqa: SIM115 (closed as it is passed on)
                    self.EARLY_MEMORY_CHARS, "w+", encoding="utf-8",
                    prefix="wirecheck-relay-")
            self._early.write(text)
            self._early_chars += len(text)
            return
        self._pass_early()
        self._pass(self._secrets.cut(text))  # again: a token may have become known since it was fed

    def _pass_early(self) -> None:
        early, self._early, self._early_chars = self._early, None, 0
        if early is not None:
            with early:
                early.seek(0)
                cut = _StreamCut(self._secrets)
                while text := early.read(1 << 16):
                    self._pass(cut.feed(text))
                self._pass(cut.end())
        if self._left_out:
            self._pass(f"wirecheck: {self._left_out} more characters the runtime wrote on its {self._name} before "
                       f"its first request are not shown: the first {self.EARLY_CHARS} were held until a token to "
                       "cut from them was known\n")
            self._left_out = 0

    def _pass(self, text: str) -> None:
        if not text:
            return
        self.quoted.add(text.encode())
        if sys.stderr is not None:
            with self._writing:
                sys.stderr.write(text)
                sys.stderr.flush()


def _write_har(recorder: HarRecorder, path: Path) -> Path:
    """The recorded exchanges as HAR; a path that cannot be written (a full disk) is a usage error naming it."""
    with output_file(path, binary=True) as handle:
        recorder.write_to(handle)
    return path


def _omitted(recorder: HarRecorder) -> list[str]:
    """A run problem when bodies were not kept in the HAR: what was not kept was not certified."""
    from wirecheck.stub.har import MAX_RECORDED_BODY_BYTES

    if not recorder.omitted:
        return []
    return [f"the bodies of {recorder.omitted} exchanges were not kept in the HAR (at most "
            f"{MAX_RECORDED_BODY_BYTES >> 20} MiB of bodies are recorded), so they were not checked"]


def _say(recorder: HarRecorder) -> Callable[[str], None]:
    """Print a line on stderr with the tokens the recorder knows cut (stub.redaction: every spelling)."""
    return lambda text: typer.echo(recorder.scrub(text), err=True)


def _certify(release: ContractRelease, reg: PackageRegistry, recorder: HarRecorder, har: Path, role: str,
             run: dict[str, Any], requirements: Path | None, baseline: Path | None, fail_on: str, output_format: str,
             out_dir: Path, stopped: Terminated | None = None) -> NoReturn:
    """Certify the recorded HAR for `role`, write the reports, exit 0 (certified), 1 (not certified), 4 (incomplete:
    requirements neither exercised nor declared out of scope), 5 (the run
    heard nothing from the other side: nothing to certify), or 128 + the signal that stopped the run. The run record
    (problems, steps, the program's last words) has the recorder's tokens cut, as the HAR has."""
    from wirecheck.certify.pipeline import certify_captures
    from wirecheck.check.engine import CheckOptions

    run = recorder.secrets.cut_all(run)

    # the stub recorded every exchange from its start to its end: what the runtime owes by then (a terminal event
    # for every run it leased) is judged
    cert = guarded(lambda: certify_captures(release, [har], requirements=requirements, baseline=baseline, role=role,
                                            fail_on=fail_on.upper(), load_release=reg.load, run=run,
                                            options=CheckOptions(whole=True)))
    write_reports(cert, output_format, None, out_dir)
    if stopped is not None:
        raise typer.Exit(stopped.exit_code)
    raise typer.Exit(cert.exit_code)


def register(app: typer.Typer) -> None:
    @app.command("stub")
    def stub_command(
        spec: str = typer.Argument(..., metavar="xopc@VERSION"),
        command: list[str] = typer.Argument(None, metavar="-- COMMAND...",
                                            help="Optional runtime client to start; {url} is replaced by the "
                                                 "stub's base URL (also in $WIRECHECK_STUB_URL)."),
        port: int = typer.Option(0, "--port", min=0, max=65535, help="Port on 127.0.0.1 (0: any free port)."),
        commands: int = typer.Option(1, "--commands", min=0, help="RuntimeCommands to lease before idling."),
        seed: int = typer.Option(0, "--seed", help="Seed for the generated commands."),
        cancel_after: int | None = typer.Option(None, "--cancel-after-renewals", min=1,
                                                help="Ask for cancellation on the Nth renewal of a command."),
        strict: bool = typer.Option(False, "--strict", help="Answer non-conforming requests with 400."),
        scenario_name: str = typer.Option(
            "normal", "--scenario", metavar="NAME|FILE",
            help="How the platform answers: a shipped scenario (normal, race, cancel) or a scenario file "
                 "(format: wirecheck's schemas/stub-scenario.schema.json)."),
        lease_seconds: float | None = typer.Option(
            None, "--lease-seconds", min=1.0, max=3600.0,
            help="How long every lease and renewal lasts (default: the scenario's, 3 s: a runtime working "
                 "longer than that must renew)."),
        delays: list[str] = typer.Option(
            [], "--delay", metavar="ROUTE=SECONDS",
            help="Hold answers on a route back (discovery, heartbeat, lease, events, terminal, renew), e.g. "
                 "terminal=2.5; repeatable."),
        faults: list[str] = typer.Option(
            [], "--fault", metavar="ROUTE=STATUS|drop[:once|always]",
            help="Answer a route with a status, or drop the connection, once (default) or always, e.g. "
                 "renew=503 or events=drop:always; repeatable."),
        max_seconds: float = typer.Option(300.0, "--max-seconds", min=0.1, max=MAX_SECONDS,
                                          help="Stop serving after this long."),
        out_dir: Path = typer.Option(Path("reports/stub"), "--out-dir", help="HAR capture and reports go here."),
        output_format: str = FORMAT_OPTION,
        baseline: Path | None = BASELINE_OPTION,
        requirements: Path | None = REQUIREMENTS_OPTION,
        fail_on: str = FAIL_ON_OPTION,
        contracts: Path | None = CONTRACTS_OPTION,
    ) -> None:
        """Serve the xopc platform side on 127.0.0.1 and certify the runtime client that talks to it.

        Serves until every generated command was leased and finished and the client leased once more (204), or
        until the COMMAND exits, --max-seconds pass, or Ctrl-C. Writes stub.har and certification.* to --out-dir.
        Request bodies need a Content-Length and may be at most 1 MiB: larger is a 413, a bad Content-Length or a
        shorter body a 400, a chunked body a 411, each with a JSON error and not recorded.
        Exit codes: 0 certified, 1 not certified, 2 usage error, 4 incomplete, 5 run failed (no request reached the
        stub: the command exited or stayed silent; its own words are quoted).
        """
        from wirecheck.programs.program import CommandError, Program, Scratch, resolve_program
        from wirecheck.programs.signals import Terminated, shielded, terminated_by_signals
        from wirecheck.programs.tail import Tail
        from wirecheck.stub import scenario as scenarios
        from wirecheck.stub.har import HarRecorder
        from wirecheck.stub.server import StubServer
        from wirecheck.stub.xopc import XopcPlatformStub

        _check_format(output_format)
        try:
            scenario = guarded(lambda: scenarios.load(scenarios.resolve(scenario_name))).with_options(
                lease_seconds=lease_seconds, delays=delays, faults=faults, cancel_after_renewals=cancel_after)
        except scenarios.OptionError as exc:
            raise fail_usage(str(exc)) from None
        output_folder(out_dir)
        release, reg = _xopc_release(spec, contracts)
        program = None
        if command:
            try:  # where the user is: the runtime itself runs in a scratch folder
                program = resolve_program(command[0], os.environ.get("PATH"))
            except CommandError as exc:
                raise fail_usage(f"cannot run the command: {exc}") from None
        recorder = HarRecorder("wirecheck stub")  # learns the runtime's token: cut from all that is printed
        say = _say(recorder)
        platform = XopcPlatformStub(release, commands=commands, seed=seed,
                                    strict=strict, on_problem=lambda text: say(f"  request: {text}"),
                                    scenario=scenario)
        try:
            server = StubServer(platform, port, recorder)
        except OSError as exc:
            raise fail_usage(f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}") from None
        runtime: Program | None = None
        # the runtime's stdout and stderr, each read to its end and relayed as it comes (the stderr relay keeps the
        # quote of its last words)
        streams: list[tuple[Tail, _Relay]] = []
        problems: list[str] = []
        stopped: Terminated | None = None
        with terminated_by_signals():
            try:
                server.start()
                typer.echo(f"wirecheck stub {release.name} listening on {server.base_url} "
                           f"(discovery: {server.base_url}/.well-known/xopc-platform, under any base path too)",
                           err=True)
                for line in scenario.describe():
                    typer.echo(f"  {line}", err=True)
                if program is not None:
                    scratch = Scratch.create()
                    argv = [program, *(part.replace("{url}", server.base_url) for part in command[1:])]
                    env = scratch.env({"WIRECHECK_STUB_URL": server.base_url})
                    try:  # both its streams go to wirecheck's stderr, cut: wirecheck's stdout is the report's
                        runtime = Program(argv, env=env, cwd=scratch.root / "work", stdin=subprocess.DEVNULL,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, scratch=scratch)
                    except OSError as exc:
                        scratch.remove()
                        raise fail_usage(f"cannot start {command[0]!r}: {exc.strerror or exc}") from None
                    streams = [(Tail(echo=relay).follow(stream, f"wirecheck-{name}"), relay) for stream, name in (
                        (runtime.stderr, "stderr"), (runtime.stdout, "stdout")) for relay in (_Relay(recorder, name),)]
                deadline = time.monotonic() + max_seconds
                try:
                    while time.monotonic() < deadline and not platform.done.wait(0.1):
                        for _, relay in streams:  # once the first request has told the token
                            relay.release()
                        if runtime is not None and runtime.poll() is not None:
                            break
                except KeyboardInterrupt:
                    typer.echo("stopping", err=True)
                except Terminated as stop:
                    stopped = stop
                finally:
                    with shielded():
                        if runtime is not None:
                            if runtime.poll() is None and platform.done.is_set() and stopped is None:
                                # the client is idle: give it time to finish on its own (write its output, exit)
                                runtime.wait(min(10.0, max(deadline - time.monotonic(), 0.1)))
                            problems += runtime.stop()
                            scratch.remove()
                        platform.stopping.set()  # answers still held back go now
                        server.stop()
            except Terminated as stop:  # it came while the runtime and the server were being stopped
                stopped = stop
        if stopped is not None:
            typer.echo(f"stopped by {stopped.name}: writing what was recorded", err=True)
            problems.append(f"wirecheck was stopped by {stopped.name}")
        for text in problems:
            say(f"  {text}")
        har = _write_har(server.recorder, out_dir / "stub.har")
        typer.echo(f"recorded {len(server.recorder)} exchanges in {har}", err=True)
        if not len(server.recorder):
            problems.insert(0, "no request reached the stub")
        problems += _omitted(server.recorder)
        for tail, relay in streams:
            tail.join(5.0)  # the runtime has ended: its streams' end is near
            relay.flush()
        run = {"identity": {"argv": list(command or ["wirecheck", "stub", spec]), "scenario": scenario.identity()},
               "outcome": {"ok": not problems, "exit_code": None if runtime is None else runtime.returncode,
                           "problem": problems[0] if problems else None, "problems": problems,
                           "heard": len(server.recorder) > 0,
                           "stderr_tail": streams[0][1].quoted.text() if streams else ""}}
        _certify(release, reg, recorder, har, "runtime", run, requirements, baseline, fail_on, output_format, out_dir,
                 stopped)

    @app.command("probe")
    def probe_command(
        spec: str = typer.Argument(..., metavar="xopc@VERSION"),
        base_url: str = typer.Argument(..., metavar="BASE_URL", help="The platform's base URL (discovery lives "
                                                                      "at BASE_URL/.well-known/xopc-platform)."),
        token: str = typer.Option("xopc_rt_wirecheck_probe_0000000000000000000000", "--token",
                                  envvar="WIRECHECK_XOPC_TOKEN", help="Runtime bearer token (xopc_rt_…)."),
        timeout: float = typer.Option(10.0, "--timeout", min=0.1, max=MAX_SECONDS,
                                      help="Seconds per HTTP call, for the whole exchange (connect, request and "
                                           "the complete response): a call past it stops the probe."),
        max_leases: int = typer.Option(10, "--max-leases", min=1, help="Stop leasing after this many."),
        token_hosts: list[str] = typer.Option(
            [], "--token-host", metavar="HOST",
            help="Another host the token may go to (an agentApi the platform announces elsewhere); repeatable. "
                 "Otherwise it goes to BASE_URL's host only."),
        allow_insecure_token: bool = typer.Option(
            False, "--allow-insecure-token",
            help="Send the token over plain http to a host other than this machine (loopback)."),
        out_dir: Path = typer.Option(Path("reports/probe"), "--out-dir", help="HAR capture and reports go here."),
        output_format: str = FORMAT_OPTION,
        baseline: Path | None = BASELINE_OPTION,
        requirements: Path | None = REQUIREMENTS_OPTION,
        fail_on: str = FAIL_ON_OPTION,
        contracts: Path | None = CONTRACTS_OPTION,
    ) -> None:
        """Play the xopc runtime client against a platform server and certify its responses (role platform).

        Exit codes: 0 certified, 1 not certified, 2 usage error, 4 incomplete, 5 run failed (the platform never
        answered: a host that does not resolve, a refused connection, an answer that is not HTTP).
        """
        from wirecheck.stub.har import HarRecorder
        from wirecheck.stub.probe import XopcProbe

        _check_format(output_format)
        if not base_url.startswith(("http://", "https://")):
            raise fail_usage(f"BASE_URL {base_url!r}: expected an http:// or https:// URL")
        problem = _url_problem(base_url)
        if problem:
            shown = "" if "@" in base_url else f" {base_url!r}"  # credentials are not repeated in a log
            raise fail_usage(f"BASE_URL{shown}: not a usable URL: {problem}")
        output_folder(out_dir)
        release, reg = _xopc_release(spec, contracts)
        recorder = HarRecorder("wirecheck probe", secrets=(token,))
        say = _say(recorder)
        probe = XopcProbe(base_url, token=token, timeout=timeout, max_leases=max_leases, recorder=recorder,
                          token_hosts=tuple(token_hosts), allow_insecure_token=allow_insecure_token,
                          on_step=lambda text: say(f"  {text}"))
        outcome = probe.run()
        for text in outcome.problems:
            say(f"  stopped: {text}")
        problems = outcome.problems + _omitted(probe.recorder)
        har = _write_har(probe.recorder, out_dir / "probe.har")
        run = {"identity": {"argv": ["wirecheck", "probe", spec, base_url]},
               "outcome": {"ok": not problems, "exit_code": None, "problem": problems[0] if problems else None,
                           "problems": problems, "steps": outcome.steps, "heard": probe.recorder.answered > 0}}
        _certify(release, reg, recorder, har, "platform", run, requirements, baseline, fail_on, output_format,
                 out_dir)
