"""contrib.DeformableConvolution and contrib.ModulatedDeformableConvolution against a NumPy
reference written from the papers' definition (bilinear sampling at offset taps), and against
Convolution where the offsets are zero. Gradients are checked against finite differences in the
C++ gradient table (tests/unit/op/tensor/grad_cases_tensor.cc)."""
import numpy as np
import pytest

import braid as mx


def _bilinear(plane, h, w, modulated):
    height, width = plane.shape
    if modulated:
        if not (-1 < h < height and -1 < w < width):
            return 0.0
        h0, w0 = int(np.floor(h)), int(np.floor(w))
        value = 0.0
        for r, wr in ((h0, 1 - (h - h0)), (h0 + 1, h - h0)):
            for c, wc in ((w0, 1 - (w - w0)), (w0 + 1, w - w0)):
                if 0 <= r < height and 0 <= c < width:
                    value += wr * wc * plane[r, c]
        return value
    if not (0 <= h < height and 0 <= w < width):
        return 0.0
    h0, w0 = int(np.floor(h)), int(np.floor(w))
    h1, w1 = min(h0 + 1, height - 1), min(w0 + 1, width - 1)
    lh = 0.0 if h0 >= height - 1 else h - h0
    lw = 0.0 if w0 >= width - 1 else w - w0
    return ((1 - lh) * (1 - lw) * plane[h0, w0] + (1 - lh) * lw * plane[h0, w1] + lh * (1 - lw) * plane[h1, w0]
            + lh * lw * plane[h1, w1])


def _reference(data, offset, weight, bias, kernel, stride, pad, dilate, groups, dgroups, mask=None):
    n, c, height, width = data.shape
    f = weight.shape[0]
    kh, kw = kernel
    oh, ow = offset.shape[2:]
    out = np.zeros((n, f, oh, ow))
    for b in range(n):
        for o in range(f):
            g = o // (f // groups)
            for y in range(oh):
                for x in range(ow):
                    acc = 0.0 if bias is None else bias[o]
                    for ci in range(c // groups):
                        ch = g * (c // groups) + ci
                        dg = ch // (c // dgroups)
                        for i in range(kh):
                            for j in range(kw):
                                tap = i * kw + j
                                h = y * stride[0] - pad[0] + i * dilate[0] + offset[b, dg * 2 * kh * kw + 2 * tap, y, x]
                                w = x * stride[1] - pad[1] + j * dilate[1] + offset[b, dg * 2 * kh * kw + 2 * tap + 1, y, x]
                                v = _bilinear(data[b, ch], h, w, mask is not None)
                                if mask is not None:
                                    v *= mask[b, dg * kh * kw + tap, y, x]
                                acc += weight[o, ci, i, j] * v
                    out[b, o, y, x] = acc
    return out


def _nd(x):
    return mx.nd.array(x, dtype="float64")


def test_deformable_matches_the_reference():
    rng = np.random.RandomState(0)
    data, weight, bias = rng.uniform(-1, 1, (2, 4, 6, 5)), rng.uniform(-1, 1, (6, 2, 3, 3)), rng.uniform(-1, 1, 6)
    offset = rng.uniform(-2, 2, (2, 2 * 2 * 9, 3, 3))
    out = mx.nd.contrib.DeformableConvolution(_nd(data), _nd(offset), _nd(weight), _nd(bias), kernel=(3, 3),
                                              stride=(2, 2), pad=(1, 1), num_filter=6, num_group=2,
                                              num_deformable_group=2)
    expected = _reference(data, offset, weight, bias, (3, 3), (2, 2), (1, 1), (1, 1), 2, 2)
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-10, atol=1e-10)


def test_modulated_matches_the_reference():
    rng = np.random.RandomState(1)
    data, weight = rng.uniform(-1, 1, (1, 3, 5, 6)), rng.uniform(-1, 1, (2, 3, 2, 3))
    offset, mask = rng.uniform(-2, 2, (1, 2 * 6, 5, 4)), rng.uniform(0, 1, (1, 6, 5, 4))
    out = mx.nd.contrib.ModulatedDeformableConvolution(_nd(data), _nd(offset), _nd(mask), _nd(weight), kernel=(2, 3),
                                                       dilate=(2, 1), pad=(1, 0), num_filter=2, no_bias=True)
    expected = _reference(data, offset, weight, None, (2, 3), (1, 1), (1, 0), (2, 1), 1, 1, mask)
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("modulated", [False, True])
def test_zero_offsets_are_a_convolution(modulated):
    rng = np.random.RandomState(2)
    data, weight, bias = _nd(rng.uniform(-1, 1, (2, 3, 7, 7))), _nd(rng.uniform(-1, 1, (4, 3, 3, 3))), _nd(rng.uniform(-1, 1, 4))
    kwargs = dict(kernel=(3, 3), pad=(1, 1), num_filter=4)
    offset = mx.nd.zeros((2, 18, 7, 7), dtype="float64")
    if modulated:
        out = mx.nd.contrib.ModulatedDeformableConvolution(data, offset, mx.nd.ones((2, 9, 7, 7), dtype="float64"),
                                                           weight, bias, **kwargs)
    else:
        out = mx.nd.contrib.DeformableConvolution(data, offset, weight, bias, **kwargs)
    np.testing.assert_allclose(out.asnumpy(), mx.nd.Convolution(data, weight, bias, **kwargs).asnumpy(), rtol=1e-12,
                               atol=1e-12)


def test_symbol_arguments_and_shapes():
    net = mx.sym.contrib.ModulatedDeformableConvolution(mx.sym.var("data"), mx.sym.var("offset"), mx.sym.var("mask"),
                                                        kernel=(3, 3), num_filter=8, num_deformable_group=2, name="dcn")
    assert net.list_arguments() == ["data", "offset", "mask", "dcn_weight", "dcn_bias"]
    args, outs, _ = net.infer_shape(data=(2, 4, 9, 9))
    assert args == [(2, 4, 9, 9), (2, 36, 7, 7), (2, 18, 7, 7), (8, 4, 3, 3), (8,)]
    assert outs == [(2, 8, 7, 7)]


def test_bad_attributes_are_named():
    with pytest.raises(mx.MXNetError, match="num_deformable_group"):
        mx.nd.contrib.DeformableConvolution(mx.nd.ones((1, 3, 5, 5)), mx.nd.zeros((1, 36, 3, 3)),
                                            mx.nd.ones((2, 3, 3, 3)), mx.nd.zeros((2,)), kernel=(3, 3), num_filter=2,
                                            num_deformable_group=2)
    with pytest.raises(mx.MXNetError, match="2-D kernels"):
        mx.sym.contrib.DeformableConvolution(mx.sym.var("d"), mx.sym.var("o"), kernel=(3,), num_filter=2)
