"""Hostile files that are not captures: schemas (`diff-schemas`), contract files (`--contracts`), waivers, baselines,
requirement sets and scenarios. Each is read through wirecheck's one bounded reader (input_files.py: devices, named
pipes nobody writes to and files over the size limit refused; yaml_lines: values counted before they are built,
values no JSON reader has refused) and a contract release within the README's limits (values, bytes, ECMA-262
patterns). Registered with hostile_cases.case and run by the one runner (test_hostile.py) under the same guarantees
as every case; issue 31's defects 4-7, each failing on the code before it.
"""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path
from typing import Any

import orjson
from hostile_cases import (
    FAKE,
    MIB,
    SECONDS,
    Run,
    Workspace,
    case,
    memory_budget_mib,
    message_schema,
    stderr_says,
)

from wirecheck.limits import DEFAULT_MAX_LINE_BYTES

FIFO_SECONDS = SECONDS + 10  # a named pipe is waited for (10 s) before it is refused
DEFAULT_BUDGET = memory_budget_mib(DEFAULT_MAX_LINE_BYTES)  # a command without --max-line-bytes: the default's
D = "https://json-schema.org/draft/2020-12/schema"
MCP_SCHEMA = Path(__file__).parents[1] / "importer" / "data" / "mcp-2025-06-18" / "schema.json"  # imports whole


def _schema(ws: Workspace, name: str = "s.json") -> str:
    return ws.write(name, orjson.dumps(message_schema({})))


def _framed(ws: Workspace) -> str:
    return ws.write("run.framed.ndjson", b'{"wirecheck_capture": 1, "framing": "directed"}\n'
                    b'{"from": "cli", "message": {"type": "assistant", "session_id": "s", "message": {}}}\n')


def _fifo(ws: Workspace, name: str) -> str:
    os.mkfifo(ws.path(name))
    return str(ws.path(name))


def _zero_link(ws: Workspace, name: str) -> str:
    """A symbolic link to /dev/zero with an ordinary file's name: the link is followed to the device."""
    ws.path(name).parent.mkdir(parents=True, exist_ok=True)
    ws.path(name).symlink_to("/dev/zero")
    return str(ws.path(name))


def _demo_contract(ws: Workspace) -> Path:
    return ws.contract("hostile", {"1.0.0": {"Msg": message_schema({"v": {"type": "string"}})}})


def _device(what: str) -> Any:
    return stderr_says(f"is a device, not a {what} (a device such as /dev/zero never ends)")


def _pipe() -> Any:
    return stderr_says("is a named pipe (FIFO) and no process wrote to it within 10 s")


# -- defect 4: /dev/zero, a link to it, a named pipe nobody writes to -------------------------------------------------


@case("diff-schemas", "/dev/zero as a schema is refused, not read into 3 GB", codes={2})
def _(ws: Workspace) -> Run:
    return Run(["diff-schemas", "/dev/zero", _schema(ws)], expect=_device("schema file"))


@case("diff-schemas", "a symbolic link to /dev/zero as a schema", codes={2})
def _(ws: Workspace) -> Run:
    return Run(["diff-schemas", _schema(ws), _zero_link(ws, "new.json")], expect=_device("schema file"))


@case("diff-schemas", "a named pipe nobody writes to as a schema", codes={2}, seconds=FIFO_SECONDS)
def _(ws: Workspace) -> Run:
    return Run(["diff-schemas", _fifo(ws, "old.json"), _schema(ws)], expect=_pipe())


@case("diff", "/dev/zero as --waivers", codes={2})
def _(ws: Workspace) -> Run:
    return Run(["diff-schemas", _schema(ws), _schema(ws), "--waivers", "/dev/zero"], expect=_device("waivers file"))


@case("certify", "/dev/zero as --baseline", codes={2})
def _(ws: Workspace) -> Run:
    return Run(["certify", "fakeqoder@1.0.0", _framed(ws), "--role", "cli", "--baseline", "/dev/zero"],
               contracts=FAKE, expect=_device("scope file"))


@case("certify", "/dev/zero as --requirements", codes={2})
def _(ws: Workspace) -> Run:
    return Run(["certify", "fakeqoder@1.0.0", _framed(ws), "--role", "cli", "--requirements", "/dev/zero"],
               contracts=FAKE, expect=_device("requirement set for fakeqoder@1.0.0"))


