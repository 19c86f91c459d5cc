"""Published schema histories, replayed against a hand-judged ground truth (issue 39).

`fixtures/schema-histories/` holds four histories nobody here tuned for (A2A's a2a.json, AsyncAPI's bundled
schemas, SchemaStore's github-workflow.json and package.json; provenance in `corpus.yaml`) and `ground-truth.yaml`,
each consecutive pair's breaks judged by hand with a witness. `nox -s diff-histories` (`python -m
wirecheck.diff.histories`) runs each pair as `wirecheck diff-schemas OLD NEW` does (read_input, diff_schemas,
in_input_terms, the default gate) and writes the table to reports/diff-histories/ (histories.md, histories.json);
it exits 1 when the replay disagrees with the ground truth:

- a break judged `declared` that no finding reports at its path and direction, or that the default gate lets
  through; a `latent` or `strict` break not reported as breaking for the reader it breaks;
- a pair that exits 2 (refused) or whose gate fails on a change judged no break (`not_breaks`), or, in a pair
  whose every change was judged (`reviewed: whole`), on a finding that matches no declared break (a false error);
  a pair may exit 6 (undecided: the gate names each change nobody could decide, counted in the table);
- a witness the ground truth gives that python-jsonschema does not confirm on the files as written;
- a `pending` break (one a piece of work not yet merged reports) that is reported: the line is stale.

suites/diff/test_histories.py checks every witness and replays a representative subset in the default tests.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wirecheck.diff.model import BACKWARD, BREAKING, FORWARD, STRICT, TOLERANT, UNKNOWN, DiffFinding

HISTORIES = Path("fixtures/schema-histories")
DECLARED, LATENT, STRICT_ONLY = "declared", "latent", "strict"
EVIDENCE = (DECLARED, LATENT, STRICT_ONLY)
_WILDCARDS = ("*", "{name}")


class HistoryError(Exception):
    """The corpus cannot be replayed as its manifest says (a missing or changed file, a malformed entry)."""


@dataclass(frozen=True)
class Revision:
    series: str
    label: str  # the tag, version, or short commit (the first word of corpus.yaml's label)
    file: Path
    refs: tuple[tuple[str, Path], ...] = ()  # URL a `$ref` leads to → the file published there


@dataclass(frozen=True)
class Break:
    path: str
    direction: str
    evidence: str
    witness: Any
    why: str
    against: str = ""  # the definition both revisions judge the witness by (A2A has no root schema)
    kind: str = ""
    pending: str = ""
    # JSON pointer → value: the witness as the reader's own writers would send it (AsyncAPI's version), which the
    # reader must still refuse: the break is this change's, not only the other change's
    blame: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Pair:
    series: str
    old: Revision
    new: Revision
    reviewed: str  # whole | partly
    breaks: tuple[Break, ...] = ()
    not_breaks: tuple[tuple[str, str], ...] = ()  # (path, why)
    pending: str = ""  # the whole pair waits for that work (it cannot be read before)

    @property
    def name(self) -> str:
        return f"{self.series} {self.old.label} → {self.new.label}"


def _yaml(path: Path) -> Any:
    from wirecheck.yaml_lines import YamlFileError, read_yaml_file

    try:
        return read_yaml_file(path, what="schema history manifest")
    except YamlFileError as exc:
        raise HistoryError(str(exc)) from None


def load(folder: Path = HISTORIES) -> list[Pair]:
    """Every consecutive pair of distinct revisions, with its ground truth; the stored files' sha256 checked."""
    corpus = _yaml(folder / "corpus.yaml")
    truth = {(p["series"], p["old"], p["new"]): p for p in _yaml(folder / "ground-truth.yaml")["pairs"]}
    pairs = []
    for series in corpus["series"]:
        revisions: list[Any] = []
        for entry in series["revisions"]:
            for file in (entry["file"], *entry.get("refs", {}).values()):
                if not (folder / file).is_file():
                    raise HistoryError(f"{folder / file}: missing (corpus.yaml names it)")
            digest = hashlib.sha256((folder / entry["file"]).read_bytes()).hexdigest()
            if digest != entry["sha256"]:
                raise HistoryError(f"{folder / entry['file']}: sha256 {digest}, corpus.yaml says {entry['sha256']}")
            if revisions and revisions[-1].file == folder / entry["file"]:
                continue  # the same file as the revision before (A2A v0.2.3 = v0.2.2): nothing to compare
            revisions.append(Revision(series["name"], entry["label"].split()[0], folder / entry["file"],
                                      tuple((url, folder / f) for url, f in entry.get("refs", {}).items())))
        for old, new in itertools.pairwise(revisions):
            judged = truth.pop((series["name"], old.label, new.label), None)
            if judged is None:
                raise HistoryError(f"ground-truth.yaml: no judgement of {series['name']} {old.label} → {new.label}")
            breaks = tuple(Break(**b) for b in judged.get("breaks") or ())
            for b in breaks:
                if b.direction not in (FORWARD, BACKWARD) or b.evidence not in EVIDENCE:
                    raise HistoryError(f"ground-truth.yaml: {series['name']} {old.label} → {new.label} {b.path}: "
                                       f"direction {b.direction!r}, evidence {b.evidence!r}")
            pairs.append(Pair(series["name"], old, new, judged["reviewed"], breaks,
                              tuple((n["path"], n["why"]) for n in judged.get("not_breaks") or ()),
                              judged.get("pending", "")))
    if truth:
        raise HistoryError(f"ground-truth.yaml: judges pairs the corpus does not have: {sorted(truth)}")
    return pairs


