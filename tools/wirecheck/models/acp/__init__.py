"""Generated models of acp, one subpackage per release."""
