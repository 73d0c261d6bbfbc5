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


def test_rotated_roi_align_turns_the_sampling_grid():
    # data[y, x] = 10 y + x is linear, so a bin's average is the value at the bin's centre.
    data = mx.nd.array((10 * np.arange(8)[:, None] + np.arange(8)[None, :]).reshape(1, 1, 8, 8))
    # A 4 x 2 box centred at (x, y) = (3.5, 3.5): unturned, its 1 x 2 bins' centres are 1 apart in x;
    # turned by 90 degrees counter-clockwise they are 1 apart in y (x' = y, y' = -x in the box frame).
    rois = mx.nd.array([[0, 3.5, 3.5, 4, 2, 0], [0, 3.5, 3.5, 4, 2, 90]])
    out = mx.nd.contrib.RROIAlign(data, rois, pooled_size=(1, 2), spatial_scale=1, sampling_ratio=2).asnumpy()
    np.testing.assert_allclose(out[0, 0, 0], [3.5 * 11 - 1, 3.5 * 11 + 1], rtol=1e-6)
    np.testing.assert_allclose(out[1, 0, 0], [3.5 * 11 + 10, 3.5 * 11 - 10], rtol=1e-6)
    with pytest.raises(mx.MXNetError, match="rois must be \\(boxes, 6\\)"):
        mx.nd.contrib.RROIAlign(data, mx.nd.zeros((1, 5)), pooled_size=(1, 1), spatial_scale=1)


def test_interleaved_attention_products_match_einsum():
    rng = np.random.RandomState(4)
    S, B, H, D, Sk = 4, 2, 3, 5, 6
    qkv = rng.uniform(-1, 1, (S, B, 3 * H * D))
    per_head = qkv.reshape(S, B, H, 3, D)
    q, k, v = per_head[..., 0, :], per_head[..., 1, :], per_head[..., 2, :]
    scores = np.einsum("ibhd,jbhd->bhij", q, k).reshape(B * H, S, S) / np.sqrt(D)
    got = mx.nd.contrib.interleaved_matmul_selfatt_qk(mx.nd.array(qkv, dtype="float64"), heads=H).asnumpy()
    np.testing.assert_allclose(got, scores, rtol=1e-12)
    att = rng.uniform(size=(B * H, S, S))
    want = np.einsum("bhij,jbhd->ibhd", att.reshape(B, H, S, S), v).reshape(S, B, H * D)
    got = mx.nd.contrib.interleaved_matmul_selfatt_valatt(mx.nd.array(qkv, dtype="float64"),
                                                          mx.nd.array(att, dtype="float64"), heads=H).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-12)
    queries = rng.uniform(-1, 1, (S, B, H * D))
    kv = rng.uniform(-1, 1, (Sk, B, 2 * H * D))
    kk, vv = kv.reshape(Sk, B, H, 2, D)[..., 0, :], kv.reshape(Sk, B, H, 2, D)[..., 1, :]
    want = np.einsum("ibhd,jbhd->bhij", queries.reshape(S, B, H, D), kk).reshape(B * H, S, Sk) / np.sqrt(D)
    got = mx.nd.contrib.interleaved_matmul_encdec_qk(mx.nd.array(queries, dtype="float64"),
                                                     mx.nd.array(kv, dtype="float64"), heads=H).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-12)
    att = rng.uniform(size=(B * H, S, Sk))
    want = np.einsum("bhij,jbhd->ibhd", att.reshape(B, H, S, Sk), vv).reshape(S, B, H * D)
    got = mx.nd.contrib.interleaved_matmul_encdec_valatt(mx.nd.array(kv, dtype="float64"),
                                                         mx.nd.array(att, dtype="float64"), heads=H).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_psroipooling_averages_each_bins_own_channel():
    # channel c holds the constant c: bin (i, j) of output channel o reads channel (o·2 + i)·2 + j.
    data = mx.nd.array(np.arange(8.0)[None, :, None, None] * np.ones((1, 8, 6, 6)))
    rois = mx.nd.array([[0, 0, 0, 5, 5]])
    out = mx.nd.contrib.PSROIPooling(data, rois, spatial_scale=1, output_dim=2, pooled_size=2).asnumpy()
    np.testing.assert_array_equal(out[0], np.arange(8.0).reshape(2, 2, 2))