# --- the witnesses, on the files as written ---------------------------------------------------------------------

def reference_validator(revision: Revision, against: str = "", tolerant: bool = False) -> Any:
    """python-jsonschema's validator of the revision in its own draft, its `refs` in the registry, nothing fetched;
    `tolerant`: every closing keyword dropped (a reader that ignores unknown members)."""
    import jsonschema
    import referencing
    from referencing.jsonschema import specification_with

    from wirecheck.contracts.views import tolerant_view

    def resource(schema: Any) -> Any:
        schema = tolerant_view(schema) if tolerant else schema
        return referencing.Resource.from_contents(schema, default_specification=specification_with(
            schema.get("$schema", "http://json-schema.org/draft-07/schema#")))

    schema = json.loads(revision.file.read_bytes())
    base = schema.get("$id") or f"urn:wirecheck-history:{revision.series}:{revision.label}"
    if against:  # a definition, wherever the revision keeps them (A2A v0.1.0 writes $defs, later ones definitions)
        against = f"/{'$defs' if '$defs' in schema else 'definitions'}/{against}"
    registry = referencing.Registry().with_resources(
        [(url, resource(json.loads(file.read_bytes()))) for url, file in revision.refs]).with_resource(
        base, resource(schema))
    cls = jsonschema.validators.validator_for(schema)
    return cls({"$ref": base + "#" + against}, registry=registry, format_checker=cls.FORMAT_CHECKER)


def witness_problem(pair: Pair, judged: Break) -> str | None:
    """Why python-jsonschema does not confirm a judged break's witness, or None: the writer's revision accepts it,
    the reader's rejects it as written, and a tolerant reader (closing keywords dropped) rejects it too, except
    for a `strict` break, which only a closed reader sees."""
    writer, reader = (pair.new, pair.old) if judged.direction == FORWARD else (pair.old, pair.new)
    if not reference_validator(writer, judged.against).is_valid(judged.witness):
        return f"the writer ({writer.label}) rejects it"
    if reference_validator(reader, judged.against).is_valid(judged.witness):
        return f"the reader ({reader.label}) accepts it"
    own = _with(judged.witness, judged.blame)
    if reference_validator(reader, judged.against).is_valid(own):
        return f"the reader ({reader.label}) accepts it with {judged.blame}: the break is another change's"
    tolerated = reference_validator(reader, judged.against, tolerant=True).is_valid(own)
    if tolerated != (judged.evidence == STRICT_ONLY):
        return (f"a tolerant reader ({reader.label}) {'accepts' if tolerated else 'rejects'} it: evidence "
                f"{judged.evidence} says otherwise")
    return None


def _with(payload: Any, values: dict[str, Any]) -> Any:
    """A copy of `payload` with each JSON pointer of `values` set (a top-level member: all the corpus needs)."""
    from wirecheck.pointer import parse_pointer

    out = json.loads(json.dumps(payload))
    for pointer, value in values.items():
        (name,) = parse_pointer(pointer)
        out[name] = value
    return out


