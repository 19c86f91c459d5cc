"""Loading contracts: every malformed catalog or schema is a ContractError naming the file and the pointer."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest
import yaml

from wirecheck.contracts import ContractError, load_registry, load_release
from wirecheck.contracts.errors import ContractProblem, located
from wirecheck.contracts.views import tolerant_view

DEMO = Path(__file__).resolve().parents[1] / "data" / "contracts"


@pytest.fixture
def contracts(tmp_path):
    root = tmp_path / "contracts"
    shutil.copytree(DEMO, root)
    return root


def edit_catalog(root: Path, change) -> None:
    path = root / "demo/1.0.0/catalog.yaml"
    catalog = yaml.safe_load(path.read_text())
    change(catalog)
    path.write_text(yaml.safe_dump(catalog, sort_keys=False))


def edit_schema(root: Path, name: str, change) -> None:
    path = root / "demo/1.0.0" / name
    schema = orjson.loads(path.read_bytes())
    change(schema)
    path.write_bytes(orjson.dumps(schema))


def problems(root: Path) -> list[tuple[str, str, str]]:
    load_release.cache_clear()
    with pytest.raises(ContractError) as info:
        load_release(root, "demo", "1.0.0")
    return [(Path(p.file).name, p.pointer, p.message) for p in info.value.problems]


def test_demo_loads_with_kinds_rules_and_provenance(demo):
    assert demo.name == "demo@1.0.0"
    assert demo.kind("request.ping").reply is not None
    assert demo.kind("hello").provenance.sources == ("test",)
    assert [r.id for r in demo.rules] == ["FIRST_MESSAGE_IS", "FIELDS_EQUAL"]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda c: c["kinds"][0].pop("channel"), ("catalog.yaml", "/kinds/0", "missing required member channel")),
        (lambda c: c["kinds"][0].update(channel="pigeon"), ("catalog.yaml", "/kinds/0/channel", None)),
        (lambda c: c["kinds"][1].update(id="hello"), ("catalog.yaml", "/kinds/1/id", "duplicate kind id 'hello'")),
        (lambda c: c["kinds"][0].update(producer="martian"), ("catalog.yaml", "/kinds/0/producer", None)),
        (lambda c: c["kinds"][0].update(schema="nope.json#/$defs/X"), ("catalog.yaml", "/kinds/0/schema", None)),
        (
            lambda c: c["kinds"][0].update(schema="stream.json#/$defs/Missing"),
            ("catalog.yaml", "/kinds/0/schema", None),
        ),
        (
            lambda c: c["kinds"][1].update(selector={"fields": {"/type": "hello"}}),
            ("catalog.yaml", "/kinds/1/selector", "same selector as kind 'hello'"),
        ),
        (
            lambda c: c["rules"][0].update(id="NO_SUCH_RULE"),
            ("catalog.yaml", "/rules/0/id", "unknown rule 'NO_SUCH_RULE'"),
        ),
        (
            lambda c: c["rules"][0].update(params={"kynd": "hello", "from": "server"}),
            ("catalog.yaml", "/rules/0/params", "FIRST_MESSAGE_IS: missing parameter 'kind'"),
        ),
        (
            lambda c: c["rules"][1].update(params={"left": "no-slash", "right": "/id"}),
            ("catalog.yaml", "/rules/1/params", "FIELDS_EQUAL: parameters not usable"),
        ),
        (lambda c: c["kinds"][3].update(answers="zzz.*"), ("catalog.yaml", "/kinds/3/answers", None)),
        (
            lambda c: c["kinds"][0]["provenance"].update(source="rumour"),
            ("catalog.yaml", "/kinds/0/provenance/source", None),
        ),
        (lambda c: c.update(version="9.9.9"), ("catalog.yaml", "/version", "expected '1.0.0', found '9.9.9'")),
        (lambda c: c["kinds"][0].update(schema="stream.json#/$defs/Nope"),
         ("catalog.yaml", "/kinds/0/schema", "'stream.json#/$defs/Nope' does not resolve")),
    ],
)
def test_malformed_catalog_is_located(contracts, change, expected):
    edit_catalog(contracts, change)
    found = problems(contracts)
    file, pointer, message = expected
    assert any(f == file and p == pointer and (message is None or message in m) for f, p, m in found), found


def test_catalog_that_is_not_yaml(contracts):
    (contracts / "demo/1.0.0/catalog.yaml").write_text("kinds: [unclosed\n")
    ((file, _, message),) = problems(contracts)
    assert file == "catalog.yaml" and "not valid YAML: line 2" in message


@pytest.mark.parametrize(
    ("change", "pointer", "message"),
    [
        (lambda s: s.update({"$id": "https://elsewhere.invalid/x.json"}), "/$id", "expected 'https://contracts"),
        (lambda s: s.update({"$schema": "http://json-schema.org/draft-07/schema#"}), "/$schema", "expected"),
        (lambda s: s["$defs"]["Hello"].update(type="strnig"), "/$defs/Hello/type", "not a valid 2020-12 schema"),
        (lambda s: s["$defs"]["Hello"].update(required="type"), "/$defs/Hello/required", "not a valid 2020-12 schema"),
        # jsonschema-rs applies a 2020-12 `dependencies`, python-jsonschema ignores it: validate would disagree
        (lambda s: s["$defs"]["Hello"].update(dependencies={"a": ["b"]}), "/$defs/Hello/dependencies",
         "write dependentRequired"),
    ],
)
def test_malformed_schema_is_located(contracts, change, pointer, message):
    edit_schema(contracts, "stream.json", change)
    found = problems(contracts)
    assert any(f == "stream.json" and p == pointer and message in m for f, p, m in found), found


def test_schema_file_that_is_not_json(contracts):
    (contracts / "demo/1.0.0/http.json").write_text("{oops")
    assert any(f == "http.json" and "not valid JSON" in m for f, _, m in problems(contracts))


def test_a_duplicate_key_in_a_schema_file_is_located(contracts):
    """A JSON parser keeps one of the two (orjson the last): which one the author meant is not ours to guess."""
    path = contracts / "demo/1.0.0/http.json"
    text = path.read_text()
    path.write_text(text.replace('"Discovery": {', '"Discovery": {"type": "string", ', 1))
    assert ("http.json", "/$defs/Discovery/type", "duplicate key 'type' in an object") in problems(contracts)


def test_ref_to_the_network_is_never_fetched(contracts):
    edit_schema(
        contracts,
        "stream.json",
        lambda s: s["$defs"]["Hello"]["properties"].update(x={"$ref": "https://example.com/s.json"}),
    )
    assert problems(contracts) == [("stream.json", "/$defs/Hello/properties/x/$ref",
                                    "'https://example.com/s.json': no schema file 'https://example.com/s.json' in "
                                    "the release (references resolve offline, within the release)")]


@pytest.mark.parametrize(
    ("ref", "message"),
    [("nope.json#/$defs/X", "'nope.json#/$defs/X': no schema file 'nope.json' in the release"),
     ("#/$defs/Nope", "'#/$defs/Nope': stream.json has nothing at #/$defs/Nope"),
     ("http.json#/$defs/Nope/0", "'http.json#/$defs/Nope/0': http.json has nothing at #/$defs/Nope/0")],
)
def test_a_ref_that_leads_nowhere_is_located_where_it_is_written_once(contracts, ref, message):
    edit_schema(contracts, "stream.json", lambda s: s["$defs"]["Hello"]["properties"].update(x={"$ref": ref}))
    [(file, pointer, text)] = problems(contracts)  # not once per kind whose schema reaches it
    assert (file, pointer) == ("stream.json", "/$defs/Hello/properties/x/$ref") and text.startswith(message)


@pytest.mark.parametrize(
    ("loop", "pointer", "message"),
    [
        ({"oneOf": [{"$ref": "#/$defs/Loop"}, {"type": "null"}]}, "/$defs/Loop/oneOf/0/$ref",
         "/$defs/Loop → /$defs/Loop/oneOf/0 → /$defs/Loop"),
        ({"$ref": "#/$defs/Other"}, "/$defs/Other/allOf/0/$ref",
         "/$defs/Loop → /$defs/Other → /$defs/Other/allOf/0 → /$defs/Loop"),
        ({"allOf": [{"$ref": "#/$defs/Loop/allOf/0"}]}, "/$defs/Loop/allOf/0/$ref",  # an array index in the $ref
         "/$defs/Loop/allOf/0 → /$defs/Loop/allOf/0"),
    ],
)
def test_a_ref_loop_that_reads_nothing_is_a_contract_error(contracts, loop, pointer, message):
    """Validators either never finish such a schema or accept anything against it; both hide a contract bug."""
    def change(schema):
        schema["$defs"]["Loop"] = loop
        schema["$defs"]["Other"] = {"allOf": [{"$ref": "#/$defs/Loop"}]}
    edit_schema(contracts, "stream.json", change)
    [(file, where, text)] = problems(contracts)
    assert (file, where) == ("stream.json", pointer) and text.endswith(message), text


def test_recursion_that_descends_into_the_message_is_no_loop(contracts):
    edit_schema(contracts, "stream.json", lambda s: s["$defs"].update(
        Tree={"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}},
              "anyOf": [{"required": ["kids"]}, {"$ref": "#/$defs/Leaf"}]},
        Leaf={"properties": {"up": {"$ref": "#/$defs/Tree"}}}))
    load_release.cache_clear()
    load_release(contracts, "demo", "1.0.0")


def test_refs_in_data_and_escaped_pointers_are_read_as_json_schema_means_them(contracts):
    def change(schema):
        schema["$defs"]["a b~/c"] = {"type": "string"}
        schema["$defs"]["Hello"]["properties"].update(
            x={"$ref": "#/$defs/a%20b~0~1c"},  # percent-encoded in the URI, escaped in the pointer
            y={"const": {"$ref": "nope.json"}},  # a value, not a reference
            z={"examples": [{"$ref": "#/nowhere"}]},
        )
    edit_schema(contracts, "stream.json", change)
    load_release.cache_clear()
    load_release(contracts, "demo", "1.0.0")


def test_a_listed_release_without_a_folder_is_located_in_the_registry(contracts):
    path = contracts / "registry.yaml"
    path.write_text(path.read_text().replace('releases: ["1.0.0"]', 'releases: ["1.0.0", "1.1.0"]'))
    load_registry.cache_clear()
    registry = load_registry(contracts)
    with pytest.raises(ContractError) as info:
        registry.load("demo@1.1.0")
    [problem] = info.value.problems
    assert (Path(problem.file).name, problem.pointer) == ("registry.yaml", "/packages/demo/releases/1")
    assert "1.1.0 is listed, but demo/1.1.0/catalog.yaml does not exist" in problem.message
    assert [spec for spec, _ in registry.load_all()[1]] == ["demo@1.1.0"]


def test_a_release_folder_the_registry_does_not_list_is_reported(contracts):
    shutil.copytree(contracts / "demo/1.0.0", contracts / "demo/0.9.0")
    load_registry.cache_clear()
    [problem] = load_registry(contracts).unlisted()
    assert (problem.pointer, problem.message) == (
        "/packages/demo/releases", "0.9.0 is not listed, but demo/0.9.0/catalog.yaml exists (add it in release order)")


def test_no_bundled_release_folder_is_unlisted():
    load_registry.cache_clear()
    assert load_registry().unlisted() == []


def test_registry_resolves_npm_names_and_reports_unknowns(demo_registry):
    assert demo_registry.resolve("demo@1.0.0") == ("demo", "1.0.0")
    with pytest.raises(ContractError, match=r"unknown release '2\.0\.0' of demo; known: 1\.0\.0"):
        demo_registry.resolve("demo@2.0.0")
    with pytest.raises(ContractError, match=r"unknown package 'nope'; known: demo"):
        demo_registry.resolve("nope@1.0.0")
    with pytest.raises(ContractError, match="expected <package>@<version>"):
        demo_registry.resolve("demo")
    assert demo_registry.previous("demo", "1.0.0") is None


def test_registry_file_is_validated(tmp_path):
    (tmp_path / "registry.yaml").write_text("packages:\n  Bad_Name:\n    title: x\n    releases: [one]\n")
    load_registry.cache_clear()
    with pytest.raises(ContractError) as info:
        load_registry(tmp_path)
    assert {p.pointer for p in info.value.problems} >= {"/packages"}


def test_tolerant_view_drops_only_closing_keywords():
    schema = {
        "type": "object",
        "additionalProperties": False,
        "properties": {"a": {"unevaluatedProperties": False, "additionalProperties": {"type": "string"}}},
    }
    assert tolerant_view(schema) == {
        "type": "object",
        "properties": {"a": {"additionalProperties": {"type": "string"}}},
    }
    assert schema["additionalProperties"] is False  # not modified


def test_tolerant_view_leaves_data_and_property_names_alone():
    schema = {
        "properties": {"additionalProperties": False, "b": {"const": {"additionalProperties": False}}},
        "anyOf": [{"additionalProperties": False}, {"enum": [{"unevaluatedProperties": False}]}],
        "$defs": {"unevaluatedProperties": {"type": "object", "unevaluatedProperties": False}},
    }
    assert tolerant_view(schema) == {
        "properties": {"additionalProperties": False, "b": {"const": {"additionalProperties": False}}},
        "anyOf": [{}, {"enum": [{"unevaluatedProperties": False}]}],
        "$defs": {"unevaluatedProperties": {"type": "object"}},
    }


def test_tolerant_view_accepts_everything_the_strict_view_does_even_under_not_and_if():
    """Opening `additionalProperties: false` inside `not` would make the view narrower: {"a": 1, "z": 2} passes
    `not {closed a}` strictly, and would fail `not {open a}`."""
    from wirecheck.contracts.reference import reference_validator

    closed = {"type": "object", "properties": {"a": {}}, "required": ["a"], "additionalProperties": False}
    schema = {"not": closed, "if": closed, "then": {"required": ["b"]}, "properties": {"c": closed}}
    view = tolerant_view(schema)
    assert view["not"] == closed and view["if"] == closed and view["properties"]["c"] == {
        "type": "object", "properties": {"a": {}}, "required": ["a"]}
    for payload in ({"a": 1, "z": 2}, {"a": 1, "b": 2}, {"c": {"a": 1, "x": 1}}, {"a": 1}, {}):
        if reference_validator(schema, {}).is_valid(payload):
            assert reference_validator(view, {}).is_valid(payload), payload


@pytest.mark.parametrize(
    ("consumer", "pointer", "message"),
    [
        ({"kind": "config.file", "contract": "nopkg@1.0.0", "as": "x"}, "/consumers/0/contract", "unknown package"),
        ({"kind": "config.file", "contract": "demo@1.0.0", "as": "nothing"}, "/consumers/0/as", "has no kind"),
    ],
)
def test_consumer_contracts_are_checked_at_load(contracts, consumer, pointer, message):
    edit_catalog(contracts, lambda c: c.update(consumers=[consumer]))
    found = problems(contracts)
    assert any(p == pointer and message in m for _, p, m in found), found


def test_problems_shown_name_the_line_their_pointer_leads_to(contracts):
    """Loading stays fast (no line bookkeeping); what is shown reads the file again and finds each pointer's line."""
    edit_catalog(contracts, lambda c: c["kinds"][1].update(channel="htttp"))
    edit_schema(contracts, "stream.json", lambda s: s["$defs"]["Hello"].update(type="strnig"))
    load_release.cache_clear()
    with pytest.raises(ContractError) as info:
        load_release(contracts, "demo", "1.0.0")
    shown = {(Path(p.file).name, p.pointer): p for p in located(info.value.problems)}
    catalog_lines = (contracts / "demo/1.0.0/catalog.yaml").read_text().splitlines()
    channel = shown["catalog.yaml", "/kinds/1/channel"]
    assert catalog_lines[channel.line - 1].strip() == "channel: htttp"
    assert str(channel).endswith(f"(line {channel.line})")
    assert shown["stream.json", "/$defs/Hello/type"].line == 1  # orjson wrote it on one line


