"""`wirecheck diff`, `diff-schemas` and `rules` as a CI gate runs them: exit codes 0/1/2, waivers, --against."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CATALOGS = Path(__file__).parent / "catalogs"
REPO = Path(__file__).resolve().parents[2]
PAIRS = Path(__file__).parent / "pairs"


def wirecheck(*args: str, contracts: Path = CATALOGS, cwd: Path | None = None):
    env = {**os.environ, "WIRECHECK_CONTRACTS": str(contracts)}
    proc = subprocess.run([sys.executable, "-m", "wirecheck", *args], capture_output=True, env=env, timeout=120,
                          cwd=cwd)
    assert b"Traceback" not in proc.stderr, proc.stderr.decode()
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def test_exit_codes() -> None:
    code, out, _ = wirecheck("diff", "shop@1.0.0", "shop@1.0.1")
    assert code == 1 and "REQUIRED_PROPERTY_REMOVED" in out and "SEMVER_BUMP_TOO_SMALL" in out
    code, out, _ = wirecheck("diff", "shop@2.0.0")  # against its previous release: a pure refactor
    assert code == 0 and "no changes on the wire" in out
    code, _, err = wirecheck("diff", "shop@9.9.9")
    assert code == 2 and "unknown release" in err
    code, _, err = wirecheck("diff", "shop@1.0.0", "shop@1.0.1", "--fail-on", "sometimes")
    assert code == 2 and "--fail-on" in err
    for ref in ("", "-v", "--upload-pack=touch x"):  # never run a plain diff, never an option to git
        code, _, err = wirecheck("diff", f"--against={ref}")
        assert code == 2 and "not a git revision" in err
    code, _, err = wirecheck("diff", "xopc@0.0.251", "qoder-agent-sdk@1.0.23", contracts=REPO / "contracts")
    assert code == 2 and "two releases of one package, got xopc and qoder-agent-sdk" in err


def test_waivers_file_gates_the_run(tmp_path: Path) -> None:
    code, out, _ = wirecheck("diff", "shop@1.0.0", "shop@1.0.1", "--format", "json")
    errors = [f["fingerprint"] for f in json.loads(out)["pairs"][0]["findings"] if f["severity"] == "error"]
    waivers = tmp_path / "waivers.yaml"
    waivers.write_text("waivers:\n" + "".join(
        f"  - {{fingerprint: '{fp}', reason: announced in the 1.0.1 notes, who: release-bot, expires: 2999-12-31}}\n"
        for fp in errors), encoding="utf-8")
    code, out, _ = wirecheck("diff", "shop@1.0.0", "shop@1.0.1", "--waivers", str(waivers))
    assert code == 0, out
    assert "(waived)" in out and re.search(r"changes: 0 errors, .* [1-9]\d* waived", out)  # counted in changes
    # a waiver lets a break pass the gate; it does not make the pair compatible
    code, out, _ = wirecheck("diff", "shop@1.0.0", "shop@1.0.1", "--waivers", str(waivers), "--format", "json")
    pair = json.loads(out)["pairs"][0]
    assert code == 0 and "breaking" in {v for views in pair["compatibility"].values() for v in views.values()}
    code, out, _ = wirecheck("diff", "shop@1.0.0", "shop@1.0.1", "--waivers", str(waivers), "--fail-on", "warning")
    assert code == 1  # the warnings are not waived
    waivers.write_text(waivers.read_text() + "  - {fingerprint: 'abcdefabcdef', reason: old, who: me}\n")
    code, out, _ = wirecheck("diff", "shop@1.0.0", "shop@1.0.1", "--waivers", str(waivers))
    assert code == 1 and "WAIVER_STALE" in out
    for report in ("html", "markdown", "junit", "sarif", "json"):  # every format shows why the run failed
        code, out, _ = wirecheck("diff", "shop@1.0.0", "shop@1.0.1", "--waivers", str(waivers), "--format", report)
        assert code == 1 and "WAIVER_STALE" in out and "abcdefabcdef" in out, report
    waivers.write_text("waivers: [{fingerprint: 12, reason: r, who: w}]\n")
    code, _, err = wirecheck("diff", "shop@1.0.0", "shop@1.0.1", "--waivers", str(waivers))
    assert code == 2 and "waivers.yaml#/waivers/0/fingerprint" in err


def test_diff_schemas(tmp_path: Path) -> None:
    import yaml

    case = yaml.safe_load((PAIRS / "ENUM_VALUE_ADDED.yaml").read_text())
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(case["before"]))
    new.write_text(json.dumps(case["after"]))
    code, out, _ = wirecheck("diff-schemas", str(old), str(new), "--format", "sarif")
    assert code == 1 and json.loads(out)["runs"][0]["results"][0]["ruleId"] == "ENUM_VALUE_ADDED"
    code, out, _ = wirecheck("diff-schemas", str(old), str(old))
    assert code == 0
    code, _, _ = wirecheck("diff-schemas", str(old), str(new), "--compat", "backward")
    assert code == 0  # an added enum value breaks only forward
    new.write_text(json.dumps({"type": "object", "properties": {"a": {"type": 12}}}))
    code, _, err = wirecheck("diff-schemas", str(old), str(new))
    assert code == 2 and "new.json#/properties/a/type" in err
    new.write_text(json.dumps({"type": "object", "properties": {"a": {"$ref": "#/$defs/Gone"}}}))  # dangling
    code, out, err = wirecheck("diff-schemas", str(old), str(new))
    assert code == 2 and "new.json#/properties/a/$ref: '#/$defs/Gone' points at nothing" in err
    new.write_text(json.dumps({"type": "object", "properties": {"a": {"$ref": "https://example.com/b.json"}}}))
    code, out, err = wirecheck("diff-schemas", str(old), str(new))  # remote: never fetched
    assert code == 2 and ("new.json#/properties/a/$ref: 'https://example.com/b.json' leads to "
                          "https://example.com/b.json, another file: give it with --ref-map") in err


def test_annotation_changes_pass_the_gate_and_are_listed_only_when_asked(tmp_path: Path) -> None:
    import yaml

    case = yaml.safe_load((PAIRS / "ANNOTATION_CHANGED.yaml").read_text())
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(case["before"]))
    new.write_text(json.dumps(case["after"]))
    code, out, _ = wirecheck("diff-schemas", str(old), str(new), "--fail-on", "warning")
    assert code == 0 and "ANNOTATION_CHANGED" not in out
    code, out, _ = wirecheck("diff-schemas", str(old), str(new), "--annotations", "--fail-on", "warning")
    assert code == 0 and "[ANNOTATION_CHANGED]" in out and "annotations at / changed: discriminator" in out


def test_diff_schemas_locations_name_the_users_files(tmp_path: Path) -> None:
    old, new = tmp_path / "a1.json", tmp_path / "a2.json"
    for path, kind in ((old, "string"), (new, "integer")):
        path.write_text(json.dumps({"type": "object", "required": ["a"], "properties": {"a": {"type": kind}}},
                                   indent=2))
    code, out, _ = wirecheck("diff-schemas", "a1.json", "a2.json", cwd=tmp_path)
    assert code == 1 and "schema a1.json → a2.json" in out and "old.json" not in out
    assert "(root): forward ✗" in out and "(tolerant, strict)" not in out and "a: type changed from" in out
    code, out, _ = wirecheck("diff-schemas", "a1.json", "a2.json", "--format", "sarif", cwd=tmp_path)
    [result] = json.loads(out)["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"] == {"artifactLocation": {"uri": "a2.json"},
                                                          "region": {"startLine": 7}}  # "a" under "properties"
    new.write_text(json.dumps({"$id": "https://example.com/s/user.json", **json.loads(new.read_text())}))
    code, out, _ = wirecheck("diff-schemas", "a1.json", "a2.json", cwd=tmp_path)
    assert "user.json" in out


@pytest.mark.parametrize(("name", "content", "message"), [
    ("draft-03.json", {"$schema": "http://json-schema.org/draft-03/schema#", "type": "object"},
     "#/$schema: declares 'http://json-schema.org/draft-03/schema#', not a draft wirecheck reads"),
    ("dynamic.json", {"properties": {"a": {"$dynamicRef": "#x"}}},
     "#/properties/a/$dynamicRef: $dynamicRef is resolved while validating (dynamic scope)"),
    ("recursive.json", {"$schema": "https://json-schema.org/draft/2019-09/schema", "$recursiveAnchor": True,
                        "properties": {"a": {"$recursiveRef": "#"}}}, "#/properties/a/$recursiveRef: $recursiveRef"),
    ("draft-04-bound.json", {"$schema": "http://json-schema.org/draft-04/schema#", "properties": {
        "n": {"exclusiveMaximum": True}}}, "#/properties/n: not a valid draft-04 schema: 'maximum' is a dependency"),
    ("embedded-draft.json", {"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {
        "s": {"$schema": "http://json-schema.org/draft-04/schema#", "$id": "s.json"}}},
     "#/definitions/s/$schema: declares 'http://json-schema.org/draft-04/schema#' inside a draft-07 schema"),
    ("metaschema-ref.json", {"$schema": "http://json-schema.org/draft-07/schema#",
                             "properties": {"s": {"$ref": "http://json-schema.org/draft-07/schema#"}}},
     "#/properties/s/$ref: 'http://json-schema.org/draft-07/schema#' leads to http://json-schema.org/draft-07/"
     "schema, another file: give it with --ref-map"),
    ("no-anchor.json", {"properties": {"a": {"$ref": "#nowhere"}}}, "#/properties/a/$ref: '#nowhere': no anchor"),
    ("dangling.json", {"$defs": {"U": {"$ref": "#/$defs/Missing"}}}, "#/$defs/U/$ref: '#/$defs/Missing' points at"),
    ("ref-loop.json", {"$defs": {"M": {"anyOf": [{"$ref": "#/$defs/M"}, {"type": "string"}]}}},
     "#/$defs/M/anyOf/0/$ref: a $ref loop that reads no part of the message: /$defs/M → /$defs/M/anyOf/0 → /$defs/M"),
    ("deep.json", json.loads('{"type":"object","properties":{"a":' * 100 + "{}" + "}}" * 100),
     "the schema nests more than 128 levels deep"),
    ("python-regex.json", {"pattern": "(?P<n>a)"}, '#/pattern: not a valid 2020-12 schema: "(?P<n>a)" is not an '
     "ECMA-262 regular expression"),
    ("bad-type.json", {"properties": {"a": {"type": "strnig"}}}, "#/properties/a/type: not a valid 2020-12 schema:"),
    ("date.yaml", "const: 2024-01-01\n", "date.yaml#/const: YAML that is not JSON: datetime.date(2024, 1, 1) is a"),
    ("nan.yaml", "properties: {a: {const: .nan}}\n",
     "nan.yaml: line 1, column 25 (/properties/a/const): .nan is not a JSON"),
    ("binary.yaml", "enum: [a, !!binary aGk=]\n",
     "binary.yaml: line 1, column 11 (/enum/1): YAML binary data (!!binary) is not"),
    ("loop.yaml", "allOf: &a\n  - allOf: *a\n", "loop.yaml: not valid YAML: an alias contains itself"),
    ("bomb.yaml", "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(7)),
     "bomb.yaml: not valid YAML: the document holds more than 1,000,000 values once its aliases"),
    ("int-key.yaml", "properties: {1: {}}\n", "int-key.yaml#/properties: YAML that is not JSON: the key 1 is a"),
    ("dup.json", '{"properties": {"a": {}, "a": {"type": "string"}}}', "dup.json#/properties/a: duplicate key 'a'"),
    ("nan.json", '{"maximum": NaN}', "nan.json: not valid JSON: NaN is not valid JSON"),
    ("empty.yaml", "  \n", "the file is empty"),
    ("latin-1.json", b"\xff\xfe{}", "not UTF-8 text (byte 0: invalid start byte)"),
])
def test_diff_schemas_refuses_what_it_cannot_compare_soundly(tmp_path: Path, name: str, content, message: str) -> None:
    """A dialect wirecheck does not read, dynamic references, references out of the file, a schema its own
    draft's meta-schema rejects, and YAML that JSON cannot hold would be compared under the wrong meaning (or
    crash): each is a usage error that says what and where (in the file as written), never a verdict."""
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    plain = tmp_path / "plain.json"
    plain.write_text('{"type": "object"}')
    code, _, err = wirecheck("diff-schemas", str(path), str(plain))
    assert code == 2 and message in err, err


@pytest.mark.parametrize("suffix", [".json", ".yaml"])
def test_diff_schemas_reads_bounds_beyond_64_bits_exactly(tmp_path: Path, suffix: str) -> None:
    """orjson reads 2^100 as the nearest float and cannot write it: the bound must be compared, shown and
    witnessed as written, in every format."""
    old, new = tmp_path / f"old{suffix}", tmp_path / f"new{suffix}"
    bound = 2 ** 100
    old.write_text(f'{{"type": "integer", "maximum": {bound}}}')  # JSON is YAML too
    new.write_text(f'{{"type": "integer", "maximum": {bound + 1}}}')
    code, out, err = wirecheck("diff-schemas", str(old), str(new))
    assert code == 1 and f"changed from {bound} to {bound + 1}" in out, err
    assert f"witness forward/tolerant {bound + 1} " in out
    for fmt in ("json", "sarif", "markdown", "junit", "html"):
        code, out, err = wirecheck("diff-schemas", str(old), str(new), "--format", fmt)
        assert code == 1 and str(bound + 1) in out, (fmt, err)


def test_diff_schemas_accepts_ecma_regexes_and_reports_an_unwritable_output(tmp_path: Path) -> None:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps({"type": "string", "pattern": "^\\p{L}+$"}))  # ECMA-262, not Python's re
    new.write_text(json.dumps({"type": "string", "pattern": "^(?<w>\\p{Lu})+$"}))
    code, out, err = wirecheck("diff-schemas", str(old), str(new))
    assert code == 1 and "PATTERN_CHANGED" in out, err
    code, out, err = wirecheck("diff-schemas", str(old), str(new), "-f", "sarif", "-o", str(tmp_path / "d.sarif"))
    assert code == 1 and "gate --fail-on breaking: fail" in out and out.endswith(f"report: {tmp_path / 'd.sarif'}\n")
    # counted as the human reports count, in changes (it said "1 release pair(s), 1 error(s), 0 warning(s)")
    assert re.match(r"wirecheck diff: 1 release pair, 1 change: 1 error, 0 warnings, 0 info; gate ", out), out
    code, _, err = wirecheck("diff-schemas", str(old), str(old), "-o", str(tmp_path))
    assert code == 2 and f"{tmp_path}: cannot write" in err
    code, _, err = wirecheck("diff-schemas", str(old), str(new), "-f", "bogus")
    assert code == 2 and "--format bogus: expected one of text, markdown, json" in err


def test_a_schema_that_refers_to_itself_is_refused(tmp_path: Path) -> None:
    """`{"$ref": "#"}` never reads the payload: python-jsonschema recurses forever, jsonschema-rs accepts anything.
    2020-12 calls it invalid; judging it either way would be a guess."""
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps({"$ref": "#"}))
    new.write_text(json.dumps({"type": "object"}))
    code, _, err = wirecheck("diff-schemas", str(old), str(new))
    assert code == 2 and "old.json#/$ref: a $ref loop that reads no part of the message: / → /" in err, err


def test_rules_prints_both_catalogues() -> None:
    code, out, _ = wirecheck("rules")
    assert code == 0
    assert "Conformance checks (wirecheck validate)" in out and "Diff rules (wirecheck diff)" in out
    assert "SCHEMA_VIOLATION" in out and "PROPERTY_ADDED_TO_CLOSED_MODEL" in out
    code, out, _ = wirecheck("rules", "--format", "json", "--section", "diff")
    data = json.loads(out)
    assert data["checks"] == [] and {"id", "breaks", "bump"} <= set(data["diff"][0])


def _committed_contracts(tmp_path: Path) -> tuple[Path, list[str]]:
    """A git repository whose contracts/ (the shop catalogs) is committed, then edited: a value added to an enum."""
    repo = tmp_path / "repo"
    shutil.copytree(CATALOGS, repo / "contracts")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "contracts"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "contracts"], check=True)
    stream = repo / "contracts/shop/2.0.0/stream.json"
    stream.write_text(stream.read_text().replace('"enum": ["busy", "idle"]', '"enum": ["busy", "idle", "paused"]'))
    return repo, git


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_against_a_git_ref(tmp_path: Path) -> None:
    repo, git = _committed_contracts(tmp_path)
    contracts = repo / "contracts"
    code, out, _ = wirecheck("diff", "--against", "HEAD", "shop@2.0.0", contracts=contracts)
    assert code == 1 and "ENUM_VALUE_ADDED" in out and '"state":"paused"' in out
    code, out, _ = wirecheck("diff", "--against", "HEAD", "shop@1.0.1", contracts=contracts)
    assert code == 0
    code, _, err = wirecheck("diff", "--against", "no-such-ref", contracts=contracts)
    assert code == 2 and "no-such-ref" in err
    # a contract that is broken at the ref is named as git names it, not by the temporary copy
    subprocess.run([*git, "add", "contracts"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "paused"], check=True)
    catalog = repo / "contracts/shop/1.0.1/catalog.yaml"
    catalog.write_text(catalog.read_text().replace("channel: stdio-ndjson", "channel: pigeon", 1))
    subprocess.run([*git, "commit", "-q", "-am", "broken"], check=True)
    catalog.write_text(catalog.read_text().replace("channel: pigeon", "channel: stdio-ndjson", 1))
    code, _, err = wirecheck("diff", "--against", "HEAD", "shop@1.0.1", contracts=contracts)
    assert code == 2 and "wirecheck-against" not in err
    assert "HEAD:contracts/shop/1.0.1/catalog.yaml#/kinds/0/channel" in err
    registry = repo / "contracts/registry.yaml"
    good = registry.read_text()
    registry.write_text(good + "  broken: {}\n")
    subprocess.run([*git, "commit", "-q", "-am", "broken registry"], check=True)
    registry.write_text(good)
    code, _, err = wirecheck("diff", "--against", "HEAD", "shop@1.0.1", contracts=contracts)
    assert code == 2 and "HEAD:contracts/registry.yaml" in err and "wirecheck-against" not in err


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_against_without_contracts_compares_the_checkouts_contracts_folder(tmp_path: Path) -> None:
    """`diff --against HEAD` alone (the Action's `command: diff, against: HEAD`, the pre-commit hook) compares
    contracts/ at the top of the checkout it runs in, from any folder of it; where there is none, one line says
    which flag is missing (issue 42, 1: the installed contracts, "not inside a git checkout", three times)."""
    repo, _ = _committed_contracts(tmp_path)
    (repo / "src").mkdir()
    env = {k: v for k, v in os.environ.items() if k != "WIRECHECK_CONTRACTS"}
    env["GIT_CEILING_DIRECTORIES"] = str(tmp_path)  # `outside` is in no checkout, wherever the tests run

    def diff(cwd: Path, *args: str):
        proc = subprocess.run([sys.executable, "-m", "wirecheck", "diff", "--against", "HEAD", *args], cwd=cwd,
                              env=env, capture_output=True, text=True, timeout=120)
        assert "Traceback" not in proc.stderr
        return proc.returncode, proc.stdout, proc.stderr

    for cwd in (repo, repo / "src"):
        code, out, err = diff(cwd)
        assert code == 1 and "ENUM_VALUE_ADDED" in out and "shop 2.0.0 (HEAD) → 2.0.0" in out, err
        assert "xopc" not in out  # the installed contracts are not what is compared
    bare = tmp_path / "no-contracts"
    bare.mkdir()
    subprocess.run(["git", "-C", str(bare), "init", "-q"], check=True)
    code, out, err = diff(bare)
    assert code == 2 and out == ""
    assert err.splitlines() == [f"wirecheck: error: --against HEAD: no contracts/registry.yaml at the top of the "
                                f"checkout {bare.resolve()}: give --contracts FOLDER, the contracts folder to compare "
                                "with HEAD"]
    outside = tmp_path / "outside"
    outside.mkdir()
    code, _, err = diff(outside, "--format", "json")
    assert code == 2 and len(err.splitlines()) == 1
    assert "is not inside a git checkout: run it in one, or give --contracts FOLDER" in err


def _chain(root: Path, properties: dict[str, dict]) -> Path:
    """A package `tp` whose releases (in order) each hold one closed `result` kind with the given properties."""
    root.mkdir(exist_ok=True)
    (root / "registry.yaml").write_text(
        "packages:\n  tp:\n    title: t\n    releases: [" + ", ".join(f'"{v}"' for v in properties) + "]\n")
    for version, extra in properties.items():
        folder = root / "tp" / version
        folder.mkdir(parents=True)
        (folder / "catalog.yaml").write_text(
            f"package: tp\nversion: {version}\ntitle: t\nsources:\n  guess: {{type: inferred, ref: x}}\n"
            "roles: [p, r]\nkinds:\n  - id: result\n    title: R\n    channel: stdio-ndjson\n    producer: p\n"
            "    consumer: r\n    selector:\n      fields: {/type: result}\n    schema: s.json#/$defs/R\n"
            "    provenance: {source: [guess]}\n")
        (folder / "s.json").write_text(json.dumps({
            "$id": f"https://contracts.wirecheck.invalid/tp/{version}/s.json",
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$defs": {"R": {"type": "object", "required": ["type"], "additionalProperties": False,
                            "properties": {"type": {"const": "result"}, **extra}}}}))
    return root


def test_a_package_run_fails_on_a_break_that_only_a_jump_across_releases_shows(tmp_path: Path) -> None:
    # a: string, then removed, then re-added as an integer: each step breaks only closed-model consumers
    # (warnings), but 1.0.0 → 2.1.0 changes a's type, which breaks every consumer (an error)
    root = _chain(tmp_path, {"1.0.0": {"a": {"type": "string"}}, "2.0.0": {}, "2.1.0": {"a": {"type": "integer"}}})
    code, out, _ = wirecheck("diff", "tp", contracts=root)
    assert code == 1 and "tp 1.0.0 → 2.1.0 (skips releases)" in out and "TYPE_CHANGED" in out
    # the jump's answer is one line under its own heading (what to do follows from the steps)
    assert "  longer jumps that break where no single step shows it:\n    tp 1.0.0 → 2.1.0: breaking" in out
    assert "tp transitive (every earlier → every later release): forward/strict breaking" in out
    assert "3 release pairs" in out and "3 changes: 1 error, 2 warnings, 0 info" in out
    code, out, _ = wirecheck("diff", "tp", "--fail-on", "never", contracts=root)
    assert code == 0 and "skips releases" not in out  # nothing gates: the steps alone
    same = _chain(tmp_path / "same", {"1.0.0": {"a": {"type": "string"}}, "1.1.0": {"a": {"type": "integer"}},
                                      "1.2.0": {"a": {"type": "integer"}, "b": {"type": "string"}}})
    code, out, _ = wirecheck("diff", "tp", contracts=same)  # the jump's break is the first step's: not repeated
    assert code == 1 and "skips releases" not in out and out.count("TYPE_CHANGED") == 1


def test_a_ref_inside_a_value_is_data_not_a_reference(tmp_path: Path) -> None:
    """`const`, `default` and `examples` hold values: a "$ref" member there points nowhere and must not be followed."""
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    data = {"const": {"$ref": "#/x"}, "default": {"$ref": "#/nope"}, "examples": [{"$ref": "#/y"}]}
    old.write_text(json.dumps({"type": "object", "properties": {"a": data}}))
    new.write_text(json.dumps({"type": "object", "properties": {"a": {**data, "const": {"$ref": "#/z"}}}}))
    code, out, err = wirecheck("diff-schemas", str(old), str(new))
    assert code == 1 and "CONST_CHANGED" in out, out + err



def test_control_characters_in_schema_names_are_escaped_in_text_and_markdown(tmp_path: Path) -> None:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps({"type": "object", "properties": {"\x1b[2Jx": {"type": "string"}}}))
    new.write_text(json.dumps({"type": "object", "properties": {"\x1b[2Jx": {"type": "integer"}}}))
    for fmt in ("text", "markdown"):
        code, out, _ = wirecheck("diff-schemas", str(old), str(new), "--format", fmt)
        assert code == 1 and "\\x1b[2Jx" in out and "\x1b" not in out, out
