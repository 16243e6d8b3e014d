"""Old names kept for one release after a rename, each use warning with the new name.

Each kind of rename, one warning (:class:`~analytic.errors.AnalyticDeprecationWarning`):

- an argument: :func:`renamed_arguments` on the function;
- an argument that became keyword-only: :func:`positional_deprecated`;
- an attribute of a result: :class:`renamed_attribute` in the class body;
- a function, class or constant of a module: :func:`old_names`, the module's ``__getattr__``;
- a module: an entry of :data:`MOVED_MODULES`, served by an import hook installed by
  ``analytic/__init__.py`` (``import analytic.old`` returns the new module itself).

Every rename is listed in CHANGELOG.md; the old names work through version 0.2 and go in 0.3.
"""

from __future__ import annotations

import functools
import importlib
import importlib.machinery
import sys
import warnings
from collections.abc import Callable, Mapping
from typing import Any

#: Old module name -> new module name.
MOVED_MODULES: dict[str, str] = {
    "analytic.ctmc.compensated": "analytic._double_double",
    "analytic.ctmc.balance": "analytic.ctmc._balance",
    "analytic.ctmc.certificate": "analytic.ctmc._certificate",
    "analytic.ctmc.extended": "analytic.ctmc._extended",
    "analytic.ctmc.gth": "analytic.ctmc._gth",
    "analytic.ctmc.krylov": "analytic.ctmc._krylov",
    "analytic.ctmc.multilevel": "analytic.ctmc._multilevel",
    "analytic.ctmc.ordering": "analytic.ctmc._ordering",
    "analytic.ctmc.preconditioner": "analytic.ctmc._preconditioner",
    "analytic.ctmc.refinement": "analytic.ctmc._refinement",
    "analytic.ctmc.reversible": "analytic.ctmc._reversible",
    "analytic.ctmc.rounding": "analytic.ctmc._rounding",
    "analytic.ctmc.spanning": "analytic.ctmc._spanning",
    "analytic.splitting.engine": "analytic.splitting._engine",
}


def warn(old: str, new: str, stacklevel: int = 3) -> None:
    """Warn that ``old`` is renamed ``new``."""
    deprecated(f"{old} is renamed {new}; the old name will be removed in version 0.3", stacklevel + 1)


def renamed_entry(owner: str, old: str, new: str, values: Any, name: str, index: Any, first: int = 0) -> Any:
    """The deprecated accessor ``owner.old(index)`` of an entry of ``owner.new``: warns, then returns
    ``values[index - first]``, refusing an ``index`` (named ``name``) outside ``first, ...,
    first + len(values) - 1``."""
    from .errors import InvalidParameterError
    from .validation import integer

    warn(f"{owner}.{old}()", f"{owner}.{new}", stacklevel=4)
    k = integer(name, index, minimum=first)
    if k - first >= len(values):
        raise InvalidParameterError(name, index, f"must be below {first + len(values)}")
    return values[k - first]


def deprecated(message: str, stacklevel: int = 3) -> None:
    """Warn with ``message`` (:class:`~analytic.errors.AnalyticDeprecationWarning`)."""
    from .errors import AnalyticDeprecationWarning  # here: it imports numpy, which `import analytic` does not

    warnings.warn(message, AnalyticDeprecationWarning, stacklevel=stacklevel)


def renamed_arguments(**renames: str) -> Callable:
    """Decorator: accept each old keyword argument (``old="new"``) under its new name, with a warning.

    Passing both names is an error. The wrapped function keeps its signature (the new names only).

    Examples
    --------
    >>> import warnings
    >>> @renamed_arguments(beta="theta")
    ... def f(theta):
    ...     return theta
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     f(beta=0.5), caught[0].category.__name__
    (0.5, 'AnalyticDeprecationWarning')
    """
    def decorate(function: Callable) -> Callable:
        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for old, new in renames.items():
                if old in kwargs:
                    if new in kwargs:
                        from .errors import InvalidParameterError

                        raise InvalidParameterError(old, kwargs[old], f"not given together with {new} (its new name)")
                    warn(f"argument {old} of {function.__qualname__}", new)
                    kwargs[new] = kwargs.pop(old)
            return function(*args, **kwargs)
        return wrapper
    return decorate


