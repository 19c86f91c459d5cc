"""Write the generated fixtures of a release: a valid and an invalid capture per kind, with known findings.

`python -m wirecheck.importer.fixtures qoder-agent-sdk@1.0.23` (re)writes `fixtures/<package>/<version>/generated/`
and the generated cases of that folder's `expectations.yaml`, keeping every hand-written case (any capture outside
`generated/`) as it is. What the generated cases show:

- `generated/valid/cli-stream.ndjson` (plain NDJSON, the CLI's stdout): `system/init` first, then a minimal
  instance of every other kind the CLI writes, turn output before the results; conforms with no findings.
- `generated/valid/both-directions.framed.ndjson`: every control request, from its sender, each answered once
  (a typed reply payload where the request has a reply schema), error responses both ways, cancels, keep-alives,
  SDK prompts; conforms with no findings.
- `generated/valid/runtime-manifest.json`: a minimal manifest artifact.
- `generated/invalid/<kind>.*`: `system/init`, then that kind's example with one field set to a value of the wrong
  type: exactly one SCHEMA_VIOLATION at that field. The field is chosen so that the reference validator reports
  exactly one error, located at that field (so the location is not an artefact of a union). A kind with no field
  that can be broken that way (`keep_alive`) gets the stream-level error it can have: it comes first.
"""

from __future__ import annotations

import argparse
import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from wirecheck.contracts import ContractRelease, load_registry
from wirecheck.contracts.reference import reference_validator
from wirecheck.contracts.views import tolerant_view
from wirecheck.importer.examples import Resolver, example
from wirecheck.pointer import format_pointer, parse_pointer

GENERATED = "generated"
_DISCRIMINATORS = {"type", "subtype", "isReplay"}
_WRONG_VALUES: tuple[Any, ...] = (12345, "not-valid", [], True)


class ReleaseExamples:
    def __init__(self, release: ContractRelease):
        self.release = release
        self.resolver = Resolver(release.resources)
        self._tolerant = {uri: tolerant_view(s) for uri, s in release.resources.items()}

    def instance(self, uri: str) -> Any:
        base, _, fragment = uri.partition("#")
        _, schema = self.resolver.lookup(base, "#" + fragment if fragment else "")
        return example(schema, self.resolver, base)

    def errors(self, uri: str, value: Any, strict: bool = True) -> list[Any]:
        resources = self.release.resources if strict else self._tolerant
        validator = reference_validator({"$ref": uri}, resources)
        return list(validator.iter_errors(value))

    def schema_at(self, uri: str) -> dict[str, Any]:
        base, _, fragment = uri.partition("#")
        schema: Any = self.resolver.lookup(base, "#" + fragment if fragment else "")[1]
        while isinstance(schema, dict) and "$ref" in schema:
            base, schema = self.resolver.lookup(base, schema["$ref"])
        return schema if isinstance(schema, dict) else {}

    def break_one_field(self, uri: str, value: dict[str, Any], avoid: set[str]) -> tuple[dict[str, Any], str] | None:
        """(mutated copy, pointer) with exactly one tolerant-view error, located at the pointer; None if none."""
        for pointer in self._candidates(uri, value, avoid):
            for wrong in _WRONG_VALUES:
                mutated = copy.deepcopy(value)
                tokens = parse_pointer(pointer)
                parent: Any = mutated
                for token in tokens[:-1]:
                    parent = parent.setdefault(token, {}) if isinstance(parent, dict) else None
                if not isinstance(parent, dict):
                    break
                parent[tokens[-1]] = wrong
                errors = self.errors(uri, mutated, strict=False)
                # one plain error (not a failed union, whose branches validators report differently), at the pointer
                if len(errors) == 1 and not errors[0].context and format_pointer(errors[0].absolute_path) == pointer:
                    return mutated, pointer
        return None

    def _candidates(self, uri: str, value: dict[str, Any], avoid: set[str]) -> Iterator[str]:
        schema = self.schema_at(uri)
        props = schema.get("properties", {})
        required = [k for k in schema.get("required", []) if k not in _DISCRIMINATORS]
        nested_required: list[str] = []
        nested_optional: list[str] = []
        for outer in ("request", "response"):
            inner = value.get(outer)
            if isinstance(inner, dict):
                nested_required += [f"/{outer}/{k}" for k in inner if k not in _DISCRIMINATORS]
                inner_schema = props.get(outer, {})
                while isinstance(inner_schema, dict) and "$ref" in inner_schema:
                    base = uri.partition("#")[0]
                    inner_schema = self.resolver.lookup(base, inner_schema["$ref"])[1]
                if isinstance(inner_schema, dict):
                    nested_optional += [f"/{outer}/{k}" for k in inner_schema.get("properties", {})
                                        if k not in inner and k not in _DISCRIMINATORS]
        preferred = [p for p in ("/session_id", "/uuid") if p[1:] in required]
        order = (nested_required + [f"/{k}" for k in required if f"/{k}" not in preferred] + preferred
                 + nested_optional + [f"/{k}" for k in props if k not in value and k not in _DISCRIMINATORS])
        seen: set[str] = set()
        for pointer in order:
            if pointer not in seen and pointer not in avoid:
                seen.add(pointer)
                yield pointer


