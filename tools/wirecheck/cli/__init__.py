"""Thin command-line shell over the pure core. One module per command group."""
