"""braid im2rec on Fashion-MNIST images written here as PNG and JPEG folders (one per class): lists
as MXNet's im2rec.py writes them, records read back by a reader written here from the RecordIO
format description (and a record file written here read by Braid), pixels compared with Pillow's
decoding, and ImageRecordIter over the result."""
import io
import os
import struct
import subprocess

import numpy as np
import pytest
from PIL import Image

import braid as mx
from conftest import BUILD_DIR

BRAID = os.path.join(BUILD_DIR, "bin", "braid")
MAGIC = 0xCED7230A
PER_CLASS = 4


def fashion_images():
    images = mx.io.load_idx_images(os.path.join(mx.io.fashion_mnist_dir(), "t10k-images-idx3-ubyte.gz")).asnumpy()
    labels = mx.io.load_idx_labels(os.path.join(mx.io.fashion_mnist_dir(), "t10k-labels-idx1-ubyte.gz")).asnumpy()
    picked = {c: [] for c in range(3)}
    for image, label in zip(images.astype(np.uint8), labels.astype(int)):
        if label in picked and len(picked[label]) < PER_CLASS:
            picked[label].append(image.reshape(28, 28))
    return picked


def render(root, fmt):
    """class_<c>/<i>.<fmt> for three classes of Fashion-MNIST, RGB (gray repeated)."""
    files = {}
    for c, images in fashion_images().items():
        folder = root / ("class_%d" % c)
        folder.mkdir(parents=True)
        for i, image in enumerate(images):
            path = folder / ("%d.%s" % (i, fmt))
            Image.fromarray(np.repeat(image[:, :, None], 3, -1)).save(path, quality=95)
            files[os.path.relpath(path, root)] = (c, image)
    return files