def artifact_path(glob: str | None) -> str:
    """A plausible artifact path that the kind's path glob matches (`*.jsonl` → `transcripts/session.jsonl`)."""
    if not glob:
        return "artifact.json"
    return ("transcripts/session" + glob[1:]) if glob.startswith("*.") else glob.replace("*", "dist/", 1)


def _line(message: Any) -> str:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


def _framed(lines: list[tuple[str, Any]]) -> str:
    out = [_line({"wirecheck_capture": 1, "framing": "directed"})]
    out += [_line({"from": sender, "message": message}) for sender, message in lines]
    return "\n".join(out) + "\n"


def generate(release: ContractRelease) -> tuple[dict[str, str], list[dict[str, Any]], list[str]]:
    """(relative path → file text, expectation cases, problems) for the release's generated fixtures."""
    ex = ReleaseExamples(release)
    files: dict[str, str] = {}
    cases: list[dict[str, Any]] = []
    problems: list[str] = []
    examples: dict[str, Any] = {}
    for kind in release.kinds:
        if kind.schema is None:
            continue
        value = ex.instance(kind.schema.uri)
        if kind.channel != "file" and not isinstance(value, dict):
            problems.append(f"{kind.id}: example is not an object")
            continue
        errors = ex.errors(kind.schema.uri, value)
        if errors:
            problems.append(f"{kind.id}: minimal example invalid: {errors[0].message}")
            continue
        examples[kind.id] = value
    init = examples.get("system.init")
    stream_kinds = [k for k in release.kinds if k.channel == "stdio-ndjson" and k.id in examples]
    shared = _shared_selectors(release)

    # valid: the CLI's stdout
    turn = ("assistant", "stream_event", "user")
    cli_plain = [k for k in stream_kinds if k.producer == "cli" and not k.id.startswith(("control_request.",
                                                                                        "control_response."))]
    body = [k for k in cli_plain if k.id != "system.init" and not k.id.startswith("result.") and k.id not in turn]
    ordered = [examples["system.init"]] + [examples[k.id] for k in body]
    ordered += [examples[k] for k in turn if k in examples] + [examples[k.id] for k in cli_plain
                                                              if k.id.startswith("result.")]
    files["valid/cli-stream.ndjson"] = "".join(_line(m) + "\n" for m in ordered)
    cases.append({"capture": f"{GENERATED}/valid/cli-stream.ndjson", "verdict": "conforms", "findings": [],
                  "description": "system/init, then a minimal instance of every other kind the CLI writes "
                                 "(generated)"})

    # valid: both directions, every request answered once
    framed: list[tuple[str, Any]] = [("cli", init)]
    counter = 0
    for kind in stream_kinds:
        if not kind.id.startswith("control_request."):
            continue
        counter += 1
        request = copy.deepcopy(examples[kind.id])
        request["request_id"] = f"req-{counter}"
        answer: dict[str, Any] = {"subtype": "success", "request_id": request["request_id"]}
        if kind.reply is not None:
            answer["response"] = ex.instance(kind.reply.schema.uri)
        framed += [(kind.producer, request), (kind.consumer, {"type": "control_response", "response": answer})]
    first_sdk = next((k for k in stream_kinds if k.id.startswith("control_request.") and k.producer == "sdk"), None)
    first_cli = next((k for k in stream_kinds if k.id.startswith("control_request.") and k.producer == "cli"), None)
    for asked, answerer in ((first_sdk, "cli"), (first_cli, "sdk")):
        if asked is None or "control_response.error" not in examples:
            continue
        counter += 1
        request = copy.deepcopy(examples[asked.id])
        request["request_id"] = f"req-{counter}"
        error = copy.deepcopy(examples["control_response.error"])
        error["response"]["request_id"] = request["request_id"]
        framed += [(asked.producer, request), (answerer, error)]
    for kind in stream_kinds:
        if kind.producer == "sdk" and not kind.id.startswith(("control_request.", "sdk.control_response.")):
            framed.append(("sdk", examples[kind.id]))
    files["valid/both-directions.framed.ndjson"] = _framed(framed)
    cases.append({"capture": f"{GENERATED}/valid/both-directions.framed.ndjson", "verdict": "conforms",
                  "findings": [], "description": "every control request from its sender, each answered once "
                  "(typed reply payloads checked), error responses both ways, SDK messages (generated)"})

    # valid: file artifacts
    for kind in release.kinds:
        if kind.channel == "file" and kind.id in examples:
            path = f"valid/{kind.id}.json"
            files[path] = json.dumps({"wirecheck_artifact": 1, "channel": "file", "path": artifact_path(kind.path_glob),
                                      "content": examples[kind.id]}, indent=2, ensure_ascii=False) + "\n"
            cases.append({"capture": f"{GENERATED}/{path}", "verdict": "conforms", "findings": [],
                          "description": f"a minimal {kind.id} artifact (generated)"})

    # invalid: one per kind
    for kind in release.kinds:
        if kind.id not in examples or kind.schema is None:
            continue
        value = examples[kind.id]
        if kind.channel == "file":
            found = ex.break_one_field(kind.schema.uri, value, set())
            if found is None:
                problems.append(f"{kind.id}: no field to break")
                continue
            mutated, pointer = found
            path = f"invalid/{kind.id}.json"
            files[path] = json.dumps({"wirecheck_artifact": 1, "channel": "file", "path": artifact_path(kind.path_glob),
                                      "content": mutated}, indent=2, ensure_ascii=False) + "\n"
            cases.append({"capture": f"{GENERATED}/{path}", "verdict": "fails",
                          "description": f"{kind.id} with {pointer} of the wrong type (generated)",
                          "findings": [{"code": "SCHEMA_VIOLATION", "pointer": pointer, "kind": kind.id}]})
            continue
        needs_sender = kind.id in shared
        avoid = set()
        if needs_sender and (kind.correlate is not None or kind.id.startswith("control_request.")):
            avoid = {"/request_id", "/response/request_id", "/response", "/request"}
        found = ex.break_one_field(kind.schema.uri, value, avoid)
        if found is None:
            if kind.producer == "cli" and kind.id != "system.init":
                path = f"invalid/{kind.id}.ndjson"
                files[path] = _line(value) + "\n" + _line(init) + "\n"
                # the SDKs take the handshake wherever it comes (readers.yaml `rules`): a warning
                cases.append({"capture": f"{GENERATED}/{path}", "verdict": "fails",
                              "description": f"{kind.id} before system/init (nothing in it can be broken alone; a "
                                             "warning, as the SDKs read it: fails under --fail-on warning; generated)",
                              "options": {"fail_on": "warning"},
                              "findings": [{"code": "FIRST_MESSAGE_IS", "severity": "warning", "line": 1,
                                            "kind": kind.id}]})
            else:
                problems.append(f"{kind.id}: no field to break")
            continue
        mutated, pointer = found
        if needs_sender:
            lines: list[tuple[str, Any]] = [("cli", init)]
            if kind.correlate is not None:
                cli_request = next(k for k in stream_kinds if k.id.startswith("control_request.")
                                   and k.producer != kind.producer)
                request = copy.deepcopy(examples[cli_request.id])
                request["request_id"] = mutated["response"]["request_id"]
                lines.append((cli_request.producer, request))
            lines.append((kind.producer, mutated))
            path = f"invalid/{kind.id}.framed.ndjson"
            files[path] = _framed(lines)
            line = len(lines) + 1
        else:
            body_lines = [mutated] if kind.id == "system.init" else [init, mutated]
            line = len(body_lines)
            if kind.id in turn and "result.success" in examples:
                body_lines.append(examples["result.success"])  # the turn ends, as turns must
            path = f"invalid/{kind.id}.ndjson"
            files[path] = "".join(_line(m) + "\n" for m in body_lines)
        cases.append({"capture": f"{GENERATED}/{path}", "verdict": "fails",
                      "description": f"{kind.id} with {pointer} of the wrong type (generated)",
                      "findings": [{"code": "SCHEMA_VIOLATION", "line": line, "pointer": pointer, "kind": kind.id}]})
    return files, cases, problems


