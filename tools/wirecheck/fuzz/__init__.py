"""Property-based generation from contracts: valid instances (strategies), single-constraint mutants, consumer
fuzzing. Imports only `pointer` and `contracts` (layer 5 in ARCHITECTURE.md)."""

from wirecheck.lazy import hypothesis_home

hypothesis_home()  # every fuzz module uses Hypothesis: its storage goes to the user's cache, not the current folder
