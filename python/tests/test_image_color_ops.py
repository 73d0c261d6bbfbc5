"""The image augmenters mx.nd.image.flip_top_bottom, random_flip_top_bottom, random_brightness,
random_contrast, random_saturation, random_hue, random_color_jitter, adjust_lighting and
random_lighting against NumPy references written from MXNet 1.9.1's arithmetic
(src/operator/image/image_random-inl.h): float32 math (float64 for float64 images), uint8
results clamped to 0..255 and truncated, one draw of the random factors per call."""
import numpy as np
import pytest

import braid as mx

F32 = np.float32
GRAY = (0.299, 0.587, 0.114)  # BT.601 luma weights
EIGVAL = (55.46, 4.794, 1.148)  # AlexNet's PCA of ImageNet's RGB pixels
EIGVEC = ((-0.5675, 0.7192, 0.4009), (-0.5808, -0.0045, -0.8140), (-0.5836, -0.6948, 0.4203))


# ---- NumPy references ----

def acc_type(dtype):
    """The type the operators compute in: float32, float64 for float64 images."""
    return np.float64 if np.dtype(dtype) == np.float64 else np.float32


def store(v, dtype):
    """MXNet's saturate_cast: floats as they are; integers clamped to their range, truncated."""
    if np.dtype(dtype).kind == "f":
        return v.astype(dtype)
    info = np.iinfo(dtype)
    return np.clip(v, info.min, info.max).astype(dtype)


def factor(f, acc):
    """An attribute as the operator sees it: rounded to float32, then in the compute type."""
    return acc(F32(f))


def brightness_ref(img, f):
    acc = acc_type(img.dtype)
    return store(img.astype(acc) * factor(f, acc), img.dtype)


def contrast_ref(img, f):
    """x * f + (1 - f) * mean gray of each image, the mean summed in order in the compute type."""
    acc = acc_type(img.dtype)
    a = factor(f, acc)
    x = img.astype(acc)
    images = x.reshape((-1,) + x.shape[-3:])
    out = np.empty_like(images)
    for i, im in enumerate(images):
        terms = (im * np.array(GRAY, dtype=F32).astype(acc)).reshape(-1) if im.shape[-1] == 3 else im.reshape(-1)
        total = np.add.accumulate(terms, dtype=acc)[-1]  # sequential, as the kernel
        mean = total / acc(im.shape[0] * im.shape[1])
        out[i] = im * a + (acc(1) - a) * mean
    return store(out.reshape(x.shape), img.dtype)


def saturation_ref(img, f):
    """x * f + (1 - f) * gray per pixel, MXNet's gray being 0.114 * B (its weighted sum keeps only
    the last term); a 1-channel image is unchanged."""
    if img.shape[-1] == 1:
        return img.copy()
    acc = acc_type(img.dtype)
    a = factor(f, acc)
    x = img.astype(acc)
    gray = x[..., 2:3] * acc(F32(GRAY[2])) * (acc(1) - a)
    return store(gray + x * a, img.dtype)


def rgb_to_hls(r, g, b, acc):
    r, g, b = r / acc(255), g / acc(255), b / acc(255)
    vmax = np.fmax(np.fmax(r, g), b)
    vmin = np.fmin(np.fmin(r, g), b)
    diff = vmax - vmin
    l = (vmax + vmin) * acc(0.5)
    colour = diff > np.finfo(acc).eps
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(l < acc(0.5), diff / (vmax + vmin), diff / (acc(2) - vmax - vmin))
        deg = acc(60) / diff
        h = np.where(vmax == r, (g - b) * deg,
                     np.where(vmax == g, (b - r) * deg + acc(120), (r - g) * deg + acc(240)))
    h = np.where(h < 0, h + acc(360), h)
    return np.where(colour, h, acc(0)), l, np.where(colour, s, acc(0))


def hls_to_rgb(h, l, s, acc):
    hi = np.where(l <= acc(0.5), l * (acc(1) + s), l + s - l * s)
    lo = acc(2) * l - hi
    h = h * (acc(1) / acc(60))
    while (h < 0).any():
        h = np.where(h < 0, h + acc(6), h)
    while (h >= 6).any():
        h = np.where(h >= 6, h - acc(6), h)
    sector = np.minimum(h.astype(np.int64), 5)
    h = h - sector.astype(acc)
    down, up = lo + (hi - lo) * (acc(1) - h), lo + (hi - lo) * h
    r = np.choose(sector, [hi, down, lo, lo, up, hi])
    g = np.choose(sector, [up, hi, hi, down, lo, lo])
    b = np.choose(sector, [lo, lo, up, hi, hi, down])
    grey = s == 0
    r, g, b = np.where(grey, l, r), np.where(grey, l, g), np.where(grey, l, b)
    return r * acc(255), g * acc(255), b * acc(255)


