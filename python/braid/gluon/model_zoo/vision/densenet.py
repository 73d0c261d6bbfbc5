"""DenseNet-121, 161, 169 and 201 ("Densely Connected Convolutional Networks"), with MXNet's block
structure and parameter names."""
from ....context import cpu
from ...._core.gluon import model_zoo as _z
from ..model_store import DEFAULT_ROOT, load_pretrained

__all__ = ["DenseNet", "get_densenet", "densenet121", "densenet161", "densenet169", "densenet201"]

# initial features, growth rate, layers per dense block
densenet_spec = {121: (64, 32, [6, 12, 24, 16]),
                 161: (96, 48, [6, 12, 36, 24]),
                 169: (64, 32, [6, 12, 32, 32]),
                 201: (64, 32, [6, 12, 48, 32])}


DenseNet = _z.DenseNet


def get_densenet(num_layers, pretrained=False, ctx=cpu(), root=DEFAULT_ROOT, **kwargs):
    """DenseNet with ``num_layers`` (121, 161, 169 or 201)."""
    num_init_features, growth_rate, block_config = densenet_spec[num_layers]
    net = DenseNet(num_init_features, growth_rate, block_config, **kwargs)
    return load_pretrained(net, "densenet%d" % num_layers, pretrained, ctx, root)


def _variant(num_layers):
    def make(**kwargs):
        return get_densenet(num_layers, **kwargs)
    make.__name__ = "densenet%d" % num_layers
    make.__doc__ = "DenseNet-%d (see get_densenet for the arguments)." % num_layers
    return make


for _n in densenet_spec:
    globals()["densenet%d" % _n] = _variant(_n)
