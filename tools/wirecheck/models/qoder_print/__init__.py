"""Generated models of qoder-print, one subpackage per release."""
