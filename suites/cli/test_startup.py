"""`wirecheck --help` stays light: no heavy library and no wirecheck module beyond the CLI's own in its imports
(see wirecheck/lazy.py and ARCHITECTURE.md, "Start-up"). Asserts on the imported module set, never on time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# what pays for itself only when a command runs: the validators, the generators, the models, YAML, the diff
HEAVY = {"jsonschema", "jsonschema_rs", "referencing", "jsonschema_specifications", "hypothesis", "pydantic",
         "pydantic_core", "yaml", "deepdiff", "regress", "rfc3339_validator", "rfc3986_validator",
         "datamodel_code_generator", "ada_url"}
# the wirecheck modules a command's declaration may need (format names, option defaults)
LIGHT = {"wirecheck", "wirecheck.exitcodes", "wirecheck.findings", "wirecheck.limits", "wirecheck.lazy",
         "wirecheck.encoding",  # how standard output is encoded: set up before any command parses (stdlib only)
         "wirecheck.report", "wirecheck.certify", "wirecheck.certify.report",
         "wirecheck.deferred_imports"}  # run by `import wirecheck` (stdlib only): installs a finder, imports nothing

PROBE = r'''
import os, sys
sys.argv = ["wirecheck", *sys.argv[1:]]
from wirecheck.cli.app import main
try:
    main()
except SystemExit:
    pass
with open(os.environ["WIRECHECK_TEST_MODULES"], "w") as out:
    out.write("\n".join(sorted(sys.modules)))
'''


def imported_by(tmp_path, *argv: str) -> set[str]:
    target = tmp_path / "modules.txt"
    env = {**os.environ, "WIRECHECK_TEST_MODULES": str(target)}
    subprocess.run([sys.executable, "-c", PROBE, *argv], env=env, stdout=subprocess.DEVNULL, check=True,
                   timeout=120)
    return set(target.read_text().split())


@pytest.mark.parametrize("argv", [["--help"], ["validate", "--help"], ["diff", "--help"], ["certify", "--help"]])
def test_help_imports_nothing_heavy(tmp_path, argv):
    """`--help` imports every command module, so an eager import anywhere in cli/ shows here. A command's own
    `--help` parses its parameters, which typer (0.2x) coerces through pydantic: typer's cost, not ours."""
    modules = imported_by(tmp_path, *argv)
    assert "wirecheck.cli.app" in modules  # the probe ran the real command
    heavy = HEAVY if argv == ["--help"] else HEAVY - {"pydantic", "pydantic_core"}
    assert not {m.split(".")[0] for m in modules} & heavy
    ours = {m for m in modules if m.split(".")[0] == "wirecheck" and not m.startswith("wirecheck.cli")}
    assert ours <= LIGHT, f"imported while declaring the commands: {sorted(ours - LIGHT)}"


def test_the_probe_sees_a_heavy_import(tmp_path):
    """The check above can fail: a command that runs imports the loader and the validators."""
    modules = imported_by(tmp_path, "contracts")
    assert "wirecheck.contracts.loader" in modules and "jsonschema_rs" in modules


def test_the_url_parser_is_imported_only_to_check_a_url(tmp_path):
    """ada (the `whatwg-url` / `zod-url` formats) is loaded on the first URL checked, not by validate itself."""
    plain = imported_by(tmp_path, "validate", "claude-code-print@2.1.218",
                        str(ROOT / "fixtures/claude-code-print/2.1.218/valid/results-1.ndjson"))
    assert "jsonschema_rs" in plain and "ada_url" not in plain
    with_urls = imported_by(tmp_path, "validate", "xopc@0.0.253",
                            str(ROOT / "fixtures/xopc/0.0.253/valid/worker-run.har"))
    assert "ada_url" in with_urls


def small_pair(tmp_path) -> tuple[str, str]:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text('{"type": "object", "properties": {"a": {"type": "string"}}}')
    new.write_text('{"type": "object", "properties": {"a": {"type": "string", "maxLength": 3}}}')
    return str(old), str(new)


