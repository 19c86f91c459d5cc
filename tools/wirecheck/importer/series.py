"""A release series that ships its JSON Schema, diffed pair by pair: the table the diff engine is measured by.

    python -m wirecheck.importer.series acp                       # or: nox -s acp-series
    python -m wirecheck.importer.series acp --json series.json -- --kinds auto   # after `--`: diff-schemas options
    python -m wirecheck.importer.series acp --mode catalog        # wirecheck diff over the imported releases

Needs npm and the registry, so it is no part of the default tests. For the profile's package (importer/profiles):

1. every published version (`npm view <npm> versions`), in semver order, each tarball packed once into a cache
   outside the repository (`--cache`, default `$XDG_CACHE_HOME/wirecheck/series/<package>`);
2. each version imported as `wirecheck import npm` would (importer/shipped.py) into the cache's contracts folder:
   it imports, or the located reason it is refused;
3. every consecutive pair whose schema file changed, diffed whole-file: `wirecheck diff-schemas OLD NEW --format
   json` in a process of its own, timed (`--mode catalog`: `wirecheck diff <package>@OLD <package>@NEW` over the
   imported releases, kinds by the profile);
4. the pair table, pairs whose schemas differ only in annotations (they must report nothing), and, from
   `profiles/<package>.changes.yaml`, each documented breaking change found with a witness, found without one,
   undecided or missed (its witness message checked against the two imported releases), and false breaks.

The text and JSON outputs are documented in importer/README.md; the JSON has a schema
(tools/wirecheck/schemas/series-report.schema.json). Exit 0 when the table was made (a missed change is a
measurement, not a failure), 2 when it could not be (no npm, an unknown package, a diff that crashed or timed out).
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import itertools
import json
import os
import re
import resource
import shutil
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from wirecheck.programs.program import Scratch
from wirecheck.programs.program import run as run_program

ANNOTATIONS = frozenset({"description", "title", "examples", "$comment", "deprecated", "discriminator", "default"})
REPORT_VERSION = 1


# -- versions --------------------------------------------------------------------------------------------------

def semver_key(version: str) -> tuple[Any, ...]:
    """Semantic Versioning 2.0.0 precedence: numeric core, a prerelease sorts before its release, identifiers
    compared numerically when numeric; build metadata ignored."""
    core, _, pre = version.split("+", 1)[0].partition("-")
    numbers = tuple(int(part) for part in core.split("."))
    if not pre:
        return (numbers, 1, ())
    ids = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split("."))
    return (numbers, 0, ids)


def published_versions(npm_name: str, timeout: float = 120) -> list[str]:
    """`npm view <name> versions --json`, exact versions only, in semver order."""
    from wirecheck.importer.npm import BadSpec, check_name, check_version, run_npm

    check_name(npm_name)
    done = run_npm("npm", ["view", npm_name, "versions", "--json"], timeout=timeout,
                   needs="the series tool fetches every release with npm")
    if (failure := done.failure()) is not None:
        raise RuntimeError(f"npm view {npm_name} versions {failure}")
    try:
        listed = json.loads(done.stdout)
    except ValueError:
        raise RuntimeError(f"npm view {npm_name} versions: its --json output is not JSON: "
                           f"{done.stdout[:300].decode('utf-8', 'replace')!r}") from None
    versions = []
    for version in listed if isinstance(listed, list) else [listed]:
        try:
            versions.append(check_version(str(version)))
        except BadSpec:
            continue  # the registry listing a non-semver version: nothing npm pack could name exactly
    return sorted(versions, key=semver_key)


def fetch(npm_name: str, version: str, cache: Path) -> Path:
    """The unpacked tarball of one version (`<cache>/tarballs/<version>/unpacked`, holding package/), packed once."""
    from wirecheck.importer import npm

    folder = cache / "tarballs" / version
    if (folder / "unpacked" / "package" / "package.json").is_file():
        return folder / "unpacked"
    packed = npm.pack(f"{npm_name}@{version}", folder)
    (folder / "integrity.json").write_text(json.dumps({"integrity": packed.integrity, "shasum": packed.shasum}))
    return packed.root


# -- one version -------------------------------------------------------------------------------------------------

@dataclass
class Version:
    version: str
    schema_path: str | None = None  # in the package
    schema_file: str | None = None  # on disk, in the cache
    sha256: str | None = None
    imported: bool = False
    refused: str | None = None  # the located reason the import refuses it


def import_version(profile: Mapping[str, Any], root: Path, contracts: Path) -> Version:
    from wirecheck.importer.profile import write_folder
    from wirecheck.importer.shipped import ImportRefused, assemble, check_loads, read_package

    try:
        shipped = read_package(profile, root)
    except ImportRefused as exc:
        return Version(version=root.parent.name, refused=str(exc))
    found = next(p for p in profile["schema"] if (root / p).is_file())
    entry = Version(shipped.version, shipped.path, str(root / found), hashlib.sha256(shipped.raw).hexdigest())
    folder = contracts / profile["package"] / shipped.version
    try:
        files = assemble(profile, shipped)
        check_loads(profile, files, shipped.version, folder)
    except ImportRefused as exc:
        entry.refused = str(exc)
        return entry
    if folder.exists():
        shutil.rmtree(folder)
    write_folder(files, folder)
    entry.imported = True
    return entry


# -- one pair ----------------------------------------------------------------------------------------------------

@dataclass
class Pair:
    old: str
    new: str
    seconds: float = 0.0  # wall time of the diff process
    cpu_seconds: float | None = None  # its user+system time (None when pairs ran in parallel)
    exit_code: int | None = None
    changes: int = 0  # findings
    breaking: int = 0  # findings with a breaking verdict
    witnessed: int = 0  # of those, with at least one witness payload
    undecided: int = 0  # findings with an unknown verdict and none breaking
    annotation_only: bool = False  # the schemas are equal once annotations are dropped
    error: str | None = None  # the diff did not produce a report (stderr's end, or the timeout)
    findings: list[dict[str, Any]] = field(default_factory=list, repr=False)


def strip_annotations(schema: Any) -> Any:
    """The schema without annotation keywords (`x-*`, description, title, examples, $comment, deprecated,
    discriminator, default): what is left decides validation."""
    from wirecheck.contracts.views import subschemas

    schema = copy.deepcopy(schema)
    for node, _ in list(subschemas(schema)):
        for key in [k for k in node if k in ANNOTATIONS or k.startswith("x-")]:
            del node[key]
    return schema


def _count(pair: Pair, findings: list[dict[str, Any]]) -> None:
    pair.findings = findings
    pair.changes = len(findings)
    for finding in findings:
        verdicts = {v["verdict"] for v in finding.get("verdicts", [])}
        if "breaking" in verdicts:
            pair.breaking += 1
            pair.witnessed += bool(finding.get("witnesses"))
        elif "unknown" in verdicts:
            pair.undecided += 1


def diff_pair(old: Version, new: Version, *, mode: str, package: str, contracts: Path, extra: list[str],
              timeout: float, measure_cpu: bool) -> Pair:
    pair = Pair(old.version, new.version)
    assert old.schema_file and new.schema_file
    old_schema = json.loads(Path(old.schema_file).read_bytes())
    new_schema = json.loads(Path(new.schema_file).read_bytes())
    pair.annotation_only = strip_annotations(old_schema) == strip_annotations(new_schema)
    if mode == "catalog":
        args = ["diff", f"{package}@{old.version}", f"{package}@{new.version}"]
    else:
        args = ["diff-schemas", old.schema_file, new.schema_file]
    argv = [sys.executable, "-m", "wirecheck", *args, "--format", "json", *extra]
    before = resource.getrusage(resource.RUSAGE_CHILDREN) if measure_cpu else None
    started = time.perf_counter()
    # as every program (wirecheck.programs), wirecheck itself included: scratch HOME/XDG/TMPDIR, its own process
    # group ended with all it started. PYTHONPATH is passed: wirecheck may run from a checkout. The CPU time
    # counts the reaper's too (a few milliseconds: Python started with -I -S), once it has been waited for.
    with Scratch.create() as scratch:
        env = scratch.env({"WIRECHECK_CONTRACTS": str(contracts)}, pass_through=("PYTHONPATH",))
        try:
            done = run_program(argv, env=env, timeout=timeout, scratch=scratch)
        except OSError as exc:
            pair.error = f"could not be started: {exc}"
            return pair
    pair.seconds = round(time.perf_counter() - started, 3)
    if done.returncode is None:
        pair.error = f"timed out after {timeout:g} s"
        return pair
    if before is not None:
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        pair.cpu_seconds = round(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, 3)
    pair.exit_code = done.returncode
    if done.stdout_total > len(done.stdout):  # a report past what run keeps: said, not read as "no JSON report"
        pair.error = f"its JSON report ({done.stdout_total:,} bytes) is larger than the series tool reads"
        return pair
    try:
        report = json.loads(done.stdout)
        findings = [f for p in report["pairs"] for f in p["findings"]]
    except (ValueError, KeyError, TypeError):
        pair.error = (done.stderr.decode(errors="replace").strip() or "no JSON report")[-600:]
        return pair
    _count(pair, findings)
    return pair


# -- documented changes ------------------------------------------------------------------------------------------

def _matches(finding: Mapping[str, Any], expect: Mapping[str, str]) -> bool:
    fields = {"path": [finding.get("path", "")], "text": [finding.get("message", "")],
              "location": [finding.get("old_location") or "", finding.get("new_location") or ""],
              "kind": [finding.get("kind", "")]}
    return all(any(re.search(pattern, value) for value in fields[key]) for key, pattern in expect.items())


def judge(entry: Mapping[str, Any], pair: Pair | None) -> dict[str, Any]:
    """One documented breaking change against its pair's findings."""
    result: dict[str, Any] = {"id": entry["id"], "pair": list(entry["pair"]), "change": entry["change"],
                              "link": entry.get("link")}
    if pair is None or pair.error:
        result["status"] = "not diffed"
        result["why"] = "the pair is not a consecutive pair whose schema changed" if pair is None else pair.error
        return result
    direction = entry.get("direction")
    matching = [f for f in pair.findings if _matches(f, entry.get("expect", {}))]

    def breaks(finding: Mapping[str, Any]) -> bool:
        return any(v["verdict"] == "breaking" and direction in (None, v["direction"])
                   for v in finding.get("verdicts", []))

    def witnessed(finding: Mapping[str, Any]) -> bool:
        return any(direction in (None, w.get("direction")) for w in finding.get("witnesses", []))

    best = next((f for f in matching if breaks(f) and witnessed(f)), None)
    status = "found"
    if best is None:
        best = next((f for f in matching if breaks(f)), None)
        status = "found without witness"
    if best is None:
        best = next((f for f in matching if any(v["verdict"] == "unknown" for v in f.get("verdicts", []))), None)
        status = "undecided"
    if best is None:
        status = "missed"
    result["status"] = status
    if best is not None:
        result["finding"] = {k: best.get(k) for k in ("rule", "kind", "path", "fingerprint", "message")}
    return result


