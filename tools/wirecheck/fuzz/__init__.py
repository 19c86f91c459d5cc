"""Property-based generation from contracts: valid instances (strategies), single-constraint mutants, consumer
fuzzing. Imports only `pointer` and `contracts` (layer 5 in ARCHITECTURE.md)."""