@case("certify", "/dev/zero as --scenario", codes={2})
def _(ws: Workspace) -> Run:
    return Run(["certify", "fakeqoder@1.0.0", "--run", "--scenario", "/dev/zero", "--", "true"], contracts=FAKE,
               expect=_device("scenario file"))


@case("validate", "a contract schema file that is /dev/zero", codes={2})
def _(ws: Workspace) -> Run:
    contracts = _demo_contract(ws)
    (contracts / "hostile" / "1.0.0" / "stream.json").unlink()
    _zero_link(ws, "contracts/hostile/1.0.0/stream.json")
    return Run(["validate", "hostile@1.0.0", ws.lines("c.jsonl", [{"type": "msg"}])], contracts=contracts,
               expect=_device("contract schema file"))


@case("validate", "a catalog that is a symbolic link to /dev/zero", codes={2})
def _(ws: Workspace) -> Run:
    contracts = _demo_contract(ws)
    (contracts / "hostile" / "1.0.0" / "catalog.yaml").unlink()
    _zero_link(ws, "contracts/hostile/1.0.0/catalog.yaml")
    return Run(["validate", "hostile@1.0.0", ws.lines("c.jsonl", [{"type": "msg"}])], contracts=contracts,
               expect=_device("contract file"))


@case("validate", "a contract schema file that is a named pipe nobody writes to", codes={2}, seconds=FIFO_SECONDS)
def _(ws: Workspace) -> Run:
    contracts = _demo_contract(ws)
    (contracts / "hostile" / "1.0.0" / "stream.json").unlink()
    _fifo(ws, "contracts/hostile/1.0.0/stream.json")
    return Run(["validate", "hostile@1.0.0", ws.lines("c.jsonl", [{"type": "msg"}])], contracts=contracts,
               expect=_pipe())


@case("import", "/dev/zero as the schema file of import schema (was a MemoryError, exit 3)", codes={2})
def _(ws: Workspace) -> Run:
    return Run(["import", "schema", "/dev/zero", "--profile", "json-rpc", "--package", "p", "--version", "1.0.0",
                "-o", str(ws.path("out"))], expect=_device("schema file to import"))


@case("import", "/dev/zero as import schema --license (was a MemoryError, exit 3)", codes={2})
def _(ws: Workspace) -> Run:
    return Run(["import", "schema", str(MCP_SCHEMA), "--profile", "json-rpc", "--package", "p", "--version", "1.0.0",
                "-o", str(ws.path("out")), "--license", "/dev/zero"], expect=_device("licence file"))


@case("import", "a named pipe nobody writes to as the schema file of import schema (it hung)", codes={2},
      seconds=FIFO_SECONDS, large=True)
def _(ws: Workspace) -> Run:
    return Run(["import", "schema", _fifo(ws, "schema.json"), "--profile", "json-rpc", "--package", "p",
                "--version", "1.0.0", "-o", str(ws.path("out"))], expect=_pipe())


@case("diff", "a named pipe nobody writes to as --waivers", codes={2}, seconds=FIFO_SECONDS, large=True)
def _(ws: Workspace) -> Run:
    return Run(["diff-schemas", _schema(ws), _schema(ws), "--waivers", _fifo(ws, "w.yaml")], expect=_pipe())


def _piped(ws: Workspace, name: str, data: bytes) -> str:
    """A named pipe a process writes `data` to once, as `<(cat file)` is: readable once, never again."""
    path = _fifo(ws, name)

    def write() -> None:
        with contextlib.suppress(OSError), open(path, "wb") as out:  # waits for the reader, as cat does
            out.write(data)
    threading.Thread(target=write, daemon=True).start()
    return path


@case("certify", "--requirements and --baseline from `<(cat file)`: read once (the identity block read them again)",
      codes={1})
def _(ws: Workspace) -> Run:
    requirements = _piped(ws, "requirements.yaml", (FAKE / "fakeqoder" / "1.0.0" / "requirements.yaml").read_bytes())
    baseline = _piped(ws, "baseline.yaml", b"expected_failures: []\n")
    return Run(["certify", "fakeqoder@1.0.0", _framed(ws), "--role", "cli", "--requirements", requirements,
                "--baseline", baseline], contracts=FAKE)


