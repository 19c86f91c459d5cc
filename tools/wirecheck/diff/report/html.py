"""A self-contained HTML page: the gate line, the answers (one row per pair), a legend of the marks the page uses, per
package a compatibility matrix whose every cell links to that pair's details (the transitive cells too), then the
details: each change once, its members (fingerprints only in a data attribute: they are ids for JSON, SARIF and
waivers files), one witness per broken direction (shortened; the whole payload behind a disclosure). Everything
wraps to the page width; no scripts, no external assets."""

from __future__ import annotations

import io
import re
from html import unescape
from typing import TextIO

from wirecheck.diff.changes import group_changes
from wirecheck.diff.model import BACKWARD, FORWARD, STRICT, TOLERANT
from wirecheck.diff.report.common import (
    LATENT_WORD,
    MARK,
    PairReport,
    Statement,
    breaking_readers,
    build,
    change_counts,
    change_verdict,
    counts_text,
    flows_table,
    gate_why,
    legend_for,
    member_statements,
    pair_anchor,
    pair_report,
    payload_text,
    places_of,
    short_payload,
    verdict_word,
    version_text,
    witness_path,
)
from wirecheck.html_text import escape, words

_CLASS = {"breaking": "bad", "unknown": "maybe", "safe": "ok", "undecided": "maybe", "compatible": "ok",
          LATENT_WORD: "maybe"}
