"""Generated fixtures of a JSON-RPC release (ACP): a valid and an invalid framed session, findings known by
construction.

    python -m wirecheck.importer.rpc_fixtures acp@0.16.0     # (re)writes fixtures/acp/0.16.0/generated/ + cases

- `generated/valid/session.framed.ndjson`: every request kind from its producer with minimal params, each answered
  once by its consumer with a minimal result of the method's response type; every notification; conforms.
- `generated/invalid/session.framed.ndjson`: every method once more, each with exactly one field of its params
  given a value of the wrong type (one SCHEMA_VIOLATION there), each request answered validly; then, for each
  responding side, one answer whose result breaks its response type in one field (one REPLY_VIOLATION there).

Every message is re-validated while it is built (the valid ones have no error, each broken one exactly the one
error at the pointer the case expects), so the expectations are facts about the contract, and the bundled
self-test (suites/contracts/test_bundled.py) checks that the engine finds exactly them. Hand-written cases in
the same folder's expectations.yaml are kept (see fixtures.write).
"""

from __future__ import annotations

import argparse
import copy
import json
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from wirecheck.contracts import ContractRelease, load_registry
from wirecheck.contracts.model import ABSENT, PRESENT
from wirecheck.importer.fixtures import GENERATED, ReleaseExamples, write
from wirecheck.pointer import format_pointer, parse_pointer

_WRONG_VALUES: tuple[Any, ...] = (12345, "not-valid", [], True)
SIDES = ("client", "agent")


def _line(sender: str, message: Any) -> str:
    return json.dumps({"from": sender, "message": message}, separators=(",", ":"), ensure_ascii=False)


def _sender(kind: Any) -> str:
    return kind.producer if kind.producer in SIDES else "client"


def _other(side: str) -> str:
    return "agent" if side == "client" else "client"


class _Session:
    """A framed capture being written: lines, request ids, and the cases' expected findings."""

    def __init__(self) -> None:
        self.lines = [json.dumps({"wirecheck_capture": 1, "framing": "directed"})]
        self.next_id = 0
        self.findings: list[dict[str, Any]] = []

    def send(self, sender: str, message: Any) -> int:
        self.lines.append(_line(sender, message))
        return len(self.lines)

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def _params_uri(ex: ReleaseExamples, envelope_uri: str) -> str | None:
    ref = ex.schema_at(envelope_uri).get("properties", {}).get("params", {}).get("$ref")
    return urljoin(envelope_uri, ref) if isinstance(ref, str) else None


def _at(document: Any, tokens: tuple[str, ...]) -> Any:
    for token in tokens:
        document = document[token]
    return document


def _one_error_at(ex: ReleaseExamples, uri: str, value: Any, pointer: str) -> bool:
    errors = ex.errors(uri, value, strict=False)
    return len(errors) == 1 and not errors[0].context and format_pointer(errors[0].absolute_path) == pointer


def _broken(ex: ReleaseExamples, uri: str, value: Any, at: str) -> tuple[Any, str] | None:
    """`value` with one field wrong, so that the schema at `uri` reports exactly one error (a mutated copy and the
    error's pointer), or None. Tried in order: the value at `at` of a wrong type, one of its members of a wrong
    type, one of its members left out (a `required` error at `at`)."""
    holder = parse_pointer(at)
    target = _at(value, holder)
    members = list(target) if isinstance(target, dict) else []
    for place in [(), *((key,) for key in members)]:
        tokens = (*holder, *place)
        for wrong in _WRONG_VALUES:
            mutated = copy.deepcopy(value) if tokens else wrong
            if tokens:
                _at(mutated, tokens[:-1])[tokens[-1]] = wrong
            if _one_error_at(ex, uri, mutated, format_pointer(tokens)):
                return mutated, format_pointer(tokens)
    for key in members:
        mutated = copy.deepcopy(value)
        del _at(mutated, holder)[key]
        if _one_error_at(ex, uri, mutated, at):
            return mutated, at
    return None


def _drawn(release: ContractRelease, uri: str, fallback: Any) -> Any:
    """One valid instance of the schema at `uri` from the fuzz strategies (seeded: the same every time)."""
    from wirecheck.fuzz.sampling import CannotGenerate, draw_examples
    from wirecheck.fuzz.strategies import EMPTY, compiler_for

    strategy = compiler_for(release).for_uri(uri)
    try:
        return fallback if strategy is EMPTY else draw_examples(strategy, 1, seed=0)[0]
    except CannotGenerate:
        return fallback


