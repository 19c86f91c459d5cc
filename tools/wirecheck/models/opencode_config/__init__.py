"""Generated models of opencode-config, one subpackage per release."""
