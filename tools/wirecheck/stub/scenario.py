"""How the xopc platform stub answers: a scenario (data: `scenarios/<name>.yaml`, format
`schemas/stub-scenario.schema.json`) and the command line's `--lease-seconds`, `--delay ROUTE=SECONDS` and
`--fault ROUTE=ANSWER[:once|always]` on top of it.

Routes: `discovery`, `heartbeat`, `lease`, `events` (every event call), `terminal` (an event call whose event ends
its run: the more specific, it wins over `events`), `renew`. A delay holds the answer back after the request was
read and acted on (the stub knows the run has ended while the runtime still waits); a fault answers a status (with a
JSON error body) or drops the connection without an answer, for the first matching request or every one.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

from wirecheck.contracts.errors import ContractError, ContractProblem
from wirecheck.yaml_lines import LINE_KEY, YamlFileError, parse_yaml, read_text, strip_lines

ROUTES = ("discovery", "heartbeat", "lease", "events", "terminal", "renew")
DEFAULT_LEASE_SECONDS = 3.0  # the worker renews every max(1 s, lease / 3): a 3 s lease renews every second
MAX_DELAY_SECONDS = 120.0
DEFAULT_SCENARIO = "normal"


@dataclass(frozen=True)
class Fault:
    route: str
    status: int | None  # None: drop the connection
    always: bool = False

    @property
    def spec(self) -> str:
        """As the command line gives it: `events=503 once`, `renew=drop always`."""
        return f"{self.route}={'drop' if self.status is None else self.status} {'always' if self.always else 'once'}"

    def describe(self) -> str:
        answer = "drop the connection" if self.status is None else f"answer {self.status}"
        return f"{self.route}: {answer} {'always' if self.always else 'once'}"


@dataclass(frozen=True)
class StubScenario:
    name: str = DEFAULT_SCENARIO
    description: str = ""
    lease_seconds: float = DEFAULT_LEASE_SECONDS
    commands: int | None = None  # None: the command line's --commands
    cancel_after_renewals: int | None = None  # ask for cancellation on the Nth renewal (--cancel-after-renewals wins)
    delays: dict[str, float] = field(default_factory=dict)  # route → seconds
    faults: tuple[Fault, ...] = ()
    file: str | None = None
    sha256: str | None = None  # of the bytes loaded from `file` (a named pipe cannot be read again)

    def delay_for(self, routes: tuple[str, ...]) -> float:
        """The delay of the most specific of `routes` (given most specific first) that has one."""
        return next((self.delays[r] for r in routes if r in self.delays), 0.0)

    def with_options(self, *, lease_seconds: float | None = None, delays: list[str] = (),  # type: ignore[assignment]
                     faults: list[str] = (),  # type: ignore[assignment]
                     cancel_after_renewals: int | None = None) -> StubScenario:
        """The scenario with the command line's settings on top (a delay given again replaces the scenario's)."""
        merged = dict(self.delays)
        merged.update(parse_delay(text) for text in delays)
        return replace(self, lease_seconds=self.lease_seconds if lease_seconds is None else lease_seconds,
                       delays=merged, faults=(*self.faults, *(parse_fault(text) for text in faults)),
                       cancel_after_renewals=cancel_after_renewals or self.cancel_after_renewals)

    def identity(self) -> dict[str, Any] | None:
        """The scenario file a run used, for the certification's identity block (the options on top of it are in
        the run's argv)."""
        if self.file is None:
            return None
        return {"path": self.file, "sha256": self.sha256}

    def describe(self) -> list[str]:
        lines = [f"scenario {self.name}: leases of {self.lease_seconds:g} s"]
        lines += [f"  delay {route}: {seconds:g} s" for route, seconds in self.delays.items()]
        lines += [f"  fault {fault.describe()}" for fault in self.faults]
        if self.cancel_after_renewals is not None:
            lines.append(f"  cancellation asked from renewal {self.cancel_after_renewals} of each command on")
        return lines


class OptionError(ValueError):
    """A --delay or --fault the stub cannot read: the message says what was expected."""


def _route(text: str, option: str) -> str:
    if text not in ROUTES:
        raise OptionError(f"{option}: unknown route {text!r}; expected one of {', '.join(ROUTES)}")
    return text


