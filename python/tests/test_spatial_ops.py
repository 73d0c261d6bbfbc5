"""GridGenerator, BilinearSampler and SpatialTransformer against PyTorch's affine_grid and
grid_sample (align_corners=True, zero padding), forward and gradients; UpSampling against NumPy."""
import numpy as np
import torch
import torch.nn.functional as F

import mxnet as mx


def test_affine_grid_and_sampling_match_torch():
    rng = np.random.RandomState(0)
    data = rng.uniform(-1, 1, (2, 3, 7, 9))
    theta = np.array([[0.8, 0.3, 0.1, -0.2, 1.1, 0.05], [1.2, -0.4, -0.3, 0.5, 0.7, 0.2]])
    out_hw = (5, 6)

    tdata = torch.tensor(data, requires_grad=True)
    ttheta = torch.tensor(theta.reshape(2, 2, 3), requires_grad=True)
    tgrid = F.affine_grid(ttheta, (2, 3) + out_hw, align_corners=True)
    tout = F.grid_sample(tdata, tgrid, mode="bilinear", padding_mode="zeros", align_corners=True)
    dy = rng.uniform(-1, 1, tout.shape)
    tout.backward(torch.tensor(dy))

    x, loc = mx.nd.array(data, dtype="float64"), mx.nd.array(theta, dtype="float64")
    x.attach_grad()
    loc.attach_grad()
    with mx.autograd.record():
        out = mx.nd.SpatialTransformer(x, loc, target_shape=out_hw, transform_type="affine", sampler_type="bilinear")
    out.backward(mx.nd.array(dy, dtype="float64"))
    np.testing.assert_allclose(out.asnumpy(), tout.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(x.grad.asnumpy(), tdata.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(loc.grad.asnumpy(), ttheta.grad.numpy().reshape(2, 6), rtol=1e-9, atol=1e-11)

    grid = mx.nd.GridGenerator(loc, transform_type="affine", target_shape=out_hw)
    np.testing.assert_allclose(grid.asnumpy(), tgrid.detach().numpy().transpose(0, 3, 1, 2), rtol=1e-12)
    sampled = mx.nd.BilinearSampler(x, grid)
    np.testing.assert_allclose(sampled.asnumpy(), tout.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_bilinear_sampler_grid_gradient_matches_torch():
    rng = np.random.RandomState(1)
    data = rng.uniform(-1, 1, (1, 2, 4, 5))
    grid = rng.uniform(-1.2, 1.2, (1, 2, 3, 3))
    tdata = torch.tensor(data, requires_grad=True)
    tgrid = torch.tensor(grid.transpose(0, 2, 3, 1).copy(), requires_grad=True)
    tout = F.grid_sample(tdata, tgrid, mode="bilinear", padding_mode="zeros", align_corners=True)
    tout.sum().backward()
    x, g = mx.nd.array(data, dtype="float64"), mx.nd.array(grid, dtype="float64")
    g.attach_grad()
    with mx.autograd.record():
        out = mx.nd.BilinearSampler(x, g)
    out.backward(mx.nd.ones_like(out))
    np.testing.assert_allclose(out.asnumpy(), tout.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(g.grad.asnumpy(), tgrid.grad.numpy().transpose(0, 3, 1, 2), rtol=1e-9, atol=1e-11)


def test_warp_grid_is_the_offset_pixel_position():
    flow = np.zeros((1, 2, 3, 4))
    flow[0, 0, 1, 2] = 0.5
    grid = mx.nd.GridGenerator(mx.nd.array(flow), transform_type="warp").asnumpy()
    assert np.isclose(grid[0, 0, 1, 2], (2 + 0.5) * 2 / 3 - 1)
    assert np.isclose(grid[0, 1, 2, 0], 2 * 2 / 2 - 1)


def test_nearest_upsampling_repeats_pixels_and_concatenates():
    a = np.arange(8.0).reshape(1, 2, 2, 2)
    b = np.arange(3.0).reshape(1, 3, 1, 1)
    out = mx.nd.UpSampling(mx.nd.array(a), mx.nd.array(b), scale=2, sample_type="nearest", num_args=2).asnumpy()
    np.testing.assert_array_equal(out[:, :2], a.repeat(2, axis=2).repeat(2, axis=3))
    np.testing.assert_array_equal(out[:, 2:], np.broadcast_to(b, (1, 3, 4, 4)))
