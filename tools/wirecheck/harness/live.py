"""The live tiers: real agent CLIs from their registries, run offline through the shipped scenarios and certified.

    python -m wirecheck.harness.live claude-code [--version 2.1.332] [--out reports/live] [--record fixtures/live]
        [--scenario NAME] [--executable PATH] [--pass-env NAME] [--step-timeout STEP=SECONDS]

What runs is data (live.yaml beside this file): per CLI release, where it comes from (an npm package and the
executable it installs, or a PyPI wheel and the file in it), its scenarios, and the contracts each capture is
certified against (the CLI's own, and Navarch 0.1.53's reading of it); groups of scenarios certified all together
(qodercli's sessions, "all sessions"; OpenCode's scenarios, "all scenarios"), so that what one scenario cannot show
another does. Packages are installed into the user's cache (`$XDG_CACHE_HOME/wirecheck/live`, kept between runs)
through `wirecheck.programs`, like the CLIs themselves; the only network the tier uses is the package registry, for
the install. Every run's reports land in `--out`. `--version X` of a release live.yaml does not list (`release_of`)
installs X from the CLI's npm package (its package.json's `bin`; a package of another version is refused) and runs
it with the scenarios and targets of the nearest listed release, labelled X in every row, report and provenance.

Every row is the certification of its capture with the run's outcome: a run whose scenario step failed (a hang
after the result, an exit status the scenario does not end with) or whose program the harness had to stop is NOT
CERTIFIED (or RUN FAILED when nothing was heard), never certified, in the table, `reports/live/<cli>.md` and
`expected.yaml` alike; a group row carries the outcome of all its runs. The table is followed, last, by one closing
verdict per release (harness/closing.py: the worst of its rows, and which row made it; a row's INCOMPLETE is left to
its group's row, which judges the gaps), and the tier exits with the worst of them: 0 certified, 4 incomplete, 1 not
certified, 5 run failed (nothing heard, or the release could not be installed), 2 a usage error.

`--record DIR` keeps the evidence for the default tests, which replay it without Node or the network
(suites/harness/test_live_captures.py): per release `DIR/<cli>@<version>/` holds each scenario's capture and its
model side (`.model.har` or `.model.jsonl`), `provenance.yaml` (package, version, the command as run, the date, the
executable's digest, each run's outcome) and `expected.yaml`, each row's certification as `summary()` states it,
computed from the capture and the recorded outcome (`recorded_outcome`), as the replay computes it.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import os
import re
import shutil
import sys
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from wirecheck import exitcodes
from wirecheck.certify.identity import sha256_file
from wirecheck.harness.closing import Closing, closing, worst
from wirecheck.harness.runner import SHIPPED_SCENARIOS, run_scenario
from wirecheck.harness.scenario import load_scenario, parse_step_timeouts, with_step_timeouts
from wirecheck.yaml_lines import read_yaml_file

PLAN = Path(__file__).with_name("live.yaml")
INSTALL_SECONDS = 1200.0


@dataclass(frozen=True)
class Target:
    contract: str
    role: str
    scope: str | None = None  # a scope file, relative to live.yaml
    scenarios: tuple[str, ...] | None = None  # only these scenarios' captures (None: every one of its list)


@dataclass(frozen=True)
class Release:
    cli: str
    version: str
    executable: str
    scenarios: tuple[str, ...]
    certify: tuple[Target, ...]
    npm: str | None = None
    pypi: str | None = None
    sessions: tuple[str, ...] = ()  # certified against certify_sessions, each and all together
    certify_sessions: tuple[Target, ...] = ()
    together: bool = False  # the scenarios are also certified all together against `certify`
    based_on: str | None = None  # not in live.yaml: the recorded release whose scenarios and targets it runs

    @property
    def name(self) -> str:
        return f"{self.cli}@{self.version}"

    def groups(self) -> dict[str, tuple[tuple[str, ...], tuple[Target, ...]]]:
        """The rows that certify several captures together: name → (the scenarios, the targets)."""
        groups = {}
        if self.together:
            # a target that names its scenarios certifies them one by one only
            groups[ALL_SCENARIOS] = (self.scenarios, tuple(t for t in self.certify if t.scenarios is None))
        if self.sessions:
            groups[ALL_SESSIONS] = (self.sessions, self.certify_sessions)
        return groups

    @property
    def rows(self) -> tuple[str, ...]:
        """Every row's scenario (or group), as the table and expected.yaml have them."""
        return (*self.scenarios, *self.sessions, *self.groups())

    @property
    def package(self) -> str:
        return f"{self.npm}@{self.version} (npm)" if self.npm else f"{self.pypi} (PyPI wheel)"


