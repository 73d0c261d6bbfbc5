"""Language-modelling datasets of MXNet's gluon.contrib.data.text: WikiText2 and WikiText103
(Merity et al., arXiv:1609.07843), read from the tokenized files on disk.

Braid downloads nothing: put ``wiki.train.tokens``, ``wiki.valid.tokens`` and
``wiki.test.tokens`` (or the archive ``wikitext-2-v1.zip`` / ``wikitext-103-v1.zip``, which is
then extracted there) in ``root``. A segment's text becomes one stream of word indices, with
``<eos>`` at the end of every non-empty line, cut into rows of ``seq_len``; each sample is
(data, label), the label being the data shifted by one word."""
import os
import shutil
import zipfile

import numpy as np

from .... import ndarray as _nd
from ....contrib import text
from ....base import MXNetError, data_dir
from ...data import dataset

__all__ = ["WikiText2", "WikiText103"]

EOS_TOKEN = "<eos>"


class _WikiText(dataset.Dataset):
    """One segment of a WikiText corpus under ``root``; subclasses name the files."""
    _archive = None
    _files = {"train": "wiki.train.tokens", "validation": "wiki.valid.tokens", "test": "wiki.test.tokens"}

    def __init__(self, root, segment, vocab, seq_len):
        if segment not in self._files:
            raise ValueError("%s: segment must be one of %s; got %r"
                             % (type(self).__name__, ", ".join(sorted(self._files)), segment))
        self._root = os.path.expanduser(root)
        self._segment, self._seq_len = segment, seq_len
        with open(self._find(self._files[segment]), "r", encoding="utf8") as f:
            content = f.read()
        # The frequencies are always this segment's; the vocabulary is built from them unless given.
        self._counter = text.utils.count_tokens_from_str(content)
        self._vocab = vocab if vocab is not None else text.vocab.Vocabulary(self._counter,
                                                                            reserved_tokens=[EOS_TOKEN])
        lines = [line.split() for line in content.splitlines()]
        words = [w for line in lines if line for w in line + [EOS_TOKEN]]
        indices = np.array(self._vocab.to_indices(words), dtype=np.int32)
        rows = (len(indices) - 1) // seq_len
        self._data = _nd.array(indices[:rows * seq_len].reshape(rows, seq_len), dtype=np.int32)
        self._label = _nd.array(indices[1:rows * seq_len + 1].reshape(rows, seq_len), dtype=np.int32)

    def _find(self, name):
        path = os.path.join(self._root, name)
        archive = os.path.join(self._root, self._archive)
        if not os.path.exists(path) and os.path.exists(archive):
            self._extract(archive)
        if not os.path.exists(path):
            raise MXNetError("%s: %s not found (nor the archive %s to extract it from). Braid downloads nothing: "
                             "put the WikiText token files there, or pass root=" % (type(self).__name__, path, archive))
        return path

    def _extract(self, archive):
        # Members land in root by their base name only, so no member can write outside root.
        with zipfile.ZipFile(archive) as zf:
            for member in zf.namelist():
                name = os.path.basename(member)
                if name:
                    with zf.open(member) as source, open(os.path.join(self._root, name), "wb") as target:
                        shutil.copyfileobj(source, target)

    @property
    def vocabulary(self):
        """The vocabulary mapping words to indices (given, or built from this segment)."""
        return self._vocab

    @property
    def frequencies(self):
        """collections.Counter of this segment's words."""
        return self._counter

    def __getitem__(self, idx):
        return self._data[idx], self._label[idx]

    def __len__(self):
        return self._label.shape[0]


class WikiText2(_WikiText):
    """WikiText-2 (about 2 million words of Wikipedia articles), segment 'train', 'validation' or
    'test'. ``WikiText2(root=$MXNET_HOME/datasets/wikitext-2, segment='train', vocab=None,
    seq_len=35)``; pass the training set's ``vocabulary`` as ``vocab`` for the other segments."""
    _archive = "wikitext-2-v1.zip"

    def __init__(self, root=os.path.join(data_dir(), "datasets", "wikitext-2"), segment="train", vocab=None,
                 seq_len=35):
        super().__init__(root, segment, vocab, seq_len)


class WikiText103(_WikiText):
    """WikiText-103 (about 103 million words), as WikiText2. ``WikiText103(root=
    $MXNET_HOME/datasets/wikitext-103, segment='train', vocab=None, seq_len=35)``."""
    _archive = "wikitext-103-v1.zip"

    def __init__(self, root=os.path.join(data_dir(), "datasets", "wikitext-103"), segment="train", vocab=None,
                 seq_len=35):
        super().__init__(root, segment, vocab, seq_len)
