"""Hostile contract folders, contract packs and schemas to import (issue 41, items 3, 5, 10 and 11), end to end: a CI
gate's `--contracts contracts` over a pull request reads what the contributor committed, a contract pack is data
someone else published, `import schema` reads a schema from anywhere. Registered with hostile_cases.case and run
by the one runner (test_hostile.py) under the same guarantees as every case; each fails on the code before the
issue: a contract file linked to a credentials file quoted the token, a pack's `__init__.py` ran on every command,
methods JSON-RPC tells apart were one kind, a 1.2M-value schema was translated before it was refused, and a format
the fuzzer had no strategy for ended "no message could be generated".
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import orjson
from hostile_cases import FAKE, FIXTURES, Run, Workspace, case, message_schema, stderr_says

SECRET = "ghp_hostileSecretToken0123456789abcdef"
SHADOW_HASH = "$6$hostilesalt$HASHEDPASSWORDVALUE"
RAW_CONTROLS = [chr(c) for c in (*range(0x00, 0x09), *range(0x0b, 0x20), *range(0x7f, 0xa0))] + [
    "\u061c", "\u200e", "\u200f", *map(chr, range(0x2028, 0x202f)), *map(chr, range(0x2066, 0x206a))]


def _home(ws: Workspace) -> dict[str, Path]:
    """A CI runner's secrets, outside any contracts folder."""
    ws.write("home/.git-credentials", f"https://x-access-token:{SECRET}@github.com\n")
    ws.write("home/shadow", f"root:{SHADOW_HASH}:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n")
    return {"credentials": ws.path("home/.git-credentials"), "shadow": ws.path("home/shadow")}


def _linked(path: Path, target: Path) -> None:
    path.unlink()
    path.symlink_to(target)


def no_secret_anywhere(ws: Workspace, *says: str) -> Any:
    """Neither secret on standard output or error, nor in any file the run wrote (what is there once the case is
    built is its input); the refusal says `says`."""
    inputs = set(ws.root.rglob("*"))

    def check(finished: Any) -> None:
        said = finished.stdout + finished.stderr
        assert SECRET not in said and SHADOW_HASH not in said and "daemon:*" not in said, said[-2000:]
        for path in set(finished.root.rglob("*")) - inputs:
            if path.is_file() and not path.is_symlink():
                data = path.read_bytes()
                assert SECRET.encode() not in data and SHADOW_HASH.encode() not in data, path
        stderr_says(*says)(finished)
    return check


def no_raw_control(text: str) -> list[str]:
    return [repr(c) for c in RAW_CONTROLS if c in text]


def _demo(ws: Workspace) -> Path:
    return ws.contract("hostile", {"1.0.0": {"Msg": message_schema({"v": {"type": "string"}})}})


LEADS_OUT = "is a symbolic link that leads out of"


# -- 3: a contracts folder's files linked out of it ----------------------------------------------------------------


@case("validate", "--contracts whose registry.yaml links to ~/.git-credentials: refused unread", codes={2})
def _(ws: Workspace) -> Run:
    secrets, contracts = _home(ws), _demo(ws)
    _linked(contracts / "registry.yaml", secrets["credentials"])
    return Run(["validate", "hostile@1.0.0", ws.lines("c.jsonl", [{"type": "msg"}])], contracts=contracts,
               expect=no_secret_anywhere(ws, LEADS_OUT))


@case("validate", "--contracts whose catalog.yaml links to a shadow file: refused unread", codes={2}, large=True)
def _(ws: Workspace) -> Run:
    secrets, contracts = _home(ws), _demo(ws)
    _linked(contracts / "hostile" / "1.0.0" / "catalog.yaml", secrets["shadow"])
    return Run(["validate", "hostile@1.0.0", ws.lines("c.jsonl", [{"type": "msg"}])], contracts=contracts,
               expect=no_secret_anywhere(ws, LEADS_OUT))


@case("diff", "a release whose schema file links to ~/.git-credentials: refused unread", codes={2}, large=True)
def _(ws: Workspace) -> Run:
    secrets = _home(ws)
    contracts = ws.contract("hostile", {v: {"Msg": message_schema({})} for v in ("1.0.0", "2.0.0")})
    _linked(contracts / "hostile" / "2.0.0" / "stream.json", secrets["credentials"])
    return Run(["diff", "hostile@1.0.0", "hostile@2.0.0", "--format", "json"], contracts=contracts,
               expect=no_secret_anywhere(ws, LEADS_OUT))


@case("contracts", "a readers.yaml linked to a shadow file, and a release folder linked out of the folder",
      codes={2})
