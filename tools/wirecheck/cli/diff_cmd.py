"""`wirecheck diff`, `wirecheck diff-schemas`, `wirecheck rules`: the contract diff as commands (thin shell)."""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path
from typing import Any

import orjson
import typer

from wirecheck import exitcodes
from wirecheck.cli.common import (
    CONTRACTS_OPTION,
    bad_choice,
    contract_errors_as_usage,
    fail_usage,
    guarded,
    output_file,
    registry,
    result_line,
)

FORMAT_NAMES = ["text", "markdown", "json", "junit", "sarif", "html"]
UNDECIDED_HELP = (
    "fail (the default: with --fail-on breaking, a change of a declared member nobody could decide for a protected "
    "reader fails the gate with exit 6, saying what blocked it) | pass (accept it: the run passes unless a break is "
    "proven).")
STRICT_SETS_HELP = (
    "Fail the gate on latent breaks too: breaks whose every witness needs a member the writer's contract never "
    "declared (an open object let it through; e.g. an optional property added to an open object breaks only a "
    "writer that sent that name with another type). By default they are warnings.")


def _options(compat: str, consumers: str, witnesses: bool, output_format: str, annotations: bool = False,
             strict_sets: bool = False):
    """The diff's options, every one checked before any diff runs."""
    from wirecheck.diff.options import COMPATIBILITY, DiffOptions

    if output_format not in FORMAT_NAMES:
        raise bad_choice("--format", output_format, FORMAT_NAMES)
    if compat not in COMPATIBILITY:
        raise bad_choice("--compat", compat, COMPATIBILITY)
    if consumers not in ("tolerant", "strict"):
        raise bad_choice("--consumers", consumers, ("tolerant", "strict"))
    return DiffOptions(witnesses=witnesses, directions=COMPATIBILITY[compat], consumers=consumers,
                       annotations=annotations, strict_sets=strict_sets)


def _emit(run: Any, output_format: str, output: Path | None, contracts: Path | None) -> None:
    from wirecheck.diff import report

    extra = {"contracts": contracts} if output_format == "sarif" and contracts else {}
    if output is None:
        report.write(output_format, run, sys.stdout, **extra)
        return
    with output_file(output) as out:
        report.write(output_format, run, out, **extra)
    from wirecheck.diff.report.common import build, change_counts, counts_text, gate_text, plural

    model = build(run)  # counted as the human reports count: in changes
    result_line(f"wirecheck diff: {plural(len(run.results), 'release pair')}, {counts_text(change_counts(model))}; "
                f"{gate_text(run, model)}; report: {output}")


def _finish(results: list[Any], options: Any, fail_on: str, waivers: Path | None, packages=(),
            undecided: str = "fail") -> Any:
    from wirecheck.diff.gate import FAIL_ON, UNDECIDED_CHOICES
    from wirecheck.diff.run import DiffRun

    if fail_on not in FAIL_ON:
        raise bad_choice("--fail-on", fail_on, FAIL_ON)
    if undecided not in UNDECIDED_CHOICES:
        raise bad_choice("--undecided", undecided, UNDECIDED_CHOICES)
    waiver_findings: list[Any] = []
    if waivers is not None:
        from wirecheck.diff.waivers import WaiverFileError, apply_waivers, load_waivers

        try:
            loaded = load_waivers(waivers)
        except WaiverFileError as exc:
            raise fail_usage(str(exc)) from None
        results, waiver_findings = apply_waivers(results, loaded)
    return DiffRun(tuple(results), options, fail_on, tuple(waiver_findings), tuple(packages), undecided)


