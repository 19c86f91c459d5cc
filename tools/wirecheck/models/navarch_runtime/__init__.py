"""Generated models of navarch-runtime, one subpackage per release."""