def generate(release: ContractRelease) -> tuple[dict[str, str], list[dict[str, Any]], list[str]]:
    """(relative path → file text, expectation cases, problems) for a JSON-RPC release's generated fixtures."""
    ex = ReleaseExamples(release)
    problems: list[str] = []
    envelopes: dict[str, str] = {}  # method kind id → its envelope schema
    replies: dict[str, str] = {}  # request kind id → its result's schema
    for kind in release.kinds:
        # a method kind selects a method by name (a response says only that it has none: `absent`)
        if kind.schema is not None and any(p == ("method",) and v is not PRESENT and ABSENT not in v
                                           for alt in kind.fields for p, v in alt):
            envelopes[kind.id] = kind.schema.uri
            if kind.reply is not None:
                replies[kind.id] = kind.reply.schema.uri
    kinds = {k.id: k for k in release.kinds}
    messages: dict[str, dict[str, Any]] = {}
    for kid, uri in envelopes.items():
        message = ex.instance(uri)
        params = _params_uri(ex, uri)
        if params is not None:
            message["params"] = ex.instance(params)
            if ex.errors(params, message["params"]):  # a union the minimal example misses: a seeded draw
                message["params"] = _drawn(release, params, message["params"])
        errors = ex.errors(uri, message)
        if errors:
            problems.append(f"{kid}: minimal message invalid: {errors[0].message}")
            continue
        messages[kid] = message

    def result(kid: str) -> Any:
        return ex.instance(replies[kid]) if kid in replies else {}

    valid = _Session()
    for kid, message in messages.items():
        sender = _sender(kinds[kid])
        message = copy.deepcopy(message)
        if "id" in message:
            message["id"] = valid.next_id = valid.next_id + 1
        valid.send(sender, message)
        if "id" in message:
            valid.send(_other(sender), {"jsonrpc": "2.0", "id": message["id"], "result": result(kid)})

    invalid = _Session()
    for kid, message in messages.items():
        found = _broken(ex, envelopes[kid], message, "/params") if "params" in message else None
        if found is None:
            problems.append(f"{kid}: no field of its params can be broken alone")
            continue
        broken, pointer = found
        sender = _sender(kinds[kid])
        if "id" in broken:
            broken["id"] = invalid.next_id = invalid.next_id + 1
        line = invalid.send(sender, broken)
        invalid.findings.append({"code": "SCHEMA_VIOLATION", "line": line, "pointer": pointer, "kind": kid})
        if "id" in broken:
            invalid.send(_other(sender), {"jsonrpc": "2.0", "id": broken["id"], "result": result(kid)})
    for response_kind in sorted((k for k in release.kinds if k.answers is not None), key=lambda k: k.id):
        side = response_kind.producer
        for kid in (k for k in messages if k in replies and kinds[k].consumer == side):
            found = _broken(ex, replies[kid], result(kid), "")
            if found is None:
                continue
            broken_result, pointer = found
            request = copy.deepcopy(messages[kid])
            request["id"] = invalid.next_id = invalid.next_id + 1
            invalid.send(_other(side), request)
            line = invalid.send(side, {"jsonrpc": "2.0", "id": request["id"], "result": broken_result})
            invalid.findings.append({"code": "REPLY_VIOLATION", "line": line, "pointer": "/result" + pointer,
                                     "kind": response_kind.id})
            break
        else:
            problems.append(f"{response_kind.id}: no result of any request it answers can be broken alone")

    files = {"valid/session.framed.ndjson": valid.text(), "invalid/session.framed.ndjson": invalid.text()}
    cases: list[dict[str, Any]] = [
        {"capture": f"{GENERATED}/valid/session.framed.ndjson", "verdict": "conforms", "findings": [],
         "description": "every request from its producer with minimal params, each answered once with a minimal "
                        "result of its response type; every notification (generated)"},
        {"capture": f"{GENERATED}/invalid/session.framed.ndjson", "verdict": "fails", "findings": invalid.findings,
         "description": "every method with one field of its params of the wrong type, each request answered "
                        "validly; for each responding side, one result with one field of the wrong type "
                        "(generated)"},
    ]
    return files, cases, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="write generated fixtures for a JSON-RPC release")
    parser.add_argument("spec", help="<package>@<version>")
    parser.add_argument("--fixtures", type=Path, default=Path("fixtures"))
    parser.add_argument("--contracts", type=Path, default=None)
    args = parser.parse_args(argv)
    release = load_registry(args.contracts).load(args.spec)
    problems = write(release, args.fixtures / release.package / release.version, generator=generate)
    for problem in problems:
        print("problem:", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
