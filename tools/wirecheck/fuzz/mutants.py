"""Invalid messages that break exactly one constraint, each labelled with the constraint it breaks.

From a valid instance, walk the schema along the instance (following `$ref`, `allOf`, the union branch the
instance takes, `if`/`then`/`else`) and, at every place, propose single edits: drop a required key, a value of a
wrong type, a value outside `enum`/`const`, an unknown key in a closed object, a pattern/length/range/items/
format violation, a missing dependent key. A candidate becomes a `Mutant` only when both validators reject it
and the reference validator's errors — inside the union branch the original took — are exactly the labelled one
(keyword at the instance location), and the engine refuses it for its label alone (check/labels.py, the matcher the
corpus self-test uses). A candidate another union branch happens to accept is not a mutant, nor one the engine
explains through another branch.
"""

from __future__ import annotations

import copy
import math
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from wirecheck.check.labels import Label, refused_for
from wirecheck.contracts.formats import refused_samples
from wirecheck.contracts.reference import reference_validator
from wirecheck.ecma_regex import RegexTimeout
from wirecheck.fuzz import regex
from wirecheck.fuzz.schemas import SchemaSet
from wirecheck.json_types import PAYLOAD_LIMIT, json_type
from wirecheck.pointer import format_pointer

UNKNOWN_KEY = "wirecheckUnknownField"
RULE = ("rule",)  # a Mutant's `via` when it breaks a protocol rule (schema-valid; its keyword is the rule id)
_WRONG_TYPE_VALUE: dict[str, Any] = {
    "null": 0,
    "boolean": "true",
    "integer": "7",
    "number": "7",
    "string": 7,
    "array": {},
    "object": [],
}
_SAMPLES: dict[str, Any] = {
    "null": None, "boolean": True, "integer": 7, "number": 0.5, "string": "wirecheck", "array": [], "object": {},
}


@dataclass(frozen=True)
class Mutant:
    instance: Any
    keyword: str  # the JSON Schema keyword (or protocol rule id) the mutant breaks
    pointer: str  # where that keyword applies: the object for required/additionalProperties, else the value
    description: str
    kind: str | None = None
    via: tuple[str, ...] = ()  # the applicators on the schema path to the broken keyword (e.g. "then", "oneOf")
    beside: tuple[str, ...] = ()  # the other keywords of the subschema that holds the broken one
    http: Any = None  # an HTTP kind's envelope (check.message.HttpInfo) the mutant travels in

    @property
    def label(self) -> str:
        return f"{self.keyword} at {self.pointer or '/'}"

    def as_json(self) -> dict[str, Any]:
        return {"keyword": self.keyword, "pointer": self.pointer, "description": self.description}


Path = tuple[str | int, ...]


def _at(document: Any, path: Path) -> Any:
    for token in path:
        document = document[token]
    return document


def _replaced(document: Any, path: Path, value: Any) -> Any:
    if not path:
        return value
    copied = copy.deepcopy(document)
    parent = _at(copied, path[:-1])
    parent[path[-1]] = value
    return copied


def _edited(document: Any, path: Path, edit: Any) -> Any:
    copied = copy.deepcopy(document)
    edit(_at(copied, path))
    return copied


