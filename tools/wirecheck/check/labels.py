"""A mutant's label against the engine's findings on it: is the mutant refused for the one constraint it is
labelled with, and for nothing else?

A label is what a `wirecheck fuzz` corpus entry says its mutant breaks (`breaks: {keyword, pointer, description}`):
a JSON Schema keyword at a place in the message, or a protocol rule id (FIELDS_EQUAL) at the place the rule reads.
The generator keeps a mutant only when the engine's findings on it are its label's (fuzz/mutants.py), and the
corpus self-test reports an entry whose findings are not (Engine.check_corpus_entry: CORPUS_MISMATCH). One
matcher for both, so what the generator promises is what the self-test checks.

A finding is the label's when:
- for a rule label, the finding is that rule's (its code is the rule id) at the label's pointer (a rule finding
  with no pointer is about the whole message: pointer "");
- for a schema label, the finding is a SCHEMA_VIOLATION or UNKNOWN_FIELD whose schema location ends at that keyword
  (`.../properties/name/maxLength`), at the label's pointer; or a CROSS_CONTRACT_VIOLATION saying the same of a
  consumer's contract (the catalog's `consumers:`): the consumer refusing the same keyword at the same place is the
  same constraint, as its reader holds it. A keyword that closes an object or an array
  (`additionalProperties`, `unevaluatedProperties`, `items`, `unevaluatedItems`) is labelled at the object or array
  and found at the member or item it refuses, one level below: that is the one shift allowed. Any other parent or
  child is another constraint (`required` at /a is not `type` at /a/b), and so is the same keyword elsewhere.

A mutant is refused for its label when at least one finding above info is the label's and every one is.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from wirecheck.contracts.views import SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_VALUES
from wirecheck.findings import Finding, blocking
from wirecheck.pointer import format_pointer, parse_pointer

# keywords found at the member or item they refuse, one level below the object or array they are labelled at
_CLOSING = frozenset({"additionalProperties", "unevaluatedProperties", "items", "unevaluatedItems"})
_SCHEMA_CODES = frozenset({"SCHEMA_VIOLATION", "UNKNOWN_FIELD", "CROSS_CONTRACT_VIOLATION"})


@dataclass(frozen=True)
class Label:
    keyword: str  # a JSON Schema keyword, or a protocol rule id
    pointer: str  # a JSON pointer into the message ("" = the whole message)

    @classmethod
    def of(cls, breaks: Any) -> Label | None:
        """The label of a corpus entry's `breaks`, or None when it is not {keyword: str, pointer: a JSON pointer}."""
        if not isinstance(breaks, dict):
            return None
        keyword, pointer = breaks.get("keyword"), breaks.get("pointer")
        if not (isinstance(keyword, str) and keyword and isinstance(pointer, str)):
            return None
        try:
            parse_pointer(pointer)
        except ValueError:
            return None
        return cls(keyword, pointer)

    def __str__(self) -> str:
        return f"{self.keyword} at {self.pointer or '/'}"


def keyword_of(schema_location: str | None) -> str | None:
    """The keyword an absolute keyword location ends at (`...#/properties/type/maxLength` → maxLength), read
    from the root so that a property named like a keyword is not taken for one; `.../dependentRequired/0`
    (jsonschema-rs names the broken dependency) → dependentRequired."""
    if not schema_location or "#" not in schema_location:
        return None
    try:
        tokens = parse_pointer(schema_location.partition("#")[2])
    except ValueError:
        return None
    keyword, index = None, 0
    while index < len(tokens):
        keyword = tokens[index]
        if keyword in SCHEMA_MAPS or keyword in SCHEMA_LISTS:
            index += 2  # a name or an index, then the subschema's keywords
        elif keyword in SCHEMA_VALUES:  # where a schema location goes on below a keyword
            index += 1
        else:
            break  # a keyword whose value is no schema: whatever follows names a part of its value
    return keyword


def matches(finding: Finding, label: Label) -> bool:
    """Whether `finding` is the breaking of `label` (see the module's docstring)."""
    if finding.code == label.keyword:  # a rule label: rule ids are never JSON Schema keywords
        return (finding.pointer or "") == label.pointer
    if finding.code not in _SCHEMA_CODES or keyword_of(finding.schema_location) != label.keyword:
        return False
    if finding.pointer == label.pointer:
        return True
    if label.keyword in _CLOSING and finding.pointer:
        return format_pointer(parse_pointer(finding.pointer)[:-1]) == label.pointer
    return False


def refused_for(findings: Iterable[Finding], label: Label) -> bool:
    """Refused for `label` and nothing else: some finding above info is the label's, and every one is."""
    refused = blocking(list(findings))
    return bool(refused) and all(matches(f, label) for f in refused)


def as_found(finding: Finding) -> str:
    """What a finding refuses, said as a label is (`maxLength at /name`, `FIELDS_EQUAL at /b`), for a report."""
    keyword = keyword_of(finding.schema_location) if finding.code in _SCHEMA_CODES else None
    where = finding.pointer or "/"
    return f"{finding.code} ({keyword} at {where})" if keyword else f"{finding.code} at {where}"