def test_diff_schemas_imports_no_pydantic(tmp_path):
    """A one-keyword `diff-schemas` (issue 30, 6: ≤ 0.2 s CPU) runs without pydantic: typer 0.29 would build a
    pydantic adapter for every option (cli/coercion.py coerces str/Path/bool/list[str] as typer does)."""
    modules = imported_by(tmp_path, "diff-schemas", *small_pair(tmp_path))
    assert "wirecheck.diff.engine" in modules and "jsonschema_rs" in modules  # the diff ran
    assert not {m.split(".")[0] for m in modules} & {"pydantic", "pydantic_core", "hypothesis"}
    # nor the contract loader (its validation of catalogs, registries and links): the schemas are files; nor the
    # contract model (13 dataclasses, ~60 M instructions on 3.11): a catalog's releases, which files have not
    assert "wirecheck.contracts.loader" not in modules and "wirecheck.contracts.model" not in modules
    # nor PyYAML (~150 M instructions with a first load): the schemas are .json files, and the rule catalogue is
    # read from its JSON twin (diff/catalogue.py)
    assert "yaml" not in modules and "wirecheck.yaml_lines" not in modules
    # nor another command's module (cli/app.py's OWNER names the one that registers diff-schemas)
    assert {m for m in modules if m.startswith("wirecheck.cli.") and m.endswith("_cmd")} == {"wirecheck.cli.diff_cmd"}


def test_a_command_runs_in_an_app_of_its_own_module_alone():
    """main() builds only the module of the command named (typer builds every registered command before running
    one): every command has its module, and says the same in both apps (its help, a usage error)."""
    import typer
    from typer.testing import CliRunner

    from wirecheck.cli.app import COMMAND_MODULES, OWNER, _app_for, _app_of, _names, app

    every = set(typer.main.get_command(app).commands)  # type: ignore[attr-defined]
    assert set(OWNER) == every and len(every) >= 14
    for module in COMMAND_MODULES:  # the written-out map says which module registers each command, and no other
        assert _names(_app_of([module])) == {name for name, owner in OWNER.items() if owner == module}, module
    assert set(typer.main.get_command(_app_for(["diff-schemas"])).commands) == {"diff", "diff-schemas", "rules"}
    assert _app_for(["--help"]) is app and _app_for([]) is app and _app_for(["dif"]) is app
    runner = CliRunner()
    for name in sorted(every):
        for argv in ([name, "--help"], [name, "--no-such-option"]):
            whole, alone = runner.invoke(app, argv), runner.invoke(_app_for(argv), argv)
            assert (alone.exit_code, alone.output) == (whole.exit_code, whole.output), argv


GC_PROBE = r'''
import gc, json, sys
from wirecheck import lazy
seen = {"collections": 0, "at_pause": None, "paused": None}
gc.callbacks.append(lambda phase, info: phase == "start" and seen.__setitem__("collections", seen["collections"] + 1))
pause, over = lazy.pause_collector_for_start_up, lazy.start_up_over
def pause_collector_for_start_up():
    seen["at_pause"] = seen["collections"]
    pause()
def start_up_over():
    if seen["paused"] is None and seen["at_pause"] is not None:  # collections between the pause and its end
        seen["paused"] = seen["collections"] - seen["at_pause"]
    over()
lazy.pause_collector_for_start_up, lazy.start_up_over = pause_collector_for_start_up, start_up_over
sys.argv = ["wirecheck", *sys.argv[1:]]
from wirecheck.cli import main  # the console script's and `python -m wirecheck`'s entry
try:
    main()
except SystemExit:
    pass
print(json.dumps({**seen, "enabled": gc.isenabled()}), file=sys.stderr)
'''


def collections_in(*argv: str) -> dict:
    done = subprocess.run([sys.executable, "-c", GC_PROBE, *argv], capture_output=True, text=True, timeout=120)
    return json.loads(done.stderr.splitlines()[-1])  # type: ignore[no-any-return]


