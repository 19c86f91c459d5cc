"""Every YAML file wirecheck reads (catalogs, registry, requirement sets, baselines, waivers, scenarios) goes through
`read_yaml_file`: whatever is wrong with the file is one YamlFileError with a message, never another exception."""

from __future__ import annotations

from pathlib import Path

import pytest

from wirecheck.yaml_lines import LINE_KEY, YamlFileError, parse_yaml, read_yaml_file, strip_lines


@pytest.mark.parametrize(("content", "message"), [
    (b"expires: 2099-02-30\n", "a value YAML cannot build: day is out of range for month (quote dates"),
    (b"reason: caf\xe9\n", "not UTF-8 text (byte 11: invalid continuation byte)"),
    (b"a: [1,\n", "not valid YAML: line 2, column 1:"),
    (b"a: !!python/object:os.system {}\n", "not valid YAML:"),
    # the last of two equal keys would win in silence: a selector or a waiver quietly changed
    (b"kinds:\n  - selector:\n      /type: assistant\n      /type: assistant_v2\n",
     "not valid YAML: line 4, column 7: while reading a mapping"),
])
def test_a_file_that_cannot_be_read_is_one_error_with_a_message(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "f.yaml"
    path.write_bytes(content)
    for lines in (False, True):
        with pytest.raises(YamlFileError) as raised:
            read_yaml_file(path, lines=lines)
        assert raised.value.file == str(path) and message in raised.value.message


@pytest.mark.parametrize("content", [
    "password: hunter2\n  secret: ghp_TOKEN: 2\n",  # a mapping value where none may be
    "https://user:ghp_TOKEN@github.com\n: x\n",  # a credentials line, then text YAML cannot place
    "token: ghp_TOKEN\n\tmore: 1\n",  # a tab
])
def test_a_syntax_error_says_where_and_never_quotes_the_line(tmp_path: Path, content: str) -> None:
    """PyYAML's own message quotes the line it stopped at (its snippet): a file that is not YAML may be anything (a
    credentials file a link put there), so the message is the line, the column and the parser's words alone."""
    path = tmp_path / "f.yaml"
    path.write_text(content)
    for lines in (False, True):
        with pytest.raises(YamlFileError) as raised:
            read_yaml_file(path, lines=lines)
        assert raised.value.message.startswith("not valid YAML: line ") and "ghp_TOKEN" not in raised.value.message


def test_missing_files_and_directories_say_what_was_wanted(tmp_path: Path) -> None:
    with pytest.raises(YamlFileError, match="baseline file not found"):
        read_yaml_file(tmp_path / "nope.yaml", what="baseline file")
    with pytest.raises(YamlFileError, match=r"no requirement set for x@1 \(file not found\)"):
        read_yaml_file(tmp_path / "nope.yaml", what="requirement set for x@1")
    with pytest.raises(YamlFileError, match="is a directory, not a waivers file"):
        read_yaml_file(tmp_path, what="waivers file")


def test_lines_are_kept_on_request(tmp_path: Path) -> None:
    path = tmp_path / "f.yaml"
    path.write_text("a: 1\nb:\n  c: 2\n")
    assert read_yaml_file(path) == {"a": 1, "b": {"c": 2}}
    assert read_yaml_file(path, lines=True)["b"][LINE_KEY] == 3


def test_a_merge_key_may_be_overridden(tmp_path: Path) -> None:
    path = tmp_path / "f.yaml"
    path.write_text("base: &b {x: 1, y: 2}\nuse:\n  <<: *b\n  y: 3\n")
    for lines in (False, True):
        data = read_yaml_file(path, lines=lines)
        assert (data["use"]["x"], data["use"]["y"]) == (1, 3)


@pytest.mark.parametrize("lines", [False, True])
def test_an_alias_bomb_or_an_alias_inside_itself_is_refused_before_it_is_built(lines):
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(7))
    with pytest.raises(YamlFileError, match="the document holds more than 1,000,000 values once its aliases"):
        parse_yaml(bomb, "bomb.yaml", lines=lines)
    with pytest.raises(YamlFileError, match="an alias contains itself"):
        parse_yaml("a: &a [*a]\n", "self.yaml", lines=lines)
    shared = "base: &b {k: [1, 2]}\none: *b\ntwo: [*b, *b]\n"  # ordinary sharing is fine
    assert strip_lines(parse_yaml(shared, "ok.yaml", lines=lines))["two"] == [{"k": [1, 2]}, {"k": [1, 2]}]


