"""AlexNet ("One weird trick for parallelizing convolutional neural networks"), with MXNet's
block structure and parameter names."""
from ....context import cpu
from ...block import HybridBlock
from ... import nn
from ..model_store import DEFAULT_ROOT, load_pretrained

__all__ = ["AlexNet", "alexnet"]


class AlexNet(HybridBlock):
    """Five convolutions and three dense layers; ``features`` then ``output``."""

    def __init__(self, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            with self.features.name_scope():
                for channels, kernel, stride, pad, pool in [(64, 11, 4, 2, True), (192, 5, 1, 2, True),
                                                            (384, 3, 1, 1, False), (256, 3, 1, 1, False),
                                                            (256, 3, 1, 1, True)]:
                    self.features.add(nn.Conv2D(channels, kernel_size=kernel, strides=stride, padding=pad,
                                                activation="relu"))
                    if pool:
                        self.features.add(nn.MaxPool2D(pool_size=3, strides=2))
                self.features.add(nn.Flatten())
                for _ in range(2):
                    self.features.add(nn.Dense(4096, activation="relu"), nn.Dropout(0.5))
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def alexnet(pretrained=False, ctx=cpu(), root=DEFAULT_ROOT, **kwargs):
    """AlexNet; ``pretrained`` loads MXNet's ImageNet parameters from ``root``."""
    return load_pretrained(AlexNet(**kwargs), "alexnet", pretrained, ctx, root)
