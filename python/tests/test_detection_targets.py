"""contrib.DeformablePSROIPooling and contrib.mrcnn_mask_target on maps that are linear in x and y,
where bilinear sampling is exact and an average of samples is the map's value at their mean
position: the expected values follow from the geometry alone."""
import numpy as np
import pytest

import braid as mx

A, B = 0.5, 2.0  # map value a·x + b·y + 100·channel


def _linear_map(channels, height, width):
    y, x = np.mgrid[0:height, 0:width]
    return np.stack([A * x + B * y + 100 * c for c in range(channels)])


def _psroi_expected(roi, scale, pooled, spp, group, k, ph, pw, shift=(0.0, 0.0)):
    x1, y1 = round(roi[1]) * scale - 0.5, round(roi[2]) * scale - 0.5
    x2, y2 = (round(roi[3]) + 1) * scale - 0.5, (round(roi[4]) + 1) * scale - 0.5
    rw, rh = max(x2 - x1, 0.1), max(y2 - y1, 0.1)
    w0 = pw * rw / pooled + x1 + shift[0] * rw
    h0 = ph * rh / pooled + y1 + shift[1] * rh
    mean_w = w0 + (spp - 1) / 2 * rw / pooled / spp
    mean_h = h0 + (spp - 1) / 2 * rh / pooled / spp
    channel = (k * group + ph * group // pooled) * group + pw * group // pooled
    return A * mean_w + B * mean_h + 100 * channel


def test_psroi_pooling_averages_each_bin_of_its_position_sensitive_channel():
    data = _linear_map(2 * 3 * 3, 20, 20)[None].repeat(2, axis=0)
    rois = np.array([[1, 4, 6, 20, 24], [0, 8, 2, 30, 30]], dtype="float64")
    out = mx.nd.contrib.DeformablePSROIPooling(mx.nd.array(data, dtype="float64"), mx.nd.array(rois, dtype="float64"),
                                               spatial_scale=0.5, output_dim=2, group_size=3, pooled_size=3,
                                               sample_per_part=2, no_trans=True).asnumpy()
    assert out.shape == (2, 2, 3, 3)
    for r in range(2):
        for k in range(2):
            for ph in range(3):
                for pw in range(3):
                    assert out[r, k, ph, pw] == pytest.approx(_psroi_expected(rois[r], 0.5, 3, 2, 3, k, ph, pw))


def test_psroi_pooling_shifts_bins_by_trans():
    data = _linear_map(2 * 2 * 2, 24, 24)[None]
    rois = np.array([[0, 6, 6, 26, 30]], dtype="float64")
    trans = np.random.RandomState(0).uniform(-1, 1, (1, 2, 2, 2))  # one class: (x, y) per part
    out = mx.nd.contrib.DeformablePSROIPooling(mx.nd.array(data, dtype="float64"), mx.nd.array(rois, dtype="float64"),
                                               mx.nd.array(trans, dtype="float64"), spatial_scale=0.5, output_dim=2,
                                               group_size=2, pooled_size=2, sample_per_part=3, trans_std=0.1).asnumpy()
    for k in range(2):
        for ph in range(2):
            for pw in range(2):
                shift = (0.1 * trans[0, 0, ph, pw], 0.1 * trans[0, 1, ph, pw])
                assert out[0, k, ph, pw] == pytest.approx(_psroi_expected(rois[0], 0.5, 2, 3, 2, k, ph, pw, shift))


def test_mask_targets_are_the_matched_masks_cut_by_roi_align():
    masks = np.stack([_linear_map(1, 16, 16)[0], 3 * _linear_map(1, 16, 16)[0]])[None]  # (1, 2, 16, 16)
    rois = np.array([[[2, 3, 10, 11], [4, 1, 12, 9], [0, 0, 6, 8]]], dtype="float64")
    matches = np.array([[1, 0, 1]], dtype="float64")
    classes = np.array([[2, 0, 1]], dtype="float64")
    targets, one_hot = mx.nd.contrib.mrcnn_mask_target(
        mx.nd.array(rois, dtype="float64"), mx.nd.array(masks, dtype="float64"), mx.nd.array(matches, dtype="float64"),
        mx.nd.array(classes, dtype="float64"), num_rois=3, num_classes=3, mask_size=(4, 4), sample_ratio=2)
    targets, one_hot = targets.asnumpy(), one_hot.asnumpy()
    assert targets.shape == one_hot.shape == (1, 3, 3, 4, 4)
    for n in range(3):
        x1, y1, x2, y2 = rois[0, n]
        bw, bh = (x2 - x1) / 4, (y2 - y1) / 4
        scale = 3 if matches[0, n] == 1 else 1
        for c in range(3):
            np.testing.assert_array_equal(one_hot[0, n, c], np.full((4, 4), float(classes[0, n] == c)))
            for ph in range(4):
                for pw in range(4):
                    centre = A * (x1 + (pw + 0.5) * bw) + B * (y1 + (ph + 0.5) * bh)
                    assert targets[0, n, c, ph, pw] == pytest.approx(scale * centre)


def test_bad_inputs_are_named():
    with pytest.raises(mx.MXNetError, match="output_dim"):
        mx.nd.contrib.DeformablePSROIPooling(mx.nd.ones((1, 5, 4, 4)), mx.nd.zeros((1, 5)), spatial_scale=1,
                                             output_dim=2, group_size=2, pooled_size=2, no_trans=True)
    with pytest.raises(mx.MXNetError, match="ground-truth masks"):
        mx.nd.contrib.mrcnn_mask_target(mx.nd.zeros((1, 1, 4)), mx.nd.ones((1, 2, 4, 4)), mx.nd.array([[5]]),
                                        mx.nd.zeros((1, 1)), num_rois=1, num_classes=2, mask_size=(2, 2))[0].asnumpy()
