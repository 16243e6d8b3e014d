"""Sphinx configuration of the analytic documentation: ``python -m sphinx -W docs docs/_build/html``.

The API reference is generated at each build from the ``__all__`` of every module (:mod:`api`
beside this file), the stored notebooks are copied in and rendered without being executed, and
numpydoc validates every public callable's docstring.
"""

import importlib
import inspect
import pkgutil
import shutil
import sys
from itertools import takewhile
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

import api  # noqa: E402  (beside this file)
from sphinx.pycode import ModuleAnalyzer  # noqa: E402
from sphinx.util import logging  # noqa: E402
from sphinx.util.nodes import make_refnode  # noqa: E402

import analytic  # noqa: E402

logger = logging.getLogger(__name__)

project = "analytic"
author = "the analytic developers"
copyright = "the analytic developers"
release = version = analytic.__version__

# Maths is typeset in the browser by MathJax 3, served from the built site itself (the
# sphinx-mathjax-offline extension copies it into _static/mathjax and points mathjax_path there):
# pages and notebooks render their formulas with no network.
extensions = ["sphinx.ext.autodoc", "sphinx.ext.mathjax", "sphinx-mathjax-offline", "numpydoc", "myst_nb"]
exclude_patterns = ["_build", "**.ipynb_checkpoints", "README.md"]
source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb", ".rst": "restructuredtext"}

# The notebooks are stored with their outputs at the papers' scale: render them, never run them.
nb_execution_mode = "off"
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3

# Autodoc documents each name where its package exports it (api.py), members in source order, and
# lists undocumented members too, so that numpydoc reports them (GL08).
autodoc_member_order = "bysource"
autodoc_typehints = "none"
autodoc_default_options = {"members": True, "undoc-members": True}
add_module_names = False

# numpydoc: a public callable without Parameters (PR01), Returns (RT01), an Example (EX01) or a
# docstring at all (GL08) fails the build (warnings are errors under -W).
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks = {"PR01", "RT01", "EX01", "GL08"}
# A frozen result class documents its fields, which are its constructor's parameters, under Attributes.
numpydoc_validation_overrides = {"PR01": [r"(?m)^\s*Attributes\n\s*-{5,}"]}
# Attributes (properties, constants) are not callables: only GL08 applies, checked by tests/contract/test_docs.py.
numpydoc_validation_exclude = api.non_callables() | api.deprecated()

# Internal links: every cross-reference must resolve (-n), with Python's and numpy's names, which
# have no inventory here (no network), the only exceptions. A docstring may name an object the
# way its own module sees it (``configurations.state_space``, ``CTMC.stationary``):
# _resolve_suffix links it to the one documented object whose full name ends that way.
nitpicky = True
nitpick_ignore_regex = [(r"py:.*", r"(numpy|scipy|concurrent|functools|collections)\..*")]

html_theme = "pydata_sphinx_theme"
html_title = "analytic"
# The top bar holds three pages and "More" (it stays one row at 1280 px, checked by
# tests/contract/test_docs_render.py), and the search is a button; the left sidebar shows the whole site
# (_templates/sidebar-nav-site.html), so that it is not empty on a page without sub-pages. The paper
# pages, one table without sections, leave out the right sidebar and give its width to the table.
html_theme_options = {"navigation_with_keys": False, "show_toc_level": 2, "header_links_before_dropdown": 3,
                      "navbar_persistent": ["search-button"], "navbar_align": "left",
                      "secondary_sidebar_items": {"**": ["page-toc", "sourcelink"],
                                                  **{f"papers/{page.stem}": [] for page in (HERE / "papers").glob("*.md")}}}
html_sidebars = {"**": ["sidebar-nav-site"]}
templates_path = ["_templates"]
html_static_path = ["_static"]
# Tables wrap to the width of the page, code lines wrap instead of hiding behind a scroll bar.
html_css_files = ["analytic.css"]


def _prepare(app) -> None:
    """Copy the stored notebooks in and write the API pages, before Sphinx reads the sources."""
    target = HERE / "notebooks"
    target.mkdir(exist_ok=True)
    for notebook in sorted((HERE.parent / "notebooks").glob("*.ipynb")):
        shutil.copyfile(notebook, target / notebook.name)
    api.write_pages(HERE / "api")


def _resolve_suffix(app, env, node, contnode):
    """Link an unresolved Python reference written as the docstring's module sees it.

    ``configurations.state_space`` or ``CTMC.stationary``: the documented object whose full name
    ends that way, else the one with the same last name; among several, the one sharing the longest
    prefix with the docstring's module. A module shadowed by a function of its package
    (``fairness.stability``) is linked to its section of the API reference.
    """
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"].lstrip(".~")
    here = node.get("py:module") or ""
    if node.get("reftype") == "mod":
        labels = env.get_domain("std").labels
        for label in (target, f"{here}.{target}", f"{here.rpartition('.')[0]}.{target}"):
            if label in labels:
                docname, anchor, _ = labels[label]
                return make_refnode(app.builder, node["refdoc"], docname, anchor, contnode)
        return None
    domain = env.get_domain("py")
    matches = [name for name in domain.objects if name.endswith("." + target)]
    matches = matches or [name for name in domain.objects if name.endswith("." + target.rpartition(".")[2])]
    if not matches:
        return None

    def shared(name: str) -> int:
        return sum(1 for _ in takewhile(lambda pair: pair[0] == pair[1], zip(name.split("."), here.split("."), strict=False)))

    best = max(map(shared, matches))
    chosen = [name for name in matches if shared(name) == best]
    if len(chosen) != 1:
        return None
    return domain.resolve_any_xref(env, node["refdoc"], app.builder, chosen[0], node, contnode)[0][1]


def _constant_docstring(app, what, name, obj, options, lines) -> None:
    """Document a module constant by its ``#:`` comment where it is defined.

    Autodoc reads a constant's ``#:`` comment in the module it documents it under; a package that
    re-exports the constant of a submodule has no such comment, and autodoc would print the docstring
    of the constant's type (``tuple``: "Built-in immutable sequence..."). The comment is taken from
    the submodule that assigns the same object; a constant with neither fails the build.
    """
    if what != "data" or not lines or inspect.getdoc(type(obj)) is None:
        return
    if "\n".join(lines).strip() != inspect.cleandoc(type(obj).__doc__).strip():
        return
    module_name, _, short = name.rpartition(".")
    package = importlib.import_module(module_name)
    for info in pkgutil.walk_packages(getattr(package, "__path__", []), module_name + "."):
        module = importlib.import_module(info.name)
        if getattr(module, short, None) is not obj:
            continue
        comment = ModuleAnalyzer.for_module(info.name).find_attr_docs().get(("", short))
        if comment:
            lines[:] = list(comment)
            return
    logger.warning("%s has no #: comment: the API reference would show the docstring of %s",
                   name, type(obj).__name__)


def setup(app):
    app.connect("builder-inited", _prepare)
    app.connect("autodoc-process-docstring", _constant_docstring, priority=400)   # before numpydoc's
    app.connect("missing-reference", _resolve_suffix)