def test_located_reaches_as_far_as_the_pointer_exists_and_leaves_the_rest(tmp_path):
    data = tmp_path / "d.yaml"
    data.write_text("a:\n  b:\n    - x\n    - {c: 1}\n")
    far = [ContractProblem(str(data), p, "m") for p in ("/a/b/1/c", "/a/b/1/zz", "/a/b/7", "/a", "")]
    assert [p.line for p in located(far)] == [4, 4, 3, 2, None]  # a missing key: its object; an item: the list
    assert located([ContractProblem(str(tmp_path / "gone.yaml"), "/a", "m")])[0].line is None
    (tmp_path / "bad.yaml").write_text("a: [unclosed\n")
    assert located([ContractProblem(str(tmp_path / "bad.yaml"), "/a", "m")])[0].line is None
    assert located([ContractProblem("", "", "unknown package")])[0].line is None


@pytest.mark.parametrize(
    ("field", "why"),
    [({"type": "string", "x-wirecheck-version-stamp": True}, "marks a version stamp, which is a `const` beside it"),
     ({"const": "1.0.0", "x-wirecheck-version-stamp": "yes"}, "must be true")],
)
def test_a_misused_version_stamp_annotation_is_a_contract_error(contracts, field, why):
    edit_schema(contracts, "stream.json", lambda s: s["$defs"]["Hello"]["properties"].update(v=field))
    [(file, pointer, text)] = problems(contracts)
    assert (file, pointer) == ("stream.json", "/$defs/Hello/properties/v/x-wirecheck-version-stamp")
    assert text == f"x-wirecheck-version-stamp: {why}"


