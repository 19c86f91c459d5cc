"""pytest plugin (entry point `pytest11 = wirecheck`): gate an adapter's own pytest run on conformance.

    pytest --wirecheck-contract qoder-agent-sdk@1.0.23 --wirecheck-capture out.jsonl [--wirecheck-role cli]

adds one test item per requirement of the release's requirement set (or `--wirecheck-requirements`). The items
run after the adapter's own tests, so those tests can write the capture; the captures are certified once, on
the first item. A failed requirement fails its item with the findings behind it; a requirement not exercised
fails at a failing level (`--wirecheck-fail-on`, default MUST: the run is incomplete) and is skipped below it,
unless the scope file (`--wirecheck-scope`, also `--wirecheck-baseline`) declares it out of scope (skipped, with the
reason and evidence); a baselined failure is an xfail; a scope-file entry the run shows wrong fails (a baselined
requirement that passes, an out-of-scope one exercised and passed). Options may also be set in the ini file:
`wirecheck_contract`, `wirecheck_captures` (one per line), `wirecheck_role`, `wirecheck_baseline`.
Without a contract the plugin adds nothing. Under pytest-xdist every worker certifies on its own: write the
capture in a session-scoped fixture (or run the gate without -n) so it exists on every worker.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

_STASH_CERT = pytest.StashKey[Any]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("wirecheck", "wire-protocol certification (wirecheck)")
    group.addoption("--wirecheck-contract", metavar="PKG@VER", help="Certify captures against this release.")
    group.addoption("--wirecheck-capture", action="append", default=[], metavar="PATH",
                    help="A capture to certify (repeatable); may be written by the tests of this run.")
    group.addoption("--wirecheck-requirements", metavar="PATH", help="Requirement set (default: the release's).")
    group.addoption("--wirecheck-scope", "--wirecheck-baseline", dest="wirecheck_baseline", metavar="PATH",
                    help="Scope file: expected_failures (id + reason), out_of_scope (id + reason + evidence).")
    group.addoption("--wirecheck-role", metavar="ROLE", help="Certify only the requirements on this role.")
    group.addoption("--wirecheck-fail-on", default=None, metavar="LEVEL", help="MUST (default) | SHOULD | MAY.")
    group.addoption("--wirecheck-contracts", metavar="DIR", help="Contracts folder (default: bundled).")
    group.addoption("--wirecheck-report", metavar="DIR", help="Also write every report format here.")
    parser.addini("wirecheck_contract", "release to certify against (PKG@VER)", default=None)
    parser.addini("wirecheck_captures", "captures to certify, one per line", type="linelist", default=[])
    parser.addini("wirecheck_role", "role to certify", default=None)
    parser.addini("wirecheck_baseline", "scope file (expected failures, out of scope)", default=None)


def _setting(config: pytest.Config, option: str, ini: str) -> tuple[Any, bool]:
    """(value, from the ini file?)"""
    value = config.getoption(option)
    return (value, False) if value else (config.getini(ini) or None, True)


def _given_without_contract(config: pytest.Config) -> list[str]:
    """The wirecheck options and ini settings given (an empty --wirecheck-contract among them), where no contract is:
    without one the plugin would certify nothing, and the run pass."""
    given = ["an empty --wirecheck-contract"] if config.getoption("wirecheck_contract") is not None else []
    for dest in ("wirecheck_capture", "wirecheck_requirements", "wirecheck_baseline", "wirecheck_role",
                 "wirecheck_fail_on", "wirecheck_contracts", "wirecheck_report"):
        if config.getoption(dest):
            given.append("--" + dest.replace("_", "-").replace("baseline", "scope"))
    for ini in ("wirecheck_captures", "wirecheck_role", "wirecheck_baseline"):
        if config.getini(ini):
            given.append(f"{ini} (ini)")
    return given


class _Settings:
    """Paths on the command line are relative to where pytest was started; paths in the ini file to its folder."""

    def __init__(self, config: pytest.Config):
        here = Path(str(config.invocation_params.dir))
        ini_dir = Path(str(config.inipath.parent)) if config.inipath else Path(str(config.rootpath))

        def path(value: str, from_ini: bool) -> Path:
            given = Path(value)
            return given if given.is_absolute() else (ini_dir if from_ini else here) / given

        self.contract: str | None = _setting(config, "wirecheck_contract", "wirecheck_contract")[0]
        captures = config.getoption("wirecheck_capture")
        from_ini = not captures
        self.captures = [path(c, from_ini) for c in (captures or config.getini("wirecheck_captures"))]
        requirements = config.getoption("wirecheck_requirements")
        self.requirements = path(requirements, False) if requirements else None
        baseline, from_ini = _setting(config, "wirecheck_baseline", "wirecheck_baseline")
        self.baseline = path(baseline, from_ini) if baseline else None
        self.role: str | None = _setting(config, "wirecheck_role", "wirecheck_role")[0]
        self.fail_on = (config.getoption("wirecheck_fail_on") or "MUST").upper()
        contracts = config.getoption("wirecheck_contracts")
        self.contracts = path(contracts, False).resolve() if contracts else None
        report = config.getoption("wirecheck_report")
        self.report = path(report, False) if report else None


def _problems(exc: Any) -> str:
    """A ContractError's problems, one after another (a problem without a file is just its message)."""
    from wirecheck.contracts.errors import located

    return "; ".join(str(p) if p.file else p.message for p in located(exc.problems))