def load_plan(path: Path = PLAN) -> dict[str, list[Release]]:
    raw = read_yaml_file(path, what="live tier plan")  # the one YAML loader: NaN, sets, alias bombs refused
    plan: dict[str, list[Release]] = {}
    for cli, releases in raw["clis"].items():
        plan[cli] = [Release(cli, str(r["version"]), r["executable"], tuple(r["scenarios"]), _targets(r["certify"]),
                             r.get("npm"), r.get("pypi"), tuple(r.get("sessions", ())),
                             _targets(r.get("certify_sessions", ())), bool(r.get("together", False)))
                     for r in releases]
        for release in plan[cli]:
            for target in (*release.certify, *release.certify_sessions):
                unknown = set(target.scenarios or ()) - {*release.scenarios, *release.sessions}
                if unknown:
                    raise ValueError(f"{path}: {release.name}: the target {target.contract} names "
                                     f"{', '.join(sorted(unknown))}, not among its scenarios")
    return plan


def _version_key(version: str) -> tuple[int, ...]:
    """A release's place in its order: its numbers (1.18.33 → (1, 18, 33)); text between them separates."""
    return tuple(int(part) for part in re.findall(r"\d+", version)[:4])


def release_of(releases: Sequence[Release], version: str) -> Release:
    """The release `version` of a CLI: its live.yaml entry, or, for a version live.yaml does not list, one derived
    from the nearest recorded release (the latest at or before it, else the first after it): its scenarios and
    targets, installed from the CLI's npm package at that version and labelled by it in every report and provenance
    (`based_on` names the recorded one). ValueError when the version is no release number or the CLI has no npm
    package to install it from."""
    for release in releases:
        if release.version == version:
            return release
    if not re.fullmatch(r"\d+(\.\d+){0,3}([-+][0-9A-Za-z.-]+)?", version):
        raise ValueError(f"{version!r} is not a release number (like {releases[-1].version})")
    npm = next((r.npm for r in reversed(releases) if r.npm is not None), None)
    if npm is None:
        raise ValueError(f"{releases[0].cli} has no npm package in {PLAN.name} to install {version} from")
    key = _version_key(version)
    ordered = sorted(releases, key=lambda r: _version_key(r.version))
    before = [r for r in ordered if _version_key(r.version) <= key]
    nearest = before[-1] if before else ordered[0]
    return dataclasses.replace(nearest, version=version, executable="", npm=npm, pypi=None,
                               based_on=nearest.version)


def _targets(raw: Iterable[Mapping[str, Any]]) -> tuple[Target, ...]:
    return tuple(Target(t["contract"], t["role"], t.get("scope"),
                        None if t.get("scenarios") is None else tuple(t["scenarios"])) for t in raw)


ALL_SESSIONS = "all sessions"  # the row certifying every session capture of a release together
ALL_SCENARIOS = "all scenarios"  # the row certifying every scenario's capture of a release together (`together`)


def targets_of(release: Release, scenario: str) -> tuple[Target, ...]:
    """The targets a row certifies against: a target naming `scenarios` certifies only theirs (Claude Code's
    stream-json captures against claude-code-stream, its single-JSON ones against claude-code-print)."""
    if scenario in release.groups():
        return release.groups()[scenario][1]
    targets = release.certify_sessions if scenario in release.sessions else release.certify
    return tuple(t for t in targets if t.scenarios is None or scenario in t.scenarios)


def captures_of(folder: Path, release: Release, scenario: str) -> list[Path]:
    names = release.groups()[scenario][0] if scenario in release.groups() else (scenario,)
    return [folder / f"{name}.framed.ndjson" for name in names]


