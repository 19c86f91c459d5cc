"""The live tiers: real agent CLIs from their registries, run offline through the shipped scenarios and certified.

    python -m wirecheck.harness.live claude-code [--version 2.1.332] [--out reports/live] [--record fixtures/live]

What runs is data (live.yaml beside this file): per CLI release, where it comes from (an npm package and the
executable it installs, or a PyPI wheel and the file in it), its scenarios, and the contracts each capture is
certified against (the CLI's own, and Navarch 0.1.53's reading of it). Packages are installed into the user's cache
(`$XDG_CACHE_HOME/wirecheck/live`, kept between runs) through `wirecheck.programs`, like the CLIs themselves; the
only network the tier uses is the package registry, for the install. Every run's reports land in `--out`.

`--record DIR` keeps the evidence for the default tests, which replay it without Node or the network
(suites/harness/test_live_captures.py): per release `DIR/<cli>@<version>/` holds each scenario's capture and its
model side (`.model.har` or `.model.jsonl`), `provenance.yaml` (package, version, the command as run, the date, the
executable's digest) and `expected.yaml`, the certification of each capture as `summary()` states it.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shutil
import sys
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from wirecheck.certify.identity import sha256_file
from wirecheck.harness.runner import SHIPPED_SCENARIOS, run_scenario
from wirecheck.harness.scenario import load_scenario
from wirecheck.yaml_lines import read_yaml_file

PLAN = Path(__file__).with_name("live.yaml")
INSTALL_SECONDS = 1200.0


@dataclass(frozen=True)
class Target:
    contract: str
    role: str
    scope: str | None = None  # a scope file, relative to live.yaml


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

    @property
    def name(self) -> str:
        return f"{self.cli}@{self.version}"

    @property
    def package(self) -> str:
        return f"{self.npm}@{self.version} (npm)" if self.npm else f"{self.pypi} (PyPI wheel)"


def load_plan(path: Path = PLAN) -> dict[str, list[Release]]:
    raw = read_yaml_file(path, what="live tier plan")  # the one YAML loader: NaN, sets, alias bombs refused
    plan: dict[str, list[Release]] = {}
    for cli, releases in raw["clis"].items():
        plan[cli] = [Release(cli, str(r["version"]), r["executable"], tuple(r["scenarios"]), _targets(r["certify"]),
                             r.get("npm"), r.get("pypi"), tuple(r.get("sessions", ())),
                             _targets(r.get("certify_sessions", ()))) for r in releases]
    return plan


def _targets(raw: Iterable[Mapping[str, Any]]) -> tuple[Target, ...]:
    return tuple(Target(t["contract"], t["role"], t.get("scope")) for t in raw)


ALL_SESSIONS = "all sessions"  # the row certifying every session capture of a release together


def targets_of(release: Release, scenario: str) -> tuple[Target, ...]:
    return release.certify_sessions if scenario in release.sessions or scenario == ALL_SESSIONS else release.certify


def captures_of(folder: Path, release: Release, scenario: str) -> list[Path]:
    names = release.sessions if scenario == ALL_SESSIONS else (scenario,)
    return [folder / f"{name}.framed.ndjson" for name in names]


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "wirecheck" / "live"


def install(release: Release, cache: Path) -> Path:
    """The release's executable, installed into `cache` unless it already is there."""
    from wirecheck.programs.program import NETWORK_ENV, Scratch, run

    where = cache / release.name
    executable = where / release.executable
    if executable.is_file():
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
            raise SystemExit(str(exc)) from None
    else:
        with Scratch.create() as scratch:
            done = run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                        str(release.pypi), "-d", str((where / "wheel").absolute())],
                       env=scratch.env(pass_through=(*NETWORK_ENV, "PYTHONPATH"), pass_prefixes=("PIP_",)),
                       timeout=INSTALL_SECONDS, scratch=scratch)
    if (failure := done.failure()) is not None:
        raise SystemExit(f"installing {release.package} {failure}")
    if release.pypi is not None:
        wheel = next((where / "wheel").glob("*.whl"))
        with zipfile.ZipFile(wheel) as archive:
            archive.extract(release.executable, where)
        executable.chmod(0o755)
    if not executable.is_file():
        raise SystemExit(f"{release.package} installed no {release.executable}")
    return executable


def summary(cert: Any) -> dict[str, Any]:
    """What a certification says, as the live tier records it and the replay compares it."""
    must = next(s for s in cert.scores if s.level == "MUST")
    by_status: dict[str, list[str]] = {}
    for result in cert.results:
        if result.requirement.level == "MUST":
            by_status.setdefault(result.status, []).append(result.requirement.id)
    return {"verdict": cert.verdict, "exit_code": cert.exit_code,
            "must": {"total": must.total, "passed": must.passed, "failed": must.failed,
                     "not_exercised": must.not_exercised, "out_of_scope": must.out_of_scope},
            "must_by_status": {k: sorted(v) for k, v in sorted(by_status.items())}}


def certify_capture(target: Target, capture: Path | list[Path], run: Mapping[str, Any] | None = None) -> Any:
    from wirecheck.certify.pipeline import certify_captures
    from wirecheck.contracts import load_registry

    registry = load_registry()
    scope = None if target.scope is None else PLAN.parent / target.scope
    captures = capture if isinstance(capture, list) else [capture]
    return certify_captures(registry.load(target.contract), captures, role=target.role, baseline=scope,
                            load_release=registry.load, run=dict(run) if run is not None else None)