@pytest.mark.parametrize("pattern", ["(?i)^abc$", "[[:alpha:]]", "\\x{41}", "a++", "\\pL", "\\Aabc\\z", "a{2}{3}",
                                     "(?P<n>a)"])
def test_a_pattern_that_is_not_ecma_262_is_a_contract_error_at_load(contracts, pattern):
    """ajv compiles a pattern as `new RegExp(pattern, "u")` and throws on these (some are PCRE, Python or Rust,
    some pass only without the `u` flag): loaded, fuzz and diff ended with exit 3 and validate judged them with
    Rust semantics. Each is refused once, at load, where it is written, as a pattern or a patternProperties key."""
    edit_schema(contracts, "stream.json", lambda s: s["$defs"]["Hello"].update(
        pattern=pattern, patternProperties={pattern: {}, "^ok$": {}}))
    found = problems(contracts)
    why = f"not a valid 2020-12 schema: {orjson.dumps(pattern).decode()} is not an ECMA-262 regular expression"
    for pointer in ("/$defs/Hello/pattern", f"/$defs/Hello/patternProperties/{pattern}"):
        assert any(f == "stream.json" and p == pointer and m.startswith(why) for f, p, m in found), found
    assert not any(p.endswith("/^ok$") for _, p, _ in found)


def test_ecma_262_patterns_with_the_u_flag_load(contracts):
    edit_schema(contracts, "stream.json", lambda s: s["$defs"]["Hello"].update(
        pattern="^\\p{L}+\\u{1F600}?$", patternProperties={"^[\\w-]+$": {}, "(?<n>a)(?=b)": {}}))
    load_release.cache_clear()
    load_release(contracts, "demo", "1.0.0")


