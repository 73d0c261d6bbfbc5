"""A word-level LSTM language model (MXNet's Gluon word_language_model example, written for Braid):
an embedding, a multi-layer gluon.rnn.LSTM, dropout and a dense decoder, trained with truncated
back-propagation through time on a text file; prints the training and validation perplexity of
each epoch.

    python3 examples/python/lstm_language_model.py --data corpus.txt --epochs 5

The file's lines are sentences of whitespace-separated words; the last tenth is held out for
validation. Each line ends with the token <eos>."""
import argparse
import math
import time

import numpy as np

import mxnet as mx
from mxnet import autograd, gluon
from mxnet.gluon import nn, rnn


def tokenize(path):
    with open(path) as f:
        return [word for line in f for word in line.split() + ["<eos>"]]


class Corpus(object):
    """The words of `path` as ids; the last `valid_share` of them held out."""

    def __init__(self, path, valid_share=0.1):
        words = tokenize(path)
        self.vocab = {w: i for i, w in enumerate(sorted(set(words)))}
        ids = np.array([self.vocab[w] for w in words], dtype=np.float32)
        cut = int(len(ids) * (1 - valid_share))
        self.train, self.valid = ids[:cut], ids[cut:]


def batchify(ids, batch_size):
    """(steps, batch_size): the sequence cut into batch_size columns, read top to bottom."""
    steps = len(ids) // batch_size
    return mx.nd.array(ids[:steps * batch_size].reshape(batch_size, steps).T)


class LanguageModel(gluon.Block):
    def __init__(self, vocab_size, embed_size, hidden_size, num_layers, dropout, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.drop = nn.Dropout(dropout)
            self.encoder = nn.Embedding(vocab_size, embed_size)
            self.rnn = rnn.LSTM(hidden_size, num_layers, dropout=dropout, input_size=embed_size)
            self.decoder = nn.Dense(vocab_size, in_units=hidden_size, flatten=False)

    def forward(self, inputs, state):
        emb = self.drop(self.encoder(inputs))
        output, state = self.rnn(emb, state)
        return self.decoder(self.drop(output)), state

    def begin_state(self, batch_size):
        return self.rnn.begin_state(batch_size=batch_size)


def detach(state):
    return [s.detach() for s in state]


def evaluate(model, data, bptt, batch_size, loss_fn):
    total, count = 0.0, 0
    state = model.begin_state(batch_size)
    for i in range(0, data.shape[0] - 1, bptt):
        n = min(bptt, data.shape[0] - 1 - i)
        output, state = model(data[i:i + n], state)
        total += loss_fn(output.reshape((-3, -1)), data[i + 1:i + 1 + n].reshape((-1,))).sum().asscalar()
        count += n * batch_size
    return math.exp(total / count)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", required=True, help="a text file, one sentence per line")
    p.add_argument("--emsize", type=int, default=64)
    p.add_argument("--nhid", type=int, default=128)
    p.add_argument("--nlayers", type=int, default=2)
    p.add_argument("--dropout", type=float, default=0.2)
    p.add_argument("--lr", type=float, default=20.0)
    p.add_argument("--clip", type=float, default=0.25, help="global gradient norm per token")
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--bptt", type=int, default=20, help="steps of back-propagation through time")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    mx.random.seed(args.seed)
    np.random.seed(args.seed)

    corpus = Corpus(args.data)
    train, valid = batchify(corpus.train, args.batch_size), batchify(corpus.valid, args.batch_size)
    print("vocabulary %d words, %d training and %d validation tokens" % (
        len(corpus.vocab), len(corpus.train), len(corpus.valid)))
    model = LanguageModel(len(corpus.vocab), args.emsize, args.nhid, args.nlayers, args.dropout)
    model.initialize(mx.init.Xavier())
    trainer = gluon.Trainer(model.collect_params(), "sgd", {"learning_rate": args.lr, "momentum": 0, "wd": 0})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    params = [p for p in model.collect_params().values() if p.grad_req != "null"]

    for epoch in range(args.epochs):
        start, total, count = time.time(), 0.0, 0
        state = model.begin_state(args.batch_size)
        for i in range(0, train.shape[0] - 1, args.bptt):
            n = min(args.bptt, train.shape[0] - 1 - i)
            data, target = train[i:i + n], train[i + 1:i + 1 + n]
            state = detach(state)
            with autograd.record():
                output, state = model(data, state)
                loss = loss_fn(output.reshape((-3, -1)), target.reshape((-1,))).sum()  # one loss per token
            loss.backward()
            # The loss is summed over the n x batch tokens: the norm bound and the step scale with them.
            gluon.utils.clip_global_norm([p.grad() for p in params], args.clip * n * args.batch_size)
            trainer.step(n * args.batch_size)
            total += loss.asscalar()
            count += n * args.batch_size
        valid_ppl = evaluate(model, valid, args.bptt, args.batch_size, loss_fn)
        print("epoch %d: train perplexity %.2f, validation perplexity %.2f (%.1f sec)" % (
            epoch + 1, math.exp(total / count), valid_ppl, time.time() - start))


if __name__ == "__main__":
    main()
