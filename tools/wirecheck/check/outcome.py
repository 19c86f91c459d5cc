"""How the program that wrote a capture ended, judged against the release's process obligations (behaviour.yaml):
its exit status after a given last message, exiting by itself within a bound after the end of its input or its last
message (a hang, or a crash by a signal, breaks it), and a final line feed.

The evidence is the capture's process record (capture/process.py), which the live harness writes; a capture without
one cannot show these, so their requirements are not exercised by it (never passed, never failed).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from wirecheck.capture.process import ProcessRecord
from wirecheck.check.message import Message
from wirecheck.check.sequences import breach
from wirecheck.contracts.behaviour import OUTCOME_FORMS, Match, Obligation
from wirecheck.contracts.model import ContractRelease
from wirecheck.findings import Finding

Emit = Callable[[Finding], None]
CODES = {"exit_status": "EXIT_STATUS", "exits": "EXIT", "final_newline": "FINAL_NEWLINE"}


def outcome_obligations(release: ContractRelease) -> tuple[Obligation, ...]:
    return tuple(o for o in release.obligations if o.form in OUTCOME_FORMS)


def judge_outcome(obligations: tuple[Obligation, ...], record: ProcessRecord, last: Message | None,
                  emit: Emit, latest: Mapping[str, Message]) -> dict[str, int]:
    """Each process obligation of the record's role against the record (`last`: the last classified message the
    program sent; `latest`: per obligation with `among`, the last message of those kinds); how many judgements each
    made (0: not exercised by this record)."""
    judged: dict[str, int] = {}
    for obligation in obligations:
        if obligation.subject != record.role:
            continue
        deciding = latest.get(obligation.id) if "among" in obligation.params else last
        found = _judge(obligation, record, deciding)
        if found is None:
            continue
        judged[obligation.id] = 1
        if found:
            emit(breach(obligation, found, file=record.file, line=record.line, code=CODES[obligation.form],
                        kind=deciding.kind.id if deciding is not None and deciding.kind is not None else None,
                        expected=_expected(obligation),
                        found="no line feed" if obligation.form == "final_newline" else record.how))
    return judged


def _judge(obligation: Obligation, record: ProcessRecord, last: Message | None) -> str | None:
    """What breaks the obligation ("" when nothing does), or None when the record cannot show it. `last`: the
    message that decides (the program's last, or with `among` the last of those kinds)."""
    params = obligation.params
    if obligation.form == "final_newline":
        if record.final_newline is None:
            return None
        return "" if record.final_newline else "the last line on stdout has no line feed: a reader that splits on " \
                                               "line ends keeps it as an unfinished line"
    if obligation.form == "exit_status":
        when: Match | None = params.get("when")
        shown = when is not None and last is not None and when.matches(last.kind.id if last.kind else None,
                                                                      last.value)
        after = f" after the {last.kind.id if last is not None and last.kind else 'last message'}" + (
            f" on line {last.line}" if last is not None and last.line is not None else "")
        if "or" in params:  # judged whatever came last
            if not record.stopped_by_harness and record.signal is None and (record.exit_status == params["equals"]
                                          or (record.exit_status == params["or"] and shown)):
                return ""
            return f"the {record.role} {record.how}{after}: {_expected(obligation)}"
        if when is not None and not shown:
            return None
        if record.exit_status == params["equals"]:
            return ""
        return f"the {record.role} {record.how}{after}: expected exit status {params['equals']}"
    # exits: by itself, within the bound
    start = record.input_closed_at if params["after"] == "end_of_input" else record.last_output_at
    since = "the end of its input" if params["after"] == "end_of_input" else "its last message"
    if start is None:
        return None
    if record.stopped_by_harness:
        if record.stopped_at is not None and record.stopped_at - start < params["within"]:
            return None  # the harness waited less than the bound: the run cannot show a hang
        waited = "" if record.stopped_at is None else f" {record.stopped_at - start:.1f} s after {since}"
        return f"the {record.role} did not exit after {since}: {record.how}{waited}"
    if record.signal is not None:
        return f"the {record.role} was {record.how}"
    if record.exited_at is not None and record.exited_at - start > params["within"]:
        return (f"the {record.role} exited {record.exited_at - start:.1f} s after {since}, more than "
                f"{params['within']:g} s")
    return ""


def _expected(obligation: Obligation) -> str:
    params = obligation.params
    if obligation.form == "exit_status":
        if "or" in params:
            return f"exit status {params['equals']}, or {params['or']} where the last of " \
                   f"{params['among'].text if 'among' in params else 'its messages'} is {params['when'].text}"
        return f"exit status {params['equals']}"
    if obligation.form == "exits":
        since = "end of input" if params["after"] == "end_of_input" else "its last message"
        return f"exits by itself within {params['within']:g} s of {since}"
    return "a line feed after the last line"
