"""mxnet.attribute: ``with AttrScope(ctx_group='dev1'):`` gives every symbol made inside these
attributes (an explicit ``attr=`` wins over the scope's). Scopes nest; the current one is per thread."""
import collections
from ._thread_local import ThreadLocalCurrent

__all__ = ["AttrScope"]


class AttrScope(metaclass=ThreadLocalCurrent):
    """Attributes (string values) for the symbols made while the scope is entered."""

    # How many control-flow subgraphs (mx.sym.contrib.foreach, ...) took each name, as MXNet counts.
    _subgraph_names = collections.defaultdict(int)

    @classmethod
    def _default(cls):
        return AttrScope()

    def __init__(self, **kwargs):
        for key, value in kwargs.items():
            if not isinstance(value, str):
                raise ValueError("AttrScope: attribute %s must be a string, got %r" % (key, value))
        self._old_scope = None
        self._attr = kwargs

    def get(self, attr):
        """The scope's attributes updated with ``attr`` (a dict or None)."""
        if not self._attr:
            return dict(attr) if attr else {}
        merged = self._attr.copy()
        if attr:
            merged.update(attr)
        return merged

    def __enter__(self):
        self._old_scope = AttrScope.current
        merged = self._old_scope._attr.copy()
        merged.update(self._attr)
        self._attr = merged
        AttrScope.current = self
        return self

    def __exit__(self, ptype, value, trace):
        assert self._old_scope is not None, "AttrScope.__exit__ without __enter__"
        AttrScope.current = self._old_scope
