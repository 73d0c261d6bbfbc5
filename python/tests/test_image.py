"""mx.image: decoding checked against Pillow (the same libjpeg-turbo and libpng, driven
independently), resizing against PyTorch's interpolate and pooling, crops and borders against
NumPy slicing and np.pad, augmenters against their formulas, ImageIter's batching rules, and
recordio's pack_img/unpack_img."""
import io
import random

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from PIL import Image

import braid as mx


def smooth_image(h=40, w=60, seed=0):
    rng = np.random.RandomState(seed)
    y, x = np.mgrid[0:h, 0:w]
    base = np.stack([x * 255 // w, y * 255 // h, (x + y) * 255 // (h + w)], -1)
    return np.clip(base + rng.randint(0, 20, base.shape), 0, 255).astype(np.uint8)


def encoded(pixels, fmt, **kw):
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, fmt, **kw)
    return buf.getvalue()


def test_jpeg_decodes_as_pillow_decodes_it():
    data = encoded(smooth_image(), "JPEG", quality=90)
    rgb = mx.image.imdecode(data)
    assert rgb.shape == (40, 60, 3) and rgb.dtype == np.uint8
    reference = np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))
    np.testing.assert_array_equal(rgb.asnumpy(), reference)
    np.testing.assert_array_equal(mx.image.imdecode(data, to_rgb=0).asnumpy(), reference[:, :, ::-1])
    gray_reference = Image.open(io.BytesIO(data))
    gray_reference.draft("L", gray_reference.size)  # libjpeg's own grayscale output, as OpenCV's
    gray = mx.image.imdecode(data, flag=0)
    assert gray.shape == (40, 60, 1)
    np.testing.assert_array_equal(gray.asnumpy()[:, :, 0], np.asarray(gray_reference))
    # bytearray, NumPy and NDArray buffers decode alike
    for buf in [bytearray(data), np.frombuffer(data, np.uint8), mx.nd.array(np.frombuffer(data, np.uint8), dtype="uint8")]:
        np.testing.assert_array_equal(mx.image.imdecode(buf).asnumpy(), reference)


def test_png_decodes_losslessly_in_every_channel_layout():
    rgb = smooth_image()
    np.testing.assert_array_equal(mx.image.imdecode(encoded(rgb, "PNG")).asnumpy(), rgb)
    rgba = np.concatenate([rgb, np.full(rgb.shape[:2] + (1,), 77, np.uint8)], -1)
    data = encoded(rgba, "PNG")
    np.testing.assert_array_equal(mx.image.imdecode(data, flag=-1).asnumpy(), rgba)  # as stored
    np.testing.assert_array_equal(mx.image.imdecode(data).asnumpy(), rgb)  # alpha dropped
    gray = rgb[:, :, 1]
    as_color = mx.image.imdecode(encoded(gray, "PNG")).asnumpy()
    np.testing.assert_array_equal(as_color, np.repeat(gray[:, :, None], 3, -1))
    # colour to gray with OpenCV's weights (4899 R + 9617 G + 1868 B) / 2^14, rounded
    r, g, b = (rgb[..., i].astype(np.int64) for i in range(3))
    expected = (4899 * r + 9617 * g + 1868 * b + 8192) >> 14
    np.testing.assert_array_equal(mx.image.imdecode(encoded(rgb, "PNG"), flag=0).asnumpy()[:, :, 0], expected)
    wide = gray.astype(np.uint16) * 256 + 200  # 16-bit: the high bytes come back
    np.testing.assert_array_equal(mx.image.imdecode(encoded(wide, "PNG"), flag=-1).asnumpy()[:, :, 0], gray)


@pytest.mark.parametrize("bad, message", [
    (b"", "empty"),
    (b"clearly not image content", "not a JPEG or PNG"),
    (b"\xff\xd8\xff\xe0" + b"\0" * 40, "not a readable JPEG"),
    (b"\x89PNG\r\n\x1a\n" + b"\0" * 40, "not a readable PNG"),
])
def test_bad_buffers_raise_mxnet_errors(bad, message):
    with pytest.raises(mx.base.MXNetError, match=message):
        mx.image.imdecode(bad)


