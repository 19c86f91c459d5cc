"""A peer's compatibility corpus, replayed: Confluent Schema Registry's JSON Schema diff examples
(`fixtures/confluent-json-schema/`, provenance in its README) judged by `diff_schemas`, and the answers compared.

`nox -s diff-corpus` (`python -m wirecheck.diff.corpus`) writes the agreement table to reports/diff-corpus/
(agreement.md, agreement.json) and exits 1 when a disagreement is not explained in the corpus's `agreement.yaml`, an
explanation no longer applies (the two now agree), or the files are not the ones the manifest names.

What is compared. A case's `compatible` is Confluent's BACKWARD answer (SchemaDiffTest.java: every difference in
COMPATIBLE_CHANGES_STRICT): can a reader of the update schema read what the original schema admitted, the schemas
taken as written. wirecheck's question is the same one: backward, consumers reading the contract as written
(strict), latent evidence counted as breaking (`--compat backward --consumers strict --strict-sets`). Confluent's
`compatible_lenient` (COMPATIBLE_CHANGES_LENIENT: a property added to or removed from an open content model, an
additionalProperties narrowed, are compatible) is compared with the default gate, where latent breaks are warnings
(model.LATENT). A case left unknown counts as undecided: neither agreement nor disagreement.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wirecheck.diff.model import BACKWARD, BREAKING, SAFE, STRICT

CORPUS = Path("fixtures/confluent-json-schema")
MANIFEST = "agreement.yaml"
COMPATIBLE, INCOMPATIBLE, UNDECIDED = "compatible", "incompatible", "undecided"

# org.json (JSONArray, the reader SchemaDiffTest.java uses) accepts a comma before a closing bracket; the 2020-12
# files rely on it. Only that leniency is taken: anything else that is not JSON is still an error.
_TRAILING_COMMA = re.compile(r'("(?:[^"\\]|\\.)*")|,(\s*[}\]])')


class CorpusError(Exception):
    """The corpus cannot be replayed as its manifest says (a missing or changed file): a located message."""


def read_cases(text: str, file: str) -> list[dict[str, Any]]:
    """A Confluent examples file as org.json reads it: a JSON array of cases, trailing commas allowed."""
    try:
        cases = json.loads(_TRAILING_COMMA.sub(lambda m: m.group(1) or m.group(2), text))
    except json.JSONDecodeError as exc:
        raise CorpusError(f"{file}: line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    if not isinstance(cases, list) or not all(isinstance(c, dict) and isinstance(c.get("compatible"), bool)
                                              and isinstance(c.get("original_schema"), dict | bool)
                                              and isinstance(c.get("update_schema"), dict | bool) for c in cases):
        raise CorpusError(f"{file}: not a list of cases with original_schema, update_schema and compatible")
    return cases


@dataclass(frozen=True)
class CaseOutcome:
    file: str
    case: int  # the case's position in its file, from 0
    description: str
    confluent: str  # compatible | incompatible (`compatible`)
    confluent_lenient: str  # `compatible_lenient`, else `compatible`
    wirecheck: str  # compatible | incompatible | undecided, by set semantics (latent evidence counted)
    gate: str  # the same, latent breaks only warnings (the default gate)
    rules: tuple[str, ...] = ()
    witness: Any = None  # a payload the original accepts and the update refuses, when there is one
    latent: bool = False  # every backward break rests on a member the original never declared
    problem: str | None = None  # why wirecheck could not compare the pair (a usage error), when it could not

    @property
    def agrees(self) -> bool:
        return self.wirecheck == self.confluent

    @property
    def gate_agrees(self) -> bool:
        return self.gate == self.confluent_lenient

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"file": self.file, "case": self.case, "description": self.description,
                                "confluent": self.confluent, "confluent_lenient": self.confluent_lenient,
                                "wirecheck": self.wirecheck, "gate": self.gate, "rules": list(self.rules),
                                "latent": self.latent}
        if self.witness is not None:
            data["witness"] = self.witness
        if self.problem is not None:
            data["problem"] = self.problem
        return data


def judge_case(case: dict[str, Any], draft: str, file: str = "", index: int = 0) -> CaseOutcome:
    """One case through the pipeline `wirecheck diff-schemas --kinds none` runs (read_input: the draft translated
    into 2020-12; diff_schemas; in_input_terms), answered for backward, strict consumers."""
    from wirecheck.contracts.drafts import Untranslatable, draft_named
    from wirecheck.diff.engine import diff_schemas
    from wirecheck.diff.inputs import in_input_terms, read_input

    expected = COMPATIBLE if case["compatible"] else INCOMPATIBLE
    lenient = COMPATIBLE if case.get("compatible_lenient", case["compatible"]) else INCOMPATIBLE
    base: dict[str, Any] = {"file": file, "case": index, "description": str(case.get("description", "")),
                            "confluent": expected, "confluent_lenient": lenient}
    try:
        old, new = read_input(case["original_schema"], draft_named(draft)), read_input(case["update_schema"],
                                                                                        draft_named(draft))
    except Untranslatable as exc:
        return CaseOutcome(**base, wirecheck=UNDECIDED, gate=UNDECIDED, problem=f"#{exc.pointer}: {exc.reason}")
    result = in_input_terms(diff_schemas(old.schema, new.schema, kinds="none"), old, new)
    if result.nothing_compared:
        return CaseOutcome(**base, wirecheck=UNDECIDED, gate=UNDECIDED, problem=result.nothing_compared)
    answer = {BREAKING: INCOMPATIBLE, SAFE: COMPATIBLE}.get(result.compatibility(BACKWARD, STRICT), UNDECIDED)
    breaking = [f for f in result.findings if f.breaks(BACKWARD, STRICT)]
    declared = any(f.breaks_declared(BACKWARD, STRICT) for f in breaking)
    gate = INCOMPATIBLE if declared else answer if answer == UNDECIDED else COMPATIBLE
    witness = next((w.payload for f in breaking for w in f.witnesses
                    if w.direction == BACKWARD and w.view == STRICT), None)
    return CaseOutcome(**base, wirecheck=answer, gate=gate, rules=tuple(sorted({f.rule for f in result.findings})),
                       witness=witness, latent=bool(breaking) and not declared)


@dataclass(frozen=True)
class Explanation:
    """A checked-in reason why wirecheck's answer differs from Confluent's, by set semantics (agreement.yaml)."""

    file: str
    case: int
    description: str
    confluent: str
    wirecheck: str
    why: str
    witness: Any = None  # for `incompatible`: accepted by the original, refused by the update
    alike: tuple[Any, ...] = ()  # for `compatible`: payloads both schemas judge alike, the change's reach
    gate: bool = False  # explains a difference between the default gate and Confluent's lenient answer


@dataclass(frozen=True)
class Agreement:
    outcomes: tuple[CaseOutcome, ...]
    explanations: tuple[Explanation, ...]
    files: tuple[dict[str, Any], ...]
    problems: tuple[str, ...] = field(default=())

    def explained(self, outcome: CaseOutcome, gate: bool = False) -> Explanation | None:
        return next((e for e in self.explanations if (e.file, e.case, e.gate) == (outcome.file, outcome.case, gate)),
                    None)

    def rows(self) -> list[dict[str, Any]]:
        """The table, a row per file and one in all."""
        rows = []
        for name in [*(f["file"] for f in self.files), None]:
            mine = [o for o in self.outcomes if name is None or o.file == name]
            rows.append({
                "file": name or "all", "cases": len(mine),
                "confluent_incompatible": sum(o.confluent == INCOMPATIBLE for o in mine),
                "agree": sum(o.agrees for o in mine),
                "disagree": sum(not o.agrees and o.wirecheck != UNDECIDED for o in mine),
                "explained": sum(not o.agrees and o.wirecheck != UNDECIDED and self.explained(o) is not None
                                 for o in mine),
                "undecided": sum(o.wirecheck == UNDECIDED for o in mine),
                "latent": sum(o.latent for o in mine),
                "gate_agree": sum(o.gate_agrees for o in mine),
                "gate_explained": sum(not o.gate_agrees and self.explained(o, gate=True) is not None for o in mine),
            })
        return rows


def _manifest(folder: Path) -> dict[str, Any]:
    from wirecheck.yaml_lines import YamlFileError, read_yaml_file

    try:
        data = read_yaml_file(folder / MANIFEST, what="corpus manifest")
    except YamlFileError as exc:
        raise CorpusError(str(exc)) from None
    if not isinstance(data, dict) or not isinstance(data.get("files"), list):
        raise CorpusError(f"{folder / MANIFEST}: expected files: [...] and disagreements: [...]")
    return data


def replay(folder: Path = CORPUS) -> Agreement:
    """Every case of every file the manifest lists, judged; the manifest's explanations checked against them."""
    from wirecheck.input_files import Unreadable
    from wirecheck.input_files import read_text as read_input_text

    manifest = _manifest(folder)
    problems: list[str] = []
    outcomes: list[CaseOutcome] = []
    for entry in manifest["files"]:
        path = folder / entry["file"]
        try:
            text = read_input_text(path, "corpus file")
        except Unreadable as exc:
            raise CorpusError(f"{path}: {exc.reason}") from None
        digest = hashlib.sha256(text.encode()).hexdigest()
        if digest != entry["sha256"]:
            problems.append(f"{path}: sha256 {digest}, the manifest says {entry['sha256']} (a changed corpus: "
                            "update the manifest and re-check every explanation)")
        outcomes += [judge_case(case, entry["draft"], entry["file"], i)
                     for i, case in enumerate(read_cases(text, str(path)))]
    explanations = tuple(Explanation(**{**e, "alike": tuple(e.get("alike", ()))})
                         for e in manifest.get("disagreements", ()))
    agreement = Agreement(tuple(outcomes), explanations, tuple(manifest["files"]))
    return Agreement(agreement.outcomes, explanations, agreement.files, tuple(problems + _unexplained(agreement)))


