"""Inception v3 ("Rethinking the Inception Architecture for Computer Vision"), without the
auxiliary classifier, with MXNet's block structure and parameter names. Takes 299 x 299 images."""
from ....context import cpu
from ...block import HybridBlock
from ... import nn
from ...contrib.nn import HybridConcurrent
from ..model_store import DEFAULT_ROOT, load_pretrained

__all__ = ["Inception3", "inception_v3"]


def _basic_conv(**kwargs):
    out = nn.HybridSequential(prefix="")
    out.add(nn.Conv2D(use_bias=False, **kwargs), nn.BatchNorm(epsilon=0.001), nn.Activation("relu"))
    return out


def _branch(pool, *convs):
    """An optional pooling ('avg': 3x3 stride 1, 'max': 3x3 stride 2), then convolutions given as
    (channels, kernel_size, strides, padding), None for a default."""
    out = nn.HybridSequential(prefix="")
    if pool == "avg":
        out.add(nn.AvgPool2D(pool_size=3, strides=1, padding=1))
    elif pool == "max":
        out.add(nn.MaxPool2D(pool_size=3, strides=2))
    for setting in convs:
        kwargs = {k: v for k, v in zip(["channels", "kernel_size", "strides", "padding"], setting) if v is not None}
        out.add(_basic_conv(**kwargs))
    return out


def _concurrent(prefix, *branches):
    out = HybridConcurrent(axis=1, prefix=prefix)
    with out.name_scope():
        for make in branches:
            out.add(make())
    return out


def _a(pool_features, prefix):
    return _concurrent(prefix, lambda: _branch(None, (64, 1, None, None)),
                       lambda: _branch(None, (48, 1, None, None), (64, 5, None, 2)),
                       lambda: _branch(None, (64, 1, None, None), (96, 3, None, 1), (96, 3, None, 1)),
                       lambda: _branch("avg", (pool_features, 1, None, None)))


def _b(prefix):
    return _concurrent(prefix, lambda: _branch(None, (384, 3, 2, None)),
                       lambda: _branch(None, (64, 1, None, None), (96, 3, None, 1), (96, 3, 2, None)),
                       lambda: _branch("max"))


def _c(c7, prefix):
    return _concurrent(prefix, lambda: _branch(None, (192, 1, None, None)),
                       lambda: _branch(None, (c7, 1, None, None), (c7, (1, 7), None, (0, 3)),
                                       (192, (7, 1), None, (3, 0))),
                       lambda: _branch(None, (c7, 1, None, None), (c7, (7, 1), None, (3, 0)),
                                       (c7, (1, 7), None, (0, 3)), (c7, (7, 1), None, (3, 0)),
                                       (192, (1, 7), None, (0, 3))),
                       lambda: _branch("avg", (192, 1, None, None)))


def _d(prefix):
    return _concurrent(prefix, lambda: _branch(None, (192, 1, None, None), (320, 3, 2, None)),
                       lambda: _branch(None, (192, 1, None, None), (192, (1, 7), None, (0, 3)),
                                       (192, (7, 1), None, (3, 0)), (192, 3, 2, None)),
                       lambda: _branch("max"))


def _split_3x3(first):
    """``first`` (a branch), then 1x3 and 3x1 convolutions side by side."""
    out = nn.HybridSequential(prefix="")
    out.add(first)
    split = HybridConcurrent(axis=1, prefix="")
    split.add(_branch(None, (384, (1, 3), None, (0, 1))), _branch(None, (384, (3, 1), None, (1, 0))))
    out.add(split)
    return out


def _e(prefix):
    return _concurrent(prefix, lambda: _branch(None, (320, 1, None, None)),
                       lambda: _split_3x3(_branch(None, (384, 1, None, None))),
                       lambda: _split_3x3(_branch(None, (448, 1, None, None), (384, 3, None, 1))),
                       lambda: _branch("avg", (192, 1, None, None)))


class Inception3(HybridBlock):
    """Inception v3: a stem, blocks A1-A3, B, C1-C4, D, E1-E2, average pooling, ``output``."""

    def __init__(self, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            self.features.add(_basic_conv(channels=32, kernel_size=3, strides=2), _basic_conv(channels=32, kernel_size=3),
                              _basic_conv(channels=64, kernel_size=3, padding=1), nn.MaxPool2D(pool_size=3, strides=2),
                              _basic_conv(channels=80, kernel_size=1), _basic_conv(channels=192, kernel_size=3),
                              nn.MaxPool2D(pool_size=3, strides=2),
                              _a(32, "A1_"), _a(64, "A2_"), _a(64, "A3_"), _b("B_"),
                              _c(128, "C1_"), _c(160, "C2_"), _c(160, "C3_"), _c(192, "C4_"), _d("D_"),
                              _e("E1_"), _e("E2_"), nn.AvgPool2D(pool_size=8), nn.Dropout(0.5))
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def inception_v3(pretrained=False, ctx=cpu(), root=DEFAULT_ROOT, **kwargs):
    """Inception v3; ``pretrained`` loads MXNet's ImageNet parameters from ``root``."""
    return load_pretrained(Inception3(**kwargs), "inceptionv3", pretrained, ctx, root)