def false_breaks(entry: Mapping[str, Any], pair: Pair | None) -> dict[str, Any]:
    result: dict[str, Any] = {"id": entry["id"], "pair": list(entry["pair"]), "change": entry["change"]}
    if pair is None or pair.error:
        result["status"] = "not diffed"
        return result
    wrong = [f for f in pair.findings if _matches(f, entry.get("expect", {}))
             and any(v["verdict"] == "breaking" for v in f.get("verdicts", []))]
    result["status"] = "false break" if wrong else "silent"
    result["findings"] = [{k: f.get(k) for k in ("rule", "kind", "path", "fingerprint")} for f in wrong]
    return result


def check_witness(entry: Mapping[str, Any], registry: Any, package: str) -> str:
    """The documented witness message against the two imported releases: for a backward change the old release
    accepts it and the new one does not (forward: the reverse). "confirmed", or why not."""
    from wirecheck.check.engine import CheckOptions, check_captures
    from wirecheck.findings import Severity

    witness = entry.get("witness")
    if not witness:
        return "no witness given"
    old, new = entry["pair"]
    accepting, refusing = (old, new) if entry.get("direction", "backward") == "backward" else (new, old)
    with tempfile.TemporaryDirectory(prefix="wirecheck-series-") as temp:
        capture = Path(temp) / "witness.ndjson"
        capture.write_text(json.dumps({"wirecheck_capture": 1, "framing": "directed"}) + "\n"
                           + json.dumps({"from": witness["from"], "message": witness["message"]}) + "\n")
        verdicts = {}
        for version in (accepting, refusing):
            try:
                release = registry.load(f"{package}@{version}")
            except Exception as exc:  # a release that did not import is named, not raised
                return f"{package}@{version} did not load: {str(exc).splitlines()[0]}"
            result = check_captures(release, [str(capture)], CheckOptions())
            errors = [f for f in result.findings if f.severity is Severity.ERROR
                      and f.code not in ("REQUEST_WITHOUT_RESPONSE",)]
            verdicts[version] = errors
    if verdicts[accepting]:
        first = verdicts[accepting][0]
        return f"{package}@{accepting} refuses it too: {first.code} {first.pointer} {first.message}"
    if not verdicts[refusing]:
        return f"{package}@{refusing} accepts it"
    first = verdicts[refusing][0]
    return f"confirmed ({package}@{refusing}: {first.code} {first.pointer or ''})".replace(" )", ")")