# --- the replay ----------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Outcome:
    pair: Pair
    exit_code: int
    seconds: float
    findings: tuple[DiffFinding, ...] = ()
    failing: tuple[DiffFinding, ...] = ()  # the findings the default gate fails on as breaks
    unsettled: tuple[DiffFinding, ...] = ()  # the findings it fails on as undecided (exit 6 when nothing breaks)
    refused: str | None = None  # why the pair could not be compared (exit 2)
    problems: tuple[str, ...] = field(default=())

    @property
    def undecided(self) -> int:
        """Findings with an undecided direction and no proven break."""
        return sum(1 for f in self.findings if any(v == UNKNOWN for _, _, v in f.verdicts) and not f.breaks())

    def caught(self) -> tuple[int, int]:
        """(declared breaks the default gate fails on, declared breaks judged), pending ones aside."""
        declared = [b for b in self.pair.breaks if b.evidence == DECLARED and not b.pending]
        return sum(1 for b in declared if _reporting(b, self.failing, gated=True)), len(declared)


def _read(revision: Revision) -> Any:
    """The revision as `diff-schemas OLD NEW --ref-map URL=FILE ...` reads it (`inputs.read_schema`, the one
    reading pipeline), a map entry per `refs`."""
    from wirecheck.diff.bundle import from_map_and_dirs
    from wirecheck.diff.inputs import read_schema

    schema = json.loads(revision.file.read_bytes())
    find = from_map_and_dirs(dict(revision.refs), [], lambda path: json.loads(path.read_bytes()))
    return read_schema(schema, find).translation


def replay_pair(pair: Pair) -> Outcome:
    """The pair as `wirecheck diff-schemas OLD NEW` judges it (default options and gate)."""
    from wirecheck.contracts.drafts import Untranslatable
    from wirecheck.diff.engine import diff_schemas
    from wirecheck.diff.gate import UNDECIDED, decide
    from wirecheck.diff.inputs import TooLarge, in_input_terms
    from wirecheck.diff.options import DiffOptions

    started = time.process_time()
    options = DiffOptions()
    try:
        old, new = _read(pair.old), _read(pair.new)
    except Untranslatable as exc:
        outcome = Outcome(pair, 2, time.process_time() - started, refused=f"#{exc.pointer}: {exc.reason}")
        return _checked(outcome)
    except TooLarge as exc:
        return _checked(Outcome(pair, 2, time.process_time() - started, refused=str(exc)))
    result = in_input_terms(diff_schemas(old.schema, new.schema, options, old_name=str(pair.old.file),
                                         new_name=str(pair.new.file)), old, new)
    decision = decide([result], options, "breaking")
    failing = tuple(r.finding for r in decision.reasons if r.finding is not None and r.code != UNDECIDED)
    unsettled = tuple(r.finding for r in decision.reasons if r.finding is not None and r.code == UNDECIDED)
    return _checked(Outcome(pair, decision.exit_code, time.process_time() - started, result.findings, failing,
                            unsettled))


def _matches(finding_path: str, judged_path: str) -> bool:
    """A finding at `finding_path` is about a change at `judged_path`: one is the other or within it (`*` and
    `{name}` match any step)."""
    a, b = finding_path.split("/")[1:], judged_path.split("/")[1:]
    return all(x == y or x in _WILDCARDS or y in _WILDCARDS or _grouped(x) for x, y in zip(a, b, strict=False))


def _grouped(step: str) -> bool:
    """A grouped change's step (`{a, b, c, … (18 in all)}`, model.Several): it stands for any of its members."""
    return step.startswith("{") and step.endswith(" in all)}")


def _reporting(judged: Break, findings: tuple[DiffFinding, ...], gated: bool = False) -> list[DiffFinding]:
    """The findings that report a judged break: at its path, in its kind, breaking its direction for the reader
    it breaks (tolerant, or strict for a break only closed readers see), on the evidence judged."""
    view = STRICT if judged.evidence == STRICT_ONLY else TOLERANT
    out = []
    for finding in findings:
        if not _matches(finding.path, judged.path) or judged.kind not in finding.kind:
            continue
        if not any(v == BREAKING and d == judged.direction and m == view for d, m, v in finding.verdicts):
            continue
        if gated or view == STRICT or (judged.evidence == LATENT) == ((judged.direction, view) in finding.latent):
            out.append(finding)
    return out