def test_sync_batch_norm_is_batch_norm_with_the_variance():
    x = mx.nd.array(np.random.RandomState(5).normal(size=(4, 3, 5)))
    gamma, beta = mx.nd.ones((3,)), mx.nd.zeros((3,))
    mean, var = mx.nd.zeros((3,)), mx.nd.ones((3,))
    with mx.autograd.train_mode():
        y, m, v = mx.nd.contrib.SyncBatchNorm(x, gamma, beta, mean.copy(), var.copy(), output_mean_var=True, key="k")
        z = mx.nd.BatchNorm(x, gamma, beta, mean.copy(), var.copy())
    np.testing.assert_allclose(y.asnumpy(), z.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(v.asnumpy(), x.asnumpy().var(axis=(0, 2)), rtol=1e-4)
    with pytest.raises(mx.MXNetError, match="ndev"):
        mx.nd.contrib.SyncBatchNorm(x, gamma, beta, mean, var, ndev=2, key="k")


def lp_pool_reference(x, p, kernel, stride, pad):
    """MXNet's Lp pooling in NumPy: (sum of x^p over the window, padding counting 0)^(1/p), the
    p = 3 root signed (cbrt); and its gradient for dy: dx += dy * (x / y)^(p - 1)."""
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    oh = (xp.shape[2] - kernel[0]) // stride[0] + 1
    ow = (xp.shape[3] - kernel[1]) // stride[1] + 1
    y = np.zeros(x.shape[:2] + (oh, ow))
    for i in range(oh):
        for j in range(ow):
            win = xp[:, :, i * stride[0]:i * stride[0] + kernel[0], j * stride[1]:j * stride[1] + kernel[1]]
            s = (win ** p).sum(axis=(2, 3))
            y[:, :, i, j] = s if p == 1 else np.sqrt(s) if p == 2 else np.cbrt(s)
    return y


@pytest.mark.parametrize("p", [1, 2, 3])
def test_lp_pooling_matches_its_definition_and_finite_differences(p):
    rng = np.random.RandomState(p)
    x = rng.uniform(0.5, 2.0, (2, 3, 7, 6)) * rng.choice([-1, 1], (2, 3, 7, 6))
    if p == 2:
        x = np.abs(x)  # a square root of sums of squares is smooth only away from zero
    kw = dict(kernel=(3, 2), stride=(2, 2), pad=(1, 0), pool_type="lp", p_value=p)
    y, dx, dy = forward_backward(mx.nd.Pooling, x, **kw)
    assert np.allclose(y, lp_pool_reference(x, p, (3, 2), (2, 2), (1, 0)))
    eps, expected = 1e-6, np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        up, down = x.copy(), x.copy()
        up[idx] += eps
        down[idx] -= eps
        expected[idx] = ((lp_pool_reference(up, p, (3, 2), (2, 2), (1, 0)) -
                          lp_pool_reference(down, p, (3, 2), (2, 2), (1, 0))) * dy).sum() / (2 * eps)
    assert np.allclose(dx, expected, rtol=1e-5, atol=1e-6)
    gy = mx.nd.Pooling(mx.nd.array(x), kernel=(1, 1), global_pool=True, pool_type="lp", p_value=p).asnumpy()
    assert np.allclose(gy[:, :, 0, 0], lp_pool_reference(x, p, (7, 6), (1, 1), (0, 0))[:, :, 0, 0], rtol=1e-5)


def test_lp_pooling_needs_a_p_value_of_one_two_or_three():
    with pytest.raises(mx.MXNetError, match="p_value=1, 2 or 3"):
        mx.nd.Pooling(mx.nd.ones((1, 1, 4, 4)), kernel=(2, 2), pool_type="lp")
    with pytest.raises(mx.MXNetError, match="got 4"):
        mx.nd.Pooling(mx.nd.ones((1, 1, 4, 4)), kernel=(2, 2), pool_type="lp", p_value=4)
