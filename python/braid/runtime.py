"""mxnet.runtime: which of MXNet's compile-time features this build of Braid has.

``Features()`` (one instance) maps each feature name to a ``Feature`` (``name``, ``enabled``);
``feature_list()`` lists them in MXNet's order."""
import collections

from . import _core

__all__ = ["Feature", "feature_list", "Features"]


class Feature:
    """A compile-time feature: its ``name`` and whether it is ``enabled`` in this build."""

    def __init__(self, name, enabled):
        self._name, self._enabled = name, bool(enabled)

    @property
    def name(self):
        return self._name

    @property
    def enabled(self):
        return self._enabled

    def __repr__(self):
        return "%s %s" % ("\u2714" if self.enabled else "\u2716", self.name)


def feature_list():
    """Every feature of this build, in MXNet's order."""
    return [Feature(name, enabled) for name, enabled in _core.build_features()]


class Features(collections.OrderedDict):
    """The features by name; there is one instance, as in MXNet."""
    instance = None

    def __new__(cls):
        if cls.instance is None:
            cls.instance = super().__new__(cls)
            super().__init__(cls.instance, [(f.name, f) for f in feature_list()])
        return cls.instance

    def __init__(self):  # filled once, in __new__
        pass

    def __repr__(self):
        return str(list(self.values()))

    def is_enabled(self, feature_name):
        """Whether ``feature_name`` (any case) is enabled; RuntimeError for a name MXNet does not know."""
        name = feature_name.upper()
        if name not in self:
            raise RuntimeError("Feature '{}' is unknown, known features are: {}".format(name, list(self.keys())))
        return self[name].enabled