def test_a_release_past_its_value_limit_is_refused_before_its_schemas_are_checked(contracts, monkeypatch):
    """A 1M-value enum cost validate / fuzz / fuzz --invalid 654 / 735 / 951 MiB: a release's schema files hold
    at most MAX_RELEASE_VALUES JSON values (the limit shown in the README), and the message says so."""
    from wirecheck.contracts import loader

    edit_schema(contracts, "stream.json", lambda s: s["$defs"]["Hello"].update(enum=list(range(60_000))))
    found = problems(contracts)
    assert found == [("stream.json", "", "the release's schema files hold more than 50,000 JSON values, the most "
                                         "wirecheck loads of a contract release (see Limits in the README)")]
    monkeypatch.setattr(loader, "MAX_RELEASE_VALUES", 200)  # counted over every file of the release
    assert any("hold more than 200 JSON values" in m for *_, m in problems(contracts))


def test_a_release_past_its_size_limit_is_refused_by_size(contracts, monkeypatch):
    """Each file is read within what is left of MAX_RELEASE_BYTES (a 300 MB schema was exit 3): http.json is read
    first, and stream.json takes the release past 16 KiB."""
    from wirecheck.contracts import loader

    schema = contracts / "demo/1.0.0/stream.json"
    schema.write_bytes(schema.read_bytes()[:-1] + b', "description": "' + b"x" * 20_000 + b'"}')
    monkeypatch.setattr(loader, "MAX_RELEASE_BYTES", 16 << 10)
    assert problems(contracts) == [("stream.json", "", "the release's schema files hold more than 16 KiB, the most "
                                                       "wirecheck reads of a contract release (see Limits in the "
                                                       "README)")]