def _unexplained(agreement: Agreement) -> list[str]:
    """Disagreements with no explanation, explanations of cases that agree now (stale) or that name another case."""
    problems = []
    by_case = {(o.file, o.case): o for o in agreement.outcomes}
    for outcome in agreement.outcomes:
        if not outcome.agrees and outcome.wirecheck != UNDECIDED and agreement.explained(outcome) is None:
            problems.append(f"{outcome.file} case {outcome.case} ({outcome.description}): Confluent says "
                            f"{outcome.confluent}, wirecheck {outcome.wirecheck}, and {MANIFEST} does not say why")
        if not outcome.gate_agrees and outcome.gate != UNDECIDED and outcome.agrees \
                and agreement.explained(outcome, gate=True) is None:
            problems.append(f"{outcome.file} case {outcome.case} ({outcome.description}): Confluent's lenient "
                            f"answer is {outcome.confluent_lenient}, the default gate's {outcome.gate}, and "
                            f"{MANIFEST} does not say why")
    for explanation in agreement.explanations:
        found = by_case.get((explanation.file, explanation.case))
        where = f"{MANIFEST}: {explanation.file} case {explanation.case}"
        if found is None or found.description != explanation.description:
            problems.append(f"{where}: no such case (description {explanation.description!r})")
            continue
        now = found.gate if explanation.gate else found.wirecheck
        then = found.confluent_lenient if explanation.gate else found.confluent
        if (explanation.confluent, explanation.wirecheck) != (then, now):
            problems.append(f"{where}: explains Confluent {explanation.confluent} against wirecheck "
                            f"{explanation.wirecheck}; now Confluent {then}, wirecheck {now}")
    return problems