# -- the run -----------------------------------------------------------------------------------------------------

def run(package: str, *, cache: Path, mode: str = "schemas", extra: Iterable[str] = (), jobs: int = 1,
        timeout: float = 600, changes_file: Path | None = None, versions: list[str] | None = None,
        log: Any = None) -> dict[str, Any]:
    """The whole measurement as one JSON-able report (see series-report.schema.json)."""
    from concurrent.futures import ThreadPoolExecutor

    from wirecheck.contracts import load_registry
    from wirecheck.importer.profile import PROFILES, load_profile

    profile = load_profile(package)
    if "schema" not in profile:
        raise RuntimeError(f"profile {profile['package']} names no schema file: the series tool needs a release "
                           "series that ships its JSON Schema")
    package = profile["package"]
    say = log or (lambda text: None)
    listed = versions or published_versions(profile["npm"])
    contracts = cache / "contracts"
    entries: list[Version] = []
    for version in listed:
        say(f"fetch and import {profile['npm']}@{version}")
        entries.append(import_version(profile, fetch(profile["npm"], version, cache), contracts))
    imported = [e.version for e in entries if e.imported]
    (contracts / "registry.yaml").write_text(yaml.safe_dump(
        {"packages": {package: {"npm": profile["npm"], "title": f"{profile['npm']} series", "external": True,
                                "releases": imported}}}, sort_keys=False))
    with_schema = [e for e in entries if e.schema_file]
    candidates = [(a, b) for a, b in itertools.pairwise(with_schema) if a.sha256 != b.sha256]
    if mode == "catalog":
        candidates = [(a, b) for a, b in candidates if a.imported and b.imported]

    def one(pair: tuple[Version, Version]) -> Pair:
        say(f"diff {pair[0].version} → {pair[1].version}")
        return diff_pair(pair[0], pair[1], mode=mode, package=package, contracts=contracts, extra=list(extra),
                         timeout=timeout, measure_cpu=jobs == 1)

    if jobs > 1:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            pairs = list(pool.map(one, candidates))
    else:
        pairs = [one(p) for p in candidates]
    by_versions = {(p.old, p.new): p for p in pairs}
    report: dict[str, Any] = {
        "wirecheck_series": REPORT_VERSION,
        "package": package,
        "npm": profile["npm"],
        "mode": "diff-schemas (whole file)" if mode == "schemas" else "diff (catalog kinds)",
        "diff_arguments": list(extra),
        "versions": [{k: v for k, v in asdict(e).items() if k != "schema_file"} for e in entries],
        "pairs": [{k: v for k, v in asdict(p).items() if k != "findings"} for p in pairs],
    }
    changes_file = changes_file or PROFILES / f"{package}.changes.yaml"
    if changes_file.is_file():
        documented = yaml.safe_load(changes_file.read_text(encoding="utf-8"))
        registry = load_registry(contracts)
        judged = []
        for entry in documented.get("breaking", []):
            verdict = judge(entry, by_versions.get(tuple(entry["pair"])))
            verdict["witness_check"] = check_witness(entry, registry, package)
            judged.append(verdict)
        report["documented"] = {"file": str(changes_file), "breaking": judged,
                                "not_breaking": [false_breaks(e, by_versions.get(tuple(e["pair"])))
                                                 for e in documented.get("not_breaking", [])]}
    return report