def _shared_selectors(release: ContractRelease) -> set[str]:
    """Kinds whose selector another kind of a different producer shares: only a sender tells them apart."""
    seen: dict[Any, list[str]] = {}
    for kind in release.kinds:
        if kind.channel == "stdio-ndjson":
            seen.setdefault(frozenset(frozenset(a) for a in kind.fields), []).append(kind.id)
    return {kid for ids in seen.values() if len(ids) > 1 for kid in ids[1:]}


def write(release: ContractRelease, folder: Path, generator: Any = None) -> list[str]:
    """Replace `folder/generated/` and its cases in expectations.yaml by what `generator` (this module's `generate`,
    or another protocol's: rpc_fixtures.generate) makes; hand-written cases stay."""
    files, cases, problems = (generator or generate)(release)
    generated = folder / GENERATED
    if generated.exists():
        for old in sorted(generated.rglob("*"), reverse=True):
            old.unlink() if old.is_file() else old.rmdir()
    for rel, text in sorted(files.items()):
        path = generated / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    expectations = folder / "expectations.yaml"
    kept: list[Any] = []
    header = ""
    if expectations.exists():
        text = expectations.read_text(encoding="utf-8")
        header = "".join(line for line in text.splitlines(keepends=True) if line.startswith("#"))
        data = yaml.safe_load(text) or {}
        kept = [c for c in data.get("cases", []) if not str(c.get("capture", "")).startswith(GENERATED + "/")]
    body = yaml.safe_dump({"cases": kept + cases}, sort_keys=False, width=120, allow_unicode=True)
    expectations.write_text(header + body, encoding="utf-8")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="write generated fixtures for a release")
    parser.add_argument("spec", help="<package>@<version>")
    parser.add_argument("--fixtures", type=Path, default=Path("fixtures"))
    parser.add_argument("--contracts", type=Path, default=None)
    args = parser.parse_args(argv)
    release = load_registry(args.contracts).load(args.spec)
    problems = write(release, args.fixtures / release.package / release.version)
    for problem in problems:
        print("problem:", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
