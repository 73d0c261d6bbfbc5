"""Language-modelling datasets of MXNet's gluon.contrib.data.text: WikiText2 and WikiText103
(Merity et al., arXiv:1609.07843), read from the tokenized files on disk.

Braid downloads nothing: put ``wiki.train.tokens``, ``wiki.valid.tokens`` and
``wiki.test.tokens`` (or the archive ``wikitext-2-v1.zip`` / ``wikitext-103-v1.zip``, which is
then extracted there) in ``root``. A segment's text becomes one stream of word indices, with
``<eos>`` at the end of every non-empty line, cut into rows of ``seq_len``; each sample is
(data, label), the label being the data shifted by one word."""
import collections
import os
import re
import shutil
import zipfile

import numpy as np

from .... import ndarray as _nd
from ....base import MXNetError, data_dir
from ...data import dataset

__all__ = ["WikiText2", "WikiText103"]

EOS_TOKEN = "<eos>"
UNKNOWN_TOKEN = "<unk>"


def _count_tokens(text):
    """Word counts of ``text``, split on spaces and newlines (MXNet's count_tokens_from_str)."""
    return collections.Counter(t for t in re.split(" |\n", text) if t)


class _Vocabulary(object):
    """Words and their indices: '<unk>' is 0 (and the index of every unknown word), then the
    reserved tokens, then the counted words from most to least frequent (ties alphabetically),
    as MXNet's contrib.text.vocab.Vocabulary orders them."""

    def __init__(self, counter, unknown_token=UNKNOWN_TOKEN, reserved_tokens=(EOS_TOKEN,)):
        self._unknown_token = unknown_token
        self._reserved_tokens = list(reserved_tokens)
        special = {unknown_token, *self._reserved_tokens}
        words = sorted((w for w in counter if w not in special), key=lambda w: (-counter[w], w))
        self._idx_to_token = [unknown_token] + self._reserved_tokens + words
        self._token_to_idx = {t: i for i, t in enumerate(self._idx_to_token)}

    def __len__(self):
        return len(self._idx_to_token)

    def __contains__(self, token):
        return token in self._token_to_idx

    @property
    def idx_to_token(self):
        return self._idx_to_token

    @property
    def token_to_idx(self):
        return self._token_to_idx

    @property
    def unknown_token(self):
        return self._unknown_token

    @property
    def reserved_tokens(self):
        return self._reserved_tokens

    def to_indices(self, tokens):
        """The index of a word, or the list of indices of a list of words."""
        if isinstance(tokens, str):
            return self._token_to_idx.get(tokens, 0)
        return [self._token_to_idx.get(t, 0) for t in tokens]

    def to_tokens(self, indices):
        """The word at an index, or the words at a list of indices."""
        if isinstance(indices, int):
            return self._idx_to_token[indices]
        return [self._idx_to_token[i] for i in indices]


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
        self._counter = _count_tokens(content)
        self._vocab = vocab if vocab is not None else _Vocabulary(self._counter)
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
