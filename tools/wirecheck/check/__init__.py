"""The conformance engine: classify each message, validate it, correlate, run protocol rules (pure)."""
