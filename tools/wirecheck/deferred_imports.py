"""Format libraries python-jsonschema imports at its import, executed at their first use instead.

`jsonschema/_format.py` (4.26.0, lines 303-412) runs `from rfc3986_validator import validate_rfc3986` and
`from rfc3339_validator import validate_rfc3339` when it is imported, to register the `uri`/`uri-reference` and
`date-time`/`time` checks. rfc3986_validator compiles two regular expressions (RFC 3986's grammar, IPv6's nine
alternatives in each) as it executes: 68 M instructions, ~1/15 of a one-keyword `wirecheck diff-schemas`;
rfc3339_validator imports `six` and `calendar` (20 M); and most runs never check a `uri` or a `date-time`. (`idna`,
when installed, is imported there too, but its exception class is read at once: `raises=(idna.IDNAError, ...)`;
it is no dependency of wirecheck.) The standard library's lazy import recipe
(`importlib.util.LazyLoader`) cannot defer them: a `from module import name` reads the attribute, and any attribute
read executes a lazy module. So a module listed in DEFERRED is imported as a module whose listed functions are
forwarders: `from rfc3986_validator import validate_rfc3986` binds the forwarder without executing anything; the
first call (the first `uri` check), or the first read of any other attribute, executes the real module in place (the
same module object, which then holds the real functions), and the forwarder calls the real function with the same
arguments from then on. Which checks python-jsonschema registers, and what each answers, are unchanged.

`install()` (called by `wirecheck/__init__.py`, before anything of wirecheck can import jsonschema) puts the finder
at the front of `sys.meta_path`. A module is deferred only when it and what it imports at its top (`requires`) are
installed: a missing one still makes the import fail at once, where python-jsonschema expects it to
(`suppress(ImportError)`: the check is then not registered). A module imported before `install()` is left as it is.
`suites/contracts/test_deferred_imports.py` fails when the eager import comes back.
"""

from __future__ import annotations

import _thread
import sys
import types

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is not imported for this: `import wirecheck` runs this module
    from collections.abc import Callable, Sequence
    from typing import Any

# module → (its functions python-jsonschema imports by name, the modules it imports at its top beyond the stdlib)
DEFERRED: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "rfc3986_validator": (("validate_rfc3986",), ()),
    "rfc3339_validator": (("validate_rfc3339",), ("six",)),
}


class _DeferredModule(types.ModuleType):
    """A deferred module before it executes: a name it does not hold yet executes it."""

    def __getattr__(self, name: str) -> Any:
        if name == "__path__":  # asked by every `from module import name`: a module of DEFERRED is no package
            raise AttributeError(name)
        return getattr(_execute(self), name)


def _execute(module: types.ModuleType) -> types.ModuleType:
    loader = module.__spec__.loader  # type: ignore[union-attr]
    if isinstance(loader, _DeferredLoader):
        with loader.lock:  # a second thread waits here until the module has executed
            if not loader.executed:
                module.__class__ = types.ModuleType
                try:
                    loader.real.exec_module(module)
                except BaseException:
                    sys.modules.pop(module.__name__, None)  # as a failed import leaves it
                    raise
                loader.executed = True
                module.__spec__.loader = module.__loader__ = loader.real  # type: ignore[union-attr]
    elif type(module) is _DeferredModule:  # executed another way (importlib.reload)
        module.__class__ = types.ModuleType  # type: ignore[assignment]
    return module


def _forwarder(module: types.ModuleType, name: str) -> Callable[..., Any]:
    def forward(*args: Any, **kwargs: Any) -> Any:
        function = module.__dict__[name]
        if function is forward:
            function = getattr(_execute(module), name)
        return function(*args, **kwargs)

    forward.__name__ = forward.__qualname__ = name
    forward.__module__ = module.__name__
    return forward


class _DeferredLoader:
    def __init__(self, real: Any, names: Sequence[str]):
        self.real, self.names, self.lock, self.executed = real, names, _thread.RLock(), False

    def create_module(self, spec: Any) -> types.ModuleType | None:
        create = getattr(self.real, "create_module", None)
        return create(spec) if create is not None else None

    def exec_module(self, module: types.ModuleType) -> None:
        for name in self.names:
            setattr(module, name, _forwarder(module, name))
        module.__class__ = _DeferredModule


class _Finder:
    """Finds a module of DEFERRED as the finders after it do, and gives it the deferring loader; any other
    module: None at once (the next finder looks)."""

    def __init__(self) -> None:
        self.pending = set(DEFERRED)

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name not in self.pending:
            return None
        self.pending.discard(name)
        names, requires = DEFERRED[name]
        spec = _find(name, path, target, self)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        if any(_find(other, None, None, self) is None for other in requires if other not in sys.modules):
            return spec  # executes now, and fails as it would have
        spec.loader = _DeferredLoader(spec.loader, names)
        return spec


def _find(name: str, path: Any, target: Any, skip: object) -> Any:
    for finder in list(sys.meta_path):
        find = getattr(finder, "find_spec", None)
        if finder is not skip and find is not None:
            spec = find(name, path, target)
            if spec is not None:
                return spec
    return None


def install() -> None:
    if any(isinstance(f, _Finder) for f in sys.meta_path):
        return
    finder = _Finder()
    finder.pending -= sys.modules.keys()
    if finder.pending:
        sys.meta_path.insert(0, finder)
