"""Draft (and keep current) the requirement set of a release: one requirement per message kind, per protocol rule
the catalog turns on, and per group of built-in checks.

    python -m wirecheck.certify.generate xopc@0.0.253      # write contracts/xopc/0.0.253/requirements.yaml
    python -m wirecheck.certify.generate --all             # every release in contracts/registry.yaml
    python -m wirecheck.certify.generate --all --check     # exit 1 when a file lacks a kind/rule or is missing

Re-running keeps every existing requirement whose link still exists (its id, level, text and review state: a
reviewer may rename or reword freely; drafts are refreshed from the contract, keeping their ids), adds drafts
(`reviewed: false`) for new kinds and rules, and drops
requirements whose kind or rule left the contract (printed, so the removal is reviewed in the diff).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

import yaml

from wirecheck.certify.requirements import REQUIREMENTS_FILE, Link
from wirecheck.contracts import ContractError, load_registry
from wirecheck.contracts.model import ABSENT, PRESENT, ContractRelease, MessageKind, RuleUse, condition_text
from wirecheck.rules.catalogue import rule_catalogue
from wirecheck.yaml_lines import YamlFileError, read_text, read_yaml_file

# Short id prefixes where the package name is long; others use the package name upper-cased.
PREFIXES = {
    "qoder-agent-sdk": "QODER",
    "navarch-runtime": "NAVARCH",
    "claude-code-print": "CLAUDE-PRINT",
    "qoder-print": "QODER-PRINT",
}
LEVEL_OF_SEVERITY = {"error": "MUST", "warning": "SHOULD", "info": "MAY"}

KNOWN_KINDS_TEXT = ("Every message is one of the message kinds this release defines, or one its reader tolerates "
                    "(readers.yaml: unknown_kinds): a message of no kind that the reader rejects or misreads fails "
                    "this MUST; one it ignores passes it, with a warning, since a consumer typed against the "
                    "release has no type for it.")

BUILTIN_GROUPS: list[dict[str, Any]] = [
    {"name": "WELL-FORMED", "level": "MUST",
     "builtin": ["PARSE_ERROR", "INVALID_UTF8", "DUPLICATE_KEY", "NOT_AN_OBJECT", "LINE_TOO_LONG",
                 "EMPTY_CAPTURE", "CAPTURE_FORMAT"],
     "text": "Every message is exactly one well-formed JSON object in valid UTF-8, within the line limit, with no "
             "duplicate member names (RFC 8259)."},
    {"name": "NO-BOM", "level": "SHOULD", "builtin": ["BYTE_ORDER_MARK"],
     "text": "The stream does not start with a UTF-8 byte order mark."},
    {"name": "KNOWN-KINDS", "level": "MUST", "builtin": ["UNKNOWN_MESSAGE_KIND"],
     "text": KNOWN_KINDS_TEXT},
    {"name": "CLOSED-FIELDS", "level": "SHOULD", "builtin": ["UNKNOWN_FIELD"],
     "text": "No message carries a field that its kind's closed (strict) schema lacks, so closed-model consumers "
             "accept every message."},
]
CORRELATED_GROUPS: list[dict[str, Any]] = [
    {"name": "RESPONSES-CORRELATED", "level": "MUST",
     "builtin": ["DUPLICATE_RESPONSE", "RESPONSE_WITHOUT_REQUEST", "DUPLICATE_REQUEST_ID"],
     "text": "Every response answers exactly one request seen earlier, matched by its request id, no request "
             "gets two responses, and no request reuses the id of one still waiting for its response."},
    {"name": "REQUESTS-ANSWERED", "level": "SHOULD", "builtin": ["REQUEST_WITHOUT_RESPONSE"],
     "text": "Every request that expects a response gets one before the stream ends."},
]

MOSTLY_RECOGNISED: dict[str, Any] = {
    "name": "RECOGNISED", "level": "MUST", "builtin": ["MOSTLY_UNRECOGNISED"],
    "text": "Most messages of the capture are of this release's kinds: a capture in another format (the "
            "stream-json of a CLI checked as its single-JSON result) certifies nothing about this one, whatever its "
            "few recognised lines say."}

JSONRPC_GROUPS: list[dict[str, Any]] = [
    {"name": "KNOWN-METHODS", "level": "MUST", "builtin": ["UNKNOWN_METHOD"],
     "text": "Every JSON-RPC request and notification names a method this release defines, or an extension method "
             "where the protocol reserves names for them (ACP: a name starting with _); a receiver answers any "
             "other request with error -32601 Method not found and drops any other notification."},
]


def prefix_of(release: ContractRelease) -> str:
    base = PREFIXES.get(release.package) or re.sub(r"[^A-Z0-9]+", "-", release.package.upper()).strip("-")
    return f"{base}-{release.version}"


def _token(text: str) -> str:
    return re.sub(r"[^A-Z0-9]+", "-", text.upper()).strip("-")


def _selector_text(kind: MessageKind) -> str:
    if kind.http is not None:
        http = kind.http
        return f"{http.method} {http.path}" + (f" → {http.status}" if http.status else "")
    # one alternative stands for them all where they are spellings of one discriminator (Qoder's type/subtype);
    # where presence tells them apart (a JSON-RPC response: a result or an error) every one is named
    presence = any(values is PRESENT or ABSENT in values for alt in kind.fields for _, values in alt)
    alternatives = kind.fields if presence else kind.fields[:1]
    common = [c for c in alternatives[0] if all(c in alt for alt in alternatives)] if alternatives else []
    conditions = [condition_text(tokens, values) for tokens, values in common]
    differing = [", ".join(condition_text(t, v) for t, v in alt if (t, v) not in common) for alt in alternatives]
    if len(alternatives) > 1:
        conditions.append(" or ".join(differing))
    if kind.program:
        conditions.insert(0, f"argv of {kind.program}")
    if kind.path_glob:
        conditions.insert(0, f"file {kind.path_glob}")
    return ", ".join(conditions) or kind.channel


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    return text if text.endswith(".") else text + "."


def kind_requirement(release: ContractRelease, kind: MessageKind) -> dict[str, Any]:
    name = _token(kind.id)
    where = f"`{kind.id}` ({_selector_text(kind)})"
    if kind.schema is not None:
        suffix = "SCHEMA"
        text = f"Every {where} the {kind.producer} sends satisfies {kind.schema.ref}"
        if kind.headers is not None:
            text += f", with headers satisfying {kind.headers.ref}"
        text += "."
    elif kind.body == "empty":
        suffix = "BODY"
        text = f"Every {where} the {kind.producer} sends has no body"
        text += f" and headers satisfying {kind.headers.ref}." if kind.headers is not None else "."
    else:
        suffix = "FORM"
        text = f"Every {where} the {kind.producer} sends is recognised as {kind.title}."
    if kind.description:
        text += " " + _sentence(kind.description)
    return {"id": f"{prefix_of(release)}-{name}-{suffix}", "level": "MUST", "subject": kind.producer,
            "text": text, "checks": {"kind": kind.id}}


def rule_requirement(release: ContractRelease, use: RuleUse, duplicated: bool) -> dict[str, Any]:
    info = rule_catalogue()[use.id]
    name = _token(use.id)
    package_token = _token(release.package.split("-")[0])
    if name.startswith(package_token + "-"):
        name = name[len(package_token) + 1:]
    if use.id == "FIRST_MESSAGE_IS" and "kind" in use.params:
        name = f"{_token(str(use.params['kind']))}-FIRST"
    elif duplicated and use.kinds:
        name += "-" + "-".join(_token(k) for k in use.kinds)
    producers = {release.kind(k).producer for k in use.kinds if k in {x.id for x in release.kinds}}
    if use.id == "FIRST_MESSAGE_IS" and "kind" in use.params:
        producers = {release.kind(str(use.params["kind"])).producer}
    purpose = info.purpose
    for opening in ("Checks that, ", "Checks that "):
        if purpose.startswith(opening):
            purpose = purpose[len(opening):]
            purpose = purpose[0].upper() + purpose[1:]
            break
    params = ", ".join(f"{k}={v}" for k, v in use.params.items())
    text = _sentence(purpose) + (f" Parameters: {params}." if params else "")
    if use.kinds:
        text += f" Applies to {', '.join(use.kinds)}."
    link: dict[str, Any] = {"rule": use.id}
    if duplicated and use.kinds:
        link["kinds"] = list(use.kinds)
    return {"id": f"{prefix_of(release)}-{name}", "level": LEVEL_OF_SEVERITY[info.level.value],
            "subject": producers.pop() if len(producers) == 1 else "any", "text": text, "checks": link}


def draft(release: ContractRelease) -> list[dict[str, Any]]:
    drafts = [kind_requirement(release, kind) for kind in release.kinds]
    counts: dict[str, int] = {}
    for use in release.rules:
        counts[use.id] = counts.get(use.id, 0) + 1
    drafts += [rule_requirement(release, use, counts[use.id] > 1) for use in release.rules]
    from wirecheck.check.sequences import jsonrpc_methods, request_families

    drafts += [obligation_requirement(release, obligation) for obligation in release.obligations]
    answered = any(o.form == "answered" for o in release.obligations)
    groups = BUILTIN_GROUPS + (CORRELATED_GROUPS if any(k.correlate for k in release.kinds) else [])
    # a release that says what its readers do when a request goes unanswered (an `answered` obligation) has that
    # obligation's requirement instead of the default group
    groups = [g for g in groups if not (answered and g["name"] == "REQUESTS-ANSWERED")]
    groups += [MOSTLY_RECOGNISED]
    jsonrpc = jsonrpc_methods(release) is not None
    groups += JSONRPC_GROUPS if jsonrpc else []
    # a request of a family naming a member the release lacks (Qoder's control_request subtypes) was a message of
    # no kind before it was told apart: it stays with the kinds
    families = not jsonrpc and bool(request_families(release))
    for group in groups:
        link: dict[str, Any] = {"builtin": group["builtin"]}
        if families and group["name"] == "KNOWN-KINDS":
            link["builtin"] = [*group["builtin"], "UNKNOWN_METHOD"]
        if group in CORRELATED_GROUPS:  # JSON-RPC's unknown methods are judged on every message, as known kinds
            link["exercised_by"] = "correlated_message"
        # built-in groups carry texts written here once (reviewed), not drafts derived from the contract
        drafts.append({"id": f"{prefix_of(release)}-{group['name']}", "level": group["level"], "subject": "any",
                       "text": group["text"], "checks": link, "authored": True})
    return drafts


def obligation_requirement(release: ContractRelease, obligation: Any) -> dict[str, Any]:
    """An obligation's requirement: its id under the release's prefix, and its level, subject and words as
    behaviour.yaml states them (with the reader's line): always derived from the file, never a draft to review."""
    reader = obligation.reader
    text = (f"{_sentence(obligation.says)} Reader: {reader.consumer} {reader.reaction} a breach "
            f"({reader.cited}).")
    return {"id": f"{prefix_of(release)}-{obligation.id}", "level": obligation.level, "subject": obligation.subject,
            "text": text, "checks": {"obligation": obligation.id}, "derived": True,
            **({"exercise": "optional"} if obligation.conditional else {})}


def _link_key(checks: dict[str, Any]) -> Link:
    return Link.from_json(checks)


def merge(release: ContractRelease, existing: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """The drafts, with every existing requirement kept where its link still exists; returns (merged, dropped)."""
    by_link = {_link_key(r["checks"]): r for r in existing}
    merged = []
    used = set()
    for entry in draft(release):
        key = _link_key(entry["checks"])
        authored = entry.pop("authored", False)
        if entry.pop("derived", False):  # behaviour.yaml says it all: an obligation's requirement follows the file
            used.add(key)
            merged.append({**entry, "id": by_link[key]["id"]} if key in by_link else entry)
            continue
        if key in by_link:
            kept = dict(by_link[key])
            used.add(key)
            if kept.get("reviewed") is False:
                # still a draft: refresh its text from the contract, keep its (stable) id and what a reviewer
                # decided of its exercise (a kind the subject need not send)
                kept = {**entry, "id": kept["id"], **({"exercise": kept["exercise"]} if "exercise" in kept else {})}
                if not authored:
                    kept["reviewed"] = False
            merged.append(kept)
        else:
            merged.append(entry if authored else {**entry, "reviewed": False})
    dropped = [r["id"] for k, r in by_link.items() if k not in used]
    return merged, dropped


def _quote(text: str) -> str:
    dumped = yaml.safe_dump(text, default_flow_style=True, width=10_000, allow_unicode=True)
    return dumped.strip().removesuffix("...").strip()


def render(release: ContractRelease, requirements: list[dict[str, Any]]) -> str:
    lines = [
        f"# Certification requirements for {release.name}: one per message kind, per protocol rule the catalog",
        "# turns on, and per group of built-in checks. Drafted by `python -m wirecheck.certify.generate`;",
        "# `reviewed: false` marks a draft text. Format: tools/wirecheck/schemas/requirements.schema.json.",
        "# Ids are stable: never reuse one for another meaning.",
        "requirements_format: 1",
        f"contract: {release.name}",
        "requirements:",
    ]
    for entry in requirements:
        lines.append(f"  - id: {entry['id']}")
        lines.append(f"    level: {entry['level']}")
        lines.append(f"    subject: {entry['subject']}")
        lines.append(f"    checks: {_quote(entry['checks'])}")
        if entry.get("exercise") == "optional":
            lines.append("    exercise: optional")
        if entry.get("reviewed") is False:
            lines.append("    reviewed: false")
        lines.append(f"    text: {_quote(entry['text'])}")
    return "\n".join(lines) + "\n"


def generate(release: ContractRelease) -> tuple[str, list[str]]:
    path = release.root / REQUIREMENTS_FILE
    existing: list[dict[str, Any]] = []
    if path.is_file():
        existing = (read_yaml_file(path, what=f"requirement set for {release.name}") or {}).get("requirements") or []
    merged, dropped = merge(release, existing)
    return render(release, merged), dropped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m wirecheck.certify.generate", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("specs", nargs="*", help="package@version (default with --all: every release)")
    parser.add_argument("--all", action="store_true", help="every release in the registry")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file would change")
    parser.add_argument("--contracts", type=Path, default=None)
    args = parser.parse_args(argv)
    registry = load_registry(args.contracts.resolve() if args.contracts else None)
    specs = list(args.specs)
    if args.all:
        specs += [f"{p.name}@{v}" for p in registry.packages.values() for v in p.releases]
    if not specs:
        parser.error("name a release or pass --all")
    stale = 0
    for spec in specs:
        try:
            release = registry.load(spec)
        except ContractError as exc:
            print(f"{spec}: skipped, the contract does not load: {exc.problems[0]}", file=sys.stderr)
            continue
        try:
            text, dropped = generate(release)
            path = release.root / REQUIREMENTS_FILE
            current = read_text(path, f"requirement set for {release.name}") if path.is_file() else None
        except YamlFileError as exc:
            print(f"{spec}: skipped, {exc}", file=sys.stderr)
            continue
        for requirement_id in dropped:
            print(f"{spec}: dropped {requirement_id} (its kind or rule left the contract)", file=sys.stderr)
        if current == text:
            continue
        stale += 1
        if args.check:
            print(f"{path}: out of date (run python -m wirecheck.certify.generate {spec})", file=sys.stderr)
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}", file=sys.stderr)
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
