"""Functions on one image, an NDArray of shape (height, width, channels), as MXNet's mx.image has
them. Interpolation numbers are OpenCV's: 0 nearest, 1 bilinear, 2 bicubic, 3 area, 4 Lanczos;
9 picks bicubic to enlarge, area to shrink, bilinear otherwise; 10 picks one of 0..4 at random."""
import random
from numbers import Number

import numpy as np

from .. import ndarray as nd
from ..base import MXNetError
from .._core import image as _codec

__all__ = ["imread", "imdecode", "imresize", "scale_down", "copyMakeBorder", "resize_short", "fixed_crop",
           "random_crop", "center_crop", "color_normalize", "random_size_crop", "imrotate", "random_rotate"]


def _into(result, out):
    if out is None:
        return result
    result.copyto(out)
    return out


def imdecode(buf, flag=1, to_rgb=1, out=None):
    """Decodes the bytes of a JPEG or PNG file (bytes, bytearray, a uint8 NumPy array or NDArray)
    into a uint8 NDArray (height, width, 3), or (height, width, 1) with flag=0; to_rgb=0 gives
    OpenCV's BGR order."""
    if isinstance(buf, nd.NDArray):
        buf = buf.asnumpy().astype(np.uint8)
    elif not isinstance(buf, (bytes, bytearray, np.ndarray)):
        raise ValueError("buf must be of type bytes, bytearray or numpy.ndarray, if you would like to input type "
                         "str, please convert to bytes")
    pixels = _codec.decode(np.frombuffer(buf, dtype=np.uint8) if not isinstance(buf, np.ndarray) else
                           np.ascontiguousarray(buf, dtype=np.uint8), int(flag), bool(to_rgb))
    return _into(nd.array(pixels, dtype=np.uint8), out)


def imread(filename, flag=1, to_rgb=1, out=None):
    """Reads and decodes the image file `filename` (see imdecode)."""
    try:
        with open(filename, "rb") as f:
            data = f.read()
    except OSError as e:
        raise MXNetError("imread: cannot read the image file %s: %s" % (filename, e.strerror))
    return imdecode(data, flag, to_rgb, out)


def imresize(src, w, h, interp=1, out=None):
    """`src` (height, width, channels) resized to h × w with interpolation `interp` (0..4)."""
    return _into(nd.image.resize(src, size=(int(w), int(h)), interp=int(interp)), out)


def scale_down(src_size, size):
    """The crop size (w, h) scaled down, keeping its aspect ratio, to fit in src_size (w, h)."""
    w, h = size
    sw, sh = src_size
    if sh < h:
        w, h = float(w * sh) / h, sh
    if sw < w:
        w, h = sw, float(h * sw) / w
    return int(w), int(h)


# OpenCV's border types, in its numbering: constant, replicate, reflect, wrap, reflect_101.
_BORDER_MODES = {1: "edge", 2: "symmetric", 3: "wrap", 4: "reflect"}


def copyMakeBorder(src, top, bot, left, right, type=0, value=0.0, values=(), out=None):  # noqa: A002 (MXNet's name)
    """`src` padded by top/bot rows and left/right columns: type 0 a constant (`values` per
    channel, else `value`), 1 the edge repeated, 2 mirrored (fedcba|abcdef), 3 wrapped around,
    4 mirrored without repeating the edge (gfedcb|abcdefg). OpenCV's BORDER_ISOLATED flag (16)
    changes nothing for a whole image."""
    type &= ~16  # noqa: A001
    if type not in (0, 1, 2, 3, 4):
        raise MXNetError("copyMakeBorder: unknown border type %d; use 0 (constant), 1 (replicate), 2 (reflect), "
                         "3 (wrap) or 4 (reflect_101)" % type)
    a = src.asnumpy()
    pad = [(top, bot), (left, right)] + [(0, 0)] * (a.ndim - 2)
    if type == 0:
        padded = np.empty((a.shape[0] + top + bot, a.shape[1] + left + right) + a.shape[2:], dtype=a.dtype)
        channels = a.shape[2] if a.ndim == 3 else 1
        fill = np.full(channels, float(value))
        if len(values):  # per channel; channels past those given get 0, as OpenCV's Scalar
            fill[:] = 0
            fill[:min(len(values), channels)] = list(values)[:channels]
        padded[...] = fill.astype(a.dtype) if a.ndim == 3 else fill[0]
        padded[top:top + a.shape[0], left:left + a.shape[1]] = a
    else:
        padded = np.pad(a, pad, mode=_BORDER_MODES[type])
    return _into(nd.array(padded, dtype=a.dtype), out)


def _get_interp_method(interp, sizes=()):
    """The interpolation (0..4) for `interp`, resolving 9 (auto, by sizes = (old_h, old_w, new_h,
    new_w)) and 10 (random)."""
    if interp == 9:
        if sizes:
            assert len(sizes) == 4
            oh, ow, nh, nw = sizes
            if nh > oh and nw > ow:
                return 2
            if nh < oh and nw < ow:
                return 3
            return 1
        return 2
    if interp == 10:
        return random.randint(0, 4)
    if interp not in (0, 1, 2, 3, 4):
        raise ValueError("Unknown interp method %d" % interp)
    return interp


def resize_short(src, size, interp=2):
    """`src` resized so that its shorter side is `size`, the longer one in proportion."""
    h, w, _ = src.shape
    if h > w:
        new_h, new_w = size * h // w, size
    else:
        new_h, new_w = size, size * w // h
    return imresize(src, new_w, new_h, interp=_get_interp_method(interp, (h, w, new_h, new_w)))