# -- the text report ---------------------------------------------------------------------------------------------

def render_text(report: Mapping[str, Any]) -> str:
    versions, pairs = report["versions"], report["pairs"]
    refused = [v for v in versions if not v["imported"]]
    lines = [f"{report['package']} series ({report['npm']}): {len(versions)} versions, "
             f"{sum(1 for v in versions if v['schema_path'])} with a schema, "
             f"{sum(1 for v in versions if v['imported'])} import, {len(refused)} refused; "
             f"{len(pairs)} consecutive pairs whose schema changed",
             f"mode: {report['mode']}" + (f" {' '.join(report['diff_arguments'])}" if report["diff_arguments"]
                                          else "")]
    for version in refused:
        lines.append(f"  refused {version['version']}: {version['refused']}")
    lines += ["", f"{'pair':<18} {'time s':>7} {'cpu s':>7} {'exit':>4} {'changes':>7} {'breaking':>8} "
                  f"{'witnessed':>9} {'undecided':>9}"]
    for pair in pairs:
        cpu = f"{pair['cpu_seconds']:.2f}" if pair["cpu_seconds"] is not None else "-"
        name = f"{pair['old']} → {pair['new']}"
        code = pair["exit_code"] if pair["exit_code"] is not None else "-"
        row = (f"{name:<18} {pair['seconds']:>7.2f} {cpu:>7} {code:>4} "
               f"{pair['changes']:>7} {pair['breaking']:>8} {pair['witnessed']:>9} {pair['undecided']:>9}")
        if pair["annotation_only"]:
            row += "  annotations only"
        if pair["error"]:
            row += f"  ERROR {pair['error'].splitlines()[-1][:80]}"
        lines.append(row)
    total_cpu = [p["cpu_seconds"] for p in pairs if p["cpu_seconds"] is not None]
    lines.append(f"{'all ' + str(len(pairs)) + ' pairs':<18} {sum(p['seconds'] for p in pairs):>7.2f} "
                 f"{(f'{sum(total_cpu):.2f}' if total_cpu else '-'):>7} {'':>4} "
                 f"{sum(p['changes'] for p in pairs):>7} {sum(p['breaking'] for p in pairs):>8} "
                 f"{sum(p['witnessed'] for p in pairs):>9} {sum(p['undecided'] for p in pairs):>9}")
    quiet = [p for p in pairs if p["annotation_only"]]
    noisy = [p for p in quiet if p["changes"]]
    lines += ["", f"annotation-only pairs: {len(quiet)}; reporting something: {len(noisy)}"
              + "".join(f"\n  {p['old']} → {p['new']}: {p['changes']} change(s), {p['breaking']} breaking"
                        for p in noisy)]
    documented = report.get("documented")
    if documented:
        judged = documented["breaking"]
        counts = {s: sum(1 for d in judged if d["status"] == s)
                  for s in ("found", "found without witness", "undecided", "missed", "not diffed")}
        lines += ["", f"documented breaking changes ({documented['file']}): {len(judged)}; "
                      + ", ".join(f"{s} {n}" for s, n in counts.items())]
        for item in judged:
            pair = f"{item['pair'][0]} → {item['pair'][1]}"
            shown = item.get("finding")
            what = f"{shown['rule']} {shown['kind'] or ''} {shown['path'] or ''}".strip() if shown else item["change"]
            lines.append(f"  {item['status']:<22} {item['id']:<30} {pair:<16} {what}")
            lines.append(f"  {'':<22} witness: {item['witness_check']}")
        silent = documented["not_breaking"]
        lines += ["", f"documented non-breaking changes: {len(silent)}; false breaks "
                      f"{sum(1 for s in silent if s['status'] == 'false break')}"]
        for item in silent:
            lines.append(f"  {item['status']:<22} {item['id']:<30} {item['pair'][0]} → {item['pair'][1]}")
    return "\n".join(lines) + "\n"


