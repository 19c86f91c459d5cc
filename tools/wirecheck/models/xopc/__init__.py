"""Generated models of xopc, one subpackage per release."""
