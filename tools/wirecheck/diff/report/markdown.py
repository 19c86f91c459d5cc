"""Markdown (a PR comment, a per-pair report): verdict table, version verdict, findings with witnesses."""

from __future__ import annotations

from typing import TextIO

from wirecheck.diff.report.common import VIEW_TEXT, breaks_text, payload_text, unique_witnesses
from wirecheck.findings import printable_stream

_ICON = {"breaking": "❌ breaking", "unknown": "❓ unknown", "safe": "✅ safe"}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def write_result(result, out: TextIO) -> None:
    out.write(f"## {result.package} {result.old_version} → {result.new_version}\n\n")
    out.write("| direction | " + " | ".join(VIEW_TEXT.values()) + " |\n|---|---|---|\n")
    for direction, label in (("forward", "forward: old consumers read new producers"),
                             ("backward", "backward: new consumers read old producers")):
        cells = [_ICON[result.compatibility(direction, view)] for view in VIEW_TEXT]
        out.write(f"| {label} | " + " | ".join(cells) + " |\n")
    out.write("\n")
    if result.version is not None:
        v = result.version
        out.write(f"Version bump: **{v.declared_bump}**; the changes require **{v.required_bump}**.")
        if v.old_wire or v.new_wire:
            out.write(f" Wire version {v.old_wire} → {v.new_wire}.")
        out.write("\n\n")
    if result.nothing_compared:
        out.write(f"**Nothing compared**: {_cell(result.nothing_compared)}.\n\n")
        return
    if not result.findings:
        out.write("No changes on the wire.\n\n")
        return
    out.write("| severity | rule | kind | where | change | verdict | fingerprint |\n|---|---|---|---|---|---|---|\n")
    for f in result.findings:
        waived = " (waived)" if f.waived else ""
        out.write(f"| {f.severity.value}{waived} | `{f.rule}` | `{_cell(f.kind)}` | `{_cell(f.path or '/')}` | "
                  f"{_cell(f.message)} | {_cell(breaks_text(f))} | `{f.fingerprint}` |\n")
    out.write("\n")
    witnessed = [f for f in result.findings if f.witnesses]
    if witnessed:
        out.write("### Witnesses\n\nPayloads one release accepts and the other rejects, checked by jsonschema-rs "
                  "and python-jsonschema.\n\n")
        for f in witnessed:
            out.write(f"- `{f.rule}` `{f.kind}` `{f.path or '/'}` (`{f.fingerprint}`)\n")
            for w in unique_witnesses(f):
                accepted = "new" if w.rejected_by == "old" else "old"
                out.write(f"  - {w.direction}/{w.view}: `{_cell(payload_text(w.payload))}` — {accepted} accepts, "
                          f"{w.rejected_by} rejects: {_cell(w.reason)}\n")
        out.write("\n")


def write(run, out: TextIO) -> None:
    out = printable_stream(out)  # a capture's control characters are shown, not obeyed
    out.write("# wirecheck contract diff\n\n")
    counts = run.counts()
    out.write(f"{len(run.results)} release pair(s): {counts['error']} error(s), {counts['warning']} warning(s), "
              f"{counts['info']} info, {counts['waived']} waived. Gate `--fail-on {run.fail_on}`: "
              f"**{run.gate.verdict}** ({run.gate.protects}"
              f"{'; ' + _cell(run.gate.why()) if run.gate.why() else ''}).\n\n")
    for result in run.results:
        write_result(result, out)
    if run.waiver_findings:
        out.write("## Waivers\n\n")
        for f in run.waiver_findings:
            out.write(f"- **{f.rule}** {f.message} ({f.path})\n")
