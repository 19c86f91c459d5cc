"""Object members: properties added or removed, required or optional, models opened or closed."""

from __future__ import annotations

from collections.abc import Iterator

from wirecheck.diff.flat import Flat, refining_alternatives, takes_objects
from wirecheck.diff.instances import NoExample, example, refined_objects
from wirecheck.diff.model import ABSENT, Change, Probe
from wirecheck.diff.rules import Pair, node_rule
from wirecheck.diff.shape import constrains_nothing
from wirecheck.diff.side import Side

EXTRA_FIELD = "x_wirecheck_unknown_field"


def _sample(side, location):
    try:
        return example(side, location)
    except NoExample:
        return "x"


@node_rule(
    "PROPERTY_ADDED",
    "PROPERTY_ADDED_TO_CLOSED_MODEL",
    "REQUIRED_PROPERTY_ADDED",
    "PROPERTY_REMOVED",
    "PROPERTY_REMOVED_FROM_CLOSED_MODEL",
    "REQUIRED_PROPERTY_REMOVED",
)
def added_or_removed(pair: Pair) -> Iterator[Change]:
    old, new = pair.old, pair.new
    if "object" not in (old.types or ()) or "object" not in (new.types or ()):
        return
    for name in sorted(set(new.properties) - set(old.properties)):
        if _unread(pair.new_side, new.properties[name], old, name):
            continue
        child = (*pair.path, name)
        value = _sample(pair.new_side, new.properties[name])
        probes = [Probe("new", child, value, True)]
        if not old.closed:  # the open old model let producers put anything under that name
            probes += [Probe("old", child, v, True) for v in _other_values(value)]
        if name in new.required:
            probes.append(Probe("old", child, ABSENT, True))
            rule = "REQUIRED_PROPERTY_ADDED"
        else:
            rule = "PROPERTY_ADDED_TO_CLOSED_MODEL" if old.closed else "PROPERTY_ADDED"
        yield pair.change(rule, path=child, new_location=new.properties[name], probes=probes, property=name,
                          key=name)
    for name in sorted(set(old.properties) - set(new.properties)):
        if _unread(pair.old_side, old.properties[name], new, name):
            continue
        child = (*pair.path, name)
        value = _sample(pair.old_side, old.properties[name])
        probes = [Probe("old", child, value, True), Probe("new", child, ABSENT, True)]
        if not new.closed:
            # an open new model accepts any value under the removed name, including ones the old type refused
            probes += [Probe("new", child, v, True) for v in _other_values(value)]
        if name in old.required:
            rule = "REQUIRED_PROPERTY_REMOVED"
        else:
            rule = "PROPERTY_REMOVED_FROM_CLOSED_MODEL" if new.closed else "PROPERTY_REMOVED"
        yield pair.change(rule, path=child, old_location=old.properties[name], probes=probes, property=name,
                          key=name)


def _unread(side: Side, location: str, other: Flat, name: str) -> bool:
    """Whether declaring an optional property that admits anything changes nothing: the other side's object is
    open to that name with no schema for other names (ACP 0.4.9 → 0.5.1 dropped `_meta: {}` from open objects;
    shape.same_shape reads such a property as undeclared too)."""
    return (constrains_nothing(side, location) and not other.closed and other.additional is None
            and not _named_by_pattern(other, name) and name not in other.required)


def _named_by_pattern(flat: Flat, name: str) -> bool:
    """Whether a `patternProperties` pattern of `flat` reads `name` (so its value is constrained there): a `{}`
    added beside patterns that do not match it (AsyncAPI's `^x-` extensions) is still no change (issue 39). A
    pattern that cannot be read counts as matching."""
    from wirecheck.ecma_regex import search

    for pattern in flat.patterns:
        try:
            if search(pattern, name):
                return True
        except Exception:  # RegressError, RegexTimeout: unsure, so read as constraining
            return True
    return False


def _other_values(value: object) -> list[object]:
    samples: list[object] = [None, 0, "x", True, {}, []]
    return [s for s in samples if type(s) is not type(value)][:3]


