"""Hostile names in every report of every command (issue 41, 9): file names, property names, values, scope reasons,
a platform's answers and a runtime's requests holding ESC, BEL, `\\x01`, a C1 CSI, bidirectional overrides, a line
feed, a line separator, `|`, `<b>`, backticks, `]]>` and an entity (NUL too, where a JSON value can hold it). In
each format of validate, certify, diff, diff-schemas, stub and probe (text, json, jsonl, junit, markdown, sarif,
html) and on standard error: no control character is written raw where a person reads it (text, Markdown, JUnit,
HTML, stderr: each is shown as its escape, `findings.printable`), the JSON ones parse, SARIF is valid SARIF 2.1.0
(the vendored OASIS schema) with every `artifactLocation.uri` a URI reference naming the file, a name's line feed
splits no line of a text report, the HTML shows markup as text, and nothing is written outside the named outputs.
Registered with hostile_cases.case and run by the one runner (test_hostile.py).
"""

from __future__ import annotations

import socket
import sys
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import orjson
from contract_cases import RAW_CONTROLS
from hostile_cases import DEMO, FAKE, SUITES, Run, Workspace, case, message_schema
from live_cases import discovery, http_answer, runtime_posting, script

# a name a file system can hold (no `/`, no NUL); the value a JSON string can hold adds NUL
NAME = "h\x1b]0;pwn\x07\x01\x9b31m|<b>`x`]]>\u202eevil\u2066 \u2028\n&amp;"
VALUE = NAME + "\x00"
BUNDLED = SUITES.parent / "contracts"
RUNNER_FILES = {"stdout.txt", "stderr.txt", "measured.json", "stdin.bin"}
SARIF_SCHEMA = SUITES / "data" / "sarif" / "sarif-schema-2.1.0.json"
FOR_PEOPLE = (".txt", ".text", ".md", ".markdown", ".xml", ".junit", ".html", ".svg")
JSON_KINDS = (".json", ".jsonl", ".sarif", ".har")


def _sarif_problems(text: str) -> list[str]:
    import jsonschema

    validator = jsonschema.Draft4Validator(orjson.loads(SARIF_SCHEMA.read_bytes()),
                                           format_checker=jsonschema.FormatChecker())
    log = orjson.loads(text)
    problems = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(log)]
    for run in log["runs"]:
        for result in run["results"]:
            for location in result.get("locations", []):
                uri = location["physicalLocation"]["artifactLocation"]["uri"]
                name = unquote(uri.removeprefix("file://"), errors="surrogateescape")
                if not Path(name).name or "\x1b" in uri or "\n" in uri:
                    problems.append(f"uri {uri!r}")
    return problems


def _shown(text: str, where: str, lines: bool = True) -> list[str]:
    """What is wrong with `text`, written for people: raw control characters; with `lines` (text and Markdown,
    where a report's lines are its structure), a value's line feed starting a line of its own."""
    problems = [f"{where}: raw {c!r}" for c in RAW_CONTROLS if c in text]
    if lines:
        problems += [f"{where}: a line split at a name's line feed" for line in text.split("\n")
                     if line.startswith("&amp;")]
    return problems


def reports_are_safe(ws: Workspace, outputs: list[str]) -> Any:
    """The check of every case here. `outputs`: the files (relative to the case folder) the command is named to
    write; a folder's name stands for everything in it. Nothing else may appear in the case folder."""
    before = {p.relative_to(ws.root).as_posix() for p in ws.root.rglob("*")}

    def check(finished: Any) -> None:
        problems = _shown(finished.stderr, "stderr", lines=False)  # stderr's messages may span lines (a list)
        after = {p.relative_to(finished.root).as_posix() for p in finished.root.rglob("*")}
        stray = {name for name in after - before - RUNNER_FILES
                 if not any(name == out or name.startswith(out + "/") for out in outputs)}
        assert not stray, f"written outside the named outputs: {sorted(stray)}"
        written = [finished.root / "stdout.txt"] + [p for out in outputs for p in (
            [finished.root / out] if (finished.root / out).is_file() else sorted((finished.root / out).rglob("*")))]
        assert all(p.exists() for p in written) and len(written) > len(outputs), written
        for path in written:
            if not path.is_file():
                continue
            text = path.read_bytes().decode("utf-8")  # every output is UTF-8
            suffix = path.suffix if path.name != "stdout.txt" else ".txt"
            if suffix in JSON_KINDS and text.strip():
                for line in text.strip().split("\n") if suffix == ".jsonl" else [text]:
                    orjson.loads(line)
                if suffix == ".sarif":
                    problems += _sarif_problems(text)
            elif suffix in FOR_PEOPLE or path.name == "stdout.txt":
                problems += _shown(text, path.name, lines=suffix in (".txt", ".text", ".md", ".markdown"))
                if suffix == ".html":
                    problems += [f"{path.name}: the value's markup is markup" for raw in ("<b>`x`", "<b>|")
                                 if raw in text]
        assert not problems, problems[:20]
    return check


