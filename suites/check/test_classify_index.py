"""The classifier's decision tree must pick exactly what testing every selector in turn picks, and its stream
routes (the tree's top as data, walked inline by the engine) must lead where the tree does."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from wirecheck.check.classify import ASK, Classifier, _FieldIndex, _holds, _keyed, pick_candidate
from wirecheck.check.message import Message
from wirecheck.contracts.model import ABSENT, PRESENT

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


PLAIN = _FieldIndex.of([k for k in KINDS if k.id != "numbered"])  # type: ignore[arg-type]


def walk(routes, message):
    route = routes
    while type(route) is tuple:
        route = route[1].get(message.get(route[0]))
    return route


@settings(max_examples=3000, deadline=None)
@given(messages)
def test_routes_lead_where_the_tree_does(message):
    kind = PLAIN.kind_of(message)
    try:
        route = walk(PLAIN.routes(), message)
    except TypeError:  # an object or array as a discriminator: no kind
        assert kind is None
        return
    if route is not ASK:
        assert route == (kind.id if kind else None)


def test_routes_hand_over_what_plain_data_cannot_say():
    assert INDEX.routes() is ASK  # 1 among the `type` values: as a dict key, JSON true would select it
    key, branches = PLAIN.routes()
    assert key == "type" and branches["assistant"] == "assistant"
    assert branches["result"] == ("subtype", {"success": "result.success", "error_max_turns": "result.error",
                                              "error_during_execution": "result.error"})
    assert branches["user"] is ASK  # isReplay and isSynthetic decide
    assert branches["control_request"] is ASK  # a nested pointer decides
    assert "other" not in branches
    null_valued = _FieldIndex.of([SimpleNamespace(id=i, fields=[((("type",), frozenset([v])),)], producer="cli")
                                  for i, v in (("a", "a"), ("n", None))])  # type: ignore[arg-type]
    assert null_valued.routes() is ASK  # a missing `type` reads as None from a dict: null must not match it


# JSON-RPC as the bundled releases write it (acp, mcp): requests and notifications by /method, answers of both sides
# by /id, /result or /error present and /method absent, told apart by their sender; plus a leaf whose tests read one
# pointer for presence and for values at once, and a flag (true is not 1).
RPC = {
    "agent.prompt": [[(("jsonrpc",), {"2.0"}), (("method",), {"session/prompt"})]],
    "client.update": [[(("jsonrpc",), {"2.0"}), (("method",), {"session/update"})]],
    "agent.response": [[(("jsonrpc",), {"2.0"}), (("id",), PRESENT), (("result",), PRESENT), (("method",), {ABSENT})],
                       [(("jsonrpc",), {"2.0"}), (("error",), PRESENT), (("id",), PRESENT), (("method",), {ABSENT})]],
    "client.response": [[(("jsonrpc",), {"2.0"}), (("id",), PRESENT), (("result",), PRESENT),
                         (("method",), {ABSENT})],
                        [(("jsonrpc",), {"2.0"}), (("error",), PRESENT), (("id",), PRESENT),
                         (("method",), {ABSENT})]],
    "client.response.numbered": [[(("jsonrpc",), {"2.0"}), (("id",), {1, "one"}), (("result",), PRESENT),
                                  (("method",), {ABSENT}), (("result", "done"), {True})]],
}
RPC_KINDS = [SimpleNamespace(id=name, fields=[tuple((t, v if v is PRESENT else frozenset(v)) for t, v in alt)
                                              for alt in alts], producer=name.split(".")[0])
             for name, alts in RPC.items()]
RPC_INDEX = _FieldIndex.of(RPC_KINDS)  # type: ignore[arg-type]
RPC_CANDIDATES = [(len(alt), kind, _keyed(alt)) for kind in RPC_KINDS for alt in kind.fields]
rpc_scalars = st.sampled_from(["2.0", "session/prompt", "session/update", "one", 1, 1.0, 2, True, False, None, "x"])
rpc_values = st.one_of(rpc_scalars, st.lists(rpc_scalars, max_size=1),
                       st.fixed_dictionaries({}, optional={"done": rpc_scalars}))
rpc_messages = st.fixed_dictionaries({}, optional={"jsonrpc": rpc_scalars, "method": rpc_values, "id": rpc_values,
                                                   "result": rpc_values, "error": rpc_values})


@settings(max_examples=3000, deadline=None)
@given(rpc_messages, st.sampled_from([None, "agent", "client"]))
def test_a_leaf_decides_once_per_signature_what_testing_every_selector_decides(message, sender):
    """Issue 43: a leaf remembers which of its candidates hold per signature of a message (what each pointer its
    tests read finds, as a class); every message, whichever came before it, is classified as testing each
    selector in turn classifies it, with and without its sender."""
    holding = [c for c in RPC_CANDIDATES if _holds(message, c[2])]
    assert RPC_INDEX.kind_of(message) is pick_candidate(holding, None)
    walked = RPC_INDEX.walk(message)
    assert sorted(c[1].id for c in walked) == sorted(c[1].id for c in holding)
    assert pick_candidate(walked, sender) is pick_candidate(holding, sender)


def test_answers_of_both_sides_are_told_apart_by_their_sender_and_remembered():
    answer = {"jsonrpc": "2.0", "id": 3, "result": {}}
    assert pick_candidate(RPC_INDEX.walk(answer), "client").id == "client.response"
    assert pick_candidate(RPC_INDEX.walk(answer), "agent").id == "agent.response"
    assert pick_candidate(RPC_INDEX.walk({**answer, "id": [1]}), "agent").id == "agent.response"  # an array id
    numbered = {"jsonrpc": "2.0", "id": 1, "result": {"done": True}}
    assert RPC_INDEX.kind_of(numbered).id == "client.response.numbered"
    assert RPC_INDEX.kind_of({**numbered, "result": {"done": 1}}).id == "agent.response"  # 1 is not true
    assert RPC_INDEX.kind_of({**numbered, "id": 2}).id == "agent.response"  # an id no test names
    assert RPC_INDEX.kind_of({**numbered, "id": {"a": 1}}).id == "agent.response"  # an object id: none accepts it
    leaves = [node for node in _nodes(RPC_INDEX) if node.tested]
    assert leaves and all(len(node.decided) <= 64 for node in leaves) and any(node.decided for node in leaves)


def _nodes(node):
    yield node
    for child in [*node.branches.values(), *([node.others] if node.others is not None else [])]:
        yield from _nodes(child)


RPC_CLASSIFIER = Classifier(SimpleNamespace(kinds=[SimpleNamespace(**vars(kind), channel="stdio-ndjson", http=None)
                                                   for kind in RPC_KINDS]))  # type: ignore[arg-type]


@settings(max_examples=2000, deadline=None)
@given(rpc_messages, st.sampled_from([None, "agent", "client"]))
def test_a_framed_message_is_classified_as_weighing_every_candidate_with_its_sender(message, sender):
    """Issue 43: `classify` takes the inlined walk first (stream_message_kind), weighing every candidate with the
    sender only where the kind it finds is not the sender's: the kind picking among all that hold would give."""
    holding = [c for c in RPC_CANDIDATES if _holds(message, c[2])]
    expected = pick_candidate(holding, sender)
    found = RPC_CLASSIFIER.classify(Message(value=message, file="x", sender=sender))
    assert (found.id if found else None) == (expected.id if expected else None)
