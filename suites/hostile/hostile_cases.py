"""Hostile inputs for every command, as data: each case builds its files in a scratch folder and says how to run
`wirecheck` on them. Hostile captures, schemas and YAML are here; hostile programs and platforms for the commands
that run one or serve a socket (`certify --run`, `stub`, `probe`, `fuzz-consumer`) are in live_cases.py. One runner,
`test_hostile.py`, holds every case to the same guarantees: an exit code in the case's set, a subset of ALLOWED (a
verdict, a usage error or a failed live run: 0, 1, 2, 4, 5; never 3, the code of a bug, never a signal, never a
traceback), its wall-clock budget (a hang is a failure), nothing left in its process group and nothing that left
the group still running, and peak memory within the limit the README states (MEMORY_BASE_MIB, MEMORY_PER_LINE
below; suites/test_readme_limits.py holds the README to them).

Adding cases for a command is one decorated function per case:

    @case("stub", "a POST with a lone surrogate in its body")
    def _(ws: Workspace) -> Run:
        return Run(["stub", ws.contract(...), "--", ...])

`ws` makes files (`ws.write`, `ws.lines`, `ws.contract` for a generated contract package with its own schemas) and
serves a hostile platform for the case's run (`ws.platform`); `Run` carries the arguments, standard input (bytes, a
file, or a `Feed` a writer pipes in), environment, what else to assert (`expect`, given the finished run) and a
signal to send mid-run (`interrupt`: the code is then the signal's) and a full disk (`file_size`). Options of
`case`: `codes` (the exit codes allowed), `memory_mib`, `seconds`, `large=True` for the slow tier (`nox -s
hostile`).
"""

from __future__ import annotations

import contextlib
import gzip
import os
import signal
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import pytest

from wirecheck import exitcodes
from wirecheck.diff.cost import interlinked

SUITES = Path(__file__).resolve().parents[1]
DEMO = SUITES / "data" / "contracts"  # the engine's demo contract: every capture form
FAKE = SUITES / "harness" / "data" / "contracts"  # a Qoder-like contract with requirements (certify)
D = "https://json-schema.org/draft/2020-12/schema"
MIB = 1 << 20

# What the README's limits table promises: peak memory is at most MEMORY_BASE_MIB plus MEMORY_PER_LINE times the
# line limit in force (--max-line-bytes: one line or document piece is held, parsed, at a time), whatever the input.
MEMORY_BASE_MIB = 256
MEMORY_PER_LINE = 8
SECONDS = 120.0  # a case's wall-clock budget: a hang detector on a loaded machine, not a speed test


def memory_budget_mib(max_line_bytes: int) -> int:
    return MEMORY_BASE_MIB + MEMORY_PER_LINE * max_line_bytes // MIB


MEMORY_MIB = memory_budget_mib(MIB)  # cases pass --max-line-bytes 1 MiB or hold no long line


# the codes a run may end with on any input: a verdict or a usage error, never INTERNAL (3) or a signal; a live run
# that heard nothing from its program or platform may also end RUN_FAILED (5)
VERDICTS = {exitcodes.CONFORMS, exitcodes.FINDINGS, exitcodes.USAGE, exitcodes.INCONCLUSIVE}
ALLOWED = frozenset({*VERDICTS, exitcodes.RUN_FAILED})


@dataclass(frozen=True)
class Feed:
    """Standard input written through a pipe by a writer in the runner (as `cat big | wirecheck ... -`): `chunk`,
    `count` times. Once the command has ended, however it ended, the writer must not stay blocked."""

    chunk: bytes
    count: int


@dataclass(frozen=True)
class Interrupt:
    """A signal sent to the `wirecheck` process alone (not its process group: a CI runner's cancel, `kill PID`, the
    OOM killer) once `ready(case folder, wirecheck's pid)` holds, polled until the case's time runs out. The run must
    then end with 128 + the signal (a SIGKILL: killed by it) and leave nothing behind: whatever it started ends too,
    within the runner's grace."""

    signum: int
    ready: Callable[[Path, int], bool]

    @property
    def code(self) -> int:
        return -signal.SIGKILL if self.signum == signal.SIGKILL else 128 + self.signum


@dataclass
class Run:
    args: list[str]
    stdin: bytes | Path | Feed | None = None
    env: dict[str, str] = field(default_factory=dict)
    contracts: Path = DEMO
    expect: Callable[[Any], object] | None = None  # more assertions on the finished run (test_hostile.Finished)
    interrupt: Interrupt | None = None
    file_size: int | None = None  # bytes any file may grow to (RLIMIT_FSIZE): a full disk, past them


