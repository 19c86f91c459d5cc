"""Command-line values coerced without pydantic where typer's own coercion is the identity (issue 30, 6).

typer 0.29 coerces every parameter of the command that runs through a pydantic `TypeAdapter`
(typer/_coercion.py `build_runtime_param` → typer/_adapters.py `try_build_adapter`): importing pydantic and building
one adapter per parameter cost about 0.1 s CPU of every `wirecheck diff-schemas`, whose options are plain strings,
paths and flags. For the four annotations wirecheck's commands use, and for the values a command line gives them,
typer's adapters do something simple, done here with typer's own helpers:

- `str` given a `str`: `_adapters._parse_cli_str` returns `str(value)`, pydantic's `str` keeps it: the same string;
- `Path` (no `path_type`, no `parser`) given a `str`: pydantic's `Path` validator builds `Path(value)` and
  `_param_types.coerce_cli_path` checks it (exists, file/dir, readable, resolve_path: the same function is called
  here with the same `Path`, so the same checks and the same messages);
- `bool` given a `bool` (`_parse_cli_bool` passes it through, pydantic's `bool` keeps it; an absent flag's `None`
  never reaches the adapter, yet typer builds it all the same);
- `list[str]` given a list or tuple of `str`: `parse_list` validates each item as above and returns a list;
- `int` (no `clamp`) given an `int`, or a `str` of ASCII digits, within `min`/`max`: pydantic's lax `int` gives the
  same number (`validate --max-line-bytes`, `-j`: their defaults are ints, and pydantic was imported for them on
  every `validate`);
- an `Enum` given one of its members, or a `str` typer's `coerce_cli_choice` maps to one (the same helper typer's
  choice adapter calls: `--fail-on warning`).

Anything else (a negative or out-of-range number, a choice that is none, a file, a parser, bytes, a value from
an unusual place) goes to typer's own runtime
parameter, built on first use, as before. When typer's internals are not the ones this was written against, nothing
is replaced (typer coerces as it always does); `suites/cli/test_startup.py` then fails on pydantic in diff-schemas'
imports, and `suites/cli/test_coercion.py` compares both paths value by value.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Any


def install() -> None:
    try:
        from typer import _coercion, core
        from typer._coercion import RuntimeParam
        from typer._param_types import coerce_cli_choice, coerce_cli_path
    except ImportError:
        return
    original: Any = getattr(_coercion, "build_runtime_param", None)
    if original is None or getattr(core, "build_runtime_param", None) is not original:
        return  # typer changed (or this ran already): its own coercion stays
    typer_build: Any = original

    class Light(RuntimeParam):
        """typer's coercion for `str`, `Path`, `bool` and `list[str]`, without building a pydantic adapter. (No
        @dataclass of its own: making one costs ~1 ms of every call; its two extra attributes are set by `make`.)"""

        descriptor: Any
        shape: str

        @classmethod
        def make(cls, descriptor: Any, shape: str) -> Light:
            light = cls(parameter_info=descriptor.parameter_info, annotation=descriptor.annotation)
            object.__setattr__(light, "descriptor", descriptor)
            object.__setattr__(light, "shape", shape)
            return light

        def _typer_param(self) -> Any:
            built = self.__dict__.get("_built")
            if built is None:
                built = typer_build(self.descriptor)
                object.__setattr__(self, "_built", built)
            return built

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            if (self.shape == "str" and type(value) is str) or (self.shape == "bool" and type(value) is bool):
                return value
            if self.shape == "path" and type(value) is str:
                return coerce_cli_path(Path(value), self.parameter_info, path_type=Path, param=param, ctx=ctx)
            if self.shape == "list[str]" and isinstance(value, list | tuple) and all(type(v) is str for v in value):
                return list(value)
            if self.shape == "int" and (number := _plain_int(value, self.parameter_info)) is not None:
                return number
            if self.shape == "enum":
                if isinstance(value, self.annotation):
                    return value
                if type(value) is str:
                    try:
                        return coerce_cli_choice(value, choices=list(self.annotation),
                                                 case_sensitive=self.parameter_info.case_sensitive, ctx=ctx)
                    except ValueError:
                        pass  # typer says why, in its words
            return self._typer_param()._coerce_value(value, param=param, ctx=ctx)

    def build_runtime_param(descriptor: Any) -> Any:
        shape = light_shape(descriptor.annotation, descriptor.parameter_info, descriptor.file_annotation)
        if shape is None:
            return typer_build(descriptor)
        return Light.make(descriptor, shape)

    core.build_runtime_param = build_runtime_param


def light_shape(annotation: Any, parameter_info: Any, file_annotation: Any = None) -> str | None:
    """Which of the simple cases a parameter is, or None (typer's own adapter then)."""
    if file_annotation is not None or getattr(parameter_info, "parser", None) is not None:
        return None
    if annotation is str:
        return "str"
    if annotation is bool:
        return "bool"
    if annotation is Path and getattr(parameter_info, "path_type", None) is None:
        return "path"
    if annotation == list[str]:
        return "list[str]"
    if annotation is int and not getattr(parameter_info, "clamp", False):
        return "int"
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return "enum"
    return None


def _plain_int(value: Any, parameter_info: Any) -> int | None:
    """The int an `int` option takes from `value` (an int, or ASCII digits) when it is within min/max; None for
    anything else (typer's adapter then: its parsing and its message)."""
    if type(value) is int:
        number = value
    elif type(value) is str and value.isascii() and value.isdigit():
        number = int(value)
    else:
        return None
    low, high = getattr(parameter_info, "min", None), getattr(parameter_info, "max", None)
    if (low is not None and number < low) or (high is not None and number > high):
        return None
    return number
