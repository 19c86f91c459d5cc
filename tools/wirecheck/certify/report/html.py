"""A self-contained HTML page a vendor can publish: badge (inline SVG), scores, requirements, findings, coverage,
identity. No external resources: no scripts, fonts, images or stylesheets are fetched."""

from __future__ import annotations

from typing import TextIO

from wirecheck.certify.evaluate import Badge, Certification
from wirecheck.html_text import escape
from wirecheck.report.summary import finding_line

STATUS_TEXT = {"pass": "pass", "fail": "fail", "not_exercised": "not exercised",
               "expected_fail": "expected failure", "unexpected_pass": "passes (stale baseline)",
               "out_of_scope": "out of scope", "stale_scope": "passes (stale out-of-scope entry)"}

CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;
color:#222}
h1{font-size:1.5rem;margin-bottom:.3rem} h2{font-size:1.15rem;margin-top:2rem}
table{border-collapse:collapse;width:100%;margin:.5rem 0}
th,td{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f5f5f5} td.num{text-align:right} code{font-size:12px;white-space:pre-wrap}
.pass{color:#2a7a2a}.fail,.unexpected_pass,.stale_scope{color:#b00020;font-weight:600}.not_exercised{color:#777}
.expected_fail{color:#8a6d00}.out_of_scope{color:#555;font-style:italic}
details{margin:.4rem 0} pre{white-space:pre-wrap;background:#fafafa;border:1px solid #eee;padding:.5rem;font-size:12px}
.verdict{font-size:1.1rem;margin:.5rem 0 1rem}
"""


def _text_width(text: str) -> int:
    return 7 * len(text) + 10


def badge_svg(badge: Badge) -> str:
    """A shields.io-style flat badge as standalone SVG."""
    left, right = _text_width(badge.label), _text_width(badge.message)
    total = left + right
    label, message = escape(badge.label), escape(badge.message)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{total}" height="20" role="img" '
        f'aria-label="{label}: {message}"><title>{label}: {message}</title>'
        f'<rect width="{left}" height="20" fill="#555"/><rect x="{left}" width="{right}" height="20" '
        f'fill="{escape(badge.color)}"/><g fill="#fff" text-anchor="middle" '
        f'font-family="Verdana,DejaVu Sans,sans-serif" font-size="11">'
        f'<text x="{left / 2}" y="14">{label}</text><text x="{left + right / 2}" y="14">{message}</text></g></svg>'
    )


def write(cert: Certification, out: TextIO) -> None:
    ident = cert.identity
    w = out.write
    w("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
    w(f"<title>wirecheck certification: {escape(cert.contract)}</title><style>{CSS}</style></head><body>\n")
    w(f"<h1>Certification: {escape(cert.contract)}</h1>\n{badge_svg(cert.badge)}\n")
    scope = f" for role <code>{escape(cert.role)}</code>" if cert.role else ""
    message = ("nothing was heard from the implementation, so nothing was certified" if cert.run_failed
               else cert.badge.message)
    w(f'<p class="verdict"><strong>{escape(cert.verdict)}</strong>{scope}: {escape(message)}</p>\n')
    w(f"<p><b>{escape(cert.gate_line)}</b></p>\n")
    if cert.run is not None:
        w(f"<p>Live run {escape(cert.run_line)}.</p>\n")
        if cert.program_words:
            w(f"<p>The program said: <code>{escape(cert.program_words)}</code></p>\n")
    w("<h2>Scores</h2><table><tr><th>level</th><th>passed</th><th>failed</th><th>not exercised</th>"
      "<th>out of scope</th><th>expected failures</th><th>stale scope entries</th><th>score</th></tr>\n")
    for s in cert.scores:
        w(f"<tr><td>{s.level}</td><td class=num>{s.passed}/{s.in_scope}</td><td class=num>{s.failed}</td>"
          f"<td class=num>{s.not_exercised}</td><td class=num>{s.out_of_scope}</td>"
          f"<td class=num>{s.expected_failures}</td><td class=num>{s.unexpected_passes + s.stale_scope}</td>"
          f"<td class=num>{s.score:.0%}</td></tr>\n")
    w("</table>\n<h2>Requirements</h2><table><tr><th>id</th><th>level</th><th>status</th><th>requirement</th>"
      "<th>exercised</th></tr>\n")
    for r in cert.results:
        req = r.requirement
        detail = ""
        if r.failures:
            lines = "\n".join(finding_line(f) for f in r.failures[:50])
            detail = (f"<details><summary>{len(r.failures)} finding(s)</summary><pre>{escape(lines)}</pre>"
                      "</details>")
        elif r.status == "pass" and r.warnings:  # passed over what the reading side tolerates: said
            lines = "\n".join(finding_line(f) for f in r.warnings[:50])
            detail = (f"<details><summary>passed with {len(r.warnings)} warning(s) the reading side tolerates"
                      f"</summary><pre>{escape(lines)}</pre></details>")
        if r.baseline_reason:
            detail += f"<div>baseline: {escape(r.baseline_reason)}</div>"
        if r.scope is not None:
            detail += (f"<div>out of scope: {escape(r.scope.reason)} (evidence: {escape(r.scope.evidence)})"
                       f"{'' if r.status == 'out_of_scope' else ', yet exercised'}</div>")
        w(f'<tr id="{escape(req.id)}"><td><code>{escape(req.id)}</code></td><td>{req.level}</td>'
          f'<td class="{r.status}">{STATUS_TEXT[r.status]}</td><td>{escape(req.text)}'
          f"<div><small>checks {escape(req.link.element)}</small></div>{detail}</td>"
          f"<td class=num>{r.exercised}</td></tr>\n")
    w("</table>\n")
    gaps = cert.unexercised()
    if gaps:
        ids = ", ".join(f'<a href="#{escape(r.requirement.id)}"><code>{escape(r.requirement.id)}</code></a>'
                        for r in gaps)
        w(f"<h2>Not exercised</h2><p>Neither passed nor failed, and not declared out of scope: without them the "
          f"run cannot be certified: {ids}</p>\n")
    if cert.out_of_scope():
        w("<h2>Out of scope for this run</h2><table><tr><th>id</th><th>reason</th><th>evidence</th></tr>\n")
        for r in cert.out_of_scope():
            assert r.scope is not None
            w(f"<tr><td><code>{escape(r.requirement.id)}</code></td><td>{escape(r.scope.reason)}</td>"
              f"<td>{escape(r.scope.evidence)}</td></tr>\n")
        w("</table>\n")
    if cert.unmapped:
        lines = "\n".join(finding_line(f) for f in cert.unmapped[:50])
        w(f"<h2>Findings no requirement covers</h2><pre>{escape(lines)}</pre>\n")
    w("<h2>Coverage</h2><table><tr><th>kind</th><th>producer</th><th>seen</th><th>errors</th><th>warnings</th></tr>\n")
    for kind_id, c in cert.coverage.items():
        w(f"<tr><td><code>{escape(kind_id)}</code></td><td>{escape(c.kind.producer)}</td><td class=num>{c.seen}</td>"
          f"<td class=num>{c.errors}</td><td class=num>{c.warnings}</td></tr>\n")
    w("</table>\n<h2>Identity</h2><table>\n")
    contract = ident.get("contract", {})
    rows = [
        ("wirecheck", str(ident.get("wirecheck_version"))),
        ("timestamp", str(ident.get("timestamp"))),
        ("contract", f"{contract.get('name')} sha256 {contract.get('sha256')}"),
        ("requirements", f"{ident.get('requirements', {}).get('path')} sha256 "
                         f"{ident.get('requirements', {}).get('sha256')}"),
    ]
    if ident.get("baseline"):
        rows.append(("baseline", f"{ident['baseline']['path']} sha256 {ident['baseline']['sha256']}"))
    for capture in ident.get("captures", []):
        rows.append(("capture", f"{capture['path']} sha256 {capture['sha256']} ({capture['messages']} messages)"))
    if "run" in ident:
        if ident["run"].get("implementation"):
            rows.append(("implementation", str(ident["run"]["implementation"])))
        rows.append(("command", " ".join(ident["run"]["argv"])))
    for name, value in rows:
        w(f"<tr><th>{escape(name)}</th><td><code>{escape(value)}</code></td></tr>\n")
    w("</table>\n</body></html>\n")
