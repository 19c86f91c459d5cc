"""JSON Pointers (RFC 6901): the one way wirecheck names a place in a message or a schema."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

_MISSING = object()
_NO_DEFAULT = object()  # distinct from MISSING, so `resolve(doc, tokens, MISSING)` returns MISSING instead of raising


def parse_pointer(pointer: str) -> tuple[str, ...]:
    if pointer == "":
        return ()
    if not pointer.startswith("/"):
        raise ValueError(f"JSON pointer must be empty or start with '/': {pointer!r}")
    if "~" not in pointer:  # nothing escaped: the common case
        return tuple(pointer[1:].split("/"))
    return tuple(part.replace("~1", "/").replace("~0", "~") for part in pointer[1:].split("/"))


def format_pointer(tokens: Iterable[str | int]) -> str:
    return "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in tokens)


def resolve(document: Any, tokens: tuple[str, ...], default: Any = _NO_DEFAULT) -> Any:
    """The value at `tokens`, or `default` (raises KeyError when no default is given)."""
    node = document
    for token in tokens:
        if isinstance(node, dict):
            if token not in node:
                break
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            break
    else:
        return node
    if default is _NO_DEFAULT:
        raise KeyError(format_pointer(tokens))
    return default


MISSING = _MISSING


def getter(tokens: tuple[str, ...]) -> Callable[[Any], Any]:
    """`resolve(document, tokens, MISSING)` as a function compiled once, for a place read in every message of a kind
    (behaviour.Place, Match): each token's step is chosen when compiling, not asked of every node (a third of the
    behaviour monitors' time on a stream of assistant messages went to `resolve`'s loop)."""
    steps = [_step(token) for token in tokens]
    if not steps:
        return lambda document: document
    if len(steps) == 1:
        return steps[0]
    if len(steps) == 2:
        first, second = steps

        def two(document: Any) -> Any:
            node = first(document)
            return node if node is _MISSING else second(node)

        return two

    def walk(document: Any) -> Any:
        for step in steps:
            document = step(document)
            if document is _MISSING:
                break
        return document

    return walk


def _step(token: str) -> Callable[[Any], Any]:
    if not token.isdigit():  # a member name: no array has it
        def member(node: Any) -> Any:
            return node.get(token, _MISSING) if isinstance(node, dict) else _MISSING

        return member

    def member_or_item(node: Any) -> Any:  # resolve's own test, as it asks it
        if isinstance(node, dict):
            return node.get(token, _MISSING)
        if isinstance(node, list) and int(token) < len(node):
            return node[int(token)]
        return _MISSING

    return member_or_item


def replaced(document: Any, tokens: tuple[str, ...], value: Any) -> Any:
    """`document` with `value` at `tokens`: the objects and arrays on the way are copied, the rest is shared, the
    original is left alone. An absent last member is added; a way that does not exist raises KeyError. `()` is
    the whole document."""
    if not tokens:
        return value
    head, rest = tokens[0], tokens[1:]
    if isinstance(document, dict):
        if rest and head not in document:
            raise KeyError(format_pointer(tokens))
        return {**document, head: replaced(document[head], rest, value) if rest else value}
    if isinstance(document, list) and head.isdigit() and int(head) < len(document):
        index = int(head)
        return [*document[:index], replaced(document[index], rest, value) if rest else value, *document[index + 1:]]
    raise KeyError(format_pointer(tokens))
