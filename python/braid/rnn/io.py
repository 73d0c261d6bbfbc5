"""Sentences for the mx.rnn language models: ``encode_sentences`` turns tokens into integer ids
and ``BucketSentenceIter`` serves them padded into length buckets, one bucket per batch, for
BucketingModule (each batch's ``bucket_key`` is its padded length)."""
import bisect
import random

import numpy as np

from ..io import DataIter, DataBatch, DataDesc
from .. import ndarray

__all__ = ["encode_sentences", "BucketSentenceIter"]


def encode_sentences(sentences, vocab=None, invalid_label=-1, invalid_key="\n", start_label=0,
                     unknown_token=None):
    """Encodes sentences (lists of string tokens) as lists of integer ids.

    Parameters
    ----------
    sentences : list of list of str
    vocab : dict of str -> int, optional
        The vocabulary to use. When None, one is built (``{invalid_key: invalid_label}`` plus an
        id per new token); a given vocabulary only grows through ``unknown_token``.
    invalid_label : int, default -1
        The id never given to a token (skipped when counting up).
    invalid_key : str, default '\\n'
    start_label : int, default 0
        The first id given to a new token.
    unknown_token : str, optional
        With a given ``vocab``, tokens not in it become this token (which takes the next id);
        without it they are an error.

    Returns
    -------
    (encoded sentences, vocabulary)
    """
    building = vocab is None
    if building:
        vocab = {invalid_key: invalid_label}
    next_id = start_label
    encoded = []
    for sentence in sentences:
        ids = []
        for token in sentence:
            if token not in vocab:
                if not (building or unknown_token):
                    raise AssertionError("Unknown token %s" % token)
                if next_id == invalid_label:
                    next_id += 1
                if unknown_token:
                    token = unknown_token
                vocab[token] = next_id
                next_id += 1
            ids.append(vocab[token])
        encoded.append(ids)
    return encoded, vocab


class BucketSentenceIter(DataIter):
    """Batches of encoded sentences for a language model, bucketed by length: each sentence is
    padded with ``invalid_label`` to the smallest bucket that holds it (longer ones are dropped),
    and a batch's label is its data shifted one step left (the next token), ending in
    ``invalid_label``.

    Parameters
    ----------
    sentences : list of list of int
        Encoded sentences.
    batch_size : int
    buckets : list of int, optional
        Bucket lengths; by default every sentence length that at least ``batch_size`` sentences
        have.
    invalid_label : int, default -1
    data_name : str, default 'data'
    label_name : str, default 'softmax_label'
    dtype : str, default 'float32'
    layout : str, default 'NT'
        'NT' for (batch, time) batches, 'TN' for (time, batch).
    """

    def __init__(self, sentences, batch_size, buckets=None, invalid_label=-1, data_name="data",
                 label_name="softmax_label", dtype="float32", layout="NT"):
        super(BucketSentenceIter, self).__init__()
        if not buckets:
            counts = np.bincount([len(s) for s in sentences])
            buckets = [length for length, count in enumerate(counts) if count >= batch_size]
        buckets.sort()

        per_bucket = [[] for _ in buckets]
        discarded = 0
        for sentence in sentences:
            b = bisect.bisect_left(buckets, len(sentence))
            if b == len(buckets):
                discarded += 1
                continue
            row = np.full((buckets[b],), invalid_label, dtype=dtype)
            row[:len(sentence)] = sentence
            per_bucket[b].append(row)
        # buckets no sentence fell in are left out
        buckets = [length for length, rows in zip(buckets, per_bucket) if rows]
        self.data = [np.asarray(rows, dtype=dtype) for rows in per_bucket if rows]

        print("WARNING: discarded %d sentences longer than the largest bucket." % discarded)

        self.batch_size = batch_size
        self.buckets = buckets
        self.data_name = data_name
        self.label_name = label_name
        self.dtype = dtype
        self.invalid_label = invalid_label
        self.nddata = []
        self.ndlabel = []
        self.major_axis = layout.find("N")
        self.layout = layout
        self.default_bucket_key = max(buckets)

        if self.major_axis == 0:
            shape = (batch_size, self.default_bucket_key)
        elif self.major_axis == 1:
            shape = (self.default_bucket_key, batch_size)
        else:
            raise ValueError("Invalid layout %s: Must by NT (batch major) or TN (time major)" % layout)
        self.provide_data = [DataDesc(name=self.data_name, shape=shape, layout=self.layout)]
        self.provide_label = [DataDesc(name=self.label_name, shape=shape, layout=self.layout)]

        # (bucket, first row) of every full batch
        self.idx = []
        for b, rows in enumerate(self.data):
            self.idx.extend((b, start) for start in range(0, len(rows) - batch_size + 1, batch_size))
        self.curr_idx = 0
        self.reset()

    # MXNet's DataIter keeps these as plain attributes; Braid's C++ DataIter has read-only
    # properties for them, so they are given setters here.
    batch_size = property(lambda self: self._batch_size, lambda self, v: setattr(self, "_batch_size", v))
    provide_data = property(lambda self: self._provide_data, lambda self, v: setattr(self, "_provide_data", v))
    provide_label = property(lambda self: self._provide_label, lambda self, v: setattr(self, "_provide_label", v))

    # Python's iteration calls next() here, so that the batches keep their bucket_key and
    # provide_data (the C++ DataIter's __next__ would hand back its own DataBatch without them).
    def __iter__(self):
        return self

    def __next__(self):
        return self.next()

    def reset(self):
        """Back to the first batch, with the batches and each bucket's sentences shuffled."""
        self.curr_idx = 0
        random.shuffle(self.idx)
        for rows in self.data:
            np.random.shuffle(rows)
        self.nddata = []
        self.ndlabel = []
        for rows in self.data:
            label = np.empty_like(rows)
            label[:, :-1] = rows[:, 1:]
            label[:, -1] = self.invalid_label
            self.nddata.append(ndarray.array(rows, dtype=self.dtype))
            self.ndlabel.append(ndarray.array(label, dtype=self.dtype))

    def next(self):
        """The next DataBatch (``bucket_key`` the bucket's length); StopIteration at the end."""
        if self.curr_idx == len(self.idx):
            raise StopIteration
        b, start = self.idx[self.curr_idx]
        self.curr_idx += 1
        data = self.nddata[b][start:start + self.batch_size]
        label = self.ndlabel[b][start:start + self.batch_size]
        if self.major_axis == 1:
            data, label = data.T, label.T
        return DataBatch([data], [label], pad=0, bucket_key=self.buckets[b],
                         provide_data=[DataDesc(name=self.data_name, shape=data.shape, layout=self.layout)],
                         provide_label=[DataDesc(name=self.label_name, shape=label.shape, layout=self.layout)])