# What a certification reads of a live run's outcome (certify/evaluate.py Certification.run): all a replay needs to
# judge a recorded capture as the live tier judged it
RUN_KEYS = ("ok", "heard", "problem", "exit_code")


def run_outcome(run: Mapping[str, Any]) -> dict[str, Any]:
    """The outcome of a run (RunRecord.as_run()'s) as certified: a program the harness had to stop did not end its
    run well, whatever the steps said."""
    outcome = {key: run["outcome"][key] for key in RUN_KEYS}
    if run["outcome"]["stopped_by_harness"] and outcome["ok"]:
        ending = run["outcome"]["ending"]
        outcome.update(ok=False, problem="the harness had to stop it" + (f": {ending}" if ending else ""))
    return outcome


def together(outcomes: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The outcome of a group row: its runs as one. Ok when every run was; else the first failed run's problem,
    named; heard when any run was."""
    failed = [(name, outcome) for name, outcome in outcomes.items() if not outcome["ok"]]
    if not failed:
        return {"ok": True, "heard": True, "problem": None, "exit_code": None}
    name, first = failed[0]
    return {"ok": False, "heard": any(outcome["heard"] for outcome in outcomes.values()),
            "problem": f"{name}: {first['problem']}", "exit_code": None}


def recorded_outcome(provenance: Mapping[str, Any], release: Release, scenario: str) -> dict[str, Any]:
    """A row's run outcome as provenance.yaml recorded it (a group row's: its runs together)."""
    runs = provenance["scenarios"]
    if scenario in release.groups():
        return together({name: recorded_outcome(provenance, release, name) for name in release.groups()[scenario][0]})
    return {key: runs[scenario]["run"][key] for key in RUN_KEYS}


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "wirecheck" / "live"


class InstallFailed(Exception):
    """The release could not be installed: nothing of it ran (its closing verdict is run failed)."""


def install(release: Release, cache: Path) -> Path:
    """The release's executable, installed into `cache` unless it already is there; InstallFailed saying why not."""
    from wirecheck.programs.program import NETWORK_ENV, Scratch, run

    where = cache / release.name
    if (executable := _executable(where, release)) is not None:
        return executable
    where.mkdir(parents=True, exist_ok=True)
    # as wirecheck runs every program (wirecheck.programs): a scratch HOME, so neither npm's nor pip's user
    # configuration or cache is the user's; their settings given as variables pass (importer.npm.run_npm; PIP_*)
    if release.npm is not None:
        from wirecheck.importer.npm import run_npm

        try:
            done = run_npm("npm", ["install", "--prefix", str(where.absolute()), "--no-audit", "--no-fund",
                                   "--no-save", f"{release.npm}@{release.version}"], timeout=INSTALL_SECONDS,
                           needs="the live tier installs this CLI from npm")
        except RuntimeError as exc:
            raise InstallFailed(str(exc)) from None
    else:
        with Scratch.create() as scratch:
            done = run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                        str(release.pypi), "-d", str((where / "wheel").absolute())],
                       env=scratch.env(pass_through=(*NETWORK_ENV, "PYTHONPATH"), pass_prefixes=("PIP_",)),
                       timeout=INSTALL_SECONDS, scratch=scratch)
    if (failure := done.failure()) is not None:
        raise InstallFailed(f"installing {release.package} {failure}")
    if release.pypi is not None:
        wheel = next((where / "wheel").glob("*.whl"))
        with zipfile.ZipFile(wheel) as archive:
            archive.extract(release.executable, where)
        (where / release.executable).chmod(0o755)
    if (executable := _executable(where, release)) is None:
        raise InstallFailed(f"{release.package} installed no "
                            f"{release.executable or 'executable (its package.json `bin` names none)'}")
    return executable


def _executable(where: Path, release: Release) -> Path | None:
    """The release's executable if it is installed under `where`: the file live.yaml names, or, for a release it
    does not list, the one its npm package declares."""
    if not release.executable:
        return _npm_executable(where, release)
    executable = where / release.executable
    return executable if executable.is_file() else None


