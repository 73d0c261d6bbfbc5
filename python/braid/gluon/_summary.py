"""Block.summary: each layer's output shape and parameter count, from one forward pass (MXNet's
format, so that logs and notebooks read the same)."""
import collections

from .. import ndarray as _nd
from .._core import gluon as _g

_ROW = "{:>20}  {:>42} {:>15}"


def _shapes(value):
    """The shapes in a (nested) output, as MXNet prints them: one shape, or a list of them without
    the outer brackets."""
    def shapes_of(v):
        if isinstance(v, (list, tuple)):
            return [shapes_of(e) for e in v]
        return v.shape if isinstance(v, _nd.NDArray) else v
    shapes = shapes_of(value)
    return str(shapes)[1:-1] if isinstance(shapes, list) else str(shapes)


def summary(self, *inputs):
    """Prints each layer's output shape and parameter count for one forward pass over ``inputs``,
    then the totals (shared parameters counted once in "Unique parameters"). The block must be
    initialized and not hybridized: a hybridized block runs as one graph, without its layers'
    hooks."""
    from .nn import Sequential, HybridSequential
    rows = collections.OrderedDict()
    rows["Input"] = (_shapes(list(inputs)), 0, 0, 0)
    seen = set()
    hooks = []

    def record(block, _, outputs):
        total = trainable = shared = 0
        for p in block.params.values():
            size = p.data().size
            total += size
            trainable += 0 if p.grad_req == "null" else size
            if p.name in seen:
                shared += size
            seen.add(p.name)
        rows["%s-%d" % (type(block).__name__, len(rows))] = (_shapes(outputs), total, trainable, shared)

    def watch(block):
        assert not (isinstance(block, _g.HybridBlock) and block._hybridized), \
            '"{}" must not be hybridized to print summary.'.format(block.name)
        if not isinstance(block, (Sequential, HybridSequential)):
            hooks.append(block.register_forward_hook(record))

    try:
        self.apply(watch)
        self(*inputs)
    finally:
        for hook in hooks:
            hook.detach()
    print("-" * 80)
    print(_ROW.format("Layer (type)", "Output Shape", "Param #"))
    print("=" * 80)
    for name, (shape, total, _, _) in rows.items():
        print(_ROW.format(name, shape, total))
    total, trainable, shared = (sum(r[i] for r in rows.values()) for i in (1, 2, 3))
    print("=" * 80)
    print("Parameters in forward computation graph, duplicate included")
    print("   Total params: %d" % total)
    print("   Trainable params: %d" % trainable)
    print("   Non-trainable params: %d" % (total - trainable))
    print("Shared params in forward computation graph: %d" % shared)
    print("Unique parameters in model: %d" % (total - shared))
    print("-" * 80)