def hue_ref(img, f):
    """Turns the hue by f * 360 degrees in the HLS model (values on the 0..255 scale)."""
    if img.shape[-1] == 1:
        return img.copy()
    acc = acc_type(img.dtype)
    x = img.astype(acc)
    h, l, s = rgb_to_hls(x[..., 0], x[..., 1], x[..., 2], acc)
    r, g, b = hls_to_rgb(h + factor(f, acc) * acc(360), l, s, acc)
    return store(np.stack([r, g, b], axis=-1), img.dtype)


def pca_offset(alpha):
    """The RGB offset sum_j alpha[j] * eigval[j] * eigvec[:, j], in float32 as MXNet."""
    off = []
    for c in range(3):
        v = F32(0)
        for j in range(3):
            v = F32(v + F32(EIGVAL[j] * EIGVEC[c][j]) * F32(alpha[j]))
        off.append(v)
    return np.array(off, dtype=F32)


def lighting_ref(img, alpha):
    if img.shape[-1] == 1:
        return img.copy()
    acc = acc_type(img.dtype)
    return store(img.astype(acc) + pca_offset(alpha).astype(acc), img.dtype)


def image(shape, dtype, seed=0, low=0, high=255):
    v = np.random.RandomState(seed).uniform(low, high, shape)
    return v.astype(dtype)


def run(op, x, **attrs):
    return getattr(mx.nd.image, op)(mx.nd.array(x, dtype=x.dtype), **attrs).asnumpy()


SHAPES = [(5, 7, 3), (2, 4, 6, 3)]  # an image and a batch
DTYPES = [np.uint8, np.float32]


# ---- flips ----

@pytest.mark.parametrize("shape", [(5, 7, 3), (4, 6, 1), (2, 5, 3, 3)])
@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.float64])
def test_flip_top_bottom(shape, dtype):
    x = image(shape, dtype)
    np.testing.assert_array_equal(run("flip_top_bottom", x), x[..., ::-1, :, :])
    np.testing.assert_array_equal(mx.nd._internal._npx__image_flip_top_bottom(mx.nd.array(x, dtype=dtype)).asnumpy(),
                                  x[..., ::-1, :, :])


def test_flip_top_bottom_gradient_is_flipped():
    x = mx.nd.array(image((3, 4, 2), np.float32))
    x.attach_grad()
    dy = image((3, 4, 2), np.float32, seed=1)
    with mx.autograd.record():
        y = mx.nd.image.flip_top_bottom(x)
    y.backward(mx.nd.array(dy))
    np.testing.assert_array_equal(x.grad.asnumpy(), dy[::-1])


@pytest.mark.parametrize("shape", [(5, 7, 3), (2, 5, 3, 3)])
def test_random_flip_top_bottom(shape):
    x = image(shape, np.uint8)
    seen = set()
    for _ in range(40):
        y = run("random_flip_top_bottom", x)
        if np.array_equal(y, x):
            seen.add("same")
        else:
            np.testing.assert_array_equal(y, x[..., ::-1, :, :])  # a batch flips all or none
            seen.add("flipped")
    assert seen == {"same", "flipped"}
    mx.random.seed(3)
    a = [run("random_flip_top_bottom", x) for _ in range(8)]
    mx.random.seed(3)
    b = [run("random_flip_top_bottom", x) for _ in range(8)]
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)


# ---- brightness, contrast, saturation, hue with a fixed factor ----

REFS = {"random_brightness": brightness_ref, "random_contrast": contrast_ref,
        "random_saturation": saturation_ref, "random_hue": hue_ref}


@pytest.mark.parametrize("op", sorted(REFS))
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("f", [0.0, 0.35, 1.0, 1.7])
def test_fixed_factor_matches_numpy(op, shape, dtype, f):
    x = image(shape, dtype, seed=int(f * 10))
    np.testing.assert_array_equal(run(op, x, min_factor=f, max_factor=f), REFS[op](x, f))