def test_the_collector_is_paused_while_a_diff_starts_up(tmp_path):
    """Imports and the reading of a diff's inputs allocate objects that live as long as the process: no cycle
    collection runs until the diff starts (there were ~60), and the collector runs again after it."""
    seen = collections_in("diff-schemas", *small_pair(tmp_path))
    assert seen["paused"] == 0 and seen["enabled"]


def test_validate_reads_its_stream_with_the_collector_running():
    """validate reads unbounded streams: the start-up pause ends before it parses its arguments, and collections
    run while it reads (a capture of a few lines is enough to see them)."""
    seen = collections_in("validate", "claude-code-print@2.1.218",
                          str(ROOT / "fixtures/claude-code-print/2.1.218/valid/results-1.ndjson"))
    assert seen["paused"] == 0
    assert seen["collections"] - seen["at_pause"] > 0 and seen["enabled"]


def test_a_diff_of_two_releases_imports_only_what_it_uses(tmp_path):
    """`diff OLD NEW` imports neither what derives kinds from raw schemas (diff-schemas), nor the --against
    archive reader, nor a package's release matrix (`diff PACKAGE`): ~22 M instructions of an ACP pair."""
    modules = imported_by(tmp_path, "diff", "xopc@0.0.251", "xopc@0.0.253")
    assert "wirecheck.diff.engine" in modules and "wirecheck.contracts.loader" in modules  # the diff ran
    assert not modules & {"wirecheck.diff.derive", "wirecheck.diff.against", "wirecheck.diff.package"}


def test_a_diff_of_two_bundled_releases_reads_no_yaml(tmp_path):
    """`diff acp@A acp@B` of bundled releases takes the data of registry.yaml, both catalogs and both readers.yaml
    from contracts/parsed.jsonl (contracts.loader.contract_yaml), so PyYAML is not even imported (~110 M
    instructions of an ACP pair: its import and five loads)."""
    modules = imported_by(tmp_path, "diff", "acp@0.5.1", "acp@0.8.0")
    assert "wirecheck.diff.engine" in modules and "wirecheck.contracts.loader" in modules  # the diff ran
    assert "yaml" not in modules and "wirecheck.yaml_lines" not in modules


def test_validate_of_a_bundled_release_reads_no_yaml(tmp_path):
    """`validate` of a bundled release takes its contract files' data from contracts/parsed.jsonl and the check
    texts from rules/texts.json (rules/catalogue.py): PyYAML is not imported (~130 M instructions)."""
    modules = imported_by(tmp_path, "validate", "acp@1.9.0",
                          str(ROOT / "fixtures/acp/1.9.0/valid/elicitation-url.ndjson"))
    assert "wirecheck.rules.catalogue" in modules and "wirecheck.contracts.loader" in modules  # validate ran
    assert "yaml" not in modules and "wirecheck.yaml_lines" not in modules


def test_a_one_message_validate_imports_no_pydantic_pool_or_resources(tmp_path):
    """A pre-commit hook's `validate` of one message (issue 42, 5: ≤ 0.2 s CPU over the interpreter, measured by
    `nox -s bench`) pays for no pydantic (typer builds its adapter for an int or Enum option: `--max-line-bytes`,
    `-j`, `--fail-on`, cli/coercion.py), no multiprocessing (a run this small starts no workers, check/parallel.py)
    and no importlib.resources (zipfile, tempfile: the bundled contracts' folder is found by the import system)."""
    capture = tmp_path / "one.json"
    capture.write_text('{"type": "result", "subtype": "success", "is_error": false}')
    modules = imported_by(tmp_path, "validate", "claude-code-print@2.1.218", str(capture), "--fail-on", "warning",
                          "--max-line-bytes", "65536")
    assert "wirecheck.check.engine" in modules  # validate ran
    assert not {m.split(".")[0] for m in modules} & {"pydantic", "pydantic_core", "multiprocessing"}
    assert "concurrent.futures.process" not in modules and "importlib.resources" not in modules
