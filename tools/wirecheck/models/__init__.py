"""Generated pydantic v2 models of the contracts: `wirecheck.models.<package>.v<version>` (`nox -s models`).

Each release package has `KINDS` (message kind id → class name) and `model_for(kind)`. The generator is
`wirecheck.models.generate`; `differences.yaml` lists what the models cannot express, with the reason.
"""