class MutantFactory:
    """Mutants of valid instances of one schema (`uri`) of a release."""

    def __init__(self, schemas: SchemaSet, uri: str, *, kind: str | None = None, rules: Any = None):
        self.schemas = schemas
        self.uri = uri
        self.kind = kind
        self.rules = rules  # a fuzz.rules.KindRules: single-message protocol rules that must keep holding
        self.fast = schemas.ref_validator(uri)
        self.reference = reference_validator({"$ref": uri}, schemas.original)
        self.discarded = 0  # candidates another branch accepted, or that broke more than the labelled keyword

    def mutants(self, instance: Any, message: Any = None) -> list[Mutant]:
        """The mutants of a valid `instance`; `message`: the valid message it is the body of (its envelope is
        kept), by default `instance` as a message of the kind."""
        base = self._base(instance, message)
        found: list[Mutant] = []
        seen: set[tuple[str, str]] = set()
        for path, node, via in self._places({"$ref": self.uri}, instance, ()):
            for candidate, keyword, description in self._candidates(instance, path, node):
                label = (keyword, format_pointer(_label_path(path, keyword, description)))
                if label in seen:
                    continue
                if self.confirm(candidate, keyword, label[1], base):
                    seen.add(label)
                    beside = tuple(sorted(k for k in node if k != keyword))
                    found.append(Mutant(candidate, keyword, label[1], description, self.kind, via, beside,
                                        _http(base)))
                else:
                    self.discarded += 1
        if self.rules is not None and base is not None:
            for edited, rule_id, pointer, description in self.rules.breaking_edits(base):
                if self.confirm_rule(edited, rule_id, pointer):
                    found.append(Mutant(edited.value, rule_id, pointer, description, self.kind, RULE,
                                        http=edited.http))
                else:
                    self.discarded += 1
        return found

    def _base(self, instance: Any, message: Any) -> Any:
        if message is not None or self.rules is None:
            return message
        from wirecheck.fuzz.rules import message_of

        return message_of(self.rules.kind, instance)

    def confirm_rule(self, edited: Any, rule_id: str, pointer: str) -> bool:
        """Schema-valid under both validators, and the engine refuses it for `rule_id` at `pointer` alone (the
        corpus self-test's matcher, check/labels.py)."""
        try:
            return (
                self.fast.is_valid(edited.value)
                and self.reference.is_valid(edited.value)
                and refused_for(self.rules.judge(edited), Label(rule_id, pointer))
            )
        except RegexTimeout:  # undecided: not confirmed
            return False

    def mutants_at(self, instance: Any, pointer: str, message: Any = None) -> list[Mutant]:
        """Only the mutants whose label is at `pointer` (cheaper, for shrinking one finding)."""
        base = self._base(instance, message)
        found: list[Mutant] = []
        for path, node, via in self._places({"$ref": self.uri}, instance, ()):
            if not pointer.startswith(format_pointer(path)):
                continue
            for candidate, keyword, description in self._candidates(instance, path, node):
                if format_pointer(_label_path(path, keyword, description)) != pointer:
                    continue
                if self.confirm(candidate, keyword, pointer, base):
                    beside = tuple(sorted(k for k in node if k != keyword))
                    found.append(Mutant(candidate, keyword, pointer, description, self.kind, via, beside,
                                        _http(base)))
        return found

    # -- confirmation -------------------------------------------------------------------------------------------
    def confirm(self, candidate: Any, keyword: str, pointer: str, base: Any = None) -> bool:
        """Both validators reject it, its only error (in the nearest union branch) is the labelled one, and — with
        the kind's rules — the engine, judging it in `base`'s envelope, finds that one constraint broken and
        nothing else (no protocol rule besides). jsonschema-rs answers first (fast); python-jsonschema decides
        whenever the two readings could differ."""
        if self.fast.is_valid(candidate):
            return False
        fast_leaves = _rs_leaf_errors(list(self.fast.iter_errors(candidate)), (keyword, pointer))
        if not (len(fast_leaves) == 1 and _rs_matches(fast_leaves[0], keyword, pointer)):
            try:
                leaves = _leaf_errors(list(self.reference.iter_errors(candidate)), (keyword, pointer))
            except RegexTimeout:  # a pattern the reference validator could not match in time: not confirmed
                return False
            if not (len(leaves) == 1 and _matches(leaves[0], keyword, pointer)):
                return False
        return base is None or self.engine_agrees(base, candidate, keyword, pointer)

    def engine_agrees(self, base: Any, candidate: Any, keyword: str, pointer: str) -> bool:
        """The engine, judging the mutant in `base`'s envelope, refuses it for the labelled keyword at the
        labelled place and for nothing else (check/labels.py, the matcher the corpus self-test uses): an unknown
        member of a closed object is UNKNOWN_FIELD, anything else SCHEMA_VIOLATION; a protocol rule flagging it
        too would make two constraints, and the engine explaining a union's failure through another branch than
        the one labelled would make the label not what a reader of the report is told."""
        return refused_for(self.rules.judge(replace(base, value=candidate)), Label(keyword, pointer))

    # -- walking the schema along the instance ------------------------------------------------------------------
    def _places(
        self, schema: Any, instance: Any, path: Path, via: tuple[str, ...] = ()
    ) -> Iterator[tuple[Path, dict, tuple[str, ...]]]:
        if not isinstance(schema, dict) or len(via) > 200:
            return
        value = _at(instance, path)
        yield path, schema, via
        if "$ref" in schema:
            yield from self._places(self.schemas.resolve(schema["$ref"]), instance, path, (*via, "$ref"))
        for sub in schema.get("allOf", ()):
            yield from self._places(sub, instance, path, (*via, "allOf"))
        for union in ("oneOf", "anyOf"):
            for branch in schema.get(union, ()):
                if self.schemas.validator(branch).is_valid(value):
                    yield from self._places(branch, instance, path, (*via, union))
                    break
        if "if" in schema:
            taken = "then" if self.schemas.validator(schema["if"]).is_valid(value) else "else"
            if taken in schema:
                yield from self._places(schema[taken], instance, path, (*via, taken))
        if isinstance(value, dict):
            properties = schema.get("properties", {})
            for key in value:
                if key in properties:
                    yield from self._places(properties[key], instance, (*path, key), (*via, "properties"))
                    continue
                matched = False
                for pattern, sub in schema.get("patternProperties", {}).items():
                    if regex.matches(pattern, key):
                        matched = True
                        yield from self._places(sub, instance, (*path, key), (*via, "patternProperties"))
                extra = schema.get("additionalProperties")
                if not matched and isinstance(extra, dict):
                    yield from self._places(extra, instance, (*path, key), (*via, "additionalProperties"))
        if isinstance(value, list):
            prefix = schema.get("prefixItems", [])
            items = schema.get("items")
            for index in range(len(value)):
                sub = prefix[index] if index < len(prefix) else items
                if isinstance(sub, dict):
                    step = "prefixItems" if index < len(prefix) else "items"
                    yield from self._places(sub, instance, (*path, index), (*via, step))

    # -- single edits ---------------------------------------------------------------------------------------
    def _candidates(self, instance: Any, path: Path, schema: dict) -> Iterator[tuple[Any, str, str]]:
        value = _at(instance, path)
        where = format_pointer(path) or "/"
        if isinstance(value, dict):
            for name in schema.get("required", ()):
                if name in value:
                    yield _edited(instance, path, lambda o, n=name: o.pop(n)), "required", f"drop required {name!r}"
            for keyword in ("additionalProperties", "unevaluatedProperties"):
                if schema.get(keyword) is False and UNKNOWN_KEY not in value:
                    yield (
                        _edited(instance, path, lambda o: o.__setitem__(UNKNOWN_KEY, 1)),
                        keyword,
                        f"unknown key {UNKNOWN_KEY!r} in a closed object at {where}",
                    )
            for trigger, needed in schema.get("dependentRequired", {}).items():
                if trigger in value:
                    for name in needed:
                        if name in value:
                            yield (
                                _edited(instance, path, lambda o, n=name: o.pop(n)),
                                "dependentRequired",
                                f"drop {name!r}, which {trigger!r} requires",
                            )
            for name, sub in schema.get("properties", {}).items():
                refused = isinstance(sub, dict) and "not" in sub and _always_true(sub["not"])
                if name not in value and refused:
                    yield (
                        _edited(instance, path, lambda o, n=name: o.__setitem__(n, 1)),
                        "not",
                        f"{_REFUSED}{name}",
                    )
            low = schema.get("minProperties", 0)
            optional = [k for k in value if k not in schema.get("required", ())]
            if low and len(value) - len(optional) < low <= len(value):
                surplus = optional[: len(value) - low + 1]
                yield (
                    _edited(instance, path, lambda o, ks=surplus: [o.pop(k) for k in ks]),
                    "minProperties",
                    f"{low - 1} keys where {low} are required",
                )
            if "maxProperties" in schema and schema["maxProperties"] < PAYLOAD_LIMIT:
                # fillers must be valid where they land (an additionalProperties schema may type them)
                fillers: tuple[Any, ...] = (True, 1, "x", None, {})
                for filler in fillers:
                    extra = {f"{UNKNOWN_KEY}{i}": filler for i in range(schema["maxProperties"] + 1 - len(value))}
                    yield _edited(instance, path, lambda o, e=extra: o.update(e)), "maxProperties", "too many keys"
        types = schema.get("type")
        if types is not None:
            allowed = {types} if isinstance(types, str) else set(types)
            for wrong in _wrong_values(allowed, value):
                described = f"{json_type(wrong)} where {sorted(allowed)} is required"
                yield _replaced(instance, path, wrong), "type", described
        if "const" in schema:
            for wrong in _other_values(schema["const"], [schema["const"]]):
                yield _replaced(instance, path, wrong), "const", f"{wrong!r} instead of the const {schema['const']!r}"
        if schema.get("enum"):
            for wrong in _other_values(value, schema["enum"]):
                yield _replaced(instance, path, wrong), "enum", f"{wrong!r} is not one of the enum values"
        if isinstance(value, str):
            yield from self._string_edits(instance, path, value, schema)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            yield from _number_edits(instance, path, value, schema)
        if isinstance(value, list):
            yield from _array_edits(instance, path, value, schema)

    def _string_edits(self, instance: Any, path: Path, value: str, schema: dict) -> Iterator[tuple[Any, str, str]]:
        if "pattern" in schema:
            for wrong in regex.strings_not_matching(schema["pattern"], value):
                yield _replaced(instance, path, wrong), "pattern", f"{wrong!r} does not match {schema['pattern']!r}"
        if schema.get("minLength", 0) > 0:
            yield _replaced(instance, path, value[: schema["minLength"] - 1]), "minLength", "one character too short"
        if "maxLength" in schema and schema["maxLength"] < PAYLOAD_LIMIT:
            filler = value[-1:] or "a"
            longer = value + filler * (schema["maxLength"] + 1 - len(value))
            yield _replaced(instance, path, longer), "maxLength", "one character too long"
        if "format" in schema:
            for wrong in (*_refused_urls(schema["format"], value), f"not-a-{schema['format']}", "",
                          "2026-13-45T99:99:99Z", "::"):
                yield _replaced(instance, path, wrong), "format", f"{wrong!r} is not a {schema['format']}"


