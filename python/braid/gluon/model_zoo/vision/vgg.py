"""VGG ("Very Deep Convolutional Networks for Large-Scale Image Recognition"), 11 to 19 layers,
with or without batch normalization, with MXNet's block structure and parameter names."""
from ....context import cpu
from ....init import Xavier
from ...block import HybridBlock
from ... import nn
from ..model_store import DEFAULT_ROOT, load_pretrained

__all__ = ["VGG", "get_vgg", "vgg11", "vgg13", "vgg16", "vgg19", "vgg11_bn", "vgg13_bn", "vgg16_bn", "vgg19_bn"]

# layers: convolutions per stage; filters: their channels.
vgg_spec = {11: ([1, 1, 2, 2, 2], [64, 128, 256, 512, 512]),
            13: ([2, 2, 2, 2, 2], [64, 128, 256, 512, 512]),
            16: ([2, 2, 3, 3, 3], [64, 128, 256, 512, 512]),
            19: ([2, 2, 4, 4, 4], [64, 128, 256, 512, 512])}


class VGG(HybridBlock):
    """Stages of 3x3 convolutions (each followed by batch norm with ``batch_norm``) and max
    pooling, then two 4096-unit dense layers with dropout, then ``output``."""

    def __init__(self, layers, filters, classes=1000, batch_norm=False, **kwargs):
        super().__init__(**kwargs)
        assert len(layers) == len(filters)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            for num, channels in zip(layers, filters):
                for _ in range(num):
                    self.features.add(nn.Conv2D(channels, kernel_size=3, padding=1, bias_initializer="zeros",
                                                weight_initializer=Xavier(rnd_type="gaussian", factor_type="out",
                                                                          magnitude=2)))
                    if batch_norm:
                        self.features.add(nn.BatchNorm())
                    self.features.add(nn.Activation("relu"))
                self.features.add(nn.MaxPool2D(strides=2))
            for _ in range(2):
                self.features.add(nn.Dense(4096, activation="relu", weight_initializer="normal",
                                           bias_initializer="zeros"), nn.Dropout(rate=0.5))
            self.output = nn.Dense(classes, weight_initializer="normal", bias_initializer="zeros")

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


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
