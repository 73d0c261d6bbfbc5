"""gluon.data.vision.transforms: image transforms as MXNet's. ToTensor, Normalize, Cast,
RandomFlipLeftRight, RandomCrop and Compose run in the C++ core (a DataLoader applies them without
the GIL; Compose also takes Python callables and blocks); the others are Gluon blocks over
mx.nd.image's operators and mx.image's functions."""
import random

import numpy as np

from ...._core.gluon.data.vision import transforms as _native
from .... import image
from ...block import Block, HybridBlock

__all__ = ["Compose", "Cast", "ToTensor", "Normalize", "RandomCrop", "Rotate", "RandomRotation",
           "RandomResizedCrop", "CropResize", "CenterCrop", "Resize", "RandomFlipLeftRight", "RandomFlipTopBottom",
           "RandomBrightness", "RandomContrast", "RandomSaturation", "RandomHue", "RandomColorJitter",
           "RandomLighting", "RandomApply", "HybridRandomApply"]


class _Native(object):
    """What the C++ transforms share with Gluon blocks: hybridize() (they are compiled already)."""

    def hybridize(self, active=True, **kwargs):
        """Nothing to do: the transform runs in C++ either way."""


class Cast(_Native, _native.Cast):
    """The input cast to dtype."""


class ToTensor(_Native, _native.ToTensor):
    """(H, W, C) uint8 in [0, 255] to (C, H, W) float32 in [0, 1]; batches (N, H, W, C) alike."""


class Normalize(_Native, _native.Normalize):
    """(x - mean) / std per channel of a (C, H, W) tensor."""


class RandomFlipLeftRight(_Native, _native.RandomFlipLeftRight):
    """Mirrors the image left to right with probability 0.5."""


class RandomCrop(_Native, _native.RandomCrop):
    """A crop of `size` at a random place, after optional padding."""


class Compose(_Native, _native.Compose):
    """The transforms one after the other. Runs in C++; Python members (blocks or any callable)
    are called with the GIL held."""

    def __init__(self, transforms):
        self._transforms = list(transforms)
        super().__init__(self._transforms)

    def hybridize(self, active=True, **kwargs):
        """Hybridizes the member blocks that can be."""
        for t in self._transforms:
            if hasattr(t, "hybridize"):
                t.hybridize(active, **kwargs)

    def __getitem__(self, i):
        return self._transforms[i]

    def __len__(self):
        return len(self._transforms)


class Rotate(Block):
    """float32 image(s) (C, H, W) or (N, C, H, W) rotated by rotation_degrees (image.imrotate)."""

    def __init__(self, rotation_degrees, zoom_in=False, zoom_out=False):
        super().__init__()
        self._args = (rotation_degrees, zoom_in, zoom_out)

    def forward(self, x):
        return image.imrotate(x, *self._args)


class RandomRotation(Block):
    """With probability rotate_with_proba, rotated by an angle drawn from angle_limits."""

    def __init__(self, angle_limits, zoom_in=False, zoom_out=False, rotate_with_proba=1.0):
        super().__init__()
        lower, upper = angle_limits
        if lower >= upper:
            raise ValueError("`angle_limits` must be an ordered tuple")
        if not 0 <= rotate_with_proba <= 1:
            raise ValueError("Probability of rotating the image should be between 0 and 1")
        self._args = ((lower, upper), zoom_in, zoom_out)
        self._rotate_with_proba = rotate_with_proba

    def forward(self, x):
        if np.random.random() > self._rotate_with_proba:
            return x
        return image.random_rotate(x, *self._args)


class RandomResizedCrop(Block):
    """A crop of random area (a fraction in `scale`) and aspect ratio (in `ratio`), resized to
    size (w, h) or size × size."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), interpolation=1):
        super().__init__()
        size = (size, size) if isinstance(size, int) else size
        self._args = (size, scale, ratio, interpolation)

    def forward(self, x):
        return image.random_size_crop(x, *self._args)[0]


class CropResize(HybridBlock):
    """The width × height region at (x, y), resized to size if given."""

    def __init__(self, x, y, width, height, size=None, interpolation=None):
        super().__init__()
        self._x, self._y, self._width, self._height = x, y, width, height
        self._size = size
        self._interpolation = interpolation

    def hybrid_forward(self, F, x):
        out = F.image.crop(x, self._x, self._y, self._width, self._height)
        if self._size:
            out = F.image.resize(out, self._size, False, self._interpolation)
        return out


class CenterCrop(Block):
    """The centred crop of size (w, h) or size × size, upsampled if the image is smaller."""

    def __init__(self, size, interpolation=1):
        super().__init__()
        size = (size, size) if isinstance(size, int) else size
        self._args = (size, interpolation)

    def forward(self, x):
        return image.center_crop(x, *self._args)[0]


class Resize(HybridBlock):
    """Resized to size (w, h) or size × size; keep_ratio: the shorter side to size."""

    def __init__(self, size, keep_ratio=False, interpolation=1):
        super().__init__()
        self._size, self._keep, self._interpolation = size, keep_ratio, interpolation

    def hybrid_forward(self, F, x):
        return F.image.resize(x, self._size, self._keep, self._interpolation)


class RandomFlipTopBottom(HybridBlock):
    """Mirrors the image top to bottom with probability 0.5."""

    def hybrid_forward(self, F, x):
        return F.image.random_flip_top_bottom(x)


class _RandomFactor(HybridBlock):
    """A colour operator with a factor drawn from [max(0, 1 - amount), 1 + amount]."""
    _op = None

    def __init__(self, amount):
        super().__init__()
        self._args = (max(0, 1 - amount), 1 + amount)

    def hybrid_forward(self, F, x):
        return getattr(F.image, self._op)(x, *self._args)


class RandomBrightness(_RandomFactor):
    """Brightness scaled by a random factor in [max(0, 1 - brightness), 1 + brightness]."""
    _op = "random_brightness"


class RandomContrast(_RandomFactor):
    """Contrast scaled by a random factor in [max(0, 1 - contrast), 1 + contrast]."""
    _op = "random_contrast"


class RandomSaturation(_RandomFactor):
    """Saturation scaled by a random factor in [max(0, 1 - saturation), 1 + saturation]."""
    _op = "random_saturation"


class RandomHue(_RandomFactor):
    """Hue shifted by a random factor in [max(0, 1 - hue), 1 + hue]."""
    _op = "random_hue"


class RandomColorJitter(HybridBlock):
    """Brightness, contrast, saturation and hue jittered in a random order."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        super().__init__()
        self._args = (brightness, contrast, saturation, hue)

    def hybrid_forward(self, F, x):
        return F.image.random_color_jitter(x, *self._args)


class RandomLighting(HybridBlock):
    """AlexNet-style PCA lighting noise of intensity alpha."""

    def __init__(self, alpha):
        super().__init__()
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        return F.image.random_lighting(x, self._alpha)


class RandomApply(Block):
    """`transforms` applied with probability p."""

    def __init__(self, transforms, p=0.5):
        super().__init__()
        self.transforms = transforms
        self.p = p

    def forward(self, x):
        if self.p < random.random():
            return x
        return self.transforms(x)


class HybridRandomApply(HybridBlock):
    """`transforms` (a HybridBlock) applied with probability p, as one graph (F.random.uniform
    decides)."""

    def __init__(self, transforms, p=0.5):
        super().__init__()
        self.transforms = transforms
        self.p = p

    def hybrid_forward(self, F, x):
        cond = self.p < F.random.uniform(low=0, high=1, shape=1)
        return F.contrib.cond(cond, lambda: x, lambda: self.transforms(x))