def test_truncated_files_never_crash():
    for fmt in ["JPEG", "PNG"]:
        data = encoded(smooth_image(), fmt)
        for cut in range(0, len(data), max(1, len(data) // 50)):
            try:
                out = mx.image.imdecode(data[:cut])
            except mx.base.MXNetError:
                continue
            assert out.shape == (40, 60, 3)  # libjpeg fills a cut scan, as OpenCV returns it


def test_imread_reads_files_and_names_missing_ones(tmp_path):
    path = tmp_path / "a.jpg"
    path.write_bytes(encoded(smooth_image(), "JPEG"))
    np.testing.assert_array_equal(mx.image.imread(str(path)).asnumpy(), mx.image.imdecode(path.read_bytes()).asnumpy())
    np.testing.assert_array_equal(mx.img.image.imread(str(path), to_rgb=0).asnumpy(),
                                  mx.image.imdecode(path.read_bytes(), to_rgb=0).asnumpy())
    with pytest.raises(mx.base.MXNetError, match="nope.jpg"):
        mx.image.imread(str(tmp_path / "nope.jpg"))


def torch_resize(a, oh, ow, mode):
    t = torch.from_numpy(a).permute(2, 0, 1)[None]
    kw = {} if mode == "nearest" else {"align_corners": False}
    return F.interpolate(t, size=(oh, ow), mode=mode, **kw)[0].permute(1, 2, 0).numpy()


@pytest.mark.parametrize("interp, mode", [(0, "nearest"), (1, "bilinear"), (2, "bicubic")])
@pytest.mark.parametrize("size", [(20, 30), (77, 93), (33, 41)])
def test_imresize_matches_pytorch(interp, mode, size):
    a = np.random.RandomState(1).rand(40, 60, 3).astype(np.float32) * 255
    out = mx.image.imresize(mx.nd.array(a), size[1], size[0], interp=interp).asnumpy()
    np.testing.assert_allclose(out, torch_resize(a, *size, mode), atol=2e-3)


def test_area_shrink_averages_the_covered_pixels():
    a = np.random.RandomState(2).rand(40, 60, 3).astype(np.float32) * 255
    t = torch.from_numpy(a).permute(2, 0, 1)[None]
    for oh, ow in [(20, 30), (10, 15)]:  # whole factors: adaptive average pooling
        expected = F.adaptive_avg_pool2d(t, (oh, ow))[0].permute(1, 2, 0).numpy()
        np.testing.assert_allclose(mx.image.imresize(mx.nd.array(a), ow, oh, interp=3).asnumpy(), expected, atol=1e-3)
    # 3 -> 2 columns: output 0 covers source 0 fully and half of 1
    row = np.array([[[0.0], [30.0], [90.0]]], np.float32)
    out = mx.image.imresize(mx.nd.array(row), 2, 1, interp=3).asnumpy().ravel()
    np.testing.assert_allclose(out, [(0 + 15) / 1.5, (15 + 90) / 1.5], rtol=1e-6)


def test_lanczos_keeps_flat_images_flat_and_uint8_rounds():
    flat = np.full((16, 16, 3), 100, np.uint8)
    out = mx.image.imresize(mx.nd.array(flat, dtype="uint8"), 37, 9, interp=4)
    assert out.dtype == np.uint8 and out.shape == (9, 37, 3)
    assert (out.asnumpy() == 100).all()
    with pytest.raises(mx.base.MXNetError, match="interp=7"):
        mx.image.imresize(mx.nd.array(flat), 4, 4, interp=7)


def test_sizes_crops_and_normalisation():
    assert mx.image.scale_down((640, 480), (720, 120)) == (640, 106)
    assert mx.image.scale_down((360, 1000), (480, 500)) == (360, 375)
    img = mx.nd.array(smooth_image(), dtype="uint8")
    assert mx.image.resize_short(img, 20).shape == (20, 30, 3)
    assert mx.image.resize_short(mx.nd.array(smooth_image(60, 40)), 20).shape == (30, 20, 3)
    a = img.asnumpy()
    np.testing.assert_array_equal(mx.image.fixed_crop(img, 5, 7, 10, 12).asnumpy(), a[7:19, 5:15])
    crop, (x0, y0, w, h) = mx.image.center_crop(img, (20, 10))
    assert (x0, y0, w, h) == (20, 15, 20, 10)
    np.testing.assert_array_equal(crop.asnumpy(), a[15:25, 20:40])
    random.seed(3)
    crop, (x0, y0, w, h) = mx.image.random_crop(img, (16, 16))
    np.testing.assert_array_equal(crop.asnumpy(), a[y0:y0 + 16, x0:x0 + 16])
    crop, _ = mx.image.random_size_crop(img, (24, 24), 0.3, (0.75, 1.33))
    assert crop.shape == (24, 24, 3)
    src = np.random.rand(9, 8, 3) * 255
    mean, std = np.random.rand(3) * 255, np.random.rand(3) + 1
    out = mx.image.color_normalize(mx.nd.array(src), mx.nd.array(mean), mx.nd.array(std))
    np.testing.assert_allclose(out.asnumpy(), (src - mean) / std, rtol=1e-4, atol=1e-3)


def test_copy_make_border_follows_opencvs_border_types():
    a = np.arange(4 * 5 * 3, dtype=np.float32).reshape(4, 5, 3)
    modes = {1: "edge", 2: "symmetric", 3: "wrap", 4: "reflect"}
    for border, mode in modes.items():
        out = mx.image.copyMakeBorder(mx.nd.array(a), 1, 2, 3, 2, type=border).asnumpy()
        np.testing.assert_array_equal(out, np.pad(a, [(1, 2), (3, 2), (0, 0)], mode=mode))
    out = mx.nd.zeros((7, 10, 3))
    mx.image.copyMakeBorder(mx.nd.array(a), 1, 2, 3, 2, type=0, values=[9, 8, 7], out=out)
    expected = np.pad(a, [(1, 2), (3, 2), (0, 0)])
    expected[:1], expected[-2:], expected[:, :3], expected[:, -2:] = [9, 8, 7], [9, 8, 7], [9, 8, 7], [9, 8, 7]
    np.testing.assert_array_equal(out.asnumpy(), expected)


def test_imrotate_turns_images_about_their_centre():
    a = np.random.rand(3, 8, 8).astype(np.float32)
    np.testing.assert_allclose(mx.image.imrotate(mx.nd.array(a), 0).asnumpy(), a, atol=1e-5)
    np.testing.assert_allclose(mx.image.imrotate(mx.nd.array(a), 180).asnumpy(), a[:, ::-1, ::-1], atol=1e-4)
    np.testing.assert_allclose(mx.image.imrotate(mx.nd.array(a), 90).asnumpy(), np.rot90(a, 1, (1, 2)), atol=1e-4)
    with pytest.raises(TypeError, match="float32"):
        mx.image.imrotate(mx.nd.array(a, dtype="float64"), 10)
    batch = mx.image.random_rotate(mx.nd.array(np.stack([a, a])), (-30, 30))
    assert batch.shape == (2, 3, 8, 8)


def test_augmenters_apply_their_formulas():
    src = np.random.rand(6, 5, 3).astype(np.float32) * 255
    np.testing.assert_array_equal(mx.image.HorizontalFlipAug(1)(mx.nd.array(src)).asnumpy(), src[:, ::-1])
    random.seed(5)
    alpha = 1.0 + random.uniform(-0.3, 0.3)
    random.seed(5)
    np.testing.assert_allclose(mx.image.BrightnessJitterAug(0.3)(mx.nd.array(src)).asnumpy(), src * alpha, rtol=1e-5)
    random.seed(6)
    alpha = 1.0 + random.uniform(-0.4, 0.4)
    random.seed(6)
    gray = (src * [0.299, 0.587, 0.114]).sum(2, keepdims=True)
    np.testing.assert_allclose(mx.image.SaturationJitterAug(0.4)(mx.nd.array(src)).asnumpy(),
                               src * alpha + gray * (1 - alpha), rtol=1e-4, atol=1e-3)
    mean, std = np.random.rand(3) * 255, np.random.rand(3) + 1
    out = mx.image.ColorNormalizeAug(mean=mx.nd.array(mean), std=std)(mx.nd.array(src))
    np.testing.assert_allclose(out.asnumpy(), (src - mean) / std, rtol=1e-4, atol=1e-3)
    augs = mx.image.CreateAugmenter((3, 24, 24), resize=30, rand_crop=True, rand_resize=True, rand_mirror=True,
                                    mean=True, std=True, brightness=0.1, contrast=0.1, saturation=0.1, hue=0.1,
                                    pca_noise=0.1, rand_gray=0.5)
    names = [type(a).__name__ for a in augs]
    assert names == ["ResizeAug", "RandomSizedCropAug", "HorizontalFlipAug", "CastAug", "ColorJitterAug",
                     "HueJitterAug", "LightingAug", "RandomGrayAug", "ColorNormalizeAug"]
    img = mx.nd.array(smooth_image(), dtype="uint8")
    for aug in augs:
        img = aug(img)
    assert img.shape == (24, 24, 3) and img.dtype == np.float32
    assert '"resizeaug"' in augs[0].dumps()


def write_images(folder, count):
    paths = []
    for i in range(count):
        path = folder / ("img%d.jpg" % i)
        path.write_bytes(encoded(smooth_image(30 + i, 34, seed=i), "JPEG"))
        paths.append(str(path))
    return paths


def test_image_iter_handles_the_last_batch_as_mxnet(tmp_path):
    paths = write_images(tmp_path, 5)
    imglist = [[float(i), p] for i, p in enumerate(paths)]
    lst = tmp_path / "list.lst"
    lst.write_text("".join("%d\t%d\t%s\n" % (i, i, p) for i, p in enumerate(paths)))

    def make(batch, **kw):
        return mx.image.ImageIter(batch, (3, 24, 24), imglist=imglist, path_root="", **kw)

    batches = list(make(2))
    assert [b.pad for b in batches] == [0, 0, 1]
    assert batches[0].data[0].shape == (2, 3, 24, 24)
    np.testing.assert_array_equal(batches[2].label[0].asnumpy(), [4, 0])  # padded from the start
    assert len(list(make(2, last_batch_handle="discard"))) == 2
    roll = make(2, last_batch_handle="roll_over")
    assert len(list(roll)) == 2  # the fifth image waits for the next epoch
    roll.reset()
    first = roll.next()
    # filled from the next epoch; pad counts those images, as MXNet's does
    assert first.pad == 1 and list(first.label[0].asnumpy()) == [4, 0]
    from_file = mx.image.ImageIter(2, (3, 24, 24), path_imglist=str(lst), path_root="")
    np.testing.assert_array_equal(next(iter(from_file)).data[0].asnumpy(), batches[0].data[0].asnumpy())
    # centre crop of each image (no augmentation but the crop and the cast)
    expected = mx.image.center_crop(mx.image.imread(paths[0]), (24, 24))[0].asnumpy().transpose(2, 0, 1)
    np.testing.assert_array_equal(batches[0].data[0][0].asnumpy(), expected)


def test_image_iter_reads_record_files_in_parts(tmp_path):
    rec, idx = str(tmp_path / "d.rec"), str(tmp_path / "d.idx")
    writer = mx.recordio.MXIndexedRecordIO(idx, rec, "w")
    for i in range(8):
        writer.write_idx(i, mx.recordio.pack_img((0, float(i), i, 0), smooth_image(28, 28, seed=i)[:, :, ::-1]))
    writer.close()
    seen = []
    for part in range(2):
        it = mx.image.ImageIter(2, (3, 28, 28), path_imgrec=rec, path_imgidx=idx, num_parts=2, part_index=part,
                                shuffle=True)
        seen += [v for b in it for v in b.label[0].asnumpy().tolist()]
    assert sorted(seen) == list(range(8))
    plain = mx.image.ImageIter(4, (3, 28, 28), path_imgrec=rec)
    batch = plain.next()
    assert list(batch.label[0].asnumpy()) == [0, 1, 2, 3]
    decoded = mx.image.imdecode(mx.recordio.unpack(mx.recordio.MXRecordIO(rec, "r").read())[1]).asnumpy()
    np.testing.assert_array_equal(batch.data[0][0].asnumpy(), decoded.transpose(2, 0, 1))


def test_pack_img_round_trips_bgr_pixels():
    bgr = smooth_image()
    header, back = mx.recordio.unpack_img(mx.recordio.pack_img((0, 2.0, 9, 0), bgr, img_fmt=".png"))
    assert header.label == 2.0 and header.id == 9
    np.testing.assert_array_equal(back, bgr)
    record = mx.recordio.pack_img((0, [1.0, 2.0], 9, 0), bgr, quality=95)
    header, back = mx.recordio.unpack_img(record, 1)
    np.testing.assert_array_equal(header.label, [1, 2])
    stored = np.asarray(Image.open(io.BytesIO(mx.recordio.unpack(record)[1])).convert("RGB"))
    np.testing.assert_array_equal(back, stored[:, :, ::-1])  # the file holds RGB; BGR comes back
    assert np.abs(back.astype(int) - bgr).mean() < 8  # JPEG loss; swapped channels would differ by ~100
    assert mx.recordio.unpack_img(record, 0)[1].shape == (40, 60)


def test_image_record_iter_matches_image_iter_and_refuses_what_it_lacks(tmp_path):
    rec = str(tmp_path / "d.rec")
    writer = mx.recordio.MXRecordIO(rec, "w")
    for i in range(5):
        writer.write(mx.recordio.pack_img((0, float(i), i, 0), smooth_image(30, 34, seed=i)[:, :, ::-1], img_fmt=".png"))
    writer.close()
    native = mx.io.ImageRecordIter(data_shape=(3, 24, 24), batch_size=2, path_imgrec=rec, preprocess_threads=2)
    python = mx.image.ImageIter(2, (3, 24, 24), path_imgrec=rec)
    assert native.provide_data[0].shape == (2, 3, 24, 24)
    for a, b in zip(native, python):
        np.testing.assert_array_equal(a.data[0].asnumpy(), b.data[0].asnumpy())
        np.testing.assert_array_equal(a.label[0].asnumpy(), b.label[0].asnumpy())
    normalised = mx.io.ImageRecordIter(data_shape=(3, 24, 24), batch_size=5, path_imgrec=rec, mean_r=100, std_b=4,
                                       scale=0.5).next().data[0].asnumpy()
    plain = mx.io.ImageRecordIter(data_shape=(3, 24, 24), batch_size=5, path_imgrec=rec).next().data[0].asnumpy()
    np.testing.assert_allclose(normalised[:, 0], (plain[:, 0] - 100) * 0.5)
    np.testing.assert_allclose(normalised[:, 2], plain[:, 2] * 0.5 / 4)
    pixels = mx.io.ImageRecordIter(data_shape=(3, 24, 24), batch_size=5, path_imgrec=rec, dtype="uint8").next()
    assert pixels.data[0].dtype == np.uint8
    np.testing.assert_array_equal(pixels.data[0].asnumpy(), plain.astype(np.uint8))
    with pytest.raises(ValueError, match="max_rotate_angle=10"):
        mx.io.ImageRecordIter(data_shape=(3, 24, 24), batch_size=2, path_imgrec=rec, max_rotate_angle=10)
    with pytest.raises(TypeError, match="bogus"):
        mx.io.ImageRecordIter(data_shape=(3, 24, 24), batch_size=2, path_imgrec=rec, bogus=1)


@pytest.mark.parametrize("interp", [1, 2, 3])
def test_image_record_iter_resizes_as_resize_short_then_crops(tmp_path, interp):
    rec = str(tmp_path / "d.rec")
    writer = mx.recordio.MXRecordIO(rec, "w")
    images = [smooth_image(37 + 5 * i, 53 - 4 * i, seed=i) for i in range(4)]
    for i, img in enumerate(images):
        writer.write(mx.recordio.pack_img((0, float(i), i, 0), img[:, :, ::-1], img_fmt=".png"))
    writer.close()
    it = mx.io.ImageRecordIter(data_shape=(3, 20, 24), batch_size=4, path_imgrec=rec, resize=26, inter_method=interp)
    got = it.next().data[0].asnumpy()
    for i, img in enumerate(images):  # the whole image resized, then the centred crop cut out
        small = mx.image.resize_short(mx.nd.array(img, dtype="uint8"), 26, interp=interp).asnumpy()
        y0, x0 = (small.shape[0] - 20) // 2, (small.shape[1] - 24) // 2
        np.testing.assert_array_equal(got[i], small[y0:y0 + 20, x0:x0 + 24].transpose(2, 0, 1))
