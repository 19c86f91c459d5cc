"""The bundled contracts: data only. The wheel ships this folder as the package `wirecheck._contracts`
(pyproject.toml maps it), so an installed wirecheck finds them with importlib.resources; this file makes the folder
a package that editable installs can map too."""
