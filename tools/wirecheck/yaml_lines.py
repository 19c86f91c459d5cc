"""Reading the YAML files users and contracts hold: one error type for every way a file can fail to be read, and
YAML that remembers where each mapping started, so a data file's problems can name their line."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import yaml

from wirecheck.data_files import YamlFileError as YamlFileError  # one error type for every data file (re-exported)
from wirecheck.data_files import read_text as read_text

LINE_KEY = "__line__"


def _refuse_duplicate_keys(loader: Any, node: yaml.MappingNode) -> None:
    """YAML lets the last of two equal keys win without a word: in a catalog selector or a waiver that silently
    changes what the file says, so a duplicate key is an error at its line."""
    seen: set[Any] = set()
    for key_node, _ in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":  # `<<: *base`: its keys may be overridden, by design
            continue
        key = loader.construct_object(key_node, deep=True)
        if isinstance(key, list | dict):
            continue  # unhashable: YAML itself refuses it further on
        if key in seen:
            raise yaml.constructor.ConstructorError(
                "while reading a mapping", node.start_mark, f"found the key {key!r} twice", key_node.start_mark)
        seen.add(key)


WRITTEN_NODE_LIMIT = 100_000  # YAML values as written (composing one costs about 0.5 KiB): 12x the largest catalog
EXPANDED_NODE_LIMIT = 1_000_000  # YAML nodes once every alias is expanded: far above any contract or waiver file
EXPANDED_TEXT_LIMIT = 64 << 20  # characters of scalars once every alias is expanded (a 1 MiB string 1000 times...)


def _expanded_size(root: yaml.Node) -> int:
    """How many nodes the document holds once each alias is copied out: nine aliases of ten aliases can make a
    billion (the "billion laughs"), and a thousand aliases of one long string make gigabytes, which every later
    walk over the data would build. A YAMLError past either limit, or for an alias that contains itself (it has no
    end)."""
    sizes: dict[int, tuple[int, int]] = {}  # id(node) → (nodes, characters) it stands for, expanded
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        children = [n for pair in node.value for n in pair] if isinstance(node, yaml.MappingNode) \
            else node.value if isinstance(node, yaml.SequenceNode) else []
        if children_done:
            on_path.discard(key)
            nodes = 1 + sum(sizes[id(c)][0] for c in children)
            text = len(node.value) if isinstance(node, yaml.ScalarNode) else sum(sizes[id(c)][1] for c in children)
            sizes[key] = (nodes, text)
            if nodes > EXPANDED_NODE_LIMIT:
                raise yaml.YAMLError(f"the document holds more than {EXPANDED_NODE_LIMIT:,} values once its aliases "
                                     "are expanded (an alias bomb?)")
            if text > EXPANDED_TEXT_LIMIT:
                raise yaml.YAMLError(f"the document holds more than {EXPANDED_TEXT_LIMIT >> 20} MiB of text once its "
                                     "aliases are expanded (an alias bomb?)")
        elif key not in sizes:
            if key in on_path:
                raise yaml.YAMLError("an alias contains itself: the data it stands for has no end")
            on_path.add(key)
            stack.append((node, True))
            stack.extend((c, False) for c in children if id(c) not in sizes)
    return sizes[id(root)][0]


class Refused(yaml.YAMLError):
    """YAML that is read, but refused: `message` says why, at `mark` when it has a place."""

    def __init__(self, message: str, mark: Any = None):
        super().__init__(message)
        self.message, self.mark = message, mark


class NotJson(Refused):
    """A YAML value no JSON reader has (a set, binary data, an ordered map), where it is written."""


_NOT_JSON_TAGS = {
    "tag:yaml.org,2002:set": "a YAML set (!!set) is not a JSON value (write a list)",
    "tag:yaml.org,2002:binary": "YAML binary data (!!binary) is not a JSON value (write it as a string)",
    "tag:yaml.org,2002:omap": "a YAML ordered map (!!omap) is not a JSON value (write a mapping)",
    "tag:yaml.org,2002:pairs": "a YAML list of pairs (!!pairs) is not a JSON value (write a mapping or a list)",
}


def _refuse_tag(loader: Any, node: yaml.Node) -> Any:
    """Every file wirecheck reads as YAML holds JSON values (it is checked by JSON Schemas, quoted in reports, sent
    on the wire): a tag that builds something else is refused where it is written, in every file alike."""
    raise NotJson(_NOT_JSON_TAGS[node.tag], node.start_mark)


def _not_a_json_number(text: str, value: float) -> str | None:
    """Why a number, as written, is one no JSON value holds, or None: YAML's `.nan`, `.inf` and `-.inf` (JSON has no
    NaN or infinities), and a number beyond the range of a double (`1.0e+400`, or its 401 digits), which JavaScript
    reads as Infinity and Python's float as inf (json_text judges both spellings alike in a JSON text). Let through,
    a NaN passes every `minimum` and `maximum` of a schema (each comparison is false) and reaches the code that reads
    the file (a stub lease of NaN seconds); an infinity is a wait that never ends."""
    if math.isnan(value):
        return (f"{text} is not a JSON number: JSON has no NaN (RFC 8259 §6); write a number, or quote it if text is "
                "meant")
    if math.isfinite(value):
        return None
    if text.lstrip("+-").lower() in (".inf", "inf"):
        return (f"{text} is not a JSON number: JSON has no infinities (RFC 8259 §6); write a number, or quote it if "
                "text is meant")
    return _beyond_a_double(text)


def _beyond_a_double(text: str) -> str:
    shown = text if len(text) <= 40 else f"{text[:20]}…{text[-8:]} ({len(text)} characters)"
    return (f"the number {shown} is beyond the range of a double: JavaScript reads it as "
            f"{'-' if text.startswith('-') else ''}Infinity, which is no JSON number (RFC 8259 §6)")


def _float(loader: Any, node: yaml.ScalarNode) -> float:
    value = yaml.constructor.SafeConstructor.construct_yaml_float(loader, node)
    problem = _not_a_json_number(node.value, value)
    if problem is not None:
        raise NotJson(problem, node.start_mark)
    return value


_DOUBLE_DIGITS = 309  # an integer of more digits is beyond a double whatever they are


def _int(loader: Any, node: yaml.ScalarNode) -> int:
    digits = node.value.replace("_", "").lstrip("+-")
    if not (digits.isdigit() and len(digits) > _DOUBLE_DIGITS):  # else not converted (4,300 digits: unlocated error)
        value = yaml.constructor.SafeConstructor.construct_yaml_int(loader, node)
        try:
            float(value)
            return value
        except OverflowError:
            pass
    raise NotJson(_beyond_a_double(node.value), node.start_mark)


def _too_many() -> Refused:
    return Refused(f"holds more than {WRITTEN_NODE_LIMIT:,} values, the most wirecheck reads of a YAML file (see "
                   "Limits in the README)")


def _count_written(text: str) -> None:
    """Refused when the text writes more than WRITTEN_NODE_LIMIT values (aliases count one each), found from
    libyaml's events, which hold nothing, before FAST_LOADER composes it (libyaml composes in C, where nothing can
    count): composing first would cost the memory this guards (1 MiB of `[0,0,...]` composes into 240 MiB of
    nodes). A text of at most that many characters cannot hold more (a value takes two): it is not read twice."""
    if len(text) <= WRITTEN_NODE_LIMIT:
        return
    counted = (yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent, yaml.AliasEvent)
    count = 0
    for event in yaml.parse(text, Loader=FAST_LOADER):
        if isinstance(event, counted):
            count += 1
            if count > WRITTEN_NODE_LIMIT:
                raise _too_many()


class _Bounded:
    """Loader mixin: refuse a document whose aliases expand past EXPANDED_NODE_LIMIT before building it.

    A text with no `&` has no anchor, so no alias (an alias names an anchor written before it, else libyaml and
    PyYAML refuse it): every node is its own, and its expanded size is its written size. Of at most
    WRITTEN_NODE_LIMIT characters, that is at most WRITTEN_NODE_LIMIT values and characters, far below both expanded
    limits: the walk, 40% of reading the diff rule catalogue, is skipped for it."""

    def __init__(self, stream: Any):
        self._no_alias = isinstance(stream, str) and len(stream) <= WRITTEN_NODE_LIMIT and "&" not in stream
        super().__init__(stream)  # type: ignore[call-arg]

    def construct_document(self, node: yaml.Node) -> Any:
        if not self._no_alias:
            _expanded_size(node)
        return super().construct_document(node)  # type: ignore[misc]


class _LineLoader(_Bounded, yaml.SafeLoader):
    """A SafeLoader that adds `__line__` (1-based) to every mapping and refuses duplicate keys. (Pure Python, unlike
    FAST_LOADER: libyaml refuses the `"\\ud800"` escape users write to test lone surrogates.) It counts the values
    it composes, refusing more than WRITTEN_NODE_LIMIT before composing them all."""

    _written = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        self._written += 1
        if self._written > WRITTEN_NODE_LIMIT:
            raise _too_many()
        return super().compose_node(parent, index)


def _mapping(loader: _LineLoader, node: yaml.MappingNode) -> dict[str, Any]:
    _refuse_duplicate_keys(loader, node)
    value = {str(k): v for k, v in loader.construct_mapping(node, deep=True).items()}
    value[LINE_KEY] = node.start_mark.line + 1
    return value


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def load_with_lines(text: str) -> Any:
    """Parse YAML text; every mapping carries `__line__`. Raises yaml.YAMLError like yaml.safe_load."""
    return yaml.load(text, Loader=_LineLoader)


def strip_lines(value: Any) -> Any:
    """The same data without the `__line__` keys."""
    if isinstance(value, dict):
        return {k: strip_lines(v) for k, v in value.items() if k != LINE_KEY}
    if isinstance(value, list):
        return [strip_lines(v) for v in value]
    return value


class _FastLoader(_Bounded, getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """libyaml's parser when PyYAML was built with it (its wheels are: a fifth of the pure-Python loader's time),
    refusing duplicate keys."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        _refuse_duplicate_keys(self, node)
        return super().construct_mapping(node, deep=deep)


