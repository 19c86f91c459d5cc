"""Reconstruct unpublished releases from their published neighbours and a seed diff (qoder-agent-sdk 1.0.21/1.0.23).

`python -m wirecheck.importer.reconstruct qoder-agent-sdk` rewrites `contracts/qoder-agent-sdk/{1.0.21,1.0.23}/` from
the committed 1.0.13 and 1.0.34 contracts and the plan in `profiles/<package>.reconstruct.yaml` (the method is
described there). The merge is pure (`merge_types`, `reconstruct`); only `main` reads and writes files. Every field
whose presence no source shows is optional and carries `x-provenance` with the plan's `inferred` source.
"""

from __future__ import annotations

import argparse
import copy
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson
import yaml

from wirecheck.importer import catalog as catalog_builder
from wirecheck.importer.normalise import DIALECT, dump, reachable, select_roots
from wirecheck.importer.profile import PROFILES, load_profile, write_folder
from wirecheck.importer.release import ID_BASE, ImportInput, assemble

MERGED = "merged"  # the plan's source for a shape (not a presence) taken as the union of both neighbours
_ANNOTATIONS = {"description", "title", "deprecated", "x-deprecated", "$comment", "x-provenance", "markdownDescription"}


def _strip(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _strip(v) for k, v in schema.items() if k not in _ANNOTATIONS}
    if isinstance(schema, list):
        return [_strip(v) for v in schema]
    return schema


def _mark(schema: Any, source: str, note: str) -> dict[str, Any]:
    marked = dict(schema) if isinstance(schema, dict) else {"anyOf": [schema]}
    marked["x-provenance"] = {"source": source, "note": note}
    return marked


def _is_object(schema: Any) -> bool:
    return isinstance(schema, dict) and (schema.get("type") == "object" or "properties" in schema) \
        and ("anyOf" not in schema or catalog_builder.presence_only(schema["anyOf"])) and "$ref" not in schema


def _ref_union(schema: Any) -> list[str] | None:
    if isinstance(schema, dict) and isinstance(schema.get("anyOf"), list) and \
            all(isinstance(b, dict) and set(b) == {"$ref"} for b in schema["anyOf"]):
        return [b["$ref"] for b in schema["anyOf"]]
    return None


def merge_types(old: Any, new: Any, older: str, newer: str, inferred: str) -> Any:
    """What a release between `older` and `newer` can be assumed to accept (see the plan's method note)."""
    if _strip(old) == _strip(new):
        return copy.deepcopy(new)
    if _is_object(old) and _is_object(new):
        merged = copy.deepcopy(new)
        old_props, new_props = old.get("properties", {}), new.get("properties", {})
        old_req, new_req = set(old.get("required", [])), set(new.get("required", []))
        props: dict[str, Any] = {}
        for name in list(new_props) + [n for n in old_props if n not in new_props]:
            if name in old_props and name in new_props:
                prop = merge_types(old_props[name], new_props[name], older, newer, inferred)
                if (name in old_req) != (name in new_req):
                    prop = _mark(prop, inferred, f"required in {older if name in old_req else newer} only")
            elif name in new_props:
                prop = _mark(copy.deepcopy(new_props[name]), inferred, f"in {newer}, not in {older}")
            else:
                prop = _mark(copy.deepcopy(old_props[name]), inferred, f"in {older}, gone by {newer}")
            props[name] = prop
        merged["properties"] = props
        required = [n for n in new.get("required", []) if n in old_req]
        switched = sorted(d for d in ("type", "subtype") if (d in old_req) != (d in new_req))
        if catalog_builder.presence_only(old.get("anyOf")) and catalog_builder.presence_only(new.get("anyOf")):
            merged["anyOf"] = copy.deepcopy(new["anyOf"])  # the same presence rule; the newer order
        if len(switched) == 2:
            # the discriminator moved between `type` and `subtype`: either may be the one, one of them must be there
            merged["anyOf"] = [{"required": [d]} for d in switched]
        if required:
            merged["required"] = required
        else:
            merged.pop("required", None)
        return merged
    old_refs, new_refs = _ref_union(old), _ref_union(new)
    if old_refs is not None and new_refs is not None:
        refs = new_refs + [r for r in old_refs if r not in new_refs]
        return {**copy.deepcopy(new), "anyOf": [{"$ref": r} for r in refs]}
    if isinstance(old, dict) and isinstance(new, dict) and isinstance(old.get("anyOf"), list) \
            and isinstance(new.get("anyOf"), list) and len(old["anyOf"]) == len(new["anyOf"]) \
            and old_refs is None and new_refs is None:
        # a union of inline members in the same order (e.g. success | error): merge member by member
        branches = [merge_types(o, n, older, newer, inferred) for o, n in zip(old["anyOf"], new["anyOf"], strict=True)]
        return {**copy.deepcopy(new), "anyOf": branches}
    if isinstance(old, dict) and isinstance(new, dict) and isinstance(old.get("enum"), list) \
            and isinstance(new.get("enum"), list):
        values = list(new["enum"]) + [v for v in old["enum"] if v not in new["enum"]]
        return _mark({**copy.deepcopy(new), "enum": values}, MERGED, f"the values of {older} and {newer} together")
    return _mark({"anyOf": [copy.deepcopy(old), copy.deepcopy(new)]}, MERGED, f"{older} and {newer} differ")