def _refused_urls(fmt: Any, value: str) -> tuple[str, ...]:
    """The URL edge cases `fmt` refuses (`https://a.test:99999/`, `https://`, ...), first one chosen by `value`: one
    format mutant is kept per place, so different messages break a URL field in different ways."""
    refused = refused_samples(fmt) if isinstance(fmt, str) else ()
    if not refused:
        return ()
    start = zlib.crc32(value.encode("utf-8", "surrogatepass")) % len(refused)
    return refused[start:] + refused[:start]


_REFUSED = "the refused key "


def _http(message: Any) -> Any:
    return getattr(message, "http", None)


def _label_path(path: Path, keyword: str, description: str) -> Path:
    """Where the broken keyword's error is located: the object, except for an added refused key."""
    if keyword == "not" and description.startswith(_REFUSED):
        return (*path, description[len(_REFUSED):])
    return path


def _always_true(schema: Any) -> bool:
    if schema is True:
        return True
    return isinstance(schema, dict) and all(
        k in ("title", "description", "$comment", "examples", "default", "deprecated") or k.startswith("x-")
        for k in schema
    )


def _wrong_values(allowed: set[str], value: Any) -> list[Any]:
    if "number" in allowed:
        allowed = allowed | {"integer"}
    preferred = _WRONG_TYPE_VALUE.get(json_type(value), "wirecheck")
    out = [preferred] if json_type(preferred) not in allowed else []
    out += [v for t, v in _SAMPLES.items() if t not in allowed and not out]
    return out[:1]