def _capture(ws: Workspace) -> str:
    """A capture named NAME, with hostile member names and values the demo contract finds fault with."""
    return ws.lines(f"{NAME}.jsonl", [{"type": "hello", "version": "1.0.0", VALUE: VALUE},
                                      {"type": "hello", "version": VALUE}, {"type": VALUE}])


# -- validate: every format ----------------------------------------------------------------------------------------

# the slow tier (nox -s hostile) has the formats whose writers share an encoder with one the default run has
for _format, _suffix, _large in (("text", ".txt", False), ("json", ".json", True), ("junit", ".xml", True),
                                 ("markdown", ".md", False), ("sarif", ".sarif", False)):
    @case("validate", f"hostile names in the {_format} report (-o) and on stdout", codes={1}, large=_large)
    def _(ws: Workspace, fmt: str = _format, suffix: str = _suffix) -> Run:
        capture = _capture(ws)
        return Run(["validate", "demo@1.0.0", capture, "--format", fmt, "-o", str(ws.path(f"report{suffix}"))],
                   contracts=DEMO, expect=reports_are_safe(ws, [f"report{suffix}"]))


@case("validate", "a capture named with ESC and BEL that does not exist: the usage error shows them", codes={2})
def _(ws: Workspace) -> Run:
    return Run(["validate", "demo@1.0.0", str(ws.path(f"{NAME}.jsonl"))], contracts=DEMO,
               expect=reports_are_safe(ws, []))


# -- diff-schemas and diff: every format ---------------------------------------------------------------------------

OLD = {"type": "object", "required": ["keep"], "properties": {VALUE: {"type": "string"}, "keep": {
    "enum": [f"a`b{VALUE}", "c"]}}}
NEW = {"type": "object", "required": ["keep", VALUE], "additionalProperties": False, "properties": {
    VALUE: {"type": "integer"}, "keep": {"enum": ["c"]}}}
DIFF_FORMATS = (("text", ".txt", False), ("markdown", ".md", True), ("json", ".json", True), ("junit", ".xml", False),
                ("sarif", ".sarif", False), ("html", ".html", False))

for _format, _suffix, _large in DIFF_FORMATS:
    @case("diff-schemas", f"hostile file and property names in the {_format} report", codes={1}, large=_large)
    def _(ws: Workspace, fmt: str = _format, suffix: str = _suffix) -> Run:
        old = ws.write(f"old {NAME}.json", orjson.dumps(OLD))
        new = ws.write(f"new {NAME}.json", orjson.dumps(NEW))
        return Run(["diff-schemas", old, new, "--format", fmt, "-o", str(ws.path(f"diff{suffix}"))],
                   expect=reports_are_safe(ws, [f"diff{suffix}"]))


@case("diff-schemas", "a schema that is not JSON, its excerpt holding ESC and BEL: the error shows them", codes={2})
def _(ws: Workspace) -> Run:
    old = ws.write("old.json", b'{"type": "object", "properties": \x1b]0;pwned\x07 }')
    return Run(["diff-schemas", old, ws.write("new.json", orjson.dumps(NEW))], expect=reports_are_safe(ws, []))


for _format, _suffix, _large in (("text", ".txt", True), ("sarif", ".sarif", True), ("html", ".html", False)):
    @case("diff", f"two releases with hostile property names: the {_format} report", codes={1}, large=_large)
    def _(ws: Workspace, fmt: str = _format, suffix: str = _suffix) -> Run:
        contracts = ws.contract("hostile", {
            "1.0.0": {"Msg": message_schema({VALUE: {"type": "string"}})},
            "2.0.0": {"Msg": message_schema({VALUE: {"type": "integer"}}) | {"required": ["type", VALUE]}}})
        return Run(["diff", "hostile@1.0.0", "hostile@2.0.0", "--format", fmt, "-o", str(ws.path(f"diff{suffix}"))],
                   contracts=contracts, expect=reports_are_safe(ws, [f"diff{suffix}"]))


