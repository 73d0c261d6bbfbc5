"""The optimizers an SVRGModule gives its KVStore: the user's optimizer for the weights, and an
assignment for the ``<name>_full`` keys, through which the devices' and workers' full gradients
are summed."""
import inspect

from ... import optimizer as opt

__all__ = ["_SVRGOptimizer", "_AssignmentOptimizer"]

# What the Optimizer base class takes; the other keywords are the wrapped optimizer's own.
_BASE_KEYWORDS = set(inspect.signature(opt.Optimizer.__init__).parameters) - {"self", "kwargs"}


@opt.register
class _AssignmentOptimizer(opt.Optimizer):
    """Sets the weight to what was pushed (``weight[:] = grad``): a KVStore key it updates holds
    the sum of the last push."""

    def create_state(self, index, weight):
        return None

    def update(self, index, weight, grad, state):
        weight[:] = grad


@opt.register
class _SVRGOptimizer(opt.Optimizer):
    """``default_optimizer`` (a name or an Optimizer) for the weights; the keys whose names end in
    ``_full`` (the full gradients) are assigned what was pushed. The keyword arguments go to both
    (those of the Optimizer base class) or to the default optimizer alone."""

    def __init__(self, default_optimizer, **kwargs):
        super().__init__(**{k: v for k, v in kwargs.items() if k in _BASE_KEYWORDS})
        if isinstance(default_optimizer, str):
            default_optimizer = opt.create(default_optimizer, **kwargs)
        self.default_opt = default_optimizer
        self.aux_opt = _AssignmentOptimizer()

    def _for(self, index):
        """The optimizer of key or index ``index``: a string key is its own name, an int is looked
        up in idx2name."""
        name = index if isinstance(index, str) else self.idx2name.get(index, "")
        if name.endswith("_full"):
            return self.aux_opt
        self.default_opt.idx2name = self.idx2name  # the module sets it on this optimizer only
        return self.default_opt

    def create_state(self, index, weight):
        return self._for(index).create_state(index, weight)

    def create_state_multi_precision(self, index, weight):
        return self._for(index).create_state_multi_precision(index, weight)

    def update(self, index, weight, grad, state):
        self._for(index).update(index, weight, grad, state)

    def update_multi_precision(self, index, weight, grad, state):
        self._for(index).update_multi_precision(index, weight, grad, state)

    def set_learning_rate(self, lr):
        super().set_learning_rate(lr)
        self.default_opt.set_learning_rate(lr)