@pytest.mark.parametrize("op", sorted(REFS))
def test_float64_and_gray_images(op):
    x = image((4, 5, 3), np.float64, seed=2)
    np.testing.assert_allclose(run(op, x, min_factor=0.6, max_factor=0.6), REFS[op](x, 0.6), rtol=1e-12, atol=1e-9)
    g = image((2, 4, 5, 1), np.uint8, seed=3)  # gray: brightness, contrast scale; saturation, hue copy
    np.testing.assert_array_equal(run(op, g, min_factor=0.6, max_factor=0.6), REFS[op](g, 0.6))


def test_uint8_saturates_at_255():
    x = np.array([[[200, 100, 30], [255, 0, 128]]], dtype=np.uint8)
    y = run("random_brightness", x, min_factor=2.0, max_factor=2.0)
    np.testing.assert_array_equal(y, [[[255, 200, 60], [255, 0, 255]]])
    y = run("random_contrast", x, min_factor=3.0, max_factor=3.0)
    assert y.max() == 255 and y.min() == 0
    np.testing.assert_array_equal(y, contrast_ref(x, 3.0))
    xf = x.astype(np.float32)  # floats are not clamped
    assert run("random_brightness", xf, min_factor=2.0, max_factor=2.0).max() == 510


def test_positional_range_and_npx_alias():
    x = image((3, 4, 3), np.float32)
    np.testing.assert_array_equal(mx.nd.image.random_brightness(mx.nd.array(x), 0.5, 0.5).asnumpy(),
                                  brightness_ref(x, 0.5))
    np.testing.assert_array_equal(
        mx.nd._internal._npx__image_random_contrast(mx.nd.array(x), min_factor=0.5, max_factor=0.5).asnumpy(),
        contrast_ref(x, 0.5))


# ---- random factors: the result is the formula for some factor in the range ----

def recover_linear(x, y):
    """(a, b) with y = a * x + b, by least squares (float64)."""
    a, b = np.polyfit(x.reshape(-1).astype(np.float64), y.reshape(-1).astype(np.float64), 1)
    return a, b


@pytest.mark.parametrize("shape", SHAPES)
def test_random_brightness_factor_in_range(shape):
    x = image(shape, np.float32, low=1)
    factors = set()
    for _ in range(5):
        y = run("random_brightness", x, min_factor=0.5, max_factor=1.5)
        f = float(np.median(y / x))
        assert 0.5 - 1e-6 <= f <= 1.5 + 1e-6
        np.testing.assert_allclose(y, brightness_ref(x, f), rtol=1e-6)
        factors.add(round(f, 5))
    assert len(factors) > 1  # a new draw per call


@pytest.mark.parametrize("shape", SHAPES)
def test_random_contrast_factor_in_range(shape):
    x = image(shape, np.float32)
    y = run("random_contrast", x, min_factor=0.2, max_factor=0.9)
    first = (0,) * (x.ndim - 3)  # the first image: y = a * x + (1 - a) * its mean
    a, _ = recover_linear(x[first], y[first])
    assert 0.2 - 1e-5 <= a <= 0.9 + 1e-5
    if x.ndim == 4:  # one factor for the whole batch
        assert recover_linear(x[-1], y[-1])[0] == pytest.approx(a, rel=1e-5)
    np.testing.assert_allclose(y, contrast_ref(x, a), rtol=1e-5, atol=1e-3)


@pytest.mark.parametrize("shape", SHAPES)
def test_random_saturation_factor_in_range(shape):
    x = image(shape, np.float32)
    y = run("random_saturation", x, min_factor=0.2, max_factor=0.9)
    gray = x[..., 2:3] * F32(GRAY[2])
    a, _ = recover_linear(x - gray, y - gray)  # y - gray = a * (x - gray)
    assert 0.2 - 1e-5 <= a <= 0.9 + 1e-5
    np.testing.assert_allclose(y, saturation_ref(x, a), rtol=1e-5, atol=1e-3)


def test_random_hue_factor_in_range():
    x = image((6, 5, 3), np.float32, seed=4)
    y = run("random_hue", x, min_factor=0.1, max_factor=0.4)
    xd = x.astype(np.float64)
    h_in, _, s_in = rgb_to_hls(xd[..., 0], xd[..., 1], xd[..., 2], np.float64)
    yd = y.astype(np.float64)
    h_out, _, _ = rgb_to_hls(yd[..., 0], yd[..., 1], yd[..., 2], np.float64)
    turns = ((h_out - h_in) / 360.0) % 1.0
    f = float(np.median(turns[s_in > 0.1]))
    assert 0.1 - 1e-4 <= f <= 0.4 + 1e-4
    np.testing.assert_allclose(y, hue_ref(x, f), atol=0.05)


