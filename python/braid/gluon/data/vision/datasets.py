"""gluon.data.vision.datasets: MNIST and FashionMNIST (C++, from Debian's dataset-fashion-mnist
or a folder of IDX files), CIFAR10 and CIFAR100 (from their binary files in a local folder:
nothing is downloaded), ImageFolderDataset (a folder per class) and ImageRecordDataset (a .rec
file of image records, as im2rec writes them)."""
import os
import tarfile
import warnings

import numpy as np

from .... import image, ndarray as nd, recordio
from ....base import MXNetError, data_dir
from ...._core.gluon.data.vision import MNIST, FashionMNIST
from ..dataset import Dataset, RecordFileDataset

__all__ = ["MNIST", "FashionMNIST", "CIFAR10", "CIFAR100", "ImageFolderDataset", "ImageRecordDataset"]


def _extract(archive, folder):
    """Extracts the tarball `archive` into `folder`, refusing members that would land outside it
    or are not plain files and folders."""
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            target = os.path.realpath(os.path.join(folder, member.name))
            if not (member.isfile() or member.isdir()) or not target.startswith(os.path.realpath(folder) + os.sep):
                raise MXNetError("%s: refusing to extract %r (outside %s, or not a file)" % (archive, member.name, folder))
        tar.extractall(folder)


class _CIFAR(Dataset):
    """Images (32, 32, 3) uint8 and int32 labels of CIFAR's binary files under `root` (or its
    `archive_dir` sub-folder, or extracted from the `archive` tarball found there)."""
    _archive, _archive_dir, _label_bytes = None, None, 1
    _train_files, _test_files = (), ()

    def __init__(self, root, train, transform):
        self._root = os.path.expanduser(root)
        self._train = train
        self._transform = transform
        files = [self._find(name) for name in (self._train_files if train else self._test_files)]
        images, labels = zip(*(self._read(path) for path in files))
        self._data = nd.array(np.concatenate(images), dtype=np.uint8)
        self._label = np.concatenate(labels)

    def _find(self, name):
        places = [os.path.join(self._root, name), os.path.join(self._root, self._archive_dir, name)]
        archive = os.path.join(self._root, self._archive)
        if not any(os.path.exists(p) for p in places) and os.path.exists(archive):
            _extract(archive, self._root)
        for path in places:
            if os.path.exists(path):
                return path
        raise MXNetError("%s: %s not found (looked for %s, and for %s to extract). Braid downloads nothing: put "
                         "the dataset's binary version there, or pass root=" %
                         (type(self).__name__, name, " and ".join(places), archive))

    def _label_of(self, rows):
        return rows[:, 0]

    def _read(self, path):
        record = self._label_bytes + 3072
        raw = np.fromfile(path, dtype=np.uint8)
        if raw.size % record:
            raise MXNetError("%s: %s holds %d bytes, not whole %d-byte records (label byte(s) and 32 x 32 x 3 "
                             "pixels)" % (type(self).__name__, path, raw.size, record))
        rows = raw.reshape(-1, record)
        images = rows[:, self._label_bytes:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
        return images, self._label_of(rows).astype(np.int32)

    def __getitem__(self, idx):
        if self._transform is not None:
            return self._transform(self._data[idx], self._label[idx])
        return self._data[idx], self._label[idx]

    def __len__(self):
        return len(self._label)


class CIFAR10(_CIFAR):
    """CIFAR-10: data_batch_1..5.bin (train) or test_batch.bin, from cifar-10-binary.tar.gz."""
    _archive, _archive_dir = "cifar-10-binary.tar.gz", "cifar-10-batches-bin"
    _train_files = tuple("data_batch_%d.bin" % i for i in range(1, 6))
    _test_files = ("test_batch.bin",)

    def __init__(self, root=os.path.join(data_dir(), "datasets", "cifar10"), train=True, transform=None):
        super().__init__(root, train, transform)


class CIFAR100(_CIFAR):
    """CIFAR-100: train.bin or test.bin, from cifar-100-binary.tar.gz; fine_label picks the 100
    fine classes instead of the 20 coarse ones."""
    _archive, _archive_dir, _label_bytes = "cifar-100-binary.tar.gz", "cifar-100-binary", 2
    _train_files, _test_files = ("train.bin",), ("test.bin",)

    def __init__(self, root=os.path.join(data_dir(), "datasets", "cifar100"), fine_label=False, train=True,
                 transform=None):
        self._fine_label = fine_label
        super().__init__(root, train, transform)

    def _label_of(self, rows):
        return rows[:, 1 if self._fine_label else 0]


class ImageFolderDataset(Dataset):
    """Images under root/<class>/: sample i is (image, label), the label the index of its folder
    in sorted order (``synsets``); flag 1 colour, 0 gray."""

    def __init__(self, root, flag=1, transform=None):
        self._root = os.path.expanduser(root)
        self._flag = flag
        self._transform = transform
        self._exts = [".jpg", ".jpeg", ".png"]
        self.synsets, self.items = [], []
        for folder in sorted(os.listdir(self._root)):
            path = os.path.join(self._root, folder)
            if not os.path.isdir(path):
                warnings.warn("Ignoring %s, which is not a directory." % path, stacklevel=3)
                continue
            label = len(self.synsets)
            self.synsets.append(folder)
            for filename in sorted(os.listdir(path)):
                if os.path.splitext(filename)[1].lower() not in self._exts:
                    warnings.warn("Ignoring %s of type %s. Only support %s" % (
                        filename, os.path.splitext(filename)[1], ", ".join(self._exts)))
                    continue
                self.items.append((os.path.join(path, filename), label))

    def __getitem__(self, idx):
        img = image.imread(self.items[idx][0], self._flag)
        label = self.items[idx][1]
        if self._transform is not None:
            return self._transform(img, label)
        return img, label

    def __len__(self):
        return len(self.items)


class ImageRecordDataset(RecordFileDataset):
    """The image records of a .rec file (with its .idx): sample i is (image, label)."""

    def __init__(self, filename, flag=1, transform=None):
        super().__init__(filename)
        self._flag = flag
        self._transform = transform

    def __getitem__(self, idx):
        header, img = recordio.unpack(super().__getitem__(idx))
        decoded = image.imdecode(img, self._flag)
        if self._transform is not None:
            return self._transform(decoded, header.label)
        return decoded, header.label
