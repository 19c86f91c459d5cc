"""A self-contained HTML page: per package, a compatibility matrix (older release × newer release) readable at a
glance, then the findings of every consecutive pair with their witnesses. No scripts, no external assets."""

from __future__ import annotations

from html import escape
from typing import TextIO

from wirecheck.diff.model import BACKWARD, FORWARD, STRICT, TOLERANT
from wirecheck.diff.report.common import breaks_text, payload_text, unique_witnesses

_MARK = {"breaking": "✗", "unknown": "?", "safe": "✓"}
_CLASS = {"breaking": "bad", "unknown": "maybe", "safe": "ok"}
_STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.35em .6em;vertical-align:top}
th{background:#f4f4f4}.ok{background:#dff5e1}.maybe{background:#fff4cc}.bad{background:#fbdada}.none{background:#fafafa}
code{font-size:12px}.sev-error{color:#b00020;font-weight:600}.sev-warning{color:#8a6d00}.sev-info{color:#555}
small{color:#555}
"""


def _worst(*verdicts: str) -> str:
    return "breaking" if "breaking" in verdicts else "unknown" if "unknown" in verdicts else "safe"


def _cell(result) -> str:
    f_t, b_t = result.compatibility(FORWARD, TOLERANT), result.compatibility(BACKWARD, TOLERANT)
    f_s, b_s = result.compatibility(FORWARD, STRICT), result.compatibility(BACKWARD, STRICT)
    worst = _worst(f_t, b_t)
    if worst == "safe" and _worst(f_s, b_s) != "safe":
        worst = "unknown"
    errors = sum(1 for f in result.findings if f.severity.value == "error" and not f.waived)
    waived = sum(1 for f in result.findings if f.waived)
    return (f'<td class="{_CLASS[worst]}" title="forward/backward for tolerant consumers; strict in brackets">'
            f"F {_MARK[f_t]} [{_MARK[f_s]}] · B {_MARK[b_t]} [{_MARK[b_s]}]<br><small>{errors} breaking"
            f"{f', {waived} waived' if waived else ''}</small></td>")


def _pairs_as_packages(results):
    """A run of single pairs (`wirecheck diff a b --format html`) still gets its matrix: one cell per pair."""
    from wirecheck.diff.package import PackageDiff

    grouped: dict[str, dict] = {}
    for result in results:
        grouped.setdefault(result.package, {})[(result.old_version, result.new_version)] = result
    out = []
    for name, matrix in grouped.items():
        versions = list(dict.fromkeys(v for pair in matrix for v in pair))
        out.append(PackageDiff(name, tuple(versions), matrix))
    return out


def write(run, out: TextIO) -> None:
    out.write(f"<!doctype html><html><head><meta charset='utf-8'><title>wirecheck contract diff</title>"
              f"<style>{_STYLE}</style></head><body><h1>wirecheck contract diff</h1>\n")
    out.write("<p>F = forward (old consumers read what new producers write), B = backward (new consumers read what "
              "old producers wrote). ✓ proven safe, ✗ breaking (with a witness payload), ? undecided. The mark is "
              "for tolerant consumers, the bracket for strict (closed-model) consumers.</p>\n")
    packages = list(run.packages) or _pairs_as_packages(run.results)
    for package in packages:
        releases = package.releases
        out.write(f"<h2>{escape(package.package)}</h2>\n<table><tr><th>older ↓ / newer →</th>")
        out.write("".join(f"<th>{escape(v)}</th>" for v in releases[1:]) + "</tr>\n")
        for older in releases[:-1]:
            out.write(f"<tr><th>{escape(older)}</th>")
            for newer in releases[1:]:
                result = package.matrix.get((older, newer))
                out.write(_cell(result) if result is not None else '<td class="none"></td>')
            out.write("</tr>\n")
        out.write("</table>\n")
        transitive = ", ".join(
            f"{d} {m}: {package.transitive(d, m)}" for d in (FORWARD, BACKWARD) for m in (TOLERANT, STRICT))
        out.write(f"<p><b>Transitive</b> ({escape(transitive)}); <b>full</b>: tolerant {package.full(TOLERANT)}, "
                  f"strict {package.full(STRICT)}.</p>\n")
    for result in run.results:
        out.write(f"<h3>{escape(result.name)}</h3>\n")
        if result.version is not None:
            v = result.version
            wire = f"; wire {escape(str(v.old_wire))} → {escape(str(v.new_wire))}" if v.old_wire else ""
            out.write(f"<p>Version bump {escape(v.declared_bump)}; changes require {escape(v.required_bump)}"
                      f"{wire}.</p>\n")
        if result.nothing_compared:
            out.write(f"<p><b>Nothing compared</b>: {escape(result.nothing_compared)}.</p>\n")
            continue
        if not result.findings:
            out.write("<p>No changes on the wire.</p>\n")
            continue
        out.write("<table><tr><th>severity</th><th>rule</th><th>kind</th><th>where</th><th>change</th>"
                  "<th>verdict</th><th>witness</th></tr>\n")
        for f in result.findings:
            witnesses = "<br>".join(
                f"{escape(w.direction)}/{escape(w.view)}: <code>{escape(payload_text(w.payload, 160))}</code>"
                for w in unique_witnesses(f))
            out.write(f"<tr><td class='sev-{f.severity.value}'>{f.severity.value}{' (waived)' if f.waived else ''}"
                      f"</td><td><code>{escape(f.rule)}</code></td><td><code>{escape(f.kind)}</code></td>"
                      f"<td><code>{escape(f.path or '/')}</code></td><td>{escape(f.message)}</td>"
                      f"<td>{escape(breaks_text(f))}</td><td>{witnesses}</td></tr>\n")
        out.write("</table>\n")
    if run.waiver_findings:  # a stale or expired waiver fails the run: the page says so
        out.write("<h3>Waivers</h3>\n<table><tr><th>severity</th><th>rule</th><th>waiver</th><th>problem</th></tr>\n")
        for f in run.waiver_findings:
            out.write(f"<tr><td class='sev-{f.severity.value}'>{f.severity.value}</td><td><code>{escape(f.rule)}"
                      f"</code></td><td><code>{escape(f.path)}</code></td><td>{escape(f.message)}</td></tr>\n")
        out.write("</table>\n")
    counts = run.counts()
    out.write(f"<p><b>{len(run.results)} release pair(s)</b>: {counts['error']} error(s), {counts['warning']} "
              f"warning(s), {counts['info']} info, {counts['waived']} waived; gate <code>--fail-on "
              f"{escape(run.fail_on)}</code>: <b>{escape(run.gate.verdict)}</b> ({escape(run.gate.summary())})</p>\n")
    out.write("</body></html>\n")
