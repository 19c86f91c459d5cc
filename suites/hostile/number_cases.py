"""NaN, infinities and numbers beyond a double in every numeric field (and a field of each format that is not one)
of every file format wirecheck reads, and in the numeric options of the commands (issue 41, 1). A NaN passes every
`minimum` and `maximum` of a schema (each comparison is false): a stub scenario's `lease_seconds: .nan` loaded, and
the stub answered every lease `500 stub failure: ValueError`, booked against the runtime. Every one is refused where
the file is read, located (line, column, JSON pointer), exit 2: the YAML files by the one loader (yaml_lines), the
JSON files by the one JSON reader (json_text), the options by their bounds.

The default run takes each field once, with the spellings in turn; `nox -s hostile` takes every field with every
spelling. Registered with hostile_cases.case and run by the one runner (test_hostile.py).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
from hostile_cases import FAKE, SUITES, Run, Workspace, case, stderr_says

BUNDLED = SUITES.parent / "contracts"
MCP = SUITES / "importer" / "data" / "mcp-2025-06-18"

# each spelling (YAML), and what the refusal says of it
SPELLINGS = {
    ".nan": ".nan is not a JSON number: JSON has no NaN",
    ".inf": ".inf is not a JSON number: JSON has no infinities",
    "-.Inf": "-.Inf is not a JSON number: JSON has no infinities",
    "1.0e+400": "the number 1.0e+400 is beyond the range of a double: JavaScript reads it as Infinity",
    "-1" + "0" * 400: "is beyond the range of a double: JavaScript reads it as -Infinity",
}

HARNESS_HEAD = "scenario: 1\nroles: {harness: sdk, implementation: cli}\n"
STUB_HEAD = "stub_scenario: 1\nname: hostile\ndescription: numbers no JSON value holds\n"


def _stub(ws: Workspace, text: str) -> Run:
    return Run(["stub", "xopc@0.0.253", "--scenario", ws.write("scenario.yaml", STUB_HEAD + text), "--max-seconds",
                "5", "--out-dir", str(ws.path("out")), "--contracts", str(BUNDLED), "--", "true"])


def _harness(ws: Workspace, text: str) -> Run:
    return Run(["certify", "fakeqoder@1.0.0", "--run", "--scenario", ws.write("scenario.yaml", HARNESS_HEAD + text),
                "--out-dir", str(ws.path("out")), "--", sys.executable, "-c", "pass"], contracts=FAKE)


def _framed(ws: Workspace) -> str:
    return ws.write("run.framed.ndjson", b'{"wirecheck_capture": 1, "framing": "directed"}\n'
                    b'{"from": "cli", "message": {"type": "keep_alive"}}\n')


def _scope(ws: Workspace, text: str) -> Run:
    return Run(["certify", "fakeqoder@1.0.0", _framed(ws), "--role", "cli", "--scope",
                ws.write("scope.yaml", text)], contracts=FAKE)


def _requirements(ws: Workspace, text: str) -> Run:
    original = (FAKE / "fakeqoder" / "1.0.0" / "requirements.yaml").read_text()
    return Run(["certify", "fakeqoder@1.0.0", _framed(ws), "--role", "cli", "--requirements",
                ws.write("requirements.yaml", original + text)], contracts=FAKE)


def _schemas(ws: Workspace) -> list[str]:
    schema = orjson.dumps({"type": "object"})
    return [ws.write("old.json", schema), ws.write("new.json", schema)]


def _waivers(ws: Workspace, text: str) -> Run:
    return Run(["diff-schemas", *_schemas(ws), "--waivers", ws.write("waivers.yaml", text)])


def _contract(ws: Workspace, catalog: Callable[[str], str] = lambda t: t, registry: str = "", readers: str = "") -> Run:
    from hostile_cases import message_schema

    contracts = ws.contract("hostile", {"1.0.0": {"Msg": message_schema({})}})
    path = contracts / "hostile" / "1.0.0" / "catalog.yaml"
    path.write_text(catalog(path.read_text()))
    if readers:
        (path.parent / "readers.yaml").write_text(readers)
    if registry:
        (contracts / "registry.yaml").write_text((contracts / "registry.yaml").read_text() + registry)
    return Run(["validate", "hostile@1.0.0", ws.lines("c.jsonl", [{"type": "msg", "n": 1}])], contracts=contracts)


def _mapping(ws: Workspace, text: str) -> Run:
    return Run(["import", "schema", str(MCP / "schema.json"), "--profile", "json-rpc", "--package", "mcp",
                "--version", "2025-06-18", "-o", str(ws.path("out")), "--mapping", ws.write("mapping.yaml", text)])


def _yaml_schema(ws: Workspace, text: str) -> Run:
    return Run(["diff-schemas", ws.write("old.yaml", "type: object\n"), ws.write("new.yaml", text)])


# (format, field, the run with N in place of the number)
FIELDS: list[tuple[str, str, Callable[[Workspace, str], Run]]] = [
    ("stub scenario", "lease_seconds", lambda ws, n: _stub(ws, f"lease_seconds: {n}\n")),
    ("stub scenario", "commands", lambda ws, n: _stub(ws, f"commands: {n}\n")),
    ("stub scenario", "delays/seconds", lambda ws, n: _stub(ws, f"delays:\n  - {{route: lease, seconds: {n}}}\n")),
    ("stub scenario", "faults/answer", lambda ws, n: _stub(ws, f"faults:\n  - {{route: renew, answer: {n}}}\n")),
    ("harness scenario", "timeout", lambda ws, n: _harness(ws, f"timeout: {n}\nsteps: [{{close_stdin: true}}]\n")),
    ("harness scenario", "step_timeouts/expect",
     lambda ws, n: _harness(ws, f"step_timeouts: {{expect: {n}}}\nsteps: [{{close_stdin: true}}]\n")),
    ("harness scenario", "sleep", lambda ws, n: _harness(ws, f"steps: [{{sleep: {n}}}]\n")),
    ("harness scenario", "expect/timeout",
     lambda ws, n: _harness(ws, f"steps: [{{expect: {{match: {{type: x}}, timeout: {n}}}}}]\n")),
    ("harness scenario", "wait_exit/timeout",
     lambda ws, n: _harness(ws, f"steps: [{{wait_exit: {{timeout: {n}}}}}]\n")),
    ("harness scenario", "a value sent", lambda ws, n: _harness(ws, f"steps: [{{send: {{type: user, n: {n}}}}}]\n")),
    ("harness scenario", "a value expected (a NaN pattern never matches: a wait, not a finding)",
     lambda ws, n: _harness(ws, f"steps: [{{expect: {{match: {{n: {n}}}}}}}]\n")),
    ("harness scenario", "a files: value",
     lambda ws, n: _harness(ws, f"files: {{work/a.json: {{n: {n}}}}}\nsteps: [{{close_stdin: true}}]\n")),
    ("harness scenario", "model turn usage",
     lambda ws, n: _harness(ws, "model: {api: anthropic-messages, turns: [{text: a, usage: {input: " + n
                            + "}}]}\nsteps: [{close_stdin: true}]\n")),
    ("harness scenario", "model turn times",
     lambda ws, n: _harness(ws, "model: {api: openai-chat, turns: [{text: a, times: " + n
                            + "}]}\nsteps: [{close_stdin: true}]\n")),
    ("harness scenario", "model error status and retry-after",
     lambda ws, n: _harness(ws, "model: {api: openai-chat, turns: [{error: {status: 429, headers: {retry-after: "
                            + n + "}}}]}\nsteps: [{close_stdin: true}]\n")),
    ("scope file", "a reason", lambda ws, n: _scope(ws, f"expected_failures:\n  - {{id: X, reason: {n}}}\n")),
    ("requirement set", "an entry", lambda ws, n: _requirements(ws, f"  - {n}\n")),
    ("waivers", "expires", lambda ws, n: _waivers(ws, f"waivers:\n  - {{fingerprint: '0123456789ab', reason: r, "
                                                      f"who: w, expires: {n}}}\n")),
    ("catalog", "a selector value (NaN matches nothing: every message unclassified)",
     lambda ws, n: _contract(ws, lambda t: t.replace("selector: {fields: {/type: msg}}",
                                                     f"selector: {{fields: {{/type: msg, /n: {n}}}}}"))),
    ("catalog", "a kind's title", lambda ws, n: _contract(ws, lambda t: t.replace("title: message", f"title: {n}"))),
    ("registry", "a release", lambda ws, n: _contract(ws, registry=f"  other:\n    title: o\n    releases: [{n}]\n")),
    ("readers", "a reader", lambda ws, n: _contract(ws, readers=f"readers: {n}\nunknown_kinds: {{}}\n")),
    ("import mapping", "a reply", lambda ws, n: _mapping(ws, f"replies:\n  ping: {n}\n")),
    ("diff-schemas YAML schema", "maximum", lambda ws, n: _yaml_schema(ws, f"type: number\nmaximum: {n}\n")),
]


def _refused(spelling: str) -> Callable[[Any], None]:
    return stderr_says(SPELLINGS[spelling])


for _index, (_format, _field, _build) in enumerate(FIELDS):
    _spellings = list(SPELLINGS)
    _default = _spellings[_index % len(_spellings)]
    for _spelling in _spellings:
        @case("numbers", f"{_format}: {_field} = {_spelling[:12]}", codes={2}, large=_spelling != _default)
        def _(ws: Workspace, build: Callable[[Workspace, str], Run] = _build, spelling: str = _spelling) -> Run:
            run = build(ws, spelling)
            run.expect = _refused(spelling)
            return run


# -- JSON files: the one JSON reader refuses NaN and Infinity, and every caller a number beyond a double ---------------


@case("numbers", "a contract schema file with NaN, Infinity and 1e400", codes={2})
def _(ws: Workspace) -> Run:
    from hostile_cases import message_schema

    contracts = ws.contract("hostile", {"1.0.0": {"Msg": message_schema({"n": {"maximum": 5}})}})
    schema = contracts / "hostile" / "1.0.0" / "stream.json"
    schema.write_bytes(schema.read_bytes().replace(b'"maximum":5', b'"maximum":1e400'))
    return Run(["validate", "hostile@1.0.0", ws.lines("c.jsonl", [{"type": "msg"}])], contracts=contracts,
               expect=stderr_says("stream.json#/$defs/Msg/properties/n/maximum", "1e400 at /$defs/Msg/properties/n/"
                                  "maximum is beyond the range of a double"))


@case("numbers", "diff-schemas of a JSON schema with NaN", codes={2})
def _(ws: Workspace) -> Run:
    return Run(["diff-schemas", ws.write("old.json", b'{"type": "number"}'),
                ws.write("new.json", b'{"type": "number", "maximum": NaN}')],
               expect=stderr_says("NaN is not valid JSON"))


# -- the numeric options of the commands ----------------------------------------------------------------------------

# (the option and its value, what the refusal says, what it was before issue 41)
OPTIONS: list[tuple[list[str], str, str]] = [
    (["probe", "xopc@0.0.253", "http://127.0.0.1:9", "--timeout", "inf"], "less than or equal to 86400",
     "an OverflowError, exit 3"),
    (["probe", "xopc@0.0.253", "http://127.0.0.1:9", "--timeout", "nan"], "--timeout", ""),
    (["stub", "xopc@0.0.253", "--max-seconds", "1e400", "--", "true"], "less than or equal to 86400",
     "accepted: with no runtime the stub served for ever"),
    (["stub", "xopc@0.0.253", "--lease-seconds", "nan", "--", "true"], "--lease-seconds", ""),
    (["stub", "xopc@0.0.253", "--delay", "lease=inf", "--", "true"], "a number of seconds from 0 to 120", ""),
    (["fuzz-consumer", "demo@1.0.0", "--kind", "hello", "--count", "1", "--timeout", "inf", "--", sys.executable,
      "-c", "pass"], "less than or equal to 86400", "an OverflowError, exit 3"),
    (["certify", "fakeqoder@1.0.0", "--run", "--scenario", "qoder-handshake", "--step-timeout", "wait_exit=nan",
      "--", "true"], "with a positive number of seconds", ""),
    (["certify", "fakeqoder@1.0.0", "--run", "--scenario", "qoder-handshake", "--timeout", "inf", "--", "true"],
     "expected a positive number of seconds", ""),
    (["validate", "demo@1.0.0", "-", "--min-coverage", "nan"], "give a fraction from 0 to 1", ""),
]
_NUMERIC = ("--timeout", "--max-seconds", "--lease-seconds", "--delay", "--step-timeout", "--min-coverage")

for _args, _says, _was in OPTIONS:
    _option = next(i for i, a in enumerate(_args) if a in _NUMERIC)

    @case(_args[0], f"{_args[_option]} {_args[_option + 1]} is a usage error" + (f" (was {_was})" if _was else ""),
          codes={2})
    def _(ws: Workspace, args: list[str] = _args, says: str = _says) -> Run:
        contracts = FAKE if args[0] == "certify" else BUNDLED if args[0] in ("probe", "stub") else \
            SUITES / "data" / "contracts"
        return Run(args, stdin=b"", contracts=Path(contracts), expect=stderr_says(says))
