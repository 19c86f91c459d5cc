"""Protocol rules that relate fields of one message, as generation knows them: how to keep a generated message
within the rule (repair) and how to break it with a single edit (a rule mutant).

JSON Schema cannot say "payload.runId equals runId"; the catalog says it with a rule (FIELDS_EQUAL). A valid
message must satisfy the schema and such rules, so generated values are repaired, then checked by the rule's own
implementation (the engine's, from `wirecheck.rules`). Rules over a sequence of messages (FIRST_MESSAGE_IS,
turn and lifecycle rules) are not single-message properties and are not generated here.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from wirecheck.check.message import Message
from wirecheck.contracts.model import ContractRelease, MessageKind, RuleUse
from wirecheck.pointer import parse_pointer
from wirecheck.rules.registry import instantiate

_MISSING = object()


def _get(value: Any, pointer: str) -> Any:
    node = value
    for token in parse_pointer(pointer):
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return _MISSING
    return node


def _set(value: Any, pointer: str, new: Any) -> Any:
    tokens = parse_pointer(pointer)
    copied = copy.deepcopy(value)
    node = copied
    for token in tokens[:-1]:
        node = node[int(token)] if isinstance(node, list) else node[token]
    node[int(tokens[-1]) if isinstance(node, list) else tokens[-1]] = new
    return copied


def _different(value: Any) -> list[Any]:
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, (int, float)):
        return [value + 1]
    if isinstance(value, str):
        return [value + "-other", value[:-1] if value else "other", "0" if value != "0" else "1"]
    return []


# -- FIELDS_EQUAL -------------------------------------------------------------------------------------------------
def _fields_equal_repair(value: Any, params: dict[str, Any]) -> Any:
    left = _get(value, params["left"])
    if left is _MISSING or _get(value, params["right"]) is _MISSING:
        return value
    return _set(value, params["right"], copy.deepcopy(left))


def _fields_equal_break(value: Any, params: dict[str, Any]) -> list[tuple[Any, str, str]]:
    left = _get(value, params["left"])
    if left is _MISSING or _get(value, params["right"]) is _MISSING:
        return []
    return [
        (_set(value, params["right"], other), params["right"], f"{params['right']} differs from {params['left']}")
        for other in _different(left)
    ]


@dataclass(frozen=True)
class RuleEdits:
    repair: Callable[[Any, dict[str, Any]], Any]
    breaks: Callable[[Any, dict[str, Any]], list[tuple[Any, str, str]]]  # (message, pointer, description)


RULE_EDITS: dict[str, RuleEdits] = {
    "FIELDS_EQUAL": RuleEdits(_fields_equal_repair, _fields_equal_break),
}


class KindRules:
    """The single-message rules a release turns on for one kind, with their engine implementations."""

    def __init__(self, release: ContractRelease, kind: MessageKind):
        self.kind = kind
        self.uses: list[RuleUse] = [
            use for use in release.rules
            if use.id in RULE_EDITS and (not use.kinds or kind.id in use.kinds)
        ]
        self._release = release

    def __bool__(self) -> bool:
        return bool(self.uses)

    def repair(self, value: Any) -> Any:
        for use in self.uses:
            value = RULE_EDITS[use.id].repair(value, dict(use.params))
        return value

    def findings(self, value: Any) -> list[str]:
        """Ids of the rules this message breaks, according to the engine's rule implementations."""
        message = Message(value=value, file="<generated>", line=1, kind=self.kind)
        broken = []
        for use in self.uses:
            rule = instantiate(use, self._release)
            if list(rule.on_message(message)) or list(rule.finish()):
                broken.append(use.id)
        return broken

    def holds(self, value: Any) -> bool:
        return not self.findings(value)

    def breaking_edits(self, value: Any) -> list[tuple[Any, str, str, str]]:
        """(message, rule id, pointer, description) single edits that break one rule."""
        edits = []
        for use in self.uses:
            for candidate, pointer, description in RULE_EDITS[use.id].breaks(value, dict(use.params)):
                edits.append((candidate, use.id, pointer, description))
        return edits