# -- certify: every format of the out-dir, and stdout --------------------------------------------------------------


@case("certify", "a hostile capture name, message members and scope reasons in every report of --out-dir",
      codes={1, 4})
def _(ws: Workspace) -> Run:
    import json

    capture = ws.write(f"run {NAME}.framed.ndjson", b'{"wirecheck_capture": 1, "framing": "directed"}\n' + b"".join(
        b'{"from": "cli", "message": ' + orjson.dumps(m) + b"}\n" for m in (
            {"type": "assistant", "session_id": 5, "message": {}, VALUE: VALUE}, {"type": VALUE})))
    scope = ws.write("scope.yaml", json.dumps({  # every non-ASCII character escaped: YAML would fold a raw U+2028
        "expected_failures": [{"id": "FAKEQODER-1.0.0-ASSISTANT-SCHEMA", "reason": f"known: {NAME}"}],
        "out_of_scope": [{"id": "FAKEQODER-1.0.0-RESULT-SCHEMA", "reason": f"unreached {NAME}",
                          "evidence": f"see {NAME}"}]}))
    return Run(["certify", "fakeqoder@1.0.0", capture, "--role", "cli", "--scope", scope, "--out-dir",
                str(ws.path("out")), "--format", "text"], contracts=FAKE, expect=reports_are_safe(ws, ["out"]))


# -- probe and stub: what the platform and the runtime send ----------------------------------------------------------


def _hostile_platform(conn: socket.socket, head: bytes) -> None:
    """A platform whose answers hold hostile member names and values, in headers too."""
    lines = head.decode("latin-1").split("\r\n")
    host = next((line.split(":", 1)[1].strip() for line in lines[1:] if line.lower().startswith("host:")), "")
    if " /.well-known/" in lines[0]:
        http_answer(200, discovery(f"http://{host}/agent"))(conn, head)
    else:
        body = orjson.dumps({"command": {"id": VALUE, "leaseExpiresAt": VALUE, VALUE: VALUE}, VALUE: [VALUE]})
        http_answer(200, body, "x-hostile: h\x1b]0;pwn\x07|<b>\r\n")(conn, head)


@case("probe", "a platform answering hostile member names and values: every report of --out-dir", codes={1})
def _(ws: Workspace) -> Run:
    return Run(["probe", "xopc@0.0.253", ws.platform(_hostile_platform), "--timeout", "5", "--out-dir",
                str(ws.path("out")), "--format", "text", "--contracts", str(BUNDLED)],
               expect=reports_are_safe(ws, ["out"]))


@case("stub", "a runtime posting hostile member names and values: every report of --out-dir", codes={1})
def _(ws: Workspace) -> Run:
    body = f"__import__('json').dumps({{{VALUE!r}: {VALUE!r}, 'capabilities': {{'engine': {VALUE!r}}}}}).encode()"
    runtime = script(ws, "rt.py", runtime_posting(body))
    return Run(["stub", "xopc@0.0.253", "--max-seconds", "60", "--out-dir", str(ws.path("out")), "--format", "text",
                "--contracts", str(BUNDLED), "--", sys.executable, runtime, "{url}"],
               expect=reports_are_safe(ws, ["out"]))


# -- contracts and show: a contracts folder's titles --------------------------------------------------------------

for _command in (["contracts"], ["show", "hostile@1.0.0"], ["show", "hostile@1.0.0", "msg"]):
    @case(_command[0], f"{' '.join(_command)}: a contract's titles holding ESC, BEL and a bidi override", codes={0},
          large=_command[0] == "show")
    def _(ws: Workspace, command: list[str] = _command) -> Run:
        contracts = ws.contract("hostile", {"1.0.0": {"Msg": message_schema({})}})
        hostile = '"h\\e]0;pwn\\a\\x9b31m\\u202eevil"'  # YAML escapes: ESC, BEL, a C1 CSI, U+202E
        registry = contracts / "registry.yaml"
        registry.write_text(registry.read_text().replace("title: hostile", f"title: {hostile}"))
        catalog = contracts / "hostile" / "1.0.0" / "catalog.yaml"
        catalog.write_text(catalog.read_text().replace("title: hostile", f"title: {hostile}")
                           .replace("title: message", f"title: {hostile}"))
        return Run(command, contracts=contracts, expect=reports_are_safe(ws, []))