@pytest.mark.parametrize("lines", [False, True])
def test_aliases_of_a_long_string_are_bounded_by_size_not_count(lines):
    """A thousand aliases of a 1 MiB string are only a thousand nodes, but a gigabyte once built."""
    from wirecheck.yaml_lines import EXPANDED_TEXT_LIMIT

    text = f"s: &s \"{'x' * (1 << 20)}\"\nall: [{', '.join(['*s'] * 1000)}]\n"
    with pytest.raises(YamlFileError, match=f"more than {EXPANDED_TEXT_LIMIT >> 20} MiB of text once its aliases"):
        parse_yaml(text, "wide.yaml", lines=lines)
    fits = f"s: &s \"{'x' * (1 << 20)}\"\nall: [{', '.join(['*s'] * 10)}]\n"  # 11 MiB: within the limit
    assert len(strip_lines(parse_yaml(fits, "ok.yaml", lines=lines))["all"]) == 10


@pytest.mark.parametrize("text", [
    "waivers:\n" + '  - {fingerprint: "0123456789ab", reason: r, who: w}\n' * 25_000,  # plain entries, no alias
    "[" + "0," * 100_000 + "0]",
])
def test_more_values_than_the_limit_are_refused_for_what_they_are_before_they_are_composed(text):
    """Composing costs about half a KiB a value (1 MiB of `[0,0,...]` is 240 MiB of nodes): a file writing more than
    WRITTEN_NODE_LIMIT values is refused by its count, not after composing, and not called an alias bomb."""
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(YamlFileError) as raised:
        parse_yaml(text, "big.yaml")
    assert raised.value.message == ("holds more than 100,000 values, the most wirecheck reads of a YAML file (see "
                                    "Limits in the README)")
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100 << 10  # KiB: not composed whole


def test_the_loader_that_keeps_lines_counts_as_it_composes(monkeypatch):
    """(The pure-Python loader composes 100,000 values in about 10 s; the limit is lowered to show it counts.)"""
    import wirecheck.yaml_lines as yaml_lines

    monkeypatch.setattr(yaml_lines, "WRITTEN_NODE_LIMIT", 1000)
    assert len(parse_yaml("- 0\n" * 999, "f.yaml", lines=True)) == 999  # 1,000 values with the list
    for text in ("- 0\n" * 1000, "a: &a [x]\nb: [" + ", ".join(["*a"] * 999) + "]\n"):  # aliases count one each
        with pytest.raises(YamlFileError, match="holds more than 1,000 values, the most"):
            parse_yaml(text, "f.yaml", lines=True)


@pytest.mark.parametrize("lines", [False, True])
@pytest.mark.parametrize(("text", "message"), [
    ("a: !!set {x, y}\n", "line 1, column 4 (/a): a YAML set (!!set) is not a JSON value (write a list)"),
    ("a:\n  - !!binary aGk=\n", "line 2, column 5 (/a/0): YAML binary data (!!binary) is not a JSON value"),
    ("a: !!omap [{x: 1}]\n", "line 1, column 4 (/a): a YAML ordered map (!!omap) is not a JSON value"),
    ("a: !!pairs [{x: 1}]\n", "line 1, column 4 (/a): a YAML list of pairs (!!pairs) is not a JSON value"),
])
def test_values_no_json_reader_has_are_refused_where_they_are_written(text, message, lines):
    """Every YAML file wirecheck reads holds JSON values (checked by JSON Schemas, quoted in reports as JSON): a set
    or bytes crashed whatever wrote them as JSON (a waivers file: exit 3), so the one loader refuses them."""
    with pytest.raises(YamlFileError) as raised:
        parse_yaml(text, "f.yaml", lines=lines)
    assert raised.value.message.startswith(message)


def test_a_device_or_a_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    with pytest.raises(YamlFileError) as raised:
        read_yaml_file(Path("/dev/zero"), what="waivers file")
    assert raised.value.message == "is a device, not a waivers file (a device such as /dev/zero never ends)"
    big = tmp_path / "big.yaml"
    with big.open("wb") as out:
        out.truncate(17 << 20)
    with pytest.raises(YamlFileError, match="is 17 MiB, more than the 16 MiB wirecheck reads of a baseline file"):
        read_yaml_file(big, what="baseline file")