@node_rule("PROPERTY_BECAME_REQUIRED", "PROPERTY_BECAME_OPTIONAL")
def requiredness(pair: Pair) -> Iterator[Change]:
    old, new = pair.old, pair.new
    # a name both declare, or one neither declares a schema for (`required: [foo]` → `[bar]` beside no `bar`
    # property: `bar` is now required, `foo` optional); a property added or removed is reported as such
    both = (set(old.properties) & set(new.properties)) | ((old.required | new.required) - set(old.properties)
                                                          - set(new.properties))
    for name in sorted((new.required - old.required) & both):
        child = (*pair.path, name)
        yield pair.change("PROPERTY_BECAME_REQUIRED", path=child, probes=[Probe("old", child, ABSENT, True)],
                          property=name, key=name)
    for name in sorted((old.required - new.required) & both):
        child = (*pair.path, name)
        yield pair.change("PROPERTY_BECAME_OPTIONAL", path=child, probes=[Probe("new", child, ABSENT, True)],
                          property=name, key=name)


@node_rule("REQUIRED_ALTERNATIVES_ADDED", "REQUIRED_ALTERNATIVES_REMOVED")
def alternatives(pair: Pair) -> Iterator[Change]:
    """An object gained (or lost) a union of `required` lists beside its properties (AsyncAPI 2.1's message
    example: `anyOf: [{required: [payload]}, {required: [headers]}]`): a message with none of the sets is refused
    now. (A union beside the properties only refines the object, so the union rules leave it alone; issue 39: this
    break was reported nowhere.) Probed with the other side's objects, one per set it asks for."""
    old, new = pair.old, pair.new
    if not takes_objects(old) or not takes_objects(new) or bool(old.union) == bool(new.union):
        return
    for rule, union, side, plain, other, other_side in (
            ("REQUIRED_ALTERNATIVES_ADDED", new, pair.new_side, old, "old", pair.old_side),
            ("REQUIRED_ALTERNATIVES_REMOVED", old, pair.old_side, new, "new", pair.new_side)):
        sets = refining_alternatives(side, union)
        if sets and not plain.union:
            probes = [Probe(other, pair.path, value, True) for value in refined_objects(other_side, plain)]
            text = " or ".join(f"[{', '.join(sorted(names))}]" for names in sets)
            yield pair.change(rule, probes=probes, alternatives=text, key=text,
                              how="exactly one" if union.union == "oneOf" else "at least one")


@node_rule("MODEL_CLOSED", "MODEL_OPENED")
def openness(pair: Pair) -> Iterator[Change]:
    old, new = pair.old, pair.new
    if not takes_objects(old) or not takes_objects(new) or old.closed == new.closed:
        return
    child = (*pair.path, EXTRA_FIELD)
    rule, writer, reader, side = ("MODEL_CLOSED", "old", new, pair.new_side) if new.closed else (
        "MODEL_OPENED", "new", old, pair.old_side)
    # the unknown member planted in the writer's smallest object, and in the reader's own objects (so that nothing
    # but the unknown member is refused there: AsyncAPI 2.1's trait examples were closed and asked for `payload`
    # or `headers` at once, and `{"x": 1}` was refused for lacking those)
    probes = [Probe(writer, child, "x", True)] + [
        Probe(writer, pair.path, {**value, EXTRA_FIELD: "x"}, True) for value in refined_objects(side, reader)
        if isinstance(value, dict) and value]
    yield pair.change(rule, probes=probes)


def _similar(a: str, b: str) -> bool:
    a, b = a.lower(), b.lower()
    return a.startswith(b) or b.startswith(a) or a.replace("_", "") == b.replace("_", "")


@node_rule("PROPERTY_RENAMED")
def renamed(pair: Pair) -> Iterator[Change]:
    """A removed and an added property of one object whose names say they are the same field (`url` →
    `urlTemplate`): an explanation tying the removal and the addition together; they carry the verdicts."""
    old, new = pair.old, pair.new
    if "object" not in (old.types or ()) or "object" not in (new.types or ()):
        return
    removed = sorted(set(old.properties) - set(new.properties))
    added = sorted(set(new.properties) - set(old.properties))
    for name in removed:
        twins = [a for a in added if _similar(name, a)]
        if len(twins) == 1:
            yield pair.change("PROPERTY_RENAMED", path=(*pair.path, twins[0]), old_location=old.properties[name],
                              new_location=new.properties[twins[0]], old=name, new=twins[0],
                              key=f"{name}->{twins[0]}")