def _(ws: Workspace) -> Run:
    secrets = _home(ws)
    contracts = ws.contract("hostile", {v: {"Msg": message_schema({})} for v in ("1.0.0", "2.0.0")})
    (contracts / "hostile" / "1.0.0" / "readers.yaml").symlink_to(secrets["shadow"])
    moved = shutil.move(str(contracts / "hostile" / "2.0.0"), str(ws.path("home/release")))
    (contracts / "hostile" / "2.0.0").symlink_to(moved, target_is_directory=True)
    _linked(Path(moved) / "catalog.yaml", secrets["credentials"])
    return Run(["contracts"], contracts=contracts, expect=no_secret_anywhere(ws, LEADS_OUT, "readers.yaml"))


@case("certify", "a release's requirements.yaml linked to ~/.git-credentials: refused unread", codes={2})
def _(ws: Workspace) -> Run:
    secrets = _home(ws)
    contracts = Path(shutil.copytree(FAKE, ws.path("contracts")))
    _linked(contracts / "fakeqoder" / "1.0.0" / "requirements.yaml", secrets["credentials"])
    capture = ws.write("run.framed.ndjson", b'{"wirecheck_capture": 1, "framing": "directed"}\n'
                       b'{"from": "cli", "message": {"type": "keep_alive"}}\n')
    return Run(["certify", "fakeqoder@1.0.0", capture, "--role", "cli"], contracts=contracts,
               expect=no_secret_anywhere(ws, LEADS_OUT))


@case("contracts", "a registry.yaml that holds a credentials file's text (no link): said without quoting it",
      codes={2}, large=True)
def _(ws: Workspace) -> Run:
    contracts = _demo(ws)
    (contracts / "registry.yaml").write_text(f"https://x-access-token:{SECRET}@github.com\n")
    (contracts / "hostile" / "1.0.0" / "stream.json").write_text(f"{SECRET}\n")
    return Run(["contracts"], contracts=contracts,
               expect=no_secret_anywhere(ws, "is not a wirecheck contracts/registry.yaml: its top level is a string"))


# -- 5: a contract pack is data ------------------------------------------------------------------------------------

PACK_INIT = """import os, subprocess
open(os.path.join(os.path.dirname(__file__), os.pardir, "PACK-CODE-RAN"), "a").close()
subprocess.Popen(["sleep", "300"], start_new_session=True)
raise SystemExit(7)
"""


def _pack(ws: Workspace, name: str = "hostile_pack") -> Path:
    """An installed contract pack, as pip lays one out: a package whose `__init__.py` leaves a marker, starts a
    process that leaves the run's group and exits the interpreter, and its distribution's entry point."""
    contracts = _demo(ws)
    site = ws.path("site")
    package = Path(shutil.copytree(contracts, site / name))
    (package / "__init__.py").write_text(PACK_INIT)
    info = site / f"{name}-1.0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0.0\n")
    (info / "entry_points.txt").write_text(f"[wirecheck.contracts]\nhostile = {name}\n")
    (info / "RECORD").write_text("")
    shutil.rmtree(contracts)
    return site


def _installed(ws: Workspace, site: Path) -> dict[str, str]:
    """The installed contracts (no --contracts), with the pack's site folder on the path before what was there."""
    return {"WIRECHECK_CONTRACTS": "", "PYTHONPATH": os.pathsep.join(filter(None, [str(site),
                                                                               os.environ.get("PYTHONPATH")]))}


def no_pack_code(finished: Any) -> None:
    assert not (finished.root / "site" / "PACK-CODE-RAN").exists(), "the pack's __init__.py ran"


@case("validate", "a bundled release with a contract pack installed whose __init__.py runs code: not imported",
      codes={0})
def _(ws: Workspace) -> Run:
    capture = str(FIXTURES / "xopc" / "0.0.253" / "valid" / "worker-run.har")
    return Run(["validate", "xopc@0.0.253", capture], env=_installed(ws, _pack(ws)), expect=no_pack_code)


@case("validate", "a contract pack's own release, its __init__.py never run", codes={0}, large=True)
def _(ws: Workspace) -> Run:
    site = _pack(ws)
    return Run(["validate", "hostile@1.0.0", ws.lines("c.jsonl", [{"type": "msg", "v": "x"}])],
               env=_installed(ws, site), expect=no_pack_code)


@case("contracts", "a contract pack whose catalog links to ~/.git-credentials: refused unread", codes={2})
def _(ws: Workspace) -> Run:
    secrets, site = _home(ws), _pack(ws)
    _linked(site / "hostile_pack" / "hostile" / "1.0.0" / "catalog.yaml", secrets["credentials"])
    no_secret = no_secret_anywhere(ws, LEADS_OUT)

    def check(finished: Any) -> None:
        no_pack_code(finished)
        no_secret(finished)
    return Run(["contracts"], env=_installed(ws, site), expect=check)


