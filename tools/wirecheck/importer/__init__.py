"""Import pipeline for TypeScript-typed releases (issue 4), and the qodercli recorder.

Node is needed only here: `npm pack` fetches a release, `ts-json-schema-generator` (run through `npx`) turns its
protocol `.d.ts` into draft-07 JSON Schema, and the pure normaliser (`normalise.py`) rewrites that into the
contract dialect (2020-12, `$defs`, `$id`, stable names, const discriminators). The generated contracts are
committed, so nothing else in wirecheck needs Node.

Modules: `npm.py` (pack + extract, no shell), `tsgen.py` (the generator run), `normalise.py` (pure),
`catalog.py` (pure: kinds from the wire unions), `release.py` (assembles and writes the draft folder + provenance;
the `wirecheck import npm` command and `nox -s import-release` wrap it), `profiles/` (per package: what the types
cannot say), `reconstruct.py` (unpublished releases from their neighbours and a seed diff, plan in
`profiles/<package>.reconstruct.yaml`), `examples.py` + `fixtures.py` (a valid and an invalid generated fixture per
kind), `record_qodercli.py` (records the real CLI bundled in the PyPI wheel; `nox -s record-qodercli`).
`acp.py` is the separate importer of the ACP JSON Schema (another package, another format).
"""