class WirecheckError(Exception):
    """A usage or contract problem: shown as one located message, not a traceback."""


class _Session:
    """What every item shares: the release, the requirement set, and (once computed) the certification."""

    def __init__(self, settings: _Settings):
        from wirecheck.certify.baseline import EMPTY, load_baseline
        from wirecheck.certify.pipeline import load_set
        from wirecheck.certify.requirements import LEVELS
        from wirecheck.contracts import ContractError, load_registry

        self.settings = settings
        assert settings.contract is not None
        if settings.fail_on not in LEVELS:
            from wirecheck.findings import printable

            raise pytest.UsageError(f"wirecheck: --wirecheck-fail-on {printable(settings.fail_on)}: expected one of "
                                    f"{', '.join(LEVELS)}")
        try:
            self.registry = load_registry(settings.contracts)
            self.release = self.registry.load(settings.contract)
            self.requirements = load_set(self.release, settings.requirements)
            # the baseline is input, not something the tests write: a broken one stops the run before it starts
            self.baseline = EMPTY if settings.baseline is None else load_baseline(
                settings.baseline, {r.id for r in self.requirements})
        except ContractError as exc:
            raise pytest.UsageError("wirecheck: " + _problems(exc)) from None
        if settings.role is not None and settings.role not in self.release.roles:
            raise pytest.UsageError(f"wirecheck: no role {settings.role!r} in {self.release.name} "
                                    f"(roles: {', '.join(self.release.roles)})")
        if settings.report is not None:
            try:
                settings.report.mkdir(parents=True, exist_ok=True)
            except FileExistsError:
                raise pytest.UsageError(f"wirecheck: --wirecheck-report {settings.report}: cannot write: a file "
                                        "stands where this folder (or one above it) should be") from None
            except OSError as exc:
                raise pytest.UsageError(f"wirecheck: --wirecheck-report {settings.report}: cannot write: "
                                        f"{exc.strerror or exc}") from None
        self._certification: Any = None
        self._error: str | None = None

    def certification(self) -> Any:
        if self._certification is None and self._error is None:
            from wirecheck.certify.pipeline import certify_captures
            from wirecheck.contracts import ContractError

            folders = [str(p) for p in self.settings.captures if p.is_dir()]
            missing = [str(p) for p in self.settings.captures if not p.exists()]
            if not self.settings.captures:
                self._error = "no capture given (--wirecheck-capture PATH or the wirecheck_captures ini option)"
            elif missing:
                self._error = f"capture not found: {', '.join(missing)} (did the tests that write it run?)"
            elif folders:
                self._error = f"a capture is a folder, not a file: {', '.join(folders)}"
            else:
                try:
                    self._certification = certify_captures(
                        self.release, self.settings.captures, requirements=self.requirements,
                        baseline=self.baseline, role=self.settings.role, fail_on=self.settings.fail_on,
                        load_release=self.registry.load)
                except ContractError as exc:
                    self._error = _problems(exc)
                except OSError as exc:  # a capture that cannot be read (permissions, vanished while reading)
                    self._error = f"cannot read a capture: {exc.filename or ''}: {exc.strerror or exc}"
                if self._certification is not None and self.settings.report is not None:
                    self._write_reports(self.settings.report)
        if self._error is not None:
            raise WirecheckError(self._error)
        return self._certification

    def _write_reports(self, folder: Path) -> None:
        import warnings

        from wirecheck.certify.report import write_folder
        from wirecheck.output_files import Unwritable

        assert self._certification is not None
        try:
            write_folder(self._certification, folder)  # every format and the badge, as `certify --out-dir` writes
        except Unwritable as exc:  # the report is extra: each item's verdict still stands, the run says why
            warnings.warn(pytest.PytestWarning(f"wirecheck: {exc.path}: cannot write the report: {exc.reason}"),
                          stacklevel=1)


