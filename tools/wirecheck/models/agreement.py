"""Do the generated models and the contract's validator agree? Compared on the fuzz corpus of a release.

Every valid message of every kind must validate with the kind's model (strict, from JSON), and every mutant must
fail it (a rule mutant, schema-valid by construction, breaks a protocol rule no model expresses: it is not
compared). Where they differ, the difference is explained in `differences.yaml` by the JSON Schema keyword the
mutant breaks (the model accepts it) or by the pydantic error type (the model rejects a valid message), or it
is a bug in the generation; `unexplained()` returns the latter.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import orjson
import yaml
from pydantic import ValidationError

from wirecheck.contracts.model import ContractRelease
from wirecheck.fuzz.corpus import Entry, fuzzable_kinds, mutant_entries, valid_entries
from wirecheck.fuzz.mutants import RULE, MutantFactory
from wirecheck.fuzz.sampling import CannotGenerate, draw_examples
from wirecheck.fuzz.strategies import compiler_for
from wirecheck.models.generate import release_module

DIFFERENCES = Path(__file__).resolve().parent / "differences.yaml"


@cache
def explanations() -> dict[str, dict[str, str]]:
    data = yaml.safe_load(DIFFERENCES.read_text(encoding="utf-8"))
    return {"accepts": data["model_accepts_invalid"], "rejects": data["model_rejects_valid"]}


@dataclass(frozen=True)
class Difference:
    kind: str
    direction: str  # "accepts" (model accepts a mutant) | "rejects" (model rejects a valid message)
    reason: str  # the keyword the mutant breaks, or the pydantic error type
    where: str  # the mutant's label, or the pydantic error location
    message: Any

    @property
    def explanation(self) -> str | None:
        return explanations()[self.direction].get(self.reason)


def _model_errors(model: Any, message: Any) -> list[dict[str, Any]]:
    try:
        model.model_validate_json(orjson.dumps(message), strict=True)
    except ValidationError as exc:
        return [dict(e) for e in exc.errors(include_url=False, include_input=False)]
    return []


def compare_release(release: ContractRelease, *, count: int = 20, seed: int = 0) -> tuple[int, list[Difference]]:
    """(messages compared, differences) over `count` valid messages and `count` mutants per kind."""
    package = importlib.import_module(release_module(release.package, release.version))
    compared = 0
    found: list[Difference] = []
    for kind in fuzzable_kinds(release):
        model = package.model_for(kind.id)
        try:
            entries = valid_entries(release, kind, count, seed) + mutant_entries(release, kind, count, seed)
        except CannotGenerate:  # no message of the kind passes the whole engine (a consumer refuses them all)
            entries = _schema_entries(release, kind, count, seed)
        for entry in entries:
            if entry.mutant is not None and entry.mutant.via == RULE:  # the schema (so the model) allows it
                continue
            compared += 1
            errors = _model_errors(model, entry.message)
            if entry.mutant is None and errors:
                for error in _root_errors(errors):
                    where = "/" + "/".join(str(p) for p in error["loc"])
                    found.append(Difference(kind.id, "rejects", error["type"], where, entry.message))
            elif entry.mutant is not None and not errors:
                reason = _accepted_reason(entry.mutant.keyword, entry.mutant.via, entry.mutant.beside)
                found.append(Difference(kind.id, "accepts", reason, entry.mutant.pointer or "/", entry.message))
    return compared, found


def _schema_entries(release: ContractRelease, kind: Any, count: int, seed: int) -> list[Entry]:
    """Messages valid to the kind's schema alone, and their schema mutants: what its model expresses."""
    compiler = compiler_for(release)
    values = draw_examples(compiler.for_uri(kind.schema.uri), count, seed)
    factory = MutantFactory(compiler.schemas, kind.schema.uri, kind=kind.id)
    mutants = [mutant for value in values for mutant in factory.mutants(value)][:count]
    return [Entry(kind.id, v) for v in values] + [Entry(kind.id, m.instance, m) for m in mutants]


def _accepted_reason(keyword: str, via: tuple[str, ...], beside: tuple[str, ...]) -> str:
    """A keyword reached through if/then/else is not in the model at all, whatever the keyword is; a pattern
    beside a format that becomes a pydantic type (AwareDatetime, AnyUrl) is dropped by the generator."""
    if "then" in via or "else" in via:
        return "if/then/else"
    if "dependentSchemas" in via or "not" in via:
        return via[-1]
    if keyword == "pattern" and "format" in beside:
        return "pattern beside format"
    if "allOf" in via and ({"oneOf", "anyOf"} & set(via)):
        return "unions composed by allOf"
    return keyword


def _root_errors(errors: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One error per location that explains a rejection (pydantic lists each failed union member)."""
    seen: dict[str, dict[str, Any]] = {}
    for error in errors:
        seen.setdefault("/".join(map(str, error["loc"])), error)
    return list(seen.values())


def unexplained(differences: list[Difference]) -> list[Difference]:
    return [d for d in differences if d.explanation is None]
