"""MXNet's name for Braid: ``import mxnet as mx`` runs Braid, for programs written for Apache MXNet 1.x.

``mxnet`` is the ``braid`` package itself, and every module ``mxnet.X`` is Braid's ``braid.X``
(``mxnet.gluon.nn`` is ``braid.gluon.nn``, the same module object): a finder at the front of
``sys.meta_path`` resolves those names, so ``import mxnet.ndarray``, ``from mxnet.gluon import nn``
and ``from mxnet.base import MXNetError`` give Braid's modules and classes, and ``isinstance`` works
across both names. A module MXNet has and Braid not yet raises ModuleNotFoundError naming it.

Installed with the ``braid`` package; configure with ``-DBRAID_INSTALL_MXNET=OFF`` where Apache
MXNet itself must keep the name.
"""
import importlib
import importlib.abc
import importlib.util
import sys

import braid

_PREFIX = __name__ + "."


class _BraidModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``mxnet.X`` as the already imported ``braid.X``."""

    def __init__(self):
        self._specs = {}  # braid modules' own specs, kept while the import machinery lends them ours

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(_PREFIX):
            return None
        real = "braid." + fullname[len(_PREFIX):]
        try:
            found = importlib.util.find_spec(real)
        except ModuleNotFoundError:
            found = None
        if found is None:
            raise ModuleNotFoundError(f"No module named '{fullname}': Braid has no {real} (yet)", name=fullname)
        return importlib.util.spec_from_loader(fullname, self, is_package=found.submodule_search_locations is not None)

    def create_module(self, spec):
        module = importlib.import_module("braid." + spec.name[len(_PREFIX):])
        self._specs[spec.name] = module.__spec__
        return module

    def exec_module(self, module):
        # The import machinery set the module's __spec__ to the mxnet name's; give it its own back.
        module.__spec__ = self._specs.pop(module.__name__.replace("braid.", _PREFIX, 1), module.__spec__)


if not any(isinstance(f, _BraidModules) for f in sys.meta_path):
    sys.meta_path.insert(0, _BraidModules())
sys.modules[__name__] = braid
braid._serve_if_server()