def markdown(agreement: Agreement) -> str:
    lines = ["# Confluent's JSON Schema compatibility corpus, replayed by wirecheck", "",
             "Confluent's `compatible` against wirecheck's backward answer for strict consumers with latent "
             "evidence counted (`--compat backward --consumers strict --strict-sets`); Confluent's "
             "`compatible_lenient` against the default gate, where latent breaks are warnings. Undecided: "
             "wirecheck could not prove either answer. Every disagreement is explained by set semantics in "
             f"`{CORPUS}/{MANIFEST}`.", "",
             "| file | draft | cases | Confluent incompatible | agree | disagree (explained) | undecided | "
             "latent only | gate vs lenient: agree (explained) |", "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    drafts = {f["file"]: f["draft"] for f in agreement.files}
    for row in agreement.rows():
        lines.append(f"| {row['file']} | {drafts.get(row['file'], '')} | {row['cases']} | "
                     f"{row['confluent_incompatible']} | {row['agree']} | {row['disagree']} ({row['explained']}) | "
                     f"{row['undecided']} | {row['latent']} | {row['gate_agree']} "
                     f"({row['gate_explained']}) |")
    lines += ["", "## Disagreements", ""]
    for outcome in agreement.outcomes:
        for gate in (False, True):
            differs = not outcome.gate_agrees if gate else not outcome.agrees
            if not differs or (gate and not outcome.agrees):
                continue
            explanation = agreement.explained(outcome, gate)
            theirs = outcome.confluent_lenient if gate else outcome.confluent
            ours = outcome.gate if gate else outcome.wirecheck
            lines.append(f"- **{outcome.file} case {outcome.case}** ({outcome.description}): Confluent"
                         f"{' (lenient)' if gate else ''} {theirs}, wirecheck{' (default gate)' if gate else ''} "
                         f"{ours}"
                         + (f"; witness `{json.dumps(outcome.witness)}`" if outcome.witness is not None else "")
                         + (f". {explanation.why}" if explanation else ". NOT EXPLAINED"))
    if agreement.problems:
        lines += ["", "## Problems", "", *(f"- {p}" for p in agreement.problems)]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="diff-corpus", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--out", type=Path, default=Path("reports/diff-corpus"))
    args = parser.parse_args(argv)
    from wirecheck.output_files import write_text

    try:
        agreement = replay(args.corpus)
    except CorpusError as exc:
        print(f"diff-corpus: {exc}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    text = markdown(agreement)
    write_text(args.out / "agreement.md", text)
    write_text(args.out / "agreement.json", json.dumps(
        {"rows": agreement.rows(), "cases": [o.to_json() for o in agreement.outcomes],
         "problems": list(agreement.problems)}, indent=1) + "\n")
    sys.stdout.write(text)
    print(f"reports: {args.out}/agreement.md, {args.out}/agreement.json")
    return 1 if agreement.problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