def _load_schema(path: Path, default_draft: Any, find: Any = None) -> Any:
    """The file's schema as `diff/inputs.read_schema` reads it (the files its `$ref`s reach bundled in from
    `find`, translated into 2020-12), its notes on stderr; a usage error names file and pointer."""
    from wirecheck.contracts.drafts import Untranslatable
    from wirecheck.diff.inputs import TooLarge, read_schema

    try:
        read = read_schema(_parsed_schema(path), find, default_draft)
    except Untranslatable as exc:
        raise fail_usage(f"{path}#{exc.pointer}: {exc.reason}") from None
    except TooLarge as exc:
        raise fail_usage(f"{path}: {exc}") from None
    if read.bundled:
        print(f"wirecheck: note: {path}: bundled {len(read.bundled)} file(s) its $refs reach: "
              f"{'; '.join(read.bundled)}", file=sys.stderr)
    for note in read.dropped:
        print(f"wirecheck: warning: {path}#{note}", file=sys.stderr)
    return read.translation


def _parsed_schema(path: Path) -> Any:
    """A schema file as JSON values: JSON read exactly, else YAML that holds only JSON."""
    from wirecheck.data_files import YamlFileError, read_text
    from wirecheck.diff.inputs import not_json
    from wirecheck.json_text import parse_json

    try:
        text = read_text(path, what="schema file")
        if not text.strip():
            raise fail_usage(f"{path}: the file is empty")
        if path.suffix == ".json":
            schema, json_problem = parse_json(text.encode())  # exact: a duplicate key or a 2^64 bound shows
            if json_problem is not None:
                where = f"#{json_problem.pointer}" if json_problem.pointer else ""
                yaml_hint = " (a file not named .json is read as YAML)" if "looks like YAML" in json_problem.message \
                    else ""
                raise fail_usage(f"{path}{where}: {json_problem.message}{yaml_hint}")
        else:
            from wirecheck.yaml_lines import parse_yaml  # PyYAML, for a schema file not named .json

            schema = parse_yaml(text, str(path))
    except YamlFileError as exc:
        raise fail_usage(str(exc)) from None
    problem = None if path.suffix == ".json" else not_json(schema)  # orjson reads nothing JSON cannot hold
    if problem:
        where, _, why = problem.partition(": ")
        raise fail_usage(f"{path}{'#' + where if where else ''}: YAML that is not JSON: {why}")
    return schema


def _ref_finder(ref_map: list[str] | None, schemas_dirs: list[str] | None, beside: Path) -> Any:
    """`find` for diff/bundle.py: --ref-map URL=FILE first, then each --schemas-dir DIR, then the folder of the
    schema file itself (`beside`: SchemaStore's layout, read as it is)."""
    from wirecheck.diff.bundle import from_map_and_dirs

    mapped: dict[str, Path] = {}
    for entry in ref_map or []:
        url, sep, file = entry.rpartition("=")
        if not sep or not url or not file:
            raise fail_usage(f"--ref-map {entry!r}: expected URL=FILE")
        mapped[url] = Path(file)
    folders = [Path(folder) for folder in schemas_dirs or []]
    for folder in folders:
        if not folder.is_dir():
            raise fail_usage(f"--schemas-dir {folder}: not a folder")
    return from_map_and_dirs(mapped, [*folders, beside], _parsed_schema)


def _explain(path: Path, translation: Any, everything: bool) -> None:
    """What the translation into 2020-12 did, on stderr (stdout holds the report): a summary line when anything
    was rewritten, every rewrite with --explain-input."""
    if not (everything or translation.rewrites):
        return
    hint = "" if everything or not translation.rewrites else " (--explain-input lists them)"
    typer.echo(f"wirecheck: note: {path}: {translation.summary}{hint}", err=True)
    if everything:
        for rewrite in translation.rewrites:
            typer.echo(f"  {path}{rewrite}", err=True)


