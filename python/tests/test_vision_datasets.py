"""gluon.data.vision datasets on files made here: CIFAR-10/100 binary files written by their
format (label byte(s), then 1024 red, 1024 green, 1024 blue pixels), an image folder of PNGs and
a record file of image records; through a DataLoader with the vision transforms."""
import io
import os
import tarfile

import numpy as np
import pytest
from PIL import Image

import braid as mx
from braid.gluon.data import DataLoader
from braid.gluon.data.vision import CIFAR10, CIFAR100, ImageFolderDataset, ImageRecordDataset, transforms


def cifar_rows(n, label_bytes, seed):
    rng = np.random.RandomState(seed)
    labels = rng.randint(0, 10, size=(n, label_bytes)).astype(np.uint8)
    images = rng.randint(0, 256, size=(n, 32, 32, 3)).astype(np.uint8)
    planes = images.transpose(0, 3, 1, 2).reshape(n, 3072)  # channel planes, row by row
    return np.concatenate([labels, planes], 1).tobytes(), images, labels


def test_cifar10_reads_the_binary_batches_and_their_tarball(tmp_path):
    expected = []
    folder = tmp_path / "cifar-10-batches-bin"
    folder.mkdir()
    for i in range(1, 6):
        raw, images, labels = cifar_rows(3, 1, i)
        (folder / ("data_batch_%d.bin" % i)).write_bytes(raw)
        expected.append((images, labels))
    raw, test_images, test_labels = cifar_rows(4, 1, 9)
    (folder / "test_batch.bin").write_bytes(raw)
    train = CIFAR10(root=str(tmp_path))
    assert len(train) == 15
    image, label = train[4]
    np.testing.assert_array_equal(image.asnumpy(), expected[1][0][1])
    assert label == expected[1][1][1, 0]
    test = CIFAR10(root=str(tmp_path), train=False, transform=lambda d, l: (d.astype("float32") / 255, l))
    np.testing.assert_allclose(test[3][0].asnumpy(), test_images[3] / 255.0, rtol=1e-6)
    # the tarball, as downloaded from the CIFAR site, extracted on first use
    packed = tmp_path / "packed"
    packed.mkdir()
    with tarfile.open(packed / "cifar-10-binary.tar.gz", "w:gz") as tar:
        tar.add(folder, arcname="cifar-10-batches-bin")
    assert len(CIFAR10(root=str(packed), train=False)) == 4
    with pytest.raises(mx.base.MXNetError, match="downloads nothing"):
        CIFAR10(root=str(tmp_path / "empty"))
    (folder / "test_batch.bin").write_bytes(raw[:-5])
    with pytest.raises(mx.base.MXNetError, match="whole 3074-byte|whole 3073-byte"):
        CIFAR10(root=str(tmp_path), train=False)


def test_cifar100_picks_coarse_or_fine_labels(tmp_path):
    raw, images, labels = cifar_rows(5, 2, 3)
    (tmp_path / "train.bin").write_bytes(raw)
    coarse = CIFAR100(root=str(tmp_path))
    fine = CIFAR100(root=str(tmp_path), fine_label=True)
    assert [coarse[i][1] for i in range(5)] == labels[:, 0].tolist()
    assert [fine[i][1] for i in range(5)] == labels[:, 1].tolist()
    np.testing.assert_array_equal(fine[2][0].asnumpy(), images[2])


def make_folder(root):
    rng = np.random.RandomState(0)
    pictures = {}
    for label, name in enumerate(["cat", "dog"]):
        (root / name).mkdir(parents=True)
        for i in range(3):
            pixels = rng.randint(0, 256, size=(20, 24, 3)).astype(np.uint8)
            Image.fromarray(pixels).save(root / name / ("%d.png" % i))
            pictures[(label, i)] = pixels
    (root / "notes.txt").write_text("not a class")
    (root / "cat" / "readme.md").write_text("not an image")
    return pictures


def test_image_folder_dataset_labels_by_folder(tmp_path):
    pictures = make_folder(tmp_path)
    with pytest.warns(UserWarning):
        ds = ImageFolderDataset(str(tmp_path))
    assert ds.synsets == ["cat", "dog"] and len(ds) == 6
    image, label = ds[4]
    assert label == 1
    np.testing.assert_array_equal(image.asnumpy(), pictures[(1, 1)])
    with pytest.warns(UserWarning):
        gray = ImageFolderDataset(str(tmp_path), flag=0)
    assert gray[0][0].shape == (20, 24, 1)
    loader = DataLoader(ds.transform_first(transforms.Compose([transforms.Resize(16), transforms.ToTensor()])),
                        batch_size=4)
    batches = list(loader)
    assert batches[0][0].shape == (4, 3, 16, 16) and batches[1][0].shape == (2, 3, 16, 16)
    assert batches[0][1].asnumpy().tolist() == [0, 0, 0, 1]


def test_image_record_dataset_decodes_records(tmp_path):
    pictures = make_folder(tmp_path / "img")
    rec, idx = str(tmp_path / "d.rec"), str(tmp_path / "d.idx")
    writer = mx.recordio.MXIndexedRecordIO(idx, rec, "w")
    for n, ((label, i), pixels) in enumerate(sorted(pictures.items())):
        writer.write_idx(n, mx.recordio.pack_img((0, float(label), n, 0), pixels[:, :, ::-1], img_fmt=".png"))
    writer.close()
    ds = ImageRecordDataset(rec)
    assert len(ds) == 6
    image, label = ds[3]
    assert label == 1.0
    np.testing.assert_array_equal(image.asnumpy(), pictures[(1, 0)])
