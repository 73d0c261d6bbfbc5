"""VGG ("Very Deep Convolutional Networks for Large-Scale Image Recognition"), 11 to 19 layers,
with or without batch normalization, with MXNet's block structure and parameter names (Braid's C++
model zoo)."""
from ....context import cpu
from ...._core.gluon import model_zoo as _z
from ..model_store import DEFAULT_ROOT, load_pretrained

__all__ = ["VGG", "get_vgg", "vgg11", "vgg13", "vgg16", "vgg19", "vgg11_bn", "vgg13_bn", "vgg16_bn", "vgg19_bn"]

# layers: convolutions per stage; filters: their channels.
vgg_spec = {11: ([1, 1, 2, 2, 2], [64, 128, 256, 512, 512]),
            13: ([2, 2, 2, 2, 2], [64, 128, 256, 512, 512]),
            16: ([2, 2, 3, 3, 3], [64, 128, 256, 512, 512]),
            19: ([2, 2, 4, 4, 4], [64, 128, 256, 512, 512])}


VGG = _z.VGG


def get_vgg(num_layers, pretrained=False, ctx=cpu(), root=DEFAULT_ROOT, **kwargs):
    """VGG with ``num_layers`` (11, 13, 16 or 19); ``batch_norm=True`` for the _bn variants."""
    layers, filters = vgg_spec[num_layers]
    name = "vgg%d%s" % (num_layers, "_bn" if kwargs.get("batch_norm") else "")
    return load_pretrained(VGG(layers, filters, **kwargs), name, pretrained, ctx, root)


def _variant(num_layers, batch_norm):
    def make(**kwargs):
        if batch_norm:
            kwargs["batch_norm"] = True
        return get_vgg(num_layers, **kwargs)
    make.__name__ = "vgg%d%s" % (num_layers, "_bn" if batch_norm else "")
    make.__doc__ = "VGG-%d%s (see get_vgg for the arguments)." % (num_layers, " with batch norm" if batch_norm else "")
    return make


for _n in vgg_spec:
    for _bn in (False, True):
        globals()[_variant(_n, _bn).__name__] = _variant(_n, _bn)
