"""The consumer-fuzz report as Markdown (the JSON form is `FuzzReport.as_json()`)."""

from __future__ import annotations

from typing import Any

from wirecheck.fuzz.consumer import CATEGORIES, FAILING, FuzzReport
from wirecheck.json_types import json_text
from wirecheck.markdown_text import code, text

_TITLES = {
    "valid-rejected": "Valid messages the consumer rejects",
    "invalid-accepted": "Invalid messages the consumer accepts",
    "crash": "Crashes (an exception other than the declared rejection)",
    "hang": "Hangs (no answer within the timeout)",
    "unknown-field-accepted": "Unknown fields tolerated (tolerant reader; not a failure)",
}


# Many small groups: one table row each (the examples are in the JSON report).
_AS_TABLE = ("invalid-accepted", "unknown-field-accepted")
_INLINE_EXAMPLE = 160


def _table(group: list[Any]) -> list[str]:
    rows = ["| kind | breaks | n | seen at | minimal example |", "|---|---|---:|---|---|"]
    for failure in group:
        places = ", ".join(f"`{p.split(' at ', 1)[-1]}`" for p in sorted(failure.places)[:4])
        if len(failure.places) > 4:
            places += f" (+{len(failure.places) - 4})"
        example = _json(failure.example)
        shown = f"`{example}`".replace("|", "\\|") if len(example) <= _INLINE_EXAMPLE else "(in the JSON report)"
        rows.append(f"| `{failure.kind}` | {failure.signature} | {failure.count} | {places} | {shown} |")
    return rows


def _json(value: Any) -> str:
    return json_text(value)


def _verdict(report: FuzzReport) -> str:
    if report.run_failed:
        return "RUN FAILED (the consumer never answered: no verdict)"
    return "FAILS" if report.failed else "AGREES WITH THE CONTRACT"


def render_markdown(report: FuzzReport) -> str:
    data = report.as_json()
    lines = [
        f"# Consumer fuzz report: {report.release}",
        "",
        f"- consumer: {report.consumer}",
        f"- seed {report.seed}, {report.count} valid messages and up to {report.count} mutants per kind",
        f"- verdict: **{_verdict(report)}**",
        "",
        "| category | messages | distinct |",
        "|---|---:|---:|",
    ]
    if report.run_failed:
        lines[-3:-3] = [f"- run failed: {text(report.run_failed)}", *(
            [f"- the program said: {code(report.program_said, table=False)}"] if report.program_said else [])]
    for category in CATEGORIES:
        distinct = sum(1 for f in report.failures if f.category == category)
        lines.append(f"| {category} | {data['totals'][category]} | {distinct} |")
    lines += ["", "## Outcomes per kind", "", "| kind | valid: outcome × n | mutants: outcome × n |", "|---|---|---|"]
    for kind, tally in report.kinds.items():
        valid = ", ".join(f"{k} × {v}" for k, v in sorted(tally.valid.items()))
        invalid = ", ".join(f"{k} × {v}" for k, v in sorted(tally.invalid.items())) or "—"
        lines.append(f"| `{kind}` | {valid} | {invalid} |")
    if report.not_generated:
        lines += ["", "## Kinds not tested", "", "No message could be generated for these kinds; the consumer never "
                  "saw one:", "", *[f"- `{k}`: {why}" for k, why in report.not_generated.items()]]
    ignored = [k for k, t in report.kinds.items() if t.valid and set(t.valid) == {"ignore"}]
    if ignored:
        lines += [
            "",
            "## Kinds the consumer ignores",
            "",
            "Every valid message of these kinds was skipped (the callable returned None). Not a failure by itself"
            " (forward-compatible parsers skip what they do not know), but the contract says the consumer receives"
            " them:",
            "",
            *[f"- `{k}`" for k in ignored],
        ]
    for category in CATEGORIES:
        group = [f for f in report.failures if f.category == category]
        if not group:
            continue
        lines += ["", f"## {_TITLES[category]}", ""]
        if category in _AS_TABLE:
            lines += _table(group)
            continue
        for failure in group:
            shrunk = "minimal example" if failure.shrunk else "example (not shrunk)"
            lines += [
                f"### `{failure.kind}`: {failure.signature} ({failure.count}×)",
                "",
            ]
            if failure.label:
                lines.append(f"- breaks: `{failure.label}`")
            if failure.verdict.detail and category in FAILING:
                lines.append(f"- consumer said: {failure.verdict.outcome} — `{failure.verdict.detail}`")
            places = ", ".join(f"`{p}` × {n}" for p, n in sorted(failure.places.items()))
            lines += [f"- seen at: {places}", f"- {shrunk}:", "", "```json", _json(failure.example), "```", ""]
    return "\n".join(lines).rstrip() + "\n"