def _other_values(value: Any, excluded: list[Any]) -> list[Any]:
    if isinstance(value, bool):
        options: list[Any] = [not value]
    elif isinstance(value, (int, float)):
        options = [max([v for v in excluded if isinstance(v, (int, float)) and not isinstance(v, bool)] or [0]) + 1]
    elif isinstance(value, str):
        options = [value + "-wirecheck", "wirecheck-not-listed"]
    elif value is None:
        options = ["wirecheck"]
    else:
        options = ["wirecheck"]
    return [o for o in options if o not in excluded][:1]


def _number_edits(instance: Any, path: Path, value: float, schema: dict) -> Iterator[tuple[Any, str, str]]:
    integral = isinstance(value, int)
    if "minimum" in schema:
        low = schema["minimum"]
        below = math.ceil(low) - 1 if integral else low - 1
        yield _replaced(instance, path, below), "minimum", f"{below} is below the minimum {low}"
    if "maximum" in schema:
        high = schema["maximum"]
        above = math.floor(high) + 1 if integral else high + 1
        yield _replaced(instance, path, above), "maximum", f"{above} is above the maximum {high}"
    for bound in ("exclusiveMinimum", "exclusiveMaximum"):
        if bound in schema:
            yield _replaced(instance, path, schema[bound]), bound, f"equal to the {bound} {schema[bound]}"
    step = schema.get("multipleOf")
    if step and step != 1:
        yield _replaced(instance, path, value + step / 2), "multipleOf", f"not a multiple of {step}"