def _checked(outcome: Outcome) -> Outcome:
    pair, problems = outcome.pair, []
    if outcome.refused is not None:
        if not pair.pending:
            problems.append(f"{pair.name}: refused (exit 2): {outcome.refused}")
        return Outcome(**{**outcome.__dict__, "problems": tuple(problems)})
    if pair.pending:
        problems.append(f"{pair.name}: compared, but ground-truth.yaml says it waits for {pair.pending}: drop that")
    for judged in pair.breaks:
        found = _reporting(judged, outcome.failing if judged.evidence == DECLARED else outcome.findings,
                           gated=judged.evidence == DECLARED)
        where = f"{pair.name}: {judged.evidence} {judged.direction} break at {judged.path or '/'}"
        if judged.pending and found:
            problems.append(f"{where} is reported now: drop its `pending: {judged.pending}`")
        elif not judged.pending and not found:
            gate = " that fails the default gate" if judged.evidence == DECLARED else ""
            problems.append(f"{where}: no finding{gate} reports it")
    for path, _ in pair.not_breaks:
        wrong = [f for f in outcome.failing if _matches(f.path, path)]
        problems += [f"{pair.name}: the gate fails on {f.rule} at {f.path or '/'}, judged no break" for f in wrong]
    if pair.reviewed == "whole":
        declared = [b for b in pair.breaks if b.evidence == DECLARED]
        for finding in outcome.failing:
            if not any(finding in _reporting(b, (finding,), gated=True) for b in declared):
                problems.append(f"{pair.name}: the gate fails on {finding.rule} at {finding.path or '/'} "
                                f"({finding.kind}), a break the ground truth does not have")
    if outcome.exit_code not in (0, 1, 6) and not pair.pending:
        problems.append(f"{pair.name}: exit {outcome.exit_code}")
    return Outcome(**{**outcome.__dict__, "problems": tuple(problems)})


def table(outcomes: list[Outcome]) -> str:
    lines = ["| pair | exit | CPU s | findings | gate fails on (breaks) | undecided (gated) | declared breaks caught "
             "| problems |", "|---|---:|---:|---:|---:|---:|---:|---|"]
    for o in outcomes:
        caught, judged = o.caught()
        lines.append(f"| {o.pair.name} | {o.exit_code} | {o.seconds:.1f} | {len(o.findings)} | {len(o.failing)} | "
                     f"{o.undecided} ({len(o.unsettled)}) | {caught}/{judged} | {len(o.problems)} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="diff-histories", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=HISTORIES)
    parser.add_argument("--out", type=Path, default=Path("reports/diff-histories"))
    parser.add_argument("--series", action="append", help="replay only these series (repeatable)")
    args = parser.parse_args(argv)
    from wirecheck.output_files import write_text

    try:
        pairs = [p for p in load(args.corpus) if not args.series or p.series in args.series]
    except HistoryError as exc:
        print(f"diff-histories: {exc}", file=sys.stderr)
        return 2
    problems = [f"{p.name}: witness at {b.path or '/'}: {why}" for p in pairs for b in p.breaks
                if (why := witness_problem(p, b)) is not None]
    outcomes = []
    for pair in pairs:
        outcomes.append(replay_pair(pair))
        print(f"{pair.name}: exit {outcomes[-1].exit_code}, {outcomes[-1].seconds:.1f} s", file=sys.stderr)
    problems += [p for o in outcomes for p in o.problems]
    text = "# Published schema histories, replayed against the ground truth\n\n" + table(outcomes) + "\n"
    if problems:
        text += "\n## Problems\n\n" + "".join(f"- {p}\n" for p in problems)
    args.out.mkdir(parents=True, exist_ok=True)
    write_text(args.out / "histories.md", text)
    write_text(args.out / "histories.json", json.dumps({"pairs": [
        {"pair": o.pair.name, "exit": o.exit_code, "cpu_seconds": round(o.seconds, 2), "findings": len(o.findings),
         "gate_fails_on": len(o.failing), "undecided": o.undecided, "undecided_gated": len(o.unsettled),
         "declared_caught": o.caught()[0],
         "declared_judged": o.caught()[1], "refused": o.refused, "problems": list(o.problems)} for o in outcomes],
        "problems": problems}, indent=1) + "\n")
    sys.stdout.write(text)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