for _loader in (_LineLoader, _FastLoader):  # what both refuse: values no JSON reader has
    for _tag in _NOT_JSON_TAGS:
        _loader.add_constructor(_tag, _refuse_tag)
    _loader.add_constructor("tag:yaml.org,2002:float", _float)
    _loader.add_constructor("tag:yaml.org,2002:int", _int)
FAST_LOADER = _FastLoader


def parse_yaml(text: str, file: str, *, lines: bool = False) -> Any:
    """YAML text as data (with `__line__` in every mapping when `lines`); YamlFileError when it is not YAML, holds
    more values than WRITTEN_NODE_LIMIT (or EXPANDED_NODE_LIMIT through aliases), a value no JSON reader has (a set,
    binary data) or a value YAML cannot build (a date that does not exist, `2024-02-30`)."""
    try:
        if lines:
            return load_with_lines(text)  # counts as it composes
        _count_written(text)
        return yaml.load(text, Loader=FAST_LOADER)  # a safe loader
    except Refused as exc:
        where = ""
        if exc.mark:
            pointer = _pointer_at(text, exc.mark.index)
            where = f"line {exc.mark.line + 1}, column {exc.mark.column + 1}" + (
                f" ({pointer})" if pointer else "") + ": "
        raise YamlFileError(file, f"{where}{exc.message}") from None
    except yaml.YAMLError as exc:
        raise YamlFileError(file, f"not valid YAML: {_said(exc)}") from None
    except (ValueError, TypeError, RecursionError) as exc:  # raised while building a value, e.g. a date
        raise YamlFileError(file, f"a value YAML cannot build: {exc} (quote dates meant as text)") from None