@case("certify", "--run --scenario from `<(cat file)`: read once (the identity block read it again)", codes={1})
def _(ws: Workspace) -> Run:
    scenario = _piped(ws, "scenario.yaml", b"scenario: 1\nroles: {harness: sdk, implementation: cli}\ntimeout: 20\n"
                                           b"steps:\n  - wait_exit: {timeout: 5}\n")
    return Run(["certify", "fakeqoder@1.0.0", "--run", "--scenario", scenario, "--out-dir", str(ws.path("out")),
                "--", "true"], contracts=FAKE)


@case("certify", "a named pipe nobody writes to as --baseline", codes={2}, seconds=FIFO_SECONDS, large=True)
def _(ws: Workspace) -> Run:
    return Run(["certify", "fakeqoder@1.0.0", _framed(ws), "--role", "cli", "--baseline", _fifo(ws, "b.yaml")],
               contracts=FAKE, expect=_pipe())


@case("certify", "a named pipe nobody writes to as --requirements", codes={2}, seconds=FIFO_SECONDS, large=True)
def _(ws: Workspace) -> Run:
    return Run(["certify", "fakeqoder@1.0.0", _framed(ws), "--role", "cli", "--requirements",
                _fifo(ws, "r.yaml")], contracts=FAKE, expect=_pipe())


@case("certify", "a named pipe nobody writes to as --scenario", codes={2}, seconds=FIFO_SECONDS, large=True)
def _(ws: Workspace) -> Run:
    return Run(["certify", "fakeqoder@1.0.0", "--run", "--scenario", _fifo(ws, "s.yaml"), "--", "true"],
               contracts=FAKE, expect=_pipe())


# -- defect 5: inputs past the README's limits are refused early, for what they are -----------------------------------