def _npm_executable(where: Path, release: Release) -> Path | None:
    """The executable an npm package installed under `where` declares (package.json `bin`: its one entry, or the one
    named like the CLI); InstallFailed when the package there is another version than the release's."""
    package = where / "node_modules" / str(release.npm)
    try:
        manifest = json.loads((package / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(manifest, dict):  # not a package's manifest: nothing installed there names an executable
        return None
    if manifest.get("version") != release.version:
        raise InstallFailed(f"{where} holds {release.npm} {manifest.get('version')!r}, not {release.version}")
    bins = manifest.get("bin")
    if isinstance(bins, dict):
        named = [path for name, path in bins.items() if name == release.cli or release.cli.startswith(name)]
        bins = next(iter(bins.values())) if len(bins) == 1 else (named[0] if len(named) == 1 else None)
    if not isinstance(bins, str):
        return None
    executable = (package / bins).resolve()
    return executable if executable.is_file() and executable.is_relative_to(package.resolve()) else None


def summary(cert: Any) -> dict[str, Any]:
    """What a certification (of a capture with its run's outcome) says, as the live tier records it and the replay
    compares it: the verdict includes the run's (`run`: "completed (exit status 0)", "failed: <problem>")."""
    must = next(s for s in cert.scores if s.level == "MUST")
    by_status: dict[str, list[str]] = {}
    for result in cert.results:
        if result.requirement.level == "MUST":
            by_status.setdefault(result.status, []).append(result.requirement.id)
    return {"verdict": cert.verdict, "exit_code": cert.exit_code, "run": cert.run_line or None,
            "must": {"total": must.total, "passed": must.passed, "failed": must.failed,
                     "not_exercised": must.not_exercised, "out_of_scope": must.out_of_scope},
            "must_by_status": {k: sorted(v) for k, v in sorted(by_status.items())}}


def certify_capture(target: Target, capture: Path | list[Path], run: Mapping[str, Any] | None = None) -> Any:
    """`run`: certify_captures's (`identity`, and `outcome`: a replay gives the recorded one alone)."""
    from wirecheck.certify.pipeline import certify_captures
    from wirecheck.contracts import load_registry

    registry = load_registry()
    scope = None if target.scope is None else PLAN.parent / target.scope
    captures = capture if isinstance(capture, list) else [capture]
    return certify_captures(registry.load(target.contract), captures, role=target.role, baseline=scope,
                            load_release=registry.load, run=dict(run) if run is not None else None)


def run_release(release: Release, executable: Path, out: Path, record: Path | None,
                scenarios: Iterable[str] | None = None,
                step_timeouts: Mapping[str, float] | None = None, pass_env: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Run the release through its scenarios; the table rows (scenario, contract, run, summary), each certified with
    its run's outcome, then a row per group (every scenario run here) certified with their outcomes together."""
    from wirecheck.certify.report import FORMATS, write_folder

    rows = []
    kept = record / release.name if record is not None else None
    provenance: dict[str, Any] = {}
    expected: dict[str, Any] = {}
    outcomes: dict[str, dict[str, Any]] = {}
    if kept is not None:
        kept.mkdir(parents=True, exist_ok=True)

    def certified(name: str, targets: Iterable[Target], captures: list[Path], run: dict[str, Any]) -> None:
        for target in targets:
            cert = certify_capture(target, captures, run)
            folder = out / release.name / name.replace(" ", "-") / target.contract.replace("@", "-")
            folder.mkdir(parents=True, exist_ok=True)
            write_folder(cert, folder)
            said = summary(cert)
            rows.append({"release": release.name, "scenario": name, "contract": target.contract, **said})
            expected.setdefault(name, {})[target.contract] = said
            print(f"   {target.contract} ({target.role}): {cert.verdict.upper()} — {cert.badge.message}")
            if cert.verdict != "certified":
                FORMATS["text"](cert, sys.stdout)

    for name in scenarios or (*release.scenarios, *release.sessions):
        folder = out / release.name / name
        folder.mkdir(parents=True, exist_ok=True)
        capture = folder / f"{name}.framed.ndjson"
        scenario = load_scenario(SHIPPED_SCENARIOS / f"{name}.yaml")
        if step_timeouts:
            scenario = with_step_timeouts(scenario, dict(step_timeouts))
        record_run = run_scenario([str(executable)], scenario, capture, pass_env=pass_env)
        run = record_run.as_run()
        run["identity"]["implementation"] = implementation(release)
        outcomes[name] = outcome = run_outcome(run)
        steps = "; ".join(f"{s.index + 1} {s.action} {s.status}{': ' + s.detail if s.status != 'ok' else ''}"
                          for s in record_run.steps)
        print(f"== {release.name} {name}: run {'ok' if outcome['ok'] else 'FAILED'} in {record_run.duration:.1f} s "
              f"(exit {record_run.exit_code}); {len(record_run.problems)} problem(s)")
        if not outcome["ok"]:
            print(f"   steps: {steps}\n   problems: {record_run.problems}\n   stderr: {record_run.stderr_tail[-500:]}")
        certified(name, targets_of(release, name), [capture], {**run, "outcome": {**run["outcome"], **outcome}})
        if kept is not None:
            shutil.copyfile(capture, kept / capture.name)
            if record_run.model_evidence is not None and record_run.model_evidence.is_file():
                shutil.copyfile(record_run.model_evidence, kept / record_run.model_evidence.name)
            provenance[name] = {
                "command": [Path(release.executable or executable).name, *scenario.argv],
                "env": dict(scenario.env),
                "scenario_sha256": sha256_file(SHIPPED_SCENARIOS / f"{name}.yaml"),
                "run": {**outcome, "problems": record_run.problems, "steps": steps,
                        "duration_seconds": round(record_run.duration, 1)},
            }
    for group, (names, targets) in release.groups().items():
        if not all(name in outcomes for name in names):
            continue  # a group row judges every one of its scenarios, or none
        print(f"== {release.name} {group}")
        certified(group, targets, [out / release.name / n / f"{n}.framed.ndjson" for n in names],
                  {"outcome": together({n: outcomes[n] for n in names})})
    if kept is not None:
        head = {"cli": release.cli, "version": release.version, "package": release.package,
                **({"scenarios_of": f"{release.cli}@{release.based_on} (the nearest release {PLAN.name} records)"}
                   if release.based_on else {}),
                "executable": release.executable or _installed_path(executable),
                "executable_sha256": sha256_file(executable),
                "recorded": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d"),
                "recorded_by": f"python -m wirecheck.harness.live {release.cli} --version {release.version} "
                               f"--record {record}",
                "offline": "the CLI talked only to the scenario's scripted model on 127.0.0.1 (or its fake-responses "
                           "file); the registry was used to install it"}
        old = _read(kept / "provenance.yaml").get("scenarios", {}) if scenarios else {}
        _write(kept / "provenance.yaml", {**head, "scenarios": {**old, **provenance}})
        old_expected = _read(kept / "expected.yaml") if scenarios else {}
        _write(kept / "expected.yaml", {**old_expected, **expected})
    return rows


def implementation(release: Release) -> str:
    """What a live run's reports name as the program certified: the release by its own version, its package, and
    whose scenarios it ran when live.yaml does not list it."""
    based = f", with the scenarios of {release.cli}@{release.based_on}" if release.based_on else ""
    return f"{release.name} ({release.package}{based})"


def _installed_path(executable: Path) -> str:
    """Where an executable lies in its package folder (from `node_modules/` on), as live.yaml names executables."""
    parts = executable.parts
    return str(Path(*parts[parts.index("node_modules"):])) if "node_modules" in parts else executable.name


def release_closing(release: Release, rows: list[dict[str, Any]]) -> Closing:
    """The release's closing verdict from its rows: the worst, and which row made it. A row's INCOMPLETE is left to
    its group's row, when that row is in the table: a gap one scenario leaves, another may fill."""
    grouped = {(name, target.contract) for group, (names, targets) in release.groups().items()
               if any(row["scenario"] == group for row in rows) for name in names for target in targets}
    return closing(release.name, [(f"{row['scenario']} against {row['contract']}", row["verdict"], row["exit_code"])
                                  for row in rows if not (row["verdict"] == "incomplete"
                                                          and (row["scenario"], row["contract"]) in grouped)])


def _read(path: Path) -> dict[str, Any]:
    return read_yaml_file(path) or {} if path.is_file() else {}


def _write(path: Path, value: Mapping[str, Any]) -> None:
    path.write_text(yaml.safe_dump(dict(value), sort_keys=False, allow_unicode=True, width=120), encoding="utf-8")


def table(rows: list[dict[str, Any]]) -> str:
    """The closing table: CLI and version, scenario, contract, verdict, the run, MUST passed / failed / not exercised /
    out of scope."""
    lines = ["| CLI | scenario | contract | verdict | run | MUST passed | failed | not exercised | out of scope |",
             "|---|---|---|---|---|---:|---:|---:|---:|"]
    for row in rows:
        must = row["must"]
        run = "ok" if row["run"] is None or row["run"].startswith("completed") else "FAILED"
        lines.append(f"| {row['release']} | {row['scenario']} | {row['contract']} | {row['verdict']} | {run} | "
                     f"{must['passed']}/{must['total']} | {must['failed']} | {must['not_exercised']} | "
                     f"{must['out_of_scope']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    plan = load_plan()
    parser = argparse.ArgumentParser(prog="python -m wirecheck.harness.live", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cli", choices=sorted(plan))
    parser.add_argument("--version", action="append",
                        help="only this release (repeatable); default: every one live.yaml lists. A release it does "
                             "not list is installed from npm and run with the nearest listed release's scenarios")
    parser.add_argument("--scenario", action="append", help="only this scenario (repeatable)")
    parser.add_argument("--executable", type=Path, help="run this executable instead of installing (one --version)")
    parser.add_argument("--pass-env", action="append", default=[], metavar="NAME",
                        help="pass this variable to the CLI (repeatable): a wrapper's, where the real CLI is")
    parser.add_argument("--step-timeout", action="append", default=[], metavar="STEP=SECONDS",
                        help="a step's limit (its number, or an action: wait_exit=90) in every scenario run")
    parser.add_argument("--out", type=Path, default=Path("reports/live"))
    parser.add_argument("--record", type=Path, help="keep captures, provenance and expectations here")
    args = parser.parse_args(argv)
    try:
        releases = [release_of(plan[args.cli], v) for v in args.version] if args.version else plan[args.cli]
    except ValueError as exc:
        parser.error(f"--version {exc}")
    if args.executable is not None:
        if len(releases) > 1:
            parser.error(f"--executable runs one release: give one --version of {[r.version for r in releases]}")
        if not (args.executable.is_file() and os.access(args.executable, os.X_OK)):
            parser.error(f"--executable {args.executable}: no executable file there")
    for name in args.scenario or ():
        if any(name not in (*r.scenarios, *r.sessions) for r in releases):
            parser.error(f"--scenario {name}: not a scenario of {', '.join(r.name for r in releases)}")
    try:
        step_timeouts = parse_step_timeouts(args.step_timeout)
        for release in releases:  # every scenario to run has the steps named, before any runs
            for name in args.scenario or (*release.scenarios, *release.sessions):
                with_step_timeouts(load_scenario(SHIPPED_SCENARIOS / f"{name}.yaml"), step_timeouts)
    except ValueError as exc:
        parser.error(f"--step-timeout {exc}")
    rows: list[dict[str, Any]] = []
    closings = []
    for release in releases:
        if release.based_on is not None:
            print(f"== {release.name}: not in {PLAN.name}; run with the scenarios and targets of "
                  f"{release.cli}@{release.based_on}, the nearest release it records")
        try:
            executable = args.executable or install(release, cache_root())
        except InstallFailed as exc:
            print(f"== {release.name}: {exc}")
            closings.append(Closing(release.name, "run failed", exitcodes.RUN_FAILED, f"not installed: {exc}"))
            continue
        ran = run_release(release, executable, args.out, args.record, args.scenario, step_timeouts, args.pass_env)
        rows += ran
        closings.append(release_closing(release, ran))
    report = "\n".join([table(rows), "", *(c.line() for c in closings)])
    print(report)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{args.cli}.md").write_text(report + "\n", encoding="utf-8")
    return worst(c.exit_code for c in closings)


if __name__ == "__main__":
    raise SystemExit(main())