class RequirementItem(pytest.Item):
    def __init__(self, *, requirement: Any, session_state: _Session, **kwargs: Any):
        super().__init__(**kwargs)
        self.requirement = requirement
        self.state = session_state
        self.add_marker(pytest.mark.wirecheck)
        self.add_marker(getattr(pytest.mark, f"wirecheck_{requirement.level.lower()}"))

    def runtest(self) -> None:
        from wirecheck.certify.evaluate import (
            EXPECTED_FAIL,
            FAIL,
            NOT_EXERCISED,
            OUT_OF_SCOPE,
            STALE_SCOPE,
            UNEXPECTED_PASS,
        )

        cert = self.state.certification()
        result = next(r for r in cert.results if r.requirement.id == self.requirement.id)
        level = self.requirement.level
        if result.status == FAIL:
            raise RequirementFailed(result, f"{level} requirement failed")
        if result.status == UNEXPECTED_PASS:
            raise RequirementFailed(result, "passes but is listed in the baseline as an expected failure; "
                                            "remove the entry")
        if result.status == STALE_SCOPE:
            raise RequirementFailed(result, "was exercised and passes, but the scope file declares it out of scope; "
                                            "remove the entry")
        if result.status == EXPECTED_FAIL:
            pytest.xfail(f"baseline: {result.baseline_reason}")
        if result.status == OUT_OF_SCOPE:
            pytest.skip(f"out of scope: {result.scope.reason} (evidence: {result.scope.evidence})")
        if result.status == NOT_EXERCISED:
            if result.gap and level in cert.failing_levels():
                raise RequirementFailed(result, f"{level} requirement not exercised by the captures (the run is "
                                                "incomplete; a scope file can declare what it cannot reach)")
            pytest.skip(f"{level} requirement not exercised by the captures")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, RequirementFailed):
            return excinfo.value.render(self.requirement)
        if isinstance(excinfo.value, WirecheckError):
            return f"wirecheck: {excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        line = (self.requirement.line - 1) if self.requirement.line else None
        return self.state.requirements.path, line, f"wirecheck {self.requirement.id}"


class RequirementFailed(Exception):
    def __init__(self, result: Any, headline: str):
        super().__init__(headline)
        self.result, self.headline = result, headline

    def render(self, requirement: Any) -> str:
        from wirecheck.report.summary import finding_line

        lines = [f"{requirement.id}: {self.headline}", f"  {requirement.text}",
                 f"  checks {requirement.link.element}"]
        for finding in self.result.failures[:20]:
            lines.append(f"  {finding_line(finding)}")
        if len(self.result.failures) > 20:
            lines.append(f"  … {len(self.result.failures) - 20} more")
        return "\n".join(lines)


class RequirementSetNode(pytest.Collector):
    def __init__(self, *, session_state: _Session, **kwargs: Any):
        super().__init__(**kwargs)
        self.state = session_state

    def collect(self) -> list[pytest.Item]:
        role = self.state.settings.role
        return [
            RequirementItem.from_parent(self, name=req.id, requirement=req, session_state=self.state)
            for req in self.state.requirements
            if role is None or req.subject in (role, "any")
        ]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "wirecheck: a wirecheck certification requirement")
    for level in ("must", "should", "may"):
        config.addinivalue_line("markers", f"wirecheck_{level}: a {level.upper()} wirecheck requirement")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    settings = _Settings(config)
    if not settings.contract:
        given = _given_without_contract(config)
        if given:  # a gate whose contract went missing (a typo, an unset variable) must not pass certifying nothing
            raise pytest.UsageError(f"wirecheck: {' and '.join(given)} given without a contract to certify against "
                                    "(--wirecheck-contract PKG@VER, or wirecheck_contract in the ini file)")
        return
    state = _Session(settings)
    config.stash[_STASH_CERT] = state
    name = f"wirecheck[{state.release.name}]"
    node = RequirementSetNode.from_parent(session, name=name, nodeid=name, session_state=state)
    items.extend(node.collect())
