"""Requirement sets: `contracts/<package>/<version>/requirements.yaml`, loaded, validated and linked to the release.

Each requirement links to exactly one contract element, and that link decides which findings fail it and which
messages exercise it (see `Requirement.matches` and `Requirement.exercised_in`). The file format is
`tools/wirecheck/schemas/requirements.schema.json`; a problem is a located `ContractError` (exit code 2).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema

from wirecheck.contracts.errors import ContractError, ContractProblem, for_people, not_the_format
from wirecheck.contracts.loader import own_schema
from wirecheck.contracts.model import ContractRelease
from wirecheck.findings import Finding, Severity
from wirecheck.pointer import format_pointer
from wirecheck.rules.catalogue import rule_catalogue
from wirecheck.yaml_lines import YamlFileError, parse_yaml, read_text, strip_lines

LEVELS = ("MUST", "SHOULD", "MAY")
REQUIREMENTS_FILE = "requirements.yaml"

# The built-in checks that judge one message against its kind's schema (or its headers, body, reply payload).
# UNKNOWN_FIELD is not among them: closed-model strictness is its own (SHOULD) requirement, CLOSED-FIELDS; but an
# unknown member the kind's real reader rejects (an error, by readers.yaml) fails the kind too (`matches`).
KIND_CODES = frozenset(
    {"SCHEMA_VIOLATION", "UNEXPECTED_BODY", "HEADER_VIOLATION", "REPLY_VIOLATION", "CROSS_CONTRACT_VIOLATION"}
)


@dataclass(frozen=True)
class Link:
    """The contract element a requirement checks: exactly one of kind, rule, builtin or obligation."""

    kind: str | None = None
    rule: str | None = None
    kinds: tuple[str, ...] = ()  # narrows a rule to the findings on these kinds
    builtin: tuple[str, ...] = ()
    exercised_by: str = "any_message"  # builtin only: any_message | correlated_message
    obligation: str | None = None  # a behaviour obligation of the release (behaviour.yaml), by its id

    @property
    def element(self) -> str:
        if self.kind is not None:
            return f"kind {self.kind}"
        if self.rule is not None:
            return f"rule {self.rule}" + (f" on {', '.join(self.kinds)}" if self.kinds else "")
        if self.obligation is not None:
            return f"obligation {self.obligation}"
        return "built-in " + ", ".join(self.builtin)

    def as_json(self) -> dict[str, Any]:
        if self.kind is not None:
            return {"kind": self.kind}
        if self.rule is not None:
            return {"rule": self.rule, **({"kinds": list(self.kinds)} if self.kinds else {})}
        if self.obligation is not None:
            return {"obligation": self.obligation}
        out: dict[str, Any] = {"builtin": list(self.builtin)}
        if self.exercised_by != "any_message":
            out["exercised_by"] = self.exercised_by
        return out

    @staticmethod
    def from_json(data: dict[str, Any]) -> Link:
        return Link(
            kind=data.get("kind"),
            rule=data.get("rule"),
            kinds=tuple(data.get("kinds", ())),
            builtin=tuple(data.get("builtin", ())),
            exercised_by=data.get("exercised_by", "any_message"),
            obligation=data.get("obligation"),
        )


@dataclass(frozen=True)
class Requirement:
    id: str
    level: str  # MUST | SHOULD | MAY
    subject: str  # a role of the release, or "any"
    text: str
    link: Link
    line: int | None = None  # where it starts in requirements.yaml
    reviewed: bool = True
    optional: bool = False  # `exercise: optional`: not exercised holds no verdict back (the kind need not be sent)

    def matches(self, finding: Finding) -> bool:
        """Does this finding count against this requirement? A breach of a behaviour obligation counts against the
        obligation's requirement alone."""
        link = self.link
        if link.obligation is not None or finding.obligation is not None:
            return finding.obligation is not None and finding.obligation == link.obligation
        if link.kind is not None:
            return finding.kind == link.kind and (
                finding.code in KIND_CODES or (finding.code == "UNKNOWN_FIELD" and finding.severity is Severity.ERROR))
        if link.rule is not None:
            return finding.code == link.rule and (not link.kinds or finding.kind in link.kinds)
        return finding.code in link.builtin