def positional_deprecated(*names: str) -> Callable:
    """Decorator: the keyword-only parameters ``names`` (in order) may still be passed by position for
    one release, with a warning. The wrapped function keeps its keyword-only signature.

    Examples
    --------
    >>> import warnings
    >>> @positional_deprecated("servers")
    ... def limit(theta, *, servers=None):
    ...     return theta, servers
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     limit(0.5, 100), str(caught[0].message)[:40]
    ((0.5, 100), 'servers of limit passed by position: wri')
    """
    def decorate(function: Callable) -> Callable:
        import inspect  # here: `import analytic` stays light

        leading = sum(parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD)
                      for parameter in inspect.signature(function).parameters.values())

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            extra = args[leading:]
            if extra:
                if len(extra) > len(names):
                    raise TypeError(f"{function.__qualname__}() takes {leading + len(names)} arguments by position at most")
                given = names[:len(extra)]
                deprecated(f"{', '.join(given)} of {function.__qualname__} passed by position: write "
                           f"{', '.join(f'{name}=...' for name in given)}; by position it goes in version 0.3")
                kwargs.update(zip(given, extra, strict=True))
            return function(*args[:leading], **kwargs)
        return wrapper
    return decorate


def old_names(namespace: dict, renames: Mapping[str, str]) -> Callable[[str], object]:
    """A module ``__getattr__`` serving each old name ``renames[old] = new``.

    Call it with the module's ``globals()``; ``new`` is a name in that module, or a full dotted name
    (``"analytic.speedup.as_curve"``) for a name that moved to another module.
    """
    module = namespace["__name__"]

    def __getattr__(name: str) -> object:
        if name not in renames:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        new = renames[name]
        if "." not in new:
            warn(f"{module}.{name}", f"{module}.{new}")
            return namespace[new]
        home, _, attribute = new.rpartition(".")
        warn(f"{module}.{name}", new)
        return getattr(importlib.import_module(home), attribute)
    return __getattr__


class renamed_attribute:
    """A read-only attribute of a result class kept under its old name, warning with ``new``.

    ``new`` is the attribute that replaces it, or a dotted path to it (``"blocking.half_width"``, where
    an optional field that is None gives None); ``get`` reads the value where no path does.
    """

    def __init__(self, new: str, get: Callable[[Any], object] | None = None) -> None:
        self.new, self.get = new, get or functools.partial(_follow, new.split("."))
        self.__doc__ = f"Deprecated: use ``{new}``."

    def __set_name__(self, owner: type, name: str) -> None:
        self.old = f"{owner.__name__}.{name}"

    def __get__(self, instance: object, owner: type | None = None) -> object:
        if instance is None:
            return self
        warn(self.old, self.new)
        return self.get(instance)


def _follow(path: list[str], value: object) -> object:
    """``value.a.b...`` along ``path``, stopping at None."""
    for name in path:
        if value is None:
            return None
        value = getattr(value, name)
    return value


class _MovedModuleFinder:
    """Serves ``import <old module>`` with the new module object, warning once per import."""

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> object:
        if fullname not in MOVED_MODULES:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: Any) -> object:
        new = MOVED_MODULES[spec.name]
        warn(f"module {spec.name}", new)   # warnings skips the import machinery's frames
        return importlib.import_module(new)

    def exec_module(self, module: object) -> None:
        """The new module is already executed."""


def install() -> None:
    """Put the moved-module hook on ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, _MovedModuleFinder) for finder in sys.meta_path):
        sys.meta_path.append(_MovedModuleFinder())