@dataclass(frozen=True)
class Case:
    command: str
    name: str
    build: Callable[[Workspace], Run]
    codes: frozenset[int] = frozenset(VERDICTS)
    memory_mib: int = MEMORY_MIB
    seconds: float = SECONDS
    large: bool = False

    @property
    def id(self) -> str:
        return f"{self.command}: {self.name}"


CASES: list[Case] = []


def case(command: str, name: str, *, codes: set[int] | None = None, memory_mib: int = MEMORY_MIB,
         seconds: float = SECONDS, large: bool = False) -> Callable[[Callable[[Workspace], Run]], Callable]:
    allowed = frozenset(codes or VERDICTS)
    assert allowed <= ALLOWED, f"{command}: {name}: exit codes {sorted(allowed - ALLOWED)} are never allowed"

    def register(build: Callable[[Workspace], Run]) -> Callable[[Workspace], Run]:
        CASES.append(Case(command, name, build, allowed, memory_mib, seconds, large))
        return build
    return register


class Workspace:
    """A scratch folder for one case's inputs, and what serves the case while it runs (closed by `stack`)."""

    def __init__(self, root: Path, stack: contextlib.ExitStack):
        self.root = root
        self.stack = stack

    def platform(self, answer: Callable[[socket.socket, bytes], None]) -> str:
        """The base URL of a 127.0.0.1 server handing each connection's request head to `answer`, serving until the
        case's run has ended."""
        return self.stack.enter_context(_serving(answer))

    def path(self, name: str | bytes) -> Path:
        return self.root / (os.fsdecode(name) if isinstance(name, bytes) else name)

    def write(self, name: str | bytes, data: bytes | str) -> str:
        path = self.path(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        return str(path)

    def lines(self, name: str | bytes, values: list[Any]) -> str:
        return self.write(name, b"".join(v if isinstance(v, bytes) else orjson.dumps(v) + b"\n" for v in values))

    def contract(self, package: str, releases: dict[str, dict[str, Any]]) -> Path:
        """A contracts folder holding `package` with one stream kind `msg` (selected by `/type: msg`) per release,
        whose schema is `stream.json` with the given `$defs` (the kind is `#/$defs/Msg`)."""
        root = self.root / "contracts"
        listed = ", ".join(f'"{v}"' for v in releases)
        (root / "registry.yaml").parent.mkdir(parents=True, exist_ok=True)
        (root / "registry.yaml").write_text(f"packages:\n  {package}:\n    title: hostile\n    releases: [{listed}]\n")
        for version, defs in releases.items():
            folder = root / package / version
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "catalog.yaml").write_text(
                f"package: {package}\nversion: {version}\ntitle: hostile\nwire_version: \"{version}\"\n"
                "sources:\n  test: {type: inferred, ref: generated by suites/hostile}\nroles: [cli, sdk]\n"
                "kinds:\n  - id: msg\n    title: message\n    channel: stdio-ndjson\n    producer: cli\n"
                "    consumer: sdk\n    selector: {fields: {/type: msg}}\n    schema: stream.json#/$defs/Msg\n"
                "    provenance: {source: test}\n")
            uri = f"https://contracts.wirecheck.invalid/{package}/{version}/stream.json"
            (folder / "stream.json").write_bytes(orjson.dumps({"$schema": D, "$id": uri, "$defs": defs}))
        return root


