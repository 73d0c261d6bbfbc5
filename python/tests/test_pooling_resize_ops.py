"""AdaptiveAvgPooling2D, BilinearResize2D, im2col/col2im against PyTorch (adaptive_avg_pool2d,
interpolate, unfold/fold), histogram against NumPy, ROIPooling/ROIAlign on hand-checked boxes."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import mxnet as mx


def forward_backward(op, x_np, dy_seed=0, **kwargs):
    x = mx.nd.array(x_np, dtype="float64")
    x.attach_grad()
    with mx.autograd.record():
        y = op(x, **kwargs)
    dy = np.random.RandomState(dy_seed).uniform(-1, 1, y.shape)
    y.backward(mx.nd.array(dy, dtype="float64"))
    return y.asnumpy(), x.grad.asnumpy(), dy


def torch_forward_backward(fn, x_np, dy):
    x = torch.tensor(x_np, requires_grad=True)
    y = fn(x)
    y.backward(torch.tensor(dy))
    return y.detach().numpy(), x.grad.numpy()


@pytest.mark.parametrize("size", [(3, 4), (5, 5), (1, 7)])
def test_adaptive_avg_pooling_matches_torch(size):
    x = np.random.RandomState(0).uniform(size=(2, 3, 10, 9))
    y, dx, dy = forward_backward(mx.nd.contrib.AdaptiveAvgPooling2D, x, output_size=size)
    ty, tdx = torch_forward_backward(lambda t: F.adaptive_avg_pool2d(t, size), x, dy)
    np.testing.assert_allclose(y, ty, rtol=1e-12)
    np.testing.assert_allclose(dx, tdx, rtol=1e-12)


@pytest.mark.parametrize("align", [True, False])
@pytest.mark.parametrize("size", [(7, 5), (3, 12), (6, 9)])
def test_bilinear_resize_matches_torch(align, size):
    x = np.random.RandomState(1).uniform(size=(2, 2, 6, 9))
    y, dx, dy = forward_backward(mx.nd.contrib.BilinearResize2D, x, height=size[0], width=size[1],
                                 align_corners=align)
    ty, tdx = torch_forward_backward(
        lambda t: F.interpolate(t, size=size, mode="bilinear", align_corners=align), x, dy)
    np.testing.assert_allclose(y, ty, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(dx, tdx, rtol=1e-10, atol=1e-12)


def test_bilinear_resize_modes_give_mxnet_sizes():
    x = mx.nd.ones((1, 1, 7, 8))
    assert mx.nd.contrib.BilinearResize2D(x, mode="to_even_up").shape == (1, 1, 8, 8)
    assert mx.nd.contrib.BilinearResize2D(x, mode="to_odd_down").shape == (1, 1, 7, 7)
    assert mx.nd.contrib.BilinearResize2D(x, scale_height=2, scale_width=0.5, mode="odd_scale").shape == (1, 1, 13, 4)
    assert mx.nd.contrib.BilinearResize2D(x, mx.nd.ones((1, 1, 3, 4)), mode="like").shape == (1, 1, 3, 4)


def test_im2col_and_col2im_match_unfold_and_fold():
    x = np.random.RandomState(2).uniform(size=(2, 3, 7, 6))
    kw = dict(kernel=(3, 2), stride=(2, 1), dilate=(1, 2), pad=(1, 0))
    cols, dx, dy = forward_backward(mx.nd.im2col, x, **kw)
    unfold = lambda t: F.unfold(t, (3, 2), dilation=(1, 2), padding=(1, 0), stride=(2, 1))  # noqa: E731
    tcols, tdx = torch_forward_backward(unfold, x, dy)
    np.testing.assert_allclose(cols, tcols, rtol=1e-12)
    np.testing.assert_allclose(dx, tdx, rtol=1e-12)
    img, dcols, dimg = forward_backward(mx.nd.col2im, cols, output_size=(7, 6), **kw)
    fold = lambda t: F.fold(t, (7, 6), (3, 2), dilation=(1, 2), padding=(1, 0), stride=(2, 1))  # noqa: E731
    timg, tdcols = torch_forward_backward(fold, cols, dimg)
    np.testing.assert_allclose(img, timg, rtol=1e-12)
    np.testing.assert_allclose(dcols, tdcols, rtol=1e-12)


def test_histogram_matches_numpy():
    x = np.random.RandomState(3).normal(size=(4, 50))
    counts, edges = mx.nd.histogram(mx.nd.array(x, dtype="float64"), bins=7, range=(-2, 2.5))
    want_counts, want_edges = np.histogram(x, bins=7, range=(-2, 2.5))
    np.testing.assert_array_equal(counts.asnumpy(), want_counts)
    np.testing.assert_allclose(edges.asnumpy(), want_edges)
    bins = np.array([-3.0, -0.5, 0.0, 0.1, 3.0])
    counts, _ = mx.nd.histogram(mx.nd.array(x, dtype="float64"), bins=mx.nd.array(bins, dtype="float64"))
    np.testing.assert_array_equal(counts.asnumpy(), np.histogram(x, bins=bins)[0])
    sym = mx.sym.histogram(mx.sym.Variable("a"), bins=3, range=(0, 3))
    ex = sym.bind(mx.cpu(), {"a": mx.nd.array([0, 1, 1, 2.5, 3, 7])})
    np.testing.assert_array_equal(ex.forward()[0].asnumpy(), [1, 2, 2])


def test_roi_pooling_and_align_on_a_ramp():
    # data[y, x] = 10 y + x: a box's max is its bottom-right pixel; bilinear samples are exact.
    data = mx.nd.array((10 * np.arange(8)[:, None] + np.arange(8)[None, :]).reshape(1, 1, 8, 8))
    rois = mx.nd.array([[0, 2, 1, 5, 6], [-1, 0, 0, 1, 1]])
    pooled = mx.nd.ROIPooling(data, rois, pooled_size=(2, 2), spatial_scale=1).asnumpy()
    np.testing.assert_array_equal(pooled[0, 0], [[33, 35], [63, 65]])
    np.testing.assert_array_equal(pooled[1], np.zeros((1, 2, 2)))  # negative batch index
    aligned = mx.nd.contrib.ROIAlign(data, rois, pooled_size=(1, 1), spatial_scale=1, sample_ratio=2).asnumpy()
    # samples at x = 2 + 3·(0.25, 0.75), y = 1 + 5·(0.25, 0.75): their mean is the box centre's value.
    np.testing.assert_allclose(aligned[0, 0, 0, 0], 10 * 3.5 + 3.5)
