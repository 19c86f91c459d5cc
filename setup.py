"""Packages for setuptools (the rest of the configuration is pyproject.toml): every package under tools/, and the
bundled contracts, which pyproject.toml maps from the top-level contracts/ to wirecheck._contracts."""

from setuptools import find_packages, setup

setup(packages=[*find_packages("tools", include=["wirecheck*"]), "wirecheck._contracts"])