def fixed_crop(src, x0, y0, w, h, size=None, interp=2):
    """The w × h region of `src` at (x0, y0), resized to size (w, h) if given."""
    out = src[y0:y0 + h, x0:x0 + w]
    if size is not None and (w, h) != tuple(size):
        out = imresize(out, *size, interp=_get_interp_method(interp, (h, w, size[1], size[0])))
    return out


def random_crop(src, size, interp=2):
    """A crop of `size` (w, h) at a random place (scaled down to fit, then resized up to size);
    returns the crop and (x0, y0, w, h)."""
    h, w, _ = src.shape
    new_w, new_h = scale_down((w, h), size)
    x0 = random.randint(0, w - new_w)
    y0 = random.randint(0, h - new_h)
    return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)


def center_crop(src, size, interp=2):
    """The centred crop of `size` (w, h), as random_crop; returns the crop and (x0, y0, w, h)."""
    h, w, _ = src.shape
    new_w, new_h = scale_down((w, h), size)
    x0 = int((w - new_w) / 2)
    y0 = int((h - new_h) / 2)
    return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)


def color_normalize(src, mean, std=None):
    """(src - mean) / std, in place where src allows it."""
    if mean is not None:
        src -= mean
    if std is not None:
        src /= std
    return src


def random_size_crop(src, size, area, ratio, interp=2, **kwargs):
    """A crop covering a random fraction `area` (a number: (area, 1)) of `src` with a random
    aspect ratio in `ratio` (log-uniform), resized to size (w, h); ten tries, then the centre
    crop. Returns the crop and (x0, y0, w, h)."""
    h, w, _ = src.shape
    if "min_area" in kwargs:
        area = kwargs.pop("min_area")
    assert not kwargs, "unexpected keyword arguments for `random_size_crop`."
    if isinstance(area, Number):
        area = (area, 1.0)
    for _ in range(10):
        target_area = random.uniform(area[0], area[1]) * h * w
        new_ratio = np.exp(random.uniform(np.log(ratio[0]), np.log(ratio[1])))
        new_w = int(round(np.sqrt(target_area * new_ratio)))
        new_h = int(round(np.sqrt(target_area / new_ratio)))
        if new_w <= w and new_h <= h:
            x0 = random.randint(0, w - new_w)
            y0 = random.randint(0, h - new_h)
            return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)
    return center_crop(src, size, interp)


def imrotate(src, rotation_degrees, zoom_in=False, zoom_out=False):
    """float32 image(s) (C, H, W) or (N, C, H, W) rotated by `rotation_degrees` (one number, or
    one per image) about their centres, bilinearly; zoom_in scales so that no empty corner shows,
    zoom_out so that the whole rotated image fits."""
    if zoom_in and zoom_out:
        raise ValueError("`zoom_in` and `zoom_out` cannot be both True")
    if src.dtype is not np.float32:
        raise TypeError("Only `float32` images are supported by this function")
    single = src.ndim == 3
    if single:
        if not isinstance(rotation_degrees, Number):
            raise TypeError("When a single image is passed the rotation angle is required to be a scalar.")
        src = src.expand_dims(axis=0)
    elif src.ndim != 4:
        raise ValueError("Only 3D and 4D are supported by this function")
    n, _, h, w = src.shape
    degrees = np.full(n, rotation_degrees, dtype=np.float64) if isinstance(rotation_degrees, Number) else \
        np.asarray(rotation_degrees.asnumpy() if isinstance(rotation_degrees, nd.NDArray) else rotation_degrees,
                   dtype=np.float64)
    if len(degrees) != n:
        raise ValueError("The number of images must be equal to the number of rotation angles")
    angle = (np.pi * degrees / 180).reshape(n, 1, 1)
    hscale, wscale = (h - 1) / 2.0, (w - 1) / 2.0
    ys = (np.arange(h, dtype=np.float32).reshape(h, 1) - hscale)[None]
    xs = (np.arange(w, dtype=np.float32).reshape(1, w) - wscale)[None]
    x_rot = (xs * np.cos(angle) - ys * np.sin(angle)) / wscale
    y_rot = (xs * np.sin(angle) + ys * np.cos(angle)) / hscale
    scale = np.ones((n, 1, 1))
    if zoom_in or zoom_out:
        rho, corner = np.sqrt(h * h + w * w), np.arctan(h / w)
        a = np.abs(angle)
        max_x = np.maximum(np.abs(rho * np.cos(corner + a)), np.abs(rho * np.cos(corner - a)))
        max_y = np.maximum(np.abs(rho * np.sin(corner + a)), np.abs(rho * np.sin(corner - a)))
        scale = np.maximum(max_x / w, max_y / h) if zoom_out else np.minimum(w / max_x, h / max_y)
    grid = np.stack([x_rot * scale, y_rot * scale], axis=1).astype(np.float32)
    rotated = nd.BilinearSampler(src, nd.array(grid, ctx=src.context))
    return rotated[0] if single else rotated


def random_rotate(src, angle_limits, zoom_in=False, zoom_out=False):
    """imrotate by an angle drawn uniformly from angle_limits (one per image of a batch)."""
    if src.ndim == 3:
        degrees = np.random.uniform(*angle_limits)
    else:
        degrees = nd.array(np.random.uniform(*angle_limits, size=src.shape[0]))
    return imrotate(src, degrees, zoom_in=zoom_in, zoom_out=zoom_out)
