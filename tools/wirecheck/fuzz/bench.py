"""Generation throughput: valid messages per second for the union of a release's kinds (called by `nox -s bench`).

The measured union for the target is every kind one party writes on a stream, e.g. everything the Qoder CLI
writes to the SDK (`producer="cli"`, `channel="stdio-ndjson"`). Compilation is timed apart (it happens once);
every generated message is re-validated with jsonschema-rs after timing and counted if it fails.
Target: >= 200 valid messages/s for the Qoder CLI → SDK union (hypothesis-jsonschema managed 5.5/s; it is not
used here).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import orjson
from hypothesis import strategies as st

from wirecheck.contracts import load_registry
from wirecheck.contracts.model import ContractRelease
from wirecheck.fuzz.corpus import fuzzable_kinds
from wirecheck.fuzz.sampling import draw_examples
from wirecheck.fuzz.strategies import compiler_for, kind_strategy

TARGET_PER_SECOND = 200.0


@dataclass(frozen=True)
class GenerationBench:
    release: str
    kinds: int
    messages: int
    compile_seconds: float
    seconds: float
    per_second: float
    invalid: int  # generated messages the validator rejects: must be 0
    kinds_seen: int  # distinct kinds among the generated messages
    target: float = TARGET_PER_SECOND

    @property
    def meets_target(self) -> bool:
        return self.per_second >= self.target and self.invalid == 0

    def as_json(self) -> dict[str, Any]:
        return {**asdict(self), "meets_target": self.meets_target}


def union_kinds(release: ContractRelease, producer: str | None = None, channel: str | None = None) -> list[Any]:
    return [
        k for k in fuzzable_kinds(release)
        if (producer is None or k.producer == producer) and (channel is None or k.channel == channel)
    ]


def _tagger(kind_id: str) -> Any:
    return lambda message: (kind_id, message)


def bench_generation(
    release: ContractRelease,
    *,
    producer: str | None = None,
    channel: str | None = None,
    count: int = 2000,
    seed: int = 0,
) -> GenerationBench:
    kinds = union_kinds(release, producer, channel)
    if not kinds:
        raise ValueError(f"no kinds in {release.name} for producer={producer!r} channel={channel!r}")
    started = time.perf_counter()
    compiler = compiler_for(release)
    tagged = [kind_strategy(release, k.id).map(_tagger(k.id)) for k in kinds]
    union = st.one_of(tagged)
    compiled = time.perf_counter()
    drawn = draw_examples(union, count, seed)
    finished = time.perf_counter()
    validators = {k.id: compiler.schemas.ref_validator(k.schema.uri) for k in kinds}
    invalid = sum(1 for kind_id, message in drawn if not validators[kind_id].is_valid(message))
    seconds = finished - compiled
    return GenerationBench(
        release=release.name,
        kinds=len(kinds),
        messages=len(drawn),
        compile_seconds=round(compiled - started, 3),
        seconds=round(seconds, 3),
        per_second=round(len(drawn) / seconds, 1) if seconds else 0.0,
        invalid=invalid,
        kinds_seen=len({kind_id for kind_id, _ in drawn}),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m wirecheck.fuzz.bench", description=__doc__.split("\n")[0])
    parser.add_argument("spec", help="package@version, e.g. qoder-agent-sdk@1.0.23")
    parser.add_argument("--producer", help="only kinds this role writes (e.g. cli)")
    parser.add_argument("--channel", help="only kinds on this channel (e.g. stdio-ndjson)")
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the result as JSON here (e.g. reports/bench/generation.json)")
    args = parser.parse_args(argv)
    result = bench_generation(
        load_registry().load(args.spec), producer=args.producer, channel=args.channel, count=args.count,
        seed=args.seed,
    )
    for key, value in result.as_json().items():
        print(f"{key:16} {value}")
    if args.json:
        path = Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(orjson.dumps(result.as_json(), option=orjson.OPT_INDENT_2) + b"\n")
    return 0 if result.meets_target else 1


if __name__ == "__main__":
    sys.exit(main())