_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:1.5em;color:#222;overflow-wrap:anywhere}
table{border-collapse:collapse;margin:1em 0;max-width:100%}td,th{border:1px solid #ccc;padding:.35em .6em;
vertical-align:top;text-align:left}
table.answers{width:100%;table-layout:fixed}table.answers col.pair{width:9em}table.answers col.verdict{width:6.5em}
th{background:#f4f4f4}.ok{background:#dff5e1}.maybe{background:#fff4cc}.bad{background:#fbdada}.none{background:#fafafa}
td a{color:inherit}code{font-size:12px;overflow-wrap:anywhere;white-space:pre-wrap}
.sev-error{color:#b00020;font-weight:600}.sev-warning{color:#8a6d00}.sev-info{color:#555}small{color:#555}
.change{border-left:4px solid #ccc;padding:.2em .8em;margin:.8em 0}.change.bad{border-color:#d33;background:none}
.change.maybe{border-color:#d9a400;background:none}.change ul{margin:.3em 0;padding-left:1.2em}
details pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#fafafa;border:1px solid #eee;padding:.5em;
font-size:12px;max-width:100%}
"""


def write(run, out: TextIO) -> None:
    report = build(run)
    listed = {(p.result.package, p.result.old_version, p.result.new_version) for p in report.pairs}
    extra = [pair_report(r, run) for package in run.packages for r in package.matrix.values()
             if (r.package, r.old_version, r.new_version) not in listed]  # every matrix cell gets its details
    page = io.StringIO()
    w = page.write
    w("<!doctype html><html lang='en'><head><meta charset='utf-8'>"
      "<meta name='viewport' content='width=device-width, initial-scale=1'><title>wirecheck contract diff</title>"
      f"<style>{_STYLE}</style></head><body><h1>wirecheck contract diff</h1>\n<p>{_gate(run, report)}</p>\n")
    header = ("<table class='answers'><colgroup><col class='pair'><col class='verdict'><col><col><col><col>"
              "</colgroup><tr><th>pair</th><th>verdict</th><th>old readers that break (forward)</th>"
              "<th>new readers that break (backward)</th><th>version</th><th>what to do</th></tr>\n")
    steps, jumps = [p for p in report.pairs if not p.jump], [p for p in report.pairs if p.jump]
    for rows, heading in ((steps, ""), (jumps, "<p>Longer jumps that break where no single step shows it:</p>\n")):
        if not rows:
            continue
        w(heading + header)
        for pair in rows:
            r, a = pair.result, pair.answer
            word = verdict_word(a)
            w(f"<tr><td><a href='#{pair.anchor}'>{escape(r.package)} {escape(r.old_version)} → "
              f"{escape(r.new_version)}</a>{' <small>(skips releases)</small>' if pair.jump else ''}</td>"
              f"<td class='{_CLASS[word]}'>{word}</td><td>{escape(breaking_readers(a, 'forward'))}</td>"
              f"<td>{escape(breaking_readers(a, 'backward'))}</td><td>{escape(version_text(r, a))}</td>"
              f"<td>{'<br>'.join(escape(x) for x in a.advice)}</td></tr>\n")
        w("</table>\n")
    w("<!--legend-->\n")
    for package in run.packages or _pairs_as_packages(run.results):
        _matrix(package, w)
    for pair in (*report.pairs, *extra):
        _details(pair, w)
    if run.waiver_findings:  # a stale or expired waiver fails the run: the page says so
        w("<h2>Waivers</h2><ul>")
        for f in run.waiver_findings:
            w(f"<li class='sev-{f.severity.value}'>{escape(f.rule)}: {words(f.message)} "
              f"(<code>{escape(f.path)}</code>)</li>")
        w("</ul>\n")
    w(f"<p>{escape(counts_text(change_counts(report)))} in {len(report.pairs)} release pair"
      f"{'' if len(report.pairs) == 1 else 's'}.</p>\n</body></html>\n")
    html = page.getvalue()
    entries = legend_for(unescape(re.sub(r"<[^>]+>", " ", html)))  # the marks the page uses, and only those
    legend = "<dl>" + "".join(f"<dt><b>{escape(term)}</b></dt><dd>{escape(words)}</dd>" for term, words in entries) \
        + "</dl>" if entries else ""
    out.write(html.replace("<!--legend-->", legend, 1))


def _gate(run, report) -> str:
    """The run's one gate decision (diff/gate.py), the one its exit code is, said once."""
    gate = run.gate
    why = gate_why(run, report)
    return (f"gate <code>--fail-on {escape(gate.fail_on)}</code>: <b>{escape(gate.verdict)}</b> "
            f"({escape(gate.protects)}{'; ' + escape(why) if why else ''})")


def _pairs_as_packages(results):
    """A run of single pairs (`wirecheck diff a b --format html`) still gets its matrix: one cell per pair."""
    from wirecheck.diff.package import PackageDiff

    grouped: dict[str, dict] = {}
    for result in results:
        grouped.setdefault(result.package, {})[(result.old_version, result.new_version)] = result
    return [PackageDiff(name, tuple(dict.fromkeys(v for pair in matrix for v in pair)), matrix)
            for name, matrix in grouped.items()]


def _matrix(package, w) -> None:
    releases = package.releases
    w(f"<h2>{escape(package.package)}</h2>\n")
    if len(releases) < 2:
        w(f"<p>One release ({escape(', '.join(releases) or 'none loadable')}): nothing to compare.</p>\n")
        return
    w("<p>Each cell: whether old readers break on new writers (forward) and new readers on old writers (backward), "
      "for tolerant readers, and for strict readers where they differ; each cell links to its pair.</p>\n"
      "<table><tr><th>older ↓ / newer →</th>")
    w("".join(f"<th>{escape(v)}</th>" for v in releases[1:]) + "</tr>\n")
    for older in releases[:-1]:
        w(f"<tr><th>{escape(older)}</th>")
        for newer in releases[1:]:
            result = package.matrix.get((older, newer))
            w(_cell(result) if result is not None else "<td class='none'></td>")
        w("</tr>\n")
    w("</table>\n")
    w(f"<p><b>Transitive</b> (every earlier → every later release): forward {package.transitive(FORWARD, TOLERANT)}, "
      f"backward {package.transitive(BACKWARD, TOLERANT)} (tolerant readers); strict readers: forward "
      f"{package.transitive(FORWARD, STRICT)}, backward {package.transitive(BACKWARD, STRICT)}.</p>\n")


def _cell(result) -> str:
    f_t, b_t = result.compatibility(FORWARD, TOLERANT), result.compatibility(BACKWARD, TOLERANT)
    f_s, b_s = result.compatibility(FORWARD, STRICT), result.compatibility(BACKWARD, STRICT)
    worst = "breaking" if "breaking" in (f_t, b_t) else "unknown" if "unknown" in (f_t, b_t) else "safe"
    if worst == "safe" and (f_s, b_s) != ("safe", "safe"):
        worst = "unknown"  # safe for tolerant readers, not for strict ones: shown as a caution
    errors = sum(1 for c in group_changes(result) if c.severity.value == "error" and not c.waived)  # as details count
    def said(tolerant: str, strict: str) -> str:
        return MARK[tolerant] + ("" if strict == tolerant else f" (strict {MARK[strict]})")
    return (f"<td class='{_CLASS[worst]}'><a href='#{pair_anchor(result)}'>forward {said(f_t, f_s)}<br>backward "
            f"{said(b_t, b_s)}<br><small>{errors} error{'' if errors == 1 else 's'}</small></a></td>")


def _details(pair: PairReport, w) -> None:
    r, a = pair.result, pair.answer
    w(f"<h3 id='{pair.anchor}'>{escape(r.package)} {escape(r.old_version)} → {escape(r.new_version)}</h3>\n")
    nothing = r.nothing_compared
    if nothing:
        w(f"<p><b>Nothing compared</b>: {words(nothing)}.</p>\n")
        return
    w(f"<p><b>{verdict_word(a)}</b>; {escape(version_text(r, a))}. What to do: {escape('; '.join(a.advice))}.</p>\n")
    if a.flows:
        w("<table><tr><th>writer → reader</th><th>forward: old reader, new writer</th>"
          "<th>backward: new reader, old writer</th></tr>")
        w("".join(f"<tr><td>{escape(flow)}</td><td>{forward}</td><td>{backward}</td></tr>"
                  for flow, forward, backward in flows_table(a)) + "</table>\n")
    if not r.findings:
        w("<p>No changes on the wire.</p>\n")
        return
    if pair.shown_in_steps:
        w(f"<p>{pair.shown_in_steps} more change(s) as in the consecutive pairs.</p>\n")
    for change in pair.changes:
        verdicts = {v for _, _, v in change.verdicts()}
        css = "bad" if "breaking" in verdicts else "maybe" if "unknown" in verdicts else ""
        places = "; ".join(", ".join(f"<code>{escape(kind)}</code>" for kind in kinds) + f" ({escape(place)})"
                           for place, kinds in places_of(change))
        waived = " (waived)" if change.waived else ""
        verdict = change_verdict(change)
        w(f"<div class='change {css}'><span class='sev-{change.severity.value}'>{change.severity.value}{waived}"
          f"</span> <code>{escape(change.title)}</code>{': ' + escape(verdict) if verdict else ''}<br><small>in "
          f"{places}</small><ul>")
        for statement in member_statements(change):
            lead, listed = statement.parts()
            items = Statement.listed(listed, lambda name: f"<code>{escape(name)}</code>")
            fingerprints = " ".join(fp for _, fps in listed for fp in fps)  # for a waivers file: not in the prose
            w(f"<li data-fingerprints='{fingerprints}'>{f'<code>{escape(lead)}</code>: ' if lead else ''}"
              f"{words(statement.what)} <small><code>{escape(statement.rule)}</code></small>{items}</li>")
        for witness in change.witnesses():
            short = short_payload(witness.payload, witness_path(change, witness))
            w(f"<li>witness {escape(witness.direction)}/{escape(witness.view)}: <details><summary><code>"
              f"{escape(short)}</code> — {escape(witness.rejected_by)} rejects: {words(witness.reason)}</summary>"
              f"<pre>{escape(payload_text(witness.payload, 10**9))}</pre></details></li>")
        w("</ul></div>\n")
