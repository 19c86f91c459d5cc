"""The classifier's decision tree must pick exactly what testing every selector in turn picks."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from wirecheck.check.classify import _FieldIndex, _holds, _keyed, pick_candidate

# Selectors shaped like the bundled ones: a top-level discriminator, then a subtype, a nested field, or a flag;
# two kinds share `user` with one more specific (isReplay: true), two share subtype values, and `result` splits
# two kinds on subtype.
SELECTORS = {
    "assistant": [[(("type",), {"assistant"})]],
    "user": [[(("type",), {"user"})]],
    "sdk.user": [[(("type",), {"user"})]],
    "user.replay": [[(("type",), {"user"}), (("isReplay",), {True})]],
    "user.synthetic": [[(("type",), {"user"}), (("isSynthetic",), {True})]],
    "result.success": [[(("type",), {"result"}), (("subtype",), {"success"})]],
    "result.error": [[(("type",), {"result"}), (("subtype",), {"error_max_turns", "error_during_execution"})]],
    "system.init": [[(("type",), {"system"}), (("subtype",), {"init"})]],
    "system.status": [[(("type",), {"system"}), (("subtype",), {"status"})]],
    "request.a": [[(("type",), {"control_request"}), (("request", "subtype"), {"a"})],
                  [(("type",), {"control_request"}), (("request", "type"), {"a"})]],
    "request.b": [[(("type",), {"control_request"}), (("request", "subtype"), {"b"})]],
    "numbered": [[(("type",), {1})]],
}
KINDS = [SimpleNamespace(id=name, fields=[tuple((t, frozenset(v)) for t, v in alt) for alt in alts], producer="cli")
         for name, alts in SELECTORS.items()]
INDEX = _FieldIndex.of(KINDS)  # type: ignore[arg-type]
CANDIDATES = [(len(alt), kind, _keyed(alt)) for kind in KINDS for alt in kind.fields]

scalars = st.sampled_from(["assistant", "user", "result", "system", "control_request", "success", "init",
                           "status", "error_max_turns", "a", "b", 1, 1.0, True, False, None, "other"])
values = st.one_of(scalars, st.lists(scalars, max_size=1), st.fixed_dictionaries({}, optional={
    "subtype": scalars, "type": scalars}))
messages = st.fixed_dictionaries({}, optional={"type": scalars, "subtype": scalars, "isReplay": values,
                                               "isSynthetic": values, "request": values})


def brute_force(message):
    return pick_candidate([c for c in CANDIDATES if _holds(message, c[2])], None)


@settings(max_examples=3000, deadline=None)
@given(messages)
def test_tree_picks_what_testing_every_selector_picks(message):
    assert INDEX.kind_of(message) is brute_force(message)
    assert {c[1].id for c in INDEX.walk(message)} == {c[1].id for c in CANDIDATES if _holds(message, c[2])}


def test_leaf_tests_resolve_none_one_and_several():
    assert INDEX.kind_of({"type": "user"}).id == "user"  # none holds: the first of the equally specific
    assert INDEX.kind_of({"type": "user", "isReplay": True}).id == "user.replay"
    assert INDEX.kind_of({"type": "user", "isReplay": 1}).id == "user"  # JSON 1 is not true
    both = {"type": "user", "isReplay": True, "isSynthetic": True}
    assert INDEX.kind_of(both) is brute_force(both)
    assert INDEX.kind_of({"type": "result", "subtype": "error_max_turns"}).id == "result.error"
    assert INDEX.kind_of({"type": "result"}) is None
