"""mx.nd.image.resize against PyTorch's interpolate, which maps pixels as OpenCV's INTER_NEAREST
and INTER_LINEAR do (MXNet resizes with OpenCV): shapes, keep_ratio, batches, dtypes."""
import numpy as np
import pytest
import torch
import torch.nn.functional as tf

import braid as mx


def _torch_resize(image, height, width, interp):
    """(H, W, C) float64 through torch's NCHW interpolate."""
    t = torch.tensor(image).permute(2, 0, 1)[None]
    mode = "nearest" if interp == 0 else "bilinear"
    kwargs = {} if interp == 0 else {"align_corners": False}
    return tf.interpolate(t, size=(height, width), mode=mode, **kwargs)[0].permute(1, 2, 0).numpy()


@pytest.mark.parametrize("interp", [0, 1])
@pytest.mark.parametrize("size", [(9, 5), (31, 40)])  # down and up, (w, h)
def test_float_images_match_pytorch(interp, size):
    image = np.random.RandomState(0).uniform(0, 255, (17, 13, 3))
    out = mx.nd.image.resize(mx.nd.array(image, dtype="float64"), size=size, interp=interp).asnumpy()
    assert out.shape == (size[1], size[0], 3)
    np.testing.assert_allclose(out, _torch_resize(image, size[1], size[0], interp), rtol=1e-10, atol=1e-9)


def test_uint8_batches_and_keep_ratio():
    batch = np.random.RandomState(1).randint(0, 256, (2, 12, 20, 3)).astype(np.uint8)
    out = mx.nd.image.resize(mx.nd.array(batch, dtype="uint8"), size=6, keep_ratio=True).asnumpy()
    assert out.shape == (2, 6, 10, 3) and out.dtype == np.uint8  # the shorter side becomes 6
    for n in range(2):
        expected = _torch_resize(batch[n].astype(np.float64), 6, 10, 1)
        assert np.abs(out[n].astype(np.float64) - expected).max() <= 0.5 + 1e-9
    square = mx.nd.image.resize(mx.nd.array(batch[0], dtype="uint8"), size=7)
    assert square.shape == (7, 7, 3)


def test_bad_attributes_are_named():
    with pytest.raises(mx.MXNetError, match="interp=5"):
        mx.nd.image.resize(mx.nd.ones((4, 4, 3)), size=2, interp=5)
    with pytest.raises(mx.MXNetError, match=r"\(w, h\)"):
        mx.nd.image.resize(mx.nd.ones((4, 4, 3)), size=(1, 2, 3))
