"""The API reference, generated from the ``__all__`` of every module of the package.

Each object is documented once, where the first module in :data:`ORDER` exports it (a package
before its submodules); every other module that lists it links there. :func:`write_pages` writes
one page per top-level module or package into ``docs/api/`` (not stored: rebuilt every time).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

#: Top-level modules and packages in the order of the reference: the core first, then the papers.
ORDER = ("erlang", "intervals", "speedup", "ctmc", "simulation", "moldable", "splitting", "hesrpt", "fairness", "partitioning",
         "reproduce", "errors", "validation", "memory")


def modules(top: str) -> list[str]:
    """``analytic.<top>`` and, for a package, its public submodules in alphabetical order (a module whose
    name, or a package's, starts with an underscore is private: the kernels behind the public API)."""
    module = importlib.import_module(f"analytic.{top}")
    names = [module.__name__]
    if hasattr(module, "__path__"):
        names += sorted(info.name for info in pkgutil.walk_packages(module.__path__, f"{module.__name__}.")
                        if not any(part.startswith("_") for part in info.name.split(".")))
    return names


def public(module_name: str) -> list[tuple[str, object]]:
    """The names in a module's ``__all__`` with their objects."""
    module = importlib.import_module(module_name)
    return [(name, getattr(module, name)) for name in getattr(module, "__all__", ())]


def _directive(obj: object) -> str:
    if inspect.isclass(obj):
        return "autoexception" if issubclass(obj, BaseException) else "autoclass"
    return "autofunction" if callable(obj) else "autodata"


def _no_index(module_name: str) -> list[str]:
    """``:no-index:`` for a submodule named like a function its package exports (``fairness.stability``)."""
    package, _, short = module_name.rpartition(".")
    shadowed = package != "analytic" and short in getattr(importlib.import_module(package), "__all__", ())
    return ["   :no-index:"] if shadowed else []


def _homes() -> dict[int, str]:
    """For each public object, the full name under which it is documented."""
    homes: dict[int, str] = {}
    for top in ORDER:
        for module_name in modules(top):
            for name, obj in public(module_name):
                homes.setdefault(id(obj), f"{module_name}.{name}")
    return homes


def non_callables() -> set[str]:
    """Patterns of the documented names that are attributes, not callables: module constants and the
    properties of public classes (numpydoc's Parameters/Returns/Examples checks do not apply)."""
    patterns = set()
    for obj_id, full in _homes().items():
        obj = _OBJECTS[obj_id]
        if not callable(obj):
            patterns.add(f"^{full.replace('.', '[.]')}$")
        elif inspect.isclass(obj):
            for attribute, value in vars(obj).items():
                if not attribute.startswith("_") and not callable(value) and not isinstance(value, (classmethod, staticmethod)):
                    patterns.add(f"^{full.replace('.', '[.]')}[.]{attribute}$")
    return patterns


def deprecated() -> set[str]:
    """Patterns of the documented names kept for one release after a rename (their docstring starts with
    "Deprecated"): listed so that old code finds them, not validated as API (they warn and point to the new name)."""
    patterns = set()
    for obj_id, full in _homes().items():
        obj = _OBJECTS[obj_id]
        members = vars(obj).items() if inspect.isclass(obj) else ()
        for name, value in [("", obj), *((f".{attribute}", value) for attribute, value in members)]:
            if (inspect.getdoc(value) or "").startswith("Deprecated"):
                patterns.add(f"^{full.replace('.', '[.]')}{name.replace('.', '[.]')}$")
    return patterns


_OBJECTS = {id(obj): obj for top in ORDER for module_name in modules(top) for _, obj in public(module_name)}


def _page(top: str, homes: dict[int, str]) -> str:
    title = f"analytic.{top}"
    lines = [title, "=" * len(title), ""]
    for module_name in modules(top):
        if module_name != f"analytic.{top}":
            lines += [f".. _{module_name}:", "", module_name, "-" * len(module_name), ""]
        lines += [f".. automodule:: {module_name}", "   :no-members:", *_no_index(module_name), ""]
        here = []
        for name, obj in public(module_name):
            full = f"{module_name}.{name}"
            if homes[id(obj)] == full:
                lines += [f".. {_directive(obj)}:: {full}", ""]
            else:
                here.append(f":py:obj:`{name} <{homes[id(obj)]}>`")
        if here:
            lines += ["Also exported here: " + ", ".join(here) + ".", ""]
    return "\n".join(lines)


def write_pages(target: Path) -> None:
    """Write ``index.rst`` and one page per entry of :data:`ORDER` into ``target``."""
    target.mkdir(exist_ok=True)
    homes = _homes()
    for top in ORDER:
        text = _page(top, homes)
        path = target / f"{top}.rst"
        if not path.exists() or path.read_text(encoding="utf-8") != text:  # unchanged pages stay unread
            path.write_text(text, encoding="utf-8")
    index = ["API reference", "=============", "", ".. automodule:: analytic", "   :no-members:", "",
             "Every name in the ``__all__`` of every module, documented where its package exports it.", "",
             ".. toctree::", "   :maxdepth: 1", "", *[f"   {top}" for top in ORDER], ""]
    (target / "index.rst").write_text("\n".join(index), encoding="utf-8")
