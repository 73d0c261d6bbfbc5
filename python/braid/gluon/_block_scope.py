"""MXNet's gluon.block._BlockScope, the name scope of a block, for code written against it: while
``with _BlockScope(block):`` lives (per thread), symbols are named under block.prefix, blocks
created are named under it (a braid Block's own name_scope), and ``_BlockScope.create(prefix,
params, hint)`` gives a prefix and ParameterDict by MXNet's rule, counted by this scope (braid's
own blocks count in their C++ name scope, apart). A block whose _empty_prefix is set opens no
scope."""
import threading

from ..name import NameManager, Prefix
from .parameter import ParameterDict

__all__ = ["_BlockScope"]


def _dict_like(prefix, params):
    """A ParameterDict of ``prefix`` holding ``params``' parameters (MXNet shares ``params``)."""
    out = ParameterDict(prefix)
    if params is not None:
        out.update(params)
    return out


class _BlockScope(object):
    _current = threading.local()

    def __init__(self, block):
        self._block = block
        self._counter = {}
        self._old_scope = None
        self._name_scope = None
        self._block_name_scope = None

    @staticmethod
    def create(prefix, params, hint):
        """(prefix, ParameterDict) of a block made now: under the current scope's block, else a
        top-level name counted per ``hint``."""
        current = getattr(_BlockScope._current, "value", None)
        if current is None:
            if prefix is None:
                prefix = NameManager.current.get(None, hint) + "_"
            return prefix, _dict_like(params.prefix if params is not None else prefix, params)
        if prefix is None:
            count = current._counter.get(hint, 0)
            prefix = "%s%d_" % (hint, count)
            current._counter[hint] = count + 1
        if params is None:
            params = ParameterDict(current._block.params.prefix + prefix)
        else:
            params = _dict_like(params.prefix, params)
        return current._block.prefix + prefix, params

    def __enter__(self):
        if getattr(self._block, "_empty_prefix", False):
            return self
        self._old_scope = getattr(_BlockScope._current, "value", None)
        _BlockScope._current.value = self
        if hasattr(self._block, "name_scope"):
            self._block_name_scope = self._block.name_scope()
            self._block_name_scope.__enter__()
        self._name_scope = Prefix(self._block.prefix)
        self._name_scope.__enter__()
        return self

    def __exit__(self, ptype, value, trace):
        if getattr(self._block, "_empty_prefix", False):
            return
        self._name_scope.__exit__(ptype, value, trace)
        self._name_scope = None
        if self._block_name_scope is not None:
            self._block_name_scope.__exit__(ptype, value, trace)
            self._block_name_scope = None
        _BlockScope._current.value = self._old_scope