def register(app: typer.Typer) -> None:
    @app.command("diff")
    def diff_command(
        specs: list[str] = typer.Argument(None, metavar="SPEC...", help=(
            "OLD NEW (pkg@a pkg@b); one pkg@v (against its previous release); a package (all its pairs and the "
            "transitive matrix); nothing (every package). With --against: the working tree's releases.")),
        against: str = typer.Option(None, "--against", help=(
            "Diff the working tree's contracts against the same folder at this git ref (a branch, tag or commit). "
            "The folder: --contracts, else contracts/ at the top of the git checkout you are in.")),
        output_format: str = typer.Option("text", "--format", "-f", help=f"One of: {', '.join(FORMAT_NAMES)}."),
        output: Path = typer.Option(None, "--output", "-o", help="Write the report here instead of stdout."),
        fail_on: str = typer.Option("breaking", "--fail-on", help=(
            "breaking (a break proven for a protected consumer; a change nobody could decide too, exit 6, unless "
            "--undecided pass) | warning (also a latent change) | never (report only).")),
        undecided: str = typer.Option("fail", "--undecided", help=UNDECIDED_HELP),
        waivers: Path = typer.Option(None, "--waivers", help="YAML waivers: fingerprint, reason, who, expires."),
        compat: str = typer.Option("full", "--compat", help="Directions that count: forward | backward | full."),
        consumers: str = typer.Option("tolerant", "--consumers", help=(
            "Consumer model to protect: tolerant (closed-model breaks are warnings) | strict (they are errors).")),
        witnesses: bool = typer.Option(True, "--witnesses/--no-witnesses", help="Search for witness payloads."),
        annotations: bool = typer.Option(False, "--annotations", help=(
            "Also list changed annotations (description, title, x-..., discriminator) as info findings.")),
        strict_sets: bool = typer.Option(False, "--strict-sets", help=STRICT_SETS_HELP),
        contracts: Path = CONTRACTS_OPTION,
    ) -> None:
        """Diff contract releases: whom each change breaks (forward/backward, strict/tolerant consumers), with
        witness payloads, rule ids, fingerprints, and semver/wire-version verdicts. Exit 0 / 1 / 2 / 6 (README)."""
        from wirecheck.contracts import load_registry
        from wirecheck.diff.engine import diff_releases
        from wirecheck.diff.gate import fails

        options = _options(compat, consumers, witnesses, output_format, annotations, strict_sets)
        if against is not None and contracts is None:  # the checkout's contracts/, compared with the ref
            from wirecheck.diff.against import AgainstError, working_tree_contracts

            try:
                contracts = working_tree_contracts(against, Path.cwd())
            except AgainstError as exc:
                raise fail_usage(str(exc)) from None
        reg = registry(contracts)
        specs = specs or []
        results: list[Any] = []
        packages: list[Any] = []
        if against is not None:
            from wirecheck.diff.against import AgainstError, contracts_at, pairs_against

            try:
                extracted = contracts_at(against, reg.root)
            except AgainstError as exc:
                raise fail_usage(str(exc)) from None
            with contract_errors_as_usage(), extracted.named_at_ref():
                old_reg = load_registry(extracted.folder)
            pairs, notes = guarded(lambda: pairs_against(old_reg, reg, specs))
            for note in notes:
                typer.echo(f"wirecheck: note: {note}", err=True)
            for package, old_v, new_v in pairs:
                with contract_errors_as_usage(), extracted.named_at_ref():
                    old_release = old_reg.load(f"{package}@{old_v}")
                new_release = guarded(partial(reg.load, f"{package}@{new_v}"))
                result = diff_releases(old_release, new_release, options)
                if old_v == new_v:
                    import dataclasses

                    result = dataclasses.replace(result, old_version=f"{old_v} ({against})")
                results.append(result)
        elif len(specs) == 2:
            old_release, new_release = guarded(lambda: (reg.load(specs[0]), reg.load(specs[1])))
            if old_release.package != new_release.package:  # versions, semver and reports are per package
                raise fail_usage(f"diff compares two releases of one package, got {old_release.package} and "
                                 f"{new_release.package}; compare single schemas with diff-schemas OLD NEW")
            results.append(diff_releases(old_release, new_release, options))
        elif len(specs) == 1 and "@" in specs[0][1:]:
            package, version = guarded(lambda: reg.resolve(specs[0]))
            previous = reg.previous(package, version)
            if previous is None:
                raise fail_usage(f"{package}@{version} is the first release; give OLD NEW")
            results.append(diff_releases(guarded(lambda: reg.load(f"{package}@{previous}")),
                                         guarded(lambda: reg.load(f"{package}@{version}")), options))
        elif len(specs) <= 1:
            from wirecheck.diff.package import diff_package  # a package's release matrix

            names = [guarded(lambda: reg.package(specs[0])).name] if specs else list(guarded(lambda: reg.packages))
            for name in names:
                package_diff = guarded(partial(diff_package, reg, name, options))
                packages.append(package_diff)
                # + the jumps that fail the gate where no step does
                results += package_diff.gate_pairs(partial(fails, options=options, fail_on=fail_on))
        else:
            raise fail_usage("give OLD NEW, one PACKAGE@VERSION, one PACKAGE, or nothing")
        run = _finish(results, options, fail_on, waivers, packages, undecided)
        _emit(run, output_format, output, reg.root)
        raise typer.Exit(run.exit_code())

    @app.command("diff-schemas")
    def diff_schemas_command(
        old: Path = typer.Argument(..., help="The old JSON Schema (JSON or YAML)."),
        new: Path = typer.Argument(..., help="The new JSON Schema (JSON or YAML)."),
        output_format: str = typer.Option("text", "--format", "-f", help=f"One of: {', '.join(FORMAT_NAMES)}."),
        output: Path = typer.Option(None, "--output", "-o"),
        fail_on: str = typer.Option("breaking", "--fail-on", help="breaking | warning | never."),
        undecided: str = typer.Option("fail", "--undecided", help=UNDECIDED_HELP),
        waivers: Path = typer.Option(None, "--waivers"),
        compat: str = typer.Option("full", "--compat", help="forward | backward | full."),
        consumers: str = typer.Option("tolerant", "--consumers", help="tolerant | strict."),
        witnesses: bool = typer.Option(True, "--witnesses/--no-witnesses"),
        default_draft: str = typer.Option("2020-12", "--default-draft", help=(
            "The draft of a schema without $schema: 4, 6, 7, 2019-09 or 2020-12. Other drafts are translated "
            "into 2020-12 first.")),
        explain_input: bool = typer.Option(False, "--explain-input", help=(
            "List on stderr every rewrite of the translation into 2020-12 (what, where in your file, why).")),
        annotations: bool = typer.Option(False, "--annotations", help="Also list changed annotations (info)."),
        strict_sets: bool = typer.Option(False, "--strict-sets", help=STRICT_SETS_HELP),
        kinds: str = typer.Option("auto", "--kinds", help=(
            "auto: report per message kind when the schemas are unions of messages (JSON-RPC methods, tagged or "
            "titled unions) or only definitions; none: compare the two roots as one message.")),
        ref_map: list[str] = typer.Option(None, "--ref-map", help=(
            "URL=FILE: the file published at URL, for a $ref to another file (repeat it; nothing is fetched). "
            "Each side's $refs are resolved from it, and the files they reach bundled into that side's schema.")),
        schemas_dirs: list[str] = typer.Option(None, "--schemas-dir", help=(  # str: cli/coercion.py, no pydantic
            "A folder of the files $refs lead to, under their published names (SchemaStore's layout: a $ref to "
            ".../eslintrc.json reads DIR/eslintrc.json). Repeat it; --ref-map entries come first, each schema's own "
            "folder last.")),
    ) -> None:
        """Diff two raw JSON Schema files (for schemas outside the catalog): producer writes, consumer reads.
        Drafts 04, 06, 07 and 2019-09 are translated into 2020-12 first (--explain-input shows how)."""
        from wirecheck.contracts.drafts import draft_named
        from wirecheck.diff.engine import diff_schemas
        from wirecheck.diff.inputs import in_input_terms, not_a_schema

        options = _options(compat, consumers, witnesses, output_format, annotations, strict_sets)
        if kinds not in ("auto", "none"):
            raise bad_choice("--kinds", kinds, ("auto", "none"))
        try:
            default = draft_named(default_draft)
        except ValueError as exc:
            raise fail_usage(f"--default-draft: {exc}") from None
        old_input = _load_schema(old, default, _ref_finder(ref_map, schemas_dirs, old.parent))
        new_input = _load_schema(new, default, _ref_finder(ref_map, schemas_dirs, new.parent))
        for path, translation in ((old, old_input), (new, new_input)):
            problem = not_a_schema(translation.schema)  # a screen: a valid draft-N schema translates to a valid one
            if problem is not None:
                pointer, _, why = problem.partition(": ")
                raise fail_usage(f"{path}#{translation.source_pointer(pointer)}: not a valid 2020-12 schema: {why}")
            _explain(path, translation, explain_input)
        result = diff_schemas(old_input.schema, new_input.schema, options, old_name=str(old), new_name=str(new),
                              files=(str(old), str(new)), kinds=kinds)
        result = in_input_terms(result, old_input, new_input)
        run = _finish([result], options, fail_on, waivers, undecided=undecided)
        _emit(run, output_format, output, None)
        raise typer.Exit(run.exit_code())

    @app.command("rules")
    def rules_command(
        output_format: str = typer.Option("text", "--format", "-f", help="text | markdown | json."),
        section: str = typer.Option("all", "--section", help="all | checks | diff."),
    ) -> None:
        """Print the rule catalogues: conformance checks (validate) and diff rules (diff), as data."""
        from wirecheck.diff.catalogue import diff_rule_catalogue
        from wirecheck.rules.catalogue import rule_catalogue

        if output_format not in ("text", "markdown", "json"):
            raise bad_choice("--format", output_format, ("text", "markdown", "json"))
        if section not in ("all", "checks", "diff"):
            raise bad_choice("--section", section, ("all", "checks", "diff"))
        checks = rule_catalogue() if section in ("all", "checks") else {}
        diffs = diff_rule_catalogue() if section in ("all", "diff") else {}
        if output_format == "json":
            data = {
                "checks": [{"id": c.id, "level": c.level.value, "group": c.group, "purpose": c.purpose,
                            "rationale": c.rationale} for c in checks.values()],
                "diff": [{"id": r.id, "level": r.level.value, "group": r.group,
                          "breaks": [f"{d}/{m}" for d, m in r.breaks], "bump": r.bump, "purpose": r.purpose,
                          "rationale": r.rationale} for r in diffs.values()],
            }
            typer.echo(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode())
            raise typer.Exit(exitcodes.CONFORMS)
        md = output_format == "markdown"
        if checks:
            typer.echo(f"{'## ' if md else ''}Conformance checks (wirecheck validate): {len(checks)}")
            if md:
                typer.echo("\n| id | level | group | purpose |\n|---|---|---|---|")
            for c in sorted(checks.values(), key=lambda c: (c.group, c.id)):
                typer.echo(f"| `{c.id}` | {c.level.value} | {c.group} | {c.purpose} |" if md else
                           f"  {c.id:<34} {c.level.value:<8} {c.group:<10} {c.purpose}")
            typer.echo("")
        if diffs:
            typer.echo(f"{'## ' if md else ''}Diff rules (wirecheck diff): {len(diffs)}")
            if md:
                typer.echo("\n| id | level | breaks | bump | purpose |\n|---|---|---|---|---|")
            for r in sorted(diffs.values(), key=lambda r: (r.group, r.id)):
                breaks = ", ".join(f"{d}/{m}" for d, m in r.breaks) or "nobody"
                typer.echo(f"| `{r.id}` | {r.level.value} | {breaks} | {r.bump} | {r.purpose} |" if md else
                           f"  {r.id:<34} {r.level.value:<8} {r.group:<9} bump {r.bump:<6} breaks {breaks}\n"
                           f"  {'':<34} {r.purpose}")
        raise typer.Exit(exitcodes.CONFORMS)

