"""Requests awaiting their responses are bounded (check/correlation.py): memory does not grow with the number of
requests in a capture, and what the bound hides is said, never turned into a wrong finding."""

from __future__ import annotations

import pytest

from wirecheck.check import correlation
from wirecheck.check.engine import check_captures
from wirecheck.findings import Severity

HEADER = {"wirecheck_capture": 1, "framing": "directed"}
HELLO = {"type": "hello", "version": "1.0.0"}


def request(n: int) -> dict:
    return {"from": "client", "message": {"type": "request", "request_id": n, "request": {"subtype": "ping"}}}


def response(n: int) -> dict:
    return {"from": "server", "message": {"type": "response", "response": {"request_id": n, "subtype": "success"}}}


@pytest.fixture
def small_limits(monkeypatch):
    monkeypatch.setattr(correlation, "MAX_AWAITING", 3)
    monkeypatch.setattr(correlation, "MAX_ANSWERED", 2)


def codes(demo, path) -> list[tuple[str, int | None]]:
    return [(f.code, f.line) for f in check_captures(demo, [path]).findings
            if f.code in {"CORRELATION_LIMIT", "REQUEST_WITHOUT_RESPONSE", "RESPONSE_WITHOUT_REQUEST",
                          "DUPLICATE_RESPONSE"}]


def test_within_the_limits_every_correlation_finding_is_exact(demo, write_lines, small_limits):
    path = write_lines([HEADER, {"from": "server", "message": HELLO}, request(1), request(2), response(1),
                        response(1), response(9)])
    assert codes(demo, path) == [("DUPLICATE_RESPONSE", 6), ("RESPONSE_WITHOUT_REQUEST", 7),
                                 ("REQUEST_WITHOUT_RESPONSE", 4)]


def test_past_the_awaiting_limit_the_oldest_are_untracked_and_the_note_says_so(demo, write_lines, small_limits):
    lines = [HEADER, {"from": "server", "message": HELLO}, *(request(n) for n in range(1, 6)), response(1),
             response(5)]
    path = write_lines(lines)
    found = codes(demo, path)
    # requests 1 and 2 are no longer tracked: the response to 1 is not called one to no request, and they are not
    # called unanswered; 3 and 4 still are
    assert found == [("REQUEST_WITHOUT_RESPONSE", 5), ("REQUEST_WITHOUT_RESPONSE", 6), ("CORRELATION_LIMIT", None)]
    [note] = [f for f in check_captures(demo, [path]).findings if f.code == "CORRELATION_LIMIT"]
    assert note.severity is Severity.WARNING
    assert "the 2 oldest were no longer tracked" in note.message and "nor are the 1 responses" in note.message


def test_past_the_answered_limit_a_late_second_response_says_it_may_answer_an_old_request(demo, write_lines,
                                                                                         small_limits):
    lines = [HEADER, {"from": "server", "message": HELLO}]
    for n in range(1, 5):
        lines += [request(n), response(n)]
    lines.append(response(1))  # a second response to 1, answered four requests ago
    result = check_captures(demo, [write_lines(lines)])
    [late] = [f for f in result.findings if f.code == "RESPONSE_WITHOUT_REQUEST"]
    assert late.line == 11 and "or to one answered before the last 2" in late.message


@pytest.mark.parametrize("seed", range(20))
def test_a_request_answered_at_once_leaves_what_a_request_and_its_response_leave(small_limits, seed):
    """Correlation.answered_at_once (a worker's settled pair, check/parts.py) against request() then response():
    the same requests awaiting and answered, in the same order, the same counts, whatever came before (an id still
    awaiting, the bound on those awaiting reached, answered ones forgotten); where it declines, nothing changed."""
    import random

    from wirecheck.check.correlation import Correlation, Request

    rng = random.Random(seed)
    one, other = Correlation(), Correlation()

    def state(c: Correlation) -> tuple:
        return ([(k, r.line, r.answered) for k, r in c.awaiting.items()],
                [(k, r.line, r.answered) for k, r in c.answered.items()], c.dropped, c.forgotten)

    declined = 0
    for line in range(200):
        key = rng.randrange(6)
        what = rng.random()
        if what < 0.3:
            for c in (one, other):
                c.request(key, Request(None, key, "f", line, None, None))
        elif what < 0.5:
            for c in (one, other):
                c.response(key)
        else:
            before = state(other)
            if other.answered_at_once(key, Request(None, key, "f", line, None, None, 1)):
                one.request(key, Request(None, key, "f", line, None, None))
                one.response(key)
            else:
                declined += 1
                assert state(other) == before
                for c in (one, other):
                    c.request(key, Request(None, key, "f", line, None, None))
                    c.response(key)
        assert state(one) == state(other)
    assert declined and one.forgotten