@contextlib.contextmanager
def _serving(answer: Callable[[socket.socket, bytes], None]) -> Iterator[str]:
    listener = socket.create_server(("127.0.0.1", 0), backlog=64)
    listener.settimeout(0.2)
    done = threading.Event()

    def serve_one(conn: socket.socket) -> None:
        with contextlib.suppress(OSError), conn:
            conn.settimeout(30)
            head = b""
            while b"\r\n\r\n" not in head and (chunk := conn.recv(65536)):
                head += chunk
            answer(conn, head)

    def serve() -> None:
        while not done.is_set():
            with contextlib.suppress(TimeoutError, OSError):
                threading.Thread(target=serve_one, args=(listener.accept()[0],), daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        done.set()
        thread.join(10)
        listener.close()


def message_schema(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "required": ["type"], "properties": {"type": {"const": "msg"}, **properties}}


def ref_chain(length: int, end: dict[str, Any]) -> dict[str, Any]:
    """`$defs` whose Msg reaches `end` through `length` $refs."""
    defs: dict[str, Any] = {f"S{i}": {"$ref": f"#/$defs/S{i + 1}"} for i in range(length)}
    defs[f"S{length}"] = end
    defs["Msg"] = message_schema({"value": {"$ref": "#/$defs/S0"}})
    return defs


REDOS = "^(a+)+b$"  # regress backtracks for minutes on forty `a`s without the `b`


def stderr_says(*texts: str) -> Callable[[Any], None]:
    def check(finished: Any) -> None:
        for text in texts:
            assert text in finished.stderr, finished.stderr[-2000:]
    return check


def stdout_says(*texts: str) -> Callable[[Any], None]:
    def check(finished: Any) -> None:
        for text in texts:
            assert text in finished.stdout, finished.stdout[-2000:]
    return check


# -- validate: captures --------------------------------------------------------------------------------------------


@case("validate", "lone surrogates in a value, a key, a framed `from`, a HAR url and a file name")
def _(ws: Workspace) -> Run:
    framed = ws.write(b"caf\xe9.framed.ndjson", b'{"wirecheck_capture": 1, "framing": "directed"}\n'
                      b'{"from": "ser\\ud800", "message": {"type": "hello", "version": "1.0.0"}}\n'
                      b'{"from": "server", "message": {"type": "hel\\ud800lo", "\\udc00": 1}}\n')
    har = ws.write("c.har", b'{"log": {"entries": [{"request": {"method": "GET", "url": "http://h/\\ud800"}, '
                   b'"response": {"status": 200, "content": {"text": "{\\"api\\": \\"\\\\ud800\\"}"}}}]}}')
    return Run(["validate", "demo@1.0.0", framed, har, "--format", "json"],
               expect=stdout_says('"INVALID_UTF8"', "caf\\udce9"))


@case("validate", "a line longer than --max-line-bytes", memory_mib=memory_budget_mib(4 * MIB))
def _(ws: Workspace) -> Run:
    path = ws.write("long.jsonl", b'{"type": "hello", "version": "' + b"9" * (40 * MIB) + b'"}\n'
                    b'{"type": "hello", "version": "1.0.0"}\n')
    return Run(["validate", "demo@1.0.0", path, "--max-line-bytes", str(4 * MIB)], expect=stdout_says("LINE_TOO_LONG"))


@case("validate", "300 findings on 256 KiB strings: quoted cut, not whole", memory_mib=memory_budget_mib(MIB))
def _(ws: Workspace) -> Run:
    line = orjson.dumps({"type": "hello", "version": "x" * (256 << 10)}) + b"\n"
    return Run(["validate", "demo@1.0.0", ws.write("fat.jsonl", line * 300), "--format", "json",
                "--max-line-bytes", str(MIB)], expect=stdout_says("(262,144 characters)"))


@case("validate", "a 30 MB HAR is read entry by entry, not whole", memory_mib=memory_budget_mib(MIB))
def _(ws: Workspace) -> Run:
    entry = orjson.dumps({"request": {"method": "GET", "url": "http://h/.well-known/demo", "headers": []},
                          "response": {"status": 200, "headers": [], "content": {"text": '{"api": "http://h/a"}'}}},
                         option=orjson.OPT_INDENT_2)
    body = b",\n".join([entry] * (30 * MIB // len(entry)))
    return Run(["validate", "demo@1.0.0", ws.write("big.har", b'{"log": {"entries": [\n' + body + b"\n]}}\n"),
                "--max-line-bytes", str(MIB)])


@case("validate", "a HAR cut short, and one whose entries lose their commas")
def _(ws: Workspace) -> Run:
    entry = b'{"request": {"method": "GET", "url": "http://h/x"}, "response": {"status": 200}}'
    cut = ws.write("cut.har", b'{"log": {"entries": [' + entry + b", " + entry[:30])
    broken = ws.write("broken.har", b'{"log": {"entries": [' + entry + b" " + entry + b"]}}")
    return Run(["validate", "demo@1.0.0", cut, broken], expect=stdout_says("PARSE_ERROR"))


BUNDLED = SUITES.parent / "contracts"  # the releases wirecheck ships
FIXTURES = SUITES.parent / "fixtures"


@case("validate", "a HAR whose `log` or `entries` is given twice: the copy readers keep is checked", codes={1})
def _(ws: Workspace) -> Run:
    """`{"log": <a conforming run>, "log": {"entries": []}}` conformed though JSON.parse and json.load see no
    entries; `{"log": <a broken run>, "log": <a good run>}` failed on the copy they discard (issue 31, defect 1)."""
    good, bad = (orjson.loads((FIXTURES / "xopc/0.0.253" / name).read_bytes())["log"]
                 for name in ("valid/worker-run.har", "invalid/broken-run.har"))
    empty_last = ws.write("empty-last.har", b'{"log": ' + orjson.dumps(good) + b', "log": {"entries": []}}')
    bad_first = ws.write("bad-first.har", b'{"log": ' + orjson.dumps(bad) + b', "log": ' + orjson.dumps(good) + b"}")
    entries = ws.write("entries-twice.har", b'{"log": {"entries": ' + orjson.dumps(good["entries"])
                       + b', "entries": []}}')

    def check(finished: Any) -> None:
        report = orjson.loads(finished.stdout)
        codes = sorted((f["file"].rsplit("/", 1)[-1], f["code"]) for f in report["findings"])
        assert codes == [("bad-first.har", "DUPLICATE_KEY"), ("empty-last.har", "DUPLICATE_KEY"),
                         ("entries-twice.har", "DUPLICATE_KEY")], codes
        messages = {c["file"].rsplit("/", 1)[-1]: c["messages"] for c in report["captures"]}
        assert messages == {"empty-last.har": 0, "bad-first.har": 16, "entries-twice.har": 0}, messages
    return Run(["validate", "xopc@0.0.253", empty_last, bad_first, entries, "--format", "json"], contracts=BUNDLED,
               expect=check)


@case("validate", "a number beyond a double, as 1e400 and as its 401 digits: judged alike")
def _(ws: Workspace) -> Run:
    """`"num_turns": 1000…0` (401 digits) conformed while `1e400` was a PARSE_ERROR; JavaScript reads both as
    Infinity (issue 31, defect 10)."""
    line = (FIXTURES / "claude-code-print/2.1.218/valid/results-1.ndjson").read_bytes().splitlines()[0]
    digits = ws.write("digits.ndjson", line.replace(b'"num_turns": 9', b'"num_turns": 1' + b"0" * 400) + b"\n")
    exponent = ws.write("exponent.ndjson", line.replace(b'"num_turns": 9', b'"num_turns": 1e400') + b"\n")

    def check(finished: Any) -> None:
        report = orjson.loads(finished.stdout)
        found = sorted((f["file"].rsplit("/", 1)[-1], f["code"], f.get("pointer")) for f in report["findings"])
        assert found == [("digits.ndjson", "NUMBER_OUT_OF_RANGE", "/num_turns"),
                         ("exponent.ndjson", "NUMBER_OUT_OF_RANGE", "/num_turns")], found
    return Run(["validate", "claude-code-print@2.1.218", digits, exponent, "--format", "json"], contracts=BUNDLED,
               expect=check)


@case("validate", "a JSON document of 200,000 nested arrays")
def _(ws: Workspace) -> Run:
    return Run(["validate", "demo@1.0.0", ws.write("deep.json", b"[" * 200_000 + b"]" * 200_000)])


@case("validate", "nesting 100,000 deep on a line, NaN, duplicate keys, a BOM mid-stream, a bare CR")
def _(ws: Workspace) -> Run:
    return Run(["validate", "demo@1.0.0", ws.lines("odd.jsonl", [
        b'{"a":' * 100_000 + b"1" + b"}" * 100_000 + b"\n", b'{"type":"hello","version":NaN}\n',
        b'{"type":"hello","type":"hello","version":"1.0.0"}\n', b'\xef\xbb\xbf{"type":"hello","version":"1.0.0"}\n',
        b'{"type":"hello",\r"version":"1.0.0"}\n', b"\xff\xfe\n"])])


@case("validate", "/dev/zero as a capture is refused, not read for ever", codes={2})
def _(ws: Workspace) -> Run:
    return Run(["validate", "demo@1.0.0", "/dev/zero"], expect=stderr_says("is a device"))


@case("validate", "/dev/zero on standard input is refused", codes={2})
def _(ws: Workspace) -> Run:
    return Run(["validate", "demo@1.0.0", "-"], stdin=Path("/dev/zero"), expect=stderr_says("is a device"))


@case("validate", "a named pipe nobody writes to: refused, and the report's verdict says so", codes={2},
      seconds=SECONDS + 10)
def _(ws: Workspace) -> Run:
    os.mkfifo(ws.path("fifo.jsonl"))

    def check(finished: Any) -> None:  # the report said NOTHING RECOGNISED while the exit code was 2
        stderr_says("no process wrote to it")(finished)
        assert orjson.loads(finished.stdout)["summary"]["verdict"] == "unreadable", finished.stdout[-2000:]
    return Run(["validate", "demo@1.0.0", str(ws.path("fifo.jsonl")), "--format", "json"], expect=check)


@case("validate", "a loop of symbolic links", codes={2})
def _(ws: Workspace) -> Run:
    ws.path("a.jsonl").symlink_to(ws.path("b.jsonl"))
    ws.path("b.jsonl").symlink_to(ws.path("a.jsonl"))
    return Run(["validate", "demo@1.0.0", str(ws.path("a.jsonl"))], expect=stderr_says("loop of symbolic links"))


@case("validate", "a gzip stream on standard input")
def _(ws: Workspace) -> Run:
    return Run(["validate", "demo@1.0.0", "-"], stdin=gzip.compress(b'{"type":"hello","version":"1.0.0"}\n' * 1000),
               expect=stdout_says("gzip-compressed"))


@case("validate", "a contract pattern that backtracks catastrophically (jsonschema-rs does not)")
def _(ws: Workspace) -> Run:
    contracts = ws.contract("hostile", {"1.0.0": {"Msg": message_schema({"v": {"type": "string", "pattern": REDOS}})}})
    capture = ws.lines("redos.jsonl", [{"type": "msg", "v": "a" * 5000}] * 20)
    return Run(["validate", "hostile@1.0.0", capture], contracts=contracts)


# -- contracts, show -------------------------------------------------------------------------------------------


@case("show", "a schema property name with a lone surrogate is a contract error", codes={2})
def _(ws: Workspace) -> Run:
    contracts = ws.contract("hostile", {"1.0.0": {"Msg": message_schema({})}})
    schema = contracts / "hostile" / "1.0.0" / "stream.json"
    schema.write_bytes(schema.read_bytes().replace(b'"type":{"const"', b'"\\ud800":{},"type":{"const"'))
    return Run(["show", "hostile@1.0.0", "msg"], contracts=contracts, expect=stderr_says("lone surrogate"))


@case("show", "a kind reached through a chain of 3,000 $refs")
def _(ws: Workspace) -> Run:
    contracts = ws.contract("hostile", {"1.0.0": ref_chain(3000, {"type": "string"})})
    return Run(["show", "hostile@1.0.0", "msg"], contracts=contracts)


@case("contracts", "a registry that is a YAML alias bomb of long strings", codes={2})
def _(ws: Workspace) -> Run:
    ws.write("contracts/registry.yaml", f"s: &s \"{'x' * MIB}\"\npackages: {{}}\nall: [{', '.join(['*s'] * 1000)}]\n")
    return Run(["contracts"], contracts=ws.path("contracts"), expect=stderr_says("aliases are expanded"))


# -- diff, diff-schemas ----------------------------------------------------------------------------------------


def _schemas(ws: Workspace, old: Any, new: Any, suffix: str = ".json") -> list[str]:
    dump = (lambda v: orjson.dumps(v)) if suffix == ".json" else (lambda v: v.encode() if isinstance(v, str) else v)
    return [ws.write(f"old{suffix}", dump(old)), ws.write(f"new{suffix}", dump(new))]


@case("diff-schemas", "a pattern that backtracks catastrophically on the witnesses")
def _(ws: Workspace) -> Run:
    old = message_schema({"a": {"type": "string", "pattern": "^a+$", "minLength": 40}})
    new = message_schema({"a": {"type": "string", "pattern": REDOS, "minLength": 40}})
    return Run(["diff-schemas", *_schemas(ws, old, new)])


@case("diff-schemas", "1000 YAML aliases of a 1 MiB string", codes={2})
def _(ws: Workspace) -> Run:
    text = f"type: object\ndescription: &s \"{'x' * MIB}\"\nexamples: [{', '.join(['*s'] * 1000)}]\n"
    return Run(["diff-schemas", *_schemas(ws, text, text, ".yaml")], expect=stderr_says("aliases are expanded"))


@case("diff-schemas", "a lone surrogate in a property name, and file names that are not UTF-8", codes={1, 2})
def _(ws: Workspace) -> Run:
    old = ws.write(b"old-\xe9.json", b'{"type": "object", "properties": {"\\ud800": {"type": "string"}}}')
    new = ws.write(b"new-\xe9.json", b'{"type": "object", "properties": {"a": {"type": "integer"}}}')
    return Run(["diff-schemas", old, new, "--format", "sarif"])


@case("diff-schemas", "schemas nested 10,000 deep", codes={2})
def _(ws: Workspace) -> Run:
    deep = b'{"items":' * 10_000 + b"{}" + b"}" * 10_000
    return Run(["diff-schemas", ws.write("old.json", deep), ws.write("new.json", deep)])


@case("diff-schemas", "a $ref chain of 3,000 schemas (jsonschema-rs canonicalisation overflowed its stack)",
      large=True, seconds=600)
def _(ws: Workspace) -> Run:
    old, new = ref_chain(3000, {"type": "string"}), ref_chain(3000, {"type": "integer"})
    return Run(["diff-schemas", *_schemas(ws, {"$defs": old, "$ref": "#/$defs/Msg"},
                                          {"$defs": new, "$ref": "#/$defs/Msg"})])


@case("diff-schemas", "two 5.9 MB schemas of 1,350 definitions that refer to each other, 270 kinds (49,151 values, "
      "within the limit; 1,000 of them took 0.9 GiB: a validator per kind, each compiling most of the file, all "
      "kept)", codes={1}, large=True, seconds=600,
      memory_mib=memory_budget_mib(32 * MIB))  # diff-schemas has no --max-line-bytes: its default's budget
def _(ws: Workspace) -> Run:
    return Run(["diff-schemas", *_schemas(ws, *interlinked(1350, 270, 480))])


@case("diff", "a waiver that expires on a day that does not exist", codes={2})
def _(ws: Workspace) -> Run:
    waivers = ws.write("waivers.yaml", 'waivers:\n  - {fingerprint: "0123456789ab", reason: r, who: w, '
                       'expires: "2027-02-30"}\n')
    old = message_schema({})
    return Run(["diff-schemas", *_schemas(ws, old, old), "--waivers", waivers], expect=stderr_says("expires"))


@case("diff", "two releases with a catastrophic pattern and a 600-schema $ref chain")
def _(ws: Workspace) -> Run:
    old = ref_chain(600, {"type": "string", "pattern": "^a+$", "minLength": 40})
    new = ref_chain(600, {"type": "string", "pattern": REDOS, "minLength": 40})
    contracts = ws.contract("hostile", {"1.0.0": old, "2.0.0": new})
    return Run(["diff", "hostile@1.0.0", "hostile@2.0.0", "--format", "json"], contracts=contracts)


# -- fuzz ----------------------------------------------------------------------------------------------------------


@case("fuzz", "mutants of a contract whose pattern backtracks catastrophically")
def _(ws: Workspace) -> Run:
    contracts = ws.contract("hostile", {"1.0.0": {"Msg": message_schema({
        "v": {"type": "string", "pattern": REDOS, "minLength": 40}})}})
    return Run(["fuzz", "hostile@1.0.0", "--invalid", "--seed", "1", "--count", "5"], contracts=contracts)


@case("fuzz", "valid messages and mutants of a kind reached through 3,000 $refs")
def _(ws: Workspace) -> Run:
    contracts = ws.contract("hostile", {"1.0.0": ref_chain(3000, {"type": "string", "minLength": 2})})
    return Run(["fuzz", "hostile@1.0.0", "--invalid", "--seed", "1", "--count", "3"], contracts=contracts)


@case("validate", "messages checked against a kind reached through 3,000 $refs")
def _(ws: Workspace) -> Run:
    contracts = ws.contract("hostile", {"1.0.0": ref_chain(3000, {"type": "string"})})
    capture = ws.lines("chain.jsonl", [{"type": "msg", "value": "x"}, {"type": "msg", "value": 5}])
    return Run(["validate", "hostile@1.0.0", capture], contracts=contracts, expect=stdout_says("SCHEMA_VIOLATION"))


# -- -j workers: the parent alone is signalled (a CI runner's cancel, `kill PID`, the OOM killer) -----------------

HELLO = b'{"type": "hello", "version": "1.0.0"}\n'
BUSY_BYTES = 48 * MIB  # split into ranges the workers are still reading when the signal comes


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as listing:
            return [int(child) for child in listing.read().split()]
    except OSError:
        return []


def workers_started(root: Path, pid: int) -> bool:
    """Both of `-j 2`'s workers are running (forked from the wirecheck process)."""
    return len(_children(pid)) >= 2


def busy_capture(ws: Workspace, name: str = "busy.jsonl") -> str:
    with ws.path(name).open("wb") as out:
        block = HELLO * (MIB // len(HELLO))
        for _ in range(BUSY_BYTES // len(block)):
            out.write(block)
    return str(ws.path(name))


for _signum in (signal.SIGKILL, signal.SIGTERM, signal.SIGHUP):
    @case("validate", f"-j 2: {signal.Signals(_signum).name} to the parent alone leaves no worker")
    def _(ws: Workspace, signum: int = _signum) -> Run:
        return Run(["validate", "demo@1.0.0", busy_capture(ws), "-j", "2"],
                   interrupt=Interrupt(signum, workers_started))


@case("validate", "the default -j: SIGTERM to the parent alone ends the run with 143 and no worker")
def _(ws: Workspace) -> Run:
    from wirecheck.check.parallel import available_cpus

    if available_cpus() < 2:
        pytest.skip("the default -j starts workers only where more than one CPU may be used")
    return Run(["validate", "demo@1.0.0", busy_capture(ws)], interrupt=Interrupt(signal.SIGTERM, workers_started))


@case("validate", "-j 2 reading standard input from a writer: SIGKILL to the parent leaves the writer unblocked")
def _(ws: Workspace) -> Run:
    return Run(["validate", "demo@1.0.0", "-", "-j", "2"], stdin=Feed(HELLO * 4096, 1 << 16),
               interrupt=Interrupt(signal.SIGKILL, workers_started))


@case("certify", "-j 2: SIGTERM to the parent alone ends the run with 143 and no worker")
def _(ws: Workspace) -> Run:
    capture = ws.path("busy.jsonl")
    with capture.open("wb") as out:
        line = b'{"type": "keep_alive"}\n'
        block = line * (MIB // len(line))
        for _ in range(BUSY_BYTES // len(block)):
            out.write(block)
    return Run(["certify", "fakeqoder@1.0.0", str(capture), "--role", "cli", "-j", "2"], contracts=FAKE,
               interrupt=Interrupt(signal.SIGTERM, workers_started))


# -- outputs: a full disk, a named pipe nobody reads -----------------------------------------------------------------

GOOD_REPORT = b'{"a good report": "from the run before"}\n'


def left_as_it_was(folder: str, names: list[str]) -> Callable[[Any], None]:
    """The files in `folder` (of the case) are the ones that were there, each as it was: no truncated report, no
    temporary file left."""
    def check(finished: Any) -> None:
        there = {p.name: p.read_bytes() for p in (finished.root / folder).iterdir()}
        assert there == dict.fromkeys(names, GOOD_REPORT), {name: data[:80] for name, data in there.items()}
        assert "cannot write" in finished.stderr, finished.stderr[-2000:]
    return check


@case("validate", "-o onto a full disk leaves the report that was there", codes={2})
def _(ws: Workspace) -> Run:
    ws.write("reports/report.json", GOOD_REPORT)
    capture = ws.lines("bad.jsonl", [{"type": "hello", "version": n} for n in range(300)])
    return Run(["validate", "demo@1.0.0", capture, "--format", "json", "-o", str(ws.path("reports/report.json"))],
               file_size=8192, expect=left_as_it_was("reports", ["report.json"]))


@case("certify", "--out-dir onto a full disk leaves the reports that were there, all of them", codes={2})
def _(ws: Workspace) -> Run:
    from wirecheck.certify.report import SUFFIXES

    names = [f"certification{suffix}" for suffix in SUFFIXES.values()] + ["badge.svg"]
    for name in names:
        ws.write(f"out/{name}", GOOD_REPORT)
    capture = ws.lines("run.jsonl", [{"type": "keep_alive"}, {"type": "assistant", "session_id": 5, "message": {}}])
    return Run(["certify", "fakeqoder@1.0.0", capture, "--role", "cli", "--out-dir", str(ws.path("out"))],
               contracts=FAKE, file_size=4096, expect=left_as_it_was("out", names))


@case("validate", "-o onto a named pipe nobody reads", codes={2})
def _(ws: Workspace) -> Run:
    os.mkfifo(ws.path("report.fifo"))
    return Run(["validate", "demo@1.0.0", ws.lines("ok.jsonl", [{"type": "hello", "version": "1.0.0"}]), "-o",
                str(ws.path("report.fifo"))], expect=stderr_says("no process read from it"))


@case("certify", "--run --capture-out onto a named pipe nobody reads", codes={2})
def _(ws: Workspace) -> Run:
    os.mkfifo(ws.path("capture.fifo"))
    scenario = ws.write("scenario.yaml", "scenario: 1\nroles: {harness: sdk, implementation: cli}\ntimeout: 20\n"
                                         "steps:\n  - wait_exit: {timeout: 5}\n")
    return Run(["certify", "fakeqoder@1.0.0", "--run", "--scenario", scenario, "--capture-out",
                str(ws.path("capture.fifo")), "--", sys.executable, "-c", "print('{}')"], contracts=FAKE,
               expect=stderr_says("no process read from it"))


# -- certify -------------------------------------------------------------------------------------------------------


@case("certify", "a baseline reason and a capture name holding lone surrogates")
def _(ws: Workspace) -> Run:
    capture = ws.write(b"run-\xe9.framed.ndjson", b'{"wirecheck_capture": 1, "framing": "directed"}\n'
                       b'{"from": "cli", "message": {"type": "assistant", "session_id": 5, "message": {}}}\n')
    baseline = ws.write("baseline.yaml", 'expected_failures:\n  - id: FAKEQODER-1.0.0-ASSISTANT-SCHEMA\n'
                        '    reason: "caf\\udce9 \\ud800"\n')
    return Run(["certify", "fakeqoder@1.0.0", capture, "--role", "cli", "--baseline", baseline,
                "--out-dir", str(ws.path("out"))], contracts=FAKE)


@case("certify", "/dev/urandom as a capture", codes={2})
def _(ws: Workspace) -> Run:
    return Run(["certify", "fakeqoder@1.0.0", "/dev/urandom", "--role", "cli"], contracts=FAKE)


# -- the slow tier (nox -s hostile) --------------------------------------------------------------------------------


@case("validate", "a 200 MB line", large=True, memory_mib=memory_budget_mib(32 * MIB), seconds=600)
def _(ws: Workspace) -> Run:
    with ws.path("huge.jsonl").open("wb") as out:
        out.write(b'{"type": "hello", "version": "')
        for _ in range(200):
            out.write(b"9" * MIB)
        out.write(b'"}\n{"type": "hello", "version": "1.0.0"}\n')
    return Run(["validate", "demo@1.0.0", str(ws.path("huge.jsonl"))], expect=stdout_says("LINE_TOO_LONG"))


@case("validate", "2,000,000 requests, each answered", large=True, memory_mib=memory_budget_mib(32 * MIB),
      seconds=1800)
def _(ws: Workspace) -> Run:
    with ws.path("requests.framed.ndjson").open("wb") as out:
        out.write(b'{"wirecheck_capture": 1, "framing": "directed"}\n')
        out.write(b'{"from": "server", "message": {"type": "hello", "version": "1.0.0"}}\n')
        for n in range(2_000_000):
            out.write(b'{"from":"client","message":{"type":"request","request_id":"r%d","request":{"subtype":"ping"}}}\n'
                      b'{"from":"server","message":{"type":"response","response":{"request_id":"r%d",'
                      b'"subtype":"success"}}}\n' % (n, n))
    return Run(["validate", "demo@1.0.0", str(ws.path("requests.framed.ndjson"))])


@case("validate", "a 119 MB HAR", large=True, memory_mib=memory_budget_mib(32 * MIB), seconds=1800)
def _(ws: Workspace) -> Run:
    entry = orjson.dumps({"request": {"method": "GET", "url": "http://h/.well-known/demo", "headers": []},
                          "response": {"status": 200, "headers": [], "content": {"text": '{"api": "http://h/a"}'}}},
                         option=orjson.OPT_INDENT_2)
    with ws.path("big.har").open("wb") as out:
        out.write(b'{"log": {"version": "1.2", "entries": [\n')
        count = 119 * MIB // (len(entry) + 2)
        for n in range(count):
            out.write(entry + (b",\n" if n < count - 1 else b"\n"))
        out.write(b"]}}\n")
    return Run(["validate", "demo@1.0.0", str(ws.path("big.har"))])


@case("validate", "1,000 findings on 1 MiB strings", large=True, memory_mib=memory_budget_mib(32 * MIB), seconds=1800)
def _(ws: Workspace) -> Run:
    line = orjson.dumps({"type": "hello", "version": "x" * MIB}) + b"\n"
    with ws.path("fat.jsonl").open("wb") as out:
        for _ in range(1000):
            out.write(line)
    return Run(["validate", "demo@1.0.0", str(ws.path("fat.jsonl")), "--format", "json", "-o",
                str(ws.path("report.json"))])
