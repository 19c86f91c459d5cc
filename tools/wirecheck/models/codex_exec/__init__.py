"""Generated models of codex-exec, one subpackage per release."""