def parse_delay(text: str) -> tuple[str, float]:
    """`events=2.5` → ("events", 2.5)."""
    route, sep, value = text.partition("=")
    if not sep:
        raise OptionError(f"--delay {text!r}: expected ROUTE=SECONDS (e.g. terminal=2.5)")
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and 0 <= seconds <= MAX_DELAY_SECONDS):
        raise OptionError(f"--delay {text!r}: expected a number of seconds from 0 to {MAX_DELAY_SECONDS:g}")
    return _route(route.strip(), f"--delay {text!r}"), seconds


def parse_fault(text: str) -> Fault:
    """`renew=503`, `events=drop:always`, `lease=500:once`."""
    route, sep, rest = text.partition("=")
    if not sep:
        raise OptionError(f"--fault {text!r}: expected ROUTE=STATUS|drop[:once|always] (e.g. renew=503)")
    answer, _, times = rest.partition(":")
    if times not in ("", "once", "always"):
        raise OptionError(f"--fault {text!r}: expected once or always after the colon, found {times!r}")
    status: int | None = None
    if answer != "drop":
        if not (answer.isascii() and answer.isdigit() and 100 <= int(answer) <= 599):
            raise OptionError(f"--fault {text!r}: expected an HTTP status 100-599 or drop, found {answer!r}")
        status = int(answer)
    return Fault(_route(route.strip(), f"--fault {text!r}"), status, times == "always")


def shipped() -> dict[str, Path]:
    """The scenarios wirecheck ships, by name."""
    folder = resources.files("wirecheck.stub") / "scenarios"
    return {Path(str(entry)).stem: Path(str(entry)) for entry in folder.iterdir() if str(entry).endswith(".yaml")}


def resolve(name_or_path: str) -> Path:
    """A shipped scenario's name, or the path of a scenario file."""
    known = shipped()
    if name_or_path in known:
        return known[name_or_path]
    path = Path(name_or_path)
    if path.suffix in (".yaml", ".yml", ".json") or path.exists():
        return path
    raise OptionError(f"--scenario {name_or_path!r}: no such scenario; shipped: {', '.join(sorted(known))}, "
                      f"or give the path of a scenario file")


SCENARIO = "stub scenario"  # what its problems are said to be in (not a contract)


def load(path: Path) -> StubScenario:
    """A scenario file, checked against its schema; every problem located (file, JSON pointer, line)."""
    import jsonschema

    from wirecheck.contracts.errors import for_people
    from wirecheck.contracts.loader import own_schema
    from wirecheck.pointer import format_pointer

    file = str(path)
    try:
        text = read_text(path, "stub scenario")
        raw = parse_yaml(text, file, lines=True)
    except YamlFileError as exc:
        raise ContractError(ContractProblem(file, "", exc.message), SCENARIO) from None
    data = strip_lines(raw)
    validator = jsonschema.Draft202012Validator(own_schema("stub-scenario.schema.json"))
    problems = []
    for error in sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path))):
        problems.append(ContractProblem(file, format_pointer(error.absolute_path), for_people(error),
                                        _line(raw, list(error.absolute_path))))
    if problems:
        raise ContractError(problems, SCENARIO)
    delays: dict[str, float] = {}
    for index, delay in enumerate(data.get("delays", [])):
        if delay["route"] in delays:
            problems.append(ContractProblem(file, f"/delays/{index}/route", f"a second delay for {delay['route']}",
                                            _line(raw, ["delays", index])))
        delays[delay["route"]] = float(delay["seconds"])
    if problems:
        raise ContractError(problems, SCENARIO)
    faults = tuple(Fault(f["route"], None if f["answer"] == "drop" else f["answer"], f.get("times") == "always")
                   for f in data.get("faults", []))
    return StubScenario(name=data["name"], description=" ".join(data["description"].split()),
                        lease_seconds=float(data.get("lease_seconds", DEFAULT_LEASE_SECONDS)),
                        commands=data.get("commands"), cancel_after_renewals=data.get("cancel_after_renewals"),
                        delays=delays, faults=faults, file=file,
                        sha256=hashlib.sha256(text.encode()).hexdigest())


def _line(raw: Any, path: list[Any]) -> int | None:
    """The line of the value at `path` in the YAML read with lines, or of the nearest object above it."""
    line = raw.get(LINE_KEY) if isinstance(raw, dict) else None
    node = raw
    for token in path:
        try:
            node = node[token]
        except (KeyError, IndexError, TypeError):
            break
        if isinstance(node, dict) and node.get(LINE_KEY) is not None:
            line = node[LINE_KEY]
    return line