def _only_newer(schema: Any, always: set[str], newer: str, inferred: str) -> Any:
    """A type only the newer neighbour has: its always-present fields stay, the rest become optional + inferred."""
    if not _is_object(schema):
        return copy.deepcopy(schema)
    out = copy.deepcopy(schema)
    required = [n for n in schema.get("required", []) if n in always]
    for name, prop in schema.get("properties", {}).items():
        if name not in always:
            out["properties"][name] = _mark(copy.deepcopy(prop), inferred, f"type first published in {newer}")
    if required:
        out["required"] = required
    else:
        out.pop("required", None)
    return out


def _request_value(protocol: Mapping[str, Any], pointer: str) -> str | None:
    target: Any = protocol["$defs"]
    for token in pointer.split("/"):
        target = target[int(token)] if isinstance(target, list) else target[token]
    found = catalog_builder.request_value(target)
    return found[1] if found else None


def reconstruct(older: Mapping[str, Any], newer: Mapping[str, Any], plan: Mapping[str, Any], version: str,
                profile: Mapping[str, Any]) -> dict[str, Any]:
    rel = plan["releases"][version]
    o_ver, n_ver = plan["older"], plan["newer"]
    old_defs, new_defs = older["$defs"], newer["$defs"]
    always = set(plan.get("always", []))
    by_version = {o_ver: old_defs, n_ver: new_defs}
    defs: dict[str, Any] = {}
    for name in list(new_defs) + [n for n in old_defs if n not in new_defs]:
        exact = rel.get("exact", {}).get(name)
        if exact:
            defs[name] = _mark(copy.deepcopy(by_version[exact["from"]][name]), exact["source"], exact["note"])
        elif name in old_defs and name in new_defs:
            defs[name] = merge_types(old_defs[name], new_defs[name], o_ver, n_ver, "inferred")
        elif name in new_defs:
            defs[name] = _only_newer(new_defs[name], always, n_ver, "inferred")
        # types only the older release has are reachable only through members that are dropped below

    for name, spec in rel.get("fields", {}).items():
        schema = defs[name]
        props = schema.get("properties", {})
        newer_required = set(new_defs.get(name, {}).get("required", []))
        if "keep" in spec:
            kept: dict[str, Any] = {}
            required = []
            for field, why in spec["keep"].items():
                source = why.split(":")[0].strip()
                base = new_defs.get(name, {}).get("properties", {}).get(field, props.get(field))
                if base is None:
                    raise ValueError(f"{version} {name}.{field}: in neither neighbour")
                prop = {k: v for k, v in copy.deepcopy(base).items() if k != "x-provenance"}
                if source == "inferred":
                    kept[field] = _mark(prop, "inferred", why.partition(":")[2].strip() or "presence inferred")
                else:
                    default = "shown by the seed" if source == "seed" else f"as in {source}"
                    note = why.partition(":")[2].strip() or default
                    kept[field] = _mark(prop, source, note)
                    if field in newer_required:
                        required.append(field)
            schema["properties"] = kept
            schema["required"] = required
        for field in spec.get("drop", []):
            props.pop(field, None)
            if field in schema.get("required", []):
                schema["required"].remove(field)
        for field in spec.get("seed", []):
            props[field] = _mark({k: v for k, v in new_defs[name]["properties"][field].items() if k != "x-provenance"},
                                 "seed", "added by the seed diff (1.0.21 -> 1.0.23)")
    for name, fields in rel.get("drop_fields", {}).items():
        targets = defs if name == "*" else {name: defs[name]}
        for schema in targets.values():
            if isinstance(schema, dict) and isinstance(schema.get("properties"), dict):
                for field in fields:
                    schema["properties"].pop(field, None)
                    if field in schema.get("required", []):
                        schema["required"].remove(field)

    for name, patches in rel.get("property_patches", {}).items():
        for field, schema in patches.items():
            defs[name]["properties"][field] = copy.deepcopy(schema)
    union = profile["message_union"]
    defs[union] = {"anyOf": [{"$ref": f"#/$defs/{m}"} for m in rel["messages"]]}
    inner = profile["request_union"]
    dropped = set(rel.get("requests", {}).get("drop", []))
    probe = {"$defs": defs}
    defs[inner] = {"anyOf": [b for b in defs[inner]["anyOf"]
                             if _request_value(probe, b["$ref"][len("#/$defs/"):]) not in dropped]}
    for schema in defs.values():  # a required list emptied by the edits above is dropped
        if isinstance(schema, dict) and schema.get("required") == []:
            del schema["required"]
    keep = reachable(defs, select_roots(defs, profile["roots"]))
    package = profile["package"]
    return {
        "$schema": DIALECT,
        "$id": f"{ID_BASE}/{package}/{version}/protocol.json",
        "title": f"{profile['npm']} {version}: protocol types, reconstructed from {o_ver}, {n_ver} and the seed diff",
        "$defs": {name: defs[name] for name in sorted(keep)},
    }