def _array_edits(instance: Any, path: Path, value: list, schema: dict) -> Iterator[tuple[Any, str, str]]:
    if schema.get("minItems", 0) > 0:
        yield _replaced(instance, path, value[: schema["minItems"] - 1]), "minItems", "one item too few"
    if "maxItems" in schema and value and schema["maxItems"] < PAYLOAD_LIMIT:
        longer = value + [copy.deepcopy(value[-1])] * (schema["maxItems"] + 1 - len(value))
        yield _replaced(instance, path, longer), "maxItems", "one item too many"
    if schema.get("items") is False:
        yield _replaced(instance, path, [*value, 0]), "items", "an item beyond the closed prefixItems"
    if schema.get("uniqueItems") and value:
        yield _replaced(instance, path, [*value, copy.deepcopy(value[0])]), "uniqueItems", "a duplicate item"


# -- reading the reference validator's verdict ----------------------------------------------------------------
def _leaf_errors(errors: list[Any], label: tuple[str, str] | None = None) -> list[Any]:
    """The errors that remain once every union error is replaced by one branch's errors: the branch whose
    errors include the labelled one (fewest errors first), else the branch with the fewest errors."""
    leaves: list[Any] = []
    for error in errors:
        if error.validator in ("oneOf", "anyOf") and error.context:
            branches: dict[Any, list[Any]] = {}
            for sub in error.context:
                branches.setdefault(sub.relative_schema_path[0], []).append(sub)
            options = sorted((_leaf_errors(group, label) for group in branches.values()), key=len)
            with_label = [o for o in options if label and any(_matches(e, *label) for e in o)]
            leaves.extend((with_label or options)[0])
        else:
            leaves.append(error)
    return leaves


def _rs_leaf_errors(errors: list[Any], label: tuple[str, str]) -> list[Any]:
    """`_leaf_errors` over jsonschema-rs errors (union branches are in `error.kind.context`)."""
    leaves: list[Any] = []
    for error in errors:
        context = getattr(error.kind, "context", None)
        # "valid under more than one branch" is itself the failure, not a branch's
        if type(error.kind).__name__ in ("OneOfNotValid", "AnyOf") and context:
            options = sorted((_rs_leaf_errors(list(branch), label) for branch in context), key=len)
            with_label = [o for o in options if any(_rs_matches(e, *label) for e in o)]
            leaves.extend((with_label or options)[0])
        else:
            leaves.append(error)
    return leaves


def _rs_matches(error: Any, keyword: str, pointer: str) -> bool:
    # jsonschema-rs names some errors by what failed rather than the keyword (dependentRequired → "required",
    # items: false → "falseSchema"); the schema path still ends at the keyword
    named = error.kind.name == keyword or keyword in [str(p) for p in error.schema_path[-2:]]
    return named and format_pointer(error.instance_path) == pointer


def _matches(error: Any, keyword: str, pointer: str) -> bool:
    return error.validator == keyword and format_pointer(error.absolute_path) == pointer


def explain_rejection(validator: Any, instance: Any, label: tuple[str, str]) -> list[tuple[str, str]]:
    """(keyword, pointer) of each leaf error, in the branch that best fits `label`: what a test compares."""
    return [
        (error.validator, format_pointer(error.absolute_path))
        for error in _leaf_errors(list(validator.iter_errors(instance)), label)
    ]