@pytest.mark.parametrize("op", sorted(REFS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_random_ops_repeat_after_seeding(op, dtype):
    x = image((2, 4, 5, 3), dtype)
    mx.random.seed(11)
    a = [run(op, x, min_factor=0.3, max_factor=1.6) for _ in range(3)]
    mx.random.seed(11)
    b = [run(op, x, min_factor=0.3, max_factor=1.6) for _ in range(3)]
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    assert not all(np.array_equal(a[0], v) for v in a[1:])


# ---- colour jitter ----

@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_color_jitter_off_is_identity(shape, dtype):
    x = image(shape, dtype)
    y = run("random_color_jitter", x, brightness=0, contrast=0, saturation=0, hue=0)
    np.testing.assert_array_equal(y, x)
    y = run("random_color_jitter", x, brightness=-1, contrast=0, saturation=-0.5, hue=0)  # <= 0 is off
    np.testing.assert_array_equal(y, x)


@pytest.mark.parametrize("shape", SHAPES)
def test_color_jitter_single_steps(shape):
    x = image(shape, np.float32, low=1)
    y = run("random_color_jitter", x, brightness=0.4, contrast=0, saturation=0, hue=0)
    f = float(np.median(y / x))
    assert 0.6 - 1e-6 <= f <= 1.4 + 1e-6
    np.testing.assert_allclose(y, brightness_ref(x, f), rtol=1e-6)
    y = run("random_color_jitter", x, brightness=0, contrast=0.5, saturation=0, hue=0)
    first = (0,) * (x.ndim - 3)
    a, _ = recover_linear(x[first], y[first])
    assert 0.5 - 1e-5 <= a <= 1.5 + 1e-5
    np.testing.assert_allclose(y, contrast_ref(x, a), rtol=1e-5, atol=1e-3)


@pytest.mark.parametrize("dtype", DTYPES)
def test_color_jitter_repeats_after_seeding(dtype):
    x = image((2, 4, 5, 3), dtype)
    attrs = dict(brightness=0.3, contrast=0.3, saturation=0.3, hue=0.1)
    mx.random.seed(5)
    a = [run("random_color_jitter", x, **attrs) for _ in range(3)]
    mx.random.seed(5)
    b = [run("random_color_jitter", x, **attrs) for _ in range(3)]
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    assert a[0].dtype == dtype and a[0].shape == x.shape
    # Positionally, in Gluon's order.
    y = mx.nd.image.random_color_jitter(mx.nd.array(x, dtype=dtype), 0, 0, 0, 0).asnumpy()
    np.testing.assert_array_equal(y, x)


# ---- lighting ----

@pytest.mark.parametrize("shape", SHAPES + [(3, 4, 1)])
@pytest.mark.parametrize("dtype", DTYPES + [np.float64])
@pytest.mark.parametrize("alpha", [(0.1, -0.2, 0.3), (2.0, 1.0, -3.0), (0.0, 0.0, 0.0)])
def test_adjust_lighting_matches_numpy(shape, dtype, alpha):
    x = image(shape, dtype)
    y = run("adjust_lighting", x, alpha=alpha)
    if dtype == np.float64:
        np.testing.assert_allclose(y, lighting_ref(x, alpha), rtol=1e-12)
    else:
        np.testing.assert_array_equal(y, lighting_ref(x, alpha))


def test_adjust_lighting_uint8_saturates():
    x = np.array([[[250, 5, 128]]], dtype=np.uint8)
    # alpha = (-1, 0, 0) adds 55.46 * (0.5675, 0.5808, 0.5836) = (31.47, 32.21, 32.37).
    np.testing.assert_array_equal(run("adjust_lighting", x, alpha=(-1.0, 0.0, 0.0)), [[[255, 37, 160]]])
    np.testing.assert_array_equal(run("adjust_lighting", x, alpha=(1.0, 0.0, 0.0)), [[[218, 0, 95]]])


@pytest.mark.parametrize("shape", SHAPES)
def test_random_lighting(shape):
    x = image(shape, np.float32)
    np.testing.assert_array_equal(run("random_lighting", x, alpha_std=0.0), x)
    y = run("random_lighting", x, alpha_std=0.1)
    off = (y - x).reshape(-1, 3)
    np.testing.assert_allclose(off, np.broadcast_to(off[0], off.shape), atol=1e-3)  # one offset per call
    basis = np.array([[EIGVAL[j] * EIGVEC[c][j] for j in range(3)] for c in range(3)])
    alpha = np.linalg.solve(basis, off[0].astype(np.float64))
    assert np.all(np.abs(alpha) < 0.8)  # 8 standard deviations
    np.testing.assert_allclose(y, lighting_ref(x, alpha), atol=1e-3)
    mx.random.seed(9)
    a = run("random_lighting", x)  # alpha_std defaults to 0.05
    mx.random.seed(9)
    np.testing.assert_array_equal(a, run("random_lighting", x, alpha_std=0.05))
    assert not np.array_equal(a, x)


# ---- gradients: MXNet's, the output gradient passed through ----

@pytest.mark.parametrize("op, attrs", [
    ("random_brightness", dict(min_factor=0.5, max_factor=2.0)),
    ("random_contrast", dict(min_factor=0.5, max_factor=2.0)),
    ("random_saturation", dict(min_factor=0.5, max_factor=2.0)),
    ("random_hue", dict(min_factor=0.1, max_factor=0.2)),
    ("random_color_jitter", dict(brightness=0.2, contrast=0.2, saturation=0.2, hue=0.1)),
    ("adjust_lighting", dict(alpha=(0.1, 0.2, 0.3))),
    ("random_lighting", dict(alpha_std=0.1)),
])
def test_gradient_passes_through(op, attrs):
    x = mx.nd.array(image((2, 3, 4, 3), np.float32))
    x.attach_grad()
    dy = image((2, 3, 4, 3), np.float32, seed=1, low=-1, high=1)
    with mx.autograd.record():
        y = getattr(mx.nd.image, op)(x, **attrs)
    y.backward(mx.nd.array(dy))
    np.testing.assert_array_equal(x.grad.asnumpy(), dy)


# ---- attribute and shape errors ----

@pytest.mark.parametrize("op, attrs, match", [
    ("random_brightness", dict(min_factor=-0.5, max_factor=1.0), "min_factor"),
    ("random_contrast", dict(min_factor=0.5, max_factor=-1.0), "max_factor"),
    ("random_saturation", dict(min_factor=1.5, max_factor=0.5), "min_factor"),
    ("random_hue", dict(min_factor="abc", max_factor=0.5), "min_factor"),
    ("random_hue", dict(max_factor=0.5), "min_factor"),
    ("random_brightness", dict(min_factor=0.5, max_factor=1.0, factor=2), "unknown attribute 'factor'"),
    ("random_color_jitter", dict(brightness=0.1, contrast=0.1, saturation=0.1), "hue"),
    ("random_color_jitter", dict(brightness="inf", contrast=0.1, saturation=0.1, hue=0.1), "brightness"),
    ("adjust_lighting", dict(alpha=(0.1, 0.2)), "alpha"),
    ("adjust_lighting", dict(), "alpha"),
    ("random_lighting", dict(alpha_std=-0.1), "alpha_std"),
])
def test_bad_attributes(op, attrs, match):
    x = mx.nd.array(image((3, 4, 3), np.float32))
    with pytest.raises(mx.MXNetError, match=match):
        getattr(mx.nd.image, op)(x, **attrs).wait_to_read()


def test_bad_shapes():
    with pytest.raises(mx.MXNetError, match="channels"):
        mx.nd.image.random_contrast(mx.nd.ones((3, 4, 4)), min_factor=1, max_factor=1).wait_to_read()
    with pytest.raises(mx.MXNetError, match="_image_adjust_lighting"):
        mx.nd.image.adjust_lighting(mx.nd.ones((3, 4)), alpha=(0, 0, 0)).wait_to_read()
    # Brightness is per value: any number of channels.
    x = image((3, 4, 4), np.float32)
    np.testing.assert_array_equal(run("random_brightness", x, min_factor=0.5, max_factor=0.5), brightness_ref(x, 0.5))


def test_symbolic_and_npx_names():
    data = mx.sym.Variable("data")
    sym = mx.sym.image.random_brightness(data, min_factor=0.5, max_factor=0.5)
    x = image((3, 4, 3), np.float32)
    ex = sym.bind(mx.cpu(), {"data": mx.nd.array(x)})
    np.testing.assert_array_equal(ex.forward()[0].asnumpy(), brightness_ref(x, 0.5))
    names = set(mx.operator.get_all_registered_operators())
    for op in ["flip_top_bottom", "random_flip_top_bottom", "random_brightness", "random_contrast",
               "random_saturation", "random_hue", "random_color_jitter", "adjust_lighting", "random_lighting"]:
        assert "_image_" + op in names and "_npx__image_" + op in names