def run_release(release: Release, executable: Path, out: Path, record: Path | None,
                scenarios: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """Run the release through its scenarios; the table rows (scenario, contract, summary, run outcome)."""
    from wirecheck.certify.report import FORMATS, write_folder

    rows = []
    kept = record / release.name if record is not None else None
    provenance: dict[str, Any] = {}
    expected: dict[str, Any] = {}
    if kept is not None:
        kept.mkdir(parents=True, exist_ok=True)
    for name in scenarios or (*release.scenarios, *release.sessions):
        folder = out / release.name / name
        folder.mkdir(parents=True, exist_ok=True)
        capture = folder / f"{name}.framed.ndjson"
        scenario = load_scenario(SHIPPED_SCENARIOS / f"{name}.yaml")
        record_run = run_scenario([str(executable)], scenario, capture)
        run = record_run.as_run()
        steps = "; ".join(f"{s.index + 1} {s.action} {s.status}{': ' + s.detail if s.status != 'ok' else ''}"
                          for s in record_run.steps)
        print(f"== {release.name} {name}: run {'ok' if record_run.ok else 'FAILED'} in {record_run.duration:.1f} s "
              f"(exit {record_run.exit_code}); {len(record_run.problems)} problem(s)")
        if not record_run.ok:
            print(f"   steps: {steps}\n   problems: {record_run.problems}\n   stderr: {record_run.stderr_tail[-500:]}")
        for target in targets_of(release, name):
            cert = certify_capture(target, capture, run)
            (folder / target.contract.replace("@", "-")).mkdir(parents=True, exist_ok=True)
            write_folder(cert, folder / target.contract.replace("@", "-"))
            said = summary(certify_capture(target, capture))  # the capture alone: what a replay computes
            rows.append({"release": release.name, "scenario": name, "contract": target.contract,
                         "run_ok": record_run.ok, **said})
            print(f"   {target.contract} ({target.role}): {cert.verdict.upper()} — {cert.badge.message}")
            if cert.verdict != "certified":
                FORMATS["text"](cert, sys.stdout)
            expected.setdefault(name, {})[target.contract] = said
        if kept is not None:
            shutil.copyfile(capture, kept / capture.name)
            if record_run.model_evidence is not None and record_run.model_evidence.is_file():
                shutil.copyfile(record_run.model_evidence, kept / record_run.model_evidence.name)
            provenance[name] = {
                "command": [Path(release.executable).name, *scenario.argv],
                "env": dict(scenario.env),
                "scenario_sha256": sha256_file(SHIPPED_SCENARIOS / f"{name}.yaml"),
                "run": {"ok": record_run.ok, "exit_code": record_run.exit_code, "problems": record_run.problems,
                        "steps": steps, "duration_seconds": round(record_run.duration, 1)},
            }
    if release.sessions and not scenarios:
        for target in release.certify_sessions:
            cert = certify_capture(target, [out / release.name / n / f"{n}.framed.ndjson" for n in release.sessions])
            said = summary(cert)
            rows.append({"release": release.name, "scenario": ALL_SESSIONS, "contract": target.contract,
                         "run_ok": True, **said})
            print(f"== {release.name} {ALL_SESSIONS} {target.contract}: {cert.verdict.upper()} — "
                  f"{cert.badge.message}")
            expected.setdefault(ALL_SESSIONS, {})[target.contract] = said
    if kept is not None:
        head = {"cli": release.cli, "version": release.version, "package": release.package,
                "executable": release.executable, "executable_sha256": sha256_file(executable),
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


def _read(path: Path) -> dict[str, Any]:
    return read_yaml_file(path) or {} if path.is_file() else {}


def _write(path: Path, value: Mapping[str, Any]) -> None:
    path.write_text(yaml.safe_dump(dict(value), sort_keys=False, allow_unicode=True, width=120), encoding="utf-8")


def table(rows: list[dict[str, Any]]) -> str:
    """The closing table: CLI and version, scenario, contract, MUST passed / failed / not exercised / out of scope."""
    lines = ["| CLI | scenario | contract | verdict | MUST passed | failed | not exercised | out of scope |",
             "|---|---|---|---|---:|---:|---:|---:|"]
    for row in rows:
        must = row["must"]
        lines.append(f"| {row['release']} | {row['scenario']} | {row['contract']} | {row['verdict']} | "
                     f"{must['passed']}/{must['total']} | {must['failed']} | {must['not_exercised']} | "
                     f"{must['out_of_scope']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    plan = load_plan()
    parser = argparse.ArgumentParser(prog="python -m wirecheck.harness.live", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cli", choices=sorted(plan))
    parser.add_argument("--version", action="append", help="only this release (repeatable); default: every one")
    parser.add_argument("--scenario", action="append", help="only this scenario (repeatable)")
    parser.add_argument("--executable", type=Path, help="run this executable instead of installing (one --version)")
    parser.add_argument("--out", type=Path, default=Path("reports/live"))
    parser.add_argument("--record", type=Path, help="keep captures, provenance and expectations here")
    args = parser.parse_args(argv)
    releases = [r for r in plan[args.cli] if not args.version or r.version in args.version]
    if not releases:
        parser.error(f"no release {args.version} of {args.cli} in {PLAN}")
    rows = []
    for release in releases:
        executable = args.executable or install(release, cache_root())
        rows += run_release(release, executable, args.out, args.record, args.scenario)
    report = table(rows)
    print(report)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{args.cli}.md").write_text(report + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