@pytest.mark.parametrize("lines", [False, True])
def test_the_alias_walk_is_skipped_only_where_no_alias_can_be(lines, monkeypatch):
    """No `&` means no anchor, so no alias: the expanded size is the written one, bounded already (issue 30, 6: the
    walk was 40% of reading diff/rules.yaml on every diff). Any `&`, or a text over WRITTEN_NODE_LIMIT characters,
    is walked."""
    import wirecheck.yaml_lines as yaml_lines

    walked: list[int] = []
    real = yaml_lines._expanded_size
    monkeypatch.setattr(yaml_lines, "_expanded_size", lambda node: walked.append(1) or real(node))
    assert strip_lines(parse_yaml("a: [1, 2]\nb: {c: d}\n", "f.yaml", lines=lines)) == {"a": [1, 2], "b": {"c": "d"}}
    assert walked == []
    long = "a: [" + "1, " * 40_000 + "1]\n"  # 120,000 characters, 40,002 values (the line loader: too slow here)
    for text in ("a: 1  # R&D\n", "a: &x [1]\nb: *x\n", *([] if lines else [long])):
        walked.clear()
        parse_yaml(text, "f.yaml", lines=lines)
        assert walked == [1], text[:20]


@pytest.mark.parametrize("lines", [False, True])
@pytest.mark.parametrize(("text", "message"), [
    ("lease_seconds: .nan\n", "line 1, column 16 (/lease_seconds): .nan is not a JSON number: JSON has no NaN"),
    ("delays:\n  - {route: lease, seconds: .NaN}\n", "line 2, column 29 (/delays/0/seconds): .NaN is not a JSON"),
    ("timeout: .inf\n", "line 1, column 10 (/timeout): .inf is not a JSON number: JSON has no infinities"),
    ("a: [1, -.Inf]\n", "line 1, column 8 (/a/1): -.Inf is not a JSON number: JSON has no infinities"),
    ("a: 1.0e+400\n", "line 1, column 4 (/a): the number 1.0e+400 is beyond the range of a double: JavaScript reads "
                      "it as Infinity"),
    ("a: -1" + "0" * 400 + "\n", "line 1, column 4 (/a): the number -1000000000000000000…00000000 (402 characters) "
                                 "is beyond the range of a double: JavaScript reads it as -Infinity"),
    ("a: 1" + "0" * 5000 + "\n", "line 1, column 4 (/a): the number 10000000000000000000…00000000 (5001 "
                                 "characters) is beyond the range of a double"),  # was an unlocated ValueError
    ("a: 0x" + "f" * 300 + "\n", "line 1, column 4 (/a): the number 0xffffffffffffffffff…ffffffff (302 characters) "
                                 "is beyond the range of a double"),
    (".nan: 1\n", "line 1, column 1 (/.nan): .nan is not a JSON number"),  # a key too
    ("r: &r [.nan]\ns: *r\n", "line 1, column 8 (/r/0): .nan is not a JSON number"),  # where it is written
])
def test_numbers_no_json_value_holds_are_refused_where_they_are_written(text, message, lines):
    """NaN passes every `minimum` and `maximum` of a schema (each comparison is false): a stub scenario's
    `lease_seconds: .nan` passed its schema and the stub answered every lease `500 stub failure: ValueError`, booked
    against the runtime (issue 41, 1). Every file wirecheck reads as YAML is refused alike, at its line and pointer."""
    with pytest.raises(YamlFileError) as raised:
        parse_yaml(text, "f.yaml", lines=lines)
    assert raised.value.message.startswith(message), raised.value.message


@pytest.mark.parametrize("lines", [False, True])
def test_finite_numbers_and_the_words_for_the_others_as_text_are_read(lines):
    text = 'a: [1.5, -2, 0x1F, 1_000, 1.7976931348623157e+308, "nan", ".inf", NaN, Infinity]\n'
    assert strip_lines(parse_yaml(text, "f.yaml", lines=lines)) == {
        "a": [1.5, -2, 31, 1000, 1.7976931348623157e308, "nan", ".inf", "NaN", "Infinity"]}
