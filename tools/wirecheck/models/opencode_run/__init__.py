"""Generated models of opencode-run, one subpackage per release."""