@dataclass(frozen=True)
class RequirementSet:
    contract: str
    path: Path
    requirements: tuple[Requirement, ...]
    description: str | None = None
    sha256: str | None = None  # of the bytes loaded (the identity block's: a named pipe is not read twice)

    def __iter__(self):
        return iter(self.requirements)

    def __len__(self) -> int:
        return len(self.requirements)

    def get(self, requirement_id: str) -> Requirement | None:
        return next((r for r in self.requirements if r.id == requirement_id), None)


def default_requirements_path(release: ContractRelease) -> Path:
    return release.root / REQUIREMENTS_FILE


def load_requirements(path: Path, release: ContractRelease) -> RequirementSet:
    """Load and check a requirement set against the release it certifies; every problem is located."""
    file = str(path)
    try:
        text = read_text(path, f"requirement set for {release.name}")
        raw = parse_yaml(text, file, lines=True)
    except YamlFileError as exc:
        raise ContractError(ContractProblem(file, "", exc.message)) from None
    data = strip_lines(raw)
    validator = jsonschema.Draft202012Validator(own_schema("requirements.schema.json"))
    problems = [
        ContractProblem(file, format_pointer(e.absolute_path), for_people(e))
        for e in sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
    ]
    wrong = not_the_format(data, validator.schema, file) if problems else None  # quoting nothing of it
    problems = [wrong] if wrong is not None else problems
    if problems:
        raise ContractError(problems)
    if data["contract"] != release.name:
        raise ContractError(ContractProblem(file, "/contract", f"expected {release.name}, found {data['contract']}"))

    kinds = {k.id for k in release.kinds}
    rules = {use.id for use in release.rules}
    obligations = {o.id for o in release.obligations}
    builtins = {cid for cid, info in rule_catalogue().items() if info.group == "built-in"}
    roles = {*release.roles, "any"}
    seen_ids: dict[str, int] = {}
    seen_links: dict[Link, str] = {}
    requirements: list[Requirement] = []
    for index, entry in enumerate(raw["requirements"]):
        where = f"/requirements/{index}"
        link = Link.from_json(strip_lines(entry["checks"]))
        requirement = Requirement(
            id=entry["id"], level=entry["level"], subject=entry["subject"], text=entry["text"].strip(),
            link=link, line=entry.get("__line__"), reviewed=entry.get("reviewed", True),
            optional=entry.get("exercise") == "optional",
        )
        if requirement.id in seen_ids:
            problems.append(ContractProblem(file, f"{where}/id", f"duplicate id {requirement.id} (also at "
                                                                 f"/requirements/{seen_ids[requirement.id]})"))
        seen_ids.setdefault(requirement.id, index)
        requirements.append(requirement)
        if link in seen_links:
            problems.append(ContractProblem(file, f"{where}/checks", f"{link.element} is already checked by "
                                                                     f"{seen_links[link]}"))
        seen_links.setdefault(link, requirement.id)
        if requirement.subject not in roles:
            problems.append(ContractProblem(file, f"{where}/subject", f"unknown role {requirement.subject!r}; "
                                                                      f"roles: {', '.join(sorted(roles))}"))
        if link.kind is not None and link.kind not in kinds:
            problems.append(ContractProblem(file, f"{where}/checks/kind", f"{release.name} has no kind {link.kind!r}"))
        if link.obligation is not None and link.obligation not in obligations:
            problems.append(ContractProblem(file, f"{where}/checks/obligation",
                                            f"{release.name}'s behaviour.yaml has no obligation {link.obligation!r}"))
        if link.rule is not None and link.rule not in rules:
            problems.append(ContractProblem(file, f"{where}/checks/rule",
                                            f"{release.name}'s catalog does not turn on rule {link.rule!r}"))
        for i, kind in enumerate(link.kinds):
            if kind not in kinds:
                problems.append(ContractProblem(file, f"{where}/checks/kinds/{i}",
                                                f"{release.name} has no kind {kind!r}"))
        for i, code in enumerate(link.builtin):
            if code not in builtins:
                problems.append(ContractProblem(file, f"{where}/checks/builtin/{i}",
                                                f"{code!r} is not a built-in check"))
    if problems:
        raise ContractError(problems)
    return RequirementSet(data["contract"], path, tuple(requirements), data.get("description"),
                          hashlib.sha256(text.encode()).hexdigest())
