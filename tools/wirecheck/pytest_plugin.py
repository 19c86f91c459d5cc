"""pytest plugin entry point (`pytest11 = wirecheck`).

Reserved: the conformance gate for adapter test suites (`--wirecheck-contract`, `--wirecheck-capture`, issue 8)
registers its options and test items here. Until then the plugin adds nothing to a pytest run.
"""