def braid(*args, cwd):
    proc = subprocess.run([BRAID, "im2rec", *map(str, args)], cwd=cwd, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout
    return proc.stdout


def read_records(path):
    """Records of a RecordIO file, by the format: magic, length word (low 29 bits; high 3 bits the
    part flag), bytes padded to 4; parts of a split record joined with the magic between them."""
    data, at, records, pending = open(path, "rb").read(), 0, [], None
    while at < len(data):
        magic, word = struct.unpack_from("<II", data, at)
        assert magic == MAGIC
        flag, length = word >> 29, word & ((1 << 29) - 1)
        part = data[at + 8:at + 8 + length]
        at += 8 + (length + 3) // 4 * 4
        if flag == 0:
            records.append(part)
        elif flag == 1:
            pending = part
        else:
            pending += struct.pack("<I", MAGIC) + part
            if flag == 3:
                records.append(pending)
    return records


def image_record(record):
    flag, label, rid, _ = struct.unpack_from("<IfQQ", record)
    labels = list(struct.unpack_from("<%df" % flag, record, 24)) if flag else [label]
    return labels, rid, record[24 + 4 * flag:]


def test_lists_follow_the_folders(tmp_path):
    files = render(tmp_path / "img", "png")
    out = braid("--list", "--recursive", "--no-shuffle", tmp_path / "data", tmp_path / "img", cwd=tmp_path)
    assert "class_0 0" in out and "class_2 2" in out
    lines = [l.split("\t") for l in (tmp_path / "data.lst").read_text().splitlines()]
    assert len(lines) == len(files)
    assert [int(l[0]) for l in lines] == list(range(len(files)))
    for index, label, path in lines:
        assert float(label) == files[path][0]
    braid("--list", "--recursive", "--train-ratio", "0.5", "--test-ratio", "0.25", tmp_path / "split", tmp_path / "img",
          cwd=tmp_path)
    counts = {n: len((tmp_path / ("split_%s.lst" % n)).read_text().splitlines()) for n in ["train", "val", "test"]}
    assert counts == {"train": 6, "val": 3, "test": 3}


def test_shuffled_lists_are_in_mxnets_order(tmp_path):
    # MXNet's im2rec.py lists the sorted walk, then random.seed(100); random.shuffle(list): the
    # same lines, in the same order, come out of braid im2rec (Python's random is the reference).
    import random
    render(tmp_path / "img", "png")
    braid("--list", "--recursive", "--no-shuffle", tmp_path / "sorted", tmp_path / "img", cwd=tmp_path)
    braid("--list", "--recursive", tmp_path / "shuffled", tmp_path / "img", cwd=tmp_path)
    expected = (tmp_path / "sorted.lst").read_text().splitlines()
    random.seed(100)
    random.shuffle(expected)
    assert (tmp_path / "shuffled.lst").read_text().splitlines() == expected


def test_png_records_hold_the_exact_pixels(tmp_path):
    files = render(tmp_path / "img", "png")
    braid("--list", "--recursive", tmp_path / "data", tmp_path / "img", cwd=tmp_path)
    braid("--encoding", ".png", "--num-thread", "2", tmp_path / "data", tmp_path / "img", cwd=tmp_path)
    listed = {int(l.split("\t")[0]): l.split("\t")[2] for l in (tmp_path / "data.lst").read_text().splitlines()}
    records = read_records(tmp_path / "data.rec")
    assert len(records) == len(files)
    offsets = [int(l.split("\t")[1]) for l in (tmp_path / "data.idx").read_text().splitlines()]
    assert offsets[0] == 0 and offsets == sorted(offsets)
    for record in records:
        labels, rid, png = image_record(record)
        label, pixels = files[listed[rid]]
        assert labels == [label]
        decoded = np.asarray(Image.open(io.BytesIO(png)))
        np.testing.assert_array_equal(decoded, np.repeat(pixels[:, :, None], 3, -1))
    it = mx.io.ImageRecordIter(path_imgrec=str(tmp_path / "data.rec"), data_shape=(3, 28, 28), batch_size=4)
    batch = it.next()
    first_label, first_id, _ = image_record(records[0])
    assert batch.label[0].asnumpy()[0] == first_label[0]
    np.testing.assert_array_equal(batch.data[0].asnumpy()[0, 1], files[listed[first_id]][1])


def test_jpeg_records_resize_crop_and_pass_through(tmp_path):
    files = render(tmp_path / "img", "jpg")
    braid("--list", "--recursive", tmp_path / "data", tmp_path / "img", cwd=tmp_path)
    braid("--resize", "40", "--quality", "90", tmp_path / "data", tmp_path / "img", cwd=tmp_path)
    for record in read_records(tmp_path / "data.rec"):
        image = Image.open(io.BytesIO(image_record(record)[2]))
        assert image.format == "JPEG" and image.size == (40, 40)
    braid("--pass-through", tmp_path / "data", tmp_path / "img", cwd=tmp_path)
    listed = {int(l.split("\t")[0]): l.split("\t")[2] for l in (tmp_path / "data.lst").read_text().splitlines()}
    for record in read_records(tmp_path / "data.rec"):
        _, rid, payload = image_record(record)
        assert payload == (tmp_path / "img" / listed[rid]).read_bytes()


def test_multiple_labels_and_a_handwritten_record_file(tmp_path):
    render(tmp_path / "img", "png")
    (tmp_path / "multi.lst").write_text("7\t1.5\t2.5\tclass_0/0.png\n9\t3\t4\tclass_1/0.png\n")
    braid("--pack-label", "--encoding", ".png", tmp_path / "multi", tmp_path / "img", cwd=tmp_path)
    assert [image_record(r)[:2] for r in read_records(tmp_path / "multi.rec")] == [([1.5, 2.5], 7), ([3.0, 4.0], 9)]
    # a record file written here, by the format, read by Braid's ImageRecordIter
    png = (tmp_path / "img" / "class_2" / "1.png").read_bytes()
    body = struct.pack("<IfQQ", 0, 2.0, 5, 0) + png
    with open(tmp_path / "hand.rec", "wb") as f:
        f.write(struct.pack("<II", MAGIC, len(body)) + body + b"\0" * (-len(body) % 4))
    it = mx.io.ImageRecordIter(path_imgrec=str(tmp_path / "hand.rec"), data_shape=(3, 28, 28), batch_size=1)
    batch = it.next()
    assert batch.label[0].asnumpy().tolist() == [2.0]
    np.testing.assert_array_equal(batch.data[0].asnumpy()[0], np.asarray(Image.open(tmp_path / "img" / "class_2" / "1.png")).transpose(2, 0, 1))


def test_bad_lists_and_missing_images_are_reported(tmp_path):
    render(tmp_path / "img", "png")
    (tmp_path / "bad.lst").write_text("0\tclass_0/0.png\n")
    proc = subprocess.run([BRAID, "im2rec", str(tmp_path / "bad"), str(tmp_path / "img")], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=60)
    assert proc.returncode == 2 and "line 1" in proc.stdout
    (tmp_path / "gap.lst").write_text("0\t0\tclass_0/0.png\n1\t0\tnope.png\n")
    out = subprocess.run([BRAID, "im2rec", "--encoding", ".png", str(tmp_path / "gap"), str(tmp_path / "img")],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60).stdout
    assert "nope.png" in out and "1 unreadable images skipped" in out
    assert len(read_records(tmp_path / "gap.rec")) == 1