@case("diff", "a 15 MB waivers file of plain entries is refused by its count, not read into 1 GB", codes={2})
def _(ws: Workspace) -> Run:
    entry = b'  - {fingerprint: "0123456789ab", reason: "the reader is tolerant", who: a@example.com, expires: ' \
            b'2027-01-31}\n'
    waivers = ws.write("waivers.yaml", b"waivers:\n" + entry * (15_000_000 // len(entry)))

    def check(finished: Any) -> None:
        stderr_says("holds more than 100,000 values, the most wirecheck reads of a YAML file")(finished)
        assert "alias" not in finished.stderr, finished.stderr
    return Run(["diff-schemas", _schema(ws), _schema(ws), "--waivers", waivers], expect=check)


def _enum_contract(ws: Workspace, count: int) -> Path:
    return ws.contract("hostile", {"1.0.0": {"Msg": message_schema({"v": {"enum": [f"value-{n}" for n in
                                                                                  range(count)]}})}})


_TOO_MANY_VALUES = stderr_says("hold more than 50,000 JSON values, the most wirecheck loads of a contract release")


@case("validate", "a contract with a 1M-value enum is refused at load", codes={2}, large=True)
def _(ws: Workspace) -> Run:
    return Run(["validate", "hostile@1.0.0", ws.lines("c.jsonl", [{"type": "msg", "v": "value-5"}])],
               contracts=_enum_contract(ws, 1_000_000), expect=_TOO_MANY_VALUES)


@case("fuzz", "a contract with a 1M-value enum is refused at load", codes={2}, large=True)
def _(ws: Workspace) -> Run:
    return Run(["fuzz", "hostile@1.0.0", "--seed", "1", "--count", "3"], contracts=_enum_contract(ws, 1_000_000),
               expect=_TOO_MANY_VALUES)


@case("fuzz", "--invalid on a contract with a 1M-value enum is refused at load", codes={2}, large=True)
def _(ws: Workspace) -> Run:
    return Run(["fuzz", "hostile@1.0.0", "--invalid", "--seed", "1", "--count", "3"],
               contracts=_enum_contract(ws, 1_000_000), expect=_TOO_MANY_VALUES)


@case("fuzz", "--invalid on a release at its value limit (25,000 anyOf members) stays within memory",
      large=True, memory_mib=DEFAULT_BUDGET, seconds=300)
def _(ws: Workspace) -> Run:
    """The worst shape measured per value (each member a schema jsonschema-rs, the views and the generator build):
    49,985 values, just within MAX_RELEASE_VALUES; 375 MiB when the limit was chosen."""
    contracts = ws.contract("hostile", {"1.0.0": {"Msg": message_schema(
        {"v": {"anyOf": [{"const": n} for n in range(24_990)]}})}})
    return Run(["fuzz", "hostile@1.0.0", "--invalid", "--seed", "1", "--count", "3"], contracts=contracts)


def _many_defs(count: int, changed: bool) -> dict[str, Any]:
    """`count` $defs of 12 typed, described properties and two $refs each (about 55 JSON values and 2.4 KB a
    definition), every tenth with p0 retyped when `changed`: issue 31's count (1,900 $defs: 5.2 MB there, 4.6 MB
    here)."""
    defs = {}
    for i in range(count):
        properties: dict[str, Any] = {}
        for j in range(12):
            kind = ("string", "integer", "boolean", "number")[(i + j) % 4]
            properties[f"p{j}"] = {"type": kind, "description": f"field {j} of D{i} " * 8,
                                   **({"maxLength": 100 + j} if kind == "string" else {}),
                                   **({"minimum": 0} if kind == "integer" else {})}
        properties["next"] = {"$ref": f"#/$defs/D{(i + 1) % count}"}
        properties["items"] = {"type": "array", "items": {"$ref": f"#/$defs/D{(i * 7 + 3) % count}"}}
        if changed and i % 10 == 0:
            properties["p0"] = {"type": "object"}
        defs[f"D{i}"] = {"type": "object", "properties": properties, "required": ["p0", "p1"],
                         "additionalProperties": False}
    return {"$schema": D, "$defs": defs, "$ref": "#/$defs/D0"}


def _defs_pair(ws: Workspace, count: int) -> list[str]:
    return [ws.write(f"{side}.json", orjson.dumps(_many_defs(count, side == "new"))) for side in ("old", "new")]


@case("diff-schemas", "two schemas of 1,900 $defs (104,504 values each) are refused by their count, not compared "
      "in 487 MiB and 237 s", codes={2}, large=True)
def _(ws: Workspace) -> Run:
    return Run(["diff-schemas", *_defs_pair(ws, 1_900)],
               expect=stderr_says("holds more than 75,000 JSON values, the most wirecheck compares of a schema"))


@case("diff-schemas", "two schemas at the value limit (1,360 $defs, 74,804 values each) stay within memory",
      codes={1}, large=True, memory_mib=DEFAULT_BUDGET, seconds=900)
def _(ws: Workspace) -> Run:
    return Run(["diff-schemas", *_defs_pair(ws, 1_360)])


@case("validate", "a 300 MB contract schema is refused by its size", codes={2}, large=True)
def _(ws: Workspace) -> Run:
    contracts = _demo_contract(ws)
    path = contracts / "hostile" / "1.0.0" / "stream.json"
    schema = orjson.loads(path.read_bytes())
    head = orjson.dumps(schema)[:-1] + b', "examples": ['
    with path.open("wb") as out:
        out.write(head)
        chunk = b'"' + b"x" * (MIB - 4) + b'", '
        for _ in range(300):
            out.write(chunk)
        out.write(b'"x"]}')
    return Run(["validate", "hostile@1.0.0", ws.lines("c.jsonl", [{"type": "msg"}])], contracts=contracts,
               expect=stderr_says("is 300 MiB, more than the 16 MiB wirecheck reads of a contract schema file"))


# -- defect 6: patterns that are not ECMA-262 are a contract error at load --------------------------------------------

NOT_ECMA = ["(?i)^abc$", "[[:alpha:]]", "\\x{41}", "a++", "\\pL", "\\Aabc\\z", "a{2}{3}"]


def _dialect_contract(ws: Workspace, versions: tuple[str, ...] = ("1.0.0",)) -> Path:
    """Each release's `p<n>` holds one of NOT_ECMA; each later release the next one (a changed pattern: the diff
    looks for a witness string with it)."""
    return ws.contract("hostile", {v: {"Msg": message_schema({
        f"p{n}": {"type": "string", "pattern": NOT_ECMA[(n + shift) % len(NOT_ECMA)]} for n in range(len(NOT_ECMA))
    })} for shift, v in enumerate(versions)})


def _every_pattern_located(finished: Any) -> None:
    for n, pattern in enumerate(NOT_ECMA):
        stderr_says(f"1.0.0/stream.json#/$defs/Msg/properties/p{n}/pattern: not a valid 2020-12 schema: "
                    f"{orjson.dumps(pattern).decode()} is not an ECMA-262 regular expression")(finished)


@case("validate", "contract patterns that are not ECMA-262 are refused at load, each located", codes={2})
def _(ws: Workspace) -> Run:
    capture = ws.lines("c.jsonl", [{"type": "msg", **{f"p{n}": "abc" for n in range(len(NOT_ECMA))}}])
    return Run(["validate", "hostile@1.0.0", capture], contracts=_dialect_contract(ws), expect=_every_pattern_located)


@case("fuzz", "--invalid on contract patterns that are not ECMA-262 (was a RegressError, exit 3)", codes={2})
def _(ws: Workspace) -> Run:
    return Run(["fuzz", "hostile@1.0.0", "--invalid", "--seed", "1", "--count", "3"],
               contracts=_dialect_contract(ws), expect=_every_pattern_located)


@case("diff", "two releases with patterns that are not ECMA-262 (was a RegressError, exit 3)", codes={2})
def _(ws: Workspace) -> Run:
    return Run(["diff", "hostile@1.0.0", "hostile@2.0.0"], contracts=_dialect_contract(ws, ("1.0.0", "2.0.0")),
               expect=_every_pattern_located)


# -- defect 7: YAML values no JSON reader has --------------------------------------------------------------------------


@case("diff", "!!set and !!binary in a waivers file (was a TypeError, exit 3)", codes={2})
def _(ws: Workspace) -> Run:
    waivers = ws.write("waivers.yaml", "waivers:\n  - fingerprint: !!binary MDEyMzQ1Njc4OWFi\n"
                       "    reason: !!set {a, b}\n    who: w\n")
    return Run(["diff-schemas", _schema(ws), _schema(ws), "--waivers", waivers],
               expect=stderr_says("line 2, column 18 (/waivers/0/fingerprint): YAML binary data (!!binary) is not a "
                                  "JSON value"))


@case("certify", "!!set in a baseline (baselines were already refused: every YAML file is, alike)", codes={2})
def _(ws: Workspace) -> Run:
    baseline = ws.write("baseline.yaml", "expected_failures:\n  - id: FAKEQODER-1.0.0-ASSISTANT-SCHEMA\n"
                        "    reason: !!set {a}\n")
    return Run(["certify", "fakeqoder@1.0.0", _framed(ws), "--role", "cli", "--baseline", baseline],
               contracts=FAKE, expect=stderr_says("a YAML set (!!set) is not a JSON value"))


# -- archives: what a tool hands back to unpack (issue 35) -----------------------------------------------------------

# A fake `npm pack` that writes a gzip bomb: a tar whose one file is 10 GiB of zeros, in 10 MB of gzip (the same
# deflate block of 1 MiB of zeros after a full flush, 10,240 times; the gzip trailer's CRC is never reached)
_BOMB_NPM = '''#!{python}
import json, os, sys, tarfile, zlib
spec, dest = sys.argv[2], sys.argv[sys.argv.index("--pack-destination") + 1]
name, _, version = spec.rpartition("@")
header = tarfile.TarInfo("package/zeros")
header.size = 10 << 30
deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
head = deflate.compress(header.tobuf()) + deflate.flush(zlib.Z_FULL_FLUSH)
block = deflate.compress(bytes(1 << 20)) + deflate.flush(zlib.Z_FULL_FLUSH)
filename = "bomb-" + version + ".tgz"
with open(os.path.join(dest, filename), "wb") as out:
    out.write(b"\\x1f\\x8b\\x08\\x00\\x00\\x00\\x00\\x00\\x02\\xff" + head)
    for _ in range(10 << 10):
        out.write(block)
    out.write(deflate.flush(zlib.Z_FINISH) + bytes(8))
print(json.dumps([{{"filename": filename, "name": name, "version": version, "integrity": "sha512-x", "shasum": "0"}}]))
'''


@case("import", "import npm: a tarball of 10 GiB of zeros in 10 MB of gzip (it was unpacked whole)", codes={2})
def _(ws: Workspace) -> Run:
    import sys

    folder = ws.path("bin")
    folder.mkdir()
    npm = folder / "npm"
    npm.write_text(_BOMB_NPM.format(python=sys.executable))
    npm.chmod(0o755)
    return Run(["import", "npm", "@agentclientprotocol/sdk@0.4.5", "--out", str(ws.path("out"))],
               env={"PATH": f"{folder}{os.pathsep}{os.environ.get('PATH', '')}"},
               expect=stderr_says("the tarball holds more than 1,073,741,824 bytes of files (wirecheck.limits."
                                  "MAX_ARCHIVE_BYTES): 10,737,418,240 bytes up to and with 'package/zeros'"))