# -- 10: import schema refusals that misled ------------------------------------------------------------------------


def _jsonrpc(ws: Workspace, methods: list[str], big_enum: int = 0) -> str:
    defs: dict[str, Any] = {"ClientRequest": {"anyOf": [{"$ref": f"#/$defs/M{n}Request"} for n in range(len(methods))]},
                            "ServerRequest": {"anyOf": [{"$ref": "#/$defs/M0Request"}]}}
    for n, method in enumerate(methods):
        params: dict[str, Any] = {"type": "object"}
        if big_enum and n == 0:
            params["properties"] = {"v": {"enum": [f"v{i}" for i in range(big_enum)]}}  # 13 MB at 1.2M
        defs[f"M{n}Request"] = {"type": "object", "required": ["method"],
                                "properties": {"method": {"const": method}, "params": params}}
        defs[f"M{n}Result"] = {"type": "object"}
    return ws.write("schema.json", orjson.dumps({"$schema": "https://json-schema.org/draft/2020-12/schema",
                                                 "$defs": defs}))


def _import(ws: Workspace, schema: str) -> list[str]:
    return ["import", "schema", schema, "--profile", "json-rpc", "--package", "p", "--version", "1.0.0", "-o",
            str(ws.path("out"))]


@case("import", "methods ping and PING (distinct in JSON-RPC) become two kinds, not a duplicate kind id", codes={0})
def _(ws: Workspace) -> Run:
    def check(finished: Any) -> None:
        catalog = (finished.root / "out" / "p" / "1.0.0" / "catalog.yaml").read_text()
        assert "id: server.ping\n" in catalog and "id: server.ping-" in catalog, catalog
    return Run(_import(ws, _jsonrpc(ws, ["ping", "PING", "response"])), expect=check)


@case("import", "a schema of 60,000 values is refused by its count before it is translated", codes={2})
def _(ws: Workspace) -> Run:
    def check(finished: Any) -> None:
        stderr_says("holds more than 50,000 JSON values, the most wirecheck loads of a contract release")(finished)
        assert not (finished.root / "out").exists()
    return Run(_import(ws, _jsonrpc(ws, ["ping"], big_enum=60_000)), expect=check)


@case("import", "a 13 MB schema of a 1.2M-value enum is refused at once (was read for 57 s, 372 MB, then refused)",
      codes={2}, large=True, seconds=60)
def _(ws: Workspace) -> Run:
    return Run(_import(ws, _jsonrpc(ws, ["ping"], big_enum=1_200_000)),
               expect=stderr_says("holds more than 50,000 JSON values"))


@case("import", "method names holding NUL, ESC, BEL and a bidirectional override are shown, not obeyed", codes={0})
def _(ws: Workspace) -> Run:
    schema = orjson.loads(Path(_jsonrpc(ws, ["ping"])).read_bytes())
    schema["$defs"]["Lost"] = {"properties": {"method": {"const": "x\x00\x1b]0;pwned\x07\u202ey"}}}
    path = ws.write("schema.json", orjson.dumps(schema))

    def check(finished: Any) -> None:
        assert not no_raw_control(finished.stderr + finished.stdout), no_raw_control(finished.stderr)
        stderr_says('senders: {"x\\u0000\\u001b]0;pwned\\u0007\\u202ey": client}')(finished)
    return Run(_import(ws, path), expect=check)


# -- 11: every format the validators assert can be generated --------------------------------------------------------

FORMATS = ["date-time", "date", "time", "duration", "email", "idn-email", "hostname", "idn-hostname", "ipv4", "ipv6",
           "uri", "uri-reference", "iri", "iri-reference", "uuid", "uri-template", "json-pointer",
           "relative-json-pointer", "regex"]


@case("fuzz", "a kind with a property of every format the validators assert (idn-email had no message)", codes={0})
def _(ws: Workspace) -> Run:
    contracts = ws.contract("hostile", {"1.0.0": {"Msg": message_schema({
        f"f{n}": {"type": "string", "format": fmt} for n, fmt in enumerate(FORMATS)}) | {
        "required": ["type", *(f"f{n}" for n in range(len(FORMATS)))]}}})

    def check(finished: Any) -> None:
        lines = [orjson.loads(line) for line in finished.stdout.splitlines()]
        assert len(lines) == 20 and all(len(line["message"]) == len(FORMATS) + 1 for line in lines), lines[:2]
    return Run(["fuzz", "hostile@1.0.0", "--count", "20", "--seed", "1"], contracts=contracts, expect=check)