def kind_sources(older: Mapping[str, Any], newer: Mapping[str, Any], plan: Mapping[str, Any], version: str,
                 profile: Mapping[str, Any]):
    """A kind's provenance: both neighbours, or the newer one plus the evidence that puts it in this release."""
    rel = plan["releases"][version]
    o_members = {p for p, _ in catalog_builder.union_members(older, profile["message_union"])}
    o_requests = {found[1] for _, m in catalog_builder.union_members(older, profile["request_union"])
                  if (found := catalog_builder.request_value(m)) is not None}
    evidence = rel.get("requests", {}).get("evidence", {})

    def sources(what: str, name: str) -> list[str]:
        if what == "message":
            return ["r13", "r34"] if name in o_members else ["seed", "r34"]
        if what == "request":
            if name in o_requests:
                return ["r13", "r34"]
            return ["r34", evidence[name]] if name in evidence else ["r34", "inferred"]
        return ["r13", "r34"]

    return sources


def build_release(contracts: Path, package: str, version: str) -> dict[str, str]:
    plan = yaml.safe_load((PROFILES / f"{package}.reconstruct.yaml").read_text(encoding="utf-8"))
    profile = load_profile(package)
    older = orjson.loads((contracts / package / plan["older"] / "protocol.json").read_bytes())
    newer = orjson.loads((contracts / package / plan["newer"] / "protocol.json").read_bytes())
    protocol = reconstruct(older, newer, plan, version, profile)
    rel = plan["releases"][version]
    data = ImportInput(version, {}, rel.get("manifest"), rel.get("wire_version"), "")
    header = (f"# {package} {version}: RECONSTRUCTED (npm serves no {version}) by `python -m "
              f"wirecheck.importer.reconstruct {package}`\n# from {plan['older']}, {plan['newer']} and the seed diff; "
              f"plan and evidence: tools/wirecheck/importer/profiles/{package}.reconstruct.yaml. Edit the plan.\n")
    files = assemble(profile, data, sources=plan["sources"], protocol=protocol,
                     kind_sources=kind_sources(older, newer, plan, version, profile), manifest_source="seed",
                     header_note=header, extra_kinds=rel.get("extra_kinds", []))
    if rel.get("types"):
        files["types.json"] = dump({
            "$schema": DIALECT,
            "$id": f"{ID_BASE}/{package}/{version}/types.json",
            "title": f"{profile['npm']} {version}: dist/types shapes the seed diff touches",
            "$defs": rel["types"],
        })
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("package")
    parser.add_argument("--contracts", type=Path, default=Path("contracts"))
    args = parser.parse_args(argv)
    plan = yaml.safe_load((PROFILES / f"{args.package}.reconstruct.yaml").read_text(encoding="utf-8"))
    for version in plan["releases"]:
        files = build_release(args.contracts, args.package, version)
        for path in write_folder(files, args.contracts / args.package / version):
            print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
