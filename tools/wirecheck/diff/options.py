"""What a diff run protects: which directions count, which consumer model, whether to search for witnesses."""

from __future__ import annotations

from dataclasses import dataclass

from wirecheck.diff.model import BACKWARD, BREAKING, DIRECTIONS, FORWARD, STRICT, TOLERANT, UNKNOWN
from wirecheck.findings import Severity

COMPATIBILITY = {"forward": (FORWARD,), "backward": (BACKWARD,), "full": DIRECTIONS}


@dataclass(frozen=True)
class DiffOptions:
    witnesses: bool = True
    directions: tuple[str, ...] = DIRECTIONS  # --compat forward|backward|full
    # --consumers: `tolerant` (default) makes breaks that only strict (closed-model) consumers see warnings;
    # `strict` protects closed-model consumers too, so those become errors.
    consumers: str = TOLERANT
    annotations: bool = False  # --annotations: list annotation changes (ANNOTATION_CHANGED, info)
    # --strict-sets: a break whose every witness needs a member the writer's contract never declared (latent,
    # model.LATENT: only an open object let it through) is an error like any other; by default it is a warning
    strict_sets: bool = False

    def severity(self, verdicts: tuple[tuple[str, str, str], ...],
                 readers: tuple[tuple[str, str], ...] = (), latent: tuple[tuple[str, str], ...] = ()) -> Severity:
        """A finding's severity from its verdicts: error = breaks a protected consumer (the `--consumers` models,
        and the kind's real consumer model in each direction: `readers`, from readers.yaml) on declared evidence
        (or on latent evidence too under `--strict-sets`), warning = may break one (undecided), breaks one only
        for a writer of undeclared members (`latent`), or breaks only closed-model consumers we were not asked to
        protect, info = breaks nobody."""
        protected = [(d, m, v) for d, m, v in verdicts if d in self.directions]
        views = (STRICT, TOLERANT) if self.consumers == STRICT else (TOLERANT,)
        if any(v == BREAKING and (m in views or (d, m) in readers) and (self.strict_sets or (d, m) not in latent)
               for d, m, v in protected):
            return Severity.ERROR
        if any(v in (BREAKING, UNKNOWN) for _, _, v in protected):
            return Severity.WARNING
        return Severity.INFO