def _pointer_at(text: str, index: int) -> str:
    """The JSON pointer of the value (or key) written at character `index` of the text (where a value was refused),
    "" when none is found: composed again (no value is built), walked once (an alias is walked where it is first
    written)."""
    from wirecheck.pointer import format_pointer

    try:
        root = yaml.compose(text, Loader=FAST_LOADER)
    except yaml.YAMLError:
        return ""
    seen: set[int] = set()
    stack: list[tuple[Any, tuple[str, ...]]] = [(root, ())] if root is not None else []
    while stack:
        node, path = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        children: list[tuple[Any, tuple[str, ...]]] = []
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                name = key.value if isinstance(key, yaml.ScalarNode) else "?"
                if key.start_mark.index == index:  # a key (a block mapping starts where its first key does)
                    return format_pointer((*path, name))
                children.append((value, (*path, name)))
        elif isinstance(node, yaml.SequenceNode):
            children = [(item, (*path, str(i))) for i, item in enumerate(node.value)]
        if node.start_mark.index == index:
            return format_pointer(path) or "/"
        stack.extend(reversed(children))  # in the order they are written
    return ""


def _said(error: yaml.YAMLError) -> str:
    """A YAML syntax error as `line L, column C: what the parser says`, never with the snippet of the line PyYAML
    quotes: a file that does not parse as YAML is not the YAML it claims to be, and may be anything (a credentials
    file a symbolic link put there); its content is not for an error message."""
    if not isinstance(error, yaml.MarkedYAMLError):
        return str(error)
    mark = error.problem_mark or error.context_mark
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
    return where + ": ".join(part for part in (error.context, error.problem) if part)


def read_yaml_file(path: Path, *, lines: bool = False, what: str = "file") -> Any:
    """The data in a YAML file: `read_text`, then `parse_yaml`."""
    return parse_yaml(read_text(path, what), str(path), lines=lines)


def compose(text: str) -> yaml.Node | None:
    """The YAML (or JSON) text's node tree, which knows where each value is; None when it is not YAML, or holds more
    than WRITTEN_NODE_LIMIT values (its tree would cost more than the lines are worth)."""
    try:
        _count_written(text)
        return yaml.compose(text, Loader=FAST_LOADER)
    except yaml.YAMLError:
        return None


def line_at(root: yaml.Node, tokens: tuple[str, ...]) -> int:
    """The 1-based line of the value a JSON pointer names, or of the deepest node on its way that exists (a
    missing key's object, a wrong item's list)."""
    node = root
    for token in tokens:
        if isinstance(node, yaml.MappingNode):
            found = next((value for key, value in node.value if isinstance(key, yaml.ScalarNode)
                          and key.value == token), None)
        elif isinstance(node, yaml.SequenceNode) and token.isdigit() and int(token) < len(node.value):
            found = node.value[int(token)]
        else:
            found = None
        if found is None:
            break
        node = found
    return node.start_mark.line + 1