@pytest.mark.parametrize("name", ["stream.json", "catalog.yaml"])
def test_a_contract_file_that_is_a_device_is_refused_not_read(contracts, name):
    path = contracts / "demo/1.0.0" / name
    path.unlink()
    path.symlink_to("/dev/zero")
    assert (name, "", "is a device, not a contract " + ("schema file" if name.endswith(".json") else "file")
            + " (a device such as /dev/zero never ends)") in problems(contracts)


@pytest.mark.parametrize(("pattern", "message"), [
    ("(?i)^(?<provider>[^/]+)$", '"(?i)^(?<provider>[^/]+)$" is not an ECMA-262 regular expression'),
    ("^(?<provider>[^/]+", '"^(?<provider>[^/]+" is not an ECMA-262 regular expression'),
])
def test_an_argv_parse_pattern_is_checked_at_load_as_a_schema_pattern_is(tmp_path, pattern, message):
    """argv grammars (capture/argv.py) hold patterns too: one that is not ECMA-262 is a contract error at its
    pointer, not a crash when a capture is decoded."""
    bundled = Path(__file__).resolve().parents[2] / "contracts"
    root = tmp_path / "contracts"
    (root / "opencode-run").mkdir(parents=True)
    shutil.copytree(bundled / "opencode-run" / "1.0.0", root / "opencode-run" / "1.0.0")
    (root / "registry.yaml").write_text('packages:\n  opencode-run: {title: t, releases: ["1.0.0"]}\n')
    catalog = root / "opencode-run/1.0.0/catalog.yaml"
    written = f"parse: {orjson.dumps(pattern).decode()}"
    catalog.write_text(catalog.read_text().replace('parse: "^(?<provider>[^/]+)/(?<model>.+)$"', written))
    load_release.cache_clear()
    with pytest.raises(ContractError) as info:
        load_release(root, "opencode-run", "1.0.0")
    assert any(p.pointer.endswith("/argv_grammar/flags/3/parse") and message in p.message
               for p in info.value.problems), info.value.problems


def test_a_release_s_links_are_checked_against_one_registry(monkeypatch) -> None:
    """Every kind's schema link is resolved against the release's resources; building jsonschema-rs's registry of
    them once per link (ACP 1.9.0: 59 links) cost 0.16 s of every `wirecheck diff` of two ACP releases (issue 30,
    6). A link that does not resolve is still named (test_malformed_catalog_is_located: /kinds/0/schema)."""
    import jsonschema_rs

    built: list[int] = []
    real = jsonschema_rs.Registry

    def counted(*args, **kwargs):
        built.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(jsonschema_rs, "Registry", counted)
    release = load_registry().load("acp@1.9.0")
    links = sum(1 for k in release.kinds for link in (k.schema, k.headers, k.reply and k.reply.schema) if link)
    assert links > 50 and len(built) < 5