def default_cache(package: str) -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "wirecheck" / "series" / package


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    parser = argparse.ArgumentParser(prog="python -m wirecheck.importer.series", description=__doc__.split("\n")[0],
                                     epilog="Arguments after -- are passed to each diff (e.g. -- --kinds auto).")
    parser.add_argument("package", help="a profile with schema paths (e.g. acp or @agentclientprotocol/sdk)")
    parser.add_argument("--cache", type=Path, help="where tarballs and imported releases are kept (outside the "
                        "repository; default $XDG_CACHE_HOME/wirecheck/series/<package>)")
    parser.add_argument("--mode", choices=("schemas", "catalog"), default="schemas",
                        help="schemas: whole-file diff-schemas (default); catalog: wirecheck diff over the imports")
    parser.add_argument("--changes", type=Path, help="documented changes (default profiles/<package>.changes.yaml)")
    parser.add_argument("--json", type=Path, help="also write the report as JSON here")
    parser.add_argument("--jobs", type=int, default=1, help="pairs diffed at once (CPU time is shown only for 1)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds one diff may take")
    parser.add_argument("--versions", nargs="+", help="only these versions (default: every published one)")
    args = parser.parse_args(argv)
    from wirecheck.importer.npm import BadSpec
    from wirecheck.importer.profile import load_profile

    try:
        package = load_profile(args.package)["package"]
        report = run(package, cache=args.cache or default_cache(package), mode=args.mode, extra=extra,
                     jobs=max(1, args.jobs), timeout=args.timeout, changes_file=args.changes,
                     versions=args.versions, log=lambda text: print(text, file=sys.stderr, flush=True))
    except (KeyError, RuntimeError, BadSpec) as exc:
        print(f"wirecheck series: error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    sys.stdout.write(render_text(report))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    crashed = [p for p in report["pairs"] if p["error"] or (p["exit_code"] or 0) >= 2]
    return 2 if crashed else 0


if __name__ == "__main__":
    raise SystemExit(main())
